"""Tests for tools/mmlab/headline.py and mmlab.forest: the run's headline (terminal,
table.txt, page) and the forest plot, with A/A controls ("aa"), declared rows, unstable
rows, deferred work and exact mode."""
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.forest import render_forest
from mmlab.headline import (AA_CONTROL, DESIGN, NEAR1, MAX_AA_LINES, MAX_LINES, TIMING_HINT,
                            comparisons, headline_sentences, render_headline)
from mmlab.format import format_number
from mmlab.rounds import PAIRED, verdict_of
from test_confidence import FAST, FAST_TOO, SLOW, record

# A/A: the reference run a second time; SLOW against itself, or against FAST (a bias).
SLOW_TOO = [201.0, 199.0, 200.0, 203.0, 198.0, 200.5, 199.5, 202.0, 200.0, 200.0]
# The halted IPI round's two modes.
MODES = [15.0e3, 32.0e3, 15.2e3, 31.0e3, 15.1e3, 32.5e3, 15.3e3, 31.5e3, 15.2e3, 32.2e3]
# A design at half of them, out of step: its rounds' ratios to MODES fall in two modes too.
MODES_OFF = [v / 2 for v in MODES[1:] + MODES[:1]]
EXACT = {"unit": "instructions", "metric": "instructions_per_op"}


def run(*extra, cpus=2, aa=SLOW_TOO, params=None, **marks):
    """naive (SLOW), batched (FAST) and the A/A design of one group at one CPU count;
    marks (headline=True, title=...) go on every record."""
    p = dict(marks, **({"params": params} if params else {}))
    recs = [record(SLOW, cpus=cpus, counters={"ipi_sent_per_op": 8.0}, **p),
            record(FAST, "batched", cpus=cpus, counters={"ipi_sent_per_op": 1.0}, **p)]
    if aa is not None:
        recs.append(record(aa, "aa", cpus=cpus, **p))
    return recs + list(extra)


def block_of(lines, title):
    """The lines of the block whose title starts with title, up to the next blank line."""
    start = next(i for i, line in enumerate(lines) if line.startswith(title))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


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

    def test_the_null_variant_is_no_design(self):
        """tlb's null (no remote target) is what the shootdown component subtracts: a ratio
        against naive would read as a design that wins."""
        comps = comparisons(run(record(FAST, "null", null=True)))
        self.assertEqual([c.design for c in comps], ["batched", "aa"])

    def test_the_silent_control_is_no_design(self):
        """tlb's no-remote sends the remotes nothing: it checks the null, it wins nothing."""
        comps = comparisons(run(record(FAST, "no-remote", silent=True)))
        self.assertEqual([c.design for c in comps], ["batched", "aa"])

    def test_verdict_is_the_tables(self):
        ref, rec = record(SLOW, seq=list(range(0, 20, 2))), record(FAST, "batched",
                                                                  seq=list(range(1, 20, 2)))
        c = comparisons([ref, rec])[0]
        v = verdict_of(ref, rec, "lower")
        self.assertEqual(v.method, PAIRED)
        self.assertEqual((c.ratio, c.ci, c.significant), (v.ratio, v.ci, v.significant))

    def test_ratio_and_explaining_counter(self):
        c = comparisons(run())[0]
        self.assertAlmostEqual(c.ratio, 2.0, places=2)
        self.assertTrue(c.significant)
        self.assertEqual(c.counter, ("ipi_sent_per_op", 8.0, 1.0))


