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

from mmlab_groups import group_results
from mmlab_stats import LOWER, bootstrap_ratio_ci

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
        ci = bootstrap_ratio_ci(mine.samples, peer.samples, LOWER)
    return mine.median / peer.median, ci


def _params_key(params):
    return json.dumps(params, sort_keys=True)


__all__ = ["MMLAB", "PEER_LOG_DIR", "record_system", "variant_label", "split_systems",
           "PeerIndex", "peer_ratio"]
