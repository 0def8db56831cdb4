"""Tests for tools/mmlab/inkernel.py: Linux's unmap components timed inside its kernel.

mmpeer's kernel_* members are gathered per function; each line with them
becomes one `kernel_components` object whose shootdown components (the
peer's own, mmlab's) are per call: Delta per page for naive, Delta per
page times the pages for batched. The fixture peer_linux.log, its tlb
lines given kernel_* members, goes through `mmlab report` beside the same
runs as mmlab's: the members survive parsing and reach results.json,
table.txt and the page.
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from toolpath import command, data
from test_fits import record
from mmlab.inkernel import (kernel_component_results, kernel_figures, kernel_table,
                            pages_per_call, render_kernel_text)

FNS = ("zap_page_range_single", "unmap_page_range", "tlb_finish_mmu", "flush_tlb_mm_range",
       "native_flush_tlb_multi")
SYSTEM = "linux-6.1.0-57-amd64"


def members(calls_per_madvise=1.0, per_call=1000.0, pages=32, madvises=1):
    """kernel_* members as mmpeer prints them: every function alike, native_flush_tlb_multi
    with calls_per_madvise calls (null cycles per call when none)."""
    out = {}
    for fn in FNS:
        calls = calls_per_madvise if fn == "native_flush_tlb_multi" else 1.0
        out[f"kernel_{fn}_calls_per_madvise"] = calls
        out[f"kernel_{fn}_cycles_per_call"] = per_call if calls else None
        out[f"kernel_{fn}_cycles_per_page"] = per_call * calls * madvises / pages
    out["kernel_traced_runs_per_function"] = 6
    out["kernel_trace_overhead_cycles_per_traced_call"] = 250.0
    out["kernel_trace_empty_call_cycles"] = 120.0
    return out


def linux(pages, per_page, variant="batched", cpus=2, **kernel):
    return record(pages, per_page, variant=variant, cpus=cpus, system=SYSTEM,
                  params={"remote": "busy", "pages": pages},
                  **members(pages=pages, madvises=1 if variant == "batched" else pages,
                            **kernel))


def mmlab(pages, per_page, variant="batched", cpus=2):
    return record(pages, per_page, variant=variant, cpus=cpus,
                  params={"remote": "busy", "pages": pages})


class TestFigures(unittest.TestCase):
    def test_members_by_function_in_line_order(self):
        figs = kernel_figures(linux(32, 100.0))
        self.assertEqual(list(figs), list(FNS))
        self.assertEqual(figs["flush_tlb_mm_range"],
                         {"calls_per_madvise": 1.0, "cycles_per_call": 1000.0,
                          "cycles_per_page": 1000.0 / 32})

    def test_no_members_no_figures(self):
        self.assertEqual(kernel_figures(mmlab(32, 100.0)), {})

    def test_pages_per_call(self):
        self.assertEqual((pages_per_call("naive", 32), pages_per_call("batched", 32)), (1, 32))


class TestComponents(unittest.TestCase):
    def setUp(self):
        self.recs = [linux(32, 100.0, cpus=1, calls_per_madvise=0.0),
                     linux(32, 160.0), linux(32, 900.0, variant="naive", cpus=1),
                     linux(32, 1500.0, variant="naive"),
                     mmlab(32, 50.0, cpus=1), mmlab(32, 70.0),
                     mmlab(32, 400.0, variant="naive", cpus=1), mmlab(32, 700.0, variant="naive")]
        self.kc = {(k["design"], k["cpus"]): k for k in kernel_component_results(self.recs)}

    def test_one_object_per_line_with_figures(self):
        self.assertEqual(set(self.kc), {("batched", 1), ("batched", 2), ("naive", 1),
                                        ("naive", 2)})
        k = self.kc[("batched", 2)]
        self.assertEqual((k["system"], k["pages"], k["params"], k["pages_per_call"]),
                         (SYSTEM, 32, {"remote": "busy"}, 32))
        self.assertEqual(k["traced_runs_per_function"], 6)
        self.assertEqual(k["trace_overhead_cycles_per_traced_call"], 250.0)
        self.assertEqual(k["trace_empty_call_cycles"], 120.0)

    def test_deltas_per_call(self):
        batched, naive = self.kc[("batched", 2)], self.kc[("naive", 2)]
        self.assertAlmostEqual(batched["user_delta_per_call"], 60.0 * 32)
        self.assertAlmostEqual(batched["mmlab_delta_per_call"], 20.0 * 32)
        self.assertAlmostEqual(naive["user_delta_per_call"], 600.0)
        self.assertAlmostEqual(naive["mmlab_delta_per_call"], 300.0)
        lo, hi = batched["mmlab_delta_per_call_ci"]
        self.assertLessEqual(lo, 20.0 * 32)
        self.assertGreaterEqual(hi, 20.0 * 32)

    def test_one_cpu_has_no_delta_and_no_remote_call(self):
        k = self.kc[("batched", 1)]
        self.assertIsNone(k["user_delta_per_call"])
        self.assertIsNone(k["mmlab_delta_per_call"])
        remote = k["functions"]["native_flush_tlb_multi"]
        self.assertEqual((remote["calls_per_madvise"], remote["cycles_per_call"]), (0.0, None))

    def test_table(self):
        headers, rows, align = kernel_table(kernel_component_results(self.recs))
        self.assertEqual(len(headers), len(align))
        row = dict(zip(headers, rows[0]))  # batched at 1 CPU
        self.assertEqual((row["design"], row["cpus"], row["remote/call"], row["remote calls"],
                          row["mmlab delta/call"]), ("batched", "1", "-", "0", "-"))
        self.assertEqual((row["overhead"], row["empty call"]), ("250.0", "120.0"))
        lines = render_kernel_text(kernel_component_results(self.recs))
        self.assertIn("Linux's unmap components inside its kernel, beside mmlab's shootdown "
                      "component", lines)
        self.assertEqual(render_kernel_text([]), [])


class TestReport(unittest.TestCase):
    def test_fixture_with_members_reaches_json_table_and_page(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(data("peer_linux.log")) as f:
            text = f.read()
        own = os.path.join(tmp, "own.log")  # the same runs as mmlab's
        with open(own, "w") as f:
            f.write(text.replace(f',"system":"{SYSTEM}"', ""))
        extra = "".join(f',"{k}":{json.dumps(v)}' for k, v in members().items())
        peer = os.path.join(tmp, "peer.log")
        with open(peer, "w") as f:
            f.write("".join(line.replace(',"counters":', extra + ',"counters":')
                            if '"bench":"tlb"' in line else line
                            for line in text.splitlines(keepends=True)))
        out = os.path.join(tmp, "out")
        subprocess.run(command("report", "--no-plots", "--peer", peer, own, out),
                       capture_output=True, text=True)
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        kc = doc["kernel_components"]
        self.assertEqual(len(kc), 8)  # tlb: 2 CPU counts x 2 page counts x 2 designs
        at2 = [k for k in kc if k["cpus"] == 2]
        for k in at2:  # own.log is the same runs: mmlab's Delta is the peer's own
            self.assertAlmostEqual(k["mmlab_delta_per_call"], k["user_delta_per_call"])
        with open(os.path.join(out, "table.txt")) as f:
            self.assertIn("Linux's unmap components inside its kernel", f.read())
        with open(os.path.join(out, "index.html")) as f:
            self.assertIn("id=\"inkernel\"", f.read())


if __name__ == "__main__":
    unittest.main()
