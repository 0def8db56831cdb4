"""Tests for tools/mmlab/fits.py: the unmap cost per page taken apart per regime.

Synthetic tlb records whose costs per call lie on one line in the small
regime (at or below the ceiling) and another in the large one (64 pages
and more) must give back each line; a regime whose points are no line, or
whose per-call cost is negative, is refused and shows no figure; no fit
spans the two regimes. The remote component Delta is the difference of
medians between N CPUs and 1. The fixture bench_page.log (tlb at pages 1,
8, 64) reaches results.json, table.txt and the page.
"""
import json
import os
import tempfile
import unittest

from toolpath import data
from mmlab.fits import (LARGE, SMALL, component_results, delta_ci, fit_line, fit_results,
                        fits_table, render_fits_text)
from mmlab.html import render_run_page
from mmlab.log import parse_log
from mmlab.records import bench_from_json
from mmlab.resultsfile import write_results_json
from mmlab.stats import median_ci
from mmlab.table import render_results_table

SMALL_PAGES = (1, 8, 32)
LARGE_PAGES = (64, 512, 4096)
PAGES = SMALL_PAGES + LARGE_PAGES
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


def sweep(a, b, a2=None, b2=None, **kw):
    """One design's records: C(P) = a + b P at SMALL_PAGES, a2 + b2 P at LARGE_PAGES."""
    a2, b2 = (a, b) if a2 is None else (a2, b2)
    return ([record(p, b + a / p, **kw) for p in SMALL_PAGES]
            + [record(p, b2 + a2 / p, **kw) for p in LARGE_PAGES])


def by_regime(fits):
    return {(f["design"], f["cpus"], f["regime"]): f for f in fits}


class TestFitLine(unittest.TestCase):
    def test_exact_line_comes_back(self):
        a, b = fit_line([(p, 5000 + 300 * p) for p in PAGES])
        self.assertAlmostEqual(a, 5000)
        self.assertAlmostEqual(b, 300)

    def test_one_page_count_is_refused(self):
        with self.assertRaises(ValueError):
            fit_line([(8, 1.0), (8, 2.0)])


