"""Statistics helpers shared by mmlab's host tools, through numpy and scipy.

Plain functions over numbers: median, mean, sample standard deviation,
relative spread, the A/B ratio and percent change that respect a metric's
direction ("lower" or "higher" is better), the median's confidence
interval, the paired estimand of two designs run in the same rounds, a
vectorised bootstrap for unpaired ratios, Tukey outlier counts, the checks
that make a row unstable (two modes, a level shift) and the false
discovery rate across a table. Nothing here reads logs or formats text.
"""
import functools
import hashlib
import math
import statistics
from typing import NamedTuple, Optional, Tuple

try:
    import numpy as np
    from scipy.special import bdtr
except ImportError as e:  # mmlab.interp found no interpreter that has them
    raise ImportError(f"{e}: mmlab's statistics need python3-numpy and python3-scipy "
                      "(tools/deps.sh run installs them)") from e

LOWER = "lower"
HIGHER = "higher"

# A change counts as real only when it is larger than this many times the
# larger relative standard deviation of the two sides (mmtests marks
# results the same way: a difference inside the noise band is not a result).
NOISE_FACTOR = 2.0


def is_number(value):
    """True for an int or float that is finite; bool is not a number here."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value)


def median(values):
    """Median of a non-empty sequence of numbers."""
    return statistics.median(_checked(values))


def mean(values):
    """Arithmetic mean of a non-empty sequence of numbers."""
    return statistics.fmean(_checked(values))


def stddev(values):
    """Sample standard deviation (n - 1); 0.0 for a single value."""
    values = _checked(values)
    if len(values) < 2:
        return 0.0
    return statistics.stdev(values)


def relative_stddev(sd, centre):
    """Standard deviation as a percentage of centre (a median or mean).

    Returns 0.0 when there is no spread, and None when centre is zero but
    the spread is not, since no percentage can describe that.
    """
    if sd == 0:
        return 0.0
    if centre == 0:
        return None
    return abs(sd) / abs(centre) * 100.0


def percent_change(old, new, better):
    """Percent change from old to new, signed so that positive = new is better.

    For a lower-is-better metric (time, cycles) a fall is an improvement,
    so the raw change is negated. Returns None when old is zero.
    """
    _check_better(better)
    if old == 0:
        return None
    change = (new - old) / abs(old) * 100.0
    signed = -change if better == LOWER else change
    return signed + 0.0  # no "-0.00%" for an unchanged result


def improvement_ratio(naive, improved, better):
    """How many times better the improved variant is than the naive one.

    naive/improved for lower-is-better metrics, improved/naive for
    higher-is-better ones, so a value above 1 always means the improved
    design wins. Returns None when the divisor is zero.
    """
    _check_better(better)
    num, den = (naive, improved) if better == LOWER else (improved, naive)
    if den == 0:
        return None
    return num / den


def exceeds_noise(change_pct, rsd_a, rsd_b, factor=NOISE_FACTOR):
    """True when |change_pct| is more than factor x the larger relative stddev.

    rsd_a and rsd_b are percentages as returned by relative_stddev(); None
    (an unknown spread) never lets a change count as significant. With no
    spread on either side (exact counters), any non-zero change counts.
    """
    if change_pct is None or rsd_a is None or rsd_b is None:
        return False
    return abs(change_pct) > factor * max(rsd_a, rsd_b)


def _checked(values):
    """values as a list, refusing an empty one or anything not a finite number."""
    values = list(values)
    if not values:
        raise ValueError("no values")
    if not all(is_number(v) for v in values):
        raise ValueError("values must be finite numbers")
    return values


def _check_better(better):
    """Refuse a direction other than 'lower' or 'higher'."""
    if better not in (LOWER, HIGHER):
        raise ValueError(f"better must be 'lower' or 'higher', not {better!r}")


# --- confidence intervals, significance, outliers ------------------------
#
# The kernel and these tools compute the median's 95% interval the same way
# (lib/stats.c stats_median_ci_rank): distribution-free order statistics,
# exact binomial ranks up to CI_EXACT_N samples, the normal approximation
# above. The paired estimand's interval takes the same ranks of the
# per-round log ratios. docs/output.md says why.

CI_EXACT_N = 120
CI_MIN_N = 6           # fewer samples: no interval of them reaches 95%
BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 16    # the default; the tools pass comparison_seed(...) instead
TUKEY_K = 1.5
CI_TARGET_PCT = 5.0    # bench/bench.h BENCH_CI_TARGET_PCT
FDR_Q = 0.05           # the false discovery rate a table's stars keep to


def median_ci_rank(n):
    """The 1-based rank k of the median's 95% interval [x(k), x(n+1-k)]; 0 when n < 6."""
    if n <= CI_EXACT_N:
        total, cum, choose, k = 1 << n, 0, 1, 0
        for i in range(n):
            cum += choose
            if cum * 40 > total:
                break
            k = i + 1
            choose = choose * (n - i) // (i + 1)
        return k
    spread = 980 * math.isqrt(n * 1000000) // 1000
    return (500 * n - spread) // 1000


