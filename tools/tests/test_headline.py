"""Tests for tools/mmlab/headline.py and mmlab.forest: the run's headline (terminal,
table.txt, page) and the forest plot, with controls and A/A controls ("aa")."""
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.forest import render_forest
from mmlab.headline import (AA_CONTROL, DESIGN, NEAR1, MAX_AA_LINES, MAX_LINES, comparisons,
                            headline_sentences, render_headline)
from mmlab.rounds import ROUND_BLOCK, ratio_interval
from mmlab.stats import bootstrap_ratio_ci
from test_confidence import FAST, FAST_TOO, SLOW, record

# A/A: the reference run a second time; SLOW against itself, or against FAST (a bias).
SLOW_TOO = [201.0, 199.0, 200.0, 203.0, 198.0, 200.5, 199.5, 202.0, 200.0, 200.0]


def run(*extra, cpus=2, aa=SLOW_TOO, params=None):
    """naive (SLOW), batched (FAST) and the A/A design of one group at one CPU count."""
    p = {"params": params} if params else {}
    recs = [record(SLOW, cpus=cpus, counters={"ipi_sent_per_op": 8.0}, **p),
            record(FAST, "batched", cpus=cpus, counters={"ipi_sent_per_op": 1.0}, **p)]
    if aa is not None:
        recs.append(record(aa, "aa", cpus=cpus, **p))
    return recs + list(extra)


class TestComparisons(unittest.TestCase):
    def test_kinds(self):
        comps = comparisons(run())
        self.assertEqual([(c.design, c.kind) for c in comps],
                         [("batched", DESIGN), ("aa", AA_CONTROL)])
        ctl = comparisons([record(FAST, control=True), record(FAST_TOO, "batched", control=True)])
        self.assertEqual(ctl[0].kind, NEAR1)  # the older "control": true, as mmlab.rounds
        near = comparisons([record(FAST, expect="near1"),
                            record(FAST_TOO, "batched", expect="near1")])
        self.assertEqual(near[0].kind, NEAR1)

    def test_interval_is_the_tables(self):
        # The headline, the forest plot and table.txt share mmlab.rounds.ratio_interval:
        # round-block when the two ran in the same rounds, the pair's own seed.
        ref = record(SLOW, seq=list(range(0, 20, 2)))
        rec = record(FAST, "batched", seq=list(range(1, 20, 2)))
        c = comparisons([ref, rec])[0]
        ci, method = ratio_interval(ref, rec, "lower")
        self.assertEqual(method, ROUND_BLOCK)
        self.assertEqual(c.ci, ci)
        self.assertNotEqual(c.ci, bootstrap_ratio_ci(SLOW, FAST, "lower"))  # not seed 16's

    def test_ratio_and_explaining_counter(self):
        c = comparisons(run())[0]
        self.assertAlmostEqual(c.ratio, 2.0, places=2)
        self.assertTrue(c.significant)
        self.assertEqual(c.counter, ("ipi_sent_per_op", 8.0, 1.0))


