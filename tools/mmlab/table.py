"""The naive-against-improved table of one run (table.txt).

One section per benchmark, parameter set and metric (and improved variant,
should a benchmark have several), one row per CPU count:

  cpus | naive median | ±CI | improved median | ±CI | ratio | 95% CI | outliers | counters... |
  runs | note

Medians carry the unit in the column header. ±CI is half the median's 95%
confidence interval as a percentage of the median (from the samples; a log
without samples shows the standard deviation instead, marked 'sd'). The
ratio is how many times better the improved design is, whichever way the
metric points (so > 1 always means it wins), with its bootstrap interval;
a ratio whose interval includes 1 is printed '~1.03x' (not significant),
one with too few runs for an interval '?1.03x'; the interval is
mmlab.rounds.ratio_interval's (round-block bootstrap, a seed per
comparison). The A/A row (naive against 'aa', itself run again) says so in
its note and, when its ratio differs from 1, 'harness bias' (listed again
as a WARNING after the sections); a row both records mark "expected near
1" says so, and whether it differs; a level shift in either design's runs
is named. runs is the timed runs each design achieved. A record's own
"note" (what the design defers, say) is added to the row's note. Outliers (Tukey's fences) are counted,
never dropped. Each counter column holds 'naive / improved' per operation
(headed by the counter's name less '_per_op'); only counters that are
non-zero somewhere in the section are shown, at most MAX_COUNTERS. Failed
cases and a failing trailer are listed after the sections.

Results of a peer system measured in the same run (BENCH lines with a
"system", e.g. Linux from ./run.sh --peer linux; tools/mmlab/peer.py) add
four columns to the section of the same benchmark, parameters and metric:
the peer's median and ±CI, mmlab/peer (the improved design's median over
the peer's, raw, whichever way the metric points) and its bootstrap 95% CI.
A peer's groups that no mmlab section matches get sections of their own.

table.txt shows a group's sections as one table (mmlab.merge, as the
results page does): naive's row, then a row per design at each CPU count,
each design's ratio on its own row and a 'naive / design' cell split
between the two rows. Before the tables comes the run's headline
(mmlab.headline): which design wins where, at the largest CPU count.
"""
from .format import (describe_run, format_count, format_number, format_percent,
                     format_ratio, format_spread, render_table)
from typing import List, NamedTuple, Optional

from .fits import component_results, fit_results, render_fits_text
from .readerloss import reader_loss_results, render_reader_loss_text
from .shootdown import render_shootdown_text, shootdown_results
from .inkernel import kernel_component_results, render_kernel_text
from .groups import Group, group_results
from .merge import merge_sections
from .peer import PeerIndex, peer_ratio, split_systems
from .records import NAIVE
from .rounds import (EXACT, expected_near1, harness_bias, harness_bias_text, is_aa, judge,
                     lost_runs, near1_why, verdict)
from .stats import (CI_MIN_N, CI_TARGET_PCT, EXACT_TOLERANCE, FDR_Q, LEVEL_SHIFT_MIN_PCT,
                    LEVEL_SHIFT_P, MODE_GAP, WIDE_FACTOR, ci_halfwidth_pct,
                    ratio_significant, tukey_outliers)

