"""Tests for tools/mmlab/results.py: the report and compare commands end to end."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from toolpath import command, data

HAVE_GNUPLOT = shutil.which("gnuplot") is not None


def results(*argv):
    """Run `tools/mmlab ARGV...` (report or compare); return the finished process."""
    return subprocess.run(command(*argv),
                          capture_output=True, text=True)


class TestReport(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.out = os.path.join(self.tmp, "run")

    def read(self, name):
        with open(os.path.join(self.out, name)) as f:
            return f.read()

    def test_writes_json_and_table_and_prints_headline(self):
        done = results("report", "--no-plots", data("bench_good.log"), self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        # The headline (table.txt's first lines) and where the rest is, not the whole table.
        table = self.read("table.txt")
        head = table[:table.index("\n\nmmlab v") + 1]
        self.assertTrue(head.startswith("Headline (time mode: "), head)
        self.assertEqual(done.stdout, head + f"Every design, every parameter set: "
                         f"{self.out}/table.txt\nResults page: {self.out}/index.html\n")
        self.assertLessEqual(len(done.stdout.splitlines()), 62)
        self.assertNotIn("incomplete", json.loads(self.read("results.json")))
        doc = json.loads(self.read("results.json"))
        self.assertEqual(doc["format"], "mmlab-results 1")
        self.assertEqual(doc["header"]["cpu_model"], "QEMU Virtual CPU version 2.5+")
        self.assertEqual(doc["trailer"]["status"], "pass")
        self.assertEqual(len(doc["results"]), 20)
        self.assertEqual(doc["results"][0]["line"], 7)
        self.assertEqual(doc["problems"], [])

    def test_full_table_option_prints_table_txt(self):
        done = results("report", "--no-plots", "--full-table", data("bench_good.log"), self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        table = self.read("table.txt")
        printed = done.stdout.split("Every design")[0]
        self.assertTrue(printed.startswith("mmlab v"), printed)
        self.assertTrue(table.endswith("\n\n" + printed), table)

    def test_failed_cases_follow_the_headline(self):
        done = results("report", "--no-plots", data("bench_page.log"), self.out)
        self.assertEqual(done.returncode, 1)
        self.assertIn("\n1 failed case(s):\n  pin fixed cpus=2 region=own per_call=512: "
                      "verification: 1 page left pinned (timed run 3)\nEvery design",
                      done.stdout)

    def test_incomplete_marks_results_json(self):
        done = results("report", "--no-plots", "--incomplete", "SIGTERM",
                       data("bench_truncated.log"), self.out)
        self.assertEqual(done.returncode, 1)  # the cut-off log's problems still count
        doc = json.loads(self.read("results.json"))
        self.assertIs(doc["incomplete"], True)
        self.assertEqual(doc["interrupted_by"], "SIGTERM")
        self.assertEqual(len(doc["results"]), 1)

    def test_problems_are_reported_and_kept(self):
        done = results("report", "--no-plots", data("bench_truncated.log"), self.out)
        self.assertEqual(done.returncode, 1)
        self.assertIn("line 4: BENCH line is cut off", done.stderr)
        doc = json.loads(self.read("results.json"))
        self.assertEqual([p["kind"] for p in doc["problems"]], ["truncated", "truncated"])
        self.assertEqual(len(doc["results"]), 1)

    def test_missing_gnuplot_still_writes_json_and_table(self):
        done = results("report", "--gnuplot", "no-such-gnuplot-mmlab",
                       data("bench_good.log"), self.out)
        self.assertEqual(done.returncode, 0)
        self.assertIn("no-such-gnuplot-mmlab not found, plots skipped", done.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.out, "results.json")))
        self.assertTrue(os.path.exists(os.path.join(self.out, "table.txt")))

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot is not installed")
    def test_plots_are_written(self):
        done = results("report", data("bench_good.log"), self.out)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(len(os.listdir(os.path.join(self.out, "plots"))), 8)

    def test_failing_run_exits_1(self):
        done = results("report", "--no-plots", data("selftest_fail.log"), self.out)
        self.assertEqual(done.returncode, 1)
        self.assertIn("the run reports failure", done.stderr)

    def test_unreadable_log_is_a_usage_error(self):
        done = results("report", data("no_such_file.log"), self.out)
        self.assertEqual(done.returncode, 2)
        self.assertFalse(os.path.exists(self.out))


class TestCompare(unittest.TestCase):
    def test_compare_results_folder_with_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            results("report", "--no-plots", data("bench_good.log"), tmp)
            done = results("compare", tmp, data("bench_b.log"))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("%change: positive means B is better", done.stdout)
        self.assertIn("-20.00% *", done.stdout)

    def test_noise_factor_option(self):
        done = results("compare", "--noise-factor", "0.1", data("bench_good.log"),
                       data("bench_b.log"))
        pin_row = next(line for line in done.stdout.splitlines()
                       if line.startswith("pin") and " fixed " in line and "  2  " in line)
        self.assertTrue(pin_row.endswith("+1.00% *"), pin_row)

    def test_unreadable_side(self):
        done = results("compare", data("bench_good.log"), data("no_such_file.log"))
        self.assertEqual(done.returncode, 1)
        self.assertIn("cannot read", done.stderr)

    def test_usage(self):
        self.assertEqual(results().returncode, 2)
        self.assertEqual(results("plot").returncode, 2)


if __name__ == "__main__":
    unittest.main()
