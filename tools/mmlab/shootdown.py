"""The shootdown component of the unmap cost: each design's Delta less the null's.

Delta = cost(N CPUs) - cost(1 CPU) (mmlab.fits) holds whatever the
remotes' presence costs the initiator, a shootdown or not. The tlb bench
runs a null variant in the same rounds ("null": the reference design with
the remotes in another address space, the same readers and prologue, so
no shootdown can happen); the shootdown component of design d is

    S = (d_N - d_1) - (null_N - null_1)

per page, at each page count and parameter set. How its uncertainty is
given depends on the records:
- exact mode (instructions): S is exact; its spread is the A/A's, the
  same estimand of the reference's second run (aa) against the reference,
  |Delta_aa - Delta_ref|, and never less than EXACT_TOLERANCE of the two
  figures d_N and d_1 (what the harness calls agreeing runs); S is 0
  when |S| is within that spread;
- time mode, d and null run in the same rounds at each CPU count: the
  per-round differences d - null are taken at N and at 1 CPU, S is the
  median of those at N less the median of those at 1, and its 95%
  interval a percentile bootstrap, each CPU count's rounds resampled on
  their own (separate cases); S is 0 when the interval holds 0;
- else: the four medians, each bootstrapped on its own.
A row marked "deferred" is a design whose flush completes later: at N
CPUs it releases its frames after the timed call, at 1 CPU within it. Its
release (the BENCH line's "deferred_cost": the settle after the call, less
the wait for the targets' ticks) is added to its cost at each CPU count, so
the work it moved out of the call is counted where it happens; in time mode
as the mean per page of the settles (a shift of S, not resampled).
A row marked "silent" is the silent control (tlb's no-remote): it sends
the remotes nothing, so its S must be 0, the check that the null leaves
nothing of the setting in S. Each design's S against the silent control
instead of the null ("vs_silent") is given beside it: the null, naive's
code, makes a call per page; in time mode a setting's cost per call
(under TCG, measured here) would be subtracted once per page from designs
that make one call per gather, and the two references then part.
"""
from __future__ import annotations

import numpy as np

from .fits import BASE_CPUS, _cases, ci_text, params_words
from .format import format_number, render_table
from .records import NAIVE, per_records
from .rounds import AA, is_exact, paired_rounds
from .stats import (BOOTSTRAP_REPS, CI_MIN_N, EXACT_TOLERANCE, comparison_seed,
                    percentile_ci, resampled_medians)

NULL = "null"   # bench/bench_tlb.c TLB_BENCH_NULL_NAME
EXACT, PAIRED, INDEPENDENT = "exact", "paired", "independent"


def _enough(*samples):
    return all(s and len(s) >= CI_MIN_N for s in samples)


def paired_component(d_n, null_n, d_1, null_1, seed, reps=BOOTSTRAP_REPS):
    """(S, 95% interval or None) from per-round differences (lists of equal length pairs)."""
    x = np.asarray(d_n, float) - np.asarray(null_n, float)
    y = np.asarray(d_1, float) - np.asarray(null_1, float)
    s = float(np.median(x) - np.median(y))
    if len(x) < CI_MIN_N or len(y) < CI_MIN_N:
        return s, None
    rng = np.random.default_rng(seed)
    return s, list(percentile_ci(resampled_medians(rng, x, reps) - resampled_medians(rng, y, reps)))


def independent_component(d_n, null_n, d_1, null_1, seed, reps=BOOTSTRAP_REPS):
    """(S, 95% interval or None) from four medians, each side resampled on its own."""
    s = float((np.median(d_n) - np.median(d_1)) - (np.median(null_n) - np.median(null_1)))
    if not _enough(d_n, null_n, d_1, null_1):
        return s, None
    rng = np.random.default_rng(seed)
    dn, nn, d1, n1 = (resampled_medians(rng, v, reps) for v in (d_n, null_n, d_1, null_1))
    return s, list(percentile_ci((dn - d1) - (nn - n1)))


def exact_spread_of(d_n, d_1, aa_delta, ref_delta):
    """The A/A spread an exact S is judged against (see the module doc)."""
    aa = abs(aa_delta - ref_delta) if aa_delta is not None and ref_delta is not None else 0.0
    return max(aa, EXACT_TOLERANCE * (abs(d_n) + abs(d_1)))


def _delta(by_cpus, design, pages, cpus):
    n, one = by_cpus.get((design, cpus), {}), by_cpus.get((design, BASE_CPUS), {})
    if pages not in n or pages not in one:
        return None
    return n[pages].median - one[pages].median


def _release(rec):
    """A deferred design's release per page after its timed call ("deferred_cost"), or 0."""
    cost = rec.extra.get("deferred_cost")
    return float(cost) if isinstance(cost, (int, float)) else 0.0


def _paired_against(by_cpus, design, ref, cpus, pages, seed, release):
    """(S, 95% interval or None, method) of design against reference variant ref in time
    mode (each CPU count's rounds paired when they can be), or None (a record missing)."""
    recs = [by_cpus.get((v, c), {}).get(pages) for v in (design, ref) for c in (cpus, BASE_CPUS)]
    if None in recs:
        return None
    d_n, d_1, r_n, r_1 = recs
    paired = paired_rounds(d_n, r_n) and paired_rounds(d_1, r_1)
    fn = paired_component if paired else independent_component
    s, ci = fn(d_n.samples or [d_n.median], r_n.samples or [r_n.median],
               d_1.samples or [d_1.median], r_1.samples or [r_1.median], seed)
    ci = None if ci is None else [ci[0] + release, ci[1] + release]
    return s + release, ci, PAIRED if paired else INDEPENDENT