MAX_COUNTERS = 4
PER_OP = "_per_op"
NOT_SIGNIFICANT = "~"
NO_INTERVAL = "?"
UNSTABLE = "unstable"
LEGEND = [
    "ratio: how many times better the improved variant is than naive "
    "(naive/improved when lower is better,",
    "       improved/naive when higher is better): > 1 means the improved design wins;",
    "       time mode: the median over rounds of naive's run / the design's run of the same "
    "round (paired);",
    f"       '{NOT_SIGNIFICANT}' marks a ratio not significant with the table's false discovery "
    f"rate held at {FDR_Q:g}",
    "       (Benjamini-Hochberg over every row's sign test), "
    f"'{NO_INTERVAL}' one with fewer than {CI_MIN_N} runs a side.",
    "95% CI: order statistics of the per-round log ratios (distribution-free; logs without "
    "rounds: a bootstrap).",
    f"exact mode (unit instructions): ratios are exact; '{NOT_SIGNIFICANT}' within "
    f"{EXACT_TOLERANCE * 100:g}%; a design whose runs differ by more does not hold.",
    f"{UNSTABLE}: a design's runs in two modes (a gap of {MODE_GAP:g}x), a level shift, "
    f"or an interval spanning more than {WIDE_FACTOR:g}x:",
    "       no ratio, no star; the note shows the modes. Paired rounds: only modes and shifts "
    "the rounds' ratios show too;",
    "       those both designs share cancel in each round's ratio and stay a note "
    "('in both: the rounds' ratios hold').",
    "±CI: half the median's 95% confidence interval (order statistics), as % of the median; "
    f"the harness aims at ±{CI_TARGET_PCT:g}%.",
    "outliers: runs outside Tukey's fences (1.5 IQR), on each design's row. They stay in "
    "every statistic: under TCG a vCPU",
    "       descheduled by the host is part of the measurement environment, not an error.",
    "runs: the timed runs achieved, on each design's row.",
    "aa: the reference design run a second time; its ratio must include 1, and one that does "
    "not is 'harness bias'.",
    "expected near 1: the designs run different code but should cost about the same there; "
    "no result, no control.",
    f"level shift: a design's runs change level against run order (Pettitt's statistic, "
    f"permutation p < {LEVEL_SHIFT_P:g},",
    f"       medians {LEVEL_SHIFT_MIN_PCT:g}% apart). lost: runs where the guest lost its CPU, "
    "not in the figures.",
    "Counters are per operation (per <unit> where the name ends so), on each design's row.",
    f"A group's designs share one table: {NAIVE}'s row first at each CPU count, then a row per "
    f"design with its ratio against {NAIVE}.",
]
PEER_LEGEND = [
    "mmlab/<peer>: the improved design's median over the peer system's (raw: < 1 means mmlab's "
    "number is smaller,",
    "       faster for a time, slower for a rate), with its 95% CI (same bootstrap); "
    "'~' and '?' as for ratio.",
]


def render_results_table(records, header=None, problems=(), failures=(), trailer=None):
    """The whole table.txt text for a run's records, failed cases and trailer."""
    peers = split_systems(records)[1]
    lines = describe_run(header) + [""] + LEGEND + (PEER_LEGEND if peers else [])
    sections = table_sections(records)
    if not sections:
        lines += ["", "No benchmark results."]
    for group_sections in _by_group(sections):
        lines += [""] + render_group(group_sections)
    components = component_results(records)
    lines += render_fits_text(fit_results(records))
    lines += render_shootdown_text(shootdown_results(records))
    lines += render_reader_loss_text(reader_loss_results(records))
    lines += render_kernel_text(kernel_component_results(records, components))
    lines += render_warnings(records)
    lines += render_failures(failures) + render_status(trailer)
    if problems:
        lines += ["", f"{len(problems)} problem(s) in the log; see results.json:"]
        lines += [f"  {p}" for p in problems]
    return "\n".join(lines) + "\n"


def render_group(sections):
    """One group's lines: its designs in one table (mmlab.merge), naive's row first.

    sections: the group's Sections. Those without a design (a benchmark with
    naive only, a peer's group) and sections that do not line up are shown
    one after the other, as they are.
    """
    parts = [(s.improved, s.headers, s.rows, s.align) for s in sections]
    merged = None if any(s.improved is None for s in sections) else merge_sections(parts)
    if merged is None:
        out = []
        for s in sections:
            out += ([""] if out else []) + [s.title] + render_table(s.headers, s.rows, s.align)
        return out
    headers, rows, align, _ = merged
    what = ", ".join(s.title[s.title.rindex(f"({NAIVE} vs ") + len(NAIVE) + 5:-1]
                     for s in sections)
    g = sections[0].group
    title = f"{g.title}: {g.metric} in {g.unit}, {g.better} is better ({NAIVE} vs {what})"
    return [title] + render_table(headers, rows, align)


class Section(NamedTuple):
    """One section of the table, before any layout: mmlab.html shows the same ones."""

    group: Group
    improved: Optional[str]
    title: str
    headers: List[str]
    rows: List[List[str]]
    align: str


def _by_group(sections):
    """The sections in runs of one group each."""
    out = []
    for sec in sections:
        if not out or out[-1][0].group is not sec.group:
            out.append([])
        out[-1].append(sec)
    return out


def table_sections(records):
    """Every Section of the table of records, in order: naive against each design,
    then a peer system's groups that no mmlab section matches."""
    own, peer_records = split_systems(records)
    judge(own)
    peers = [PeerIndex(system, recs) for system, recs in peer_records.items()]
    groups = group_results(own)
    out = [Section(group, improved, *section_table(group, improved, peers))
           for group in groups for improved in group.improved_variants() or [None]]
    for peer in peers:
        out += [Section(group, None, *peer_section_table(peer.system, group))
                for group in peer.unmatched(groups)]
    return out


def render_section(group, improved, peers=()):
    """Title and rows comparing naive with the improved variant in one group."""
    title, headers, rows, align = section_table(group, improved, peers)
    return [title] + render_table(headers, rows, align)


