"""results.json: writing one for a parsed log, and reading any run back.

results.json holds the log's header and trailer, every well-formed result
(each with the line it came from), the LAVA lines, the KTAP tree and every
problem. A run to compare may be given as a results folder, a results.json
file or a raw serial log; all three load into a SerialLog, and results read
back from JSON pass the same checks as those read from a log.
"""
from __future__ import annotations

import json
import os

from .fits import component_results, fit_results
from .inkernel import kernel_component_results
from .readerloss import reader_loss_results
from .shootdown import shootdown_results
from .log import SerialLog, parse_log
from .problems import Problem
from .records import bench_from_json
from .rounds import harness_bias, level_shifts, unstable_rows

RESULTS_NAME = "results.json"
FORMAT = "mmlab-results 1"


def write_results_json(log, path, peers=None, boot_ratios=None, like_for_like=None):
    """Write log as results.json at path; peers (a list of dicts) goes in as "peers".

    Beside the log's own parts it holds what the tools derive from the
    samples (docs/output.md, "Host tools"): `fits` and `components`
    (mmlab.fits), `kernel_components` (a peer's in-kernel figures,
    mmlab.inkernel), `warnings` (failed A/A controls: harness bias),
    `level_shifts` and `unstable` (the comparisons with no ratio, and why;
    mmlab.rounds); with a peer, `boot_ratios` (mmlab.peer) and `like_for_like`
    (mmlab.likeforlike).
    """
    doc = {"format": FORMAT, **log.to_dict(), **derived(log.benches)}
    if peers is not None:
        doc["peers"] = peers
    if boot_ratios is not None:
        doc["boot_ratios"] = boot_ratios
    if like_for_like is not None:
        doc["like_for_like"] = like_for_like
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def derived(records):
    """The figures results.json adds to a log's records."""
    components = component_results(records)
    return {"fits": fit_results(records), "components": components,
            "shootdown": shootdown_results(records),
            "reader_loss": reader_loss_results(records),
            "kernel_components": kernel_component_results(records, components),
            "warnings": harness_bias(records), "level_shifts": level_shifts(records),
            "unstable": unstable_rows(records)}


def load_run(path):
    """A run from a results folder, a results.json file or a serial log.

    Problems (unreadable file, JSON that is not a results file) are in the
    returned SerialLog's problems, as for a log.
    """
    if os.path.isdir(path):
        return _load_json(os.path.join(path, RESULTS_NAME))
    if _looks_like_json(path):
        return _load_json(path)
    return parse_log(path)


def _looks_like_json(path):
    """True when the file at path starts with '{' (a results.json, not a log)."""
    try:
        with open(path, "rb") as f:
            return f.read(64).lstrip().startswith(b"{")
    except OSError:
        return False


def _load_json(path):
    """Read a results.json back into a SerialLog, re-checking every result."""
    log = SerialLog(path=path)
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        log.problems.append(Problem(None, "unreadable", f"cannot read results: {e}"))
        return log
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        log.problems.append(Problem(None, "unreadable", "not an mmlab results.json"))
        return log
    log.header, log.trailer = doc.get("header"), doc.get("trailer")
    for obj in doc["results"]:
        _take_result(log, obj)
    return log


def _take_result(log, obj):
    """Add one result object from results.json, or the problems it has."""
    if not isinstance(obj, dict):
        log.problems.append(Problem(None, "malformed-json", "result is not a JSON object"))
        return
    line = obj.get("line") if isinstance(obj.get("line"), int) else None
    record, problems = bench_from_json(obj, line)
    log.problems += problems
    if record is not None:
        log.benches.append(record)
