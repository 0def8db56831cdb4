"""Plots of a run's results through gnuplot: one PNG and one SVG per group.

Each plot shows a metric's median against the CPU count for every variant
of one benchmark and parameter set, with the median's 95% confidence
interval as error bars (min..max for a log without samples); a sweep
(mmlab.sweep) puts a parameter such as tlb's pages on the x-axis instead. gnuplot
is fed a script on standard input, the data inline as datablocks, so no
temporary files are left behind. PNG uses pngcairo when gnuplot has it and
the plain png terminal otherwise.
"""
from __future__ import annotations

import os
import shutil
import subprocess

from .groups import group_results, plot_stems
from .peer import MMLAB, record_system
from .stats import median_ci
from .sweep import sweep_results

GNUPLOT_TIMEOUT = 60
SIZE = "800,500"
# A line plot needs this many points on its x-axis.
MIN_POINTS = 2
# Spread the CPU axis as powers of two when counts span this factor or more.
LOG_X_SPAN = 4


class GnuplotMissing(Exception):
    """gnuplot is not installed (or not on PATH)."""


def plotted_groups(records):
    """(group, file stem) of every plot a run's records get: by CPU count, then sweeps.

    Only groups with at least MIN_POINTS x values get a line plot: a group
    measured at one CPU count gets the page's dot-and-interval chart
    (mmlab.dots) instead. mmlab.results draws them and mmlab.html puts them
    on the results page.
    """
    own = [r for r in records if record_system(r) == MMLAB]  # a peer's are in the table only
    groups = group_results(own) + sweep_results(own)
    pairs = zip(groups, plot_stems(groups))
    return [(g, stem) for g, stem in pairs if len(g.cpu_counts()) >= MIN_POINTS]


def plot_groups(groups, plot_dir, gnuplot="gnuplot", subtitle="", stems=None):
    """Write <stem>.png and <stem>.svg in plot_dir for each group (stems: their file
    stems, as plotted_groups gives them; by default plot_stems of groups).

    Returns the list of files written. Raises GnuplotMissing when gnuplot
    cannot be found and RuntimeError when it fails on a plot.
    """
    program = shutil.which(gnuplot)
    if program is None:
        raise GnuplotMissing(f"{gnuplot} not found")
    os.makedirs(plot_dir, exist_ok=True)
    bases = [os.path.join(plot_dir, stem) for stem in stems or plot_stems(groups)]
    # One gnuplot for every plot ('reset' between them): a process per plot took seconds.
    if bases:
        run_gnuplot(program, "".join("reset\n" + gnuplot_script(group, base, subtitle)
                                     for group, base in zip(groups, bases)))
    return [f for base in bases for f in (base + ".png", base + ".svg")]


def run_gnuplot(program, script):
    """Run gnuplot on script; raise RuntimeError with its message on failure."""
    try:
        done = subprocess.run([program], input=script, text=True, capture_output=True,
                              timeout=GNUPLOT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise RuntimeError(f"gnuplot did not run: {e}") from e
    if done.returncode != 0:
        raise RuntimeError(f"gnuplot failed: {done.stderr.strip()}")


def gnuplot_script(group, base, subtitle=""):
    """The gnuplot script that draws group into base.png and base.svg."""
    variants = list(group.variants)
    lines = [f"${_block(i)} << EOD\n{data_block(group, v)}EOD" for i, v in enumerate(variants)]
    lines += _axes(group, subtitle)
    series = [f'${_block(i)} using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1 title {quote(v)}'
              for i, v in enumerate(variants)]
    plot = "plot " + ", \\\n     ".join(series)
    lines += [
        'if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {',
        f'  set terminal pngcairo noenhanced size {SIZE}',
        "} else {",
        f'  set terminal png noenhanced size {SIZE}',
        "}",
        f"set output {quote(base + '.png')}", plot,
        f"set terminal svg noenhanced size {SIZE} dynamic",
        f"set output {quote(base + '.svg')}", "replot", "unset output",
    ]
    return "\n".join(lines) + "\n"


def data_block(group, variant):
    """'cpus median low high' lines for one variant, by ascending CPU count."""
    rows = sorted(group.variants[variant].items())
    return "".join(f"{cpus} {r.median!r} {bar(r)[0]!r} {bar(r)[1]!r}\n" for cpus, r in rows)


def bar(rec):
    """The error bar of a point: the median's 95% interval, else min..max."""
    if rec.samples:
        return median_ci(rec.samples)
    return rec.min, rec.max


def _bar_label(group):
    """What the bars show: the interval when every point has samples."""
    records = [r for by_cpus in group.variants.values() for r in by_cpus.values()]
    return "95% CI of the median" if all(r.samples for r in records) else "min..max"


def _axes(group, subtitle):
    """Title, labels, ranges and tics for a group's plot."""
    cpus = group.cpu_counts()
    title = f"{group.title}: {group.metric} ({group.better} is better)"
    if subtitle:
        title += "\n" + subtitle
    lines = [
        f"set title {quote(title)}",
        f'set xlabel "{getattr(group, "x_label", "CPUs")}  (points: median, bars: {_bar_label(group)})"',
        f"set ylabel {quote(f'{group.metric} [{group.unit}]')}",
        "set key top left box opaque", "set grid",
        *(["set logscale y 10", "set yrange [*:*]"] if getattr(group, "y_log", False)
          else ["set yrange [0:*]"]),
        "set xtics (" + ", ".join(str(c) for c in cpus) + ")",
    ]
    if cpus and cpus[-1] >= LOG_X_SPAN * cpus[0]:
        lines += ["set logscale x 2",
                  f"set xrange [{cpus[0] / 1.25!r}:{cpus[-1] * 1.25!r}]"]
    else:
        lines.append(f"set xrange [{cpus[0] - 0.5}:{cpus[-1] + 0.5}]")
    return lines


def quote(text):
    """text as a double-quoted gnuplot string; a newline becomes a line break."""
    text = str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def _block(index):
    return f"variant{index}"
