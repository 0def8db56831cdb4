"""The unmap cost per page taken apart: a fit per regime, and the remote part.

A `tlb` result is an unmap's cost per page (`cycles_per_page`, or
`instructions_per_page` in exact mode). The cost per call C(P) = P x that
changes regime where the flush does (page by page up to the flush ceiling,
one full flush above it, a second round past the gather bound), so no one
line a + b P holds across the sweep. Two fits instead, each an unweighted
least-squares line C(P) = a + b P within one regime:

- small: the page counts at or below the ceiling (the records'
  "flush_ceiling"): its a is the per-call cost (the round's fixed cost,
  the IPI and its acknowledgement), its b the per-page cost there;
- large: the page counts from LARGE_MIN up to the gather bound (the
  records' "batch_pages"; past it a second round starts): its b is the
  per-page cost of the full-flush regime (its a is no per-call cost).

Each page count's interval is the 95% bootstrap interval of its median
cost per call (exact mode: EXACT_TOLERANCE of it, or its runs' spread);
a fit whose residual at some page count lies outside that count's
interval does not describe the regime and is refused, with why, never
reported; so is a negative per-call cost. With two page counts the line
passes through both: the residuals test nothing, and the fit says so.
The 95% intervals of a and b are a percentile bootstrap: the runs of each
page count resampled on their own (separate cases), medians taken, the
line refitted.

components: at each page count, Delta = cost(N CPUs) - cost(1 CPU) for
the same design, with a bootstrap interval of that difference of medians.
Delta is not the shootdown (it holds what the remotes' presence costs the
initiator whatever is flushed): mmlab.shootdown subtracts the null's.
A peer system's results (a "system") are fitted the same way on their own.
Seeds come from what is fitted (mmlab.stats.comparison_seed).
"""
from __future__ import annotations

import json

import numpy as np

from .format import format_number, render_table
from .records import per_records
from .stats import (BOOTSTRAP_REPS, CI_MIN_N, EXACT_TOLERANCE, comparison_seed,
                    percentile_ci, resampled_medians)

MMLAB = "mmlab"  # mmlab.peer.MMLAB: a record without "system"
SWEPT = "pages"
METRIC = "cycles_per_page"
METRICS = (METRIC, "instructions_per_page")
BASE_CPUS = 1
FIGURE = "unmap cost per page"
CEILING = 33      # mm/tlb.h's default flush ceiling, for records that do not say theirs
LARGE_MIN = 64    # the large regime's first page count: well past the ceiling
GATHER = 8192     # mm/pt.h's PT_GATHER_PAGES, for records without "batch_pages"
MIN_POINTS = 2    # page counts a fit needs
SMALL, LARGE = "small", "large"
ROUNDING = 1e-9   # a residual this share of its point is the arithmetic's, not the line's


def _cases(records):
    """{(system, bench, design, cpus, params less pages as JSON): {pages: record}}."""
    out = {}
    for r in records:
        if r.metric not in METRICS or not _whole(r.params.get(SWEPT)):
            continue
        rest = json.dumps({k: v for k, v in r.params.items() if k != SWEPT}, sort_keys=True)
        key = (r.extra.get("system") or MMLAB, r.bench, r.variant, r.cpus, rest)
        out.setdefault(key, {})[r.params[SWEPT]] = r
    return out


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def fit_line(points):
    """(a, b) of the unweighted least-squares line C = a + b P through (P, C) points.

    At least two distinct P, else ValueError.
    """
    a, b = _fit(np.array([p for p, _ in points], float), np.array([c for _, c in points], float))
    return float(a), float(b)


def _fit(pages, costs):
    """(a, b) arrays of the fits of costs per call (the last axis: one per page count)."""
    dx = pages - pages.mean()
    sxx = float(dx @ dx)
    if sxx == 0:
        raise ValueError("a fit needs two distinct page counts")
    b = (costs - costs.mean(axis=-1, keepdims=True)) @ dx / sxx
    return costs.mean(axis=-1) - b * pages.mean(), b


