"""Tests for a peer system's results beside mmlab's: tools/mmlab/peer.py, the
table's peer columns (mmlab.table) and `mmlab.results report --peer`.
The fixture peer_linux.log is a real serial log of tools/peer/linux.sh
(Debian's 6.1 kernel under TCG, 2 vCPUs)."""
import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest

from toolpath import data
from mmlab.log import parse_log
from mmlab.peer import (MMLAB, PeerIndex, boot_ratio_ci, boot_ratios, peer_ratio,
                        record_system, split_systems)
from mmlab.records import bench_from_json
from mmlab.groups import group_results
from mmlab.stats import median_ci
from mmlab.table import render_results_table
import mmlab.results as mmlab_results

SYSTEM = "linux-6.1.0-57-amd64"


def record(**changes):
    """A well-formed tlb BenchRecord with changes applied (samples give median 100)."""
    obj = {"bench": "tlb", "variant": "batched", "cpus": 2,
           "params": {"pages": 512, "remote": "busy"}, "metric": "cycles_per_page",
           "unit": "cycles", "better": "lower", "runs": 6, "median": 100.0, "min": 98.0,
           "max": 102.0, "mean": 100.0, "stddev": 1.5,
           "samples": [98.0, 99.0, 100.0, 100.0, 101.0, 102.0], "counters": {}}
    obj.update(changes)
    rec, problems = bench_from_json(obj, 1)
    assert not problems, problems
    return rec


def scaled(factor, **changes):
    """record() with every statistic multiplied by factor."""
    base = record()
    return record(median=base.median * factor, min=base.min * factor, max=base.max * factor,
                  mean=base.mean * factor, samples=[v * factor for v in base.samples], **changes)


def section(text, title_start):
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(title_start))
    end = next((i for i in range(start, len(lines)) if not lines[i]), len(lines))
    return lines[start:end]


class TestPeerLog(unittest.TestCase):
    """The peer's own log passes the same checks as mmlab's."""

    @classmethod
    def setUpClass(cls):
        cls.log = parse_log(data("peer_linux.log"))

    def test_no_problems(self):
        self.assertEqual([str(p) for p in self.log.problems], [])

    def test_every_result_names_the_system(self):
        self.assertTrue(self.log.benches)
        self.assertEqual({record_system(r) for r in self.log.benches}, {SYSTEM})
        self.assertEqual(self.log.header["system"], SYSTEM)
        self.assertEqual(self.log.trailer["status"], "pass")

    def test_workloads_present(self):
        found = {(r.bench, r.variant) for r in self.log.benches}
        for want in [("tlb", "naive"), ("tlb", "batched"), ("swapfree", "naive"),
                     ("faultlock", "naive"), ("pin", "fixed")]:
            self.assertIn(want, found)

    def test_median_ci_matches_the_tools_ranks(self):
        # mmpeer computes the interval in C; it must be the tools' order statistics.
        for r in self.log.benches:
            lo, hi = median_ci(r.samples)
            self.assertAlmostEqual(r.extra["median_ci"][0], lo, places=2, msg=r.key())
            self.assertAlmostEqual(r.extra["median_ci"][1], hi, places=2, msg=r.key())

    def test_one_page_is_a_control(self):
        # pages=1: one madvise call either way, as mmlab's pages=1 control.
        for r in self.log.benches:
            if r.bench == "tlb":
                self.assertEqual(r.control, r.params["pages"] == 1, r.key())

    def test_tlb_shootdowns_counted(self):
        # One call for 512 pages, a reader on the other CPU: about one TLB IPI per call.
        rec = next(r for r in self.log.benches if r.bench == "tlb" and r.variant == "batched"
                   and r.cpus == 2 and r.params["pages"] == 512)
        irqs = rec.counters["tlb_shootdown_irqs_per_op"] * 512
        self.assertGreaterEqual(irqs, 0.5)
        self.assertLessEqual(irqs, 3)


