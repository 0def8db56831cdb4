"""A timeline PNG of traced timed runs (mmlab.trace --plot), drawn with gnuplot.

One panel per variant: the first timed run of that variant in the chosen
case, one row per CPU, time in microseconds from the start of the run.
Boxes are the slices trace.json has (cross-CPU call on the caller, its
handler on a target, flushes, lock holds, faults); arrows are the flows
(IPI sent -> received in blue, acknowledgement -> seen in green). The
same records as trace.json, so the picture is what Perfetto would show.
"""
from __future__ import annotations

import shutil
import subprocess

from .trace import _spans  # the same pairing as trace.json

# category -> (colour, half height of the box in CPU rows, legend)
STYLE = {
    "cp": ("#9ecae1", 0.40, "call (caller waits for acks)"),
    "ir": ("#fdae6b", 0.40, "call handler (target)"),
    "fp": ("#d62728", 0.22, "flush, page by page"),
    "ff": ("#7b0000", 0.22, "full flush"),
    "la": ("#9467bd", 0.30, "lock held"),
    "fb": ("#8c6d31", 0.30, "page fault"),
}
IPI_COLOUR, ACK_COLOUR = "#08519c", "#238b45"


def first_region(case, variant):
    """(begin, end) TSC of the first timed run of @variant in @case, or None."""
    names = case.begin.get("variants", {})
    index = next((int(k) for k, v in names.items() if v == variant), None)
    for cpu in sorted(case.cpus):
        for begin, end in _spans(case.cpus[cpu])[0]:
            if begin.ev == "rb" and begin.arg == index:
                return begin.tsc, end.tsc
    return None


def _window(case, lo, hi):
    """Every CPU's spans inside [lo, hi], the run's own excepted."""
    spans = []
    for recs in case.cpus.values():
        spans += [(b, e) for b, e in _spans(recs)[0]
                  if b.ev != "rb" and lo <= b.tsc and e.tsc <= hi]
    return spans


def _arrows(case, lo, hi, us):
    """gnuplot arrows for the flows inside the window."""
    recv, seen, out = {}, {}, []
    inside = [r for recs in case.cpus.values() for r in recs if lo <= r.tsc <= hi]
    for r in inside:
        if r.ev == "ir":
            recv.setdefault((r.peer, r.arg, r.cpu), r)
        elif r.ev == "aw":
            seen.setdefault((r.cpu, r.arg), r)
    for r in inside:
        if r.ev == "is" and (r.cpu, r.arg, r.peer) in recv:
            to = recv[(r.cpu, r.arg, r.peer)]
            out.append((us(r.tsc), r.cpu, us(to.tsc), to.cpu, IPI_COLOUR))
        elif r.ev == "as" and (r.peer, r.arg) in seen:
            to = seen[(r.peer, r.arg)]
            out.append((us(r.tsc), r.cpu, us(to.tsc), to.cpu, ACK_COLOUR))
    return out


def panel_script(case, variant, lo, hi):
    """The gnuplot commands of one panel."""
    hz = case.begin["tsc_hz"]

    def us(tsc):
        return (tsc - lo) * 1e6 / hz

    spans = _window(case, lo, hi)
    cpus = sorted(case.cpu_info)
    lines = ["unset object", "unset arrow",
             f'set title "{variant}: one timed run of {case.title} ({us(hi):.1f} us)"',
             f"set xrange [0:{us(hi) * 1.02:.3f}]",
             f"set yrange [{max(cpus) + 0.7}:-0.7]",
             "set ytics (" + ", ".join(f'"CPU {c}" {c}' for c in cpus) + ")"]
    n = 1
    for b, e in sorted(spans, key=lambda s: -STYLE.get(s[0].ev, ("", 0))[1]):
        colour, half, _ = STYLE.get(b.ev, ("#888888", 0.3, ""))
        lines.append(f"set object {n} rect from {us(b.tsc):.3f},{b.cpu - half} to "
                     f"{max(us(e.tsc), us(b.tsc) + 0.05):.3f},{b.cpu + half} "
                     f'fc rgb "{colour}" fs solid 0.9 noborder')
        n += 1
    for i, (x1, y1, x2, y2, colour) in enumerate(_arrows(case, lo, hi, us), 1):
        lines.append(f'set arrow {i} from {x1:.3f},{y1} to {x2:.3f},{y2} lc rgb "{colour}" '
                     "lw 1 head size screen 0.006,20 front")
    keys = [f'keyentry with boxes fc rgb "{c}" fs solid title "{t}"' for c, _, t in STYLE.values()]
    keys += [f'keyentry with vectors lc rgb "{IPI_COLOUR}" title "IPI sent -> received"',
             f'keyentry with vectors lc rgb "{ACK_COLOUR}" title "ack sent -> seen"']
    lines.append("plot NaN notitle, " + ", ".join(keys))
    return lines


def timeline_script(case, variants, out):
    """The whole gnuplot script: one panel per variant, stacked."""
    panels = []
    for v in variants:
        region = first_region(case, v)
        if region is None:
            raise ValueError(f"no timed run of variant {v!r} in case {case.title!r}")
        panels.append((v, region))
    head = ["set terminal pngcairo size 1400,%d font ',10'" % (320 * len(panels)),
            f'set output "{out}"', "set xlabel \"microseconds from the start of the run\"",
            "set key outside right top", "set grid xtics",
            f"set multiplot layout {len(panels)},1"]
    body = []
    for v, (lo, hi) in panels:
        body += panel_script(case, v, lo, hi)
    return "\n".join(head + body + ["unset multiplot", ""])


def plot_timeline(cases, out, case_text, variants):
    """Draws @out for the first case whose title contains @case_text. Raises on failure."""
    case = next((c for c in cases if case_text in c.title), None)
    if case is None:
        raise ValueError(f"no traced case matches {case_text!r}")
    program = shutil.which("gnuplot")
    if not program:
        raise RuntimeError("gnuplot not found (Debian: gnuplot-nox)")
    done = subprocess.run([program], input=timeline_script(case, variants, out), text=True,
                          capture_output=True)
    if done.returncode != 0:
        raise RuntimeError(f"gnuplot failed: {done.stderr.strip()[:300]}")
    return out