def _said(by_pages, key, default):
    """What the records say of key (a whole number), else default."""
    return next((r.extra[key] for r in by_pages.values() if _whole(r.extra.get(key))), default)


def regime_pages(by_pages, regime):
    """The page counts of by_pages ({P: record}) in regime SMALL or LARGE, ascending."""
    if regime == SMALL:
        ceiling = _said(by_pages, "flush_ceiling", CEILING)
        return [p for p in sorted(by_pages) if p <= ceiling]
    bound = _said(by_pages, "batch_pages", GATHER)
    return [p for p in sorted(by_pages) if LARGE_MIN <= p <= bound]


def _point_bounds(rec, pages, draws):
    """(low, high) of page count pages's cost per call: bootstrap, else exact tolerance."""
    c = rec.median * pages
    if draws is not None:  # a percentile interval may leave out a skewed median itself
        lo, hi = percentile_ci(draws)
        return min(lo, c), max(hi, c)
    spread = (max(rec.samples) - min(rec.samples)) * pages if rec.samples else 0.0
    tol = max(abs(c) * EXACT_TOLERANCE, spread)
    return c - tol, c + tol


def _refusal(fit, regime):
    """Why a fit is not reported, or None. Two points leave no residual to test."""
    out = [f"residual at P={p} {format_number(r)} outside its interval"
           for p, r, (lo, hi), c in zip(fit["pages"], fit["residuals"], fit["bounds"],
                                        fit["costs"])
           if fit["checked"] and not lo - c - ROUNDING * abs(c) <= r <= hi - c + ROUNDING * abs(c)]
    if regime == SMALL and fit["a"] < 0:
        out.append(f"per-call cost {format_number(fit['a'])} below 0")
    return "; ".join(out) or None


def fit_regime(by_pages, regime, seed, reps=BOOTSTRAP_REPS):
    """One regime's fit of a design's sweep ({P: record}) as a dict, or None (too few points)."""
    pages = regime_pages(by_pages, regime)
    if len(pages) < MIN_POINTS:
        return None
    recs = [by_pages[p] for p in pages]
    costs = [r.median * p for r, p in zip(recs, pages)]
    a, b = fit_line(list(zip(pages, costs)))
    draws = a_ci = b_ci = None
    if all(r.samples and len(r.samples) >= CI_MIN_N for r in recs):
        rng = np.random.default_rng(seed)
        draws = np.stack([resampled_medians(rng, r.samples, reps) * p
                          for r, p in zip(recs, pages)], axis=1)
        a_draws, b_draws = _fit(np.array(pages, float), draws)
        a_ci, b_ci = list(percentile_ci(a_draws)), list(percentile_ci(b_draws))
    bounds = [list(_point_bounds(r, p, None if draws is None else draws[:, k]))
              for k, (r, p) in enumerate(zip(recs, pages))]
    fit = {"regime": regime, "pages": pages, "costs": costs, "a": a, "a_ci": a_ci,
           "b": b, "b_ci": b_ci, "bounds": bounds,
           "residuals": [c - (a + b * p) for p, c in zip(pages, costs)],
           "checked": len(pages) > 2}
    fit["refused"] = _refusal(fit, regime)
    return fit


@per_records
def fit_results(records):
    """Every regime fit of records, as results.json's `fits` objects (see the module doc)."""
    out = []
    for (system, bench, design, cpus, rest), by_pages in _cases(records).items():
        for regime in (SMALL, LARGE):
            seed = comparison_seed(system, bench, rest, cpus, design, "fit", regime)
            fit = fit_regime(by_pages, regime, seed)
            if fit is None:
                continue
            unit = next(iter(by_pages.values())).unit
            fit.update({"system": system, "bench": bench, "design": design, "cpus": cpus,
                        "params": json.loads(rest), "unit": unit,
                        "per_call": fit["a"] if regime == SMALL else None,
                        "per_page": fit["b"],
                        "ci": "bootstrap" if fit["a_ci"] else None})
            out.append(fit)
    return out


