"""Tests for tools/mmlab/table.py, mmlab.groups and mmlab.format."""
import unittest

from toolpath import data
from mmlab.format import format_count, format_number, format_percent, render_table
from mmlab.groups import group_results, plot_stems
from mmlab.log import parse_log
from mmlab.records import bench_from_json
from mmlab.table import counter_label, main_counters, render_results_table


def record(**changes):
    """A BenchRecord built from a well-formed object with changes applied."""
    obj = {"bench": "tlb", "variant": "naive", "cpus": 1, "params": {"pages": 8},
           "metric": "cycles_per_op", "unit": "cycles", "better": "lower", "runs": 3,
           "median": 100.0, "min": 90.0, "max": 110.0, "mean": 100.0, "stddev": 2.0,
           "counters": {"ipi_sent_per_op": 1.0, "flush_full_per_op": 0}}
    obj.update(changes)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


def section(text, title_start):
    """The lines of the table section whose title starts with title_start."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


class TestResultsTable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        log = parse_log(data("bench_good.log"))
        cls.text = render_results_table(log.benches, log.header, log.problems)

    def test_run_description_and_legend(self):
        lines = self.text.splitlines()
        self.assertTrue(lines[0].startswith("mmlab v0.1-12-g3af2c1d, QEMU Virtual CPU"))
        self.assertIn("512 MiB", lines[0])
        self.assertIn("> 1 means the improved design wins", self.text)

    def test_tlb_section_layout(self):
        lines = section(self.text, "tlb pages=512")
        self.assertEqual(lines[0], "tlb pages=512: cycles_per_op in cycles, lower is better"
                                   " (naive vs batched)")
        # One table per parameter set: naive's row, then a row per design.
        self.assertEqual(lines[1].split(), ["cpus", "design", "median", "(cycles)", "±CI",
                                            "ratio", "95%", "CI", "outliers", "ipi_sent",
                                            "flush_single", "flush_full", "runs", "note"])
        self.assertEqual(set(lines[2]), {"-", " "})
        # A log from before samples: standard deviations ('sd'), no interval ('?'); the
        # runs each design achieved on its own row (the line's runs, 11).
        self.assertEqual(lines[3].split(), ["1", "naive", "1210", "±1.00%sd", "-", "0", "1",
                                            "0", "11"])
        self.assertEqual(lines[4].split(), ["1", "batched", "302.5", "±1.32%sd", "?4.00x", "-",
                                            "-", "0", "0", "0.002", "11"])
        self.assertEqual(len(lines), 9)  # title, header, rule, 3 CPU counts x 2 designs

    def test_columns_line_up(self):
        lines = section(self.text, "tlb pages=512")[1:]
        ends = [line.index("4.00x") + 5 for line in lines if "4.00x" in line]
        self.assertEqual(ends, [lines[0].index("ratio") + 5])

    def test_ratio_above_one_for_lower_and_higher_is_better(self):
        tlb = section(self.text, "tlb pages=512")[8]
        swap = section(self.text, "swapfree")[8]
        self.assertIn("8.63x", tlb)    # 7810 / 905: lower is better
        self.assertIn("4.00x", swap)   # 12e6 / 3e6: higher is better
        self.assertIn("higher is better (naive vs batched)", section(self.text, "swapfree")[0])

    def test_counters_side_by_side(self):
        pin = section(self.text, "pin pages=64")
        self.assertIn("shared_writes", pin[1])
        # The 'naive / design' counter is split: 64 on naive's row, 1 on fixed's (then
        # pins, and the runs each achieved).
        self.assertEqual(pin[3].split()[-3:], ["64", "64", "11"])
        self.assertEqual(pin[4].split()[-3:], ["1", "64", "11"])

    def test_designs_share_one_table(self):
        log = parse_log(data("bench_page.log"))
        text = render_results_table(log.benches, log.header, log.problems)
        lines = section(text, "tlb pages=8 remote=idle")
        self.assertIn("(naive vs batched, serial)", lines[0])
        self.assertEqual([line.split()[1] for line in lines[3:]], ["naive", "batched", "serial"])
        self.assertEqual(text.count("tlb pages=8 remote=idle:"), 1)

    def test_bench_without_improved_variant(self):
        ipi = section(self.text, "ipi target=all")
        self.assertIn("(naive vs improved)", ipi[0])
        self.assertEqual(ipi[3].split()[:6], ["2", "2100", "±1.90%sd", "-", "-", "-"])

    def test_problems_are_listed(self):
        log = parse_log(data("bench_truncated.log"))
        text = render_results_table(log.benches, log.header, log.problems)
        self.assertIn("2 problem(s) in the log", text)
        self.assertIn("line 4: BENCH line is cut off", text)

    def test_no_results(self):
        self.assertIn("No benchmark results.", render_results_table([], None))


class TestGroups(unittest.TestCase):
    def test_naive_first_and_cpu_counts(self):
        groups = group_results([record(variant="batched", cpus=2), record(cpus=4),
                                record(cpus=2)])
        self.assertEqual(list(groups[0].variants), ["naive", "batched"])
        self.assertEqual(groups[0].cpu_counts(), [2, 4])
        self.assertEqual(groups[0].improved_variants(), ["batched"])

    def test_metric_and_params_split_groups(self):
        groups = group_results([record(), record(metric="us_per_round", unit="us"),
                                record(params={"pages": 16})])
        self.assertEqual(len(groups), 3)
        self.assertEqual(plot_stems(groups), ["tlb-pages-8-cycles_per_op",
                                              "tlb-pages-8-us_per_round", "tlb-pages-16"])

    def test_stem_without_params_and_with_odd_values(self):
        groups = group_results([record(params={}), record(bench="ipi", params={"target": "a/b c"})])
        self.assertEqual(plot_stems(groups), ["tlb", "ipi-target-a_b_c"])

    def test_counter_label(self):
        self.assertEqual(counter_label("ipi_sent_per_op"), "ipi_sent")
        self.assertEqual(counter_label("lock_rounds"), "lock_rounds")

    def test_only_busy_counters_are_shown(self):
        group = group_results([record(), record(variant="batched")])[0]
        self.assertEqual(main_counters(group, "batched"), ["ipi_sent_per_op"])


class TestFormatting(unittest.TestCase):
    def test_numbers(self):
        cases = [(1210.0, "1210"), (302.5, "302.5"), (41.0, "41.00"), (0.00586, "0.00586"),
                 (0.0, "0"), (7, "7"), (2.5e9, "2.500e+09"), (None, "-")]
        for value, text in cases:
            self.assertEqual(format_number(value), text)

    def test_counts_and_percentages(self):
        self.assertEqual(format_count(64.0), "64")
        self.assertEqual(format_count(0.002), "0.002")
        self.assertEqual(format_percent(20.0, signed=True), "+20.00%")
        self.assertEqual(format_percent(None), "n/a")

    def test_render_table_alignment(self):
        lines = render_table(["name", "value"], [["a", "1"], ["long", "100"]], "lr")
        self.assertEqual(lines, ["name  value", "----  -----", "a         1",
                                 "long    100"])


if __name__ == "__main__":
    unittest.main()
