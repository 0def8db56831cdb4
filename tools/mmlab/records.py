"""The records an mmlab log carries, and the checks that make them trustworthy.

A BENCH line becomes a BenchRecord only when every required field is there
with the right type and every statistic is a finite number in a consistent
order (min <= median, mean <= max); otherwise the check returns problems
and no record, so a broken line never turns into numbers. The header and
trailer stay plain dicts (they are descriptive) but are checked against the
contract in docs/design.md all the same. LAVA lines are fixed-format text.
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from .problems import (PART_BENCH, PART_HEADER, PART_LAVA, PART_TRAILER,
                       Problem, excerpt)
from .stats import HIGHER, LOWER, is_number, relative_stddev

HEADER_KEYS = ("version", "cmdline", "cpu_model", "cpus", "tsc_hz", "hypervisor",
               "firmware", "mem_bytes")
TRAILER_KEYS = ("passed", "failed", "skipped")
STAT_KEYS = ("median", "min", "max", "mean", "stddev")
TEXT_KEYS = ("bench", "variant", "metric", "unit")
BENCH_KEYS = ("bench", "variant", "cpus", "params", "metric", "unit", "better", "runs",
              *STAT_KEYS, "counters")
# Optional statistics in other units, e.g. median_ns.
EXTRA_STAT_RE = re.compile(r"^(?:median|min|max|mean|stddev)_\w+$")
# Optional arrays and flags (docs/output.md): checked by _check_design.
DESIGN_KEYS = ("samples", "seq", "median_ci", "control", "control_why")
LAVA_RE = re.compile(r"^MMLAB-LAVA test_case_id=(\S+) result=(\S+) measurement=(\S+)"
                     r" units=(\S+)\s*$")
LAVA_RESULTS = ("pass", "fail", "skip", "unknown")
NAIVE = "naive"
# A trailer's status when the run failed: a case failed, or an A/A control disagreed.
FAILED_STATUS = ("fail", "aa_failed")
# Printed statistics are rounded, so allow this much slack in min <= x <= max.
ORDER_SLACK = 1e-9


@dataclass
class BenchRecord:
    """One well-formed benchmark result (a BENCH line that passed every check)."""

    bench: str
    variant: str
    cpus: int
    params: Dict[str, Any]
    metric: str
    unit: str
    better: str
    runs: int
    median: float
    min: float
    max: float
    mean: float
    stddev: float
    counters: Dict[str, float]
    extra: Dict[str, Any] = field(default_factory=dict)
    line: Optional[int] = None
    _params_json: Optional[str] = field(default=None, init=False, repr=False, compare=False)

    @property
    def improved(self):
        """True for the batched/fixed/cached variant, False for the naive one."""
        return self.variant != NAIVE

    @property
    def samples(self):
        """The timed runs' values in the order they ran, or None (a log from before samples)."""
        return self.extra.get("samples")

    @property
    def seq(self):
        """Each sample's place in its case's run order (all variants), or None."""
        return self.extra.get("seq")

    @property
    def control(self):
        """True when the variants do the same work here: the ratio is a control, not a result."""
        return self.extra.get("control") is True

    @property
    def is_null(self):
        """True for a benchmark's null variant (tlb's "null"): a reference, never a design."""
        return self.extra.get("null") is True

    @property
    def is_silent(self):
        """True for a benchmark's silent control (tlb's "no-remote"): it sends its targets
        nothing, so what it adds to the null must be 0; a check, never a design."""
        return self.extra.get("silent") is True

    @property
    def is_design(self):
        """False for the null and the silent control, which no headline shows as a design."""
        return not (self.is_null or self.is_silent)

    @property
    def control_why(self):
        """The benchmark's reason for a control, or ''."""
        return self.extra.get("control_why") or ""

    @property
    def rsd(self):
        """Standard deviation as a percentage of the median (None if undefined)."""
        return relative_stddev(self.stddev, self.median)

    def params_key(self):
        """params as a canonical, hashable string (made once: tables ask for it often)."""
        if self._params_json is None:
            self._params_json = json.dumps(self.params, sort_keys=True)
        return self._params_json

    def group_key(self):
        """What a table section or plot is about: (bench, params, metric)."""
        return (self.bench, self.params_key(), self.metric)

    def key(self):
        """What identifies one result: (bench, params, metric, variant, cpus[, system]).

        A peer system's result (with "system") never shares a key with mmlab's.
        """
        key = (self.bench, self.params_key(), self.metric, self.variant, self.cpus)
        return key + ((self.extra["system"],) if self.extra.get("system") else ())

    def to_dict(self):
        """The record as a JSON-ready dict in the order of a BENCH line."""
        out = {k: getattr(self, k) for k in BENCH_KEYS}
        out.update(self.extra)
        out["line"] = self.line
        return out


