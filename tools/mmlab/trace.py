"""Turns the trace records of an mmlab serial log (trace=1) into trace.json.

usage: mmlab trace LOG [-o trace.json] [--plot OUT.png [--case TEXT] [--variants A,B]]
       mmlab trace --check trace.json [--min-flows N]

The kernel prints, after each benchmark case, a TRACE-BEGIN line, one
TRACE-CPU line and TRACE data lines per CPU, and a TRACE-END line
(docs/output.md, "Trace"). This writes them as Chrome trace events, which
Perfetto (ui.perfetto.dev) and chrome://tracing open: one process per
case, one thread (track) per CPU, a slice per timed run, cross-CPU call,
call handler, flush, lock hold and fault, an instant per IPI sent or
received and per acknowledgement, and flow arrows from each IPI sent to
its receipt and from each acknowledgement to the caller's wait that saw it.

--check reads a trace.json and checks it: JSON, every event with ph, ts,
pid and tid, a named track per CPU (thread_name "CPU n" with tid n, once
per process), every flow start with exactly one end and no end without a
start, no negative durations, at least --min-flows flows. --plot draws a
timeline PNG of the first timed run of each listed variant of one case
(tools/mmlab/trace_plot.py, gnuplot). Exit status: 0 done or the check
held, 1 the check failed, 2 bad usage or a log with bad or no trace
records (the message names the line).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

EVENTS = {"rb", "re", "cp", "is", "ir", "as", "aw", "fp", "ff", "fe", "la", "lr", "fb", "fx",
          "ic", "ie", "eo", "ih", "iw"}
LOCK_NAMES = {0: "mapping lock", 1: "swap cluster lock", 2: "swap device lock", 3: "region (vma) lock"}
RECORD_RE = re.compile(r"^([a-z]{2}),(-?[0-9a-f]+),(\d+),(\d+)$")
# Slices whose end point is a flow's start or end are drawn this much longer
# (1 ns, in microseconds), so the point lies inside the slice it binds to.
EDGE_US = 0.001


class TraceError(Exception):
    """The log's trace records are malformed or missing; the message names the line."""


@dataclass
class Record:
    cpu: int
    tsc: int
    ev: str
    peer: int
    arg: int


@dataclass
class Case:
    """One TRACE-BEGIN .. TRACE-END block."""

    begin: dict
    line: int
    cpus: Dict[int, List[Record]] = field(default_factory=dict)
    cpu_info: Dict[int, dict] = field(default_factory=dict)
    end: Optional[dict] = None

    @property
    def title(self):
        b = self.begin
        return f"{b.get('bench')} cpus={b.get('cpus')} {b.get('case', '')}".strip()

    def variant(self, index):
        return self.begin.get("variants", {}).get(str(index), f"variant {index}")


def _json_after(line, tag, no):
    try:
        obj = json.loads(line[len(tag):])
    except ValueError as e:
        raise TraceError(f"line {no}: {tag.strip()} is not followed by a JSON object: {e}")
    if not isinstance(obj, dict):
        raise TraceError(f"line {no}: {tag.strip()} is not followed by a JSON object")
    return obj


def _data_line(case, line, no):
    words = line.split()
    if len(words) < 2 or not words[1].isdigit():
        raise TraceError(f"line {no}: TRACE line without a CPU number: {line[:60]!r}")
    cpu = int(words[1])
    if cpu not in case.cpu_info:
        raise TraceError(f"line {no}: records of CPU {cpu} before its TRACE-CPU line")
    recs = case.cpus.setdefault(cpu, [])
    prev = recs[-1].tsc if recs else case.begin["base"]
    for word in words[2:]:
        m = RECORD_RE.match(word)
        if not m or m.group(1) not in EVENTS:
            raise TraceError(f"line {no}: bad trace record {word!r}")
        delta = int(m.group(2), 16) if not m.group(2).startswith("-") else -int(m.group(2)[1:], 16)
        prev += delta
        recs.append(Record(cpu, prev, m.group(1), int(m.group(3)), int(m.group(4))))


