"""Tests for tools/mmlab/shootdown.py and tools/check-shootdown.py.

Synthetic tlb records of a design and the null at 2 CPUs and 1: the
shootdown component is the design's Delta less the null's, per page; in
time mode from per-round differences, so a drift the design and the null
share in a round cancels (its interval is narrower than the four medians'
bootstrapped apart); a design equal to the null at both CPU counts has an
interval holding 0. In exact mode it is exact and judged against the
A/A's spread. A deferred design's release after its call is counted at
each CPU count. check-shootdown passes a log where the design that sends
IPIs has a component, the silent control none, and the deferred one no
component below 0; and fails each the other way round.
"""
import importlib.util
import os
import unittest

from mmlab.records import bench_from_json
from mmlab.shootdown import (NULL, independent_component, paired_component,
                             shootdown_results)

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_spec = importlib.util.spec_from_file_location("check_shootdown",
                                               os.path.join(TOOLS, "check-shootdown.py"))
check_shootdown = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(check_shootdown)

# A per-round drift every variant of a round shares (the host's load, say).
DRIFT = (0, 40, -30, 60, -50, 20, 10, -20, 35, -45)
NOISE = (0.5, -0.5, 0.25, -0.25, 0.0, 0.5, -0.5, 0.25, -0.25, 0.0)


SILENT = "no-remote"


