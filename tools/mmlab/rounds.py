"""Verdicts on two designs measured in the same rounds, and the checks of a series.

The harness runs rounds: round i runs the i-th timed run of every variant
of a case (docs/output.md, "How the runs are made"), so a record's
samples, in the order they ran, are one per round. judge() compares every
design with the reference (naive) of its case, all at once, so that the
stars of a table keep a false discovery rate (Benjamini-Hochberg over
the comparisons' tests) rather than each its own 95%:
- exact mode (the figure counts instructions): the ratio of the figures,
  exact; a difference beyond EXACT_TOLERANCE is real, and runs of one
  design that differ beyond it mean the figure does not hold;
- paired rounds (both records carry seq and as many runs): the median of
  the per-round log ratios with its order-statistic interval and sign test
  (mmlab.stats.paired_ratio);
- else (older logs): the ratio of medians, each side bootstrapped apart.
A row is unstable, with no ratio and no star, when a design's runs fall
in two modes or shift level, or the interval spans more than a factor 2.
In paired rounds the modes and shifts that matter are the per-round
ratios': a drift both designs share (the emulator's, the host's) cancels
in each round's ratio, so modes or a shift in the runs whose ratios hold
one level are kept as a note (Verdict.shared), not as a reason.
A/A controls and "expected near 1" rows are judged here too, so table.txt,
the page and results.json say the same.
"""
from __future__ import annotations

from typing import List, NamedTuple, Optional, Tuple

from .records import NAIVE, per_records
from .stats import (EXACT_TOLERANCE, bootstrap_p, bootstrap_ratios, comparison_seed,
                    exact_spread, fdr_reject, improvement_ratio, level_shift, paired_ratio,
                    percentile_ci, too_wide, two_modes)

# The A/A variant: the reference design run a second time under this name.
AA = "aa"
# A BENCH line's "expect" for designs that run different code but should cost about the same.
EXPECT_NEAR1 = "near1"
PAIRED = "paired"
INDEPENDENT = "independent"
EXACT = "exact"
EXACT_UNIT = "instructions"


class Verdict(NamedTuple):
    """One design against the reference: what the tables, headline and page show."""

    ratio: Optional[float]            # > 1: the design wins; None if a figure is 0
    ci: Optional[Tuple[float, float]]
    p: Optional[float]                # the test's p (None: exact, unstable or no test)
    significant: bool                 # after the false discovery rate control; exact: > 0.1%
    unstable: List[str]               # why the row is unstable (empty: it is not)
    method: Optional[str]             # PAIRED, INDEPENDENT, EXACT or None (no samples)
    shared: Tuple[str, ...] = ()      # paired: the runs' modes and shifts the ratios do not show


def is_exact(rec):
    """True for a record of exact mode: its figure counts instructions."""
    return rec.unit == EXACT_UNIT


def paired_rounds(a, b):
    """True when records a and b ran in the same rounds: both have seq and as many runs."""
    return (a.seq is not None and b.seq is not None and a.samples is not None
            and b.samples is not None and len(a.samples) == len(b.samples))


def pair_seed(a, b):
    """The seed of the comparison of records a and b (bench, params, cpus, both variants)."""
    return comparison_seed(a.bench, a.params_key(), a.cpus, a.variant, b.variant)


def _exact_verdict(a, b, better):
    ratio = improvement_ratio(a.median, b.median, better)
    loose = [f"{r.variant}'s runs differ by {exact_spread(r.samples) * 100:.2g}%"
             for r in (a, b) if r.samples and exact_spread(r.samples) > EXACT_TOLERANCE]
    differs = ratio is not None and abs(ratio - 1) > EXACT_TOLERANCE
    return Verdict(ratio, None, None, differs, loose, EXACT)


