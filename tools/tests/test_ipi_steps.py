"""Tests for tools/mmlab/ipi_steps.py: the per-step table of one-target call rounds."""
import io
import unittest
from contextlib import redirect_stdout

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.ipi_steps import main, steps_of_case
from mmlab.trace import parse_trace

# Two rounds from CPU 0 to CPU 1 inside one timed run; each record's delta is
# hexadecimal cycles since the CPU's previous record (the first: since base).
LOG = """TRACE-BEGIN {"bench":"ipi","cpus":2,"case":"target=one target_state=halted","variants":{"0":"naive"},"tsc_hz":1000,"base":0,"buf_records":64}
TRACE-CPU {"cpu":0,"records":12}
TRACE 0 rb,0,0,0 cp,10,1,1 ic,5,1,1 is,20,1,1 aw,40,0,1 cp,8,1,2 ic,5,1,2 is,20,1,2 aw,40,0,2
TRACE 0 cp,8,0,3 aw,1,0,3 re,1,0,0
TRACE-CPU {"cpu":1,"records":12}
TRACE 1 ih,1,0,0 ie,30,0,0 ir,3,0,1 as,2,0,1 eo,4,0,0 iw,6,0,0
TRACE 1 ie,41,0,0 ir,3,0,2 as,2,0,2 eo,4,0,0 iw,6,0,0 ih,1,0,0
TRACE-END {"records":25,"lost":0}
"""


class TestSteps(unittest.TestCase):
    def test_each_step_of_both_rounds(self):
        steps, state = steps_of_case(parse_trace(LOG)[0])
        self.assertEqual(state, {"asleep": 1, "rounds": 2})  # round 2 found it awake
        self.assertEqual(steps["post: descriptor and mailbox bits"], [5, 5])
        self.assertEqual(steps["ICR write (caller)"], [0x20, 0x20])
        # CPU 0: ic at 0x15, is at 0x35; CPU 1: ie at 0x31: entered before the write returned.
        # CPU 0: ic at 0x82, is at 0xa2; CPU 1: ie at 0x81.
        # Round 2's target entered 1 cycle before the ICR write began (its clock is another
        # CPU's): a negative step is left out, not counted as 0.
        self.assertEqual(steps["ICR write -> call vector entered (delivery, HLT exit)"], [0x1c])
        self.assertEqual(steps["call vector entered -> caller's ICR write returns"], [4, 0x21])
        self.assertEqual(steps["entry -> claim (stub, counters, two exchanges)"], [3, 3])
        self.assertEqual(steps["claim -> acknowledgement (the function)"], [2, 2])
        self.assertEqual(steps["acknowledgement -> EOI written (target)"], [4, 4])
        self.assertEqual(steps["EOI -> HLT returned (IRET, back in idle)"], [6, 6])
        # Round 1's target took the next IPI before it halted again: no halt to pair.
        self.assertEqual(steps["HLT returned -> halts again (idle loop)"], [1])
        self.assertEqual(steps["round: post -> seen"], [0x65, 0x65])
        # The third call names no target (peer 0): not a round, not a "next post".
        self.assertEqual(steps["seen -> next round's post (caller's loop)"], [8])

    def test_table_and_exit_status(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(LOG)
            f.flush()
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(main([f.name]), 0)
            self.assertIn("| round: post -> seen | 101 |", out.getvalue())
            out = io.StringIO()
            with redirect_stdout(out):  # two boots of one case: their rounds pooled
                self.assertEqual(main([f.name, f.name]), 0)
            self.assertIn("4 rounds, target halted before the ICR write in 2 of them",
                          out.getvalue())
            self.assertEqual(main([f.name, "--case", "no such case"]), 2)


if __name__ == "__main__":
    unittest.main()
