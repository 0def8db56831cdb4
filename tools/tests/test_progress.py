"""Tests for tools/mmlab/progress.py: run.sh's one line per benchmark while the guest runs."""
import io
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.progress import Progress, clock

LOG = """MMLAB {"version":"x"}
# WARN tsc: not invariant
# bench tlb cpus=1 pages=1: variants alternate run by run (order shuffled, seed 1), 6..6 timed runs each
BENCH {"bench":"tlb"}
# bench tlb cpus=2 pages=1: variants alternate run by run (order shuffled, seed 1), 6..6 timed runs each
# bench FAIL tlb lazy cpus=2 pages=1: stale entry
# bench pin cpus=1 region=own: variants alternate run by run (order shuffled, seed 1), 6..6 timed runs each
MMLAB-DONE {"passed":3,"failed":1,"skipped":0,"status":"fail"}
"""


class Clock:
    """A clock the test moves by hand (10 s a line)."""

    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def feed(tty, benches=("tlb", "pin", "ipi")):
    out, now = io.StringIO(), Clock()
    p = Progress(list(benches), out, tty, now)
    for line in LOG.splitlines():
        now.t += 10
        p.feed(line)
    p.finish()
    return out.getvalue()


class TestProgress(unittest.TestCase):
    def test_skips_say_the_cases_ran(self):
        # A case run at 2 CPUs and skipped at 1: "1 case, 1 skipped" read as nothing run.
        out, now = io.StringIO(), Clock()
        p = Progress(["ipi"], out, False, now)
        p.feed("# bench ipi cpus=1: outside its range 2..2 CPUs: skipped")
        p.feed("# bench ipi cpus=2 target=one: variants alternate run by run (order shuffled, "
               "seed 1), 6..6 timed runs each")
        p.finish()
        self.assertIn("ipi: 1 case run, 1 skipped, ", out.getvalue())

    def test_one_line_per_benchmark_elsewhere(self):
        self.assertEqual(feed(False).splitlines(), [
            "# WARN tsc: not invariant",
            # tlb from t=30 to t=70 (pin's first line): 40 s; two benchmarks not started.
            "tlb: 2 cases, 1 failed, 40s (run 1m10s, about 1m20s left)",
            # pin from 70 to 80; ipi never ran: one left at the mean of 40 s and 10 s.
            "pin: 1 case, 10s (run 1m20s, about 25s left)"])

    def test_rewritten_in_place_on_a_terminal(self):
        text = feed(True)
        self.assertEqual(text.count("\n"), 3)
        self.assertIn("\r\033[Ktlb: 1 case, 0s (run 30s)", text)  # no estimate yet
        # pin just started: its own 40 s (the mean so far) and ipi's 40 s.
        self.assertIn("\r\033[Kpin: 1 case, 0s (run 1m10s, about 1m20s left)", text)

    def test_no_estimate_without_the_list(self):
        self.assertIn("tlb: 2 cases, 1 failed, 40s (run 1m10s)\n", feed(False, ()))

    def test_clock(self):
        self.assertEqual([clock(s) for s in (5, 65, 3725)], ["5s", "1m05s", "1h02m"])


if __name__ == "__main__":
    unittest.main()
