"""Benchmark results grouped the way tables and plots show them.

A group is one benchmark, one parameter set and one metric; it holds each
variant's results by CPU count, the naive variant first. Groups keep the
order in which the log first mentions them, so output follows the run.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List

from .records import NAIVE, BenchRecord, params_text

# Characters kept as they are in a plot's file name; others become '_'.
UNSAFE_NAME_RE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass
class Group:
    """Results of one (bench, params, metric), by variant and CPU count."""

    bench: str
    params: dict
    metric: str
    unit: str
    better: str
    variants: Dict[str, Dict[int, BenchRecord]] = field(default_factory=dict)

    @property
    def title(self):
        """'tlb pages=512', or just the bench name without parameters."""
        return " ".join(filter(None, [self.bench, params_text(self.params)]))

    def improved_variants(self):
        """Names of the variants other than naive, in order of appearance."""
        return [v for v in self.variants if v != NAIVE]

    def cpu_counts(self):
        """Every CPU count any variant has a result for, ascending."""
        return sorted({cpus for by_cpus in self.variants.values() for cpus in by_cpus})

    def result(self, variant, cpus):
        """The record for variant at cpus, or None."""
        return self.variants.get(variant, {}).get(cpus)

    def file_stem(self, with_metric=False):
        """'<bench>[-<params>][-<metric>]' made safe for a file name."""
        words = [self.bench] + [f"{k}-{self.params[k]}" for k in sorted(self.params)]
        if with_metric:
            words.append(self.metric)
        return UNSAFE_NAME_RE.sub("_", "-".join(str(w) for w in words))


def group_results(records: List[BenchRecord]) -> List[Group]:
    """Group records by (bench, params, metric), naive variant first in each."""
    groups: Dict[tuple, Group] = {}
    for rec in records:
        group = groups.get(rec.group_key())
        if group is None:
            group = groups[rec.group_key()] = Group(rec.bench, rec.params, rec.metric,
                                                    rec.unit, rec.better)
        group.variants.setdefault(rec.variant, {})[rec.cpus] = rec
    for group in groups.values():
        if NAIVE in group.variants:
            group.variants = {NAIVE: group.variants[NAIVE], **{
                v: r for v, r in group.variants.items() if v != NAIVE}}
    return list(groups.values())


def plot_stems(groups):
    """A distinct file stem for each group: the metric is added only when needed."""
    counts: Dict[str, int] = {}
    for g in groups:
        counts[g.file_stem()] = counts.get(g.file_stem(), 0) + 1
    return [g.file_stem(with_metric=counts[g.file_stem()] > 1) for g in groups]