def record(variant, cpus, samples, exact=False, pages=8, ipi=0.0, **extra):
    n = len(samples)
    srt = sorted(samples)
    obj = {"bench": "tlb", "variant": variant, "cpus": cpus,
           "params": {"remote": "busy", "pages": pages},
           "metric": "instructions_per_page" if exact else "cycles_per_page",
           "unit": "instructions" if exact else "cycles", "better": "lower", "runs": n,
           "median": (srt[(n - 1) // 2] + srt[n // 2]) / 2, "min": srt[0], "max": srt[-1],
           "mean": sum(srt) / n, "stddev": 1.0, "counters": {"ipi_sent_per_op": ipi},
           "samples": list(samples), "seq": list(range(n)), **extra}
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


def rounds(level, noise=NOISE):
    return [level + d + e for d, e in zip(DRIFT, noise)]


def time_case(design, shootdown, ipi=1.0):
    """design and null at 2 and 1 CPUs; design's Delta exceeds the null's by shootdown."""
    return [record(design, 2, rounds(1000 + 300 + shootdown), ipi=ipi),
            record(design, 1, rounds(1000)),
            record(NULL, 2, rounds(900 + 300, NOISE[::-1])),
            record(NULL, 1, rounds(900, NOISE[::-1]))]


def exact_case(design, shootdown, ipi, **extra):
    return [record(design, 2, [1300.0 + shootdown] * 2, True, ipi=ipi, **extra),
            record(design, 1, [1000.0] * 2, True, **extra), record(NULL, 2, [1200.0] * 2, True),
            record(NULL, 1, [900.0] * 2, True), record("naive", 2, [1500.0] * 2, True, ipi=1),
            record("naive", 1, [1000.0] * 2, True), record("aa", 2, [1500.0] * 2, True, ipi=1),
            record("aa", 1, [1000.0] * 2, True)]


def rows(records, design):
    return [r for r in shootdown_results(records) if r["design"] == design]


class TestTimeMode(unittest.TestCase):
    def test_component_is_delta_less_the_nulls(self):
        (row,) = rows(time_case("batched", 80), "batched")
        self.assertEqual(row["method"], "paired")
        self.assertAlmostEqual(row["shootdown"], 80, delta=1)
        self.assertAlmostEqual(row["delta"], 380, delta=1)
        self.assertAlmostEqual(row["delta_null"], 300, delta=1)
        self.assertLess(row["shootdown_ci"][0], 80)
        self.assertGreater(row["shootdown_ci"][0], 0)
        self.assertFalse(row["zero"])

    def test_no_shootdown_interval_holds_zero(self):
        (row,) = rows(time_case("lazy", 0, ipi=0.0), "lazy")
        self.assertLessEqual(row["shootdown_ci"][0], 0)
        self.assertGreaterEqual(row["shootdown_ci"][1], 0)
        self.assertTrue(row["zero"])

    def test_pairing_cancels_the_rounds_drift(self):
        d2, d1, n2, n1 = (r.samples for r in time_case("batched", 80))
        _, paired = paired_component(d2, n2, d1, n1, 7)
        _, apart = independent_component(d2, n2, d1, n1, 7)
        self.assertLess(paired[1] - paired[0], (apart[1] - apart[0]) / 4)

    def test_null_itself_and_missing_null_give_no_row(self):
        recs = time_case("batched", 80)
        self.assertEqual([r["design"] for r in shootdown_results(recs)], ["batched"])
        self.assertEqual(shootdown_results([r for r in recs if r.variant != NULL]), [])


class TestExactMode(unittest.TestCase):
    def test_exact_component_and_aa_spread(self):
        recs = exact_case("lazy", 0.0, 0.0) + exact_case("batched", 40.0, 1.0)[:2]
        got = {r["design"]: r for r in shootdown_results(recs)}
        self.assertEqual(got["lazy"]["shootdown"], 0.0)
        self.assertTrue(got["lazy"]["zero"])
        self.assertEqual(got["batched"]["shootdown"], 40.0)
        self.assertFalse(got["batched"]["zero"])
        self.assertEqual(got["naive"]["shootdown"], 200.0)
        # aa equals naive: the spread is the figures' exact tolerance, 0.1% of 1340 + 1000.
        self.assertAlmostEqual(got["batched"]["aa_spread"], 2.34)
        self.assertEqual(got["batched"]["method"], "exact")

    def test_aa_that_differs_widens_the_spread(self):
        recs = exact_case("lazy", 3.0, 0.0)
        recs[6] = record("aa", 2, [1510.0] * 2, True, ipi=1)
        (row,) = rows(recs, "lazy")
        self.assertEqual(row["aa_spread"], 10.0)
        self.assertTrue(row["zero"])


class TestDeferred(unittest.TestCase):
    def test_release_after_the_call_is_counted(self):
        # At 2 CPUs the call is 100 cheaper (no frame freed in it) and the release after it
        # costs 130 against 10 at 1 CPU: the component is -100 + 120 = 20 more than the null's.
        recs = exact_case("lazy", -100.0, 0.0, deferred=True)
        recs[0].extra["deferred_cost"], recs[1].extra["deferred_cost"] = 130.0, 10.0
        (row,) = rows(recs, "lazy")
        self.assertEqual(row["release"], 120.0)
        self.assertEqual(row["shootdown"], 20.0)
        self.assertEqual(row["delta"], 200.0)

    def test_time_mode_release_shifts_the_interval(self):
        recs = time_case("lazy", -50, ipi=0.0)
        for r, cost in zip(recs[:2], (70.0, 20.0)):
            r.extra.update(deferred=True, deferred_cost=cost)
        (row,) = rows(recs, "lazy")
        self.assertAlmostEqual(row["shootdown"], 0, delta=1)
        self.assertTrue(row["zero"])


class TestAgainstSilent(unittest.TestCase):
    def test_exact_beside_the_silent_control(self):
        # The null's Delta 300, the silent control's 280: the design's component against
        # each reference, side by side.
        recs = exact_case("batched", 40.0, 1.0) + [
            record(SILENT, 2, [1280.0] * 2, True, silent=True),
            record(SILENT, 1, [1000.0] * 2, True, silent=True)]
        got = {r["design"]: r for r in shootdown_results(recs)}
        self.assertEqual(got["batched"]["shootdown"], 40.0)
        self.assertEqual(got["batched"]["vs_silent"], 60.0)
        self.assertIsNone(got[SILENT]["vs_silent"])
        self.assertIsNone(got["batched"]["vs_silent_ci"])

    def test_time_mode_pairs_with_the_silent_rounds(self):
        recs = time_case("batched", 80) + [
            record(SILENT, 2, rounds(900 + 250, NOISE[::-1]), silent=True),
            record(SILENT, 1, rounds(900, NOISE[::-1]), silent=True)]
        (row,) = [r for r in shootdown_results(recs) if r["design"] == "batched"]
        self.assertAlmostEqual(row["vs_silent"], 130, delta=1)
        self.assertLess(row["vs_silent_ci"][0], 130)
        self.assertGreater(row["vs_silent_ci"][1], 130)
        self.assertIsNone(rows(recs, "batched")[0]["aa_spread"])

    def test_no_silent_control_no_column(self):
        (row,) = rows(time_case("batched", 80), "batched")
        self.assertIsNone(row["vs_silent"])


class TestCheck(unittest.TestCase):
    def _mixed(self, sender, silent, deferred):
        return (exact_case("batched", sender, 1.0) + exact_case(SILENT, silent, 0.0, silent=True)[:2]
                + exact_case("lazy", deferred, 0.0, deferred=True)[:2])

    def test_passes_when_only_senders_have_a_component(self):
        results = check_shootdown.checks(self._mixed(40.0, 0.0, 30.0))
        self.assertTrue(all(ok for _, ok, _ in results), results)
        self.assertIn("shootdown_no-remote_remotebusy_8pages_2cpus", [n for n, _, _ in results])

    def test_fails_each_the_other_way_round(self):
        recs = self._mixed(0.0, 40.0, -40.0)
        bad = {n for n, ok, _ in check_shootdown.checks(recs) if not ok}
        self.assertEqual(bad, {"shootdown_no-remote_remotebusy_8pages_2cpus",
                               "shootdown_batched_remotebusy_8pages_2cpus",
                               "shootdown_lazy_remotebusy_8pages_2cpus"})

    def test_a_sender_too_sparse_to_resolve_must_not_go_below_0(self):
        # 8194 pages: 2 rounds print as 0.000 IPIs per page; 8 pages say it sends.
        for s8194, fails in ((0.1, set()), (-5.0, {"shootdown_batched_remotebusy_8194pages_2cpus"})):
            recs = exact_case("batched", 40.0, 1.0)[:2]
            recs += [record("batched", 2, [1300.0 + s8194] * 2, True, pages=8194),
                     record("batched", 1, [1000.0] * 2, True, pages=8194)]
            recs += exact_case("lazy", 0.0, 0.0)[2:]
            recs += [record(NULL, c, [v] * 2, True, pages=8194)
                     for c, v in ((2, 1200.0), (1, 900.0))]
            bad = {n for n, ok, _ in check_shootdown.checks(recs) if not ok}
            self.assertEqual(bad, fails)

    def test_fails_a_null_that_sent_ipis(self):
        recs = exact_case("lazy", 0.0, 0.0)
        recs[2] = record(NULL, 2, [1200.0] * 2, True, ipi=1.0)
        bad = {n for n, ok, _ in check_shootdown.checks(recs) if not ok}
        self.assertEqual(bad, {"null_sends_no_ipi"})


if __name__ == "__main__":
    unittest.main()
