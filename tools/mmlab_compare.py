"""Comparison of two runs, in the manner of mmtests compare-kernels and LKP.

Results are matched on (bench, params, metric, variant, cpus). Each match
gives one row: A's median and spread, B's median and spread, and the
percent change from A to B signed so that positive always means B is
better, whichever way the metric points. A row is marked '*' only when the
change is beyond the noise: with samples on both sides, when the 95%
bootstrap interval of the ratio of medians (mmlab_stats) excludes 1; for a
log without samples, when the change is larger than NOISE_FACTOR x the
larger relative standard deviation. Results present on one side only are
listed after the table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from mmlab_format import (describe_run, format_number, format_percent, format_spread,
                          render_table)
from mmlab_peer import variant_label
from mmlab_records import NAIVE, BenchRecord, params_text
from mmlab_stats import (NOISE_FACTOR, bootstrap_ratio_ci, ci_halfwidth_pct, exceeds_noise,
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


def compare_records(a_records, b_records, factor=NOISE_FACTOR):
    """Match A's and B's results; return (rows, only in A, only in B)."""
    b_by_key = {r.key(): r for r in b_records}
    a_keys = {r.key() for r in a_records}
    rows = [compare_pair(a, b_by_key[a.key()], factor)
            for a in a_records if a.key() in b_by_key]
    only_a = [a for a in a_records if a.key() not in b_by_key]
    only_b = [b for b in b_records if b.key() not in a_keys]
    order = group_order(a_records + b_records)
    return (sort_records(rows, order), sort_records(only_a, order),
            sort_records(only_b, order))


def compare_pair(a, b, factor=NOISE_FACTOR):
    """The CompareRow for one result in A and the same result in B."""
    if a.better != b.better or a.unit != b.unit:
        return CompareRow(a, b, None, False, "unit or direction differs")
    change = percent_change(a.median, b.median, a.better)
    if a.samples and b.samples:
        # improvement_ratio(A, B) > 1 means B is better: the same sign as change.
        ci = bootstrap_ratio_ci(a.samples, b.samples, a.better)
        return CompareRow(a, b, change, ratio_significant(ci),
                          "" if ci else "too few runs")
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


def render_compare(run_a, run_b, factor=NOISE_FACTOR):
    """The comparison text for two loaded runs (SerialLog objects)."""
    rows, only_a, only_b = compare_records(run_a.benches, run_b.benches, factor)
    lines = [f"A: {run_a.path}"] + [f"   {d}" for d in describe_run(run_a.header)]
    lines += [f"B: {run_b.path}"] + [f"   {d}" for d in describe_run(run_b.header)]
    lines += ["", "%change: positive means B is better than A (lower for lower-is-better "
              "metrics, higher for higher-is-better);",
              "±: half the median's 95% confidence interval, % of the median ('sd': the "
              "standard deviation, for a log without samples);",
              f"{MARK} marks a change beyond run-to-run noise: the 95% bootstrap interval of "
              "B's median over A's excludes 1",
              f"(logs without samples: |%change| > {factor:g} x the larger ±stddev% of A and B).",
              ""]
    lines += render_rows(rows) if rows else ["No result is present in both runs."]
    lines += _render_unmatched("A", only_a) + _render_unmatched("B", only_b)
    return "\n".join(lines) + "\n"


def render_rows(rows: List[CompareRow]):
    """The table lines for matched results."""
    headers = ["bench", "params", "metric", "unit", "variant", "cpus", "A", "±", "B", "±",
               "%change"]
    cells = [_row_cells(row) for row in rows]
    return render_table(headers, cells, "lllllrrrrrr")


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


def _render_unmatched(side, records):
    """Lines listing results that only one run has."""
    if not records:
        return []
    lines = ["", f"Only in {side}:"]
    for r in records:
        lines.append(f"  {r.bench} {params_text(r.params, ',') or '-'} {r.metric} "
                     f"{variant_label(r)} cpus={r.cpus}: {format_number(r.median)} {r.unit} "
                     f"{format_spread(r.rsd)}")
    return lines
