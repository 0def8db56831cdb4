"""Tests for the paired estimand, the false discovery rate, unstable rows, the seeds
per comparison, level shifts, A/A controls and rows expected near 1, in both modes
(tools/mmlab/rounds.py, mmlab.stats)."""
import json
import os
import tempfile
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.html import render_run_page
from mmlab.log import parse_log
from mmlab.records import bench_from_json
from mmlab.resultsfile import write_results_json
from mmlab.rounds import (EXACT, INDEPENDENT, PAIRED, harness_bias, judge_pairs, level_shifts,
                          pair_seed, shift_text, unstable_rows, verdict_of)
from mmlab.stats import (bootstrap_ratio_ci, comparison_seed, fdr_reject, level_shift,
                         median_ci, paired_ratio, two_modes)
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


class TestPaired(unittest.TestCase):
    def test_pairing_removes_the_rounds_variation(self):
        naive = [r * 1.05 for r in ROUNDS]
        est = paired_ratio(naive, ROUNDS, "lower")
        self.assertAlmostEqual(est.ratio, 1.05)
        self.assertAlmostEqual(est.ci[0], 1.05)
        self.assertAlmostEqual(est.ci[1], 1.05)
        self.assertAlmostEqual(est.p, 2 / 2 ** 10)  # the sign test: 10 wins of 10
        # Resampled on their own, the same runs cannot tell the designs apart.
        lo, hi = bootstrap_ratio_ci(naive, ROUNDS, "lower", seed=1)
        self.assertLess(lo, 1.0)

    def test_estimand_is_the_median_of_round_ratios(self):
        # Round ratios 2, 2, 2, 4, 1.5 (naive / design): their median, not a ratio of medians.
        naive, design = [200.0, 400.0, 600.0, 800.0, 150.0], [100.0, 200.0, 300.0, 200.0, 100.0]
        est = paired_ratio(naive, design, "lower")
        self.assertAlmostEqual(est.ratio, 2.0)
        self.assertIsNone(est.ci)  # 5 rounds: no 95% interval of order statistics
        self.assertAlmostEqual(paired_ratio(design, naive, "higher").ratio, 2.0)

    def test_records_paired_by_round_use_it(self):
        a, b = record([r * 1.05 for r in ROUNDS]), record(ROUNDS, "batched")
        v = verdict_of(a, b, "lower")
        self.assertEqual(v.method, PAIRED)
        self.assertAlmostEqual(v.ratio, 1.05)
        self.assertTrue(v.significant)

    def test_unpaired_records_resampled_apart(self):
        a, b = record(STEADY, seq=False), record(STEADY[:10], "batched")
        self.assertEqual(verdict_of(a, b, "lower").method, INDEPENDENT)
        a, b = record(STEADY), record(STEADY[:10], "batched")
        self.assertEqual(verdict_of(a, b, "lower").method, INDEPENDENT)

    def test_unequal_rounds_are_refused(self):
        with self.assertRaises(ValueError):
            paired_ratio(ROUNDS, ROUNDS[:9], "lower")


class TestFalseDiscoveryRate(unittest.TestCase):
    def test_benjamini_hochberg_step_up(self):
        # Sorted 0.002, 0.01, 0.03, 0.04, 0.5 against 0.01, 0.02, 0.03, 0.04, 0.05: the
        # largest p under its line is the fourth, so the first four are discoveries.
        self.assertEqual(fdr_reject([0.01, 0.04, 0.03, 0.5, 0.002]),
                         [True, True, True, False, True])
        self.assertEqual(fdr_reject([0.04, 0.045, 0.3]), [False, False, False])
        self.assertEqual(fdr_reject([]), [])

    def test_a_table_of_many_rows_keeps_its_stars_for_real_effects(self):
        # One row 3% faster in 8 of 10 rounds (sign test p 0.11, ~0.04 with 9 of 10):
        # alone a 95% interval may exclude 1; among 40 null rows it is not a discovery.
        null = [record(STEADY[:10], cpus=c) for c in range(1, 41)]
        pairs = [(r, record(STEADY[:10][::-1], "batched", cpus=r.cpus)) for r in null]
        nine = [v * (0.97 if i else 1.01) for i, v in enumerate(STEADY[:10])]
        pairs.append((record(STEADY[:10], cpus=99), record(nine, "batched", cpus=99)))
        verdicts = judge_pairs(pairs)
        self.assertLess(verdicts[-1].p, 0.05)
        self.assertFalse(any(v.significant for v in verdicts))
        # Alone (a family of one) the same row is a discovery.
        self.assertTrue(judge_pairs(pairs[-1:])[0].significant)


