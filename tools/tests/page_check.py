#!/usr/bin/env python3
"""Renders the results pages in headless Chromium and checks them; prints KTAP.

usage: page_check.py OUTDIR RUN_DIR [COMPARE_DIR A_DIR]

RUN_DIR is a benchmark run's results folder (index.html, plots/,
serial.log), COMPARE_DIR one written by run.sh --compare A_DIR B. For each page
the browser loads it from disk (no network) and the page's own script
writes how many plots it decoded into #plot-check; the check wants every
plot (as many as the run's results call for, for the run page), a section for every
benchmark with results, and a screenshot, kept in OUTDIR. On the run page it also
wants the headline section laid out (its height and table rows, from #forest-check)
and every forest plot row drawn (one per comparison of the run's results). A copy of the
run page with one plot's bytes corrupted must then count one plot fewer:
the check proves on every run that it can fail. Without Chromium the one
case is skipped, naming why. Exit status 0 unless a case failed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

sys.dont_write_bytecode = True  # keep tools/ free of __pycache__, as run.py does
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tools/, where the package mmlab is
from mmlab.interp import ensure_numpy  # noqa: E402

if __name__ == "__main__":
    ensure_numpy(sys.argv)
from mmlab.log import parse_log  # noqa: E402
from mmlab.html import TRACE_PLOT  # noqa: E402
from mmlab.plot import plotted_groups  # noqa: E402
from mmlab.headline import comparisons  # noqa: E402

BROWSERS = ("chromium", "chromium-browser")
# Names resolve to nothing: a page that needed the network would lose what it fetched.
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP * ~NOTFOUND"]
WINDOW = "1400,2000"
TIMEOUT_S = 240
# The start of an inline plot's data (base64 PNG or percent-encoded SVG), to corrupt.
PLOT_URI_RE = re.compile(r'(src="data:image/(?:png;base64|svg\+xml;charset=utf-8),)([^"]{64})')


class DomFacts(HTMLParser):
    """The section ids, the #plot-check counts and the #forest-check facts of a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.sections, self.loaded, self.total = [], None, None
        self.forest = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and a.get("id"):
            self.sections.append(a["id"])
        if a.get("id") == "plot-check":
            self.loaded, self.total = _int(a.get("data-loaded")), _int(a.get("data-total"))
        if a.get("id") == "forest-check":
            self.forest = {k[5:]: _int(v) for k, v in a.items() if k.startswith("data-")}


def _int(text):
    return int(text) if text and text.isdigit() else None


class Ktap:
    """Collects cases and prints them as one KTAP v1 suite."""

    def __init__(self):
        self.lines, self.failed = [], 0

    def check(self, name, ok, diag=""):
        n = len([line for line in self.lines if not line.startswith("#")]) + 1
        if not ok and diag:
            self.lines.append(f"# {diag}")
        self.lines.append(f"{'ok' if ok else 'not ok'} {n} {name}")
        self.failed += not ok

    def print(self):
        cases = [line for line in self.lines if not line.startswith("#")]
        print("KTAP version 1")
        print(f"1..{len(cases)}")
        print("\n".join(self.lines))


def browser(outdir, page, *args):
    """Run Chromium on page with args; return its standard output ('' when it failed)."""
    profile = tempfile.mkdtemp(prefix="mmlab-chromium-")
    cmd = [find_browser(), *FLAGS, f"--user-data-dir={profile}", *args,
           "file://" + os.path.abspath(page)]
    try:
        with open(os.path.join(outdir, "chromium.log"), "a") as err:
            done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=err, text=True,
                                  timeout=TIMEOUT_S)
        return done.stdout if done.returncode == 0 else ""
    except (OSError, subprocess.TimeoutExpired):
        return ""
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def find_browser():
    """The Chromium on PATH, or None."""
    return next(filter(None, (shutil.which(b) for b in BROWSERS)), None)


def dom_facts(outdir, page):
    """DomFacts of page as Chromium rendered it."""
    facts = DomFacts()
    facts.feed(browser(outdir, page, "--dump-dom"))
    return facts


