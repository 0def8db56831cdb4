"""Tests for tools/mmlab/roundhist.py: the same round statistics from mmlab and kvm-unit-tests.

A kvm-unit-tests `ipi_hist` line and an mmlab BENCH line with `round_hist`
give the same dict; the median round, the main mode and the shares around
it come from the buckets; the command prints a row per boot and a summary
per tool, and refuses a log with no histogram.
"""
import json
import os
import tempfile
import unittest

from mmlab.roundhist import hist_figures, main, parse_kut, parse_mmlab

KUT = "ipi 477003\n  ipi ipi 1000\n  ipi_hist ipi 10 1000 0 6 3 0 0 0 0 0 0 1\n"


def mmlab_line(hist, variant="naive", spin_pause="off"):
    rec = {"bench": "ipi", "variant": variant, "params": {"target": "one"}, "mean": 2000.0,
           "median": 1600.0, "round_hist_step": 1000, "round_hist": hist,
           "spin_pause": spin_pause}
    return "BENCH " + json.dumps(rec) + "\n"


class TestParse(unittest.TestCase):
    def test_kut(self):
        d = parse_kut(KUT)
        self.assertEqual((d["mean"], d["rounds"], d["step"]), (1000.0, 10, 1000))
        self.assertEqual(d["hist"], [0, 6, 3, 0, 0, 0, 0, 0, 0, 1])

    def test_kut_without_histogram_is_none(self):
        self.assertIsNone(parse_kut("ipi 477003\n  ipi ipi 1000\n"))

    def test_mmlab_picks_the_variant(self):
        text = mmlab_line([0, 1], variant="batched") + mmlab_line([0, 5, 5])
        d = parse_mmlab(text)
        self.assertEqual((d["rounds"], d["median_of_runs"], d["spin_pause"]), (10, 1600.0, "off"))


class TestFigures(unittest.TestCase):
    def test_median_mode_and_shares(self):
        f = hist_figures([0, 6, 3, 0, 0, 0, 0, 0, 0, 1], 1000)
        self.assertEqual(f["median"], 1500.0)
        self.assertEqual(f["mode"], 1500.0)
        self.assertAlmostEqual(f["near_mode"], 0.6)
        self.assertAlmostEqual(f["above_1_25x"], 0.4)
        self.assertAlmostEqual(f["above_4x"], 0.1)

    def test_empty_histogram(self):
        self.assertIsNone(hist_figures([0, 0], 1000))


class TestMain(unittest.TestCase):
    def test_rows_and_refusal(self):
        with tempfile.TemporaryDirectory() as tmp:
            kut, mm, bad = (os.path.join(tmp, n) for n in ("kut.log", "mm.log", "bad.log"))
            for path, text in ((kut, KUT), (mm, mmlab_line([0, 10])), (bad, "nothing\n")):
                with open(path, "w") as f:
                    f.write(text)
            self.assertEqual(main([kut, mm]), 0)
            self.assertEqual(main([kut, bad]), 1)


if __name__ == "__main__":
    unittest.main()
