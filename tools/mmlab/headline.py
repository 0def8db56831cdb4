"""The headline of a run: which design wins where, and by how much.

Every design is compared with the reference design (naive) of its
benchmark, parameter set and metric at each CPU count: the ratio of the
medians (> 1: the design wins, whichever way the metric points), its
bootstrap 95% interval and whether that excludes 1 (mmlab.table's
compare_pair, so mmlab.rounds.ratio_interval: round-block bootstrap, one seed
per comparison). A comparison is an A/A control when the design is AA (the
reference run a second time under another name): it must come out at 1,
and one that does not is a bias of the harness (mmlab.rounds.harness_bias),
not a result. It is "expected near 1" when both records say so
(mmlab.rounds.expected_near1: the designs run different code but should
cost about the same there): no result either, and no control.

The headline table (the terminal's summary and the page's) has one row per
benchmark and parameter set whose designs differ, at the largest CPU
count: each design's ratio and interval, and the per-operation counter
that explains the best one. A/A controls and rows expected near 1 appear
only when they differ from 1; every failed A/A control is named, at any
CPU count. At most MAX_LINES lines: past that, the rows with the smallest
effects are left to table.txt (each benchmark keeps its largest, and the
failed controls shrink to a count before a benchmark is left out), and the
table says how many. The sentences
of the page's headline are written from the same comparisons.
"""
from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Tuple

from .format import format_count, render_table
from .groups import group_results
from .peer import split_systems
from .records import NAIVE
from .rounds import AA, expected_near1, is_aa
from .table import compare_pair

MAX_LINES = 40
# Failed A/A controls named one per line; past that they are counted (table.txt names all).
MAX_AA_LINES = 8
SIGNIFICANT = "*"
NOT_SIGNIFICANT = "~"
NO_INTERVAL = "?"
NEAR1 = "expected near 1"
NEAR1_CELL = "(near 1)"
AA_CONTROL = "A/A"
DESIGN = "design"
PER_OP = "_per_op"


class Comparison(NamedTuple):
    """One design against the reference in one group at one CPU count."""

    group: object
    design: str
    cpus: int
    ratio: Optional[float]
    ci: Optional[Tuple[float, float]]
    significant: bool
    kind: str                  # DESIGN, NEAR1 or AA_CONTROL
    counter: Optional[tuple]   # (name, reference's value, design's value) or None

    @property
    def is_control(self):
        return self.kind != DESIGN

    @property
    def where(self):
        """'tlb remote=busy pages=8' (plus the metric when the benchmark has several)."""
        return self.group.title


# The last records compared and their comparisons: the terminal, table.txt and the page
# each ask for them, and each bootstrap interval takes thousands of resamples.
_last = {}


def comparisons(records) -> List[Comparison]:
    """Every design of mmlab's own records against the reference, in log order."""
    key = tuple(id(r) for r in records)
    if _last.get("key") != key:
        _last.update(key=key, records=list(records), comps=_compare_all(records))
    return list(_last["comps"])


def _compare_all(records):
    own = split_systems(records)[0]
    out = []
    for group in group_results(own):
        for design in group.improved_variants():
            for cpus in group.cpu_counts():
                ref, rec = group.result(NAIVE, cpus), group.result(design, cpus)
                if ref is not None and rec is not None:
                    out.append(compare(group, design, cpus, ref, rec))
    return out


def compare(group, design, cpus, ref, rec):
    """The Comparison of record rec with the reference's record ref."""
    ratio, ci, significant = compare_pair(ref, rec, group.better)
    kind = (AA_CONTROL if is_aa(ref, rec) else NEAR1 if expected_near1(ref, rec)
            else DESIGN)
    return Comparison(group, design, cpus, ratio, ci, significant, kind,
                      explaining_counter(ref, rec))


def explaining_counter(ref, rec):
    """The per-operation counter that differs most between the two records, or None."""
    best, best_score = None, 0.0
    for name, a in ref.counters.items():
        b = rec.counters.get(name)
        if not name.endswith(PER_OP) or b is None or a == b:
            continue
        score = math.inf if min(a, b) <= 0 else abs(math.log(a / b))
        if score > best_score:
            best, best_score = (name, a, b), score
    return best


def failed_control(c):
    """An A/A control or a row expected near 1 whose ratio is significantly different from 1."""
    return c.is_control and c.significant