def delta_ci(base, other, seed, reps=BOOTSTRAP_REPS):
    """95% bootstrap interval of median(other) - median(base), or None (too few runs)."""
    if not base or not other or len(base) < CI_MIN_N or len(other) < CI_MIN_N:
        return None
    rng = np.random.default_rng(seed)
    other_draws = resampled_medians(rng, other, reps)
    return list(percentile_ci(other_draws - resampled_medians(rng, base, reps)))


@per_records
def component_results(records):
    """Every Delta = cost(N CPUs) - cost(1 CPU) of records, as results.json's `components`."""
    cases = _cases(records)
    out = []
    for (system, bench, design, cpus, rest), by_pages in cases.items():
        base = cases.get((system, bench, design, BASE_CPUS, rest))
        if cpus == BASE_CPUS or base is None:
            continue
        for pages in sorted(p for p in by_pages if p in base):
            mine, one = by_pages[pages], base[pages]
            seed = comparison_seed(system, bench, rest, cpus, design, pages, "delta")
            out.append({"system": system, "bench": bench, "design": design,
                        "params": json.loads(rest),
                        "pages": pages, "cpus": cpus, "delta": mine.median - one.median,
                        "delta_ci": delta_ci(one.samples, mine.samples, seed),
                        "base_cpus": BASE_CPUS, "unit": mine.unit + "/page"})
    return out


def params_words(params):
    """'remote=busy', or '-' for no parameter."""
    return " ".join(f"{k}={params[k]}" for k in sorted(params)) or "-"


def ci_text(ci):
    """'low..high', or '-' for no interval."""
    return "-" if ci is None else f"{format_number(ci[0])}..{format_number(ci[1])}"


def _residuals_text(f):
    words = [f"{p}:{format_number(r)}" for p, r in zip(f["pages"], f["residuals"])]
    return " ".join(words) + ("" if f["checked"] else " (2 points: nothing tested)")


def fits_table(fits):
    """(headers, rows, align) of the fits: a refused one shows why, never its figures."""
    headers = ["system", "bench", "params", "design", "cpus", "regime", "pages",
               "per call", "95% CI", "per page", "95% CI", "residuals (per call)"]
    rows = []
    for f in fits:
        head = [f["system"], f["bench"], params_words(f["params"]), f["design"],
                str(f["cpus"]), f["regime"], ",".join(map(str, f["pages"]))]
        if f["refused"]:
            figures = ["refused", "-", "-", "-", f"{_residuals_text(f)}: {f['refused']}"]
        else:
            call = f["per_call"] is not None
            figures = [format_number(f["per_call"]) if call else "-",
                       ci_text(f["a_ci"]) if call else "-",
                       format_number(f["per_page"]), ci_text(f["b_ci"]), _residuals_text(f)]
        rows.append(head + figures)
    return headers, rows, "lllllllrrrrl"


FITS_LEGEND = [
    f"{FIGURE}, taken apart per regime: cost per call C(P) = a + b P, unweighted least "
    "squares within one regime;",
    "small: P at or below the flush ceiling, a the per-call cost; large: P at or above "
    f"{LARGE_MIN} up to the gather bound, b its per-page cost;",
    "95% CI: bootstrap of the runs within each page count; residuals: each page count's "
    "median cost per call less the line;",
    "refused: a residual outside its page count's interval, or a negative per-call cost.",
]


def render_fits_text(fits):
    """table.txt's section of the regime fits, or [] when there is none."""
    if not fits:
        return []
    return ["", f"Fits of the {FIGURE} per regime"] + FITS_LEGEND + render_table(*fits_table(fits))


def render_fits_html(fits, html_table, esc):
    """The results page's section of the regime fits (html_table, esc: mmlab.html's)."""
    if not fits:
        return []
    return ["\n".join([f"<div id=\"fits\" class=\"bench\"><h2>{esc(FIGURE.capitalize())}, "
                       "taken apart per regime</h2>", f"<p>{esc(' '.join(FITS_LEGEND))}</p>",
                       html_table(*fits_table(fits)), "</div>"])]