def parse_trace(text):
    """The cases of a serial log's text; raises TraceError on a malformed block."""
    cases, cur = [], None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if line.startswith("TRACE-BEGIN "):
            if cur:
                raise TraceError(f"line {no}: TRACE-BEGIN inside the block of line {cur.line}")
            cur = Case(_json_after(line, "TRACE-BEGIN ", no), no)
            if not isinstance(cur.begin.get("base"), int) or not cur.begin.get("tsc_hz"):
                raise TraceError(f"line {no}: TRACE-BEGIN without base and tsc_hz")
        elif line.startswith("TRACE-"):
            if not cur:
                raise TraceError(f"line {no}: {line.split()[0]} outside a TRACE-BEGIN block")
            if line.startswith("TRACE-CPU "):
                info = _json_after(line, "TRACE-CPU ", no)
                cur.cpu_info[int(info.get("cpu", -1))] = info
            elif line.startswith("TRACE-END "):
                cur.end = _json_after(line, "TRACE-END ", no)
                _check_counts(cur, no)
                cases.append(cur)
                cur = None
        elif line.startswith("TRACE "):
            if not cur:
                raise TraceError(f"line {no}: TRACE records outside a TRACE-BEGIN block")
            _data_line(cur, line, no)
    if cur:
        raise TraceError(f"line {cur.line}: TRACE-BEGIN block never ended (log cut short?)")
    return cases


def _check_counts(case, no):
    """Each CPU's records as many as its TRACE-CPU line says: a lost line is an error."""
    for cpu, info in case.cpu_info.items():
        got = len(case.cpus.get(cpu, []))
        if got != info.get("records"):
            raise TraceError(f"line {no}: CPU {cpu} has {got} records, TRACE-CPU said "
                             f"{info.get('records')}")


# ---- conversion ----------------------------------------------------------------------------


class Builder:
    """Collects the Chrome trace events of every case."""

    def __init__(self, t0, tsc_hz):
        self.t0, self.hz = t0, tsc_hz
        self.events: List[dict] = []
        self.unmatched = 0
        self.flows = 0
        self.flow_ids = set()

    def ts(self, tsc):
        return round((tsc - self.t0) * 1e6 / self.hz, 4)

    def add(self, **ev):
        self.events.append(ev)

    def slice(self, pid, cpu, name, cat, t_begin, t_end, args=None, edge=False):
        dur = max(self.ts(t_end) - self.ts(t_begin), 0.0) + (EDGE_US if edge else 0.0)
        self.add(ph="X", name=name, cat=cat, pid=pid, tid=cpu, ts=self.ts(t_begin),
                 dur=round(dur, 4), args=args or {})

    def instant(self, pid, cpu, name, cat, tsc, args=None):
        self.add(ph="i", s="t", name=name, cat=cat, pid=pid, tid=cpu, ts=self.ts(tsc),
                 args=args or {})

    def flow(self, fid, name, cat, start, end):
        """An arrow from start=(pid, cpu, tsc) to end=(pid, cpu, tsc); one per id.

        @cat is the category of the instants at both ends: Chrome's DevTools
        bind a flow event to the event of equal cat, pid, tid and ts, while
        Perfetto binds it to the slice enclosing it (bp "e" for the end).
        """
        if fid in self.flow_ids:
            self.unmatched += 1  # a call sequence seen twice: only at a region's edge
            return
        self.flow_ids.add(fid)
        self.flows += 1
        self.add(ph="s", id=fid, name=name, cat=cat, pid=start[0], tid=start[1],
                 ts=self.ts(start[2]))
        self.add(ph="f", bp="e", id=fid, name=name, cat=cat, pid=end[0], tid=end[1],
                 ts=self.ts(end[2]))


PAIRS = {"rb": "re", "cp": "aw", "ir": "as", "fp": "fe", "ff": "fe", "la": "lr", "fb": "fx"}
ENDS = set(PAIRS.values())