def section_table(group, improved, peers=()):
    """(title, headers, rows of cells, align) of one section, before any layout.

    peers: PeerIndex objects; each with a result for this group adds its columns.
    """
    other = improved or "improved"
    shown = [(p, p.variant_for(group, improved)) for p in peers]
    shown = [(p, v) for p, v in shown if v is not None]
    title = (f"{group.title}: {group.metric} in {group.unit}, {group.better} is better"
             f" ({NAIVE} vs {other}"
             + "".join(f"; {p.system}: {v}" for p, v in shown) + ")")
    counters = main_counters(group, improved)
    headers = ["cpus", f"{NAIVE} ({group.unit})", "±CI", f"{other} ({group.unit})", "±CI",
               "ratio", "95% CI", "outliers"]
    for p, v in shown:
        headers += [f"{_short(p.system)} {v} ({group.unit})", "±CI", f"mmlab/{_short(p.system)}",
                    "95% CI"]
    headers += [counter_label(c) for c in counters] + ["runs", "note"]
    rows = []
    for cpus in group.cpu_counts():
        row = section_row(group, improved, cpus, counters)
        mine = group.result(improved, cpus) if improved else group.result(NAIVE, cpus)
        cells = [c for p, v in shown for c in peer_cells(mine, p.group_for(group).result(v, cpus))]
        rows.append(row[:8] + cells + row[8:])
    align = "rrrrrrrr" + "r" * (4 * len(shown) + len(counters)) + "rl"
    return title, headers, rows, align


def peer_cells(mine, peer):
    """A peer's four cells in an mmlab row: median, ±CI, mmlab/peer and its interval."""
    if peer is None:
        return ["-", "-", "-", "-"]
    ratio, ci = peer_ratio(mine, peer)
    cell = "-" if ratio is None else _ratio_cell(ratio, ci, ratio_significant(ci))
    return [_median(peer), _spread(peer), cell, _interval(ci)]


def render_peer_section(system, group):
    """A peer system's group that no mmlab section matches: its variants by CPU count."""
    title, headers, rows, align = peer_section_table(system, group)
    return [title] + render_table(headers, rows, align)


def peer_section_table(system, group):
    """(title, headers, rows, align) of render_peer_section, before any layout."""
    title = (f"{group.title}: {group.metric} in {group.unit}, {group.better} is better"
             f" ({system} only: no mmlab result to compare)")
    records = [r for by_cpus in group.variants.values() for r in by_cpus.values()]
    names = list(dict.fromkeys(n for r in records for n in r.counters))[:MAX_COUNTERS]
    headers = ["cpus"]
    for v in group.variants:
        headers += [f"{v} ({group.unit})", "±CI"]
    headers += [counter_label(n) for n in names]
    rows = []
    for cpus in group.cpu_counts():
        recs = [group.result(v, cpus) for v in group.variants]
        row = [str(cpus)] + [c for r in recs for c in (_median(r), _spread(r))]
        rows.append(row + [" / ".join(_counter(r, n) for r in recs) for n in names])
    return title, headers, rows, "r" * len(headers)


def _short(system):
    """'linux' for 'linux-6.1.0-57-amd64': the column headers stay narrow."""
    return system.split("-")[0]


def compare_pair(naive, better):
    """The mmlab.rounds Verdict of design record better against reference record naive."""
    return verdict(naive, better)


def section_row(group, improved, cpus, counters):
    """The cells of one CPU count's row."""
    naive = group.result(NAIVE, cpus)
    better = group.result(improved, cpus) if improved else None
    cells = [str(cpus), _median(naive), _spread(naive), _median(better), _spread(better)]
    if naive and better:
        v = compare_pair(naive, better)
        cells += [verdict_cell(v), "-" if v.unstable else _interval(v.ci),
                  f"{_outliers(naive)} / {_outliers(better)}"]
        note = _note(naive, better, v)
    else:
        cells += ["-", "-", f"{_outliers(naive)} / {_outliers(better)}"]
        note = ""
    cells += [f"{_counter(naive, c)} / {_counter(better, c)}" for c in counters]
    return cells + [f"{_runs(naive)} / {_runs(better)}", note]


def verdict_cell(v):
    """A row's ratio: 'unstable', '2.31x' (significant), '~1.02x' or '?1.50x' (no interval)."""
    if v.unstable:
        return UNSTABLE
    if v.method == EXACT:
        mark = "" if v.significant else NOT_SIGNIFICANT
        return "n/a" if v.ratio is None else f"{mark}{v.ratio:.3f}x"
    return _ratio_cell(v.ratio, v.ci, v.significant)