def per_records(fn):
    """fn(records) remembered for the last list of records it was given (the same record
    objects, held so their ids stay theirs): table.txt, results.json and the page each
    ask for the same figures of one run."""
    last = {}

    @functools.wraps(fn)
    def remembered(records):
        key = tuple(id(r) for r in records)
        if last.get("key") != key:
            last.update(key=key, records=list(records), value=fn(records))
        return last["value"]
    return remembered


def params_text(params, sep=" "):
    """params as 'key=value' words in key order, e.g. 'pages=512'."""
    return sep.join(f"{k}={_scalar_text(params[k])}" for k in sorted(params))


def _scalar_text(value):
    return value if isinstance(value, str) else json.dumps(value)


# --- BENCH ---------------------------------------------------------------

def bench_from_json(obj, line=None):
    """Check a BENCH object; return (BenchRecord or None, list of problems)."""
    problems = []
    missing = [k for k in BENCH_KEYS if k not in obj]
    if missing:
        problems.append(_bench_problem(line, "missing-field",
                                       f"BENCH lacks {', '.join(missing)}"))
    for check in (_check_texts, _check_counts, _check_objects, _check_stats, _check_extra,
                  _check_design):
        problems += check(obj, line)
    if problems:
        return None, problems
    extra = {k: v for k, v in obj.items() if k not in BENCH_KEYS and k != "line"}
    record = BenchRecord(**{k: obj[k] for k in BENCH_KEYS}, extra=extra, line=line)
    return record, []


def _check_texts(obj, line):
    """bench, variant, metric and unit are non-empty strings; better is a direction."""
    bad = [k for k in TEXT_KEYS if k in obj and not (isinstance(obj[k], str) and obj[k])]
    problems = [_bench_problem(line, "bad-type", f"BENCH '{k}' must be a non-empty string")
                for k in bad]
    if "better" in obj and obj["better"] not in (LOWER, HIGHER):
        problems.append(_bench_problem(line, "bad-value",
                                       f"BENCH 'better' must be 'lower' or 'higher', "
                                       f"not {obj['better']!r}"))
    return problems


def _check_counts(obj, line):
    """cpus and runs are positive integers."""
    return [_bench_problem(line, "bad-type", f"BENCH '{k}' must be a positive integer")
            for k in ("cpus", "runs")
            if k in obj and not (_is_int(obj[k]) and obj[k] >= 1)]


def _check_objects(obj, line):
    """params is an object; counters is an object of finite numbers."""
    problems = [_bench_problem(line, "bad-type", f"BENCH '{k}' must be an object")
                for k in ("params", "counters") if k in obj and not isinstance(obj[k], dict)]
    counters = obj.get("counters")
    if isinstance(counters, dict):
        problems += [_number_problem(line, f"counter '{name}'", value)
                     for name, value in counters.items() if not is_number(value)]
    return problems


def _check_stats(obj, line):
    """Statistics are finite numbers with min <= median, mean <= max and stddev >= 0."""
    problems = [_number_problem(line, f"'{k}'", obj[k])
                for k in STAT_KEYS if k in obj and not is_number(obj[k])]
    if problems or any(k not in obj for k in STAT_KEYS):
        return problems
    lo, hi = obj["min"], obj["max"]
    slack = ORDER_SLACK * max(abs(lo), abs(hi), 1.0)
    for k in ("median", "mean"):
        if not lo - slack <= obj[k] <= hi + slack:
            problems.append(_bench_problem(line, "inconsistent",
                                           f"BENCH {k} {obj[k]} is outside min..max {lo}..{hi}"))
    if obj["stddev"] < 0:
        problems.append(_bench_problem(line, "inconsistent", "BENCH stddev is negative"))
    return problems


def _check_extra(obj, line):
    """Optional statistics such as median_ns must be finite numbers too."""
    return [_number_problem(line, f"'{k}'", v) for k, v in obj.items()
            if k not in BENCH_KEYS and k not in DESIGN_KEYS and EXTRA_STAT_RE.match(k)
            and not is_number(v)]


def _check_design(obj, line):
    """samples: runs finite numbers; seq: runs distinct counts; median_ci: a pair around median."""
    problems = []
    runs = obj.get("runs")
    for key, ok in (("samples", is_number), ("seq", lambda v: _is_int(v) and v >= 0)):
        if key not in obj:
            continue
        values = obj[key]
        if not isinstance(values, list) or not all(ok(v) for v in values):
            problems.append(_bench_problem(line, "bad-type", f"BENCH '{key}' must be a list of "
                                           + ("numbers" if key == "samples" else "counts")))
        elif _is_int(runs) and len(values) != runs:
            problems.append(_bench_problem(line, "inconsistent", f"BENCH has {len(values)} "
                                           f"{key} for {runs} runs"))
    if "median_ci" in obj:
        problems += _check_median_ci(obj, line)
    if "control" in obj and not isinstance(obj["control"], bool):
        problems.append(_bench_problem(line, "bad-type", "BENCH 'control' must be true or false"))
    return problems


