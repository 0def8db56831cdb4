"""Short progress of a benchmark run, from its serial console as it arrives.

usage: mmlab progress [--benches LIST] [--tty | --no-tty] < console lines

run.sh pipes serial.log into this (tail -F) while the guest runs, unless
--verbose (the console lines themselves) or --quiet (nothing). It prints
one line per benchmark: on a terminal the line is rewritten in place as
each case starts (cases so far, failures, elapsed time, an estimate of
what is left) and kept when the benchmark ends; elsewhere (a log file, CI)
only the finished line is written, once. The estimate counts benchmarks:
those not yet finished times the mean time of those finished, so it needs
LIST (run.sh --bench) and one finished benchmark; the kernel does not say
how many cases a benchmark has. '# WARN' and 'mmlab: error' lines are
passed through (at most MAX_WARN of the warnings). Exit status 0.
"""
import argparse
import re
import sys
import time

CASE_RE = re.compile(r"^# bench (\w+) cpus=\d+.*: variants alternate")
FAIL_RE = re.compile(r"^# bench FAIL (\w+)")
SKIP_RE = re.compile(r"^# (?:WARN )?bench (\w+)\b.*\bskipped\b")
PASS_ON_RE = re.compile(r"^(# WARN |mmlab: error)")
DONE = "MMLAB-DONE"
MAX_WARN = 5


def clock(seconds):
    """'42s', '3m05s', '1h02m'."""
    s = int(seconds)
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{s % 3600 // 60:02d}m"


class Progress:
    """The state of the run: the benchmark under way and those finished."""

    def __init__(self, benches, out, tty, now=time.monotonic):
        self.benches, self.out, self.tty, self.now = benches, out, tty, now
        self.start = now()
        self.bench, self.cases, self.failed, self.skipped = None, 0, 0, 0
        self.bench_start, self.durations, self.warnings = None, [], 0
        self.seen = set()

    def feed(self, line):
        """Take one console line."""
        line = line.rstrip("\r\n")
        for regex, what in ((CASE_RE, "case"), (FAIL_RE, "fail"), (SKIP_RE, "skip")):
            m = regex.match(line)
            if m:
                self._count(m.group(1), what)
                return
        if line.startswith(DONE):
            self.finish()
        elif PASS_ON_RE.match(line) and (not line.startswith("# WARN")
                                         or self.warnings < MAX_WARN):
            self.warnings += line.startswith("# WARN")
            self._write_line(line)

    def _count(self, bench, what):
        if bench != self.bench:
            self.finish()
            self.bench, self.bench_start = bench, self.now()
            self.seen.add(bench)
        self.cases += what == "case"
        self.failed += what == "fail"
        self.skipped += what == "skip"
        if self.tty:
            self.out.write("\r\033[K" + self.status())
            self.out.flush()

    def status(self, finished=False):
        """The benchmark's line: 'tlb: 14 cases, 0 failed, 1m05s; about 1m left'."""
        took = self.now() - self.bench_start
        text = (f"{self.bench}: {self.cases} case{'s' if self.cases != 1 else ''}"
                f"{' run' if self.skipped else ''}"
                f"{', ' + str(self.failed) + ' failed' if self.failed else ''}"
                f"{', ' + str(self.skipped) + ' skipped' if self.skipped else ''}, "
                f"{clock(took)}")
        left = self.left(took, finished)
        return text + (f" (run {clock(self.now() - self.start)}" +
                       (f", about {clock(left)} left)" if left is not None else ")"))

    def left(self, took, finished):
        """Seconds left by the mean benchmark time, or None when it cannot be told."""
        if not self.benches or self.bench not in self.benches:
            return None
        durations = self.durations + ([took] if finished else [])
        if not durations:
            return None
        mean = sum(durations) / len(durations)
        after = sum(1 for b in self.benches if b not in self.seen)
        left = after * mean + (0 if finished else max(mean - took, 0))
        return None if finished and not after else left

    def finish(self):
        """End the benchmark under way: its line is kept."""
        if self.bench is None:
            return
        line = self.status(finished=True)
        self.durations.append(self.now() - self.bench_start)
        self._write_line(line)
        self.bench, self.cases, self.failed, self.skipped = None, 0, 0, 0

    def _write_line(self, line):
        self.out.write(("\r\033[K" if self.tty else "") + line + "\n")
        self.out.flush()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="mmlab progress",
                                     description="one progress line per benchmark")
    parser.add_argument("--benches", default="", help="the benchmarks asked for, in order")
    parser.add_argument("--tty", dest="tty", action="store_true", default=None)
    parser.add_argument("--no-tty", dest="tty", action="store_false")
    args = parser.parse_args(argv)
    tty = sys.stderr.isatty() if args.tty is None else args.tty
    benches = [b for b in args.benches.split(",") if b]
    progress = Progress(benches, sys.stderr, tty)
    for line in iter(sys.stdin.readline, ""):
        progress.feed(line)
    progress.finish()
    return 0

