"""Reads an mmlab serial log into its header, trailer, results and KTAP tree.

usage: mmlab log [--json] LOG

The log may hold firmware and GRUB noise, ANSI escape sequences, lines from
several CPUs run together, and may stop anywhere. Lines are cleaned, mmlab's
tagged lines (MMLAB, MMLAB-DONE, BENCH, MMLAB-LAVA) are checked one by one,
and everything else goes to the KTAP reader. Whatever is wrong becomes a
Problem with its line number; nothing here raises on bad input, and a line
that fails a check gives no numbers. As a command it prints a summary (or
the whole structure with --json) and exits 1 when there are problems.
"""
from __future__ import annotations

import argparse
import json
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional

from .ktap import Suite, counted_results, parse_ktap
from .problems import (PART_BENCH, PART_HEADER, PART_LAVA, PART_TRAILER,
                       Problem, excerpt)
from .records import (BenchRecord, bench_from_json, check_header, check_trailer,
                      interleaving_problems, lava_from_line)

# ANSI/ECMA-48 escape sequences: CSI (ESC [ ... final byte, which covers OVMF's
# ESC [ = 3 h as well as colours and cursor moves), charset designations
# (ESC ( B) and the two-byte ones (ESC 7, ESC =, ESC c, ...).
ESCAPE_RE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|[()][0-9A-Za-z]|[78=>c]|[@-Z\\\]^_])")
# Control characters left once escape sequences are gone (a lone ESC, NUL, BEL).
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
HEADER, TRAILER, BENCH, LAVA = "MMLAB", "MMLAB-DONE", "BENCH", "MMLAB-LAVA"
# A line that starts with one of these words is an mmlab record ("MMLAB" only
# before a JSON object, as a GRUB menu entry may well start with the name).
START_RE = re.compile(r"^\s*(MMLAB-DONE|MMLAB-LAVA|BENCH|MMLAB(?=\s+\{))(?:\s|$)")
# A record starting anywhere else in a line means output was run together.
TAG_RE = re.compile(r"MMLAB-DONE \{|MMLAB-LAVA |MMLAB \{|BENCH \{")
# A benchmark case that failed: '# bench FAIL <bench> <variant> cpus=K <params>: <why>'.
FAIL_RE = re.compile(r"^# bench FAIL (\S+)(?: (\S+) cpus=(\d+)((?: [^:\s]+=[^:\s]+)*) ?)?: (.*)$")
PART_OF_TAG = {HEADER: PART_HEADER, TRAILER: PART_TRAILER, BENCH: PART_BENCH,
               LAVA: PART_LAVA}


@dataclass
class SerialLog:
    """Everything read from one log, and every problem found in it."""

    path: str
    header: Optional[dict] = None
    header_line: Optional[int] = None
    trailer: Optional[dict] = None
    trailer_line: Optional[int] = None
    benches: List[BenchRecord] = field(default_factory=list)
    lava: List[dict] = field(default_factory=list)
    ktap: List[Suite] = field(default_factory=list)
    problems: List[Problem] = field(default_factory=list)
    bench_lines: int = 0
    failures: List[dict] = field(default_factory=list)  # '# bench FAIL' lines
    # Each result's key to its record, to find a second result for the same point.
    first_of: Dict[tuple, BenchRecord] = field(default_factory=dict, repr=False)

    @property
    def is_kernel_log(self):
        """True when the log has an mmlab header (it came from the kernel)."""
        return self.header_line is not None

    @property
    def has_mmlab_output(self):
        """True when any line of the log is mmlab's own (header, trailer, BENCH, LAVA)."""
        return bool(self.header_line or self.trailer_line or self.bench_lines or self.lava)

    def to_dict(self):
        """The whole log as a JSON-ready dict."""
        return {
            "source": self.path,
            "header": self.header, "header_line": self.header_line,
            "trailer": self.trailer, "trailer_line": self.trailer_line,
            "results": [b.to_dict() for b in self.benches],
            "lava": self.lava,
            "ktap": [s.to_dict() for s in self.ktap],
            "problems": [p.to_dict() for p in self.problems],
            "failures": self.failures,
        }


