"""Tests for tools/lava/lava_check.py: which lava-run lines are mmlab's console."""
import json
import os
import sys
import tempfile
import unittest

from toolpath import TOOLS

sys.path.insert(0, os.path.join(TOOLS, "lava"))
from lava_check import read_run  # noqa: E402


def run_output(records):
    f = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
    with f:
        for rec in records:
            f.write(json.dumps(rec) + "\n")
    return f.name


class TestReadRun(unittest.TestCase):
    def test_feedback_line_is_console(self):
        # CI once saw the trailer logged as "feedback": it arrived while the
        # monitor action finished. It is still the kernel's console.
        path = run_output([
            {"lvl": "target", "msg": "MMLAB {\\\"version\\\":\\\"x\\\"}"},
            {"lvl": "feedback", "msg": "MMLAB-DONE {\\\"status\\\":\\\"pass\\\"}", "ns": "common"},
            {"lvl": "info", "msg": "Job finished correctly"},
            {"lvl": "results", "msg": {"case": "job", "definition": "lava", "result": "pass"}},
        ])
        try:
            console, cases, lava = read_run(path)
        finally:
            os.unlink(path)
        self.assertEqual(console, ['MMLAB {"version":"x"}', 'MMLAB-DONE {"status":"pass"}'])
        self.assertEqual(cases, [])
        self.assertEqual(lava["job"]["result"], "pass")


if __name__ == "__main__":
    unittest.main()
