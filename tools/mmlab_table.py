"""The naive-against-improved table of one run (table.txt).

One section per benchmark, parameter set and metric (and improved variant,
should a benchmark have several), one row per CPU count:

  cpus | naive median | ±sd% | improved median | ±sd% | ratio | counters...

Medians carry the unit in the column header. The ratio is how many times
better the improved design is, whichever way the metric points (so > 1
always means it wins). Each counter column holds 'naive / improved' per
operation (headed by the counter's name less '_per_op'; a benchmark that
counts per larger unit keeps its '_per_<unit>' suffix); only counters that
are non-zero somewhere in the section are shown, at most MAX_COUNTERS.
"""
from mmlab_format import (describe_run, format_count, format_number, format_ratio,
                          format_spread, render_table)
from mmlab_groups import group_results
from mmlab_records import NAIVE
from mmlab_stats import improvement_ratio

MAX_COUNTERS = 4
PER_OP = "_per_op"
LEGEND = [
    "ratio: how many times better the improved variant is than naive "
    "(naive/improved when lower is better,",
    "       improved/naive when higher is better): > 1 means the improved design wins.",
    "±: standard deviation as a percentage of the median. "
    "Counters are per operation (per <unit> where the name ends so), shown as naive / improved.",
]


def render_results_table(records, header=None, problems=()):
    """The whole table.txt text for a run's records."""
    lines = describe_run(header) + [""] + LEGEND
    groups = group_results(records)
    if not groups:
        lines += ["", "No benchmark results."]
    for group in groups:
        for improved in group.improved_variants() or [None]:
            lines += [""] + render_section(group, improved)
    if problems:
        lines += ["", f"{len(problems)} problem(s) in the log; see results.json:"]
        lines += [f"  {p}" for p in problems]
    return "\n".join(lines) + "\n"


def render_section(group, improved):
    """Title and rows comparing naive with the improved variant in one group."""
    other = improved or "improved"
    title = (f"{group.title}: {group.metric} in {group.unit}, {group.better} is better"
             f" ({NAIVE} vs {other})")
    counters = main_counters(group, improved)
    headers = ["cpus", f"{NAIVE} ({group.unit})", "±", f"{other} ({group.unit})", "±", "ratio"]
    headers += [counter_label(c) for c in counters]
    rows = [section_row(group, improved, cpus, counters) for cpus in group.cpu_counts()]
    return [title] + render_table(headers, rows, "rrrrrr" + "r" * len(counters))


def section_row(group, improved, cpus, counters):
    """The cells of one CPU count's row."""
    naive = group.result(NAIVE, cpus)
    better = group.result(improved, cpus) if improved else None
    ratio = None
    if naive and better:
        ratio = improvement_ratio(naive.median, better.median, group.better)
    cells = [str(cpus), _median(naive), _spread(naive), _median(better), _spread(better),
             format_ratio(ratio) if naive and better else "-"]
    return cells + [f"{_counter(naive, c)} / {_counter(better, c)}" for c in counters]


def main_counters(group, improved):
    """Counter names worth a column: non-zero for naive or improved somewhere.

    They keep the order the benchmark prints them in.
    """
    records = [rec for variant in (NAIVE, improved)
               for rec in group.variants.get(variant, {}).values()]
    names = list(dict.fromkeys(name for rec in records for name in rec.counters))
    busy = [n for n in names if any(rec.counters.get(n) for rec in records)]
    return busy[:MAX_COUNTERS]


def counter_label(name):
    """A counter's column header: its name without the '_per_op' every one has."""
    return name[: -len(PER_OP)] if name.endswith(PER_OP) and name != PER_OP else name


def _median(rec):
    return format_number(rec.median) if rec else "-"


def _spread(rec):
    return format_spread(rec.rsd) if rec else "-"


def _counter(rec, name):
    if rec is None or name not in rec.counters:
        return "-"
    return format_count(rec.counters[name])
