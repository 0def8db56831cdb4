"""Tests for tools/mmlab/html.py: the results page (index.html) of a run.

bench_page.log is a real run's lines (tlb with 8 runs a side, so some ratios
are significant and some not; pin with 2, so no interval) with a failed
case, a skipped benchmark and a failing trailer added.
"""
import base64
import contextlib
import io
import os
import shutil
import tempfile
import unittest
import urllib.parse
from html.parser import HTMLParser

from toolpath import data
import mmlab.html as mmlab_html
import mmlab.results as mmlab_results
from mmlab.compare import _change_class
from mmlab.html import _ratio_class, accelerator, main, render_run_page, write_run_page
from mmlab.log import parse_log
from mmlab.plot import plotted_groups

# A valid 1x1 PNG: what the tests put where gnuplot's plots would be.
PNG_1X1 = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJ"
    "RU5ErkJggg==")


class PageParser(HTMLParser):
    """Collects the tags (with attributes), the table rows and the text of a page."""

    def __init__(self):
        super().__init__()
        self.tags, self.rows, self.text = [], [], []
        self._row, self._cell = None, None

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = [dict(attrs).get("class", ""), ""]

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self._row.append(tuple(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self.rows.append(self._row)
            self._row = None

    def handle_data(self, text):
        self.text.append(text)
        if self._cell is not None:
            self._cell[1] += text

    def attrs_of(self, tag):
        """The attribute dicts of every tag named tag."""
        return [a for t, a in self.tags if t == tag]


def parse_page(text):
    parser = PageParser()
    parser.feed(text)
    return parser


class RunDir:
    """A results folder holding the fixture as serial.log, with optional plots and trace."""

    def __init__(self, plots=True, trace=False, missing=()):
        self.dir = tempfile.mkdtemp(prefix="mmlab-html-")
        shutil.copy(data("bench_page.log"), os.path.join(self.dir, "serial.log"))
        self.log = parse_log(os.path.join(self.dir, "serial.log"))
        self.stems = [stem for _, stem in plotted_groups(self.log.benches)]
        if plots:
            os.makedirs(os.path.join(self.dir, "plots"))
            for stem in self.stems:
                if stem not in missing:
                    with open(os.path.join(self.dir, "plots", stem + ".png"), "wb") as f:
                        f.write(PNG_1X1)
        if trace:
            with open(os.path.join(self.dir, "trace.json"), "w") as f:
                f.write('{"traceEvents": []}\n')

    def page(self):
        return render_run_page(self.log, self.dir)

    def cleanup(self):
        shutil.rmtree(self.dir)


class TestRunPage(unittest.TestCase):
    def setUp(self):
        self.run = RunDir()
        self.addCleanup(self.run.cleanup)
        self.text = self.run.page()
        self.page = parse_page(self.text)

    def test_self_contained(self):
        # No network: no external stylesheet or script, every image inline.
        self.assertEqual(self.page.attrs_of("link"), [])
        self.assertTrue(all("src" not in a for a in self.page.attrs_of("script")))
        for img in self.page.attrs_of("img"):
            self.assertTrue(img["src"].startswith(("data:image/png;base64,",
                                                   "data:image/svg+xml;charset=utf-8,")),
                            img["src"][:40])
        self.assertNotIn("http://", self.text)
        self.assertNotIn("https://", self.text)

    def test_a_section_per_benchmark(self):
        ids = [a["id"] for a in self.page.attrs_of("section")]
        # The headline, the forest plot and the run's details first; then a section per
        # benchmark: ipi has no result at all, only its skip: it gets a section all the same.
        self.assertEqual(ids, ["headline", "forest", "details", "bench-tlb", "bench-pin",
                               "bench-ipi"])

    def test_headline_first_with_sentences_and_table(self):
        start = self.text.index('<section id="headline">')
        self.assertLess(start, self.text.index('<section id="forest">'))
        self.assertLess(self.text.index('<section id="forest">'), self.text.index('id="details"'))
        headline = self.text[start:self.text.index("</section>", start)]
        # The declared row (pages=8), not the largest effect (pages=64, 12x).
        self.assertIn("<li>unmap cost per page (tlb pages=8 remote=idle, 2 CPUs), against naive: "
                      "batched *5.09x 4.88-5.16, serial *5.01x 4.66-5.17.</li>", headline)
        self.assertIn("<li>get cost per pin round (pin per_call=16 region=own, 2 CPUs), against "
                      "naive: fixed ?1.02x.</li>", headline)
        self.assertNotIn("12.2", headline)
        # The verdict is mmlab.rounds' (the table's): the paired estimand and its interval.
        self.assertIn('<td>batched</td><td>6416</td><td class="win">*5.09x 4.88-5.16</td>',
                      headline)
        self.assertIn("Run status: fail: passed 12, failed 1, skipped 1", headline)
        # The skips and failures are in the details, below.
        self.assertNotIn("outside its range", headline)

    def test_forest_plot_has_a_row_per_comparison(self):
        start = self.text.index('<section id="forest">')
        forest = self.text[start:self.text.index("</section>", start)]
        # tlb at 2 CPUs: pages=1 (controls), 8, 64 x batched, serial; pin at 1 and 2 CPUs.
        self.assertEqual(forest.count('<g class="forest-row" data-kind="near1">'), 2)
        self.assertEqual(forest.count('<g class="forest-row" data-kind="design">'), 6)
        self.assertEqual([h for h in ("tlb, 2 CPUs", "pin, 1 CPU", "pin, 2 CPUs") if
                          f'font-weight="bold">{h}</text>' in forest], ["tlb, 2 CPUs",
                                                                         "pin, 1 CPU",
                                                                         "pin, 2 CPUs"])

    def test_header_facts(self):
        text = "".join(self.page.text)
        for want in ("fd7cdce-dirty", "QEMU TCG CPU version 2.5+", "TCG (QEMU's emulator)",
                     "bios", "mode=bench bench=tlb iters=8 cpus=2 remote=idle"):
            self.assertIn(want, text)

    def test_trace_state_in_the_summary(self):
        run = RunDir(plots=False)
        self.addCleanup(run.cleanup)
        run.log.header["trace"] = {"enabled": True, "record_cycles": 161}
        facts = parse_page(run.page()).rows
        self.assertIn([("", "trace"), ("", '{"enabled": true, "record_cycles": 161}')], facts)

    def test_every_header_field_shown(self):
        # Fields the summary does not name (a new one, say) are on the page all the same.
        text = "".join(self.page.text)
        for key in ("tsc_skew_cycles", "ap_bringup_us", "x2apic_cpu", "console"):
            self.assertIn(key, text)
        self.assertIn('"source": "default"', text)

    def test_every_plot_inline_once(self):
        imgs = [a for a in self.page.attrs_of("img") if a.get("class") == "plot"]
        # Each in its benchmark's section: tlb's (the sweep last), then pin's.
        by_bench = [stem for bench in ("tlb", "pin") for g, stem in
                    plotted_groups(self.run.log.benches) if g.bench == bench]
        self.assertEqual([a["alt"] for a in imgs], by_bench)
        # tlb's three groups ran at one CPU count: a dot chart each, no line plot.
        self.assertEqual(len(self.run.stems), 2)
        tlb = self.text[self.text.index('id="bench-tlb"'):self.text.index('id="bench-pin"')]
        self.assertEqual(tlb.count('<svg class="dots"'), 3)
        payload = imgs[0]["src"].split(",", 1)[1]
        self.assertEqual(base64.b64decode(payload), PNG_1X1)

    def test_gnuplot_svg_preferred_to_png(self):
        run = RunDir()
        self.addCleanup(run.cleanup)
        svg = '<svg xmlns="x" width="8" height="8"><text>a #1 50% &amp; b</text></svg>'
        with open(os.path.join(run.dir, "plots", run.stems[0] + ".svg"), "w") as f:
            f.write(svg)
        imgs = {a["alt"]: a["src"] for a in parse_page(run.page()).attrs_of("img")
                if a.get("class") == "plot"}
        prefix = "data:image/svg+xml;charset=utf-8,"
        src = imgs[run.stems[0]]
        self.assertTrue(src.startswith(prefix), src[:40])
        self.assertEqual(urllib.parse.unquote(src[len(prefix):]), svg)
        self.assertTrue(imgs[run.stems[1]].startswith("data:image/png;base64,"))

    def table_rows(self, first_header="cpus"):
        """The page's tables as lists of rows of cell texts, header row first."""
        tables, current = [], None
        for row in self.page.rows:
            texts = [text for _, text in row]
            if len(texts) > 2 and texts[0] == first_header:
                current = [texts]
                tables.append(current)
            elif current is not None:
                current.append(texts)
        return tables

    def test_designs_share_one_table_per_group(self):
        tables = self.table_rows()
        self.assertEqual(len(tables), 4)  # tlb pages=1, 8, 64; pin
        head, *rows = tables[1]
        self.assertEqual(head[:7], ["cpus", "design", "median (cycles)", "±CI", "ratio",
                                    "95% CI", "outliers"])
        self.assertEqual([r[1] for r in rows], ["naive", "batched", "serial"])
        self.assertEqual([r[2] for r in rows], ["32492", "6416", "6480"])
        self.assertEqual([r[4] for r in rows], ["", "5.09x", "5.01x"])
        # table.txt's 'naive / design' cells are split between the rows.
        at = head.index("ipi_sent")
        self.assertEqual([r[at] for r in rows], ["1", "0.125", "0.125"])

    def patch_sections(self, change):
        """Make the page's mmlab.table.table_sections pass each Section through change."""
        real = mmlab_html.table_sections
        mmlab_html.table_sections = lambda records: [change(s) for s in real(records)]
        self.addCleanup(setattr, mmlab_html, "table_sections", real)

    def test_a_new_column_flows_through(self):
        # A column mmlab.table adds (a Linux peer, say) reaches the page without a change here.
        self.patch_sections(lambda s: s._replace(
            headers=s.headers + ["linux (cycles)"], rows=[r + [f"peer{r[0]}"] for r in s.rows],
            align=s.align + "r"))
        self.page = parse_page(self.run.page())
        head, *rows = self.table_rows()[1]
        self.assertEqual(head[-1], "linux (cycles)")
        self.assertEqual([r[-1] for r in rows], ["", "peer2", "peer2"])

    def test_a_column_of_one_design_only(self):
        # A peer's columns come with one design's section only (and counters differ by
        # design): the table keeps them, blank on the other rows.
        def peer_on_batched(s):
            if s.improved != "batched":
                return s
            at = s.headers.index("outliers") + 1
            return s._replace(headers=s.headers[:at] + ["linux batched (cycles)", "±CI"]
                              + s.headers[at:],
                              rows=[r[:at] + ["7000", "±1.0%"] + r[at:] for r in s.rows],
                              align=s.align[:at] + "rr" + s.align[at:])
        self.patch_sections(peer_on_batched)
        self.page = parse_page(self.run.page())
        head, *rows = self.table_rows()[1]
        self.assertEqual(head[:10], ["cpus", "design", "median (cycles)", "±CI", "ratio",
                                     "95% CI", "outliers", "linux batched (cycles)", "±CI",
                                     "ipi_sent"])
        self.assertEqual([r[7:10] for r in rows],
                         [["", "", "1"], ["7000", "±1.0%", "0.125"], ["", "", "0.125"]])

    def test_sections_that_do_not_line_up_stay_apart(self):
        # naive's own columns differ between two sections: they are not one table.
        self.patch_sections(lambda s: s._replace(rows=[r[:1] + ["0"] + r[2:] for r in s.rows])
                            if s.improved == "serial" else s)
        text = self.run.page()
        self.assertIn("<caption>naive vs batched</caption>", text)
        self.assertIn("<caption>naive vs serial</caption>", text)

    def ratio_cells(self):
        return [(cls.split(), text) for row in self.page.rows for cls, text in row
                if text.endswith("x") and text[:1] in "~?0123456789"
                and "-" not in text]

    def test_significance_marked(self):
        cells = self.ratio_cells()[1:]  # the first is the headline's pin row
        # tlb pages=1 (~: CI includes 1), pages=8 and 64 (significant wins), pin (?: 2 runs).
        self.assertEqual([t for _, t in cells][:6],
                         ["~1.01x", "~1.02x", "5.09x", "5.01x", "12.21x", "11.86x"])
        self.assertEqual([c[-1] for c, _ in cells],
                         ["ns", "ns", "win", "win", "win", "win", "noci", "noci"])

    def test_failures_skips_and_status(self):
        text = "".join(self.page.text)
        self.assertIn("Run status: fail: passed 12, failed 1, skipped 1", text)
        self.assertIn("pin fixed cpus=2 region=own per_call=512: verification: 1 page left "
                      "pinned (timed run 3)", text)
        self.assertIn("bench ipi cpus=1: outside its range 2..64 CPUs: skipped", text)

    def test_plot_check_placeholder(self):
        spans = [a for a in self.page.attrs_of("span") if a.get("id") == "plot-check"]
        self.assertEqual(len(spans), 1)
        self.assertIn("naturalWidth > 0", self.text)

    def test_no_trace_link_without_trace(self):
        self.assertNotIn("trace.json", self.text)


class TestRunPageEdges(unittest.TestCase):
    def test_trace_linked_when_present(self):
        run = RunDir(trace=True)
        self.addCleanup(run.cleanup)
        hrefs = [a.get("href") for a in parse_page(run.page()).attrs_of("a")]
        self.assertIn("trace.json", hrefs)
        self.assertNotIn('alt="trace-timeline"', run.page())
        shutil.copy(os.path.join(run.dir, "plots", run.stems[0] + ".png"),
                    os.path.join(run.dir, "trace-timeline.png"))
        self.assertIn('alt="trace-timeline"', run.page())

    def test_missing_plot_is_shown_not_dropped(self):
        run = RunDir(missing=("pin-per_call-16-region-own",))
        self.addCleanup(run.cleanup)
        text = run.page()
        imgs = [a for a in parse_page(text).attrs_of("img") if a.get("class") == "plot"]
        self.assertEqual(len(imgs), len(run.stems) - 1)
        self.assertIn("plot missing: pin-per_call-16-region-own.png", text)

    def test_text_is_escaped(self):
        run = RunDir(plots=False)
        self.addCleanup(run.cleanup)
        run.log.header["cmdline"] = "mode=bench <script>alert(1)</script>"
        text = run.page()
        self.assertNotIn("<script>alert", text)
        self.assertIn("&lt;script&gt;alert(1)", text)

    def test_no_results_still_a_page(self):
        run = RunDir(plots=False)
        self.addCleanup(run.cleanup)
        run.log.benches, run.log.failures = [], []
        with open(os.path.join(run.dir, "serial.log"), "w") as f:
            f.write("")
        text = run.page()
        self.assertIn("No benchmark results.", text)
        self.assertIn("This run has no design to compare with the reference.", text)
        self.assertEqual([a["id"] for a in parse_page(text).attrs_of("section")],
                         ["headline", "forest", "details"])

    def test_write_and_command_line(self):
        run = RunDir()
        self.addCleanup(run.cleanup)
        path = write_run_page(run.log, run.dir)
        self.assertEqual(path, os.path.join(run.dir, "index.html"))
        os.remove(path)
        self.assertEqual(main([run.dir]), 0)
        self.assertTrue(os.path.getsize(path) > 1000)
        self.assertEqual(main([]), 2)
        self.assertEqual(main([os.path.join(run.dir, "nowhere")]), 1)


class TestReportWritesPage(unittest.TestCase):
    def test_report_writes_index_html(self):
        # mmlab.results report (what run.sh calls after every benchmark run) writes the page.
        outdir = tempfile.mkdtemp(prefix="mmlab-html-report-")
        self.addCleanup(shutil.rmtree, outdir)
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            status = mmlab_results.main(["report", "--no-plots", data("bench_page.log"), outdir])
        self.assertEqual(status, 1)  # the fixture's trailer fails
        with open(os.path.join(outdir, "index.html")) as f:
            text = f.read()
        self.assertIn('id="bench-tlb"', text)
        self.assertIn("bench ipi cpus=1: outside its range", text)


class TestComparePage(unittest.TestCase):
    def setUp(self):
        self.a, self.b = RunDir(), RunDir(missing=("pin-per_call-16-region-own",))
        self.addCleanup(self.a.cleanup)
        self.addCleanup(self.b.cleanup)
        self.out = tempfile.mkdtemp(prefix="mmlab-html-compare-")
        self.addCleanup(shutil.rmtree, self.out)
        with contextlib.redirect_stdout(io.StringIO()):
            status = mmlab_results.main(["compare", "--outdir", self.out,
                                         os.path.join(self.a.dir, "serial.log"),
                                         os.path.join(self.b.dir, "serial.log")])
        self.assertEqual(status, 0)
        with open(os.path.join(self.out, "index.html")) as f:
            self.text = f.read()
        self.page = parse_page(self.text)

    def test_written_beside_the_text(self):
        with open(os.path.join(self.out, "compare.txt")) as f:
            self.assertIn("%change", f.read())

    def test_sections_and_plots_side_by_side(self):
        self.assertEqual([a["id"] for a in self.page.attrs_of("section")],
                         ["bench-tlb", "bench-pin"])
        alts = [a["alt"] for a in self.page.attrs_of("img") if a.get("class") == "plot"]
        # Every plot of A and of B, A's first; B lacks one, which is shown as missing.
        self.assertEqual(len(alts), 2 * len(self.a.stems) - 1)
        self.assertEqual(alts[:2], ["A: tlb-remote-idle-cpus-2-by-pages",
                                    "B: tlb-remote-idle-cpus-2-by-pages"])
        self.assertIn("plot missing: B: pin-per_call-16-region-own.png (not in B&#x27;s plots)",
                      self.text)
        for img in self.page.attrs_of("img"):
            self.assertTrue(img["src"].startswith("data:image/png;base64,"))

    def test_identical_runs_are_within_noise(self):
        changes = [(cls, text) for row in self.page.rows for cls, text in row
                   if text.startswith(("+", "-")) and "%" in text]
        self.assertTrue(changes)
        self.assertTrue(all("ns" in cls.split() for cls, _ in changes), changes)


class TestMarks(unittest.TestCase):
    def test_ratio_classes(self):
        self.assertEqual(_ratio_class("2.00x"), "win")
        self.assertEqual(_ratio_class("0.50x"), "loss")
        self.assertEqual(_ratio_class("1.00x"), "")
        self.assertEqual(_ratio_class("~1.03x"), "ns")
        self.assertEqual(_ratio_class("?1.03x"), "noci")
        self.assertEqual(_ratio_class("n/a"), "")

    def test_compare_change_classes(self):
        self.assertEqual(_change_class("%change", "+20.00% *", "r"), "r win")
        self.assertEqual(_change_class("%change", "-20.00% *", "r"), "r loss")
        self.assertEqual(_change_class("%change", "+1.00%  ", "r"), "r ns")
        self.assertEqual(_change_class("bench", "tlb", "l"), "l")

    def test_accelerator_from_hypervisor(self):
        self.assertEqual(accelerator({"hypervisor": "TCGTCGTCGTCG"}), "TCG (QEMU's emulator)")
        self.assertEqual(accelerator({"hypervisor": "KVMKVMKVM\0\0\0"}), "KVM")
        self.assertIn("none reported", accelerator({"hypervisor": None}))
        self.assertEqual(accelerator({"hypervisor": "VMwareVMware"}), "hypervisor VMwareVMware")


if __name__ == "__main__":
    unittest.main()