class TestDeclaredRow(unittest.TestCase):
    def test_the_declared_row_not_the_largest_effect(self):
        # pages=8 is declared; pages=64 has the larger effect and must not be shown.
        small = run(aa=None, params={"pages": 8}, headline=True, title="unmap cost per page")
        big = [record(SLOW, params={"pages": 64}), record([v / 5 for v in SLOW], "batched",
                                                           params={"pages": 64})]
        lines = render_headline(big + small)
        block = block_of(lines, "unmap cost per page: ipi pages=8 at 2 CPUs")
        self.assertRegex(block[-1], r"^  batched +100\.0 +\*2\.00x 2\.00-2\.00  ipi_sent 8 -> 1$")
        self.assertNotIn("5.00x", "\n".join(lines))
        self.assertNotIn("pages=64", "\n".join(lines))

    def test_the_title_names_what_is_measured(self):
        lines = render_headline(run(headline=True, title="cost of one IPI round"))
        self.assertIn("cost of one IPI round: ipi target=all at 2 CPUs, cycles_per_round "
                      "(cycles, lower is better)", lines)

    def test_largest_cpu_count_of_the_declared_row(self):
        lines = render_headline(run(*run(cpus=1, aa=None, headline=True), headline=True))
        self.assertTrue(any(" at 2 CPUs, " in line for line in lines))
        self.assertFalse(any(" at 1 CPUs, " in line for line in lines))

    def test_without_a_declared_row_the_first_parameter_set_says_so(self):
        recs = run(aa=None, params={"pages": 1}) + run(aa=None, params={"pages": 8})
        lines = render_headline(recs)
        self.assertIn("ipi: ipi pages=1 at 2 CPUs, cycles_per_round (cycles, lower is better) "
                      "[no row declared: the first parameter set]", lines)
        self.assertNotIn("pages=8", "\n".join(lines))

    def test_deferred_work_is_marked_with_its_cost(self):
        lazy = record(FAST, "lazy", deferred=True, deferred_cost=350.5, headline=True)
        lines = render_headline(run(lazy, headline=True))
        row = next(line for line in lines if line.strip().startswith("lazy"))
        self.assertIn("deferred: finishes outside the timed call, 350.5 cycles more", row)
        # With the deferred work counted, what the design costs and its ratio to naive.
        with_it = sorted(FAST)[4] / 2 + sorted(FAST)[5] / 2 + 350.5
        ratio = (sorted(SLOW)[4] + sorted(SLOW)[5]) / 2 / with_it
        self.assertIn(f"(with it: {format_number(with_it)}, {ratio:.3g}x naive)", row)

    def test_no_comparison(self):
        self.assertEqual(render_headline([record(FAST)]),
                         ["Headline: no design to compare with the reference in this run."])


class TestReadFirst(unittest.TestCase):
    def test_failed_aa_prints_before_any_result(self):
        lines = render_headline(run(aa=FAST, headline=True))
        at = lines.index("HARNESS DEFECT: 1 A/A control(s) differ from 1 (the reference run "
                         "twice; not a result):")
        self.assertRegex(lines[at + 1], r"^  ipi target=all at 2 CPUs: aa \*2\.00x")
        first_result = next(i for i, line in enumerate(lines) if line.startswith("  batched"))
        self.assertLess(at, first_result)

    def test_failed_aa_at_a_smaller_cpu_count_is_named(self):
        lines = render_headline(run(*run(cpus=1, aa=FAST)))
        self.assertIn("  ipi target=all at 1 CPUs: aa *2.00x 2.00-2.00", lines)

    def test_many_failed_aa_are_counted_past_a_few(self):
        recs = [r for n in range(40) for r in run(aa=FAST, params={"pages": n})]
        lines = render_headline(recs)
        self.assertLessEqual(len(lines), MAX_LINES)
        self.assertEqual(sum(1 for line in lines if ": aa *" in line), MAX_AA_LINES)
        self.assertIn(f"  ... {40 - MAX_AA_LINES} more: table.txt's WARNING lines", lines)

    def test_unstable_rows_print_first_with_their_modes(self):
        recs = [record(MODES, headline=True), record(MODES_OFF, "batched", headline=True)]
        lines = render_headline(recs)
        self.assertEqual(lines[1], "UNSTABLE: 1 comparison(s), no ratio (1 in headline rows):")
        self.assertEqual(lines[2], "  ipi target=all at 2 CPUs, batched: two modes in naive: "
                                   "1.52e+04 | 3.2e+04; two modes in batched: 7600 | 1.6e+04; "
                                   "two modes in the rounds' naive/batched ratios: 0.944 | 4.21; "
                                   "interval 0.938-4.25x spans more than a factor 2")
        row = next(line for line in lines if line.strip().startswith("batched"))
        self.assertIn("unstable", row)
        self.assertNotIn("2.00x", row)

    def test_lost_runs_are_reported_apart(self):
        lines = render_headline(run(record(SLOW, "lazy", lost_cpu_runs=2)))
        self.assertIn("LOST CPU: 2 run(s) in 1 record(s) where the host descheduled a vCPU, "
                      "reported apart (table.txt's notes)", lines)
        self.assertLess(lines.index(next(x for x in lines if x.startswith("LOST CPU"))),
                        lines.index(next(x for x in lines if x.strip().startswith("batched"))))

    def test_at_most_max_lines(self):
        recs = [r for n in range(60) for r in run(aa=FAST, params={"pages": n})]
        recs += [r for b in range(20) for r in run(aa=None, bench=f"b{b}")]
        lines = render_headline(recs)
        self.assertEqual(len(lines), MAX_LINES)
        self.assertEqual(lines[-1], "... the rest of the headline: table.txt")


