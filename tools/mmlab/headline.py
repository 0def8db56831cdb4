"""The headline of a run: each benchmark's declared row, after what must be read first.

Every design is compared with the reference design (naive) of its
benchmark, parameter set and metric at each CPU count (mmlab.rounds'
verdicts: in time mode the paired ratio, its interval and a star kept
under one false discovery rate across the run; in exact mode the exact
ratio). A comparison is an A/A control when the design is AA (the
reference run a second time): one that differs from 1 is a defect of the
harness, not a result. It is "expected near 1" when both records say so.

The headline prints, in this order: the mode; every failed A/A control
(harness defects); the unstable rows (two modes, a level shift, an
interval spanning more than 2x; exact mode: runs that differ), those of
headline rows named, the others counted; runs where the guest lost its
CPU; then one block per benchmark: its declared row, the records marked
"headline": true, at the largest CPU count, titled by what they measure
(the record's "title"), each design's figure and ratio against naive,
the count per operation that differs most from naive's, work a design
defers outside the timed call with its cost, and in exact mode, for a
design that does the same work as naive, that exact mode cannot show
latency. The declared row is fixed by the benchmark, never
chosen by this run's effects. A log whose records declare no headline
row shows each benchmark's first parameter set, and says so.
"""
from __future__ import annotations

import math
from typing import List, NamedTuple, Optional, Tuple

from .format import format_count, format_number, render_table
from .groups import group_results
from .peer import split_systems
from .records import NAIVE
from .rounds import AA, EXACT, expected_near1, is_aa, is_exact, judge, lost_runs
from .stats import EXACT_TOLERANCE, FDR_Q
from .table import compare_pair, deferred_text

MAX_LINES = 60
MAX_AA_LINES = 8          # failed A/A controls named; past that, counted
MAX_UNSTABLE_LINES = 8    # unstable rows named (headline rows first); past that, counted
SAME_WORK = 0.01          # exact mode: a design this close to naive does the same work
SIGNIFICANT = "*"
NOT_SIGNIFICANT = "~"
NO_INTERVAL = "?"
UNSTABLE = "unstable"
NEAR1 = "expected near 1"
NEAR1_CELL = "(near 1)"
AA_CONTROL = "A/A"
DESIGN = "design"
PER_OP = "_per_op"
TIMING_HINT = "exact mode cannot show latency: see ./run.sh --timing"


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
    unstable: Tuple[str, ...] = ()
    exact: bool = False
    ref: object = None
    rec: object = None

    @property
    def is_control(self):
        return self.kind != DESIGN

    @property
    def where(self):
        """'tlb remote=busy pages=8' (plus the metric when the benchmark has several)."""
        return self.group.title


# The last records compared and their comparisons: the terminal, table.txt and the page
# each ask for them.
_last = {}


def comparisons(records) -> List[Comparison]:
    """Every design of mmlab's own records against the reference, in log order."""
    key = tuple(id(r) for r in records)
    if _last.get("key") != key:
        _last.update(key=key, comps=_compare_all(records), records=list(records))
    return _last["comps"]


def _compare_all(records):
    own = split_systems(records)[0]
    judge(own)
    out = []
    for group in group_results(own):
        for design in group.improved_variants():
            for cpus in group.cpu_counts():
                ref, rec = group.result(NAIVE, cpus), group.result(design, cpus)
                if ref is not None and rec is not None and rec.is_design:
                    out.append(compare(group, design, cpus, ref, rec))
    return out


def compare(group, design, cpus, ref, rec):
    """The Comparison of record rec with the reference's record ref."""
    v = compare_pair(ref, rec)
    kind = (AA_CONTROL if is_aa(ref, rec) else NEAR1 if expected_near1(ref, rec)
            else DESIGN)
    return Comparison(group, design, cpus, v.ratio, v.ci, v.significant, kind,
                      explaining_counter(ref, rec), tuple(v.unstable), v.method == EXACT,
                      ref, rec)


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
    """An A/A control or a row expected near 1 that differs from 1 (time mode: after the
    false discovery rate control, so never an unstable row)."""
    return c.is_control and c.significant


def at_largest_cpus(comps):
    """The comparisons at each group's largest CPU count."""
    top = {}
    for c in comps:
        top[id(c.group)] = max(top.get(id(c.group), 0), c.cpus)
    return [c for c in comps if c.cpus == top[id(c.group)]]


