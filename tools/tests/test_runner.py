"""Tests for tools/tests/run.py: unittest outcomes printed as KTAP v1."""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest

from toolpath import HERE
from mmlab.ktap import counted_results, parse_ktap

SAMPLE = '''
import unittest


class TestSample(unittest.TestCase):
    def test_passes(self):
        print("noise that must not reach the KTAP stream")

    def test_fails(self):
        print("printed before failing")
        self.assertEqual(1, 2)

    def test_raises(self):
        raise RuntimeError("boom")

    @unittest.skip("not on this host")
    def test_skipped(self):
        pass

    def test_subtests(self):
        for i in range(3):
            with self.subTest(i=i):
                self.assertNotEqual(i, 1)


class TestBrokenFixture(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        raise OSError("no fixture")

    def test_never_runs(self):
        pass
'''


class TestRunner(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        tmp = tempfile.mkdtemp()
        cls.addClassCleanup(shutil.rmtree, tmp)
        with open(os.path.join(tmp, "sample_tests.py"), "w") as f:
            f.write(textwrap.dedent(SAMPLE))
        with open(os.path.join(tmp, "broken_tests.py"), "w") as f:
            f.write("import no_such_module_for_mmlab\n")
        env = dict(os.environ, PYTHONPATH=tmp, PYTHONDONTWRITEBYTECODE="1")
        cls.done = subprocess.run(
            [sys.executable, os.path.join(HERE, "run.py"), "sample_tests", "broken_tests"],
            capture_output=True, text=True, env=env)
        lines = cls.done.stdout.splitlines()
        cls.roots, cls.problems = parse_ktap(enumerate(lines, 1))
        cls.results = {name: case for name, case in counted_results(cls.roots[0])}

    def test_output_is_valid_ktap(self):
        self.assertEqual(self.problems, [])
        self.assertTrue(self.done.stdout.startswith("KTAP version 1\n1..2\n"))
        self.assertNotIn("noise", self.done.stdout)

    def test_exit_status_is_1_on_failure(self):
        self.assertEqual(self.done.returncode, 1)

    def test_one_case_per_test_method(self):
        statuses = {name: case.status for name, case in self.results.items()}
        self.assertEqual(statuses, {
            "sample_tests.test_fails": "fail", "sample_tests.test_passes": "pass",
            "sample_tests.test_raises": "fail", "sample_tests.test_skipped": "skip",
            "sample_tests.test_subtests": "fail", "sample_tests.test_never_runs": "fail",
            "broken_tests": "fail"})

    def test_failure_text_and_output_are_diagnostics(self):
        text = "\n".join(self.results["sample_tests.test_fails"].diagnostics)
        self.assertIn("AssertionError: 1 != 2", text)
        self.assertIn("printed before failing", text)
        self.assertIn("RuntimeError: boom",
                      "\n".join(self.results["sample_tests.test_raises"].diagnostics))
        self.assertIn("(i=1)", "\n".join(self.results["sample_tests.test_subtests"].diagnostics))

    def test_skip_reason(self):
        self.assertEqual(self.results["sample_tests.test_skipped"].reason, "not on this host")

    def test_fixture_and_import_errors_are_failures(self):
        self.assertIn("OSError: no fixture",
                      "\n".join(self.results["sample_tests.test_never_runs"].diagnostics))
        broken = self.roots[0].cases[1]
        self.assertIn("ModuleNotFoundError", "\n".join(broken.diagnostics))


if __name__ == "__main__":
    unittest.main()
