"""Parameter sweeps: results regrouped with one numeric parameter on the x-axis.

The groups of mmlab.groups put the CPU count on the x-axis, one plot per
parameter set, which splits a sweep such as tlb's pages=1..512 over seven
plots and hides the knee at the flush ceiling. A sweep is one benchmark,
its other parameters, one metric and one CPU count; it holds each
variant's results by the swept parameter's value. A parameter is swept
where it is a whole number taking at least SWEEP_MIN_POINTS values with
everything else the same (tlb's pages, pin's per_call). A few extra
fields of a BENCH line that are costs in their own right (SWEEP_EXTRA: the
tlb busy readers' lost cycles, and the initiator's plus theirs) get sweeps
of their own, one point per result (they have no min..max).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, List

from .groups import Group
from .records import NAIVE, BenchRecord, params_text

SWEEP_MIN_POINTS = 3
# Per-page costs of 1 and 512 pages (or a descheduled vCPU) differ by orders of magnitude.
Y_LOG_SPAN = 20
SWEEP_EXTRA = ("remote_lost_cycles_per_page", "total_cycles_per_page")


@dataclass
class Sweep(Group):
    """Results of one (bench, other params, metric, cpus), by variant and swept value."""

    cpus: int = 0
    x_param: str = ""

    @property
    def x_label(self):
        """The x-axis: the swept parameter's name."""
        return self.x_param

    @property
    def title(self):
        """'tlb remote=busy cpus=2, by pages'."""
        words = [self.bench, params_text(self.params), f"cpus={self.cpus}"]
        return " ".join(filter(None, words)) + f", by {self.x_param}"

    @property
    def y_log(self):
        """A log y-axis when every point is positive and they span a factor of Y_LOG_SPAN."""
        ys = [r.median for by_x in self.variants.values() for r in by_x.values()]
        return bool(ys) and min(ys) > 0 and max(ys) >= Y_LOG_SPAN * min(ys)

    def cpu_counts(self):
        """The swept values any variant has a result for, ascending (the plot's x values)."""
        return sorted({x for by_x in self.variants.values() for x in by_x})

    def file_stem(self, with_metric=False):
        """'<bench>[-<params>]-cpus-<n>-by-<param>[-<metric>]', safe for a file name."""
        stem = super().file_stem(with_metric=False) + f"-cpus-{self.cpus}-by-{self.x_param}"
        return stem + (f"-{self.metric}" if with_metric else "")


def _sweepable(records: List[BenchRecord]):
    """(bench, parameter) pairs whose values are whole numbers in every record of the bench."""
    pairs = set()
    for bench in {r.bench for r in records}:
        recs = [r for r in records if r.bench == bench]
        names = set.intersection(*(set(r.params) for r in recs))
        pairs |= {(bench, n) for n in names
                  if all(isinstance(r.params[n], int) and not isinstance(r.params[n], bool)
                         for r in recs)}
    return pairs


def _with_extras(records: List[BenchRecord]) -> List[BenchRecord]:
    """records, each followed by one pseudo-record per SWEEP_EXTRA field it carries."""
    out = []
    for rec in records:
        out.append(rec)
        for key in SWEEP_EXTRA:
            v = rec.extra.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                # The samples are of the record's own metric: not this one's error bars.
                extra = {k: x for k, x in rec.extra.items() if k not in ("samples", "median_ci")}
                out.append(replace(rec, metric=key, median=v, min=v, max=v, mean=v, stddev=0.0,
                                   extra=extra))
    return out


def sweep_results(records: List[BenchRecord]) -> List[Sweep]:
    """Every sweep with at least SWEEP_MIN_POINTS values, naive variant first, in log order."""
    sweeps: Dict[tuple, Sweep] = {}
    pairs = _sweepable(records)
    for rec in _with_extras(records):
        for name in sorted(n for b, n in pairs if b == rec.bench):
            rest = {k: v for k, v in rec.params.items() if k != name}
            key = (rec.bench, repr(sorted(rest.items())), rec.metric, rec.cpus, name)
            sweep = sweeps.get(key)
            if sweep is None:
                sweep = sweeps[key] = Sweep(rec.bench, rest, rec.metric, rec.unit, rec.better,
                                            cpus=rec.cpus, x_param=name)
            sweep.variants.setdefault(rec.variant, {})[rec.params[name]] = rec
    out = [s for s in sweeps.values() if len(s.cpu_counts()) >= SWEEP_MIN_POINTS]
    for s in out:
        if NAIVE in s.variants:
            s.variants = {NAIVE: s.variants[NAIVE],
                          **{v: r for v, r in s.variants.items() if v != NAIVE}}
    return out
