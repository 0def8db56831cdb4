"""Statistics helpers shared by mmlab's host tools.

Plain functions over numbers: median, mean, sample standard deviation,
relative spread, the A/B ratio and percent change that respect a metric's
direction ("lower" or "higher" is better), and the noise test that decides
whether a change stands out from run-to-run spread. Nothing here reads logs
or formats text.
"""
import math
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
