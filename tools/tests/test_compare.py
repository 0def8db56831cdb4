"""Tests for tools/mmlab/compare.py and mmlab.resultsfile: comparing two runs."""
import json
import os
import tempfile
import unittest

from toolpath import data
from mmlab.compare import (compare_pair, compare_records, design_sets, render_compare,
                           render_compare_page)
from mmlab.log import parse_log
from mmlab.records import bench_from_json
from mmlab.resultsfile import load_run, write_results_json


def record(median, stddev=1.0, better="lower", **changes):
    """A BenchRecord with the given median, spread and direction."""
    obj = {"bench": "tlb", "variant": "batched", "cpus": 4, "params": {"pages": 512},
           "metric": "cycles_per_op", "unit": "cycles", "better": better, "runs": 5,
           "median": median, "min": median * 0.5, "max": median * 1.5, "mean": median,
           "stddev": stddev, "counters": {}}
    obj.update(changes)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


class TestChangeSign(unittest.TestCase):
    def test_lower_is_better_fall_is_positive(self):
        row = compare_pair(record(100.0), record(80.0))
        self.assertAlmostEqual(row.change, 20.0)

    def test_lower_is_better_rise_is_negative(self):
        row = compare_pair(record(100.0), record(125.0))
        self.assertAlmostEqual(row.change, -25.0)

    def test_higher_is_better_rise_is_positive(self):
        row = compare_pair(record(100.0, better="higher"), record(125.0, better="higher"))
        self.assertAlmostEqual(row.change, 25.0)

    def test_higher_is_better_fall_is_negative(self):
        row = compare_pair(record(100.0, better="higher"), record(80.0, better="higher"))
        self.assertAlmostEqual(row.change, -20.0)

    def test_direction_disagreement_is_not_compared(self):
        row = compare_pair(record(100.0), record(80.0, better="higher"))
        self.assertIsNone(row.change)
        self.assertTrue(row.note)


class TestNoiseFlag(unittest.TestCase):
    def test_change_beyond_noise_is_marked(self):
        # 10% change, spreads of 2% and 3%: 10 > 2 x 3.
        self.assertTrue(compare_pair(record(100.0, 2.0), record(90.0, 2.7)).significant)

    def test_change_inside_noise_is_not_marked(self):
        # 5% change, spread of 4%: 5 < 2 x 4.
        self.assertFalse(compare_pair(record(100.0, 4.0), record(95.0, 1.0)).significant)

    def test_factor_changes_the_threshold(self):
        a, b = record(100.0, 4.0), record(95.0, 1.0)
        self.assertTrue(compare_pair(a, b, factor=1.0).significant)


class TestMatching(unittest.TestCase):
    def test_rows_and_one_sided_results(self):
        a = [record(100.0, cpus=1), record(100.0, cpus=2)]
        b = [record(90.0, cpus=2), record(90.0, cpus=8)]
        rows, only_a, only_b = compare_records(a, b)
        self.assertEqual([r.a.cpus for r in rows], [2])
        self.assertEqual([r.cpus for r in only_a], [1])
        self.assertEqual([r.cpus for r in only_b], [8])

    def test_params_and_metric_are_part_of_the_match(self):
        a = [record(100.0)]
        b = [record(100.0, params={"pages": 1}), record(100.0, metric="us_per_op")]
        rows, only_a, only_b = compare_records(a, b)
        self.assertEqual((len(rows), len(only_a), len(only_b)), (0, 1, 2))


