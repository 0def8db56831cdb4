"""Statistics helpers shared by mmlab's host tools.

Plain functions over numbers: median, mean, sample standard deviation,
relative spread, the A/B ratio and percent change that respect a metric's
direction ("lower" or "higher" is better), the median's confidence
interval, a bootstrap interval for ratios, Tukey outlier counts, and the
tests that decide whether a difference stands out from run-to-run noise.
Nothing here reads logs or formats text.
"""
import math
import random
import statistics

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
# above. Ratios get a percentile bootstrap seeded per comparison
# (comparison_seed below), so a table is the same every time it is made
# from the same log. docs/output.md says why.

CI_EXACT_N = 120
CI_MIN_N = 6           # fewer samples: no interval of them reaches 95%
BOOTSTRAP_REPS = 2000
BOOTSTRAP_SEED = 16    # the default; the tools pass comparison_seed(...) instead
TUKEY_K = 1.5
CI_TARGET_PCT = 5.0    # bench/bench.h BENCH_CI_TARGET_PCT


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

    Quartiles are statistics.quantiles(method='inclusive'); fewer than four
    values have no quartiles and no outliers.
    """
    values = _checked(values)
    if len(values) < 4:
        return 0
    q1, _, q3 = statistics.quantiles(values, n=4, method="inclusive")
    lo, hi = q1 - TUKEY_K * (q3 - q1), q3 + TUKEY_K * (q3 - q1)
    return sum(1 for v in values if v < lo or v > hi)


def bootstrap_ratio_ci(naive, improved, better, reps=BOOTSTRAP_REPS, seed=BOOTSTRAP_SEED):
    """95% percentile-bootstrap interval of improvement_ratio(median(naive), median(improved)).

    Each side is resampled with replacement on its own (the runs are
    independent). Returns (low, high), or None when either side has fewer
    than CI_MIN_N samples or a resampled median is zero.
    """
    naive, improved = _checked(naive), _checked(improved)
    _check_better(better)
    if len(naive) < CI_MIN_N or len(improved) < CI_MIN_N:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(reps):
        a = statistics.median(rng.choices(naive, k=len(naive)))
        b = statistics.median(rng.choices(improved, k=len(improved)))
        r = improvement_ratio(a, b, better)
        if r is None:
            return None
        ratios.append(r)
    ratios.sort()
    return ratios[int(reps * 0.025)], ratios[int(reps * 0.975) - 1]


def ratio_significant(ci):
    """True when a ratio's interval excludes 1 (no interval: not significant)."""
    return ci is not None and (ci[0] > 1.0 or ci[1] < 1.0)


# --- rounds, seeds and level shifts (issue 25) ---------------------------
#
# The harness runs rounds: round i runs the i-th timed run of every
# variant of a case, so a host hiccup that slows round i slows both sides
# of a ratio. round_bootstrap_ratio_ci resamples whole rounds and keeps
# each round's runs together, so the interval sees that pairing. Each
# comparison gets its own seed (comparison_seed), so the intervals of a
# table are not all drawn from one stream of random numbers, yet the same
# log still gives the same table.

LEVEL_SHIFT_P = 0.05       # Pettitt's p below this (a perfect split reaches it from 12 runs) ...
LEVEL_SHIFT_MIN_PCT = 10.0  # ... and medians either side this far apart: a level shift
LEVEL_SHIFT_MIN_N = 10      # fewer runs: no judgement


def comparison_seed(*parts):
    """A 32-bit seed from a comparison's identity, e.g. (bench, params, cpus, 'naive', 'gen').

    The same parts always give the same seed (sha256 of their repr, not
    Python's salted hash), different comparisons different ones.
    """
    import hashlib
    digest = hashlib.sha256(repr(parts).encode()).digest()
    return int.from_bytes(digest[:4], "big")


def round_bootstrap_ratio_ci(naive, improved, better, reps=BOOTSTRAP_REPS,
                             seed=BOOTSTRAP_SEED):
    """95% round-block bootstrap interval of improvement_ratio(median(naive), median(improved)).

    naive[i] and improved[i] ran in the same round i, so both lists have
    one value per round. Each resample draws rounds with replacement and
    takes both values of every drawn round. Returns (low, high), or None
    with fewer than CI_MIN_N rounds or a resampled median of zero.
    """
    naive, improved = _checked(naive), _checked(improved)
    _check_better(better)
    if len(naive) != len(improved):
        raise ValueError("one value per round on each side")
    n = len(naive)
    if n < CI_MIN_N:
        return None
    rng = random.Random(seed)
    ratios = []
    for _ in range(reps):
        rounds = [rng.randrange(n) for _ in range(n)]
        r = improvement_ratio(statistics.median(naive[i] for i in rounds),
                              statistics.median(improved[i] for i in rounds), better)
        if r is None:
            return None
        ratios.append(r)
    ratios.sort()
    return ratios[int(reps * 0.025)], ratios[int(reps * 0.975) - 1]


def ci_width_pct(ci, centre):
    """The full width of an interval as a percentage of centre (None if undefined)."""
    if ci is None or not centre:
        return None
    return (ci[1] - ci[0]) / abs(centre) * 100.0


def level_shift(values):
    """Where a series' level shifts: (index of the first run after it, p, after/before), or None.

    Pettitt's rank test for one change point (Pettitt 1979): U_t = 2 x the
    rank sum of the first t values - t(n + 1), K = max |U_t|, p about
    2 exp(-6 K^2 / (n^3 + n^2)). A shift counts when p < LEVEL_SHIFT_P and
    the medians either side differ by at least LEVEL_SHIFT_MIN_PCT, so a
    slow drift of a few percent is not one. values are in run order.
    """
    values = _checked(values)
    n = len(values)
    if n < LEVEL_SHIFT_MIN_N:
        return None
    ranks = _ranks(values)
    best_t, best_k, rank_sum = 0, -1.0, 0.0
    for t in range(1, n):
        rank_sum += ranks[t - 1]
        k = abs(2 * rank_sum - t * (n + 1))
        if k > best_k:
            best_t, best_k = t, k
    p = min(1.0, 2 * math.exp(-6 * best_k ** 2 / (n ** 3 + n ** 2)))
    before, after = statistics.median(values[:best_t]), statistics.median(values[best_t:])
    if p >= LEVEL_SHIFT_P or before == 0:
        return None
    factor = after / before
    if abs(factor - 1) * 100.0 < LEVEL_SHIFT_MIN_PCT:
        return None
    return best_t, p, factor


def _ranks(values):
    """1-based ranks, ties given their mean rank."""
    order = sorted(range(len(values)), key=values.__getitem__)
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2.0 + 1
        i = j + 1
    return ranks
