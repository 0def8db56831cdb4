"""Tests for tools/mmlab/sweep.py: parameter sweeps and their plots."""
import json
import unittest

import toolpath  # noqa: F401  (puts tools/ on the path)
from mmlab.groups import plot_stems
from mmlab.log import parse_text
from mmlab.plot import gnuplot_script
from mmlab.sweep import SWEEP_MIN_POINTS, sweep_results

PAGES = (1, 8, 32, 33, 34, 64, 512)


def bench_line(bench, variant, cpus, params, median, **extra):
    obj = {"bench": bench, "variant": variant, "cpus": cpus, "params": params,
           "metric": "cycles_per_page", "unit": "cycles", "better": "lower", "runs": 3,
           "median": median, "min": median * 0.9, "max": median * 1.1, "mean": median,
           "stddev": 1.0, "counters": {"ipi_sent_per_op": 1.0}, **extra}
    return "BENCH " + json.dumps(obj)


def tlb_log():
    """tlb at 1 and 2 CPUs, busy (with the readers' extras at 2 CPUs) and idle, every page count."""
    lines = ['MMLAB {"version": "v", "cmdline": "", "cpu_model": "QEMU", "cpus": 2, '
             '"tsc_hz": 1000, "hypervisor": null, "firmware": "bios", "mem_bytes": 1}']
    for remote in ("busy", "idle"):
        for pages in PAGES:
            for cpus in (1, 2):
                for variant, base in (("naive", 6000.0), ("batched", 2000.0)):
                    extra = {}
                    if remote == "busy" and cpus == 2:
                        extra = {"remote_lost_cycles_per_page": 500.0 + (pages > 33) * 300,
                                 "total_cycles_per_page": base + 500.0}
                    lines.append(bench_line("tlb", variant, cpus,
                                            {"remote": remote, "pages": pages},
                                            base + 100000.0 / pages, **extra))
    lines.append(bench_line("ipi", "naive", 2, {"target": "all"}, 10.0))
    lines.append('MMLAB-DONE {"passed": 1, "failed": 0, "skipped": 0, "status": "pass"}')
    return parse_text("\n".join(lines) + "\n")


class TestSweeps(unittest.TestCase):
    def setUp(self):
        log = tlb_log()
        self.sweeps = sweep_results(log.benches)

    def by_stem(self):
        return dict(zip(plot_stems(self.sweeps), self.sweeps))

    def test_one_sweep_per_remote_mode_cpu_count_and_cost(self):
        self.assertEqual(sorted(self.by_stem()), [
            "tlb-remote-busy-cpus-1-by-pages",
            "tlb-remote-busy-cpus-2-by-pages-cycles_per_page",
            "tlb-remote-busy-cpus-2-by-pages-remote_lost_cycles_per_page",
            "tlb-remote-busy-cpus-2-by-pages-total_cycles_per_page",
            "tlb-remote-idle-cpus-1-by-pages",
            "tlb-remote-idle-cpus-2-by-pages"])

    def test_pages_on_the_x_axis_both_sides_of_the_ceiling(self):
        sweep = self.by_stem()["tlb-remote-idle-cpus-2-by-pages"]
        self.assertEqual(sweep.cpu_counts(), list(PAGES))
        self.assertEqual(list(sweep.variants), ["naive", "batched"])
        self.assertEqual(sweep.params, {"remote": "idle"})
        script = gnuplot_script(sweep, "x")
        self.assertIn('set xlabel "pages', script)
        self.assertIn("set xtics (1, 8, 32, 33, 34, 64, 512)", script)
        self.assertIn("set logscale x 2", script)
        self.assertIn("$variant0 << EOD\n1 106000.0 ", script)

    def test_extra_costs_are_points_without_bars(self):
        sweep = self.by_stem()["tlb-remote-busy-cpus-2-by-pages-remote_lost_cycles_per_page"]
        r33, r34 = sweep.variants["batched"][33], sweep.variants["batched"][34]
        self.assertEqual((r33.median, r33.min, r33.max), (500.0, 500.0, 500.0))
        self.assertEqual(r34.median, 800.0)  # the knee: a full flush above 33 pages

    def test_log_y_only_for_wide_positive_ranges(self):
        stems = self.by_stem()
        self.assertTrue(stems["tlb-remote-idle-cpus-2-by-pages"].y_log)
        self.assertIn("set logscale y 10", gnuplot_script(stems["tlb-remote-idle-cpus-2-by-pages"], "x"))
        lost = stems["tlb-remote-busy-cpus-2-by-pages-remote_lost_cycles_per_page"]
        self.assertFalse(lost.y_log)
        self.assertIn("set yrange [0:*]", gnuplot_script(lost, "x"))

    def test_too_few_points_make_no_sweep(self):
        lines = [bench_line("pin", "naive", 1, {"region": "own", "per_call": n}, 5.0)
                 for n in range(1, SWEEP_MIN_POINTS)]
        self.assertEqual(sweep_results(parse_text("\n".join(lines) + "\n").benches), [])

    def test_word_parameters_are_not_swept(self):
        self.assertFalse(any(s.x_param == "remote" for s in self.sweeps))
        self.assertFalse(any(s.bench == "ipi" for s in self.sweeps))


if __name__ == "__main__":
    unittest.main()