class TestUnstable(unittest.TestCase):
    def test_two_modes(self):
        # The halted IPI round: runs at about 15 k and about 32 k cycles.
        self.assertEqual(two_modes([15.0e3, 32.0e3, 15.2e3, 31.0e3, 15.1e3, 32.5e3]),
                         (15.1e3, 32.0e3))
        # 8 of 10 runs at 10-32 M (a host quantum), 2 near 20 k.
        self.assertIsNotNone(two_modes([20e3, 21e3] + [10e6, 15e6, 20e6, 32e6, 12e6, 11e6,
                                                       25e6, 30e6]))

    def test_one_mode_and_one_outlier_are_not_two(self):
        self.assertIsNone(two_modes(STEADY))
        self.assertIsNone(two_modes(STEADY[:9] + [180.0]))  # one far run: an outlier
        self.assertIsNone(two_modes([100.0, 104.0, 109.0, 113.0, 118.0, 123.0, 128.0, 134.0]))

    def test_bimodal_row_has_no_ratio_and_shows_the_modes(self):
        modes = [15.0e3, 32.0e3, 15.2e3, 31.0e3, 15.1e3, 32.5e3, 15.3e3, 31.5e3]
        # The design's modes out of step with naive's: the rounds' ratios are bimodal too.
        a, b = record(modes), record([v * 0.5 for v in modes[1:] + modes[:1]], "batched")
        v = verdict_of(a, b, "lower")
        self.assertFalse(v.significant)
        self.assertIsNone(v.p)
        self.assertIn("two modes in naive: 1.515e+04 | 3.175e+04", v.unstable)
        self.assertTrue(any(w.startswith("two modes in the rounds' naive/batched ratios")
                            for w in v.unstable), v.unstable)
        text = render_results_table([a, b])
        row = next(line for line in text.splitlines() if " batched " in line)
        self.assertIn("unstable", row)
        self.assertNotIn("2.00x", row)
        self.assertEqual(unstable_rows([a, b])[0]["design"], "batched")

    def test_modes_both_designs_share_leave_the_ratio(self):
        """A round's mode (a halted target, the host) moves both designs: each round's ratio
        holds one level, so the paired estimate stands and the modes are a note."""
        modes = [15.0e3, 32.0e3, 15.2e3, 31.0e3, 15.1e3, 32.5e3, 15.3e3, 31.5e3, 15.2e3, 32.2e3]
        a, b = record(modes), record([v * 0.5 * (1 + 0.002 * (i % 3)) for i, v in
                                      enumerate(modes)], "batched")
        v = verdict_of(a, b, "lower")
        self.assertEqual(v.unstable, [])
        self.assertAlmostEqual(v.ratio, 2.0, delta=0.01)
        self.assertTrue(v.significant)
        self.assertIn("two modes in naive: 1.52e+04 | 3.2e+04", v.shared)
        row = next(line for line in render_results_table([a, b]).splitlines()
                   if " batched " in line)
        self.assertIn("in both: the rounds' ratios hold", row)

    def test_shift_both_designs_share_leaves_the_ratio(self):
        shifted = [100.0 + i % 3 for i in range(9)] + [170.0 + i % 3 for i in range(9)]
        a, b = record(shifted), record([v / 1.5 for v in shifted], "batched")
        v = verdict_of(a, b, "lower")
        self.assertEqual(v.unstable, [])
        self.assertAlmostEqual(v.ratio, 1.5, delta=0.01)
        self.assertTrue(any(w.startswith("level shift in naive after run 9") for w in v.shared))

    def test_wide_interval_is_unstable(self):
        # Round ratios spread from 0.5 to 3: an interval spanning more than a factor 2.
        naive = [100.0] * 10
        design = [200.0, 33.0, 150.0, 40.0, 120.0, 50.0, 90.0, 60.0, 45.0, 70.0]
        v = verdict_of(record(naive), record(design, "batched"), "lower")
        self.assertGreater(v.ci[1] / v.ci[0], 2.0)
        self.assertTrue(any("spans more than a factor 2" in w for w in v.unstable), v.unstable)

    def test_level_shift_at_ten_runs_is_unstable(self):
        shifted = [100.0, 101.0, 99.0, 100.5, 99.5, 150.0, 151.0, 149.0, 150.5, 149.5]
        a, b = record(shifted), record([100.0 + i % 3 for i in range(10)], "batched")
        self.assertIn("level shift in naive after run 5 (1.50x)", verdict_of(a, b, "lower").unstable)


