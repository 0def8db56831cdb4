"""Tests for tools/mmlab/stats.py: the numbers every table and comparison rests on."""
import math
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.stats import (exceeds_noise, improvement_ratio, is_number, mean, median,
                         percent_change, relative_stddev, stddev)


class TestBasicStatistics(unittest.TestCase):
    def test_median_odd_and_even(self):
        self.assertEqual(median([3, 1, 2]), 2)
        self.assertEqual(median([4, 1, 3, 2]), 2.5)

    def test_mean(self):
        self.assertAlmostEqual(mean([1, 2, 3, 4]), 2.5)

    def test_stddev_is_sample_stddev(self):
        self.assertAlmostEqual(stddev([2, 4, 4, 4, 5, 5, 7, 9]), 2.138089935, places=6)
        self.assertEqual(stddev([5]), 0.0)

    def test_refuses_empty_and_non_finite_input(self):
        for bad in ([], [1, math.nan], [1, math.inf], [1, "2"], [True]):
            with self.subTest(values=bad), self.assertRaises(ValueError):
                median(bad)

    def test_is_number(self):
        self.assertTrue(is_number(3) and is_number(2.5) and is_number(-1e300))
        for bad in (True, None, "1", math.nan, -math.inf, [1]):
            self.assertFalse(is_number(bad), bad)

    def test_relative_stddev(self):
        self.assertAlmostEqual(relative_stddev(5.0, 200.0), 2.5)
        self.assertEqual(relative_stddev(0, 0), 0.0)
        self.assertIsNone(relative_stddev(1.0, 0))


class TestDirectionAwareComparisons(unittest.TestCase):
    def test_percent_change_lower_is_better(self):
        self.assertAlmostEqual(percent_change(100.0, 80.0, "lower"), 20.0)
        self.assertAlmostEqual(percent_change(100.0, 125.0, "lower"), -25.0)

    def test_percent_change_higher_is_better(self):
        self.assertAlmostEqual(percent_change(100.0, 125.0, "higher"), 25.0)
        self.assertAlmostEqual(percent_change(100.0, 80.0, "higher"), -20.0)

    def test_percent_change_of_nothing_is_zero_not_minus_zero(self):
        self.assertEqual(str(percent_change(7.0, 7.0, "lower")), "0.0")

    def test_percent_change_from_zero_is_undefined(self):
        self.assertIsNone(percent_change(0, 5, "higher"))

    def test_improvement_ratio_above_one_when_improved_wins(self):
        self.assertAlmostEqual(improvement_ratio(400.0, 100.0, "lower"), 4.0)
        self.assertAlmostEqual(improvement_ratio(100.0, 300.0, "higher"), 3.0)
        self.assertLess(improvement_ratio(100.0, 400.0, "lower"), 1.0)
        self.assertIsNone(improvement_ratio(100.0, 0.0, "lower"))

    def test_bad_direction_is_refused(self):
        with self.assertRaises(ValueError):
            percent_change(1, 2, "faster")


class TestNoise(unittest.TestCase):
    def test_change_beyond_twice_the_larger_spread_stands_out(self):
        self.assertTrue(exceeds_noise(-20.0, 3.0, 2.0))
        self.assertFalse(exceeds_noise(5.9, 3.0, 1.0))
        self.assertFalse(exceeds_noise(6.0, 3.0, 1.0))

    def test_factor_is_adjustable(self):
        self.assertTrue(exceeds_noise(5.0, 2.0, 2.0, factor=1.0))

    def test_exact_counters_any_change_counts(self):
        self.assertTrue(exceeds_noise(0.5, 0.0, 0.0))
        self.assertFalse(exceeds_noise(0.0, 0.0, 0.0))

    def test_unknown_spread_or_change_never_counts(self):
        self.assertFalse(exceeds_noise(None, 1.0, 1.0))
        self.assertFalse(exceeds_noise(50.0, None, 1.0))


if __name__ == "__main__":
    unittest.main()
