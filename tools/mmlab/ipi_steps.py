"""Where the cycles of one cross-CPU call round go: a per-step table from a trace.

usage: mmlab ipi-steps LOG... [--case TEXT] [--variant NAME]

Reads the trace records of an mmlab serial log made with trace=1 (for
instance ./run.sh --bench ipi --trace -- target_state=halted) and, for
every call one CPU made to one other CPU inside a timed run, matches the
caller's and the target's records of that call (docs/output.md, "Trace"):

  cp post       ic ICR write     is ICR written    ie call vector entered
  ir claimed    as acknowledged  eo EOI written    iw HLT returned (idle)
  ih idle halts again            aw caller saw the acknowledgement

and prints the median, 25th and 75th percentile cycles of each step (of
the rounds where its end follows its start: under TCG the target often
enters before the caller's ICR write returns), as a
Markdown table per case; the rounds of a case in several logs (boots) are
pooled. Steps that cross CPUs (ic -> ie, ie -> is, as -> aw) subtract two
CPUs' TSCs: under QEMU TCG every vCPU reads one clock (the host's), elsewhere the
header's tsc_skew_bound_cycles bounds the error. Each record costs about
the header's trace.record_cycles; the table counts them in its steps.
Exit status: 0 done, 2 bad usage or no matching rounds.
"""
from __future__ import annotations

import argparse
import bisect
import sys
from pathlib import Path

from .trace import TraceError, parse_trace

# (name, from event, from side, to event, to side): side "c" caller, "t" target.
STEPS = [
    ("post: descriptor and mailbox bits", "cp", "c", "ic", "c"),
    ("ICR write (caller)", "ic", "c", "is", "c"),
    ("ICR write -> call vector entered (delivery, HLT exit)", "ic", "c", "ie", "t"),
    ("call vector entered -> caller's ICR write returns", "ie", "t", "is", "c"),
    ("entry -> claim (stub, counters, two exchanges)", "ie", "t", "ir", "t"),
    ("claim -> acknowledgement (the function)", "ir", "t", "as", "t"),
    ("acknowledgement -> seen by the caller", "as", "t", "aw", "c"),
    ("acknowledgement -> EOI written (target)", "as", "t", "eo", "t"),
    ("EOI -> HLT returned (IRET, back in idle)", "eo", "t", "iw", "t"),
    ("HLT returned -> halts again (idle loop)", "iw", "t", "ih", "t"),
    ("seen -> next round's post (caller's loop)", "aw", "c", "next", "c"),
    ("round: post -> seen", "cp", "c", "aw", "c"),
]


def _pct(vals, p):
    s = sorted(vals)
    return s[min(len(s) - 1, int(p * (len(s) - 1) + 0.5))]


def _first_after(recs, times, ev, t, peer=None):
    """The first record of event @ev (or of a tuple of events) at or after TSC @t on one CPU."""
    for r in recs[bisect.bisect_left(times, t):]:
        if (r.ev == ev or r.ev in ev) and (peer is None or r.peer == peer):
            return r
    return None


def _last_before(recs, times, ev, t):
    for r in reversed(recs[:bisect.bisect_right(times, t)]):
        if r.ev == ev:
            return r
    return None