def _ratio_cell(ratio, ci, significant):
    if ratio is None:
        return format_ratio(None)
    mark = "" if significant else (NOT_SIGNIFICANT if ci else NO_INTERVAL)
    return mark + format_ratio(ratio)


def _interval(ci):
    return "-" if ci is None else f"{ci[0]:.2f}-{ci[1]:.2f}x"


def _note(naive, better, v):
    """The design's own note, then control rows (flagged when their ratio is not 1), few
    runs, why the row is unstable, work deferred and runs lost."""
    own = better.extra.get("note")
    lost = [f"{r.variant} lost the CPU in {lost_runs(r)} run(s)" for r in (naive, better)
            if lost_runs(r)]
    shared = [f"{w}, in both: the rounds' ratios hold" for w in v.shared]
    text = "; ".join(filter(None, [_row_note(naive, better, v), *v.unstable, *shared, *lost,
                                   deferred_text(naive, better)]))
    if isinstance(own, str) and own:
        return f"{own}; {text}" if text else own
    return text


def deferred_text(naive, rec):
    """What a design whose work finishes after the timed call leaves out of its figure:
    'deferred: finishes outside the timed call, 245.4 instructions more (with it: 403.2,
    5.06x naive)', the figure and ratio once that work is counted (lower is better); ''
    for a design that defers nothing."""
    if rec.extra.get("deferred") is not True:
        return ""
    cost = rec.extra.get("deferred_cost")
    if not isinstance(cost, (int, float)) or isinstance(cost, bool):
        return "deferred: finishes outside the timed call"
    text = f"deferred: finishes outside the timed call, {format_number(cost)} {rec.unit} more"
    total = rec.median + cost
    if naive is None or rec.better != "lower" or not naive.median or total <= 0:
        return text
    return text + f" (with it: {format_number(total)}, {naive.median / total:.3g}x {naive.variant})"


def _row_note(naive, better, v):
    """A/A rows (flagged when their ratio is not 1), rows expected near 1, few runs."""
    ci, significant = v.ci, v.significant and not v.unstable
    if is_aa(naive, better):
        return "A/A control" + (": differs from 1, harness bias" if significant else "")
    if expected_near1(naive, better):
        why = near1_why(naive) or near1_why(better) or naive.control_why or better.control_why
        text = f"expected near 1 ({why})" if why else "expected near 1"
        return text + (": differs from 1 (different code)" if significant else "")
    if ci is None and v.method not in (EXACT, None) and naive.samples and better.samples:
        return f"fewer than {CI_MIN_N} runs: no interval"
    return ""


def render_warnings(records):
    """Lines naming every failed A/A control: a harness bias, not a result."""
    bias = harness_bias(records)
    if not bias:
        return []
    return ["", f"WARNING: {len(bias)} A/A control(s) differ from 1:"] + [
        f"  {harness_bias_text(b)}" for b in bias]


def render_failures(failures):
    """Lines naming every failed case and why."""
    if not failures:
        return []
    lines = ["", f"{len(failures)} failed case(s):"]
    for f in failures:
        where = " ".join(filter(None, [f["bench"], f.get("variant"),
                                        f"cpus={f['cpus']}" if f.get("cpus") else "",
                                        *(f"{k}={v}" for k, v in f.get("params", {}).items())]))
        lines.append(f"  {where}: {f['why']}")
    return lines


def render_status(trailer):
    """A line for a run whose trailer did not pass, with its counts and reason."""
    if not trailer or trailer.get("status") == "pass":
        return []
    reason = f": {trailer['reason']}" if trailer.get("reason") else ""
    return ["", f"Run status {trailer.get('status')}{reason} (passed {trailer.get('passed')}, "
            f"failed {trailer.get('failed')}, skipped {trailer.get('skipped')})"]


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
    """±CI% from the samples; the standard deviation ('sd') for a log without them."""
    if rec is None:
        return "-"
    if rec.samples:
        half = ci_halfwidth_pct(rec.samples)
        return "±?" if half is None else f"±{half:.1f}%"
    return format_spread(rec.rsd) + "sd"


def _runs(rec):
    """The timed runs achieved (the samples' count, else the line's runs)."""
    if rec is None:
        return "-"
    return str(len(rec.samples) if rec.samples else rec.runs)


def _outliers(rec):
    if rec is None or not rec.samples:
        return "-"
    return str(tukey_outliers(rec.samples))


def _counter(rec, name):
    if rec is None or name not in rec.counters:
        return "-"
    return format_count(rec.counters[name])


__all__ = ["render_results_table", "render_section", "section_table", "table_sections",
           "Section", "peer_section_table", "section_row", "main_counters",
           "peer_cells", "render_peer_section",
           "counter_label", "compare_pair", "format_percent"]
