"""The dot-and-interval chart of a group measured at one CPU count only.

A line chart of one point per design says nothing a line could; instead
each design gets a row: its median as a dot and the median's 95% interval
(min..max for a log without samples) as a bar, on one shared axis (log
when the values span a factor of LOG_SPAN, else linear from 0). Inline SVG
(mmlab.svg), drawn by the page itself.
"""
from __future__ import annotations

import math

from .format import format_number
from .plot import bar
from .svg import AXIS, SAME, dot, line, linear_ticks, log_ticks, svg_open, text, tick_text

LABEL_W = 120
PLOT_W = 380
VALUE_W = 150
ROW_H = 20
TOP = 30
BOTTOM = 40
LOG_SPAN = 20


def single_count_groups(groups):
    """The groups with results at one CPU count only: they get a dot chart, no line plot."""
    return [g for g in groups if len(g.cpu_counts()) == 1]


def _scale(values):
    """(low, high, log?) of an axis holding every value."""
    lo, hi = min(values), max(values)
    if lo > 0 and hi >= LOG_SPAN * lo:
        return lo / 1.2, hi * 1.2, True
    return 0.0, (hi * 1.1 if hi > 0 else 1.0), False


def render_dots(group):
    """The SVG text of a group's dot-and-interval chart."""
    cpus = group.cpu_counts()[0]
    recs = [(v, group.result(v, cpus)) for v in group.variants if group.result(v, cpus)]
    values = [x for _, r in recs for x in (r.median, *bar(r))]
    lo, hi, log = _scale(values)

    def x_of(v):
        if log:
            v = max(v, lo)
            return LABEL_W + (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) * PLOT_W
        return LABEL_W + (v - lo) / (hi - lo) * PLOT_W

    height = TOP + ROW_H * len(recs) + BOTTOM
    title = f"{group.title} at {cpus} CPUs: {group.metric} ({group.better} is better)"
    parts = [svg_open(LABEL_W + PLOT_W + VALUE_W, height, "dots", title),
             text(4, 16, title, extra=" font-weight=\"bold\"")]
    base = TOP + ROW_H * len(recs) + 4
    for t in (log_ticks(lo, hi) if log else linear_ticks(lo, hi)):
        parts += [line(x_of(t), TOP, x_of(t), base, "#e2e2e2"),
                  text(x_of(t), base + 14, tick_text(t), "middle")]
    parts.append(line(LABEL_W, base, LABEL_W + PLOT_W, base, AXIS))
    parts.append(text(LABEL_W + PLOT_W / 2, base + 30, f"{group.metric} [{group.unit}] "
                      "(dot: median, bar: 95% CI of the median)", "middle"))
    for i, (variant, rec) in enumerate(recs):
        mid = TOP + ROW_H * i + ROW_H / 2
        low, high = bar(rec)
        parts += [text(LABEL_W - 8, mid + 4, variant, "end"),
                  line(x_of(low), mid, x_of(high), mid, SAME, 2),
                  dot(x_of(rec.median), mid, SAME),
                  text(LABEL_W + PLOT_W + 8, mid + 4, format_number(rec.median))]
    return "\n".join(parts + ["</svg>"])
