"""Tests for tools/mmlab/log.py and mmlab.records: reading serial logs."""
import contextlib
import io
import json
import unittest

from toolpath import data
from mmlab.log import clean_line, main, parse_log, parse_text

HEADER = ('MMLAB {"version": "v0.1", "cmdline": "mode=bench", "cpu_model": "QEMU", "cpus": 2,'
          ' "tsc_hz": null, "hypervisor": null, "firmware": "bios", "mem_bytes": 1048576}')
TRAILER = 'MMLAB-DONE {"passed": 0, "failed": 0, "skipped": 0, "status": "pass"}'


def bench_line(**changes):
    """A well-formed BENCH line, with fields changed or (value None) removed."""
    rec = {"bench": "tlb", "variant": "naive", "cpus": 1, "params": {"pages": 8},
           "metric": "cycles_per_op", "unit": "cycles", "better": "lower", "runs": 3,
           "median": 10.0, "min": 9.0, "max": 12.0, "mean": 10.5, "stddev": 1.0,
           "counters": {"ipi_sent_per_op": 0}}
    rec.update(changes)
    return "BENCH " + json.dumps({k: v for k, v in rec.items() if v is not None})


def parse_lines(*lines):
    """Parse a log made of HEADER, lines and TRAILER."""
    return parse_text("\n".join([HEADER, *lines, TRAILER]) + "\n")


def kinds(log):
    return [p.kind for p in log.problems]


class TestGoodLogs(unittest.TestCase):
    def test_bench_log_header_trailer_results(self):
        log = parse_log(data("bench_good.log"))
        self.assertEqual(log.problems, [])
        self.assertEqual(log.header["cpus"], 4)
        self.assertEqual(log.header["max_cpus"], 64)  # extra keys are kept
        self.assertEqual(log.header_line, 5)
        self.assertEqual(log.trailer["status"], "pass")
        self.assertEqual(len(log.benches), 20)
        self.assertTrue(log.is_kernel_log)

    def test_bench_record_fields(self):
        first = parse_log(data("bench_good.log")).benches[0]
        self.assertEqual((first.bench, first.variant, first.cpus), ("tlb", "naive", 1))
        self.assertEqual(first.params, {"pages": 512})
        self.assertEqual(first.median, 1210.0)
        self.assertEqual(first.counters["ipi_sent_per_op"], 0)
        self.assertIn("median_ns", first.extra)
        self.assertEqual(first.line, 7)
        self.assertFalse(first.improved)

    def test_lava_lines(self):
        lava = parse_log(data("bench_good.log")).lava
        self.assertEqual(lava[0]["test_case_id"], "tlb-batched-4")
        self.assertEqual((lava[0]["result"], lava[0]["measurement"]), ("pass", 905.0))

    def test_selftest_log(self):
        log = parse_log(data("selftest_good.log"))
        self.assertEqual(log.problems, [])
        self.assertEqual(len(log.ktap), 1)
        self.assertEqual([c.name for c in log.ktap[0].cases], ["pt", "tlb", "swap"])

    def test_host_ktap_is_not_a_kernel_log(self):
        log = parse_log(data("host_ktap.txt"))
        self.assertEqual(kinds(log), ["no-header"])
        self.assertFalse(log.is_kernel_log)
        self.assertFalse(log.has_mmlab_output)

    def test_empty_log_has_no_header(self):
        self.assertEqual(kinds(parse_text("")), ["no-header"])


class TestEscapesAndNoise(unittest.TestCase):
    def test_clean_line_strips_escapes_and_carriage_returns(self):
        self.assertEqual(clean_line("\x1b[2J\x1b[01;01H\x1b[?25lok 1 a\r"), "ok 1 a")
        self.assertEqual(clean_line("\x1b[=3hBENCH {}\x00"), "BENCH {}")

    def test_record_behind_escape_sequences_is_read(self):
        log = parse_lines("\x1b[0m\x1b[37m\x1b[40m" + bench_line() + "\r")
        self.assertEqual(log.problems, [])
        self.assertEqual(len(log.benches), 1)

    def test_grub_menu_entry_is_not_a_header(self):
        log = parse_text("MMLAB bench run (uefi)\n" + HEADER + "\n" + TRAILER + "\n")
        self.assertEqual(log.problems, [])
        self.assertEqual(log.header_line, 2)


