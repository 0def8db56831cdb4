"""Tests for tools/mmlab/trace.py: trace records to Chrome trace events, and the checker."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from toolpath import command, data
from mmlab.trace import TraceError, check_trace, log_header, parse_trace, to_chrome

LOG = data("trace_tlb4.log")  # tlb, 4 CPUs, pages=1: 9 timed runs, one call to 3 CPUs each
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def read(path=LOG):
    with open(path, encoding="utf-8") as f:
        return f.read()


def converted(text=None):
    text = read() if text is None else text
    return json.loads(json.dumps(to_chrome(parse_trace(text), log_header(text))))


class TestConvert(unittest.TestCase):
    def test_parses_as_json_and_passes_the_checker(self):
        obj = converted()
        self.assertEqual(check_trace(obj, min_flows=1), [])
        for ev in obj["traceEvents"]:
            for key in ("ph", "ts", "pid", "tid"):
                self.assertIn(key, ev)

    def test_one_named_track_per_cpu(self):
        names = [(e["pid"], e["tid"], e["args"]["name"]) for e in converted()["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "thread_name"]
        self.assertEqual(names, [(1, c, f"CPU {c}") for c in range(4)])

    def test_every_ipi_and_ack_has_its_flow(self):
        obj = converted()
        starts = [e for e in obj["traceEvents"] if e["ph"] == "s"]
        ends = {e["id"]: e for e in obj["traceEvents"] if e["ph"] == "f"}
        # 9 calls, each to 3 CPUs: 27 IPI arrows and 27 acknowledgement arrows.
        self.assertEqual(sum(1 for s in starts if s["name"] == "IPI"), 27)
        self.assertEqual(sum(1 for s in starts if s["name"] == "ack"), 27)
        for s in starts:
            end = ends[s["id"]]
            if s["name"] == "IPI":
                self.assertEqual(s["tid"], 0)  # CPU 0 sends every IPI
                self.assertNotEqual(end["tid"], 0)
            else:
                self.assertEqual(end["tid"], 0)  # and sees every ack

    def test_flow_events_sit_on_their_instants(self):
        # Chrome's DevTools bind a flow event to the event of equal cat, pid, tid and ts.
        ev = converted()["traceEvents"]
        instants = {(e["cat"], e["pid"], e["tid"], e["ts"]) for e in ev if e["ph"] == "i"}
        flows = [e for e in ev if e["ph"] in ("s", "f")]
        self.assertEqual(len(flows), 108)
        for e in flows:
            self.assertIn((e["cat"], e["pid"], e["tid"], e["ts"]), instants, e["id"])

    def test_slices_and_regions(self):
        ev = converted()["traceEvents"]
        regions = [e for e in ev if e["ph"] == "X" and e["cat"] == "region"]
        self.assertEqual(len(regions), 9)
        self.assertEqual({r["args"]["variant"] for r in regions}, {"naive", "batched", "serial"})
        flushes = [e for e in ev if e["ph"] == "X" and e["cat"] == "tlb"]
        self.assertEqual(len(flushes), 9 * 4)  # every CPU flushes the page once per run
        self.assertTrue(all(f["args"]["pages"] == 1 for f in flushes))

    def test_overhead_and_loss_reported(self):
        od = converted()["otherData"]
        self.assertEqual(od["record_cycles"], 149)
        self.assertEqual(od["lost_records"], 0)
        self.assertEqual(od["cases"][0]["overhead_cycles_per_region"], 3129)
        self.assertEqual(od["unmatched_records"], 0)


class TestBadInput(unittest.TestCase):
    def test_no_trace_block(self):
        with self.assertRaisesRegex(TraceError, "trace=1"):
            to_chrome(parse_trace("MMLAB {}\nBENCH {}\n"))

    def test_bad_record_names_its_line(self):
        text = read().replace("is,22386,1,1", "is,zz,1,1")
        with self.assertRaisesRegex(TraceError, r"line 4: bad trace record 'is,zz,1,1'"):
            parse_trace(text)

    def test_missing_records_are_an_error(self):
        lines = read().splitlines()
        del lines[3]  # one of CPU 0's data lines
        with self.assertRaisesRegex(TraceError, "CPU 0 has 57 records, TRACE-CPU said 81"):
            parse_trace("\n".join(lines))

    def test_cut_short(self):
        text = read().rsplit("TRACE-END", 1)[0]
        with self.assertRaisesRegex(TraceError, "never ended"):
            parse_trace(text)


class TestChecker(unittest.TestCase):
    def test_event_without_ts(self):
        obj = converted()
        del obj["traceEvents"][5]["ts"]
        self.assertTrue(any("lacks ts" in p for p in check_trace(obj)))

    def test_flow_without_end(self):
        obj = converted()
        obj["traceEvents"] = [e for i, e in enumerate(obj["traceEvents"])
                              if not (e["ph"] == "f" and e["id"].endswith("-1-1"))]
        self.assertTrue(any("1 start(s), 0 end(s)" in p for p in check_trace(obj)))

    def test_unnamed_track(self):
        obj = converted()
        obj["traceEvents"] = [e for e in obj["traceEvents"]
                              if not (e["ph"] == "M" and e["name"] == "thread_name"
                                      and e["tid"] == 2)]
        self.assertIn("pid 1 tid 2: events on a track with no thread_name", check_trace(obj))

    def test_too_few_flows(self):
        self.assertTrue(any("fewer than" in p for p in check_trace(converted(), min_flows=999)))

    def test_not_a_trace(self):
        self.assertEqual(check_trace([]), ["not a JSON object with a traceEvents list"])


class TestCommand(unittest.TestCase):
    def run_tool(self, *args):
        return subprocess.run(command("trace", *args),
                              capture_output=True, text=True)

    def test_convert_then_check(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "trace.json")
            done = self.run_tool(LOG, "-o", out)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertIn("54 flows", done.stdout)
            done = self.run_tool("--check", out, "--min-flows", "54")
            self.assertEqual(done.returncode, 0, done.stderr)

    def test_exit_status(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w", encoding="utf-8") as f:
                f.write("{")
            self.assertEqual(self.run_tool("--check", bad).returncode, 1)
            empty = os.path.join(d, "empty.log")
            with open(empty, "w", encoding="utf-8") as f:
                f.write("MMLAB {}\n")
            done = self.run_tool(empty)
            self.assertEqual(done.returncode, 2)
            self.assertIn("no TRACE-BEGIN block", done.stderr)
        self.assertEqual(self.run_tool().returncode, 2)

    @unittest.skipUnless(shutil.which("gnuplot"), "gnuplot not installed")
    def test_plot(self):
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, "t.png")
            done = self.run_tool(LOG, "--plot", png, "--variants", "naive,batched")
            self.assertEqual(done.returncode, 0, done.stderr)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), PNG_MAGIC)
            done = self.run_tool(LOG, "--plot", png, "--variants", "nosuch")
            self.assertEqual(done.returncode, 2)
            self.assertIn("no timed run of variant 'nosuch'", done.stderr)


if __name__ == "__main__":
    unittest.main()
