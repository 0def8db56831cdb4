"""The readers' loss per episode: reclaim's, and tlb's busy remotes'.

A record that carries "reader_loss_pct" (bench/bench_reclaim.c) gives, over
its counted episodes, each one's loss against the null pass of the same
episode (the readers over the range resident, no reclaim), as a median and
the interval of the kernel's order statistics ("_lo", "_hi"); the null and
timed rates behind it; whether the null rate matched the first result's
("reader_baseline_same"); on the A/A row, whether its loss agrees with the
reference's ("reader_loss_aa_agrees"); and the receivers' interrupts,
counted on the receivers over the run's time. This module lays them out,
one row per record, for table.txt, the page and results.json.

A tlb record with busy remotes carries each counted episode's loss
("remote_read_loss_episodes_pct": the readers' rate in the episode's timed
window against its baseline window, in round order) with their median
and interval. Calibrated against the null: the median over rounds of the
design's loss less the null's of the same round, with a percentile
bootstrap interval ("vs_null"). Its baseline rate is held to the first
record's at the same CPU count and busy setting ("baseline_same": within
0.1% in exact mode, 5% in time mode), as reclaim's kernel does itself.
"""
from __future__ import annotations

import numpy as np

from .fits import params_words
from .format import format_number, render_table
from .records import per_records
from .rounds import is_exact
from .stats import CI_MIN_N, EXACT_TOLERANCE, comparison_seed, percentile_ci, resampled_medians

LOSS = "reader_loss_pct"
TLB_EPISODES = "remote_read_loss_episodes_pct"
TLB_LOSS = "remote_read_loss_episode_pct"
NULL = "null"                  # bench/bench_tlb.c's null variant
BASELINE = "remote_reads_per_ms_baseline"
TIME_BASELINE_TOLERANCE = 0.05  # bench.h BENCH_CI_TARGET_PCT: what a time-mode rate holds to


def _range(rec, key):
    """(median, lo, hi) of a reported series, or None when the record lacks it."""
    vals = [rec.extra.get(key + suffix) for suffix in ("", "_lo", "_hi")]
    return tuple(vals) if all(isinstance(v, (int, float)) for v in vals) else None


def _episodes(rec):
    """rec's per-episode losses in round order, or None."""
    v = rec.extra.get(TLB_EPISODES)
    if not isinstance(v, list) or not v or not all(isinstance(x, (int, float)) for x in v):
        return None
    if rec.seq is not None and len(rec.seq) == len(v):
        return [x for _, x in sorted(zip(rec.seq, v))]
    return list(v)


def _vs_null(rec, null):
    """(median of rec's episode losses less the null's, round by round, 95% interval or None)."""
    a, b = _episodes(rec), _episodes(null) if null is not None else None
    if a is None or b is None or len(a) != len(b):
        return None, None
    d = np.asarray(a, float) - np.asarray(b, float)
    med = float(np.median(d))
    if len(d) < CI_MIN_N:
        return med, None
    rng = np.random.default_rng(comparison_seed(rec.bench, rec.params_key(), rec.cpus,
                                                rec.variant, NULL, "reader_loss"))
    return med, [float(x) for x in percentile_ci(resampled_medians(rng, d))]


def _tlb_row(r, by_case, first_base):
    loss = _range(r, TLB_LOSS)
    null = by_case.get((r.bench, r.params_key(), r.cpus), {}).get(NULL)
    vs, vs_ci = _vs_null(r, null) if r.variant != NULL else (None, None)
    base = r.extra.get(BASELINE)
    ref = first_base.get((r.cpus, r.params.get("remote")))
    tol = EXACT_TOLERANCE if is_exact(r) else TIME_BASELINE_TOLERANCE
    same = (None if not isinstance(base, (int, float)) or not ref
            else abs(base - ref) <= tol * max(base, ref))
    return {"bench": r.bench, "params": dict(r.params), "cpus": r.cpus, "design": r.variant,
            "episodes": len(_episodes(r) or []), "loss_pct": loss[0],
            "loss_pct_ci": [loss[1], loss[2]], "vs_null": vs, "vs_null_ci": vs_ci,
            "null_cycles_per_kread": None, "cycles_per_kread": None,
            "baseline_reads_per_ms": base, "baseline_same": same,
            "aa_agrees": r.extra.get("remote_read_loss_aa_agrees"),
            "receiver_irqs_per_run": None,
            "receiver_irqs_per_sec": r.extra.get("remote_irqs_per_sec")}


