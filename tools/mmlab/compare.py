"""Comparison of two runs, in the manner of mmtests compare-kernels and LKP.

Results are matched on (bench, params, metric, variant, cpus). Each match
gives one row: A's median and spread, B's median and spread, and the
percent change from A to B signed so that positive always means B is
better, whichever way the metric points. Two runs are two boots, and the
boot is the unit: runs inside one boot share its placement on the host,
its calibration and the host's load, so they cannot tell two boots apart.
A row is marked '*' only when the change is beyond what separates boots:
in exact mode (both figures count instructions) when it exceeds
EXACT_TOLERANCE, since exact figures repeat across boots; with more boots
of each side (--a-boot, --b-boot), when the Welch interval over the boots'
log medians (mmlab.peer.boot_ratio_ci) excludes 1; with one boot a side,
never ("one boot a side"); for a log without samples, when the change is
larger than NOISE_FACTOR x the larger relative standard deviation, as
before samples existed. Results present on one side only are
listed after the table. Runs need not hold the same designs (a later design may be missing from one): a
design that only one run has is named as such above the table, and its
results are listed under that run with "(design not in B)". The same
comparison is also a self-contained HTML page (render_compare_page), with
both runs' plots of each benchmark side by side.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import os

from .format import (describe_run, format_number, format_percent, format_spread,
                     render_table)
from .html import esc, facts_table, header_facts, html_table, page, plot_figure
from .plot import plotted_groups
from .peer import MIN_BOOTS, boot_ratio_ci, variant_label
from .records import NAIVE, BenchRecord, params_text
from .rounds import is_exact
from .stats import (EXACT_TOLERANCE, NOISE_FACTOR, ci_halfwidth_pct, exceeds_noise,
                    percent_change, ratio_significant)

MARK = "*"


@dataclass
class CompareRow:
    """One result present in both runs, with the change from A to B."""

    a: BenchRecord
    b: BenchRecord
    change: Optional[float]
    significant: bool
    note: str = ""


def compare_records(a_records, b_records, factor=NOISE_FACTOR, a_boots=(), b_boots=()):
    """Match A's and B's results; return (rows, only in A, only in B).

    a_boots, b_boots: the records of further boots of each side (lists).
    """
    b_by_key = {r.key(): r for r in b_records}
    a_keys = {r.key() for r in a_records}
    more_a, more_b = _medians(a_boots), _medians(b_boots)
    rows = [compare_pair(a, b_by_key[a.key()], factor,
                         ([a.median] + more_a.get(a.key(), []),
                          [b_by_key[a.key()].median] + more_b.get(a.key(), [])))
            for a in a_records if a.key() in b_by_key]
    only_a = [a for a in a_records if a.key() not in b_by_key]
    only_b = [b for b in b_records if b.key() not in a_keys]
    order = group_order(a_records + b_records)
    return (sort_records(rows, order), sort_records(only_a, order),
            sort_records(only_b, order))


def _medians(boots):
    """{result key: [its median in each boot that has it]} of a side's further boots."""
    out = {}
    for records in boots:
        for r in records:
            out.setdefault(r.key(), []).append(r.median)
    return out


def compare_pair(a, b, factor=NOISE_FACTOR, boots=None):
    """The CompareRow for one result in A and the same result in B.

    boots: (A's medians, B's medians), one per boot, the first being a's and b's.
    """
    if a.better != b.better or a.unit != b.unit:
        return CompareRow(a, b, None, False, "unit or direction differs")
    change = percent_change(a.median, b.median, a.better)
    if is_exact(a) and is_exact(b):
        return CompareRow(a, b, change, change is not None
                          and abs(change) > EXACT_TOLERANCE * 100, "exact")
    if boots and min(len(boots[0]), len(boots[1])) >= MIN_BOOTS and min(boots[0] + boots[1]) > 0:
        ratio, ci = boot_ratio_ci(boots[1], boots[0])
        return CompareRow(a, b, percent_change(1.0, ratio, a.better), ratio_significant(ci),
                          f"boots {len(boots[0])}/{len(boots[1])}")
    if a.samples and b.samples:
        return CompareRow(a, b, change, False, "one boot a side")
    return CompareRow(a, b, change, exceeds_noise(change, a.rsd, b.rsd, factor))


def group_order(records):
    """Each (bench, params, metric) mapped to where the runs first show it."""
    order = {}
    for r in records:
        order.setdefault(r.group_key(), len(order))
    return order


