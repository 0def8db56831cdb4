"""Small SVG drawing helpers for the results page's own charts (forest, dots).

The page draws these charts itself, as inline SVG text: no gnuplot, no
image files, a few kilobytes each, and the browser test can find their
elements. Axes are linear or log10; tick values are picked so that a tick
label never needs more than three significant digits.
"""
from __future__ import annotations

import html
import math

FONT = "font-family=\"system-ui, sans-serif\" font-size=\"12\""
GREY = "#9a9a9a"
WIN = "#1a7f37"
LOSS = "#c62828"
SAME = "#1f4e9c"
AXIS = "#444"


def esc(text):
    """text escaped for SVG element content and attribute values."""
    return html.escape(str(text), quote=True)


def svg_open(width, height, css_class, label):
    """The opening <svg> tag of a chart of width x height pixels."""
    return (f"<svg class=\"{css_class}\" "
            f"width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" "
            f"role=\"img\" aria-label=\"{esc(label)}\" {FONT}>")


def text(x, y, words, anchor="start", extra=""):
    """A <text> element at (x, y)."""
    return f"<text x=\"{x:.1f}\" y=\"{y:.1f}\" text-anchor=\"{anchor}\"{extra}>{esc(words)}</text>"


def line(x1, y1, x2, y2, colour, width=1.0, extra=""):
    """A <line> element."""
    return (f"<line x1=\"{x1:.1f}\" y1=\"{y1:.1f}\" x2=\"{x2:.1f}\" y2=\"{y2:.1f}\" "
            f"stroke=\"{colour}\" stroke-width=\"{width}\"{extra}/>")


def dot(x, y, colour, hollow=False, r=4):
    """A <circle>: filled, or hollow (a value without an interval)."""
    fill = "white" if hollow else colour
    return (f"<circle cx=\"{x:.1f}\" cy=\"{y:.1f}\" r=\"{r}\" fill=\"{fill}\" "
            f"stroke=\"{colour}\" stroke-width=\"1.5\"/>")


def log_ticks(lo, hi):
    """Tick values for a log axis over [lo, hi]: 1-2-5 steps over two decades or less,
    else powers of ten."""
    first, last = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    steps = (1, 2, 5) if last - first <= 2 else (1,)
    ticks = [m * 10.0 ** e for e in range(first, last + 1) for m in steps]
    return [t for t in ticks if lo <= t <= hi]


def linear_ticks(lo, hi, count=5):
    """About count round tick values over [lo, hi]."""
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / count
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    first = math.ceil(lo / step) * step
    return [first + i * step for i in range(int((hi - first) / step) + 1)]


def tick_text(value):
    """A tick label: '0.01', '0.5', '1', '20', '1000', '1e+05'."""
    if value >= 1e5:
        return f"{value:.0e}"
    return f"{value:g}"