class TestRenderedComparison(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.text = render_compare(parse_log(data("bench_good.log")),
                                  parse_log(data("bench_b.log")))
        cls.lines = cls.text.splitlines()

    def row(self, *words):
        """The table row holding every word in words."""
        return next(line for line in self.lines
                    if all(w in line.split() for w in words) and "cpus=" not in line)

    def test_header_explains_the_sign_and_marker(self):
        self.assertIn("%change: positive means B is better than A", self.text)
        self.assertIn("* marks a change beyond what separates boots (the boot is the unit)",
                      self.text)
        self.assertIn("|%change| > 2 x the larger ±stddev% of A and B", self.text)

    def test_regression_in_lower_is_better_metric(self):
        row = self.row("tlb", "batched", "4")
        self.assertTrue(row.endswith("-20.00% *"), row)

    def test_improvement_in_higher_is_better_metric(self):
        row = self.row("swapfree", "batched", "4")
        self.assertTrue(row.endswith("+25.00% *"), row)

    def test_small_change_inside_noise_is_unmarked(self):
        row = self.row("pin", "fixed", "2")
        self.assertTrue(row.endswith("+1.00%"), row)

    def test_unchanged_row(self):
        self.assertTrue(self.row("tlb", "naive", "1").endswith("+0.00%"))

    def test_one_sided_results_are_listed(self):
        at_a, at_b = self.lines.index("Only in A:"), self.lines.index("Only in B:")
        self.assertEqual(self.lines[at_a + 1].split()[:5],
                         ["ipi", "target=all", "cycles_per_op", "naive", "cpus=2:"])
        self.assertTrue(self.lines[at_b + 1].startswith("  faultlock - faults_per_sec"))


class TestLoadingRuns(unittest.TestCase):
    def test_results_folder_json_and_log_load_alike(self):
        log = parse_log(data("bench_good.log"))
        with tempfile.TemporaryDirectory() as tmp:
            write_results_json(log, os.path.join(tmp, "results.json"))
            runs = [load_run(tmp), load_run(os.path.join(tmp, "results.json")),
                    load_run(data("bench_good.log"))]
        for run in runs:
            self.assertEqual(run.problems, [])
            self.assertEqual([b.to_dict() for b in run.benches],
                             [b.to_dict() for b in log.benches])
            self.assertEqual(run.header, log.header)

    def test_edited_results_json_is_checked_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "results.json")
            write_results_json(parse_log(data("bench_good.log")), path)
            with open(path) as f:
                doc = json.load(f)
            doc["results"][0]["median"] = "fast"
            with open(path, "w") as f:
                json.dump(doc, f)
            run = load_run(tmp)
        self.assertEqual(len(run.benches), 19)
        self.assertEqual([p.kind for p in run.problems], ["non-numeric"])

    def test_missing_folder_is_a_problem(self):
        run = load_run(os.path.join(tempfile.gettempdir(), "no-such-mmlab-results"))
        self.assertEqual([p.kind for p in run.problems], ["unreadable"])


def renamed(records, old, new, bench="tlb"):
    """Copies of records with bench's design old renamed new (another design set)."""
    out = []
    for r in records:
        obj = r.to_dict()
        if r.bench == bench and r.variant == old:
            obj["variant"] = new
        out.append(bench_from_json(obj, r.line)[0])
    return out


class TestDesignSets(unittest.TestCase):
    """Runs with different designs compare, each missing design named."""

    @classmethod
    def setUpClass(cls):
        cls.a = parse_log(data("bench_page.log"))
        cls.b = parse_log(data("bench_page.log"))
        # B: tlb has gen where A has serial, pin lost its naive design, and one fewer CPU count.
        cls.b.benches = [r for r in renamed(cls.a.benches, "serial", "gen")
                         if not (r.bench == "pin" and (r.variant == "naive" or r.cpus == 1))]

    def test_design_differences_named_per_bench(self):
        self.assertEqual(design_sets(self.a.benches, self.b.benches),
                         [("tlb", ["serial"], ["gen"]), ("pin", ["naive"], [])])
        self.assertEqual(design_sets(self.a.benches, self.a.benches), [])

    def test_bench_in_one_run_only(self):
        ipi = [record(10.0, bench="ipi", variant="naive"), record(9.0, bench="ipi")]
        self.assertEqual(design_sets(self.a.benches, self.a.benches + ipi),
                         [("ipi", [], ["naive", "batched"])])

    def test_rendered_without_error(self):
        text = render_compare(self.a, self.b)
        lines = text.splitlines()
        self.assertIn("Designs in one run only (their results are listed after the table):",
                      lines)
        self.assertIn("  tlb: serial only in A; gen only in B", lines)
        self.assertIn("  pin: naive only in A", lines)
        # Shared designs are still compared side by side.
        self.assertTrue(any(line.split()[:5] == ["tlb", "pages=8,remote=idle",
                                                  "cycles_per_page", "cycles", "batched"]
                            for line in lines))
        only_a = lines[lines.index("Only in A:") + 1:lines.index("Only in B:")]
        serial = [line for line in only_a if " serial " in line]
        self.assertEqual(len(serial), 3)
        self.assertTrue(all(line.endswith("(design not in B)") for line in serial))
        # pin fixed at 1 CPU is missing from B, but B has the design: no such note.
        fixed = [line for line in only_a if " fixed cpus=1" in line]
        self.assertEqual(len(fixed), 1)
        self.assertNotIn("design not in", fixed[0])
        self.assertTrue(any(line.endswith("gen cpus=2: 6480 cycles ±3.41% (design not in A)")
                            for line in lines))

    def test_page_names_the_differences(self):
        text = render_compare_page(self.a, self.b)
        self.assertIn("tlb: serial only in A; gen only in B", text)
        self.assertIn('id="bench-tlb"', text)
        self.assertIn('id="bench-pin"', text)


if __name__ == "__main__":
    unittest.main()
