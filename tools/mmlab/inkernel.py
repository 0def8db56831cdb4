"""Linux's unmap components timed inside its kernel, beside mmlab's shootdown component.

mmpeer's tlb lines (tools/peer/src/peer_tlb.c) carry `kernel_*` members
from a traced pass after each case's timed runs: ftrace's function_graph
on one Linux function at a time, so no other traced function's hooks run
inside the one timed. Per function F:

- `kernel_F_calls_per_madvise`: calls of F per madvise call (naive makes
  one call per page, batched one for all the pages);
- `kernel_F_cycles_per_call`: the median over the traced runs of F's mean
  duration per call in each, TSC cycles (null when it was never called);
- `kernel_F_cycles_per_page`: the median over the traced runs of F's total
  duration per page dropped;

and `kernel_traced_runs_per_function`, and the tracer's own cost per
call, calibrated on getppid() (`__x64_sys_getppid` or `__task_pid_nr_ns`
traced, `kernel_trace_calibrated_on`; 1,000 calls, untraced then traced,
5 times): `kernel_trace_overhead_cycles_per_traced_call`
(all that tracing adds to a call) and `kernel_trace_empty_call_cycles`
(the duration function_graph reports for that nearly empty function: the
part of the tracer's cost inside every duration it reports).

This module gathers them per (system, design, CPU count, pages) as
results.json's `kernel_components` and a table.txt section, with the
remote part (native_flush_tlb_multi per call) beside mmlab's shootdown
component Delta per call (mmlab.fits: Delta per page times the pages one
call drops: 1 for naive, all of them for the other designs) and the peer's
own user-space Delta per call.
"""
from __future__ import annotations

import json
import re

from .fits import MMLAB, METRIC, SWEPT, component_results
from .format import format_number, render_table

PREFIX = "kernel_"
FUNCTION_KEY = re.compile(r"^kernel_(\w+?)_(calls_per_madvise|cycles_per_call|cycles_per_page)$")
OVERHEAD = "kernel_trace_overhead_cycles_per_traced_call"
EMPTY = "kernel_trace_empty_call_cycles"
RUNS = "kernel_traced_runs_per_function"
# The table's columns: (heading, the functions that fill it, the figure).
COLUMNS = (
    ("zap/page", ("zap_page_range_single", "zap_page_range"), "cycles_per_page"),
    ("unmap/page", ("unmap_page_range",), "cycles_per_page"),
    ("finish/page", ("tlb_finish_mmu",), "cycles_per_page"),
    ("flush/call", ("flush_tlb_mm_range",), "cycles_per_call"),
    ("remote/call", ("native_flush_tlb_multi",), "cycles_per_call"),
    ("remote calls", ("native_flush_tlb_multi",), "calls_per_madvise"),
)


def kernel_figures(record):
    """{function: {figure: value}} of a record's kernel_* members, in line order, or {}."""
    out = {}
    for key, value in record.extra.items():
        m = FUNCTION_KEY.match(key)
        if m:
            out.setdefault(m.group(1), {})[m.group(2)] = value
    return out


def pages_per_call(design, pages):
    """The pages one call drops: naive one per call, every other design all at once."""
    return 1 if design == "naive" else pages


def _rest(params):
    return json.dumps({k: v for k, v in params.items() if k != SWEPT}, sort_keys=True)


def _per_call(component, per):
    if component is None:
        return None, None
    ci = component.get("delta_ci")
    return component["delta"] * per, None if ci is None else [ci[0] * per, ci[1] * per]


