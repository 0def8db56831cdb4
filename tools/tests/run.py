#!/usr/bin/env python3
"""Runs the host tools' unit tests and prints the results as KTAP v1.

usage: run.py [MODULE...]

Every tools/tests/test_*.py (or just the named modules) is one suite and
each test method one case; a failure's traceback and whatever the test
printed come as '# ' diagnostic lines before its 'not ok' line, as KUnit
prints them, so `tools/mmlab summary` can count and name them. Exit
status: 0 when every test passed or was skipped, 1 otherwise.
"""
import contextlib
import glob
import importlib
import io
import os
import sys
import traceback
import unittest

sys.dont_write_bytecode = True  # keep tools/ and tools/tests/ free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
from mmlab.interp import ensure_numpy  # noqa: E402  (tools/ is on the path)

if __name__ == "__main__":
    ensure_numpy(sys.argv)


def module_names(argv):
    """The test modules to run: those named, or every test_*.py beside this file."""
    if argv:
        return [os.path.splitext(os.path.basename(a))[0] for a in argv]
    return sorted(os.path.splitext(os.path.basename(p))[0]
                  for p in glob.glob(os.path.join(HERE, "test_*.py")))


def flatten(suite):
    """Every TestCase in a (nested) TestSuite, in order."""
    for item in suite:
        if isinstance(item, unittest.TestSuite):
            yield from flatten(item)
        else:
            yield item


def case_names(tests):
    """A KTAP name per test: the method name, or Class.method if it is not unique."""
    methods = [t.id().split(".")[-1] for t in tests]
    return [m if methods.count(m) == 1 else ".".join(t.id().split(".")[-2:])
            for t, m in zip(tests, methods)]


class KtapResult(unittest.TestResult):
    """Records each test's outcome, and what a failing test printed, by test id.

    Errors in class or module fixtures (setUpClass and the like) are kept
    apart, since they belong to no single test.
    """

    def __init__(self):
        super().__init__()
        self.outcomes = {}
        self.fixture_errors = []
        self._saved = None
        self._output = None

    def startTest(self, test):
        super().startTest(test)
        self._saved = sys.stdout, sys.stderr
        self._output = io.StringIO()
        sys.stdout = sys.stderr = self._output

    def stopTest(self, test):
        sys.stdout, sys.stderr = self._saved
        status, text = self.outcomes.get(test.id(), ("pass", ""))
        if status == "fail" and self._output.getvalue():
            self.outcomes[test.id()] = (status, text + "output:\n" + self._output.getvalue())
        super().stopTest(test)

    def addSuccess(self, test):
        self.outcomes.setdefault(test.id(), ("pass", ""))

    def addSkip(self, test, reason):
        self.outcomes[test.id()] = ("skip", " ".join(reason.split()))

    def addExpectedFailure(self, test, err):
        self.outcomes[test.id()] = ("pass", "")

    def addUnexpectedSuccess(self, test):
        self._fail(test, "unexpected success\n")

    def addFailure(self, test, err):
        self._fail(test, self._describe(err, test))

    def addError(self, test, err):
        if isinstance(test, unittest.TestCase):
            self._fail(test, self._describe(err, test))
        else:
            self.fixture_errors.append(f"{test}: {self._describe(err, test)}")

    def addSubTest(self, test, subtest, err):
        if err is not None:
            self._fail(test, f"{subtest}\n{self._describe(err, subtest)}")

    def outcome(self, test):
        """(status, text) of test; a test that never ran failed with the fixture errors."""
        default = ("fail", "not run\n" + "".join(self.fixture_errors))
        return self.outcomes.get(test.id(), default)

    def _fail(self, test, text):
        """Mark test failed, keeping the text of earlier failures (subtests)."""
        status, before = self.outcomes.get(test.id(), ("fail", ""))
        self.outcomes[test.id()] = ("fail", (before if status == "fail" else "") + text)

    def _describe(self, err, test):
        # TestResult's own formatter: it leaves unittest's frames out of the traceback.
        return self._exc_info_to_string(err, test)


def print_diagnostics(text, indent):
    """Print text as '# ' diagnostic lines at indent."""
    for line in text.rstrip("\n").splitlines():
        print(f"{indent}# {line}".rstrip())


def run_module(name, number):
    """Run one module as a KTAP subtest numbered number; return its failure count."""
    print("  KTAP version 1")
    print(f"  # Subtest: {name}")
    try:
        module = importlib.import_module(name)
    except Exception:  # any import failure is this suite's failure, not the runner's
        print("  1..0")
        print_diagnostics(traceback.format_exc(), "")
        print(f"not ok {number} {name}")
        return 1
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    tests = list(flatten(suite))
    result = KtapResult()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        suite.run(result)
    print(f"  1..{len(tests)}")
    failed = 0
    for index, (test, case) in enumerate(zip(tests, case_names(tests)), 1):
        failed += print_case(result.outcome(test), case, index)
    print(f"{'not ok' if failed else 'ok'} {number} {name}")
    return failed


def print_case(outcome, case, index):
    """Print one test's KTAP result line; return 1 if it failed."""
    status, text = outcome
    if status == "fail":
        print_diagnostics(text, "  ")
        print(f"  not ok {index} {case}")
        return 1
    skip = f" # SKIP {text}" if status == "skip" else ""
    print(f"  ok {index} {case}{skip}")
    return 0


def main(argv):
    """Run the modules in argv (or all) and print KTAP; return the exit status."""
    names = module_names(argv)
    print("KTAP version 1")
    print(f"1..{len(names)}")
    failed = sum(run_module(name, number) for number, name in enumerate(names, 1))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