def at_largest_cpus(comps):
    """The comparisons at each group's largest CPU count."""
    top = {}
    for c in comps:
        key = id(c.group)
        top[key] = max(top.get(key, 0), c.cpus)
    return [c for c in comps if c.cpus == top[id(c.group)]]


def short(x):
    """A ratio to about three significant digits: '6.17', '99.1', '6010'."""
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def ratio_text(c):
    """'*2.31x 2.10-2.52', '~1.02x 0.97-1.06' or '?1.50x' (no interval)."""
    if c.ratio is None:
        return "n/a"
    mark = SIGNIFICANT if c.significant else NOT_SIGNIFICANT if c.ci else NO_INTERVAL
    text = f"{mark}{short(c.ratio)}x"
    return text + (f" {short(c.ci[0])}-{short(c.ci[1])}" if c.ci else "")


def counter_text(c):
    """'batched: ipi_sent 1 -> 0.125': the count per operation behind a ratio,
    the reference's first."""
    if c.counter is None:
        return ""
    name, a, b = c.counter
    return f"{c.design}: {name[:-len(PER_OP)]} {format_count(a)} -> {format_count(b)}"


def effect(c):
    """How far a significant ratio is from 1 (0 for the others): what ranks the rows."""
    return abs(math.log(c.ratio)) if c.significant and c.ratio and c.ratio > 0 else 0.0


def _label(group, metrics):
    """A row's name in its benchmark's block: the parameters, plus the metric if several."""
    words = " ".join(f"{k}={v}" for k, v in group.params.items()) or "(no parameters)"
    return words + (f" [{group.metric}]" if metrics > 1 else "")


class Block(NamedTuple):
    """One benchmark's part of the headline table, at its largest CPU count."""

    bench: str
    cpus: int
    designs: List[str]
    rows: List[list]          # per row: [Comparison of each design or None]
    quiet: int                # parameter sets where no design differs


def headline_blocks(comps):
    """A Block per benchmark, in log order: rows where a design differs significantly."""
    top = [c for c in at_largest_cpus(comps) if c.kind != AA_CONTROL]
    out = []
    for bench in dict.fromkeys(c.group.bench for c in top):
        mine = [c for c in top if c.group.bench == bench]
        designs = list(dict.fromkeys(c.design for c in mine))
        groups = list(dict.fromkeys(id(c.group) for c in mine))
        rows, quiet = [], 0
        for g in groups:
            by_design = {c.design: c for c in mine if id(c.group) == g}
            if any(c.significant and not c.is_control for c in by_design.values()):
                rows.append([by_design.get(d) for d in designs])
            else:
                quiet += 1
        out.append(Block(bench, max(c.cpus for c in mine), designs, rows, quiet))
    return out


def _row_effect(row):
    return max(effect(c) for c in row if c is not None and not c.is_control)


def row_cells(row, metrics):
    """The text cells of a headline row: parameters, each design, the explaining count."""
    first = next(c for c in row if c is not None)
    cells = [_label(first.group, metrics)]
    cells += ["-" if c is None else NEAR1_CELL if c.is_control else ratio_text(c) for c in row]
    best = max((c for c in row if c is not None and not c.is_control), key=effect)
    return cells + [counter_text(best)]


def ratio_words(better):
    """How a ratio against naive is taken, so that > 1 is a win: naive / design when lower
    is better, design / naive when higher is."""
    return f"{NAIVE} / design" if better == "lower" else f"design / {NAIVE}"


def _block_lines(block, rows):
    """The lines of one benchmark's block, showing the chosen rows."""
    sample = next(c for row in block.rows for c in row if c is not None)
    metrics = len({c.group.metric for row in block.rows for c in row if c is not None})
    g = sample.group
    title = (f"{block.bench} at {block.cpus} CPUs: {g.metric} ({g.unit}, {g.better} is better);"
             f" ratio = {ratio_words(g.better)}")
    headers = ["parameters"] + block.designs + ["count per op behind the best"]
    table = render_table(headers, [row_cells(r, metrics) for r in rows],
                         "l" + "r" * len(block.designs) + "l")
    return ["", title] + ["  " + line for line in table]


def _shown_fails(comps):
    """The failed controls the headline names: every failed A/A control (a harness
    bias is a warning at any CPU count) and the rows expected near 1 that differ at
    their group's largest CPU count."""
    top = {id(c) for c in at_largest_cpus(comps)}
    shown = [c for c in comps if failed_control(c) and (c.kind == AA_CONTROL or id(c) in top)]
    aas = [c for c in shown if c.kind == AA_CONTROL]
    # Past MAX_AA_LINES, those at the largest CPU count first.
    named = {id(c) for c in sorted(aas, key=lambda c: id(c) not in top)[:MAX_AA_LINES]}
    return [c for c in shown if c.kind != AA_CONTROL or id(c) in named]