def _time_verdict(a, b, better):
    """The verdict before the false discovery rate control (significant left False)."""
    ratio = improvement_ratio(a.median, b.median, better)
    if not a.samples or not b.samples:
        return Verdict(ratio, None, None, False, [], None)
    ci = p = None
    method = PAIRED if paired_rounds(a, b) else INDEPENDENT
    if method == PAIRED:
        est = paired_ratio(run_order(a), run_order(b), better)
        if est is not None:
            ratio, ci, p = est
    else:
        draws = bootstrap_ratios(a.samples, b.samples, better, seed=pair_seed(a, b))
        if draws is not None:
            ci = percentile_ci(draws)
            p = bootstrap_p(draws)
    why = [w for r in (a, b) for w in (modes_text(r), shift_text(r)) if w]
    shared = ()
    if method == PAIRED and why:
        moved = ratio_moves(a, b)
        why, shared = (why + moved, ()) if moved else ([], tuple(why))
    if too_wide(ci):
        why.append(f"interval {ci[0]:.3g}-{ci[1]:.3g}x spans more than a factor 2")
    return Verdict(ratio, ci, None if why or ci is None else p, False, why, method, shared)


def ratio_moves(a, b):
    """Why the per-round ratios of records a and b (same rounds) do not hold one level:
    their two modes or level shift, as texts; [] when they hold it."""
    ratios = [x / y for x, y in zip(run_order(a), run_order(b)) if x > 0 and y > 0]
    out = []
    modes = two_modes(ratios)
    if modes:
        out.append(f"two modes in the rounds' {a.variant}/{b.variant} ratios: "
                   f"{modes[0]:.3g} | {modes[1]:.3g}")
    shift = level_shift(ratios)
    if shift is not None:
        out.append(f"level shift in the rounds' {a.variant}/{b.variant} ratios after run "
                   f"{shift[0]} ({shift[2]:.2f}x)")
    return out


def verdict_of(a, b, better):
    """The verdict of b against a on its own (a family of one comparison)."""
    return judge_pairs([(a, b)], better)[0]


def judge_pairs(pairs, better=None):
    """Verdicts of (reference, design) pairs, the stars under one false discovery rate."""
    raw = [(_exact_verdict if is_exact(a) and is_exact(b) else _time_verdict)(
        a, b, better or a.better) for a, b in pairs]
    tested = [i for i, v in enumerate(raw) if v.p is not None]
    for i, keep in zip(tested, fdr_reject([raw[i].p for i in tested])):
        raw[i] = raw[i]._replace(significant=keep)
    return raw


_judged = {}  # (id of reference, id of design) -> (reference, design, Verdict)


def reference_pairs(records):
    """(reference, design) of every mmlab case (system, bench, params, metric, cpus)."""
    cases = {}
    for r in records:
        if not r.extra.get("system"):
            cases.setdefault((r.bench, r.params_key(), r.metric, r.cpus), {})[r.variant] = r
    return [(c[NAIVE], r) for c in cases.values() if NAIVE in c
            for v, r in c.items() if v != NAIVE]


def judge(records):
    """Judge every design of records against its reference, as one family; the verdicts
    are kept for verdict() to find. Returns the (reference, design) pairs."""
    pairs, verdicts = _judge_family(records)
    for (a, b), v in zip(pairs, verdicts):
        _judged[(id(a), id(b))] = (a, b, v)
    return pairs


@per_records
def _judge_family(records):
    pairs = reference_pairs(records)
    return pairs, judge_pairs(pairs)


def verdict(a, b):
    """The verdict of design record b against reference record a: from the last judge()
    of records holding both, else judged on its own."""
    hit = _judged.get((id(a), id(b)))
    if hit is not None and hit[0] is a and hit[1] is b:
        return hit[2]
    return verdict_of(a, b, a.better)


def run_order(rec):
    """rec's samples in the order they ran (by seq when it has one)."""
    if rec.seq is None or len(rec.seq) != len(rec.samples):
        return list(rec.samples)
    return [v for _, v in sorted(zip(rec.seq, rec.samples))]


def shift_of(rec):
    """level_shift of rec's samples in run order: (run index, p, factor) or None."""
    if not rec.samples or is_exact(rec):
        return None
    return level_shift(run_order(rec))


