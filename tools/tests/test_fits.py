"""Tests for tools/mmlab/fits.py: the unmap cost per page taken apart.

Synthetic tlb records whose costs lie exactly on C(P) = a + b P must give
back a and b; the remote component is the difference of medians between
N CPUs and 1; too few page counts, a missing 1-CPU case, a peer's results
or another metric give nothing. The fixture bench_page.log (tlb at pages
1, 8, 64) reaches results.json, table.txt and the page.
"""
import json
import os
import tempfile
import unittest

from toolpath import data
from mmlab.fits import (component_results, delta_ci, fit_line, fit_results,
                        render_fits_text)
from mmlab.html import render_run_page
from mmlab.log import parse_log
from mmlab.records import bench_from_json
from mmlab.resultsfile import write_results_json
from mmlab.stats import median_ci
from mmlab.table import render_results_table

PAGES = (1, 8, 32, 64, 512)
JITTER = (0.98, 1.0, 1.02, 0.99, 1.01, 1.0)


def record(pages, per_page, variant="batched", cpus=1, jitter=JITTER, **changes):
    """A tlb cycles_per_page record whose samples are per_page times jitter."""
    samples = [per_page * j for j in jitter]
    srt = sorted(samples)
    n = len(srt)
    obj = {"bench": "tlb", "variant": variant, "cpus": cpus,
           "params": {"remote": "idle", "pages": pages}, "metric": "cycles_per_page",
           "unit": "cycles", "better": "lower", "runs": n,
           "median": (srt[(n - 1) // 2] + srt[n // 2]) / 2, "min": srt[0], "max": srt[-1],
           "mean": sum(srt) / n, "stddev": 1.0, "counters": {}, "samples": samples,
           "seq": list(range(n)), "median_ci": list(median_ci(samples))}
    obj.update(changes)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


def sweep(a, b, **kw):
    """One design's records at every P of PAGES, costs on C(P) = a + b P."""
    return [record(p, b + a / p, **kw) for p in PAGES]


class TestFitLine(unittest.TestCase):
    def test_exact_line_comes_back(self):
        a, b = fit_line([(p, 300 + 5000 / p) for p in PAGES])
        self.assertAlmostEqual(a, 5000)
        self.assertAlmostEqual(b, 300)

    def test_one_page_count_is_refused(self):
        with self.assertRaises(ValueError):
            fit_line([(8, 1.0), (8, 2.0)])


class TestFits(unittest.TestCase):
    def test_each_design_and_cpu_count_fitted(self):
        recs = sweep(5000, 300) + sweep(40000, 900, variant="naive") + sweep(9000, 350, cpus=2)
        fits = fit_results(recs)
        got = {(f["design"], f["cpus"]): (round(f["a"]), round(f["b"])) for f in fits}
        self.assertEqual(got, {("batched", 1): (5000, 300), ("naive", 1): (40000, 900),
                               ("batched", 2): (9000, 350)})
        f = fits[0]
        self.assertEqual((f["bench"], f["params"], f["n_points"], f["unit"], f["ci"]),
                         ("tlb", {"remote": "idle"}, 5, "cycles", "bootstrap"))
        self.assertEqual(f["n_runs"], 5 * len(JITTER))

    def test_intervals_hold_the_estimates(self):
        f = fit_results(sweep(5000, 300))[0]
        self.assertLessEqual(f["a_ci"][0], f["a"])
        self.assertGreaterEqual(f["a_ci"][1], f["a"])
        self.assertLessEqual(f["b_ci"][0], f["b"])
        self.assertGreaterEqual(f["b_ci"][1], f["b"])
        # 2% jitter: the per-page part is known to well within +-10%.
        self.assertGreater(f["b_ci"][0], 270)
        self.assertLess(f["b_ci"][1], 330)

    def test_same_records_same_intervals(self):
        self.assertEqual(fit_results(sweep(5000, 300)), fit_results(sweep(5000, 300)))

    def test_no_interval_with_too_few_runs(self):
        f = fit_results(sweep(5000, 300, jitter=(1.0, 1.01, 0.99)))[0]
        self.assertIsNone(f["a_ci"])
        self.assertIsNone(f["b_ci"])
        self.assertAlmostEqual(f["a"], 5000)

    def test_too_few_page_counts_no_fit(self):
        self.assertEqual(fit_results(sweep(5000, 300)[:2]), [])

    def test_other_metrics_left_out(self):
        self.assertEqual(fit_results(sweep(5000, 300, metric="cycles_per_op")), [])

    def test_peer_system_fitted_apart(self):
        recs = sweep(5000, 300) + sweep(2000, 100, system="linux-6.1")
        recs += sweep(3000, 150, system="linux-6.1", cpus=2)
        got = {(f["system"], f["cpus"]): (round(f["a"]), round(f["b"]))
               for f in fit_results(recs)}
        self.assertEqual(got, {("mmlab", 1): (5000, 300), ("linux-6.1", 1): (2000, 100),
                               ("linux-6.1", 2): (3000, 150)})
        comps = component_results(recs)
        self.assertEqual({c["system"] for c in comps}, {"linux-6.1"})
        self.assertAlmostEqual(comps[0]["delta"], 50 + 1000 / comps[0]["pages"])


class TestComponents(unittest.TestCase):
    def test_delta_is_n_cpus_less_one(self):
        recs = sweep(5000, 300) + sweep(9000, 350, cpus=2)
        comps = component_results(recs)
        self.assertEqual([c["pages"] for c in comps], list(PAGES))
        for c in comps:
            self.assertEqual((c["cpus"], c["base_cpus"], c["design"]), (2, 1, "batched"))
            self.assertAlmostEqual(c["delta"], 50 + 4000 / c["pages"])
            self.assertLessEqual(c["delta_ci"][0], c["delta"])
            self.assertGreaterEqual(c["delta_ci"][1], c["delta"])
            self.assertGreater(c["delta_ci"][0], 0)

    def test_no_base_no_component(self):
        self.assertEqual(component_results(sweep(9000, 350, cpus=2)), [])

    def test_delta_interval_includes_zero_for_equal_sides(self):
        ci = delta_ci([100.0, 101, 99, 100, 102, 98], [100.0, 99, 101, 100, 98, 102], 1)
        self.assertLessEqual(ci[0], 0)
        self.assertGreaterEqual(ci[1], 0)
        self.assertIsNone(delta_ci([1.0] * 5, [1.0] * 6, 1))


class TestOutputs(unittest.TestCase):
    def test_text_section(self):
        recs = sweep(5000, 300) + sweep(9000, 350, cpus=2)
        lines = render_fits_text(fit_results(recs), component_results(recs))
        self.assertIn("Fits of the unmap cost per page", lines)
        self.assertIn("Shootdown component of the unmap cost per page", lines)
        self.assertEqual(render_fits_text([], []), [])

    def test_fixture_reaches_json_table_and_page(self):
        log = parse_log(data("bench_page.log"))
        self.assertEqual(len(fit_results(log.benches)), 3)  # naive, batched, serial at 2 CPUs
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            write_results_json(log, path)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual([f["design"] for f in doc["fits"]], ["naive", "batched", "serial"])
            self.assertEqual(doc["components"], [])  # no 1-CPU case in that log
            self.assertIn("Fits of the unmap cost per page",
                          render_results_table(log.benches, log.header))
            self.assertIn("id=\"fits\"", render_run_page(log, tmp))


if __name__ == "__main__":
    unittest.main()