class TestExact(unittest.TestCase):
    EXACT = {"unit": "instructions", "metric": "instructions_per_op"}

    def exact(self, samples, variant="naive"):
        return record(samples, variant, **self.EXACT)

    def test_exact_ratio_needs_no_statistics(self):
        v = verdict_of(self.exact([1903.0, 1903.0]), self.exact([529.375, 529.375], "batched"),
                       "lower")
        self.assertEqual((v.method, v.ci, v.p, v.unstable), (EXACT, None, None, []))
        self.assertAlmostEqual(v.ratio, 1903.0 / 529.375)
        self.assertTrue(v.significant)

    def test_aa_within_a_tenth_of_a_percent_passes(self):
        recs = [self.exact([1910.84, 1910.84]), self.exact([1910.0, 1910.0], "aa")]
        self.assertEqual(harness_bias(recs), [])
        self.assertIn("A/A control\n", render_results_table(recs))

    def test_aa_beyond_a_tenth_of_a_percent_is_a_harness_defect(self):
        recs = [self.exact([1910.0, 1910.0]), self.exact([1908.0, 1908.0], "aa")]
        bias = harness_bias(recs)
        self.assertEqual([(b["method"], b["ratio_ci"]) for b in bias], [(EXACT, None)])
        self.assertIn("naive/aa 1.0010x differs from 1 by more than 0.1%",
                      render_results_table(recs))

    def test_runs_that_differ_mean_the_figure_does_not_hold(self):
        v = verdict_of(self.exact([1910.84, 1905.0]), self.exact([529.0, 529.0], "batched"),
                       "lower")
        self.assertEqual(v.unstable, ["naive's runs differ by 0.31%"])
        self.assertEqual(verdict_of(self.exact([1910.84, 1910.76]),
                                    self.exact([529.0, 529.0], "batched"), "lower").unstable, [])


class TestSeeds(unittest.TestCase):
    def test_seed_depends_on_every_part_and_nothing_else(self):
        base = ("tlb", '{"pages": 8}', 2, "naive", "gen")
        self.assertEqual(comparison_seed(*base), comparison_seed(*base))
        for i, other in enumerate(("ipi", '{"pages": 9}', 4, "aa", "lazy")):
            changed = base[:i] + (other,) + base[i + 1:]
            self.assertNotEqual(comparison_seed(*changed), comparison_seed(*base), changed)

    def test_unpaired_interval_uses_the_pair_seed(self):
        a, b = record(STEADY, seq=False), record([v * 0.9 for v in STEADY], "batched", seq=False)
        want = bootstrap_ratio_ci(a.samples, b.samples, "lower", seed=pair_seed(a, b))
        self.assertEqual(verdict_of(a, b, "lower").ci, want)
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
        self.assertIsNone(level_shift([100.0] * 3 + [170.0] * 4))  # 7 runs: no judgement

    def test_fires_at_ten_runs(self):
        # Pettitt's asymptotic p cannot go below 0.05 at ten runs; the permutation p can.
        at, p, factor = level_shift([100.0, 101.0, 99.0, 100.5, 99.5,
                                     150.0, 151.0, 149.0, 150.5, 149.5])
        self.assertEqual((at, round(factor, 2)), (5, 1.5))
        self.assertLess(p, 0.02)

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
                         ("ipi", 2, PAIRED))
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
