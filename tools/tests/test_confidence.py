"""Tests for the statistics a reviewer checks: the median's
confidence interval, the bootstrap interval of a ratio and its significance,
Tukey outlier counts, samples/seq/median_ci/control in BENCH records, the
table's marks for non-significant ratios and control rows, failed cases in
the table, and --compare flagging only changes beyond the noise."""
import json
import math
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.compare import compare_pair
from mmlab.log import parse_text
from mmlab.records import bench_from_json
from mmlab.stats import (bootstrap_ratio_ci, ci_halfwidth_pct, median_ci, median_ci_rank,
                         ratio_significant, tukey_outliers)
from mmlab.table import render_results_table

# Two samples sets far apart, and one inside the other's spread.
FAST = [100.0, 102.0, 99.0, 101.0, 100.5, 98.5, 100.0, 101.5, 99.5, 100.0]
SLOW = [200.0, 204.0, 198.0, 202.0, 201.0, 197.0, 200.0, 203.0, 199.0, 200.0]
FAST_TOO = [101.0, 99.0, 100.0, 102.0, 98.0, 100.5, 99.5, 101.5, 100.0, 100.0]


def record(samples, variant="naive", cpus=2, **changes):
    """A well-formed BENCH record whose statistics come from samples."""
    srt = sorted(samples)
    n = len(srt)
    med = (srt[(n - 1) // 2] + srt[n // 2]) / 2
    obj = {"bench": "ipi", "variant": variant, "cpus": cpus, "params": {"target": "all"},
           "metric": "cycles_per_round", "unit": "cycles", "better": "lower", "runs": n,
           "median": med, "min": srt[0], "max": srt[-1], "mean": sum(srt) / n,
           "stddev": 1.0, "counters": {}, "samples": list(samples),
           "seq": list(range(n)), "median_ci": list(median_ci(samples)), "control": False}
    obj.update(changes)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


def exact_rank(n):
    """The largest k with P(Bin(n, 1/2) < k) <= 2.5%, by brute force."""
    k = 0
    while sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n <= 0.025:
        k += 1
    return k


class TestMedianInterval(unittest.TestCase):
    def test_ranks_match_the_binomial_and_the_kernel(self):
        for n in range(1, 121):
            self.assertEqual(median_ci_rank(n), exact_rank(n), n)
        # lib/stats.c's test expects the same ranks (tests/lib/test_stats.c).
        self.assertEqual([median_ci_rank(n) for n in (5, 6, 10, 20, 50, 100, 120, 200)],
                         [0, 1, 2, 6, 18, 40, 49, 86])

    def test_interval_of_ten_is_second_to_ninth(self):
        self.assertEqual(median_ci(list(range(10, 0, -1))), (2, 9))

    def test_too_few_runs_give_the_whole_range(self):
        self.assertEqual(median_ci([3, 1, 2]), (1, 3))

    def test_halfwidth_is_a_percentage_of_the_median(self):
        # 1..10: median 5.5, interval 2..9: half-width 3.5 = 63.6%.
        self.assertAlmostEqual(ci_halfwidth_pct(list(range(1, 11))), 350 / 5.5)
        self.assertEqual(ci_halfwidth_pct([7.0] * 8), 0.0)


class TestRatioInterval(unittest.TestCase):
    def test_clear_difference_is_significant(self):
        ci = bootstrap_ratio_ci(SLOW, FAST, "lower")
        self.assertTrue(1.9 < ci[0] <= 2.0 <= ci[1] < 2.1, ci)
        self.assertTrue(ratio_significant(ci))

    def test_overlapping_samples_are_not(self):
        ci = bootstrap_ratio_ci(FAST, FAST_TOO, "lower")
        self.assertTrue(ci[0] < 1.0 < ci[1], ci)
        self.assertFalse(ratio_significant(ci))

    def test_direction_turns_the_ratio(self):
        ci = bootstrap_ratio_ci(FAST, SLOW, "higher")
        self.assertTrue(ci[0] > 1.9, ci)

    def test_fixed_seed_gives_the_same_interval(self):
        self.assertEqual(bootstrap_ratio_ci(SLOW, FAST, "lower"),
                         bootstrap_ratio_ci(SLOW, FAST, "lower"))

    def test_too_few_runs_give_no_interval(self):
        self.assertIsNone(bootstrap_ratio_ci(SLOW[:5], FAST, "lower"))
        self.assertFalse(ratio_significant(None))


class TestOutliers(unittest.TestCase):
    def test_tukey_fences(self):
        self.assertEqual(tukey_outliers(FAST), 0)
        self.assertEqual(tukey_outliers(FAST[:9] + [300.0]), 1)
        self.assertEqual(tukey_outliers(FAST[:8] + [10.0, 300.0]), 2)
        self.assertEqual(tukey_outliers([1.0, 100.0, 1000.0]), 0)  # no quartiles


class TestDesignFields(unittest.TestCase):
    def test_samples_and_seq_parse(self):
        rec = record(FAST, seq=[0, 2, 4, 7, 9, 10, 13, 15, 16, 18])
        self.assertEqual(rec.samples, FAST)
        self.assertEqual(rec.seq[:3], [0, 2, 4])
        self.assertFalse(rec.control)

    def test_bad_design_fields_are_problems(self):
        good = record(FAST).to_dict()
        del good["line"]
        cases = [({"samples": FAST[:9]}, "9 samples for 10 runs"),
                 ({"samples": ["x"] * 10}, "'samples' must be a list of numbers"),
                 ({"seq": [-1] * 10}, "'seq' must be a list of counts"),
                 ({"median_ci": [1.0]}, "'median_ci' must be [low, high]"),
                 ({"median_ci": [1.0, 2.0]}, "outside median_ci"),
                 ({"control": "yes"}, "'control' must be true or false")]
        for change, message in cases:
            rec, problems = bench_from_json({**good, **change}, 3)
            self.assertIsNone(rec)
            self.assertIn(message, " ".join(p.message for p in problems), change)


def table(*records, failures=(), trailer=None):
    return render_results_table(list(records), None, (), failures, trailer)


def row_of(text, cpus, design="batched"):
    """A design's row at cpus: table.txt gives each design a row under naive's."""
    return next(line for line in text.splitlines() if line.split()[:2] == [str(cpus), design])


class TestTableMarks(unittest.TestCase):
    def test_significant_ratio_is_a_plain_ratio(self):
        row = row_of(table(record(SLOW), record(FAST, "batched")), 2)
        self.assertIn(" 2.00x", row)
        self.assertNotIn("~", row)

    def test_not_significant_ratio_is_marked(self):
        row = row_of(table(record(FAST), record(FAST_TOO, "batched")), 2)
        self.assertRegex(row, r" ~1\.\d\dx ")

    def test_too_few_runs_are_marked(self):
        row = row_of(table(record(SLOW[:4]), record(FAST[:4], "batched")), 2)
        self.assertIn("?2.00x", row)
        self.assertIn("fewer than 6 runs", row)

    def test_control_row_is_expected_near_one(self):
        # "control":true (older logs) reads as "expect":"near1": different code, no control.
        why = "2 CPUs: one target, both designs call it"
        for marks in ({"control": True}, {"expect": "near1"}):
            row = row_of(table(record(FAST, control_why=why, **marks),
                               record(FAST_TOO, "batched", control_why=why, **marks)), 2)
            self.assertIn(f"expected near 1 ({why})", row)
            self.assertNotIn("bias", row)

    def test_control_only_when_both_designs_say_so(self):
        # A design that does other work there (lazy sends no round at pages=1) is a result.
        row = row_of(table(record(SLOW, control=True, control_why="one round"),
                           record(FAST, "lazy")), 2, "lazy")
        self.assertNotIn("control", row)
        self.assertNotIn("bias", row)

    def test_design_note_is_shown(self):
        note = "completion deferred"
        row = row_of(table(record(SLOW), record(FAST, "lazy", note=note)), 2, "lazy")
        self.assertIn(note, row)

    def test_near_one_that_differs_is_said_but_not_bias(self):
        row = row_of(table(record(SLOW, expect="near1"), record(FAST, "batched",
                                                                expect="near1")), 2)
        self.assertIn("expected near 1: differs from 1 (different code)", row)
        self.assertNotIn("bias", row)

    def test_ci_width_and_outliers_are_shown(self):
        text = table(record(FAST[:9] + [300.0]), record(FAST, "batched"))
        row = row_of(text, 2)
        self.assertIn(f"±{ci_halfwidth_pct(FAST):.1f}%", row)
        # outliers: naive's 300 on naive's row, none on the design's (the cell before
        # the runs each achieved, the rows' last)
        self.assertEqual(row_of(text, 2, "naive").split()[-2:], ["1", "10"])
        self.assertEqual(row.split()[-2:], ["0", "10"])
        self.assertIn("part of the measurement environment", text)

    def test_failed_cases_and_status_are_listed(self):
        log = parse_text("# bench FAIL ipi naive cpus=2 target=all: 3 IPIs sent, "
                         "expected 2 (timed run 1)\n")
        text = table(record(FAST), failures=log.failures,
                     trailer={"passed": 1, "failed": 1, "skipped": 0, "status": "fail"})
        self.assertIn("1 failed case(s):", text)
        self.assertIn("  ipi naive cpus=2 target=all: 3 IPIs sent, expected 2 (timed run 1)",
                      text)
        self.assertIn("Run status fail (passed 1, failed 1, skipped 0)", text)


class TestCompareBoots(unittest.TestCase):
    """Two runs are two boots: the boot is the unit, not the runs inside one boot."""

    def test_one_boot_a_side_is_never_flagged(self):
        # Runs inside one boot cannot tell boots apart, however far apart they are.
        row = compare_pair(record(SLOW, "batched"), record(FAST, "batched"))
        self.assertFalse(row.significant)
        self.assertEqual(row.note, "one boot a side")
        self.assertAlmostEqual(row.change, 50.0, delta=1.0)

    def test_boots_that_agree_on_a_change_are_flagged(self):
        a, b = record(SLOW, "batched"), record(FAST, "batched")
        row = compare_pair(a, b, boots=([200.0, 202.0, 199.0], [100.0, 101.0, 99.5]))
        self.assertTrue(row.significant)
        self.assertEqual(row.note, "boots 3/3")
        self.assertAlmostEqual(row.change, 50.0, delta=1.0)

    def test_boots_that_scatter_are_not(self):
        a, b = record(SLOW, "batched"), record(FAST, "batched")
        row = compare_pair(a, b, boots=([200.0, 100.0], [100.0, 210.0]))
        self.assertFalse(row.significant)

    def test_exact_figures_differ_beyond_a_tenth_of_a_percent(self):
        exact = {"unit": "instructions", "metric": "instructions_per_op"}
        a = record([1000.0] * 2, "batched", **exact)
        self.assertTrue(compare_pair(a, record([1002.0] * 2, "batched", **exact)).significant)
        self.assertFalse(compare_pair(a, record([1000.5] * 2, "batched", **exact)).significant)

    def test_rows_show_the_median_interval(self):
        from mmlab.compare import render_rows
        row = compare_pair(record(SLOW, "batched"), record(FAST, "batched"))
        text = "\n".join(render_rows([row]))
        self.assertIn(f"±{ci_halfwidth_pct(SLOW):.1f}%", text)


class TestInterleaving(unittest.TestCase):
    def test_alternating_rounds_pass(self):
        from mmlab.records import interleaving_problems
        a = record(FAST[:4], seq=[0, 3, 5, 6])
        b = record(FAST[:4], "batched", seq=[1, 2, 4, 7])
        self.assertEqual(interleaving_problems([a, b]), [])

    def test_one_variant_after_the_other_fails(self):
        from mmlab.records import interleaving_problems
        a = record(FAST[:4], seq=[0, 1, 2, 3])
        b = record(FAST[:4], "batched", seq=[4, 5, 6, 7])
        self.assertIn("not interleaved", interleaving_problems([a, b])[0])

    def test_repeated_positions_fail(self):
        from mmlab.records import interleaving_problems
        a = record(FAST[:2], seq=[0, 2])
        b = record(FAST[:2], "batched", seq=[1, 2])
        self.assertIn("repeats", interleaving_problems([a, b])[0])

    def test_log_reports_variants_run_apart(self):
        head = ('MMLAB {"version":"v","cmdline":"","cpu_model":"m","cpus":2,"tsc_hz":1,'
                '"hypervisor":null,"firmware":"bios","mem_bytes":1}\n')
        lines = []
        for variant, seq in (("naive", [0, 1, 2, 3, 4, 5]), ("batched", [6, 7, 8, 9, 10, 11])):
            obj = record(FAST[:6], variant, seq=seq).to_dict()
            del obj["line"]
            lines.append("BENCH " + json.dumps(obj))
        log = parse_text(head + "\n".join(lines) + '\nMMLAB-DONE {"passed":2,"failed":0,'
                         '"skipped":0,"status":"pass"}\n')
        kinds = [p.kind for p in log.problems]
        self.assertEqual(kinds, ["not-interleaved"], log.problems)


class TestPlotBars(unittest.TestCase):
    def test_bars_are_the_median_interval(self):
        from mmlab.groups import group_results
        from mmlab.plot import data_block
        group = group_results([record(list(range(1, 11)))])[0]
        self.assertEqual(data_block(group, "naive"), "2 5.5 2 9\n")


if __name__ == "__main__":
    unittest.main()