def short(x):
    """A ratio to about three significant digits: '6.17', '99.1', '6010'."""
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def ratio_text(c):
    """'*2.31x 2.10-2.52', '~1.02x 0.97-1.06', '?1.50x' (no interval), 'unstable';
    exact mode: '3.59x' (differs) or '~1.000x' (within EXACT_TOLERANCE)."""
    if c.unstable:
        return UNSTABLE
    if c.ratio is None:
        return "n/a"
    if c.exact:
        return f"{c.ratio:.3f}x" if c.significant else f"{NOT_SIGNIFICANT}{c.ratio:.3f}x"
    mark = SIGNIFICANT if c.significant else NOT_SIGNIFICANT if c.ci else NO_INTERVAL
    text = f"{mark}{short(c.ratio)}x"
    return text + (f" {short(c.ci[0])}-{short(c.ci[1])}" if c.ci else "")


def counter_text(c):
    """'ipi_sent 1 -> 0.125': the count per operation behind a ratio, the reference's first."""
    if c.counter is None:
        return ""
    name, a, b = c.counter
    return f"{name[:-len(PER_OP)]} {format_count(a)} -> {format_count(b)}"


def title_of(rec):
    """What a record measures, in words: its "title" ('unmap cost per page'), else its bench."""
    title = rec.extra.get("title")
    return title if isinstance(title, str) and title else rec.bench


def design_note(c):
    """A headline row's note: unstable's reasons, deferred work, exact mode's limit."""
    notes = list(c.unstable)
    if c.rec.extra.get("deferred") is True:
        notes.append(deferred_text(c.ref, c.rec))
    if (c.exact and c.kind == DESIGN and not c.unstable and c.ratio
            and abs(c.ratio - 1) <= SAME_WORK):
        notes.append(f"same work as {NAIVE}; {TIMING_HINT}")
    return "; ".join(notes)


# --- the declared rows -----------------------------------------------------

class Block(NamedTuple):
    """One benchmark's declared row at its largest CPU count."""

    bench: str
    title: str
    cpus: int
    group: object
    comps: List[Comparison]   # each design against naive (A/A left out)
    declared: bool            # False: no record declared a headline row


def _declared(rec):
    return rec.extra.get("headline") is True


def headline_blocks(comps):
    """A Block per benchmark, in log order: the declared row at the largest CPU count."""
    out = []
    for bench in dict.fromkeys(c.group.bench for c in comps):
        mine = [c for c in comps if c.group.bench == bench]
        marked = [c for c in mine if _declared(c.ref) or _declared(c.rec)]
        group = (marked or mine)[0].group
        rows = [c for c in mine if c.group is group]
        cpus = max(c.cpus for c in rows)
        shown = [c for c in rows if c.cpus == cpus and c.kind != AA_CONTROL]
        ref = group.result(NAIVE, cpus)
        out.append(Block(bench, title_of(ref), cpus, group, shown, bool(marked)))
    return out


def block_title(block):
    """'unmap cost per page: tlb pages=512 remote=busy at 4 CPUs, cycles_per_page (cycles,
    lower is better)'."""
    g = block.group
    return (f"{block.title}: {g.title} at {block.cpus} CPUs, {g.metric} ({g.unit}, "
            f"{g.better} is better)" + ("" if block.declared else
                                         " [no row declared: the first parameter set]"))


def block_table(block):
    """(headers, rows) of a block: naive's figure, then each design's figure, ratio, note."""
    g = block.group
    ref = g.result(NAIVE, block.cpus)
    rows = [[NAIVE, format_number(ref.median), "", "", ""]]
    for c in block.comps:
        rows.append([c.design, format_number(c.rec.median),
                     NEAR1_CELL + " " + ratio_text(c) if c.kind == NEAR1 else ratio_text(c),
                     counter_text(c), design_note(c)])
    return ["design", g.unit, f"vs {NAIVE}", "count per op behind it", "note"], rows


def _block_lines(block):
    headers, rows = block_table(block)
    return ["", block_title(block)] + ["  " + line for line in
                                      render_table(headers, rows, "lrrll")]


# --- what is read first ----------------------------------------------------

def mode_line(comps):
    """Which mode the figures come from, and what a ratio and a star mean there."""
    if comps and all(c.exact for c in comps):
        return (f"Headline (exact mode: instructions the machine executed, counted by the "
                f"virtual clock; ratios exact, '{NOT_SIGNIFICANT}' within "
                f"{EXACT_TOLERANCE * 100:g}%). ratio > 1: the design wins.")
    return (f"Headline (time mode: median over rounds of naive / design, 95% CI; "
            f"'{SIGNIFICANT}' significant with the false discovery rate at {FDR_Q:g} across "
            f"the run, '{NOT_SIGNIFICANT}' not, '{NO_INTERVAL}' too few runs). "
            "ratio > 1: the design wins.")