def _silent_of(by_cpus):
    """The silent control's variant name among by_cpus' records, or None."""
    for (variant, _), by_pages in by_cpus.items():
        if any(r.is_silent for r in by_pages.values()):
            return variant
    return None


def _component(by_cpus, design, cpus, pages, seed):
    """One row: design at cpus against the null (and against the silent control, where
    the run has one), or None (a record missing)."""
    recs = [by_cpus.get((v, c), {}).get(pages) for v in (design, NULL) for c in (cpus, BASE_CPUS)]
    if None in recs:
        return None
    d_n, d_1, null_n, null_1 = recs
    deferred = d_n.extra.get("deferred") is True
    release = _release(d_n) - _release(d_1) if deferred else 0.0
    silent = _silent_of(by_cpus)
    row = {"delta": d_n.median - d_1.median, "delta_null": null_n.median - null_1.median,
           "deferred": deferred, "release": release if deferred else None,
           "silent": d_n.is_silent, "unit": d_n.unit + "/page",
           "vs_silent": None, "vs_silent_ci": None}
    if is_exact(d_n):
        row["shootdown"] = row["delta"] + release - row["delta_null"]
        spread = exact_spread_of(d_n.median, d_1.median, _delta(by_cpus, AA, pages, cpus),
                                 _delta(by_cpus, NAIVE, pages, cpus))
        row.update(method=EXACT, shootdown_ci=None, aa_spread=spread,
                   zero=abs(row["shootdown"]) <= spread)
        silent_delta = _delta(by_cpus, silent, pages, cpus) if silent else None
        if silent_delta is not None and not d_n.is_silent:
            row["vs_silent"] = row["delta"] + release - silent_delta
        return row
    s, ci, method = _paired_against(by_cpus, design, NULL, cpus, pages, seed, release)
    row.update(method=method, shootdown=s, shootdown_ci=ci,
               aa_spread=None, zero=None if ci is None else ci[0] <= 0 <= ci[1])
    alt = (_paired_against(by_cpus, design, silent, cpus, pages, seed, release)
           if silent and not d_n.is_silent else None)
    if alt is not None:
        row["vs_silent"], row["vs_silent_ci"] = alt[0], alt[1]
    return row


@per_records
def shootdown_results(records):
    """Every shootdown component of records, as results.json's `shootdown` objects."""
    groups = {}
    for (system, bench, design, cpus, rest), by_pages in _cases(records).items():
        groups.setdefault((system, bench, rest), {})[(design, cpus)] = by_pages
    out = []
    for (system, bench, rest), by_cpus in groups.items():
        for (design, cpus), by_pages in by_cpus.items():
            if design == NULL or cpus == BASE_CPUS:
                continue
            for pages in sorted(by_pages):
                seed = comparison_seed(system, bench, rest, cpus, design, pages, "shootdown")
                row = _component(by_cpus, design, cpus, pages, seed)
                if row is None:
                    continue
                row.update(system=system, bench=bench, design=design, cpus=cpus,
                           base_cpus=BASE_CPUS, pages=pages,
                           params={k: v for k, v in by_pages[pages].params.items()
                                   if k != "pages"})
                out.append(row)
    return out


def _spread_text(c):
    if c["method"] == EXACT:
        return "+-" + format_number(c["aa_spread"])
    return ci_text(c["shootdown_ci"])


def _zero_text(c):
    return "?" if c["zero"] is None else "~0" if c["zero"] else "yes"


def _note(c):
    if c["deferred"]:
        return ("deferred: release after the call counted, "
                f"{format_number(c['release'])} more at N CPUs than at 1")
    return "silent control: sends the remotes nothing, must be 0" if c["silent"] else ""


def shootdown_table(rows):
    """(headers, rows, align) of the shootdown components."""
    headers = ["bench", "params", "design", "pages", "cpus", "delta", "delta null",
               "shootdown", "95% CI / A/A spread", "non-zero", "vs silent", "note"]
    out = [[c["bench"], params_words(c["params"]), c["design"], str(c["pages"]),
            f"{c['cpus']} - {c['base_cpus']}", format_number(c["delta"]),
            format_number(c["delta_null"]), format_number(c["shootdown"]), _spread_text(c),
            _zero_text(c), _vs_silent_text(c), _note(c)] for c in rows]
    return headers, out, "lllrrrrrrlrl"


def _vs_silent_text(c):
    if c.get("vs_silent") is None:
        return "-"
    ci = c.get("vs_silent_ci")
    return format_number(c["vs_silent"]) + (f" ({ci_text(ci)})" if ci else "")


LEGEND = [
    "shootdown component, per page: (design at N CPUs - at 1) - (null at N - at 1); null: "
    "the reference design with the remotes",
    "in another address space (same readers and prologue, no remote target), in the same "
    "rounds; time mode: per-round differences",
    "design - null at each CPU count, 95% bootstrap interval; exact mode: exact, judged "
    "against the A/A's spread (aa against naive). A deferred design's release after the "
    "call is counted at each CPU count. vs silent: the same with the silent control (no-remote, "
    "which sends the remotes nothing) as the reference; exact mode: equal to the above when "
    "the null holds.",
]


def render_shootdown_text(rows):
    """table.txt's section of the shootdown components, or []."""
    if not rows:
        return []
    return ["", "Shootdown component of the unmap cost per page"] + LEGEND + render_table(
        *shootdown_table(rows))


def render_shootdown_html(rows, html_table, esc):
    """The results page's section (html_table, esc: mmlab.html's)."""
    if not rows:
        return []
    return ["\n".join(["<div id=\"shootdown\" class=\"bench\"><h2>Shootdown component</h2>",
                       f"<p>{esc(' '.join(LEGEND))}</p>", html_table(*shootdown_table(rows)),
                       "</div>"])]