def median_ci(values):
    """(low, high) 95% interval of the median of values (the whole range when n < 6)."""
    v = sorted(_checked(values))
    k = max(median_ci_rank(len(v)), 1)
    return v[k - 1], v[len(v) - k]


def ci_halfwidth_pct(values):
    """Half the median's 95% interval as a percentage of the median (None if undefined)."""
    lo, hi = median_ci(values)
    centre = median(values)
    if centre == 0:
        return None if hi != lo else 0.0
    return (hi - lo) / 2.0 / abs(centre) * 100.0


def tukey_outliers(values):
    """How many values lie outside Tukey's fences (Q1 - 1.5 IQR, Q3 + 1.5 IQR).

    Quartiles interpolate linearly (statistics.quantiles' 'inclusive');
    fewer than four values have no quartiles and no outliers.
    """
    v = np.asarray(_checked(values), dtype=float)
    if len(v) < 4:
        return 0
    q1, q3 = np.percentile(v, [25, 75])
    lo, hi = q1 - TUKEY_K * (q3 - q1), q3 + TUKEY_K * (q3 - q1)
    return int(np.count_nonzero((v < lo) | (v > hi)))


def ratio_significant(ci):
    """True when a ratio's interval excludes 1 (no interval: not significant)."""
    return ci is not None and (ci[0] > 1.0 or ci[1] < 1.0)


def comparison_seed(*parts):
    """A 32-bit seed from a comparison's identity, e.g. (bench, params, cpus, 'naive', 'gen').

    The same parts always give the same seed (sha256 of their repr, not
    Python's salted hash), different comparisons different ones.
    """
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big")


# --- unpaired ratios: a vectorised bootstrap -------------------------------
#
# Runs of separate boots or systems share no rounds, so each side is
# resampled on its own; one numpy draw of reps x n indices per side.

def resampled_medians(rng, values, reps=BOOTSTRAP_REPS):
    """reps medians of values resampled with replacement (a numpy array)."""
    v = np.asarray(values, dtype=float)
    return np.median(v[rng.integers(len(v), size=(reps, len(v)))], axis=1)


def bootstrap_ratios(naive, improved, better, reps=BOOTSTRAP_REPS, seed=BOOTSTRAP_SEED):
    """reps resampled improvement_ratio(median(naive), median(improved)), or None
    when a side has fewer than CI_MIN_N values or a resampled median is zero."""
    naive, improved = _checked(naive), _checked(improved)
    _check_better(better)
    if len(naive) < CI_MIN_N or len(improved) < CI_MIN_N:
        return None
    rng = np.random.default_rng(seed)
    a, b = resampled_medians(rng, naive, reps), resampled_medians(rng, improved, reps)
    num, den = (a, b) if better == LOWER else (b, a)
    return None if np.any(den == 0) else num / den


def bootstrap_ratio_ci(naive, improved, better, reps=BOOTSTRAP_REPS, seed=BOOTSTRAP_SEED):
    """95% percentile-bootstrap interval (low, high) of improvement_ratio(median(naive),
    median(improved)), each side resampled on its own; None as bootstrap_ratios."""
    ratios = bootstrap_ratios(naive, improved, better, reps, seed)
    return None if ratios is None else percentile_ci(ratios)