def _check_median_ci(obj, line):
    ci, med = obj["median_ci"], obj.get("median")
    if not (isinstance(ci, list) and len(ci) == 2 and all(is_number(v) for v in ci)):
        return [_bench_problem(line, "bad-type", "BENCH 'median_ci' must be [low, high]")]
    slack = ORDER_SLACK * max(abs(ci[0]), abs(ci[1]), 1.0)
    if is_number(med) and not ci[0] - slack <= med <= ci[1] + slack:
        return [_bench_problem(line, "inconsistent",
                               f"BENCH median {med} is outside median_ci {ci[0]}..{ci[1]}")]
    return []


def _number_problem(line, what, value):
    """A problem for a value that should be a finite number and is not."""
    if isinstance(value, float):
        return _bench_problem(line, "non-finite", f"BENCH {what} is {value}, not a finite number")
    return _bench_problem(line, "non-numeric", f"BENCH {what} is {json.dumps(value)}, not a number")


def _bench_problem(line, kind, message):
    return Problem(line, kind, message, PART_BENCH)


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# --- header and trailer --------------------------------------------------

def check_header(obj, line=None):
    """Problems with a header object: missing keys, wrong types (null is allowed)."""
    problems = _missing(obj, HEADER_KEYS, "header", line, PART_HEADER)
    for k in ("version", "cmdline", "cpu_model", "hypervisor", "firmware"):
        if obj.get(k) is not None and not isinstance(obj[k], str):
            problems.append(Problem(line, "bad-type", f"header '{k}' must be a string or null",
                                    PART_HEADER))
    for k in ("cpus", "mem_bytes", "tsc_hz"):
        value = obj.get(k)
        if value is not None and not (is_number(value) and value >= 0):
            problems.append(Problem(line, "bad-type",
                                    f"header '{k}' must be a non-negative number or null",
                                    PART_HEADER))
    if obj.get("firmware") not in (None, "bios", "uefi"):
        problems.append(Problem(line, "bad-value", "header 'firmware' must be bios, uefi or null",
                                PART_HEADER))
    return problems


def check_trailer(obj, line=None):
    """Problems with a trailer object: the counts must be non-negative integers."""
    problems = _missing(obj, TRAILER_KEYS, "trailer", line, PART_TRAILER)
    for k in TRAILER_KEYS:
        if k in obj and not (_is_int(obj[k]) and obj[k] >= 0):
            problems.append(Problem(line, "bad-type",
                                    f"trailer '{k}' must be a non-negative integer", PART_TRAILER))
    return problems


def trailer_failed(trailer):
    """True when a trailer says the run failed (status 'fail' or 'aa_failed', or failed > 0)."""
    failed = trailer.get("failed")
    return trailer.get("status") in FAILED_STATUS or (_is_int(failed) and failed > 0)


def _missing(obj, keys, what, line, part):
    missing = [k for k in keys if k not in obj]
    if not missing:
        return []
    return [Problem(line, "missing-field", f"{what} lacks {', '.join(missing)}", part)]


# --- LAVA ----------------------------------------------------------------

def lava_from_line(text, line=None):
    """Parse a MMLAB-LAVA line; return (dict or None, list of problems)."""
    m = LAVA_RE.match(text)
    if not m:
        return None, [Problem(line, "malformed-lava",
                              f"LAVA line is not 'test_case_id= result= measurement= units=':"
                              f" {excerpt(text)}", PART_LAVA)]
    case_id, result, measurement, units = m.groups()
    try:
        value = float(measurement)
    except ValueError:
        value = None
    if result not in LAVA_RESULTS or value is None or not is_number(value):
        return None, [Problem(line, "malformed-lava",
                              f"LAVA result must be one of {', '.join(LAVA_RESULTS)} with a "
                              f"finite measurement: {excerpt(text)}", PART_LAVA)]
    return {"test_case_id": case_id, "result": result, "measurement": value,
            "units": units, "line": line}, []


# --- run order -----------------------------------------------------------

def interleaving_problems(records):
    """Cases whose variants did not alternate run by run, as messages.

    The harness runs rounds of one timed run per variant, so for every
    round r the r-th runs of all variants of a case (bench, params, cpus)
    come before any variant's (r+1)-th, and no run order position repeats.
    Records without 'seq' (older logs) are not judged.
    """
    cases = {}
    for r in records:
        if r.seq is not None:
            cases.setdefault((r.bench, r.params_key(), r.cpus), []).append(r)
    problems = []
    for (bench, params, cpus), recs in cases.items():
        where = f"{bench} {params} cpus={cpus}"
        every = [s for r in recs for s in r.seq]
        if len(set(every)) != len(every):
            problems.append(f"{where}: a run order position repeats")
            continue
        rounds = min(len(r.seq) for r in recs)
        for i in range(rounds - 1):
            if max(r.seq[i] for r in recs) > min(r.seq[i + 1] for r in recs):
                problems.append(f"{where}: run {i + 2} of one variant came before run "
                                f"{i + 1} of another: not interleaved")
                break
    return problems