def shift_text(rec):
    """'level shift in batched after run 9 (1.70x)', or ''."""
    shift = shift_of(rec)
    if shift is None:
        return ""
    at, _, factor = shift
    return f"level shift in {rec.variant} after run {at} ({factor:.2f}x)"


def modes_text(rec):
    """'two modes in naive: 2.05e+04 | 1.75e+07', or ''."""
    if not rec.samples or is_exact(rec):
        return ""
    modes = two_modes(rec.samples)
    return f"two modes in {rec.variant}: {modes[0]:.4g} | {modes[1]:.4g}" if modes else ""


def lost_runs(rec):
    """How many runs the guest lost its CPU in (time mode's "lost_cpu_runs"), kept apart."""
    lost = rec.extra.get("lost_cpu_runs")
    return len(lost) if isinstance(lost, list) else lost if isinstance(lost, int) else 0


def is_aa(naive, other):
    """True for the A/A control: naive against its own second run, 'aa'."""
    return naive.variant == NAIVE and other.variant == AA


def near1_why(r):
    """The kernel's reason a record's case is expected near 1 ('' when none)."""
    why = r.extra.get("expected_near_1")
    return why if isinstance(why, str) else ""


def expected_near1(naive, other):
    """True when both records say their designs should cost about the same.

    The kernel writes "expected_near_1":"why" on such records (docs/output.md);
    "expect":"near1" and the older "control":true (which marked the same
    rows before A/A controls existed; an aa record's own control mark is
    not one) are read alike.
    """
    def marked(r):
        return (bool(near1_why(r)) or r.extra.get("expect") == EXPECT_NEAR1
                or (r.control and r.variant != AA))
    return all(marked(r) for r in (naive, other))


def harness_bias(records):
    """Every failed A/A control of records: dicts naming the case and how it differs.

    A/A compares the reference design with itself, so a difference that
    survives the false discovery rate control (exact mode: beyond
    EXACT_TOLERANCE) is the harness's defect (order, warm-up, a timer's
    phase), not a result.
    """
    out = []
    for a, b in judge(records):
        v = verdict(a, b)
        if b.variant != AA or not v.significant:
            continue
        item = {"bench": a.bench, "params": a.params, "metric": a.metric, "cpus": a.cpus,
                "ratio": v.ratio, "ratio_ci": list(v.ci) if v.ci else None, "method": v.method,
                "why": "harness bias: A/A differs from 1"}
        out.append(item)
    return out


def harness_bias_text(item):
    """One failed A/A control as a line of text."""
    params = " ".join(f"{k}={v}" for k, v in sorted(item["params"].items()))
    how = (f"95% CI {item['ratio_ci'][0]:.3f}-{item['ratio_ci'][1]:.3f}x excludes 1"
           if item.get("ratio_ci") else f"{item['ratio']:.4f}x differs from 1 by more than "
           f"{EXACT_TOLERANCE * 100:g}%")
    return (f"harness bias: {item['bench']} {params} cpus={item['cpus']} {item['metric']}: "
            f"naive/aa {how}")


def unstable_rows(records):
    """Every comparison judged unstable, as dicts for results.json."""
    out = []
    for a, b in judge(records):
        v = verdict(a, b)
        if v.unstable:
            out.append({"bench": a.bench, "params": a.params, "metric": a.metric,
                        "cpus": a.cpus, "design": b.variant, "why": v.unstable})
    return out


def level_shifts(records):
    """Every record whose samples shift level against run order, as dicts for results.json."""
    out = []
    for r in records:
        shift = shift_of(r)
        if shift is not None:
            out.append({"system": r.extra.get("system") or "mmlab", "bench": r.bench,
                        "variant": r.variant, "params": r.params,
                        "metric": r.metric, "cpus": r.cpus, "after_run": shift[0],
                        "p": round(shift[1], 6), "factor": round(shift[2], 4)})
    return out
