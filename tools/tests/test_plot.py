"""Tests for tools/mmlab/plot.py: the gnuplot script and the files it draws."""
import os
import shutil
import tempfile
import unittest

from toolpath import data
from mmlab.groups import group_results
from mmlab.log import parse_log
from mmlab.plot import GnuplotMissing, gnuplot_script, plot_groups, quote

HAVE_GNUPLOT = shutil.which("gnuplot") is not None
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def good_groups():
    return group_results(parse_log(data("bench_good.log")).benches)


class TestScript(unittest.TestCase):
    def test_script_has_both_variants_with_error_bars(self):
        script = gnuplot_script(good_groups()[0], "/tmp/x/tlb-pages-512", "QEMU")
        self.assertIn("$variant0 << EOD\n1 1210.0 1173.7 1270.5\n", script)
        self.assertIn('using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 1 title "naive"', script)
        self.assertIn('title "batched"', script)
        self.assertIn('set output "/tmp/x/tlb-pages-512.png"', script)
        self.assertIn('set output "/tmp/x/tlb-pages-512.svg"', script)
        self.assertIn("pngcairo", script)

    def test_cpu_axis(self):
        script = gnuplot_script(good_groups()[0], "x")
        self.assertIn("set xtics (1, 2, 4)", script)
        self.assertIn("set logscale x 2", script)
        narrow = gnuplot_script(good_groups()[3], "x")  # ipi: cpus 2 and 4
        self.assertNotIn("logscale", narrow)

    def test_quote(self):
        self.assertEqual(quote('a "b" \\c'), '"a \\"b\\" \\\\c"')
        self.assertEqual(quote("line\nnext"), '"line\\nnext"')


class TestDrawing(unittest.TestCase):
    def test_missing_gnuplot_is_reported(self):
        with tempfile.TemporaryDirectory() as tmp, self.assertRaises(GnuplotMissing):
            plot_groups(good_groups(), tmp, gnuplot="no-such-gnuplot-mmlab")

    @unittest.skipUnless(HAVE_GNUPLOT, "gnuplot is not installed")
    def test_png_and_svg_for_each_group(self):
        with tempfile.TemporaryDirectory() as tmp:
            written = plot_groups(good_groups(), os.path.join(tmp, "plots"))
            names = sorted(os.path.basename(p) for p in written)
            self.assertEqual(names, [
                "ipi-target-all.png", "ipi-target-all.svg", "pin-pages-64.png",
                "pin-pages-64.svg", "swapfree-folio_pages-16.png",
                "swapfree-folio_pages-16.svg", "tlb-pages-512.png", "tlb-pages-512.svg"])
            with open(os.path.join(tmp, "plots", "tlb-pages-512.png"), "rb") as f:
                self.assertEqual(f.read(8), PNG_MAGIC)
            with open(os.path.join(tmp, "plots", "tlb-pages-512.svg")) as f:
                svg = f.read()
            self.assertIn("<svg", svg)
            self.assertIn("batched", svg)


if __name__ == "__main__":
    unittest.main()


class TestPlottedGroups(unittest.TestCase):
    def test_one_cpu_count_gets_no_line_plot(self):
        # bench_page.log: tlb ran at 2 CPUs only (a dot chart on the page each), pin at 1
        # and 2, and tlb's pages sweep has 3 points.
        from mmlab.dots import render_dots, single_count_groups
        from mmlab.plot import plotted_groups
        records = parse_log(data("bench_page.log")).benches
        stems = [stem for _, stem in plotted_groups(records)]
        self.assertEqual(stems, ["pin-per_call-16-region-own", "tlb-remote-idle-cpus-2-by-pages"])
        singles = single_count_groups(group_results(records))
        self.assertEqual([g.title for g in singles], ["tlb pages=1 remote=idle",
                                                      "tlb pages=8 remote=idle",
                                                      "tlb pages=64 remote=idle"])
        svg = render_dots(singles[0])
        self.assertEqual(svg.count("<circle"), 3)  # naive, batched, serial
        self.assertIn(">34385</text>", svg)  # naive's median
