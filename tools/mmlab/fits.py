"""The unmap cost per page taken apart: a per-call and a per-page part, and the remote part.

A `tlb` result is an unmap's cost per page (`cycles_per_page`): clearing
the entries, gathering and freeing the frames, and the shootdown. Two
figures take it apart:

- fits: for every design, CPU count and parameter set less `pages`, the
  per-call cost C(P) = a + b P fitted over the pages sweep. a is the
  per-call part (cycles per call: the round's fixed cost, the IPI and its
  acknowledgement), b the per-page part (cycles per page). The fit is
  weighted least squares with weights 1/P^2 to the median of each page
  count, which is ordinary least squares of the median cost per page on
  1/P (cost/P = b + a/P): every page count's relative noise counts alike,
  where a plain fit of C(P) would let the largest P's absolute noise
  decide a. The 95% intervals of a and b are a percentile bootstrap:
  the runs of each page count resampled on their own (the page counts
  are separate cases), medians taken, the line refitted.
- components: at each page count, the remote part of the unmap cost per
  page, Delta = cost(N CPUs) - cost(1 CPU) for the same design, with a
  95% percentile-bootstrap interval of that difference of medians (the
  two CPU counts are separate cases: each resampled on its own). At 1
  CPU no IPI is sent, so Delta is what the other CPUs add: the shootdown
  and what it costs the initiator to wait for it.

A peer system's results (a "system", e.g. Linux from ./run.sh --peer
linux) are fitted and taken apart the same way, each system on its own,
so mmlab's and Linux's per-page slope and shootdown component stand side
by side. Linux's are measured from user space around madvise: they hold
the system call's entry and exit, which mmlab's unmap call does not.
Seeds come from what is fitted or compared (mmlab.stats.comparison_seed),
so the same log gives the same figures. Records without samples give the
estimates without intervals.
"""
from __future__ import annotations

import json

import numpy as np

from .format import format_number, render_table
from .records import per_records
from .stats import BOOTSTRAP_REPS, CI_MIN_N, comparison_seed, percentile_ci, resampled_medians

MMLAB = "mmlab"  # mmlab.peer.MMLAB: a record without "system"
SWEPT = "pages"
METRIC = "cycles_per_page"
MIN_POINTS = 3   # page counts a fit needs
BASE_CPUS = 1
FIGURE = "unmap cost per page"


def _cases(records):
    """{(system, bench, design, cpus, params less pages as JSON): {pages: record}}."""
    out = {}
    for r in records:
        if r.metric != METRIC or not _whole(r.params.get(SWEPT)):
            continue
        rest = json.dumps({k: v for k, v in r.params.items() if k != SWEPT}, sort_keys=True)
        key = (r.extra.get("system") or MMLAB, r.bench, r.variant, r.cpus, rest)
        out.setdefault(key, {})[r.params[SWEPT]] = r
    return out


def _whole(value):
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def fit_line(points):
    """(a, b) of cost = a + b P by weighted least squares (weights 1/P^2) to (P, cost per page).

    points: (P, cost per page) pairs, at least two distinct P. Equivalent to
    ordinary least squares of cost per page on x = 1/P: slope a, intercept b.
    """
    a, b = _fit(np.array([p for p, _ in points], float), np.array([c for _, c in points], float))
    return float(a), float(b)


def _fit(pages, costs):
    """(a, b) arrays of the fits of costs (the last axis: one per page count) on 1/pages."""
    x = 1.0 / pages
    dx = x - x.mean()
    sxx = float(dx @ dx)
    if sxx == 0:
        raise ValueError("a fit needs two distinct page counts")
    a = (costs - costs.mean(axis=-1, keepdims=True)) @ dx / sxx
    return a, costs.mean(axis=-1) - a * x.mean()


def fit_case(by_pages, seed, reps=BOOTSTRAP_REPS):
    """(a, b, a_ci or None, b_ci or None) of one design's pages sweep ({P: record})."""
    pages = sorted(by_pages)
    a, b = fit_line([(p, by_pages[p].median) for p in pages])
    samples = [by_pages[p].samples for p in pages]
    if not all(s and len(s) >= CI_MIN_N for s in samples):
        return a, b, None, None
    rng = np.random.default_rng(seed)
    costs = np.stack([resampled_medians(rng, s, reps) for s in samples], axis=1)
    a_draws, b_draws = _fit(np.array(pages, float), costs)
    return a, b, list(percentile_ci(a_draws)), list(percentile_ci(b_draws))