def _pair_key(r):
    """What a begin and its end share: the call for calls, the lock for locks."""
    if r.ev in ("cp", "aw"):
        return ("call", r.arg)
    if r.ev in ("ir", "as"):
        return ("handler", r.peer, r.arg)
    if r.ev in ("la", "lr"):
        return ("lock", r.peer)
    return ({"rb": "region", "re": "region", "fp": "flush", "ff": "flush", "fe": "flush",
             "fb": "fault", "fx": "fault"}[r.ev],)


def _spans(records):
    """(begin, end) record pairs of one CPU, innermost first; unmatched ones are counted."""
    open_: Dict[tuple, List[Record]] = {}
    spans, unmatched = [], 0
    for r in records:
        if r.ev not in PAIRS and r.ev not in ENDS:
            continue  # an instant only
        key = _pair_key(r)
        if r.ev in PAIRS:
            open_.setdefault(key, []).append(r)
        elif open_.get(key):
            spans.append((open_[key].pop(), r))
        else:
            unmatched += 1
    return spans, unmatched + sum(len(v) for v in open_.values())


def _span_slice(b, pid, case, begin, end):
    cpu = begin.cpu
    if begin.ev == "rb":
        b.slice(pid, cpu, f"{case.variant(begin.arg)} (timed run)", "region", begin.tsc, end.tsc,
                {"variant": case.variant(begin.arg)})
    elif begin.ev == "cp":
        b.slice(pid, cpu, f"call #{begin.arg} to {begin.peer} CPU(s)", "ipi", begin.tsc, end.tsc,
                {"seq": begin.arg, "targets": begin.peer}, edge=True)
    elif begin.ev == "ir":
        b.slice(pid, cpu, f"call #{begin.arg} from CPU {begin.peer}", "ipi", begin.tsc, end.tsc,
                {"seq": begin.arg, "caller": begin.peer}, edge=True)
    elif begin.ev in ("fp", "ff"):
        name = "full flush" if begin.ev == "ff" else f"flush {begin.arg} page(s)"
        b.slice(pid, cpu, name, "tlb", begin.tsc, end.tsc,
                {"pages": None if begin.ev == "ff" else begin.arg})
    elif begin.ev == "la":
        b.slice(pid, cpu, LOCK_NAMES.get(begin.peer, f"lock {begin.peer}"), "lock", begin.tsc,
                end.tsc)
    elif begin.ev == "fb":
        b.slice(pid, cpu, "page fault", "fault", begin.tsc, end.tsc,
                {"page": hex(begin.arg), "err": -end.arg if end.arg else 0})


INSTANTS = {"is": ("IPI sent to CPU {peer}", "ipi"), "ir": ("IPI received from CPU {peer}", "ipi"),
            "as": ("ack to CPU {peer}", "ack"), "aw": ("acks seen", "ack"),
            "ic": ("ICR write to CPU {peer}", "ipi"), "ie": ("call vector entered", "ipi"),
            "eo": ("EOI written", "ipi"), "ih": ("idle: halt", "idle"), "iw": ("idle: HLT returned", "idle")}


def _flows(b, pid, cidx, case):
    """IPI sent -> received, ack sent -> seen: matched by (caller, call sequence[, target])."""
    recv, seen = {}, {}
    for cpu, recs in case.cpus.items():
        for r in recs:
            if r.ev == "ir":
                recv.setdefault((r.peer, r.arg, cpu), r)
            elif r.ev == "aw":
                seen.setdefault((cpu, r.arg), r)
    for cpu, recs in case.cpus.items():
        for r in recs:
            if r.ev == "is" and (cpu, r.arg, r.peer) in recv:
                got = recv[(cpu, r.arg, r.peer)]
                b.flow(f"c{cidx}-ipi-{cpu}-{r.arg}-{r.peer}", "IPI", "ipi", (pid, cpu, r.tsc),
                       (pid, got.cpu, got.tsc))
            elif r.ev == "as" and (r.peer, r.arg) in seen:
                done = seen[(r.peer, r.arg)]
                b.flow(f"c{cidx}-ack-{r.peer}-{r.arg}-{cpu}", "ack", "ack", (pid, cpu, r.tsc),
                       (pid, done.cpu, done.tsc))