def percentile_ci(draws):
    """(low, high): the 2.5th and 97.5th percentiles of bootstrap draws."""
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return float(lo), float(hi)


def bootstrap_p(ratios):
    """Two-sided bootstrap p that a ratio is 1: twice the smaller share of resampled
    ratios on either side of 1, counted as (k + 1) / (reps + 1)."""
    side = min(np.count_nonzero(ratios <= 1.0), np.count_nonzero(ratios >= 1.0))
    return min(1.0, 2.0 * (side + 1) / (len(ratios) + 1))


# --- the paired estimand -------------------------------------------------
#
# The harness runs rounds: round i runs the i-th timed run of every design
# of a case, so a host hiccup in round i slows both sides of that round's
# ratio. The estimand is the median over rounds of log(reference /
# design) (lower is better; the other way round when higher is): its
# interval is the median's order-statistic interval of those log ratios
# and its test the sign test, both distribution-free and free of random
# numbers.

class Paired(NamedTuple):
    """exp(median per-round log ratio), its 95% interval or None, the sign test's p."""

    ratio: float
    ci: Optional[Tuple[float, float]]
    p: float


def round_log_ratios(ref, design, better):
    """Per-round log ratios, positive where the design wins; None if a value is not positive."""
    a, b = np.asarray(_checked(ref), float), np.asarray(_checked(design), float)
    _check_better(better)
    if a.shape != b.shape:
        raise ValueError("one value per round on each side")
    if np.any(a <= 0) or np.any(b <= 0):
        return None
    d = np.log(a) - np.log(b)
    return d if better == LOWER else -d


def paired_ratio(ref, design, better):
    """The paired estimand of two designs' per-round values (a Paired), or None when a
    value is not positive; no interval below CI_MIN_N rounds."""
    d = round_log_ratios(ref, design, better)
    if d is None:
        return None
    ci = None
    if len(d) >= CI_MIN_N:
        lo, hi = median_ci(d.tolist())
        ci = (math.exp(lo), math.exp(hi))
    return Paired(float(np.exp(np.median(d))), ci, sign_test_p(d))


def sign_test_p(d):
    """Two-sided p of the sign test on log ratios d: does the design win as many rounds
    as it loses? Tied rounds (0) are left out; none left: 1."""
    wins, losses = int(np.count_nonzero(d > 0)), int(np.count_nonzero(d < 0))
    if wins + losses == 0:
        return 1.0
    return float(min(1.0, 2.0 * bdtr(min(wins, losses), wins + losses, 0.5)))


def fdr_reject(pvalues, q=FDR_Q):
    """Which pvalues Benjamini-Hochberg rejects at false discovery rate q (bools, in order)."""
    p = np.asarray(pvalues, dtype=float)
    m = len(p)
    if m == 0:
        return []
    order = np.argsort(p, kind="stable")
    below = np.nonzero(p[order] <= q * np.arange(1, m + 1) / m)[0]
    out = np.zeros(m, dtype=bool)
    if len(below):
        out[order[:below[-1] + 1]] = True
    return out.tolist()


# --- what makes a row unstable -----------------------------------------

LEVEL_SHIFT_P = 0.05        # the permutation p below this ...
LEVEL_SHIFT_MIN_PCT = 10.0  # ... and medians either side this far apart: a level shift
LEVEL_SHIFT_MIN_N = 8       # fewer runs: no split reaches LEVEL_SHIFT_P
LEVEL_SHIFT_PERMS = 4000
LEVEL_SHIFT_SEED = 25
MODE_GAP = 1.25             # two modes at least this factor apart ...
MODE_MIN_RUNS = 2           # ... with at least this many runs in each
WIDE_FACTOR = 2.0           # an interval whose high end is more than this x its low end
EXACT_TOLERANCE = 0.001     # exact figures that differ by more than 0.1% do not agree


def _ranks(v):
    """1-based ranks of the numpy array v, ties given their mean rank."""
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[inverse]