def sort_records(items, order):
    """Rows or records in reading order: as the run went, naive first, then by cpus."""
    def key(item):
        r = item.a if isinstance(item, CompareRow) else item
        return (order[r.group_key()], r.variant != NAIVE, r.variant, r.cpus)
    return sorted(items, key=key)


def render_compare(run_a, run_b, factor=NOISE_FACTOR, a_boots=(), b_boots=()):
    """The comparison text for two loaded runs (SerialLog objects) and their further boots
    (lists of records)."""
    rows, only_a, only_b = compare_records(run_a.benches, run_b.benches, factor, a_boots,
                                           b_boots)
    lines = [f"A: {run_a.path}"] + [f"   {d}" for d in describe_run(run_a.header)]
    lines += [f"B: {run_b.path}"] + [f"   {d}" for d in describe_run(run_b.header)]
    lines += ["", "%change: positive means B is better than A (lower for lower-is-better "
              "metrics, higher for higher-is-better);",
              "±: half the median's 95% confidence interval, % of the median ('sd': the "
              "standard deviation, for a log without samples);",
              f"{MARK} marks a change beyond what separates boots (the boot is the unit): exact "
              f"mode, beyond {EXACT_TOLERANCE * 100:g}%;",
              f"  with {MIN_BOOTS}+ boots a side (--a-boot, --b-boot), a Welch 95% interval over "
              "the boots' log medians that excludes 1;",
              "  one boot a side in time mode: never (the note says so);",
              f"  logs without samples: |%change| > {factor:g} x the larger ±stddev% of A and B.",
              ""]
    lines += render_design_sets(design_sets(run_a.benches, run_b.benches))
    lines += render_rows(rows) if rows else ["No result is present in both runs."]
    lines += _render_unmatched("A", only_a, _designs(run_b.benches), "B")
    lines += _render_unmatched("B", only_b, _designs(run_a.benches), "A")
    return "\n".join(lines) + "\n"


def _designs(records):
    """The (bench, variant) pairs a run has results for."""
    return {(r.bench, r.variant) for r in records}


def design_sets(a_records, b_records):
    """(bench, designs only in A, designs only in B) for each benchmark whose sets differ.

    Benchmarks come in the order the runs first show them; a benchmark that
    only one run has at all is listed too, with all its designs on that side.
    """
    a, b = _designs(a_records), _designs(b_records)
    out = []
    for bench in dict.fromkeys(r.bench for r in list(a_records) + list(b_records)):
        only_a = [v for v in _variants(a_records, bench) if (bench, v) not in b]
        only_b = [v for v in _variants(b_records, bench) if (bench, v) not in a]
        if only_a or only_b:
            out.append((bench, only_a, only_b))
    return out


def _variants(records, bench):
    return list(dict.fromkeys(r.variant for r in records if r.bench == bench))


def design_set_text(bench, only_a, only_b):
    """'tlb: serial only in A; gen, lazy only in B'."""
    sides = [f"{', '.join(v)} only in {side}" for v, side in ((only_a, "A"), (only_b, "B")) if v]
    return f"{bench}: {'; '.join(sides)}"


def render_design_sets(diffs):
    """Lines naming the designs that only one of the runs has, or none."""
    if not diffs:
        return []
    return (["Designs in one run only (their results are listed after the table):"]
            + [f"  {design_set_text(*d)}" for d in diffs] + [""])


def compare_table(rows: List[CompareRow]):
    """(headers, cells, align) of the matched results, before any layout."""
    headers = ["bench", "params", "metric", "unit", "variant", "cpus", "A", "±", "B", "±",
               "%change"]
    return headers, [_row_cells(row) for row in rows], "lllllrrrrrr"


def render_rows(rows: List[CompareRow]):
    """The table lines for matched results."""
    return render_table(*compare_table(rows))


def _row_cells(row):
    a, b = row.a, row.b
    change = format_percent(row.change, signed=True)
    if row.note:
        change = row.note if row.change is None else f"{change} ({row.note})"
    change += " " + (MARK if row.significant else " ")
    return [a.bench, params_text(a.params, ",") or "-", a.metric, a.unit, variant_label(a),
            str(a.cpus), format_number(a.median), _spread(a), format_number(b.median),
            _spread(b), change]


def _spread(rec):
    """±CI% of the median from the samples, else the standard deviation ('sd')."""
    if rec.samples:
        half = ci_halfwidth_pct(rec.samples)
        return "±?" if half is None else f"±{half:.1f}%"
    return format_spread(rec.rsd) + "sd"


