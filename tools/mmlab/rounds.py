"""Ratios of two designs measured in the same rounds, and the checks of a series.

The harness runs rounds: round i runs the i-th timed run of every variant
of a case (docs/output.md, "How the runs are made"), so a record's
samples, in the order they ran, are one per round, and seq says where
each ran. Two records of the same case are paired round by round when
both carry seq and the same number of runs; their ratio's interval is
then the round-block bootstrap (mmlab.stats.round_bootstrap_ratio_ci),
else (older logs, or records of different runs) each side is resampled
on its own. Every comparison has its own seed, derived from what is
compared (bench, params, cpus, the two variants). A/A controls, "expected
near 1" rows and level shifts are judged here too, so that table.txt,
the page and results.json say the same.
"""
from __future__ import annotations

from .records import NAIVE
from .stats import (bootstrap_ratio_ci, comparison_seed, level_shift,
                    round_bootstrap_ratio_ci)

# The A/A variant: the reference design run a second time under this name.
AA = "aa"
# A BENCH line's "expect" for designs that run different code but should cost about the same.
EXPECT_NEAR1 = "near1"
ROUND_BLOCK = "round-block"
INDEPENDENT = "independent"


def paired_rounds(a, b):
    """True when records a and b ran in the same rounds: both have seq and as many runs."""
    return (a.seq is not None and b.seq is not None and a.samples is not None
            and b.samples is not None and len(a.samples) == len(b.samples))


def pair_seed(a, b):
    """The seed of the comparison of records a and b (bench, params, cpus, both variants)."""
    return comparison_seed(a.bench, a.params_key(), a.cpus, a.variant, b.variant)


def ratio_interval(a, b, better):
    """(95% interval of improvement_ratio(median a, median b) or None, method).

    method is ROUND_BLOCK when a and b are paired by round, else INDEPENDENT;
    None for the interval when either side has no samples.
    """
    if not a.samples or not b.samples:
        return None, None
    seed = pair_seed(a, b)
    if paired_rounds(a, b):
        return round_bootstrap_ratio_ci(a.samples, b.samples, better, seed=seed), ROUND_BLOCK
    return bootstrap_ratio_ci(a.samples, b.samples, better, seed=seed), INDEPENDENT


def run_order(rec):
    """rec's samples in the order they ran (by seq when it has one)."""
    if rec.seq is None or len(rec.seq) != len(rec.samples):
        return list(rec.samples)
    return [v for _, v in sorted(zip(rec.seq, rec.samples))]


def shift_of(rec):
    """level_shift of rec's samples in run order: (run index, p, factor) or None."""
    if not rec.samples:
        return None
    return level_shift(run_order(rec))


def shift_text(rec):
    """'level shift in batched after run 9 (1.70x)', or ''."""
    shift = shift_of(rec)
    if shift is None:
        return ""
    at, _, factor = shift
    return f"level shift in {rec.variant} after run {at} ({factor:.2f}x)"


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
    """Every failed A/A control of records: dicts naming the case and its interval.

    A/A compares the reference design with itself, so an interval that
    excludes 1 is the harness's bias (order, warm-up, drift), not a result.
    """
    out = []
    cases = {}
    for r in records:
        system = r.extra.get("system") or ""
        cases.setdefault((system, r.bench, r.params_key(), r.metric, r.cpus), {})[r.variant] = r
    for by_variant in cases.values():
        naive, aa = by_variant.get(NAIVE), by_variant.get(AA)
        if naive is None or aa is None:
            continue
        ci, method = ratio_interval(naive, aa, naive.better)
        if ci is not None and (ci[0] > 1.0 or ci[1] < 1.0):
            out.append({"bench": naive.bench, "params": naive.params, "metric": naive.metric,
                        "cpus": naive.cpus, "ratio_ci": list(ci), "method": method,
                        "why": "harness bias: A/A ratio excludes 1"})
    return out


def harness_bias_text(item):
    """One failed A/A control as a line of text."""
    params = " ".join(f"{k}={v}" for k, v in sorted(item["params"].items()))
    lo, hi = item["ratio_ci"]
    return (f"harness bias: {item['bench']} {params} cpus={item['cpus']} {item['metric']}: "
            f"naive/aa 95% CI {lo:.3f}-{hi:.3f}x excludes 1")


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