class TestRegimeFits(unittest.TestCase):
    def test_each_regime_its_own_line(self):
        # invlpg per page below the ceiling, a full flush above: two lines.
        f = by_regime(fit_results(sweep(5000, 300, 20000, 120)))
        small, large = f[("batched", 1, SMALL)], f[("batched", 1, LARGE)]
        self.assertEqual((small["pages"], large["pages"]), (list(SMALL_PAGES), list(LARGE_PAGES)))
        self.assertAlmostEqual(small["per_call"], 5000, places=6)
        self.assertAlmostEqual(small["per_page"], 300, places=6)
        self.assertIsNone(large["per_call"])  # the large regime's intercept is no per-call cost
        self.assertAlmostEqual(large["per_page"], 120, places=6)
        self.assertIsNone(small["refused"])
        self.assertIsNone(large["refused"])
        self.assertEqual((small["unit"], small["ci"]), ("cycles", "bootstrap"))

    def test_no_fit_spans_the_regimes(self):
        for f in fit_results(sweep(5000, 300, 20000, 120) + sweep(9000, 350, cpus=2)):
            self.assertTrue(all(p <= 33 for p in f["pages"]) or all(p >= 64 for p in f["pages"]),
                            f["pages"])

    def test_ceiling_from_the_records(self):
        recs = [record(p, 300 + 5000 / p, flush_ceiling=8) for p in SMALL_PAGES]
        self.assertEqual([f["pages"] for f in fit_results(recs)], [[1, 8]])

    def test_large_regime_ends_at_the_gather_bound(self):
        recs = sweep(5000, 300, 20000, 120) + [record(8194, 900.0)]
        self.assertEqual(by_regime(fit_results(recs))[("batched", 1, LARGE)]["pages"],
                         list(LARGE_PAGES))
        recs = [record(p, 120 + 20000 / p, batch_pages=512) for p in LARGE_PAGES]
        self.assertEqual([f["pages"] for f in fit_results(recs)], [[64, 512]])

    def test_intervals_hold_the_estimates(self):
        f = by_regime(fit_results(sweep(5000, 300, 20000, 120)))[("batched", 1, SMALL)]
        self.assertLessEqual(f["a_ci"][0], f["a"])
        self.assertGreaterEqual(f["a_ci"][1], f["a"])
        self.assertLessEqual(f["b_ci"][0], f["b"])
        self.assertGreaterEqual(f["b_ci"][1], f["b"])
        self.assertGreater(f["b_ci"][0], 250)
        self.assertLess(f["b_ci"][1], 350)

    def test_residuals_outside_their_interval_refused(self):
        # 512 pages 30% above the line through 64 and 4096: no line describes the regime.
        recs = sweep(5000, 300, 20000, 120)
        recs[4] = record(512, (120 + 20000 / 512) * 1.3)
        f = by_regime(fit_results(recs))[("batched", 1, LARGE)]
        self.assertIn("residual at P=512", f["refused"])
        self.assertAlmostEqual(sum(f["residuals"][:1]) + f["residuals"][2], -f["residuals"][1],
                               delta=abs(f["residuals"][1]))
        row = fits_table([f])[1][0]
        self.assertEqual(row[7], "refused")
        self.assertNotIn(f"{f['per_page']:.0f}", row[9])

    def test_negative_per_call_refused(self):
        f = by_regime(fit_results(sweep(-400, 300, 20000, 120)))[("batched", 1, SMALL)]
        self.assertIn("per-call cost", f["refused"])
        self.assertEqual(fits_table([f])[1][0][7], "refused")

    def test_two_points_say_nothing_was_tested(self):
        f = by_regime(fit_results(sweep(5000, 300)[:2]))[("batched", 1, SMALL)]
        self.assertFalse(f["checked"])
        self.assertIsNone(f["refused"])
        # Runs that tie leave a page count an interval of width 0: a line through such
        # points misses them by rounding alone, which is no residual.
        recs = [record(p, 0.1 + 1e4 / (3 * p), jitter=(1.0,) * 6) for p in (64, 513, 4099)]
        self.assertIsNone(fit_results(recs)[0]["refused"])
        self.assertIn("nothing tested", fits_table([f])[1][0][-1])

    def test_exact_records_fitted_against_the_tolerance(self):
        kw = {"metric": "instructions_per_page", "unit": "instructions", "jitter": (1.0, 1.0)}
        f = by_regime(fit_results(sweep(5000, 300, 20000, 120, **kw)))[("batched", 1, SMALL)]
        self.assertIsNone(f["refused"])
        self.assertIsNone(f["a_ci"])
        recs = sweep(5000, 300, 20000, 120, **kw)
        recs[1] = record(8, (300 + 5000 / 8) * 1.01, **kw)  # 1% off: beyond 0.1%
        self.assertIsNotNone(by_regime(fit_results(recs))[("batched", 1, SMALL)]["refused"])

    def test_same_records_same_intervals(self):
        self.assertEqual(fit_results(sweep(5000, 300)), fit_results(sweep(5000, 300)))

    def test_other_metrics_left_out(self):
        self.assertEqual(fit_results(sweep(5000, 300, metric="cycles_per_op")), [])

    def test_peer_system_fitted_apart(self):
        recs = sweep(5000, 300) + sweep(2000, 100, system="linux-6.1")
        got = {(f["system"], f["regime"]): round(f["per_page"]) for f in fit_results(recs)}
        self.assertEqual(got, {("mmlab", SMALL): 300, ("mmlab", LARGE): 300,
                               ("linux-6.1", SMALL): 100, ("linux-6.1", LARGE): 100})


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
        lines = render_fits_text(fit_results(sweep(5000, 300)))
        self.assertIn("Fits of the unmap cost per page per regime", lines)
        self.assertEqual(render_fits_text([]), [])

    def test_fixture_reaches_json_table_and_page(self):
        log = parse_log(data("bench_page.log"))
        fits = fit_results(log.benches)
        # pages 1 and 8 make the small regime; 64 alone no large one.
        self.assertEqual([(f["design"], f["regime"]) for f in fits],
                         [("naive", SMALL), ("batched", SMALL), ("serial", SMALL)])
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            write_results_json(log, path)
            with open(path) as f:
                doc = json.load(f)
            self.assertEqual([f["design"] for f in doc["fits"]], ["naive", "batched", "serial"])
            self.assertEqual(doc["components"], [])  # no 1-CPU case in that log
            self.assertEqual(doc["shootdown"], [])   # nor a null
            self.assertIn("Fits of the unmap cost per page per regime",
                          render_results_table(log.benches, log.header))
            self.assertIn("id=\"fits\"", render_run_page(log, tmp))


if __name__ == "__main__":
    unittest.main()
