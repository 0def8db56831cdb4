"""Counts KTAP results across logs and lists every failure, for `make test`.

usage: mmlab summary [--label L] [--bench] LOG...

Each LOG is a host test's KTAP output or a kernel serial log. For each one
a status line is printed, then every failing test by its full name
(suite.case) with its diagnostics. Case results are counted across all
logs. A log that has no KTAP, a KTAP plan that does not match its results,
or any other problem (for a kernel log, one with an MMLAB header: no
MMLAB-DONE trailer, a header or trailer that breaks the contract) counts as
one failure named after the log.

With --bench, every well-formed BENCH line counts as one passed check and
every malformed one as a failure; a log without BENCH lines fails, and a
log without KTAP does not.

The last line is exactly 'N passed, N failed, N skipped'. Exit status: 0
when nothing failed, 1 otherwise, 2 on a usage error.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import List

from .ktap import FAIL, PASS, SKIP, counted_results
from .log import parse_log
from .problems import PART_BENCH
from .records import trailer_failed


@dataclass
class Failure:
    """A failed test or check: its full name and the lines that explain it."""

    name: str
    diagnostics: List[str] = field(default_factory=list)


@dataclass
class LogSummary:
    """The counts and failures of one log."""

    path: str
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    bench_ok: int = 0
    failures: List[Failure] = field(default_factory=list)

    def fail(self, name, diagnostics=()):
        """Count one failure called name."""
        self.failed += 1
        self.failures.append(Failure(name, list(diagnostics)))


def summarize(path, bench=False):
    """Read the log at path and count its results (and BENCH lines with bench)."""
    log = parse_log(path)
    summary = LogSummary(path)
    _count_ktap(log, summary)
    if bench:
        _count_bench(log, summary)
    reasons = _log_problems(log, summary, bench)
    if reasons:
        summary.fail(path, reasons)
    return summary


def _count_ktap(log, summary):
    """Add every counted KTAP result of the log; failures keep their diagnostics."""
    for root in log.ktap:
        for name, case in counted_results(root):
            if case.status == PASS:
                summary.passed += 1
            elif case.status == SKIP:
                summary.skipped += 1
            elif case.status == FAIL:
                subtest_notes = case.subtest.diagnostics if case.subtest else []
                summary.fail(name, case.diagnostics + subtest_notes)


def _count_bench(log, summary):
    """One passed check per well-formed BENCH line, one failure per broken one."""
    summary.bench_ok = len(log.benches)
    summary.passed += summary.bench_ok
    broken = {}
    for p in filter(_is_bench_line, log.problems):
        broken.setdefault(p.line, []).append(p.message)
    for line, messages in sorted(broken.items()):
        summary.fail(f"{log.path}:{line} BENCH", messages)
    if log.bench_lines == 0:
        summary.fail(f"{log.path}: BENCH", ["no BENCH lines in the log"])


def _log_problems(log, summary, bench):
    """Why the log as a whole fails: problems not already counted, missing KTAP."""
    reasons = [str(p) for p in log.problems
               if not (bench and _is_bench_line(p)) and not _is_host_log_header(log, p)]
    if not log.ktap and not bench:
        reasons.append("no KTAP output")
    if log.trailer and trailer_failed(log.trailer) and summary.failed == 0:
        reasons.append(f"the trailer reports a failure: {log.trailer}")
    return reasons


def _is_bench_line(problem):
    """True for a problem with one BENCH line (counted as that line's failure)."""
    return problem.part == PART_BENCH and problem.line is not None


def _is_host_log_header(log, problem):
    """True for 'no header' in a log with no mmlab output at all: a host test's KTAP."""
    return problem.kind == "no-header" and not log.has_mmlab_output


def render(summary, label=""):
    """The status line of one log followed by its failures."""
    status = "FAIL" if summary.failed else "PASS"
    counts = f"{summary.passed - summary.bench_ok} ok, {summary.failed} not ok, " \
             f"{summary.skipped} skip"
    if summary.bench_ok:
        counts += f", {summary.bench_ok} BENCH ok"
    prefix = f"{label}: " if label else ""
    lines = [f"{prefix}{summary.path}: {status} ({counts})"]
    for failure in summary.failures:
        lines.append(f"  not ok {failure.name}")
        lines += [f"    # {d}" for d in failure.diagnostics]
    return lines


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="mmlab summary",
        description="Count KTAP results (and BENCH lines) across logs; list failures.")
    parser.add_argument("--label", default="", metavar="L", help="prefix for each status line")
    parser.add_argument("--bench", action="store_true",
                        help="require BENCH lines and count each as a check")
    parser.add_argument("logs", nargs="+", metavar="LOG", help="KTAP output or serial log")
    args = parser.parse_args(argv)
    summaries = [summarize(path, args.bench) for path in args.logs]
    for summary in summaries:
        print("\n".join(render(summary, args.label)))
    passed = sum(s.passed for s in summaries)
    failed = sum(s.failed for s in summaries)
    skipped = sum(s.skipped for s in summaries)
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0

