"""Results of peer systems (a stock Linux measured in the same run) beside mmlab's.

A BENCH line with a "system" field ("linux-6.1.0-57-amd64") is a peer's;
one without is mmlab's own. Peer records never join mmlab's groups: the
table shows them in extra columns of the mmlab section with the same
benchmark, parameters and metric, for the CPU count of each row, with the
ratio mmlab/peer of the medians and its bootstrap interval. The peer's
variant shown is the one with the section's improved design's name (Linux
tlb's "batched" is one MADV_DONTNEED for all pages), else the peer's only
variant of that group (Linux faultlock's "naive"). Peer groups with no
mmlab section get sections of their own.
"""
from __future__ import annotations

import json
import math
import statistics

from scipy.special import stdtrit

from .format import render_table
from .groups import group_results
from .stats import LOWER, bootstrap_ratio_ci, comparison_seed

MMLAB = "mmlab"
PEER_LOG_DIR = "peer-{name}"


def record_system(rec):
    """The system a record measured: its "system" field, or mmlab when it has none."""
    return rec.extra.get("system") or MMLAB


def variant_label(rec):
    """The variant as a row names it: 'batched', or 'batched@linux-6.1.0-57-amd64' for a peer's."""
    system = record_system(rec)
    return rec.variant if system == MMLAB else f"{rec.variant}@{system}"


def split_systems(records):
    """(mmlab's records, {peer system: its records}) keeping the log order."""
    own, peers = [], {}
    for rec in records:
        system = record_system(rec)
        if system == MMLAB:
            own.append(rec)
        else:
            peers.setdefault(system, []).append(rec)
    return own, peers


class PeerIndex:
    """One peer system's groups, looked up by an mmlab group's (bench, params, metric)."""

    def __init__(self, system, records):
        self.system = system
        self.groups = {(g.bench, _params_key(g.params), g.metric): g
                       for g in group_results(records)}

    def group_for(self, group):
        """The peer's group matching an mmlab group, or None."""
        return self.groups.get((group.bench, _params_key(group.params), group.metric))

    def variant_for(self, group, improved):
        """The peer variant to show in the section (naive vs improved), or None."""
        peer = self.group_for(group)
        if peer is None:
            return None
        if improved in peer.variants:
            return improved
        return next(iter(peer.variants)) if len(peer.variants) == 1 else None

    def unmatched(self, own_groups):
        """The peer's groups that no mmlab group matches, in log order."""
        keys = {(g.bench, _params_key(g.params), g.metric) for g in own_groups}
        return [g for k, g in self.groups.items() if k not in keys]


def peer_ratio(mine, peer):
    """(mmlab median / peer median or None, its 95% interval or None).

    The raw quotient whichever way the metric points: below 1 mmlab's
    number is smaller (faster for a time, slower for a rate).
    """
    if mine is None or peer is None or not peer.median:
        return None, None
    ci = None
    if mine.samples and peer.samples:
        # Two systems, two boots: no rounds in common, each side resampled on its own.
        seed = comparison_seed(mine.bench, mine.params_key(), mine.cpus, mine.variant,
                               variant_label(peer))
        ci = bootstrap_ratio_ci(mine.samples, peer.samples, LOWER, seed=seed)
    return mine.median / peer.median, ci


# --- the boot as the unit ---------------------------------------------
#
# mmlab and the peer run in separate boots, minutes apart: a boot's
# placement on the host, its TSC calibration and the host's load at the
# time differ from boot to boot, so the runs inside one boot are not
# independent of each other. With several alternating boots of each
# (run.sh --peer linux boots them mmlab, Linux, mmlab, Linux, ...), each
# boot's median is one observation and the ratio's interval is a Welch t
# interval of the difference of the mean log medians, exponentiated.

MIN_BOOTS = 2  # per side, for an interval


def t975(df):
    """Student's t 97.5% quantile at df (Welch's, fractional) degrees of freedom."""
    return float(stdtrit(df, 0.975))


def boot_ratio_ci(mine, peer):
    """(geometric-mean ratio mine/peer, its 95% Welch interval or None) of per-boot medians."""
    lm, lp = [math.log(v) for v in mine], [math.log(v) for v in peer]
    diff = statistics.fmean(lm) - statistics.fmean(lp)
    if len(lm) < MIN_BOOTS or len(lp) < MIN_BOOTS:
        return math.exp(diff), None
    vm, vp = statistics.variance(lm) / len(lm), statistics.variance(lp) / len(lp)
    se = math.sqrt(vm + vp)
    if se == 0:
        return math.exp(diff), (math.exp(diff), math.exp(diff))
    df = (vm + vp) ** 2 / (vm ** 2 / (len(lm) - 1) + vp ** 2 / (len(lp) - 1))
    half = t975(df) * se
    return math.exp(diff), (math.exp(diff - half), math.exp(diff + half))


def _by_key(boots):
    """{(bench, params, metric, variant, cpus): [median of each boot that has it]}."""
    out = {}
    for records in boots:
        for r in records:
            if r.median > 0:
                key = (r.bench, r.params_key(), r.metric, r.variant, r.cpus)
                out.setdefault(key, []).append(r.median)
    return out


def boot_ratios(mmlab_boots, peer_boots):
    """mmlab/peer per result both systems have, the boot as the unit.

    mmlab_boots, peer_boots: one list of records per boot. Each result is a
    dict for results.json's boot_ratios: the key, the boots of each side,
    the ratio of geometric means of the boots' medians and its interval.
    """
    mine, peer = _by_key(mmlab_boots), _by_key(peer_boots)
    out = []
    for key in [k for k in mine if k in peer]:
        ratio, ci = boot_ratio_ci(mine[key], peer[key])
        bench, params, metric, variant, cpus = key
        out.append({"bench": bench, "params": json.loads(params), "metric": metric,
                    "variant": variant, "cpus": cpus, "mmlab_boots": len(mine[key]),
                    "peer_boots": len(peer[key]), "ratio": ratio,
                    "ratio_ci": list(ci) if ci else None, "unit": "boot"})
    return out


def render_boot_ratios(items, system):
    """table.txt lines of boot_ratios, or [] when there is none."""
    if not items:
        return []
    rows = [[i["bench"], " ".join(f"{k}={v}" for k, v in sorted(i["params"].items())) or "-",
             i["metric"], i["variant"], str(i["cpus"]), f"{i['mmlab_boots']} / {i['peer_boots']}",
             f"{i['ratio']:.3f}x",
             "-" if not i["ratio_ci"] else f"{i['ratio_ci'][0]:.3f}-{i['ratio_ci'][1]:.3f}x"]
            for i in items]
    return (["", f"mmlab/{system} over alternating boots (each boot's median one observation; "
             "95% CI: Welch t on the log medians)"]
            + render_table(["bench", "params", "metric", "variant", "cpus", "boots",
                            f"mmlab/{system}", "95% CI"], rows, "lllllrrr"))


def _params_key(params):
    return json.dumps(params, sort_keys=True)


__all__ = ["MMLAB", "PEER_LOG_DIR", "record_system", "variant_label", "split_systems",
           "PeerIndex", "peer_ratio", "boot_ratio_ci", "boot_ratios", "render_boot_ratios"]