def _round(case, idx, caller, cps, i, state):
    """The step points of call cps[i]; None when a record is missing (a lost or cut run)."""
    recs, times = idx[caller]
    cp = cps[i]
    ic = _first_after(recs, times, "ic", cp.tsc)
    if not ic or ic.arg != cp.arg or ic.peer not in idx:
        return None
    trecs, ttimes = idx[ic.peer]
    ir = next((r for r in trecs if r.ev == "ir" and r.peer == caller and r.arg == cp.arg), None)
    pts = {"cp": cp, "ic": ic, "is": _first_after(recs, times, "is", ic.tsc),
           "aw": _first_after(recs, times, "aw", cp.tsc), "ir": ir,
           "next": cps[i + 1] if i + 1 < len(cps) else None}
    if not ir:
        return None
    pts["ie"] = _last_before(trecs, ttimes, "ie", ir.tsc)
    pts["as"] = _first_after(trecs, ttimes, "as", ir.tsc, caller)
    pts["eo"] = _first_after(trecs, ttimes, "eo", ir.tsc)
    pts["iw"] = pts["eo"] and _first_after(trecs, ttimes, "iw", pts["eo"].tsc)
    nxt = pts["iw"] and _first_after(trecs, ttimes, ("ih", "ie"), pts["iw"].tsc)
    pts["ih"] = nxt if nxt and nxt.ev == "ih" else None  # not when the next IPI came first
    last_ih = _last_before(trecs, ttimes, "ih", ic.tsc)
    last_iw = _last_before(trecs, ttimes, "iw", ic.tsc)
    state["asleep"] += bool(last_ih and (not last_iw or last_ih.tsc > last_iw.tsc))
    return pts


def steps_of_case(case, variant=None):
    """{step name: [cycles per round]} and the number of rounds whose target was halted."""
    idx = {cpu: (recs, [r.tsc for r in recs]) for cpu, recs in case.cpus.items()}
    out = {name: [] for name, *_ in STEPS}
    state = {"asleep": 0, "rounds": 0}
    for caller, recs in case.cpus.items():
        cps, region = [], None
        for r in recs:
            if r.ev == "rb":
                region = case.variant(r.arg)
            elif r.ev == "re":
                region = None
            elif r.ev == "cp" and r.peer == 1 and region and variant in (None, region):
                cps.append(r)
        for i in range(len(cps)):
            pts = _round(case, idx, caller, cps, i, state)
            if not pts:
                continue
            state["rounds"] += 1
            for name, a, _, b, _ in STEPS:
                if pts.get(a) and pts.get(b) and pts[b].tsc >= pts[a].tsc:
                    out[name].append(pts[b].tsc - pts[a].tsc)
    return out, state


def table(case, steps, state):
    lines = [f"{case.title}: {state['rounds']} rounds, target halted before the ICR write in "
             f"{state['asleep']} of them", "",
             "| step | median cycles | p25 | p75 | rounds |", "|---|---:|---:|---:|---:|"]
    for name, *_ in STEPS:
        v = steps[name]
        if v:
            lines.append(f"| {name} | {_pct(v, 0.5):,} | {_pct(v, 0.25):,} | {_pct(v, 0.75):,} "
                         f"| {len(v)} |")
        else:
            lines.append(f"| {name} | - | - | - | 0 |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="mmlab ipi-steps", description=__doc__.splitlines()[0])
    ap.add_argument("log", nargs="+")
    ap.add_argument("--case", help="only cases whose title contains TEXT")
    ap.add_argument("--variant", help="only timed runs of this variant (design)")
    a = ap.parse_args(argv)
    pooled = {}
    for log in a.log:
        try:
            cases = parse_trace(Path(log).read_text(errors="replace"))
        except (OSError, TraceError) as e:
            print(f"mmlab ipi-steps: {log}: {e}", file=sys.stderr)
            return 2
        for case in cases:
            if a.case and a.case not in case.title:
                continue
            steps, state = steps_of_case(case, a.variant)
            if not state["rounds"]:
                continue
            if case.title not in pooled:
                pooled[case.title] = (case, {name: [] for name, *_ in STEPS},
                                      {"asleep": 0, "rounds": 0})
            _, all_steps, all_state = pooled[case.title]
            for name in steps:
                all_steps[name] += steps[name]
            for k in state:
                all_state[k] += state[k]
    if not pooled:
        print("mmlab ipi-steps: no one-target call rounds in the logs' traces", file=sys.stderr)
        return 2
    for case, steps, state in pooled.values():
        print(table(case, steps, state) + "\n")
    return 0