def _render_unmatched(side, records, other_designs=(), other="the other run"):
    """Lines listing results that only one run has."""
    if not records:
        return []
    return ["", f"Only in {side}:"] + [
        "  " + unmatched_text(r, other_designs, other) for r in records]


def unmatched_text(r, other_designs=(), other="the other run"):
    """One result only one run has, saying so when its whole design is missing there."""
    missing = "" if (r.bench, r.variant) in other_designs else f" (design not in {other})"
    return (f"{r.bench} {params_text(r.params, ',') or '-'} {r.metric} {variant_label(r)} "
            f"cpus={r.cpus}: {format_number(r.median)} {r.unit} {format_spread(r.rsd)}"
            + missing)


# --- the comparison page -------------------------------------------------

def render_compare_page(run_a, run_b, factor=NOISE_FACTOR, a_boots=(), b_boots=()):
    """The comparison as one self-contained HTML page (mmlab.html's layout).

    Each benchmark gets a section: its matched results (a significant
    change coloured by its sign), the results only one run has, and the
    plots both results folders hold, A's and B's side by side.
    """
    rows, only_a, only_b = compare_records(run_a.benches, run_b.benches, factor, a_boots,
                                           b_boots)
    diffs = design_sets(run_a.benches, run_b.benches)
    body = ["<h1>mmlab comparison: A against B</h1>", "<div class=\"designs\">"]
    for side, run in (("A", run_a), ("B", run_b)):
        body += [f"<div><h3>{side}: {esc(run.path)}</h3>",
                 facts_table(header_facts(run.header)), "</div>"]
    body += ["</div>", "<ul class=\"legend\"><li>%change: positive means B is better than A"
             f"; {MARK} marks a change beyond what separates boots (exact mode: beyond "
             f"{EXACT_TOLERANCE * 100:g}%; with more boots a side: a Welch interval over the "
             "boots that excludes 1; one boot a side in time mode: never; logs without "
             f"samples: |%change| &gt; {factor:g} x the larger &plusmn;stddev%). Green: B "
             "significantly better; red: significantly worse; grey: not shown to differ."
             "</li></ul>"]
    if diffs:
        body.append("<h3>Designs in one run only</h3><ul>" + "".join(
            f"<li>{esc(design_set_text(*d))}</li>" for d in diffs) + "</ul>")
    benches = dict.fromkeys(r.bench for r in run_a.benches + run_b.benches)
    body += [_compare_section(b, rows, only_a, only_b, run_a, run_b) for b in benches]
    return page("mmlab comparison", body)


def _compare_section(bench, rows, only_a, only_b, run_a, run_b):
    """One benchmark's part of the comparison page."""
    parts = [f"<section id=\"bench-{esc(bench)}\" class=\"bench\"><h2>{esc(bench)}</h2>"]
    mine = [r for r in rows if r.a.bench == bench]
    if mine:
        parts.append(html_table(*compare_table(mine), classes=_change_class))
    for side, records, other, run in (("A", only_a, "B", run_b), ("B", only_b, "A", run_a)):
        items = [unmatched_text(r, _designs(run.benches), other)
                 for r in records if r.bench == bench]
        if items:
            parts.append(f"<h3>Only in {side} ({len(items)})</h3><ul>"
                         + "".join(f"<li>{esc(i)}</li>" for i in items) + "</ul>")
    return "\n".join(parts + _compare_plots(bench, run_a, run_b) + ["</section>"])


def _compare_plots(bench, run_a, run_b):
    """A's and B's plots of bench side by side, for the runs whose folders have plots."""
    dirs = [os.path.join(os.path.dirname(run.path) or ".", "plots") for run in (run_a, run_b)]
    stems = dict.fromkeys(stem for run in (run_a, run_b)
                          for g, stem in plotted_groups(run.benches) if g.bench == bench)
    sides = [(side, d) for side, d in zip("AB", dirs) if os.path.isdir(d)]
    if not sides or not stems:
        return []
    figures = [plot_figure(os.path.join(d, stem + ".png"), f"{side}: {stem}",
                           f"not in {side}'s plots")
               for stem in stems for side, d in sides]
    return ["<h3>Plots (A, B)</h3>", "<div class=\"plots\">" + "".join(figures) + "</div>"]


def _change_class(header, text, align):
    """A %change cell: green when B is significantly better, red when worse."""
    if header != "%change":
        return "r" if align == "r" else "l"
    if not text.rstrip().endswith(MARK):
        return "r ns"
    return "r win" if text.startswith("+") else "r loss"