@per_records
def fit_results(records):
    """Every fit of records, as results.json's `fits` objects (see the module doc)."""
    out = []
    for (system, bench, design, cpus, rest), by_pages in _cases(records).items():
        if len(by_pages) < MIN_POINTS:
            continue
        seed = comparison_seed(system, bench, rest, cpus, design, "fit")
        a, b, a_ci, b_ci = fit_case(by_pages, seed)
        out.append({"system": system, "bench": bench, "design": design, "cpus": cpus,
                    "params": json.loads(rest), "a": a, "a_ci": a_ci, "b": b, "b_ci": b_ci,
                    "n_points": len(by_pages),
                    "n_runs": sum(len(r.samples or []) or r.runs for r in by_pages.values()),
                    "unit": "cycles", "a_is": "per call", "b_is": "per page",
                    "ci": "bootstrap" if a_ci else None})
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
    """Every remote component Delta of records, as results.json's `components` objects."""
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


def _params_words(params):
    return " ".join(f"{k}={params[k]}" for k in sorted(params)) or "-"


def _ci_text(ci):
    return "-" if ci is None else f"{format_number(ci[0])}..{format_number(ci[1])}"


def fits_table(fits):
    """(headers, rows, align) of the fits."""
    headers = ["system", "bench", "params", "design", "cpus", "a (cycles/call)", "95% CI",
               "b (cycles/page)", "95% CI", "points"]
    rows = [[f["system"], f["bench"], _params_words(f["params"]), f["design"], str(f["cpus"]),
             format_number(f["a"]), _ci_text(f["a_ci"]), format_number(f["b"]),
             _ci_text(f["b_ci"]), str(f["n_points"])] for f in fits]
    return headers, rows, "llllrrrrrr"


def components_table(components):
    """(headers, rows, align) of the remote components."""
    headers = ["system", "bench", "params", "design", "pages", "cpus", "delta (cycles/page)",
               "95% CI", "significant"]
    rows = [[c["system"], c["bench"], _params_words(c["params"]), c["design"], str(c["pages"]),
             f"{c['cpus']} - {c['base_cpus']}", format_number(c["delta"]),
             _ci_text(c["delta_ci"]), _significant(c["delta_ci"])] for c in components]
    return headers, rows, "llllrrrrl"


def _significant(ci):
    if ci is None:
        return "?"
    return "yes" if ci[0] > 0 or ci[1] < 0 else "~0"


FITS_LEGEND = [
    f"{FIGURE}, taken apart: cost per call C(P) = a + b P fitted over the pages sweep "
    "(weighted least squares, weights 1/P^2, to each",
    "page count's median); a: per-call part, b: per-page part; 95% CI: bootstrap of the runs "
    "within each page count.",
]
COMPONENTS_LEGEND = [
    "shootdown component: delta = the unmap cost per page at N CPUs less at 1 CPU (no IPI "
    "there), same design and pages;",
    "95% CI: bootstrap of the difference of medians; significant: the interval excludes 0 "
    "('~0' it does not, '?' too few runs).",
]


def render_fits_text(fits, components):
    """table.txt's section of the fits and the remote components, or [] when there is none."""
    lines = []
    if fits:
        lines += ["", f"Fits of the {FIGURE}"] + FITS_LEGEND + render_table(*fits_table(fits))
    if components:
        lines += ["", "Shootdown component of the unmap cost per page"] + COMPONENTS_LEGEND
        lines += render_table(*components_table(components))
    return lines


def render_fits_html(fits, components, html_table, esc):
    """The results page's section of the fits and components (html_table, esc: mmlab.html's)."""
    if not fits and not components:
        return []
    parts = [f"<div id=\"fits\" class=\"bench\"><h2>{esc(FIGURE.capitalize())}, "
             "taken apart</h2>"]
    if fits:
        parts += [f"<p>{esc(' '.join(FITS_LEGEND))}</p>", html_table(*fits_table(fits))]
    if components:
        parts += ["<h3>Shootdown component</h3>", f"<p>{esc(' '.join(COMPONENTS_LEGEND))}</p>",
                  html_table(*components_table(components))]
    return ["\n".join(parts + ["</div>"])]