def _case_events(b, cidx, case):
    pid = cidx + 1
    b.add(ph="M", name="process_name", pid=pid, tid=0, ts=0, args={"name": case.title})
    b.add(ph="M", name="process_sort_index", pid=pid, tid=0, ts=0, args={"sort_index": pid})
    for cpu in sorted(case.cpu_info):
        b.add(ph="M", name="thread_name", pid=pid, tid=cpu, ts=0, args={"name": f"CPU {cpu}"})
        b.add(ph="M", name="thread_sort_index", pid=pid, tid=cpu, ts=0,
              args={"sort_index": cpu})
        spans, unmatched = _spans(case.cpus.get(cpu, []))
        b.unmatched += unmatched
        for begin, end in spans:
            _span_slice(b, pid, case, begin, end)
        for r in case.cpus.get(cpu, []):
            if r.ev in INSTANTS:
                name, cat = INSTANTS[r.ev]
                b.instant(pid, cpu, name.format(peer=r.peer), cat, r.tsc, {"seq": r.arg})
    _flows(b, pid, cidx, case)


def to_chrome(cases, header=None):
    """The trace.json object (Chrome trace-event format, JSON object form) of @cases."""
    if not cases:
        raise TraceError("no TRACE-BEGIN block in the log (was the run made with trace=1?)")
    t0 = min(c.begin["base"] for c in cases)
    b = Builder(t0, cases[0].begin["tsc_hz"])
    for cidx, case in enumerate(cases):
        _case_events(b, cidx, case)
    trace = (header or {}).get("trace") or {}
    summary = [{"case": c.title, **{k: c.end.get(k) for k in
                ("records", "lost", "regions", "record_cycles", "overhead_cycles_per_region")}}
               for c in cases]
    return {"traceEvents": b.events, "displayTimeUnit": "ns",
            "otherData": {"source": "mmlab trace=1", "version": (header or {}).get("version"),
                          "record_cycles": trace.get("record_cycles"),
                          "overhead": trace.get("overhead"), "flows": b.flows,
                          "unmatched_records": b.unmatched,
                          "lost_records": sum(c.end.get("lost", 0) for c in cases),
                          "cases": summary}}


def log_header(text):
    """The MMLAB header object of a log, or None."""
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("MMLAB {"):
            try:
                return json.loads(line[len("MMLAB "):])
            except ValueError:
                return None
    return None


# ---- the checker ---------------------------------------------------------------------------


def check_trace(obj, min_flows=0):
    """Problems of a trace.json object as a list of strings (empty: it holds)."""
    if not isinstance(obj, dict) or not isinstance(obj.get("traceEvents"), list):
        return ["not a JSON object with a traceEvents list"]
    problems, names, used = [], {}, set()
    starts, ends = {}, {}
    for i, ev in enumerate(obj["traceEvents"]):
        missing = [k for k in ("ph", "ts", "pid", "tid") if k not in ev]
        if missing:
            problems.append(f"event {i} ({ev.get('name')}) lacks {', '.join(missing)}")
            continue
        if ev["ph"] == "M" and ev.get("name") == "thread_name":
            key = (ev["pid"], ev["tid"])
            if key in names:
                problems.append(f"pid {key[0]} tid {key[1]}: named twice")
            names[key] = ev.get("args", {}).get("name")
        elif ev["ph"] != "M":
            used.add((ev["pid"], ev["tid"]))
        if ev["ph"] == "X" and not (isinstance(ev.get("dur"), (int, float)) and ev["dur"] >= 0):
            problems.append(f"event {i} ({ev.get('name')}): bad duration {ev.get('dur')!r}")
        if ev["ph"] in ("s", "f"):
            (starts if ev["ph"] == "s" else ends).setdefault((ev.get("cat"), ev.get("id")),
                                                             []).append(i)
    problems += _check_tracks(names, used)
    problems += _check_flows(starts, ends, min_flows)
    return problems