class TestSplitAndIndex(unittest.TestCase):
    def test_missing_system_is_mmlab(self):
        own, peers = split_systems([record(), record(system=SYSTEM)])
        self.assertEqual(len(own), 1)
        self.assertEqual(record_system(own[0]), MMLAB)
        self.assertEqual(list(peers), [SYSTEM])

    def test_keys_never_collide(self):
        self.assertNotEqual(record().key(), record(system=SYSTEM).key())

    def test_variant_same_name_first_then_only_one(self):
        mine = group_results([record(variant="naive"), record()])[0]
        both = PeerIndex(SYSTEM, [record(variant="naive", system=SYSTEM),
                                  record(system=SYSTEM)])
        self.assertEqual(both.variant_for(mine, "batched"), "batched")
        self.assertIsNone(both.variant_for(mine, "serial"))
        only = PeerIndex(SYSTEM, [record(variant="naive", system=SYSTEM)])
        self.assertEqual(only.variant_for(mine, "serial"), "naive")

    def test_other_params_do_not_match(self):
        mine = group_results([record()])[0]
        peer = PeerIndex(SYSTEM, [record(params={"pages": 32, "remote": "busy"},
                                         system=SYSTEM)])
        self.assertIsNone(peer.group_for(mine))
        self.assertEqual(len(peer.unmatched([mine])), 1)

    def test_ratio_is_raw_quotient_with_interval(self):
        ratio, ci = peer_ratio(record(), scaled(1.25, system=SYSTEM))
        self.assertAlmostEqual(ratio, 0.8)
        self.assertLess(ci[1], 1.0)
        self.assertLess(ci[0], 0.8 + 1e-9)


class TestComparePeers(unittest.TestCase):
    """--compare keeps mmlab's and the peer's results apart and names the peer's."""

    def test_rows_apart_and_labelled(self):
        from mmlab.compare import compare_records, render_rows
        a = [record(), scaled(2.0, system=SYSTEM)]
        b = [scaled(1.1), scaled(2.0, system=SYSTEM)]
        rows = compare_records(a, b)[0]
        self.assertEqual(len(rows), 2)
        text = "\n".join(render_rows(rows))
        self.assertIn(f"batched@{SYSTEM}", text)
        self.assertIn("+0.00%", text)   # the peer against the peer
        self.assertIn("-10.00%", text)  # mmlab against mmlab


class TestTableColumns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.records = [scaled(3.0, variant="naive"), record(), record(variant="serial"),
                       scaled(1.25, system=SYSTEM), scaled(10, variant="naive", system=SYSTEM),
                       record(bench="pin", params={"per_call": 512}, metric="pin_ns_per_page",
                              unit="ns", variant="fixed", cpus=1, system=SYSTEM)]
        cls.text = render_results_table(cls.records)

    def test_linux_columns_in_the_batched_section(self):
        lines = section(self.text, "tlb pages=512 remote=busy: cycles_per_page in cycles, "
                                   "lower is better (naive vs batched")
        self.assertIn(f"(naive vs batched; {SYSTEM}: batched, serial)", lines[0])
        head = lines[1].split()
        self.assertEqual(head[9:16], ["linux", "batched", "(cycles)", "±CI", "mmlab/linux",
                                      "95%", "CI"])
        row = lines[4].split()
        self.assertEqual(row[:2], ["2", "batched"])
        self.assertEqual(row[7:11], ["125.0", "±2.0%", "0.80x", "0.78-0.82x"])  # no "~"
        self.assertEqual(row[4], "3.00x")  # mmlab's own ratio is untouched

    def test_no_linux_columns_without_a_matching_variant(self):
        lines = section(self.text, "tlb pages=512 remote=busy: cycles_per_page in cycles, "
                                   "lower is better (naive vs batched")
        serial = lines[5].split()
        self.assertEqual(serial[:2], ["2", "serial"])
        # Its own columns only, no peer cells: outliers, then the runs it achieved.
        self.assertEqual(len(serial), 8)
        self.assertEqual(serial[6:], ["0", "6"])

    def test_peer_only_section(self):
        lines = section(self.text, "pin per_call=512")
        self.assertIn(f"({SYSTEM} only: no mmlab result to compare)", lines[0])
        self.assertEqual(lines[3].split()[:3], ["1", "100.0", "±2.0%"])

    def test_legend_only_with_peers(self):
        self.assertIn("mmlab/<peer>", self.text)
        self.assertNotIn("mmlab/<peer>", render_results_table([record(variant="naive"),
                                                                record()]))


