"""Tests for the round-block bootstrap, the seeds per comparison, level shifts,
A/A controls and rows expected near 1 (tools/mmlab/rounds.py, mmlab.stats;
issue 25)."""
import json
import os
import tempfile
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.html import render_run_page
from mmlab.log import parse_log
from mmlab.records import bench_from_json
from mmlab.resultsfile import write_results_json
from mmlab.rounds import (INDEPENDENT, ROUND_BLOCK, harness_bias, level_shifts, pair_seed,
                          ratio_interval, shift_text)
from mmlab.stats import (bootstrap_ratio_ci, comparison_seed, level_shift, median_ci,
                         round_bootstrap_ratio_ci)
from mmlab.table import render_results_table

# Rounds whose level varies tenfold (a host that slows some rounds), the
# improved design 5% faster in every round.
ROUNDS = [100.0, 900.0, 300.0, 700.0, 200.0, 1000.0, 400.0, 600.0, 800.0, 500.0]
STEADY = [100.0, 102.0, 99.0, 101.0, 100.5, 98.5, 100.0, 101.5, 99.5, 100.0, 100.2, 99.8]


def record(samples, variant="naive", seq=True, **changes):
    """A well-formed ipi record of samples; seq: one position per round."""
    srt = sorted(samples)
    n = len(srt)
    obj = {"bench": "ipi", "variant": variant, "cpus": 2, "params": {"target": "all"},
           "metric": "cycles_per_round", "unit": "cycles", "better": "lower", "runs": n,
           "median": (srt[(n - 1) // 2] + srt[n // 2]) / 2, "min": srt[0], "max": srt[-1],
           "mean": sum(srt) / n, "stddev": 1.0, "counters": {}, "samples": list(samples),
           "median_ci": list(median_ci(samples))}
    if seq:
        obj["seq"] = [2 * i + (variant != "naive") for i in range(n)]
    obj.update(changes)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


class TestRoundBlock(unittest.TestCase):
    def test_pairing_removes_the_rounds_variation(self):
        naive = [r * 1.05 for r in ROUNDS]
        lo, hi = round_bootstrap_ratio_ci(naive, ROUNDS, "lower", seed=1)
        self.assertAlmostEqual(lo, 1.05)
        self.assertAlmostEqual(hi, 1.05)
        # Resampled on their own, the same runs cannot tell the designs apart.
        lo, hi = bootstrap_ratio_ci(naive, ROUNDS, "lower", seed=1)
        self.assertLess(lo, 1.0)

    def test_records_paired_by_round_use_it(self):
        a, b = record([r * 1.05 for r in ROUNDS]), record(ROUNDS, "batched")
        ci, method = ratio_interval(a, b, "lower")
        self.assertEqual(method, ROUND_BLOCK)
        self.assertGreater(ci[0], 1.0)

    def test_unpaired_records_resampled_apart(self):
        a, b = record(STEADY, seq=False), record(STEADY[:10], "batched")
        self.assertEqual(ratio_interval(a, b, "lower")[1], INDEPENDENT)
        a, b = record(STEADY), record(STEADY[:10], "batched")
        self.assertEqual(ratio_interval(a, b, "lower")[1], INDEPENDENT)

    def test_too_few_rounds(self):
        self.assertIsNone(round_bootstrap_ratio_ci(ROUNDS[:5], ROUNDS[:5], "lower"))
        with self.assertRaises(ValueError):
            round_bootstrap_ratio_ci(ROUNDS, ROUNDS[:9], "lower")


class TestSeeds(unittest.TestCase):
    def test_seed_depends_on_every_part_and_nothing_else(self):
        base = ("tlb", '{"pages": 8}', 2, "naive", "gen")
        self.assertEqual(comparison_seed(*base), comparison_seed(*base))
        for i, other in enumerate(("ipi", '{"pages": 9}', 4, "aa", "lazy")):
            changed = base[:i] + (other,) + base[i + 1:]
            self.assertNotEqual(comparison_seed(*changed), comparison_seed(*base), changed)

    def test_table_interval_uses_the_pair_seed(self):
        a, b = record(STEADY), record([v * 0.9 for v in STEADY], "batched")
        want = round_bootstrap_ratio_ci(a.samples, b.samples, "lower", seed=pair_seed(a, b))
        self.assertEqual(ratio_interval(a, b, "lower")[0], want)
        self.assertIn(f"{want[0]:.2f}-{want[1]:.2f}x", render_results_table([a, b]))


class TestLevelShift(unittest.TestCase):
    def test_a_step_is_found_where_it_is(self):
        at, p, factor = level_shift([100.0 + i % 3 for i in range(9)]
                                    + [170.0 + i % 3 for i in range(9)])
        self.assertEqual(at, 9)
        self.assertLess(p, 0.05)
        self.assertAlmostEqual(factor, 171 / 101)

    def test_steady_and_short_series_have_none(self):
        self.assertIsNone(level_shift(STEADY))
        self.assertIsNone(level_shift([100.0] * 4 + [170.0] * 5))  # 9 runs: no judgement

    def test_small_drift_is_not_a_shift(self):
        self.assertIsNone(level_shift([100.0 + i * 0.5 for i in range(20)]))

    def test_row_and_results_json_marked(self):
        shifted = [100.0] * 9 + [170.0] * 9
        recs = [record(shifted), record([v * 0.9 for v in shifted], "batched")]
        self.assertEqual(shift_text(recs[0]), "level shift in naive after run 9 (1.70x)")
        self.assertIn("level shift in batched after run 9", render_results_table(recs))
        self.assertEqual([(s["variant"], s["after_run"]) for s in level_shifts(recs)],
                         [("naive", 9), ("batched", 9)])


class TestControls(unittest.TestCase):
    def test_aa_that_includes_one_is_a_control(self):
        text = render_results_table([record(STEADY), record(STEADY[::-1], "aa")])
        self.assertIn("  A/A control\n", text)
        self.assertNotIn("WARNING", text)
        self.assertEqual(harness_bias([record(STEADY), record(STEADY[::-1], "aa")]), [])

    def test_failed_aa_is_harness_bias(self):
        recs = [record([v * 1.2 for v in STEADY]), record(STEADY, "aa")]
        text = render_results_table(recs)
        self.assertIn("A/A control: differs from 1, harness bias", text)
        self.assertIn("WARNING: 1 A/A control(s) differ from 1:", text)
        bias = harness_bias(recs)
        self.assertEqual(len(bias), 1)
        self.assertEqual((bias[0]["bench"], bias[0]["cpus"], bias[0]["method"]),
                         ("ipi", 2, ROUND_BLOCK))
        self.assertGreater(bias[0]["ratio_ci"][0], 1.0)

    def test_harness_bias_in_results_json_and_on_the_page(self):
        recs = [record([v * 1.2 for v in STEADY]), record(STEADY, "aa")]
        log = parse_log(os.devnull)
        log.benches = recs
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            write_results_json(log, path)
            with open(path) as f:
                doc = json.load(f)
            page = render_run_page(log, tmp)
        self.assertEqual(len(doc["warnings"]), 1)
        self.assertIn("harness bias", doc["warnings"][0]["why"])
        self.assertIn("<h3 class=\"bad\">Warnings (1)</h3>", page)
        self.assertIn("harness bias: ipi target=all cpus=2 cycles_per_round", page)

    def test_a_peer_naive_never_pairs_with_mmlab_aa(self):
        recs = [record(STEADY), record(STEADY[::-1], "aa"),
                record([v * 1.2 for v in STEADY], system="linux-6.1")]
        self.assertEqual(harness_bias(recs), [])

    def test_near_one_rows_are_never_harness_bias(self):
        recs = [record([v * 1.2 for v in STEADY], expect="near1"),
                record(STEADY, "batched", expect="near1")]
        self.assertEqual(harness_bias(recs), [])
        self.assertNotIn("WARNING", render_results_table(recs))

    def test_kernel_expected_near_1_mark_is_read_with_its_reason(self):
        # The kernel's mark (figbench): "expected_near_1":"why" and "control":false;
        # the aa row carries "control":true and stays the A/A control.
        why = "2 CPUs: one target, both designs call it"
        recs = [record(STEADY, expected_near_1=why, control=False),
                record(STEADY, "batched", expected_near_1=why, control=False),
                record(STEADY, "aa", control=True, control_kind="aa")]
        text = render_results_table(recs)
        self.assertIn("expected near 1 (%s)" % why, text)
        self.assertIn("A/A control", text)

    def test_runs_achieved_shown(self):
        text = render_results_table([record(STEADY), record(STEADY[:10], "batched")])
        # One row per design (mmlab.merge): each row's runs column holds its own count.
        rows = {line.split()[1]: line.split() for line in text.splitlines()
                if line.startswith("   2  ")}
        self.assertIn("runs  note", text)
        self.assertEqual(rows["naive"][-1], "12")  # the last cell: runs (no note here)
        self.assertEqual(rows["batched"][-1], "10")


if __name__ == "__main__":
    unittest.main()
