"""Tests for tests/matrix.py: the cfg's rows, needs that skip, the named checks."""
import contextlib
import importlib.util
import io
import os
import tempfile
import unittest

import toolpath

ROOT = os.path.dirname(toolpath.TOOLS)
spec = importlib.util.spec_from_file_location("matrix", os.path.join(ROOT, "tests", "matrix.py"))
matrix = importlib.util.module_from_spec(spec)
spec.loader.exec_module(matrix)
ENV = {"O": "/o", "PYTHON": "py", "here": ROOT, "logs": "/l", "runs": "/r", "contract_runs": "/c"}


def parse_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".cfg") as f:
        f.write(text)
        f.flush()
        return matrix.parse(f.name, ENV)


class Parse(unittest.TestCase):
    def test_the_tree_cfg_parses(self):
        words, rows = matrix.parse(os.path.join(ROOT, "tests", "matrix.cfg"), ENV)
        self.assertIn("kvm_suites", words)
        self.assertEqual(rows[0]["name"], "host-unit")
        self.assertTrue(any(r["kind"] == "boot" for r in rows))

    def test_options_then_arguments_words_continued_lines(self):
        _, rows = parse_text("set m = --machine q35 --smp 8\n"
                             "a boot needs=kvm timeout=9 ${m} \\\n"
                             "\t-- ktest=boot timeout=1\n")
        self.assertEqual(rows, [{"name": "a", "kind": "boot", "needs": "kvm", "timeout": "9",
                                 "args": ["--machine", "q35", "--smp", "8", "--", "ktest=boot",
                                          "timeout=1"]}])

    def test_bad_rows_stop_before_any_step(self):
        for text in ("a bogus x\n", "a boot needs=gpu x\n", "a boot check=nope x\n",
                     "a checks no-such-step.sh\n", "a boot x\na boot y\n"):
            with self.subTest(text=text), self.assertRaises(SystemExit):
                parse_text(text)
        with self.assertRaises(KeyError):
            parse_text("a boot ${undefined}\n")


class Run(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.env = dict(ENV, logs=self.tmp.name, runs=self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def read(self, name):
        with open(os.path.join(self.tmp.name, name)) as f:
            return f.read()

    def test_missing_need_is_one_skip_in_the_rows_ktap(self):
        needs = dict(matrix.NEEDS)
        matrix.NEEDS["bochs"] = lambda env: "Bochs is not installed (missing: bochs)"
        try:
            matrix.run_row({"name": "b1", "kind": "boot", "needs": "bochs", "ktap": "bochs",
                            "args": []}, self.env)
        finally:
            matrix.NEEDS.update(needs)
        self.assertEqual(self.read("bochs.ktap"), "KTAP version 1\n1..1\n"
                         "ok 1 bochs # SKIP Bochs is not installed (missing: bochs)\n")

    def test_kvm_could_not_run_is_a_skip_with_qemus_reason(self):
        run = os.path.join(self.tmp.name, "k")
        os.makedirs(run)
        with open(os.path.join(run, "serial.log"), "w") as f:
            f.write("MMLAB {}\nmmlab: error: apic=x2apic but this CPU has no x2APIC\n")
        row = {"name": "k", "args": []}
        matrix.check_kvm_could_not_run(row, self.env, 0)
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "k.ktap")))
        matrix.check_kvm_could_not_run(row, self.env, 1)
        self.assertIn("ok 1 k # SKIP KVM could not run it: mmlab: error: apic=x2apic but this "
                      "CPU has no x2APIC\n", self.read("k.ktap"))
        self.assertTrue(os.path.exists(os.path.join(run, "serial.log.skipped")))

    def test_sanitizer_exit_without_not_ok_fails(self):
        with open(os.path.join(self.tmp.name, "t.ktap"), "w") as f:
            f.write("KTAP version 1\n1..1\nok 1 a\n==1==ERROR: AddressSanitizer\n")
        with contextlib.redirect_stderr(io.StringIO()):
            matrix.check_sanitizer_exit({"name": "t", "args": ["bin"]}, self.env, 1)
        self.assertTrue(self.read("t.ktap").endswith(
            "not ok 99 t # exit 1 (sanitizer report above?)\n"))

    def test_failed_build_is_one_failure_once(self):
        env = dict(self.env, O=self.tmp.name)
        row = {"name": "thing-a", "build": "no-such-target", "args": []}
        self.assertTrue(matrix.build_failed(row, env))
        self.assertIn("not ok 1 thing_build # ", self.read("thing-a.ktap"))
        self.assertIn("no-such-target", self.read("thing-build.log"))
        self.assertTrue(matrix.build_failed(dict(row, name="thing-b"), env))
        self.assertFalse(os.path.exists(os.path.join(self.tmp.name, "thing-b.ktap")))


if __name__ == "__main__":
    unittest.main()
