"""Tests for tools/mmlab/ktap.py: nesting, skips, diagnostics and plan checks."""
import textwrap
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.ktap import counted_results, parse_ktap, split_description


def parse(text):
    """Parse KTAP text given as an indented block; return (roots, problems)."""
    lines = textwrap.dedent(text).strip("\n").splitlines()
    return parse_ktap(enumerate(lines, 1))


def statuses(roots):
    """{full name: status} of every counted result."""
    return {name: case.status for root in roots for name, case in counted_results(root)}


def kinds(problems):
    return [p.kind for p in problems]


NESTED = """
    KTAP version 1
    1..2
      KTAP version 1
      # Subtest: tlb
      1..2
        KTAP version 1
        # Subtest: tlb_batch
        1..2
        ok 1 naive
        # expected 1 IPI round, got 3
        not ok 2 batched
      not ok 1 tlb_batch
      ok 2 test_tlb_ceiling # SKIP needs 4 CPUs
      # tlb: pass:0 fail:1 skip:1
    not ok 1 tlb
      KTAP version 1
      # Subtest: pt
      1..1
      ok 1 test_pt_walk
    ok 2 pt
"""


class TestNesting(unittest.TestCase):
    def test_three_levels_give_dotted_names(self):
        roots, problems = parse(NESTED)
        self.assertEqual(problems, [])
        self.assertEqual(statuses(roots), {
            "tlb.tlb_batch.naive": "pass", "tlb.tlb_batch.batched": "fail",
            "tlb.test_tlb_ceiling": "skip", "pt.test_pt_walk": "pass"})

    def test_suite_names_plans_and_subtests(self):
        roots, _ = parse(NESTED)
        tlb = roots[0].cases[0]
        self.assertEqual((tlb.name, tlb.subtest.name, tlb.subtest.plan), ("tlb", "tlb", 2))
        self.assertEqual(tlb.subtest.cases[0].subtest.name, "tlb_batch")

    def test_diagnostics_belong_to_the_next_result(self):
        roots, _ = parse(NESTED)
        batch = roots[0].cases[0].subtest.cases[0].subtest
        self.assertEqual(batch.cases[0].diagnostics, [])
        self.assertEqual(batch.cases[1].diagnostics, ["expected 1 IPI round, got 3"])

    def test_trailing_diagnostics_belong_to_the_suite(self):
        roots, _ = parse(NESTED)
        self.assertEqual(roots[0].cases[0].subtest.diagnostics, ["tlb: pass:0 fail:1 skip:1"])

    def test_subtest_line_before_version_line(self):
        roots, problems = parse("""
            KTAP version 1
            1..1
              # Subtest: swap
              KTAP version 1
              1..1
              ok 1 test_swap_free
            ok 1 swap
        """)
        self.assertEqual(problems, [])
        self.assertEqual(statuses(roots), {"swap.test_swap_free": "pass"})

    def test_tap_version_13_and_dash_before_name(self):
        roots, problems = parse("TAP version 13\n1..1\nok 1 - selftest_one\n")
        self.assertEqual(problems, [])
        self.assertEqual(statuses(roots), {"selftest_one": "pass"})


class TestSkips(unittest.TestCase):
    def test_skip_reason_and_directive(self):
        roots, _ = parse("""
            KTAP version 1
            1..3
            ok 1 a # SKIP no APIC on the host
            not ok 2 b # skip counted as a skip anyway
            ok 3 c # TODO not a skip
        """)
        cases = roots[0].cases
        self.assertEqual([c.status for c in cases], ["skip", "skip", "pass"])
        self.assertEqual(cases[0].reason, "no APIC on the host")
        self.assertEqual(cases[0].name, "a")

    def test_skipped_suite_with_empty_plan(self):
        roots, problems = parse("""
            KTAP version 1
            1..1
              KTAP version 1
              # Subtest: swap
              1..0 # SKIP no swap device
            ok 1 swap # SKIP no swap device
        """)
        self.assertEqual(problems, [])
        self.assertEqual(roots[0].cases[0].subtest.skip_reason, "no swap device")
        self.assertEqual(statuses(roots), {"swap": "skip"})

    def test_split_description(self):
        self.assertEqual(split_description("x # SKIP why"), ("x", "SKIP", "why"))
        self.assertEqual(split_description("# SKIP"), ("", "SKIP", ""))
        self.assertEqual(split_description("plain name"), ("plain name", None, ""))
        self.assertEqual(split_description("x # took 3 ms"), ("x", None, "took 3 ms"))