def _pettitt_u(ranks):
    """|U_t| = |2 x the rank sum of the first t - t(n + 1)| for t = 1..n-1, along the last axis."""
    n = ranks.shape[-1]
    return np.abs(2 * np.cumsum(ranks, axis=-1)[..., :-1] - np.arange(1, n) * (n + 1))


@functools.lru_cache(maxsize=None)
def _pettitt_null(ranks):
    """K of LEVEL_SHIFT_PERMS random orders of ranks (sorted, a tuple): K's distribution
    when the order carries no shift. It depends on the ranks alone, so on n when no
    value repeats: a table of hundreds of series draws it once per run count."""
    perms = np.random.default_rng(LEVEL_SHIFT_SEED).permuted(
        np.tile(np.array(ranks), (LEVEL_SHIFT_PERMS, 1)), axis=1)
    return _pettitt_u(perms).max(axis=1)


def level_shift(values):
    """Where a series' level shifts: (index of the first run after it, p, after/before), or None.

    Pettitt's statistic K = max |U_t| (Pettitt 1979), its p by permutation:
    LEVEL_SHIFT_PERMS random orders of the same ranks (a fixed seed), so
    the test can fire at the run counts used (ten runs split five and five
    give p near 0.01), where Pettitt's asymptotic p cannot. A shift counts
    when p < LEVEL_SHIFT_P and the medians either side differ by at least
    LEVEL_SHIFT_MIN_PCT. values are in run order.
    """
    return _level_shift(tuple(_checked(values)))


@functools.lru_cache(maxsize=4096)
def _level_shift(values):
    """level_shift of a tuple (a table asks for each series' shift more than once)."""
    v = np.array(values, dtype=float)
    if len(v) < LEVEL_SHIFT_MIN_N:
        return None
    ranks = _ranks(v)
    u = _pettitt_u(ranks)
    t = int(np.argmax(u)) + 1
    beyond = np.count_nonzero(_pettitt_null(tuple(np.sort(ranks))) >= u[t - 1] - 1e-9)
    p = (beyond + 1) / (LEVEL_SHIFT_PERMS + 1)
    before, after = float(np.median(v[:t])), float(np.median(v[t:]))
    if p >= LEVEL_SHIFT_P or before == 0 or abs(after / before - 1) * 100 < LEVEL_SHIFT_MIN_PCT:
        return None
    return t, p, after / before


def two_modes(values):
    """(median of the lower mode, of the upper) when values fall in two modes, else None.

    Sorted on a log scale, the widest gap between neighbours that leaves
    MODE_MIN_RUNS runs on each side splits them: two modes when that gap is
    at least a factor MODE_GAP and wider than either side's own spread. A
    single far run is an outlier (Tukey's fences count it), not a mode.
    """
    return _two_modes(tuple(_checked(values)))


@functools.lru_cache(maxsize=4096)
def _two_modes(values):
    """two_modes of a tuple (asked for more than once per series)."""
    v = np.sort(np.array(values, dtype=float))
    if len(v) < 2 * MODE_MIN_RUNS or v[0] <= 0:
        return None
    gaps = np.diff(np.log(v))
    i = int(np.argmax(gaps[MODE_MIN_RUNS - 1:len(v) - MODE_MIN_RUNS])) + MODE_MIN_RUNS - 1
    lo, hi = np.log(v[:i + 1]), np.log(v[i + 1:])
    if gaps[i] < math.log(MODE_GAP) or gaps[i] <= max(np.ptp(lo), np.ptp(hi)):
        return None
    return float(np.median(v[:i + 1])), float(np.median(v[i + 1:]))


def too_wide(ci):
    """True when an interval's high end is more than WIDE_FACTOR x its low end."""
    return ci is not None and (ci[0] <= 0 or ci[1] / ci[0] > WIDE_FACTOR)


def exact_spread(values):
    """How far an exact figure's runs differ: max / min - 1 (0 for identical runs)."""
    v = _checked(values)
    lo, hi = min(v), max(v)
    if lo <= 0:
        return 0.0 if lo == hi else math.inf
    return hi / lo - 1.0
