"""mmlab beside Linux on one estimand: the in-kernel unmap per call at N CPUs less at 1 CPU.

Per boot: mmlab's timed unmap (median per page times the pages one call
drops) and Linux's traced zap_page_range_single and flush_tlb_mm_range per
call (traced at N and at 1: the tracer's cost and the local flush cancel).
Each boot's difference is one observation; a ratio whose interval (from
the two means' t intervals) is wider than the ratio is not given.
"""
from __future__ import annotations

import statistics

from .peer import MMLAB, record_system, t975
from .format import format_number, render_table

BENCH = "tlb"
METRICS = ("cycles_per_page", "instructions_per_page")
ZAP = "kernel_zap_page_range_single_cycles_per_call"
FLUSH = "kernel_flush_tlb_mm_range_cycles_per_call"
TOO_WIDE = "no ratio: interval too wide"
TOO_FEW = "no ratio: fewer than 2 boots a side"


def _per_call(rec):
    pages = rec.params.get("pages")
    return rec.median * (1 if rec.variant == "naive" else pages)


def _key(rec):
    return (rec.variant, rec.params.get("pages"), rec.params.get("remote"))


def boot_deltas(records, figure):
    """{(design, pages, remote, cpus): N less 1 CPU} of one boot; figure(rec) or None."""
    at = {}
    for r in records:
        if r.bench != BENCH or r.metric not in METRICS or not isinstance(r.params.get("pages"), int):
            continue
        value = figure(r)
        if value is not None:
            at[_key(r) + (r.cpus,)] = value
    return {k: v - at[k[:3] + (1,)] for k, v in at.items() if k[3] > 1 and k[:3] + (1,) in at}


def mmlab_figure(rec):
    return _per_call(rec) if record_system(rec) == MMLAB else None


def linux_figure(name):
    def figure(rec):
        value = rec.extra.get(name)
        return value if record_system(rec) != MMLAB and isinstance(value, (int, float)) else None
    return figure


def mean_ci(values):
    """(mean, its 95% t interval or None with one value)."""
    mean = statistics.fmean(values)
    if len(values) < 2:
        return mean, None
    half = t975(len(values) - 1) * statistics.stdev(values) / len(values) ** 0.5
    return mean, (mean - half, mean + half)


def ratio_ci(mine, peer):
    """(mean(mine)/mean(peer) or None, its 95% interval, or why none).

    The interval is the quotient's extremes over the two means' t intervals:
    conservative, and none when Linux's interval reaches 0 (a bootstrap of
    two boots a side, tried first, gave a narrow ratio where a mean's own
    interval spanned zero).
    """
    denom = statistics.fmean(peer)
    if denom == 0:
        return None, "no ratio: Linux's difference is 0"
    ratio = statistics.fmean(mine) / denom
    if len(mine) < 2 or len(peer) < 2:
        return ratio, TOO_FEW
    (_, (mlo, mhi)), (_, (plo, phi)) = mean_ci(mine), mean_ci(peer)
    if plo <= 0 <= phi:
        return ratio, TOO_WIDE
    ends = [a / b for a in (mlo, mhi) for b in (plo, phi)]
    lo, hi = min(ends), max(ends)
    if hi - lo > abs(ratio):
        return ratio, TOO_WIDE
    return ratio, (lo, hi)


def like_for_like(mmlab_boots, peer_boots):
    """The like-for-like rows of results.json's `like_for_like`, one per (design, pages, remote, N)."""
    mine = [boot_deltas(b, mmlab_figure) for b in mmlab_boots]
    zap = [boot_deltas(b, linux_figure(ZAP)) for b in peer_boots]
    flush = [boot_deltas(b, linux_figure(FLUSH)) for b in peer_boots]
    keys = [k for k in dict.fromkeys(k for b in mine for k in b) if any(k in b for b in zap)]
    out = []
    for key in keys:
        m = [b[key] for b in mine if key in b]
        z = [b[key] for b in zap if key in b]
        f = [b[key] for b in flush if key in b]
        ratio, ci = ratio_ci(m, z)
        design, pages, remote, cpus = key
        out.append({"design": design, "pages": pages, "remote": remote, "cpus": cpus,
                    "mmlab_per_boot": m, "mmlab": mean_ci(m),
                    "linux_unmap_per_boot": z, "linux_unmap": mean_ci(z),
                    "linux_flush_per_boot": f, "linux_flush": mean_ci(f) if f else None,
                    "ratio": ratio, "ratio_ci": ci if isinstance(ci, tuple) else None,
                    "no_ratio": ci if isinstance(ci, str) else None, "unit": "boot"})
    return out


def _mean_text(pair):
    if pair is None:
        return "-"
    mean, ci = pair
    return format_number(mean) + ("" if ci is None else
                                  f" ({format_number(ci[0])}..{format_number(ci[1])})")


def render_like_for_like(rows):
    """table.txt lines of the like-for-like rows, or [] when there is none."""
    if not rows:
        return []
    body = [[r["design"], str(r["pages"]), str(r["cpus"]),
             f"{len(r['mmlab_per_boot'])} / {len(r['linux_unmap_per_boot'])}",
             _mean_text(r["mmlab"]), _mean_text(r["linux_unmap"]), _mean_text(r["linux_flush"]),
             r["no_ratio"] or f"{r['ratio']:.3f} ({r['ratio_ci'][0]:.3f}..{r['ratio_ci'][1]:.3f})"]
            for r in rows]
    return (["", "Like for like: the in-kernel unmap per call at N CPUs less at 1 CPU, each boot "
             "one observation (mean, 95% t interval over boots;", "the ratio's interval the "
             "quotient's extremes over both): mmlab's unmap, Linux's zap_page_range_single (traced at both "
             "N and 1: the tracer's cost cancels),", "Linux's flush_tlb_mm_range (its flush, "
             "local and remote, the local part cancelled the same way)"]
            + render_table(["design", "pages", "cpus", "boots", "mmlab unmap N-1",
                            "Linux unmap N-1", "Linux flush N-1", "mmlab/Linux unmap"],
                           body, "lrrrrrrr"))


__all__ = ["like_for_like", "render_like_for_like", "boot_deltas", "ratio_ci", "mean_ci",
           "TOO_WIDE", "TOO_FEW"]