def _check_tracks(names, used):
    problems = []
    for pid, tid in sorted(used - set(names)):
        problems.append(f"pid {pid} tid {tid}: events on a track with no thread_name")
    for (pid, tid), name in sorted(names.items()):
        if name != f"CPU {tid}":
            problems.append(f"pid {pid} tid {tid}: track named {name!r}, not 'CPU {tid}'")
    return problems


def _check_flows(starts, ends, min_flows):
    problems = []
    for key in sorted(set(starts) | set(ends), key=str):
        s, f = len(starts.get(key, [])), len(ends.get(key, []))
        if s != 1 or f != 1:
            problems.append(f"flow {key[1]!r}: {s} start(s), {f} end(s) (want 1 and 1)")
    if len(starts) < min_flows:
        problems.append(f"{len(starts)} flows, fewer than the {min_flows} asked for")
    return problems


# ---- command line --------------------------------------------------------------------------


def _convert(args):
    try:
        with open(args.log, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError as e:
        print(f"mmlab trace: cannot read {args.log}: {e.strerror}", file=sys.stderr)
        return 2
    try:
        cases = parse_trace(text)
        obj = to_chrome(cases, log_header(text))
    except TraceError as e:
        print(f"mmlab trace: {args.log}: {e}", file=sys.stderr)
        return 2
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            json.dump(obj, f, separators=(",", ":"))
    print(summary_line(obj))
    if args.plot:
        from .trace_plot import plot_timeline  # gnuplot only when asked for
        try:
            plot_timeline(cases, args.plot, args.case, args.variants.split(","))
        except (ValueError, RuntimeError) as e:
            print(f"mmlab trace: --plot: {e}", file=sys.stderr)
            return 2
    return 0


def summary_line(obj):
    od = obj["otherData"]
    worst = max((c["overhead_cycles_per_region"] or 0 for c in od["cases"]), default=0)
    return (f"trace: {len(od['cases'])} cases, {od['flows']} flows, "
            f"{sum(c['records'] or 0 for c in od['cases'])} records, {od['lost_records']} lost, "
            f"{od['record_cycles']} cycles per record, at most {worst} cycles per timed run")


def _check(args):
    try:
        with open(args.check, encoding="utf-8") as f:
            obj = json.load(f)
    except (OSError, ValueError) as e:
        print(f"mmlab trace: {args.check}: not readable as JSON: {e}", file=sys.stderr)
        return 1
    problems = check_trace(obj, args.min_flows)
    for p in problems:
        print(f"mmlab trace: {args.check}: {p}", file=sys.stderr)
    if not problems:
        n = sum(1 for e in obj["traceEvents"] if e.get("ph") == "s")
        print(f"mmlab trace: {args.check}: {len(obj['traceEvents'])} events, {n} flows: ok")
    return 1 if problems else 0


def main(argv=None):
    ap = argparse.ArgumentParser(prog="mmlab trace", description=__doc__.split("\n")[0])
    ap.add_argument("log", nargs="?", help="serial log of a trace=1 run")
    ap.add_argument("-o", "--output", help="write trace.json here")
    ap.add_argument("--check", metavar="JSON", help="check a trace.json instead")
    ap.add_argument("--min-flows", type=int, default=0)
    ap.add_argument("--plot", metavar="PNG", help="draw a timeline of one case")
    ap.add_argument("--case", default="", help="--plot: the first case whose title has TEXT")
    ap.add_argument("--variants", default="naive,batched", help="--plot: variants, in order")
    args = ap.parse_args(argv)
    if bool(args.check) == bool(args.log):
        ap.print_usage(sys.stderr)
        print("mmlab trace: give a LOG or --check JSON (one of them)", file=sys.stderr)
        return 2
    return _check(args) if args.check else _convert(args)