def failed_control_lines(comps):
    """A line per group and CPU count whose A/A controls or rows expected near 1 differ
    from 1 (those shown by _shown_fails), and one counting the others."""
    shown = _shown_fails(comps)
    lines = []
    for g, cpus in dict.fromkeys((id(c.group), c.cpus) for c in shown):
        failed = [c for c in shown if (id(c.group), c.cpus) == (g, cpus)]
        for kind, what in ((NEAR1, "expected near 1, differs (different code)"),
                           (AA_CONTROL, "harness bias (A/A: the reference run twice)")):
            these = [c for c in failed if c.kind == kind]
            if these:
                cells = ", ".join(f"{c.design} {ratio_text(c)}" for c in these)
                lines.append(f"  {these[0].where} at {these[0].cpus} CPUs: {cells}: {what}")
    more_aa = sum(1 for c in comps if failed_control(c) and c.kind == AA_CONTROL) - sum(
        1 for c in shown if c.kind == AA_CONTROL)
    if more_aa:
        lines.append(f"  {more_aa} more A/A control(s) differ from 1, harness bias: "
                     "table.txt's WARNING lines")
    others = sum(1 for c in comps if failed_control(c)) - len(shown) - more_aa
    if others:
        lines.append(f"  and {others} expected near 1 at smaller CPU counts (table.txt)")
    return lines


def failed_control_summary(fails):
    """The failed-control lines under their heading (one line when only smaller CPU
    counts had any)."""
    if len(fails) == 1 and fails[0].startswith("  and "):
        return [f"{FAILED_HEADING} none at the largest CPU count," + fails[0][len("  and"):]]
    return [FAILED_HEADING] + fails if fails else []


FAILED_HEADING = "Differ from 1 where 1 is expected (not results):"


LEGEND_LINES = [
    f"Headline: each design against {NAIVE} at the largest CPU count, ratio and 95% CI; "
    "> 1: the design wins.",
    f"{SIGNIFICANT} CI excludes 1, {NOT_SIGNIFICANT} no difference, {NO_INTERVAL} too few runs. "
    "Only parameter sets where a design differs.",
]


def render_headline(records, max_lines=MAX_LINES):
    """The headline table's lines (at most max_lines), for the terminal and table.txt.

    What must fit comes first: the legend, every benchmark with a difference (its block
    and its best row), the lines that count what was left out; then the failed controls,
    each named when they fit, else one line that counts them (table.txt names them);
    the rest of the budget goes to the other rows, largest effect first. Only when the
    benchmarks' best rows alone overflow are the ones with the smallest effects left
    to table.txt."""
    comps = comparisons(records)
    if not comps:
        return ["Headline: no design to compare with the reference in this run."]
    blocks = headline_blocks(comps)
    quiet = sum(b.quiet for b in blocks)
    shown = sorted((b for b in blocks if b.rows), key=_block_effect, reverse=True)
    fail_lines = failed_control_summary(failed_control_lines(comps))
    if fail_lines and _fixed_lines(len(shown), fail_lines, quiet) + len(shown) > max_lines:
        fail_lines = [_failed_control_count(comps)]
    while shown and _fixed_lines(len(shown), fail_lines, quiet) + len(shown) > max_lines:
        shown.pop()  # the benchmark whose best effect is smallest: table.txt has it
    keep = _rows_kept(shown, max_lines - _fixed_lines(len(shown), fail_lines, quiet))
    lines = list(LEGEND_LINES)
    for b in blocks:
        rows = [r for r in b.rows if id(r) in keep]
        if rows:
            lines += _block_lines(b, rows)
    left = sum(len(b.rows) for b in blocks) - len(keep)
    if left:
        lines.append(f"  ... {left} more row(s) with smaller ratios: see table.txt")
    if quiet:
        lines.append(f"No difference shown (every CI includes 1, too few runs for one, or "
                     f"expected near 1): {quiet} more parameter set(s)")
    lines += fail_lines
    return lines[:max_lines]


def _block_effect(block):
    return max(_row_effect(r) for r in block.rows)


def _fixed_lines(nblocks, fail_lines, quiet):
    """The lines besides the rows: the legend, each shown block's title and table
    header (4), the line counting rows left out, the no-difference count, the failed
    controls."""
    return len(LEGEND_LINES) + 4 * nblocks + 1 + (1 if quiet else 0) + len(fail_lines)