class TestBrokenRecords(unittest.TestCase):
    def assert_rejected(self, line, kind):
        log = parse_lines(bench_line(cpus=2), line)
        self.assertEqual(kinds(log), [kind])
        self.assertEqual(log.problems[0].line, 3)
        self.assertEqual(log.problems[0].part, "bench")
        self.assertEqual([b.cpus for b in log.benches], [2])

    def test_malformed_json(self):
        self.assert_rejected('BENCH {"bench": "tlb", "variant":', "malformed-json")

    def test_not_an_object(self):
        self.assert_rejected("BENCH [1, 2]", "malformed-json")

    def test_missing_fields(self):
        self.assert_rejected(bench_line(median=None, counters=None), "missing-field")

    def test_non_numeric_statistic(self):
        self.assert_rejected(bench_line(stddev="3%"), "non-numeric")

    def test_nan_and_infinity(self):
        self.assert_rejected(bench_line().replace('"median": 10.0', '"median": NaN'),
                             "non-finite")
        self.assert_rejected(bench_line().replace('"max": 12.0', '"max": -Infinity'),
                             "non-finite")
        self.assert_rejected(bench_line().replace('"max": 12.0', '"max": 1e999'), "non-finite")

    def test_boolean_is_not_a_number(self):
        self.assert_rejected(bench_line(cpus=True), "bad-type")

    def test_counter_must_be_a_number(self):
        self.assert_rejected(bench_line(counters={"ipi_sent_per_op": None}), "non-numeric")

    def test_optional_ns_statistic_must_be_a_number(self):
        self.assert_rejected(bench_line(median_ns="?"), "non-numeric")

    def test_median_outside_min_max(self):
        self.assert_rejected(bench_line(median=13.0), "inconsistent")

    def test_bad_direction(self):
        self.assert_rejected(bench_line(better="faster"), "bad-value")

    def test_second_result_for_the_same_point(self):
        self.assert_rejected(bench_line(cpus=2, median=11.0), "duplicate-result")

    def test_fixture_with_every_kind_of_breakage(self):
        log = parse_log(data("bench_malformed.log"))
        self.assertEqual([b.line for b in log.benches], [2, 11])
        self.assertEqual(len([p for p in log.problems if p.part == "bench"]), 11)
        self.assertIn("malformed-lava", kinds(log))
        self.assertIn("duplicate-header", kinds(log))


class TestHeaderAndTrailer(unittest.TestCase):
    def test_header_missing_keys(self):
        log = parse_text('MMLAB {"version": "v0.1"}\n' + TRAILER + "\n")
        self.assertEqual(kinds(log), ["missing-field"])
        self.assertIn("cpu_model", log.problems[0].message)

    def test_header_bad_firmware(self):
        log = parse_text(HEADER.replace('"bios"', '"coreboot"') + "\n" + TRAILER + "\n")
        self.assertEqual(kinds(log), ["bad-value"])

    def test_duplicate_header(self):
        log = parse_lines(HEADER)
        self.assertEqual(kinds(log), ["duplicate-header"])
        self.assertEqual(log.problems[0].line, 2)

    def test_trailer_counts_must_be_integers(self):
        log = parse_text(HEADER + '\nMMLAB-DONE {"passed": "1", "failed": 0, "skipped": 0}\n')
        self.assertEqual(kinds(log), ["bad-type"])

    def test_bench_without_header(self):
        log = parse_text(bench_line() + "\n" + TRAILER + "\n")
        self.assertEqual(kinds(log), ["no-header"])


class TestTruncatedAndGarbled(unittest.TestCase):
    def test_no_trailer_means_truncated(self):
        log = parse_log(data("bench_truncated.log"))
        self.assertEqual(kinds(log), ["truncated", "truncated"])
        self.assertEqual(log.problems[0].line, 4)
        self.assertIn("cut off", log.problems[0].message)
        self.assertIsNone(log.problems[1].line)
        self.assertEqual(len(log.benches), 1)

    def test_selftest_cut_in_a_suite(self):
        log = parse_log(data("selftest_truncated.log"))
        self.assertIn("truncated", kinds(log))
        self.assertIn("ktap-missing-result", kinds(log))

    def test_interleaved_lines(self):
        log = parse_log(data("bench_garbled.log"))
        self.assertEqual([p.line for p in log.problems], [3, 4, 5, 6])
        self.assertEqual(kinds(log).count("garbled"), 3)
        self.assertEqual([b.line for b in log.benches], [2, 7])
        self.assertEqual(log.bench_lines, 6)

    def test_ktap_line_with_a_record_glued_on(self):
        log = parse_text(HEADER + "\nKTAP version 1\n1..1\nok 1 a" + bench_line()[:20]
                         + "\n" + TRAILER + "\n")
        self.assertIn("garbled", kinds(log))
        self.assertIn("ktap-plan", kinds(log))

    def test_unreadable_file(self):
        log = parse_log(data("no_such_file.log"))
        self.assertEqual(kinds(log), ["unreadable"])


class TestCommandLine(unittest.TestCase):
    def run_main(self, *argv):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = main(list(argv))
        return status, out.getvalue()

    def test_summary_and_status(self):
        status, out = self.run_main(data("bench_good.log"))
        self.assertEqual(status, 0)
        self.assertIn("20 BENCH of 20 lines", out)
        status, out = self.run_main(data("bench_truncated.log"))
        self.assertEqual(status, 1)
        self.assertIn("line 4: BENCH line is cut off", out)

    def test_json_output(self):
        status, out = self.run_main("--json", data("selftest_fail.log"))
        doc = json.loads(out)
        self.assertEqual(status, 0)
        self.assertEqual(doc["trailer"]["status"], "fail")
        self.assertEqual(doc["ktap"][0]["cases"][0]["status"], "fail")


if __name__ == "__main__":
    unittest.main()