@per_records
def reader_loss_results(records):
    """results.json's `reader_loss` objects: one per record that reports its readers' loss."""
    out = []
    by_case, first_base = {}, {}
    for r in records:
        by_case.setdefault((r.bench, r.params_key(), r.cpus), {})[r.variant] = r
        base = r.extra.get(BASELINE)
        if _range(r, TLB_LOSS) is not None and isinstance(base, (int, float)):
            first_base.setdefault((r.cpus, r.params.get("remote")), base)
    for r in records:
        if _range(r, TLB_LOSS) is not None:
            out.append(_tlb_row(r, by_case, first_base))
            continue
        loss = _range(r, LOSS)
        if loss is None:
            continue
        irqs = _range(r, "receiver_irqs_per_run")
        rate = _range(r, "receiver_irqs_per_sec")
        out.append({"bench": r.bench, "params": dict(r.params), "cpus": r.cpus,
                    "design": r.variant, "episodes": r.extra.get("reader_episodes"),
                    "loss_pct": loss[0], "loss_pct_ci": [loss[1], loss[2]],
                    "vs_null": None, "vs_null_ci": None, "baseline_reads_per_ms": None,
                    "null_cycles_per_kread": r.extra.get("reader_null_cycles_per_kread"),
                    "cycles_per_kread": r.extra.get("reader_cycles_per_kread"),
                    "baseline_same": r.extra.get("reader_baseline_same"),
                    "aa_agrees": r.extra.get("reader_loss_aa_agrees"),
                    "receiver_irqs_per_run": irqs[0] if irqs else None,
                    "receiver_irqs_per_sec": rate[0] if rate else None})
    return out


def _flag(value):
    return "-" if value is None else "yes" if value else "NO"


def reader_loss_table(rows):
    """(headers, rows, align) of the readers' loss."""
    headers = ["bench", "params", "cpus", "design", "episodes", "loss %", "interval",
               "vs null (points)", "null cycles/kread", "cycles/kread", "baseline same",
               "A/A agrees", "receiver irqs/run", "receiver irqs/s"]
    out = [[c["bench"], params_words(c["params"]), str(c["cpus"]), c["design"],
            str(c["episodes"] or "-"), format_number(c["loss_pct"]),
            f"{format_number(c['loss_pct_ci'][0])}..{format_number(c['loss_pct_ci'][1])}",
            _vs_text(c), _num(c["null_cycles_per_kread"]), _num(c["cycles_per_kread"]),
            _flag(c["baseline_same"]), _flag(c["aa_agrees"]),
            _num(c["receiver_irqs_per_run"]), _num(c["receiver_irqs_per_sec"])]
           for c in rows]
    return headers, out, "lllllrrrrrllrr"


def _num(v):
    return "-" if v is None else format_number(v)


def _vs_text(c):
    if c["vs_null"] is None:
        return "-"
    ci = c["vs_null_ci"]
    return format_number(c["vs_null"]) + (
        f" ({format_number(ci[0])}..{format_number(ci[1])})" if ci else "")


LEGEND = [
    "readers' loss per episode: reclaim: how much longer the readers took in the timed pass "
    "than in the null pass of the same episode",
    "(the range read resident, no reclaim); tlb (busy remotes): how many fewer reads in the "
    "episode's timed window than in its baseline;",
    "median over the counted episodes, interval the kernel's order statistics; vs null (tlb): "
    "the median over rounds of the design's loss",
    "less the null's of the same round, in percentage points, with a 95% bootstrap interval;",
    "baseline same: the null pass (reclaim) or the baseline window (tlb) ran at the first "
    "result's rate; A/A agrees: the aa row's loss agrees with the reference's;",
    "receiver irqs: interrupts the reading CPUs took, counted on them, per run and per second "
    "of the run.",
]


def render_reader_loss_text(rows):
    """table.txt's section of the readers' loss, or []."""
    if not rows:
        return []
    return ["", "Readers' loss per episode"] + LEGEND + render_table(*reader_loss_table(rows))


def render_reader_loss_html(rows, html_table, esc):
    """The results page's section (html_table, esc: mmlab.html's)."""
    if not rows:
        return []
    return ["\n".join(["<div id=\"reader-loss\" class=\"bench\"><h2>Readers' loss per "
                       "episode</h2>", f"<p>{esc(' '.join(LEGEND))}</p>",
                       html_table(*reader_loss_table(rows)), "</div>"])]