class TestExactHeadline(unittest.TestCase):
    def exact(self, value, variant="naive", **more):
        return record([value, value], variant, headline=True, title="unmap cost per page",
                      **EXACT, **more)

    def test_mode_and_exact_ratios(self):
        lines = render_headline([self.exact(1903.0), self.exact(529.375, "batched")])
        self.assertTrue(lines[0].startswith("Headline (exact mode: instructions"), lines[0])
        row = next(line for line in lines if line.strip().startswith("batched"))
        self.assertIn("3.595x", row)

    def test_same_work_points_to_time_mode(self):
        lines = render_headline([self.exact(681.375), self.exact(681.0, "serial"),
                                 self.exact(529.0, "batched")])
        serial = next(line for line in lines if line.strip().startswith("serial"))
        self.assertIn(TIMING_HINT, serial)
        self.assertIn("~1.001x", serial)
        batched = next(line for line in lines if line.strip().startswith("batched"))
        self.assertNotIn(TIMING_HINT, batched)

    def test_aa_beyond_a_tenth_of_a_percent_first(self):
        lines = render_headline([self.exact(1910.0), self.exact(529.0, "batched"),
                                 self.exact(1912.5, "aa")])
        self.assertEqual(lines[1], "HARNESS DEFECT: 1 A/A control(s) differ from 1 (the "
                                   "reference run twice; not a result):")
        self.assertEqual(lines[2], "  ipi target=all at 2 CPUs: aa 0.999x")
        ok = render_headline([self.exact(1910.0), self.exact(1910.5, "aa")])
        self.assertFalse(any("HARNESS" in line for line in ok))

    def test_a_figure_that_moves_between_runs_is_flagged(self):
        recs = [self.exact(1910.0), record([529.0, 531.0], "batched", headline=True, **EXACT)]
        lines = render_headline(recs)
        self.assertEqual(lines[1], "FIGURES DIFFER BETWEEN RUNS: 1 comparison(s), no ratio (1 "
                                   "in headline rows):")
        self.assertIn("batched's runs differ by 0.38%", lines[2])


class TestSentences(unittest.TestCase):
    def test_declared_row_and_controls(self):
        text = headline_sentences(run(headline=True, title="cost of one IPI round"))
        self.assertRegex(text[0], r"^cost of one IPI round \(ipi target=all, 2 CPUs\), against "
                                  r"naive: batched \*2\.00x \d\.\d\d-\d\.\d\d\.$")
        self.assertEqual(text[-1], "1 of 1 A/A controls come out at 1.")

    def test_failed_aa_named(self):
        text = " ".join(headline_sentences(run(aa=FAST)))
        self.assertIn("0 of 1 A/A controls come out at 1; 1 differ: a harness defect.", text)


class TestForest(unittest.TestCase):
    def test_a_row_per_comparison_grey_for_aa(self):
        svg = render_forest(comparisons(run(*run(cpus=1))))
        self.assertEqual(svg.count('<g class="forest-row" data-kind="design">'), 2)
        self.assertEqual(svg.count('<g class="forest-row" data-kind="aa">'), 2)
        self.assertEqual(svg.count('stroke="#9a9a9a" stroke-width="2"'), 2)  # aa bars in grey
        # Grouped by CPU count, ascending, with a heading each.
        self.assertLess(svg.index(">ipi, 1 CPU</text>"), svg.index(">ipi, 2 CPUs</text>"))

    def test_unstable_row_has_no_dot(self):
        recs = [record(MODES), record(MODES_OFF, "batched")]
        svg = render_forest(comparisons(recs))
        row = svg[svg.index('<g class="forest-row"'):]
        self.assertIn(">unstable</text>", row)
        self.assertNotIn("<circle", row)

    def test_line_at_one(self):
        svg = render_forest(comparisons(run()))
        self.assertIn('<text x="', svg)
        self.assertIn('stroke="#444" stroke-width="1.5"', svg)  # the line at 1
        self.assertEqual(render_forest([]), "")


if __name__ == "__main__":
    unittest.main()