def clean_line(raw):
    """raw without ANSI escape sequences, carriage returns or other control characters."""
    return CONTROL_RE.sub("", ESCAPE_RE.sub("", raw).replace("\r", ""))


def read_lines(text):
    """Numbered, cleaned lines of text, and whether the last one was cut off."""
    raw_lines = text.split("\n")
    cut_off = raw_lines[-1] != ""
    if not cut_off:
        raw_lines.pop()
    return [(no, clean_line(raw)) for no, raw in enumerate(raw_lines, 1)], cut_off


def parse_text(text, path="<log>"):
    """Parse the text of a serial log into a SerialLog."""
    log = SerialLog(path=path)
    lines, cut_off = read_lines(text)
    last = lines[-1][0] if lines else 0
    ktap_lines = []
    for no, line in lines:
        if not _take_tagged(log, no, line, cut_off and no == last):
            ktap_lines.append((no, line))
            _take_failure(log, no, line)
    log.ktap, ktap_problems = parse_ktap(ktap_lines)
    log.problems += ktap_problems
    _check_whole(log)
    log.problems.sort(key=lambda p: (p.line is None, p.line or 0))
    return log


def parse_log(path):
    """Read and parse the serial log at path; an unreadable file is a problem."""
    try:
        with open(path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    except OSError as e:
        log = SerialLog(path=path)
        log.problems.append(Problem(None, "unreadable", f"cannot read: {e.strerror}"))
        return log
    return parse_text(text, path)


# --- tagged lines --------------------------------------------------------

def _take_tagged(log, no, line, cut_off):
    """Handle line if it carries an mmlab tag; return False for other lines."""
    start = START_RE.match(line)
    starts = [m.start() for m in TAG_RE.finditer(line)]
    if start is None and not starts:
        return False
    if start is None or [s for s in starts if s != start.start(1)]:
        _take_garbled(log, no, line, starts)
        return True
    tag, payload = start.group(1), line[start.end():]
    if tag == LAVA:
        _take_lava(log, no, line.lstrip())
        return True
    obj = _json_object(log, no, tag, payload, cut_off)
    if tag == BENCH:
        log.bench_lines += 1
        if obj is not None:
            _take_bench(log, no, obj)
    elif tag == HEADER:
        _take_header(log, no, obj)
    else:
        _take_trailer(log, no, obj)
    return True


def bench_failure(line, no=None):
    """The dict of a '# bench FAIL' line (bench, variant, cpus, params, why), or None."""
    m = FAIL_RE.match(line)
    if not m:
        return None
    bench, variant, cpus, params, why = m.groups()
    words = dict(w.split("=", 1) for w in (params or "").split())
    return {"bench": bench, "variant": variant, "cpus": int(cpus) if cpus else None,
            "params": words, "why": why, "line": no}


def _take_failure(log, no, line):
    failure = bench_failure(line, no)
    if failure:
        log.failures.append(failure)


def _take_garbled(log, no, line, starts):
    """Report a line where a record shares the line with other output; use none of it."""
    tags = [_tag_at(line, s) for s in starts]
    part = PART_BENCH if BENCH in tags else PART_OF_TAG[tags[-1]]
    log.problems.append(Problem(no, "garbled", "mmlab record run together with other output: "
                                f"{excerpt(line)}", part))
    if BENCH in tags:
        log.bench_lines += 1


def _tag_at(line, start):
    """The tag word that begins at index start of line."""
    return line[start:].split(" ", 1)[0]


def _json_object(log, no, tag, payload, cut_off):
    """The JSON object after tag, or None with a problem recorded."""
    part = PART_OF_TAG[tag]
    payload = payload.strip()
    try:
        obj, end = json.JSONDecoder().raw_decode(payload)
    except json.JSONDecodeError as e:
        kind, what = ("truncated", "is cut off") if cut_off else ("malformed-json", "is not JSON")
        log.problems.append(Problem(no, kind, f"{tag} line {what} ({e.msg})", part))
        return None
    rest = payload[end:].strip()
    if rest:
        log.problems.append(Problem(no, "garbled", f"{tag} line has text after its JSON:"
                                    f" {excerpt(rest)}", part))
        return None
    if not isinstance(obj, dict):
        log.problems.append(Problem(no, "malformed-json", f"{tag} line is not a JSON object",
                                    part))
        return None
    return obj


def _take_header(log, no, obj):
    """Keep the first header; a later one is a problem (a second boot?)."""
    if log.header_line is not None:
        log.problems.append(Problem(no, "duplicate-header", f"second MMLAB header (first on "
                                    f"line {log.header_line})", PART_HEADER))
        return
    log.header_line = no
    if obj is not None:
        log.header = obj
        log.problems += check_header(obj, no)


def _take_trailer(log, no, obj):
    """Keep the first trailer; a later one is a problem."""
    if log.trailer_line is not None:
        log.problems.append(Problem(no, "duplicate-trailer", f"second MMLAB-DONE trailer "
                                    f"(first on line {log.trailer_line})", PART_TRAILER))
        return
    log.trailer_line = no
    if obj is not None:
        log.trailer = obj
        log.problems += check_trailer(obj, no)


def _take_bench(log, no, obj):
    """Add a checked BENCH record; a second result for the same point is a problem."""
    record, problems = bench_from_json(obj, no)
    log.problems += problems
    if record is None:
        return
    if len(log.first_of) != len(log.benches):  # benches changed by hand: index them again
        log.first_of = {b.key(): b for b in log.benches}
    first = log.first_of.get(record.key())
    if first is not None:
        log.problems.append(Problem(no, "duplicate-result", f"second result for {record.bench} "
                                    f"{record.variant} cpus={record.cpus} (first on line "
                                    f"{first.line}); ignored", PART_BENCH))
        return
    log.benches.append(record)
    log.first_of[record.key()] = record


def _take_lava(log, no, line):
    record, problems = lava_from_line(line, no)
    log.problems += problems
    if record is not None:
        log.lava.append(record)


def _check_whole(log):
    """Problems only the whole log shows: no header, no trailer (truncated), variants run apart."""
    if log.header_line is None:
        log.problems.append(Problem(None, "no-header", "no MMLAB header line", PART_HEADER))
    if log.has_mmlab_output and log.trailer_line is None:
        log.problems.append(Problem(None, "truncated", "no MMLAB-DONE trailer: the log is "
                                    "truncated (guest killed or hung?)", PART_TRAILER))
    log.problems += [Problem(None, "not-interleaved", message, PART_BENCH)
                     for message in interleaving_problems(log.benches)]


# --- command line --------------------------------------------------------

def summary_lines(log):
    """A few lines describing the log, for people."""
    out = [f"{log.path}:"]
    if log.header:
        h = log.header
        out.append(f"  header   line {log.header_line}: version {h.get('version')}, "
                   f"{h.get('cpus')} cpus, {h.get('cpu_model')}, "
                   f"hypervisor {h.get('hypervisor')}, firmware {h.get('firmware')}")
    if log.trailer:
        out.append(f"  trailer  line {log.trailer_line}: {json.dumps(log.trailer)}")
    out.append(f"  results  {len(log.benches)} BENCH of {log.bench_lines} lines, "
               f"{len(log.lava)} LAVA")
    counts = {"pass": 0, "fail": 0, "skip": 0}
    for root in log.ktap:
        for _, case in counted_results(root):
            if case.status in counts:
                counts[case.status] += 1
    out.append(f"  ktap     {len(log.ktap)} stream(s): {counts['pass']} ok, "
               f"{counts['fail']} not ok, {counts['skip']} skipped")
    out.append(f"  problems {len(log.problems)}")
    out += [f"    {p}" for p in log.problems]
    return out


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(
        prog="mmlab log",
        description="Parse an mmlab serial log and report what it holds and what is wrong.")
    parser.add_argument("--json", action="store_true", help="print the parsed log as JSON")
    parser.add_argument("log", metavar="LOG", help="serial log file")
    args = parser.parse_args(argv)
    log = parse_log(args.log)
    if args.json:
        print(json.dumps(log.to_dict(), indent=2))
    else:
        print("\n".join(summary_lines(log)))
    return 1 if log.problems else 0