def _failed_control_count(comps):
    """One line for the failed controls when naming them would crowd out a benchmark."""
    failed = [c for c in comps if failed_control(c)]
    aas = sum(1 for c in failed if c.kind == AA_CONTROL)
    return (f"{FAILED_HEADING} {len(failed)} comparison(s), {aas} of them A/A (harness "
            "bias): named in table.txt")


def _rows_kept(blocks, budget):
    """The ids of the rows that fit: each benchmark's largest effect first, so that no
    benchmark with a difference is left out of the headline, then the largest of the
    others."""
    firsts = [max(b.rows, key=_row_effect) for b in blocks if b.rows]
    first_ids = {id(r) for r in firsts}
    rest = [r for b in blocks for r in b.rows if id(r) not in first_ids]
    chosen = (sorted(firsts, key=_row_effect, reverse=True) +
              sorted(rest, key=_row_effect, reverse=True))
    return {id(r) for r in chosen[:max(budget, 0)]}


def _design_sentence(bench, design, comps):
    """What one design does against the reference in one benchmark, as a sentence."""
    cpus = comps[0].cpus
    wins = [c for c in comps if c.significant and c.ratio > 1]
    losses = [c for c in comps if c.significant and c.ratio < 1]
    same = len(comps) - len(wins) - len(losses)
    n = len(comps)
    sets = "parameter set" if n == 1 else "parameter sets"
    if not wins and not losses:
        return (f"{bench}: {design} is no different from {NAIVE} at {cpus} CPUs in "
                f"{'its' if n == 1 else 'any of its'} {n} {sets}.")
    parts = []
    if wins:
        best = max(wins, key=lambda c: c.ratio)
        parts.append(f"beats {NAIVE} in {len(wins)} of {n} {sets}, by up to {short(best.ratio)}x "
                     f"({_label(best.group, 1)})")
    if losses:
        worst = min(losses, key=lambda c: c.ratio)
        parts.append(f"loses in {len(losses)}{'' if wins else f' of {n}'}, down to "
                     f"{short(worst.ratio)}x ({_label(worst.group, 1)})")
    if same:
        parts.append(f"no difference in {same}")
    return f"{bench}: at {cpus} CPUs {design} " + "; ".join(parts) + "."


def _control_sentences(comps):
    """How the A/A controls and rows expected near 1 came out: at 1, or which did not
    (those _shown_fails names; the others are counted)."""
    controls = [c for c in comps if c.is_control]
    top = _shown_fails(controls)
    named = {id(c) for c in top}
    left = [c for c in controls if failed_control(c) and id(c) not in named]
    out = []
    for c in top:
        if c.kind == AA_CONTROL:
            out.append(f"A/A control failed: {c.where} at {c.cpus} CPUs, {c.design} "
                       f"{ratio_text(c)} differs from 1: harness bias (A/A: the reference run "
                       "twice), not a result.")
        else:
            out.append(f"Expected near 1: {c.where} at {c.cpus} CPUs, {c.design} "
                       f"{ratio_text(c)} differs from 1: different code, not a result.")
    for kind, what in ((AA_CONTROL, "A/A control(s) differ from 1 (harness bias)"),
                       (NEAR1, "comparison(s) expected near 1 differ from 1 at smaller CPU "
                               "counts")):
        n = sum(1 for c in left if c.kind == kind)
        if n:
            out.append(f"{n} more {what}: forest plot, table.txt.")
    failed = sum(1 for c in controls if failed_control(c))
    aas = sum(1 for c in controls if c.kind == AA_CONTROL)
    if controls:
        out.append(f"{len(controls) - failed} of {len(controls)} comparisons that should be 1 "
                   f"({aas} A/A, {len(controls) - aas} expected near 1) come out at 1 within "
                   "their interval.")
    return out


def headline_sentences(records):
    """The page's headline in sentences, written from the figures."""
    comps = comparisons(records)
    if not comps:
        return ["This run has no design to compare with the reference."]
    top = [c for c in at_largest_cpus(comps) if not c.is_control]
    out = []
    for bench in dict.fromkeys(c.group.bench for c in top):
        mine = [c for c in top if c.group.bench == bench]
        for design in dict.fromkeys(c.design for c in mine):
            out.append(_design_sentence(bench, design, [c for c in mine if c.design == design]))
    return out + _control_sentences(comps)
