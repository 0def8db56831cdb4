"""Tests for `mmlab report` on logs of each timing mode: exact mode (hand-written to the
BENCH contract: title, headline, deferred, instructions), a real time-mode log of TCG
(5 runs a case), a trailer whose A/A failed, and the report's cost on a full-size log."""
import json
import os
import random
import resource
import shutil
import subprocess
import tempfile
import unittest

from toolpath import command, data

# The report on a full run's log, in CPU seconds of the report and what it runs.
REPORT_CPU_LIMIT_S = 10.0


def report(log, outdir, *options):
    return subprocess.run(command("report", *options, log, outdir), capture_output=True,
                          text=True, timeout=300)


class ReportCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)

    def write_log(self, text):
        path = os.path.join(self.tmp, "serial.log")
        with open(path, "w") as f:
            f.write(text)
        return path

    def results_json(self, outdir):
        with open(os.path.join(outdir, "results.json")) as f:
            return json.load(f)


class TestExactLog(ReportCase):
    def test_headline_of_declared_rows_in_exact_mode(self):
        out = os.path.join(self.tmp, "r")
        done = report(data("bench_exact.log"), out, "--no-plots")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertTrue(lines[0].startswith("Headline (exact mode: "), lines[0])
        self.assertEqual(lines[2], "unmap cost per page: tlb pages=8 remote=busy at 2 CPUs, "
                                   "instructions_per_page (instructions, lower is better)")
        tlb = lines[2:lines.index("", 2)]
        rows = {line.split()[0]: line for line in tlb if line.startswith("  ")}
        self.assertEqual(rows["batched"].split()[1:3], ["529.4", "3.595x"])
        self.assertIn("deferred: finishes outside the timed call, 350.2 instructions more",
                      rows["lazy"])
        self.assertIn("same work as naive; exact mode cannot show latency: see ./run.sh "
                      "--timing", rows["serial"])
        self.assertNotIn("pages=512", done.stdout)  # not declared: table.txt has it
        doc = self.results_json(out)
        self.assertEqual((doc["warnings"], doc["unstable"], doc["level_shifts"]), ([], [], []))

    def test_aa_beyond_a_tenth_of_a_percent_fails_first(self):
        with open(data("bench_exact.log")) as f:
            text = f.read()
        aa = '"variant":"aa","cpus":2,"params":{"remote":"busy","pages":8}'
        self.assertEqual(text.count(aa), 1)
        line = next(x for x in text.splitlines() if aa in x)
        text = text.replace(line, line.replace("1903.0", "1905.5"))
        text = text.replace('"status":"pass"', '"status":"aa_failed"')
        out = os.path.join(self.tmp, "r")
        done = report(self.write_log(text), out, "--no-plots")
        self.assertEqual(done.returncode, 1)  # the trailer says the run failed
        lines = done.stdout.splitlines()
        self.assertEqual(lines[1:3], [
            "HARNESS DEFECT: 1 A/A control(s) differ from 1 (the reference run twice; not a "
            "result):", "  tlb pages=8 remote=busy at 2 CPUs: aa 0.999x"])
        with open(os.path.join(out, "table.txt")) as f:
            self.assertIn("Run status aa_failed", f.read())
        self.assertEqual(len(self.results_json(out)["warnings"]), 1)


class TestTimeLog(ReportCase):
    def test_real_tcg_log_marks_its_unstable_rows_first(self):
        # ./run.sh --boot kernel --accel tcg --smp 2 --bench ipi,tlb -- iters=5 pages=8,64
        # at c71eaad: 5 runs a case, so no interval and no star anywhere.
        out = os.path.join(self.tmp, "r")
        done = report(data("bench_tcg_time.log"), out, "--no-plots")
        self.assertEqual(done.returncode, 0, done.stderr)
        lines = done.stdout.splitlines()
        self.assertTrue(lines[0].startswith("Headline (time mode: median over rounds"))
        # Naive's two modes alone no longer unsettle batched, whose rounds' ratios hold one
        # level (5 unstable rows before): the ones left have ratios in two modes.
        self.assertEqual(lines[1], "UNSTABLE: 3 comparison(s), no ratio (0 in headline rows):")
        self.assertIn("two modes in naive: 9708 | 1.645e+04", lines[2])
        self.assertIn("two modes in the rounds' naive/aa ratios", lines[2])
        self.assertNotIn("*", "".join(line for line in lines if line.startswith("  ")))
        doc = self.results_json(out)
        self.assertEqual(len(doc["unstable"]), 3)
        self.assertEqual(doc["warnings"], [])


def full_run_log(path, seed=1):
    """A time-mode log the size of a default run and more: 7 benchmarks x 10 parameter
    sets x 3 CPU counts, 3 or 6 designs each (720 records), 10 paired runs a record."""
    rng = random.Random(seed)
    lines = ['MMLAB {"version":"full","cmdline":"mode=bench","cpu_model":"x","cpus":4,'
             '"tsc_hz":1000000000,"hypervisor":null,"firmware":"bios","mem_bytes":1,'
             '"timing":"time"}']
    for bench in ("tlb", "ipi", "pin", "swapfree", "reclaim", "pagemap", "faultlock"):
        designs = ["naive", "batched", "lazy", "gen", "early_ack", "aa"][:6 if bench == "tlb"
                                                                       else 3]
        for pages in range(8, 88, 8):
            for cpus in (1, 2, 4):
                base = rng.uniform(1e3, 1e5)
                for i, v in enumerate(designs):
                    f = 1.0 if v in ("naive", "aa") else rng.uniform(0.2, 1.1)
                    s = [base * f * rng.lognormvariate(0, 0.05) for _ in range(10)]
                    srt = sorted(s)
                    lines.append("BENCH " + json.dumps({
                        "bench": bench, "title": f"{bench} cost", "variant": v, "cpus": cpus,
                        "params": {"pages": pages}, "metric": "cycles_per_page",
                        "unit": "cycles", "better": "lower", "runs": 10,
                        "median": (srt[4] + srt[5]) / 2, "min": srt[0], "max": srt[-1],
                        "mean": sum(s) / 10, "stddev": 1.0, "samples": s,
                        "seq": [r * len(designs) + i for r in range(10)],
                        "headline": pages == 8, "counters": {"ipi_sent_per_op": 1.0}}))
    lines.append('MMLAB-DONE {"passed":720,"failed":0,"skipped":0,"status":"pass"}')
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


class TestReportCost(ReportCase):
    def test_full_run_report_takes_seconds(self):
        # CPU seconds, not wall time: on a shared host the wall clock measures the host.
        log = os.path.join(self.tmp, "full.log")
        full_run_log(log)
        options = [] if shutil.which("gnuplot") else ["--no-plots"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = report(log, os.path.join(self.tmp, "r"), *options)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.assertEqual(done.returncode, 0, done.stderr)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        self.assertLess(cpu, REPORT_CPU_LIMIT_S)
        self.assertEqual(len(self.results_json(os.path.join(self.tmp, "r"))["results"]), 720)


if __name__ == "__main__":
    unittest.main()
