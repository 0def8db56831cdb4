"""Tests for tools/mmlab/summary.py: counts, failure names, totals line, exit status."""
import contextlib
import io
import os
import subprocess
import tempfile
import unittest

from toolpath import command, data
from mmlab.summary import main

TOTALS_RE = r"\A\d+ passed, \d+ failed, \d+ skipped\Z"


def summarize(*argv):
    """Run the summary in-process; return (exit status, output lines)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(argv))
    return status, out.getvalue().splitlines()


class TestTotals(unittest.TestCase):
    def test_passing_kernel_log(self):
        status, lines = summarize(data("selftest_good.log"))
        self.assertEqual(status, 0)
        self.assertEqual(lines[-1], "5 passed, 0 failed, 2 skipped")
        self.assertRegex(lines[-1], TOTALS_RE)
        self.assertIn("PASS", lines[0])

    def test_counts_add_up_across_logs(self):
        status, lines = summarize(data("selftest_good.log"), data("host_ktap.txt"))
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "6 passed, 1 failed, 3 skipped")

    def test_label_prefixes_status_lines(self):
        _, lines = summarize("--label", "host", data("host_ktap.txt"))
        self.assertTrue(lines[0].startswith("host: "), lines[0])


class TestFailures(unittest.TestCase):
    def test_failing_case_by_full_name_with_diagnostics(self):
        status, lines = summarize(data("selftest_fail.log"))
        self.assertEqual(status, 1)
        at = lines.index("  not ok pin.test_pin_has_pinned")
        self.assertEqual(lines[at + 1],
                         "    # test_pin_has_pinned: EXPECTATION FAILED at tests/mm/pin/test_pin.c:88")
        self.assertEqual(lines[-1], "2 passed, 1 failed, 1 skipped")

    def test_plan_mismatch_is_one_failure_named_after_the_log(self):
        path = data("selftest_plan_mismatch.log")
        status, lines = summarize(path)
        self.assertEqual(status, 1)
        self.assertIn(f"  not ok {path}", lines)
        self.assertEqual(lines[-1], "3 passed, 1 failed, 0 skipped")

    def test_truncated_kernel_log_fails(self):
        status, lines = summarize(data("selftest_truncated.log"))
        self.assertEqual(status, 1)
        self.assertTrue(any("no MMLAB-DONE trailer" in line for line in lines))

    def test_log_without_ktap_fails(self):
        path = data("bench_good.log")
        status, lines = summarize(path)
        self.assertEqual(status, 1)
        self.assertIn("    # no KTAP output", lines)
        self.assertEqual(lines[-1], "0 passed, 1 failed, 0 skipped")

    def test_trailer_reporting_failure_without_failed_case(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "selftest.log")
            with open(data("selftest_good.log")) as f:
                text = f.read().replace('"failed": 0', '"failed": 2')
            with open(path, "w") as f:
                f.write(text)
            status, lines = summarize(path)
        self.assertEqual(status, 1)
        self.assertTrue(any("trailer reports a failure" in line for line in lines))

    def test_missing_file_fails(self):
        status, lines = summarize(data("no_such_file.log"))
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "0 passed, 1 failed, 0 skipped")


class TestBenchChecks(unittest.TestCase):
    def test_each_well_formed_bench_line_is_a_passed_check(self):
        status, lines = summarize("--bench", data("bench_good.log"))
        self.assertEqual(status, 0)
        self.assertEqual(lines[-1], "20 passed, 0 failed, 0 skipped")

    def test_each_malformed_bench_line_is_a_failure(self):
        path = data("bench_garbled.log")
        status, lines = summarize("--bench", path)
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "2 passed, 4 failed, 0 skipped")
        self.assertIn(f"  not ok {path}:3 BENCH", lines)

    def test_no_bench_lines_fails(self):
        status, lines = summarize("--bench", data("selftest_good.log"))
        self.assertEqual(status, 1)
        self.assertEqual(lines[-1], "5 passed, 1 failed, 2 skipped")


class TestScript(unittest.TestCase):
    def test_exit_status_and_last_line_from_the_script(self):
        for name, expected in (("selftest_good.log", 0), ("selftest_fail.log", 1)):
            with self.subTest(log=name):
                done = subprocess.run(command("summary", data(name)),
                                      capture_output=True, text=True)
                self.assertEqual(done.returncode, expected, done.stderr)
                self.assertRegex(done.stdout.splitlines()[-1], TOTALS_RE)

    def test_usage_error(self):
        done = subprocess.run(command("summary"),
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("usage:", done.stderr)


if __name__ == "__main__":
    unittest.main()