def check_page(ktap, outdir, name, page, want_plots, want_sections):
    """The cases of one page: every plot loads, every section is there, a screenshot."""
    facts = dom_facts(outdir, page)
    # A page of runs at one CPU count has no sweep plot (its dot charts are inline SVG).
    ok = facts.total == want_plots and facts.loaded == want_plots
    ktap.check(f"{name}_every_plot_loads", ok,
               f"loaded {facts.loaded} of {facts.total} plots, want {want_plots}")
    missing = sorted(set(want_sections) - set(facts.sections))
    ktap.check(f"{name}_section_per_benchmark", bool(want_sections) and not missing,
               f"sections {facts.sections}, missing {missing}")
    shot = os.path.join(outdir, f"{name}.png")
    browser(outdir, page, f"--screenshot={shot}", f"--window-size={WINDOW}")
    ktap.check(f"{name}_screenshot", _is_png(shot), f"no screenshot at {shot}")
    return facts


def check_headline_and_forest(ktap, facts, want_rows):
    """The headline is laid out with its table, and every forest row was drawn."""
    f = facts.forest
    # A run with too few runs for any interval has a headline of sentences and no table.
    rows = f.get("headline-rows") or 0
    ktap.check("results_page_headline_rendered", (f.get("headline-height") or 0) > 100
               and (rows == 0 or rows >= 2) and "headline" in facts.sections,
               f"headline facts {f}")
    ktap.check("results_page_forest_rendered", want_rows > 0 and f.get("forest-rows") == want_rows
               and f.get("forest-drawn") == want_rows,
               f"forest rows {f.get('forest-rows')}, drawn {f.get('forest-drawn')}, want {want_rows}")


def _is_png(path):
    try:
        with open(path, "rb") as f:
            return f.read(8) == b"\x89PNG\r\n\x1a\n" and os.path.getsize(path) > 1000
    except OSError:
        return False


def check_broken_plot(ktap, outdir, page, total):
    """A copy of page with one plot corrupted must count exactly one plot fewer."""
    with open(page) as f:
        text = f.read()
    broken, n = PLOT_URI_RE.subn(lambda m: m.group(1) + "A" * 64, text, count=1)
    path = os.path.join(outdir, "broken-plot.html")
    with open(path, "w") as f:
        f.write(broken)
    facts = dom_facts(outdir, path)
    ktap.check("results_page_broken_plot_caught", n == 1 and facts.total == total
               and facts.loaded == total - 1,
               f"corrupted {n} plot(s): loaded {facts.loaded} of {facts.total}")


def check_compare(ktap, outdir, page, a_dir):
    """The comparison page: every plot it holds loads, a section per benchmark of A."""
    ktap.check("compare_page_written", os.path.isfile(page), f"no {page}")
    if os.path.isfile(page):
        with open(page) as f:
            imgs = f.read().count('<img class="plot"')
        check_page(ktap, outdir, "compare_page", page, imgs,
                   bench_sections(os.path.join(a_dir, "serial.log")))


def bench_sections(log_path):
    """'bench-NAME' for every benchmark with results in a serial log."""
    return [f"bench-{b}" for b in dict.fromkeys(r.bench for r in parse_log(log_path).benches)]


def main(argv):
    """Check the pages; print KTAP; return the exit status."""
    if len(argv) not in (2, 4):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    outdir, run_dir = argv[0], argv[1]
    os.makedirs(outdir, exist_ok=True)
    ktap = Ktap()
    if find_browser() is None:
        print("KTAP version 1\n1..1\nok 1 results_page # SKIP chromium is not installed "
              "(tools/deps.sh test installs it)")
        return 0
    # As many plots as the run's results call for (mmlab.plot), each a PNG in plots/.
    pngs = len(plotted_groups(parse_log(os.path.join(run_dir, "serial.log")).benches))
    pngs += all(os.path.exists(os.path.join(run_dir, f)) for f in ("trace.json", TRACE_PLOT))
    page = os.path.join(run_dir, "index.html")
    ktap.check("results_page_written", os.path.isfile(page), f"no {page}")
    if os.path.isfile(page):
        log = parse_log(os.path.join(run_dir, "serial.log"))
        facts = check_page(ktap, outdir, "results_page", page, pngs,
                           ["headline", "forest"] + bench_sections(log.path))
        check_headline_and_forest(ktap, facts, len(comparisons(log.benches)))
        check_broken_plot(ktap, outdir, page, facts.total or pngs)
    if len(argv) == 4:
        check_compare(ktap, outdir, os.path.join(argv[2], "index.html"), argv[3])
    ktap.print()
    return 1 if ktap.failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