def failed_aa_lines(comps):
    """Every failed A/A control, named up to MAX_AA_LINES, then counted."""
    failed = [c for c in comps if c.kind == AA_CONTROL and failed_control(c)]
    if not failed:
        return []
    lines = [f"HARNESS DEFECT: {len(failed)} A/A control(s) differ from 1 (the reference run "
             "twice; not a result):"]
    lines += [f"  {c.where} at {c.cpus} CPUs: aa {ratio_text(c)}" for c in failed[:MAX_AA_LINES]]
    if len(failed) > MAX_AA_LINES:
        lines.append(f"  ... {len(failed) - MAX_AA_LINES} more: table.txt's WARNING lines")
    return lines


def unstable_lines(comps, blocks):
    """The unstable comparisons: those of headline rows first, named up to
    MAX_UNSTABLE_LINES, the rest counted."""
    shown = {id(c) for b in blocks for c in b.comps}
    bad = [c for c in comps if c.unstable]
    if not bad:
        return []
    bad.sort(key=lambda c: id(c) not in shown)
    what = "FIGURES DIFFER BETWEEN RUNS" if all(c.exact for c in bad) else "UNSTABLE"
    mine = sum(1 for c in bad if id(c) in shown)
    lines = [f"{what}: {len(bad)} comparison(s), no ratio ({mine} in headline rows):"]
    lines += [f"  {c.where} at {c.cpus} CPUs, {c.design}: {'; '.join(c.unstable)}"
              for c in bad[:MAX_UNSTABLE_LINES]]
    if len(bad) > MAX_UNSTABLE_LINES:
        lines.append(f"  ... {len(bad) - MAX_UNSTABLE_LINES} more: table.txt's notes")
    return lines


def near1_lines(comps):
    """A count of the rows expected near 1 that differ (at their largest CPU count)."""
    top = {id(c) for c in at_largest_cpus(comps)}
    n = sum(1 for c in comps if c.kind == NEAR1 and failed_control(c) and id(c) in top)
    return [f"Expected near 1 but differ (different code, not a result): {n} row(s), "
            "table.txt"] if n else []


def lost_lines(records):
    """How many runs lost the guest's CPU to the host, kept out of the figures."""
    lost = [r for r in records if lost_runs(r)]
    if not lost:
        return []
    return [f"LOST CPU: {sum(lost_runs(r) for r in lost)} run(s) in {len(lost)} record(s) "
            "where the host descheduled a vCPU, reported apart (table.txt's notes)"]


def first_lines(records, comps, blocks):
    """What must be read before any result: harness defects, unstable rows, lost runs."""
    return (failed_aa_lines(comps) + unstable_lines(comps, blocks) + lost_lines(records)
            + near1_lines(comps))


def render_headline(records, max_lines=MAX_LINES):
    """The headline's lines (at most max_lines), for the terminal and table.txt."""
    comps = comparisons(records)
    if not comps:
        return ["Headline: no design to compare with the reference in this run."]
    blocks = headline_blocks(comps)
    lines = [mode_line(comps)] + first_lines(records, comps, blocks)
    for b in blocks:
        lines += _block_lines(b)
    if len(lines) > max_lines:
        lines = lines[:max_lines - 1] + ["... the rest of the headline: table.txt"]
    return lines


def headline_sentences(records):
    """The page's headline in sentences, written from the declared rows."""
    comps = comparisons(records)
    if not comps:
        return ["This run has no design to compare with the reference."]
    out = []
    for b in headline_blocks(comps):
        parts = []
        for c in b.comps:
            note = design_note(c)
            parts.append(f"{c.design} {ratio_text(c)}" + (f" ({note})" if note else ""))
        out.append(f"{b.title} ({b.group.title}, {b.cpus} CPUs), against {NAIVE}: "
                   + (", ".join(parts) or "no design") + ".")
    aas = [c for c in comps if c.kind == AA_CONTROL]
    if aas:
        bad = sum(1 for c in aas if failed_control(c))
        out.append(f"{len(aas) - bad} of {len(aas)} A/A controls come out at 1"
                   + (f"; {bad} differ: a harness defect." if bad else "."))
    return out
