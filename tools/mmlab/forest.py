"""The forest plot of a run: every design's ratio against its reference, one chart.

One row per comparison (mmlab.headline.comparisons: a design against naive
in one benchmark, parameter set and metric at one CPU count), grouped by
benchmark and CPU count under a heading row. Each row draws the ratio as a
dot and its 95% interval as a bar on a log axis with a line at 1,
so a bar that crosses the line is no difference. Colours: green, the design
wins significantly; red, it loses significantly; blue, no significant
difference; grey, an A/A control or a row expected near 1 (which should sit
on the line); a hollow dot has no interval (too few runs); an unstable
comparison has no dot, only the word. The chart is inline SVG
(mmlab.svg); each row is a <g class="forest-row"> with a data-kind of
design, near1 or aa, which the browser test counts.
"""
from __future__ import annotations

import math

from .headline import AA_CONTROL, NEAR1, UNSTABLE, short
from .svg import (AXIS, GREY, LOSS, SAME, WIN, dot, esc, line, log_ticks, svg_open, text,
                  tick_text)

LABEL_W = 330
PLOT_W = 440
VALUE_W = 170
ROW_H = 16
HEAD_H = 22
TOP = 28
BOTTOM = 40
# A ratio or bound outside these is drawn at the edge (an arrow says so).
CLAMP = (1e-4, 1e6)


def kind_name(c):
    """The data-kind of a comparison's row."""
    return {NEAR1: "near1", AA_CONTROL: "aa"}.get(c.kind, "design")


def colour(c):
    """A row's colour: grey for A/A and near-1 rows, else by the ratio's significance."""
    if c.is_control:
        return GREY
    if not c.significant:
        return SAME
    return WIN if c.ratio > 1 else LOSS


def forest_rows(comps):
    """[(heading, [comparisons])] by benchmark (log order) and CPU count (ascending)."""
    keys = list(dict.fromkeys((c.group.bench, c.cpus) for c in comps))
    benches = list(dict.fromkeys(b for b, _ in keys))
    keys.sort(key=lambda k: (benches.index(k[0]), k[1]))
    return [(f"{b}, {n} CPU{'s' if n != 1 else ''}",
             [c for c in comps if (c.group.bench, c.cpus) == (b, n)]) for b, n in keys]


def x_range(comps):
    """The axis' (low, high): every ratio and bound, and 1, with a little room."""
    values = [1.0] + [v for c in comps if c.ratio and not c.unstable
                      for v in (c.ratio, *(c.ci or ())) if v and v > 0]
    lo = max(min(values), CLAMP[0]) / 1.15
    hi = min(max(values), CLAMP[1]) * 1.15
    return lo, hi


def render_forest(comps):
    """The forest plot's SVG text; '' when there is nothing to compare."""
    if not comps:
        return ""
    groups = forest_rows(comps)
    lo, hi = x_range(comps)
    height = TOP + sum(HEAD_H + ROW_H * len(rows) for _, rows in groups) + BOTTOM
    width = LABEL_W + PLOT_W + VALUE_W

    def x_of(v):
        v = min(max(v, lo), hi)
        return LABEL_W + (math.log(v) - math.log(lo)) / (math.log(hi) - math.log(lo)) * PLOT_W

    parts = [svg_open(width, height, "forest", "forest plot: each design's ratio against the "
                      "reference with its 95% CI, log axis")]
    parts += _axis(x_of, lo, hi, height)
    y = TOP
    metrics = {}
    for c in comps:
        metrics.setdefault(c.group.bench, set()).add(c.group.metric)
    for heading, rows in groups:
        parts.append(text(4, y + HEAD_H - 6, heading, extra=" font-weight=\"bold\""))
        y += HEAD_H
        for c in rows:
            parts.append(_row(c, x_of, y, len(metrics[c.group.bench]) > 1))
            y += ROW_H
    return "\n".join(parts + ["</svg>"])


def _axis(x_of, lo, hi, height):
    """The ticks, their labels and grid lines, the line at 1 and the axis title."""
    out = []
    base = height - BOTTOM + 4
    for t in log_ticks(lo, hi):
        x = x_of(t)
        out.append(line(x, TOP, x, base, "#e2e2e2"))
        out.append(text(x, base + 14, tick_text(t), "middle"))
        # Above too: the chart is as tall as the run has comparisons.
        out.append(text(x, TOP - 10, tick_text(t), "middle"))
    one = x_of(1.0)
    out.append(line(one, TOP - 6, one, base, AXIS, 1.5))
    out.append(line(LABEL_W, base, LABEL_W + PLOT_W, base, AXIS))
    out.append(text(LABEL_W + PLOT_W / 2, base + 30, "ratio against the reference "
                    "(log axis; > 1: the design wins)", "middle"))
    return out


def _row(c, x_of, y, metric_named):
    """One comparison's <g>: label, interval bar, dot and value text."""
    col = colour(c)
    mid = y + ROW_H / 2
    words = [f"{k}={v}" for k, v in c.group.params.items()]
    label = " ".join(words + ([f"[{c.group.metric}]"] if metric_named else []) + [c.design])
    tip = f"{c.group.title}, {c.group.metric}, at {c.cpus} CPUs: {c.design} against naive"
    parts = [f"<g class=\"forest-row\" data-kind=\"{kind_name(c)}\"><title>{esc(tip)}</title>",
             text(LABEL_W - 8, mid + 4, label, "end",
                  " fill=\"#777\"" if c.is_control else "")]
    if c.unstable:  # no ratio: the row says why in table.txt
        parts.append(text(LABEL_W + PLOT_W + 8, mid + 4, UNSTABLE, extra=f" fill=\"{GREY}\""))
        return "".join(parts) + "</g>"
    if c.ci:
        parts.append(line(x_of(c.ci[0]), mid, x_of(c.ci[1]), mid, col, 2))
    if c.ratio and c.ratio > 0:
        parts.append(dot(x_of(c.ratio), mid, col, hollow=c.ci is None))
    value = "n/a" if not c.ratio else f"{short(c.ratio)}x"
    value += f" [{short(c.ci[0])}-{short(c.ci[1])}]" if c.ci else " (no CI)"
    value += {NEAR1: " near 1", AA_CONTROL: " A/A"}.get(c.kind, "")
    parts.append(text(LABEL_W + PLOT_W + 8, mid + 4, value, extra=f" fill=\"{col}\""))
    return "".join(parts) + "</g>"