class TestPlanChecks(unittest.TestCase):
    def test_plan_mismatch_names_the_suite(self):
        roots, problems = parse("""
            KTAP version 1
            1..1
              KTAP version 1
              # Subtest: pt
              1..3
              ok 1 a
              ok 2 b
            ok 1 pt
        """)
        self.assertEqual(kinds(problems), ["ktap-plan"])
        self.assertIn("'pt' planned 3 results, saw 2", problems[0].message)
        self.assertEqual(problems[0].line, 5)  # the plan line

    def test_missing_plan(self):
        _, problems = parse("KTAP version 1\nok 1 a\n")
        self.assertEqual(kinds(problems), ["ktap-plan"])

    def test_wrong_numbering(self):
        _, problems = parse("KTAP version 1\n1..2\nok 1 a\nok 3 b\n")
        self.assertEqual(kinds(problems), ["ktap-number"])

    def test_truncated_subtest_has_no_result_line(self):
        roots, problems = parse("""
            KTAP version 1
            1..2
            ok 1 first
              KTAP version 1
              # Subtest: tlb
              1..2
              ok 1 test_tlb_one
        """)
        self.assertEqual(sorted(kinds(problems)),
                         ["ktap-missing-result", "ktap-plan", "ktap-plan"])
        self.assertEqual(statuses(roots), {"first": "pass", "tlb.test_tlb_one": "pass"})

    def test_result_without_stream_is_an_orphan(self):
        _, problems = parse("ok 1 stray\n")
        self.assertEqual(kinds(problems), ["ktap-orphan"])

    def test_two_results_run_together_are_garbled(self):
        roots, problems = parse("KTAP version 1\n1..2\nok 1 a  ok 2 b\n")
        self.assertIn("garbled", kinds(problems))
        self.assertEqual(roots[0].cases, [])

    def test_bail_out_is_a_problem(self):
        _, problems = parse("KTAP version 1\n1..0\nBail out! no memory\n")
        self.assertEqual(kinds(problems), ["ktap-bail"])


class TestCounting(unittest.TestCase):
    def test_failed_suite_without_failed_case_still_counts(self):
        roots, _ = parse("""
            KTAP version 1
            1..1
              KTAP version 1
              # Subtest: pin
              1..1
              ok 1 a
            # pin: teardown leaked 3 pages
            not ok 1 pin
        """)
        self.assertEqual(statuses(roots), {"pin.a": "pass", "pin": "fail"})
        failed = [c for _, c in counted_results(roots[0]) if c.status == "fail"]
        self.assertEqual(failed[0].diagnostics, ["pin: teardown leaked 3 pages"])

    def test_noise_lines_are_ignored(self):
        roots, problems = parse("""
            SeaBIOS (version 1.16)
            # bench progress before any KTAP
            KTAP version 1
            1..1
            random firmware text
            ok 1 a
        """)
        self.assertEqual(problems, [])
        self.assertEqual(statuses(roots), {"a": "pass"})

    def test_two_streams_in_one_input(self):
        roots, problems = parse("KTAP version 1\n1..1\nok 1 a\nKTAP version 1\n1..1\nok 1 b\n")
        self.assertEqual(problems, [])
        self.assertEqual(len(roots), 2)


if __name__ == "__main__":
    unittest.main()