class TestReportPeer(unittest.TestCase):
    """mmlab.results report --peer: one results.json and one table for both systems."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def report(self, peer_text=None):
        peer = data("peer_linux.log")
        if peer_text is not None:
            peer = os.path.join(self.tmp, "peer.log")
            with open(peer, "w") as f:
                f.write(peer_text)
        out = os.path.join(self.tmp, "out")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()) as err:
            rc = mmlab_results.main(["report", "--no-plots", "--peer", peer,
                                     data("bench_good.log"), out])
        with open(os.path.join(out, "results.json")) as f:
            return rc, json.load(f), err.getvalue()

    def test_merged(self):
        rc, doc, _ = self.report()
        self.assertEqual(rc, 0)
        systems = {r.get("system") for r in doc["results"]}
        self.assertEqual(systems, {None, SYSTEM})
        self.assertEqual(doc["peers"][0]["header"]["system"], SYSTEM)
        with open(os.path.join(self.tmp, "out", "table.txt")) as f:
            self.assertIn(f"{SYSTEM} only", f.read())

    def test_failing_peer_fails_the_report(self):
        with open(data("peer_linux.log")) as f:
            text = f.read().replace('"failed":0,"skipped":0,"status":"pass"',
                                    '"failed":1,"skipped":0,"status":"fail"')
        rc, doc, err = self.report(text)
        self.assertEqual(rc, 1)
        self.assertIn("the peer run reports failure", err)

    def test_peer_line_without_system_is_a_problem(self):
        with open(data("peer_linux.log")) as f:
            text = f.read().replace(f'"control":false,"system":"{SYSTEM}"', '"control":false', 1)
        rc, doc, err = self.report(text)
        self.assertEqual(rc, 1)
        self.assertIn('carry no "system"', err)



class TestBootAsUnit(unittest.TestCase):
    def test_welch_interval_on_log_medians(self):
        import math
        ratio, (lo, hi) = boot_ratio_ci([100.0, 110.0, 105.0], [200.0, 190.0, 210.0])
        lm = [math.log(v) for v in (100.0, 110.0, 105.0)]
        lp = [math.log(v) for v in (200.0, 190.0, 210.0)]
        self.assertAlmostEqual(ratio, math.exp(sum(lm) / 3 - sum(lp) / 3))
        self.assertLess(lo, ratio)
        self.assertGreater(hi, ratio)
        self.assertLess(hi, 1.0)

    def test_one_boot_a_side_no_interval(self):
        self.assertEqual(boot_ratio_ci([100.0], [200.0, 210.0])[1], None)

    def test_results_matched_per_boot(self):
        mine = [[scaled(f)] for f in (1.0, 1.02, 0.98)]
        peer = [[scaled(f, system=SYSTEM)] for f in (0.5, 0.51, 0.49)]
        (item,) = boot_ratios(mine, peer)
        self.assertEqual((item["bench"], item["variant"], item["cpus"], item["mmlab_boots"],
                          item["peer_boots"], item["unit"]), ("tlb", "batched", 2, 3, 3, "boot"))
        self.assertAlmostEqual(item["ratio"], 2.0, places=2)
        self.assertLess(item["ratio_ci"][0], 2.0)
        self.assertGreater(item["ratio_ci"][1], 2.0)
        self.assertEqual(boot_ratios(mine, [[record(variant="naive", system=SYSTEM)]]), [])

    def test_report_with_boots(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        with open(data("peer_linux.log")) as f:
            text = f.read()
        own = os.path.join(tmp, "own.log")  # the same runs as mmlab's: ratios of exactly 1
        with open(own, "w") as f:
            f.write(text.replace(f',"system":"{SYSTEM}"', ""))
        out = os.path.join(tmp, "out")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            mmlab_results.main(["report", "--no-plots", "--peer", data("peer_linux.log"),
                                "--boot", own, "--boot", own,
                                "--peer-boot", data("peer_linux.log"),
                                "--peer-boot", data("peer_linux.log"), own, out])
        with open(os.path.join(out, "results.json")) as f:
            doc = json.load(f)
        ratios = doc["boot_ratios"]
        self.assertTrue(ratios)
        for item in ratios:
            self.assertEqual((item["mmlab_boots"], item["peer_boots"]), (3, 3))
            self.assertAlmostEqual(item["ratio"], 1.0)
        with open(os.path.join(out, "table.txt")) as f:
            text = f.read()
        self.assertIn("mmlab/linux over alternating boots", text)



if __name__ == "__main__":
    unittest.main()
