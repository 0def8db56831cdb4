"""Tests for tools/mmlab/likeforlike.py: mmlab beside Linux on one estimand.

Each boot gives one difference per (design, pages, N): the in-kernel unmap
per call at N CPUs less at 1 CPU, mmlab's from its median per page times
the pages one call drops, Linux's from its traced zap per call (and its
flush). Means and intervals are over boots; a ratio whose interval is wider
than the ratio is refused by name.
"""
import unittest

from test_fits import record
from mmlab.likeforlike import (TOO_FEW, TOO_WIDE, boot_deltas, like_for_like, mean_ci,
                               mmlab_figure, ratio_ci, render_like_for_like)

SYSTEM = "linux-6.1.0-57-amd64"


def mmlab_boot(per_page_1, per_page_2, pages=32, variant="batched"):
    return [record(pages, per_page_1, variant=variant, cpus=1, jitter=(1.0,)),
            record(pages, per_page_2, variant=variant, cpus=2, jitter=(1.0,))]


def linux_boot(zap_1, zap_2, flush_1=100.0, flush_2=200.0, pages=32):
    def one(cpus, zap, flush):
        return record(pages, 1.0, variant="batched", cpus=cpus, jitter=(1.0,), system=SYSTEM,
                      kernel_zap_page_range_single_cycles_per_call=zap,
                      kernel_flush_tlb_mm_range_cycles_per_call=flush)
    return [one(1, zap_1, flush_1), one(2, zap_2, flush_2)]


class TestDeltas(unittest.TestCase):
    def test_batched_per_call_is_per_page_times_pages(self):
        deltas = boot_deltas(mmlab_boot(10.0, 15.0), mmlab_figure)
        self.assertEqual(deltas, {("batched", 32, "idle", 2): 5.0 * 32})

    def test_naive_per_call_is_per_page(self):
        deltas = boot_deltas(mmlab_boot(10.0, 15.0, variant="naive"), mmlab_figure)
        self.assertEqual(deltas, {("naive", 32, "idle", 2): 5.0})

    def test_no_one_cpu_reference_no_delta(self):
        self.assertEqual(boot_deltas(mmlab_boot(10.0, 15.0)[1:], mmlab_figure), {})

    def test_peer_records_are_not_mmlab_figures(self):
        self.assertEqual(boot_deltas(linux_boot(1000.0, 3000.0), mmlab_figure), {})


class TestRatio(unittest.TestCase):
    def test_identical_boots_give_a_point_interval(self):
        ratio, ci = ratio_ci([50.0, 50.0, 50.0], [100.0, 100.0])
        self.assertEqual(ratio, 0.5)
        self.assertEqual(ci, (0.5, 0.5))

    def test_wide_interval_is_refused(self):
        ratio, why = ratio_ci([1.0, 100.0, -80.0], [100.0, 5.0, 300.0])
        self.assertEqual(why, TOO_WIDE)

    def test_two_boots_whose_linux_interval_spans_zero_give_no_ratio(self):
        # The exact-mode run's pages=1 row: Linux's mean over two boots has a
        # t interval of -1305..3219; a bootstrap of the boots gave 0.71..1.04.
        self.assertEqual(ratio_ci([808.0, 808.0], [779.0, 1135.0])[1], TOO_WIDE)

    def test_one_boot_a_side_gives_no_interval(self):
        self.assertEqual(ratio_ci([1.0], [2.0, 2.0])[1], TOO_FEW)

    def test_mean_interval_over_boots(self):
        mean, ci = mean_ci([10.0, 12.0])
        self.assertEqual(mean, 11.0)
        self.assertLess(ci[0], 10.0)
        self.assertGreater(ci[1], 12.0)


class TestLikeForLike(unittest.TestCase):
    def rows(self, linux_boots):
        mine = [mmlab_boot(10.0, 15.0), mmlab_boot(10.0, 15.0)]
        return like_for_like(mine, linux_boots)

    def test_row_per_boot_figures(self):
        [row] = self.rows([linux_boot(1000.0, 1320.0), linux_boot(1000.0, 1320.0)])
        self.assertEqual(row["mmlab_per_boot"], [160.0, 160.0])
        self.assertEqual(row["linux_unmap_per_boot"], [320.0, 320.0])
        self.assertEqual(row["linux_flush_per_boot"], [100.0, 100.0])
        self.assertEqual(row["ratio"], 0.5)
        self.assertEqual(row["ratio_ci"], (0.5, 0.5))
        self.assertIsNone(row["no_ratio"])
        text = "\n".join(render_like_for_like([row]))
        self.assertIn("0.500 (0.500..0.500)", text)

    def test_noisy_linux_boots_print_no_ratio(self):
        [row] = self.rows([linux_boot(1000.0, 1010.0), linux_boot(1000.0, 2000.0),
                           linux_boot(2000.0, 1000.0)])
        self.assertIsNone(row["ratio_ci"])
        self.assertEqual(row["no_ratio"], TOO_WIDE)
        self.assertIn(TOO_WIDE, "\n".join(render_like_for_like([row])))

    def test_nothing_to_compare_renders_nothing(self):
        self.assertEqual(like_for_like([mmlab_boot(10.0, 15.0)], [[]]), [])
        self.assertEqual(render_like_for_like([]), [])


if __name__ == "__main__":
    unittest.main()