def kernel_component_results(records, components=None):
    """Every record's in-kernel figures, as results.json's `kernel_components` objects.

    components: mmlab.fits.component_results(records), when the caller has them.
    """
    if components is None:
        components = component_results(records)
    index = {(c["system"], c["bench"], c["design"], c["cpus"], c["pages"],
              json.dumps(c["params"], sort_keys=True)): c for c in components}
    out = []
    for r in records:
        functions = kernel_figures(r)
        pages = r.params.get(SWEPT)
        if not functions or r.metric != METRIC or not isinstance(pages, int):
            continue
        system, rest = r.extra.get("system") or MMLAB, _rest(r.params)
        per = pages_per_call(r.variant, pages)
        user, _ = _per_call(index.get((system, r.bench, r.variant, r.cpus, pages, rest)), per)
        mmlab, mmlab_ci = _per_call(index.get((MMLAB, r.bench, r.variant, r.cpus, pages, rest)),
                                    per)
        out.append({"system": system, "bench": r.bench, "design": r.variant, "cpus": r.cpus,
                    "pages": pages, "params": json.loads(rest), "functions": functions,
                    "traced_runs_per_function": r.extra.get(RUNS),
                    "trace_overhead_cycles_per_traced_call": r.extra.get(OVERHEAD),
                    "trace_empty_call_cycles": r.extra.get(EMPTY),
                    "pages_per_call": per, "user_delta_per_call": user,
                    "mmlab_delta_per_call": mmlab, "mmlab_delta_per_call_ci": mmlab_ci,
                    "unit": "cycles"})
    return out


def _figure(functions, names, figure):
    for name in names:
        if name in functions:
            return functions[name].get(figure)
    return None


def _number(value):
    return "-" if value is None else format_number(value)


def _ci_text(ci):
    return "-" if ci is None else f"{format_number(ci[0])}..{format_number(ci[1])}"


def kernel_table(kernel):
    """(headers, rows, align) of the in-kernel components."""
    headers = (["system", "params", "design", "cpus", "pages"] + [c[0] for c in COLUMNS]
               + ["overhead", "empty call", "user delta/call", "mmlab delta/call", "95% CI"])
    rows = []
    for k in kernel:
        rows.append([k["system"], " ".join(f"{p}={k['params'][p]}" for p in sorted(k["params"]))
                     or "-", k["design"], str(k["cpus"]), str(k["pages"])]
                    + [_number(_figure(k["functions"], names, fig)) for _, names, fig in COLUMNS]
                    + [_number(k["trace_overhead_cycles_per_traced_call"]),
                       _number(k.get("trace_empty_call_cycles")),
                       _number(k["user_delta_per_call"]), _number(k["mmlab_delta_per_call"]),
                       _ci_text(k["mmlab_delta_per_call_ci"])])
    return headers, rows, "lllrr" + "r" * (len(COLUMNS) + 5)


LEGEND = [
    "Linux's unmap inside its kernel (ftrace function_graph, one function per traced pass), "
    "TSC cycles: zap = zap_page_range_single,",
    "unmap = unmap_page_range (clearing), finish = tlb_finish_mmu (flush and freeing), "
    "flush = flush_tlb_mm_range (local and remote),",
    "remote = native_flush_tlb_multi (IPIs and the wait for acks), remote calls = its calls per "
    "madvise call; overhead: tracing's",
    "whole cost per traced call and empty call: the duration it reports for a nearly empty one "
    "(getppid), the part inside",
    "each duration (both calibrated, 1,000 calls x 5); user delta/call: the peer's "
    "own shootdown component from",
    "user space; mmlab delta/call: mmlab's (Delta per page x the pages one call drops), its 95% "
    "CI the bootstrap of fits.py.",
]


def render_kernel_text(kernel):
    """table.txt's section of the in-kernel components, or [] when there is none."""
    if not kernel:
        return []
    return (["", "Linux's unmap components inside its kernel, beside mmlab's shootdown "
             "component"] + LEGEND + render_table(*kernel_table(kernel)))


def render_kernel_html(kernel, html_table, esc):
    """The results page's section of the in-kernel components (html_table, esc: mmlab.html's)."""
    if not kernel:
        return []
    return ["<div id=\"inkernel\" class=\"bench\"><h2>Linux's unmap components inside its "
            f"kernel</h2><p>{esc(' '.join(LEGEND))}</p>{html_table(*kernel_table(kernel))}</div>"]