class TestHeadlineTable(unittest.TestCase):
    def test_row_with_ratio_ci_and_count(self):
        lines = render_headline(run())
        self.assertIn("ipi at 2 CPUs: cycles_per_round (cycles, lower is better); "
                      "ratio = naive / design", lines)
        row = next(line for line in lines if line.strip().startswith("target=all"))
        self.assertRegex(row, r"\*2\.00x \d\.\d\d-\d\.\d\d")
        self.assertIn("batched: ipi_sent 8 -> 1", row)
        # The A/A control is no column and, at 1, not shown at all.
        self.assertNotIn("aa", " ".join(lines))

    def test_ratio_named_the_way_the_metric_points(self):
        # A metric where higher is better (reclaim's pages per second): the ratio is
        # design / naive, and the title must say so, not "naive / design".
        recs = [record(FAST, better="higher"), record(SLOW, "batched", better="higher")]
        title = next(line for line in render_headline(recs) if line.startswith("ipi at"))
        self.assertTrue(title.endswith("higher is better); ratio = batched / naive".replace(
            "batched", "design")), title)

    def test_failed_aa_is_shown_as_harness_bias(self):
        lines = render_headline(run(aa=FAST))
        bias = [line for line in lines if "harness bias" in line]
        self.assertEqual(len(bias), 1)
        self.assertIn("ipi target=all at 2 CPUs: aa *2.00x", bias[0])

    def test_failed_aa_at_a_smaller_cpu_count_is_named(self):
        # A harness bias is a warning wherever it is: not folded into a count.
        lines = render_headline(run(*run(cpus=1, aa=FAST)))
        bias = [line for line in lines if "harness bias" in line]
        self.assertEqual(len(bias), 1)
        self.assertIn("ipi target=all at 1 CPUs: aa *2.00x", bias[0])
        self.assertNotIn("smaller CPU counts", "\n".join(lines))

    def test_many_failed_aa_are_counted_past_a_few(self):
        # 40 parameter sets whose A/A fails: MAX_AA_LINES named, the rest counted, and the
        # design rows keep their place within MAX_LINES (naming all 40 left none).
        recs = [r for n in range(40) for r in run(aa=FAST, params={"pages": n})]
        lines = render_headline(recs)
        self.assertLessEqual(len(lines), MAX_LINES)
        self.assertEqual(sum(1 for line in lines if line.endswith("(A/A: the reference run "
                                                                  "twice)")), MAX_AA_LINES)
        self.assertIn(f"  {40 - MAX_AA_LINES} more A/A control(s) differ from 1, harness bias: "
                      "table.txt's WARNING lines", lines)
        self.assertTrue(any(line.strip().startswith("pages=0") for line in lines))

    def test_only_the_largest_cpu_count(self):
        lines = render_headline(run(*run(cpus=1, aa=None)))
        self.assertTrue(any(line.startswith("ipi at 2 CPUs") for line in lines))
        self.assertFalse(any("at 1 CPU" in line for line in lines))

    def test_no_difference_is_counted_not_listed(self):
        recs = [record(FAST), record(FAST_TOO, "batched")]
        lines = render_headline(recs)
        self.assertEqual(lines[-1], "No difference shown (every CI includes 1, too few runs "
                                    "for one, or expected near 1): 1 more parameter set(s)")

    def test_at_most_40_lines(self):
        recs = [r for n in range(60) for r in run(aa=None, params={"pages": n})]
        lines = render_headline(recs)
        self.assertEqual(len(lines), MAX_LINES)
        self.assertIn("more row(s) with smaller ratios: see table.txt", "\n".join(lines))

    def test_every_benchmark_keeps_its_best_row(self):
        # 60 rows of one benchmark with larger effects than the other's one row: the
        # budget is cut, but the other benchmark still shows its best row.
        big = [r for n in range(60) for r in run(aa=None, params={"pages": n})]
        small = [record(SLOW, bench="tlb", params={"pages": 1}),
                 record([x * 1.6 for x in FAST], "batched", bench="tlb", params={"pages": 1})]
        lines = render_headline(big + small)
        self.assertEqual(len(lines), MAX_LINES)
        self.assertTrue(any(line.startswith("tlb at 2 CPUs") for line in lines), lines)

    def test_every_benchmark_shown_before_the_failed_controls_are_named(self):
        # A default run's shape: 7 benchmarks with differences (one with 15 rows) and 6
        # failed controls. Naming the controls left room for one row in all, so 6
        # benchmarks with clear wins were missing; now each keeps its best row and the
        # controls are counted in one line.
        recs = [r for n in range(15) for r in run(aa=None, params={"pages": n})]
        for bench in ("tlb", "reclaim", "pin", "pagemap", "faultlock", "swapfree"):
            recs += [record(SLOW, bench=bench), record(FAST, "batched", bench=bench),
                     record(FAST, "aa", bench=bench)]
        lines = render_headline(recs)
        self.assertLessEqual(len(lines), MAX_LINES)
        for bench in ("ipi", "tlb", "reclaim", "pin", "pagemap", "faultlock", "swapfree"):
            self.assertTrue(any(line.startswith(f"{bench} at 2 CPUs") for line in lines),
                            (bench, lines))
        self.assertIn("Differ from 1 where 1 is expected (not results): 6 comparison(s), 6 of "
                      "them A/A (harness bias): named in table.txt", lines)

    def test_no_comparison(self):
        self.assertEqual(render_headline([record(FAST)]),
                         ["Headline: no design to compare with the reference in this run."])


class TestSentences(unittest.TestCase):
    def test_winner_and_controls(self):
        text = headline_sentences(run())
        self.assertEqual(text[0], "ipi: at 2 CPUs batched beats naive in 1 of 1 parameter set, "
                                  "by up to 2.00x (target=all).")
        self.assertEqual(text[-1], "1 of 1 comparisons that should be 1 (1 A/A, 0 expected "
                                   "near 1) come out at 1 within their interval.")

    def test_failed_aa_named(self):
        text = " ".join(headline_sentences(run(aa=FAST)))
        self.assertIn("A/A control failed: ipi target=all at 2 CPUs, aa *2.00x", text)
        self.assertIn("harness bias", text)
        self.assertIn("0 of 1 comparisons that should be 1", text)

    def test_loss_and_no_difference(self):
        text = headline_sentences([record(FAST), record(SLOW, "lazy")])
        self.assertEqual(text[0], "ipi: at 2 CPUs lazy loses in 1 of 1, down to 0.50x "
                                  "(target=all).")


class TestForest(unittest.TestCase):
    def test_a_row_per_comparison_grey_for_aa(self):
        svg = render_forest(comparisons(run(*run(cpus=1))))
        self.assertEqual(svg.count('<g class="forest-row" data-kind="design">'), 2)
        self.assertEqual(svg.count('<g class="forest-row" data-kind="aa">'), 2)
        self.assertEqual(svg.count('stroke="#9a9a9a" stroke-width="2"'), 2)  # aa bars in grey
        # Grouped by CPU count, ascending, with a heading each.
        self.assertLess(svg.index(">ipi, 1 CPU</text>"), svg.index(">ipi, 2 CPUs</text>"))

    def test_line_at_one(self):
        svg = render_forest(comparisons(run()))
        self.assertIn('<text x="', svg)
        self.assertIn('stroke="#444" stroke-width="1.5"', svg)  # the line at 1
        self.assertEqual(render_forest([]), "")


if __name__ == "__main__":
    unittest.main()
