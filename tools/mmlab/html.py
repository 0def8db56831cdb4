"""The results page of a run (index.html): one self-contained HTML file.

usage: mmlab page RESULTS_DIR

The page opens with the headline (id="headline": sentences and the
headline table of mmlab.headline) and the forest plot (id="forest",
mmlab.forest), then the run's details (header: machine, CPU, accelerator,
firmware, command lines, version; failed and skipped cases; Warnings, the
failed A/A controls (harness bias, mmlab.rounds); a link to
trace.json when the run has one, with trace-timeline.png inline when it is
there too), then one section per benchmark with the tables of table.txt
laid out as HTML (the same sections, headers and cells, from mmlab.table,
merged by mmlab.merge), its line plots (gnuplot's SVG of plots/ inline as
a percent-encoded data: URI, or its PNG as base64) and a dot-and-interval
chart (mmlab.dots) for each group measured at one CPU count; after them
the regime fits of the unmap cost (id="fits", mmlab.fits), its shootdown
component (id="shootdown", mmlab.shootdown) and a peer's in-kernel components (id="inkernel", mmlab.inkernel).
Nothing is fetched from the network: the CSS is inline and the only script
is a few lines that count the plots the browser decoded into #plot-check
(data-loaded, data-total), and the forest rows drawn and the headline's
size into #forest-check, which the browser test reads.
A ratio cell is coloured by the table's own marks: significant (no mark)
win or loss, '~' not significant, '?' no interval.
The command writes RESULTS_DIR/index.html from its serial.log (or its
results.json); exit status 0 written, 1 the run could not be read, 2 usage.
"""
from __future__ import annotations

import base64
import html
import json
import os
import re
import sys
import urllib.parse

from .dots import render_dots, single_count_groups
from .fits import component_results, fit_results, render_fits_html
from .readerloss import reader_loss_results, render_reader_loss_html
from .shootdown import render_shootdown_html, shootdown_results
from .inkernel import kernel_component_results, render_kernel_html
from .groups import group_results
from .headline_html import forest_section, headline_section
from .log import parse_log, read_lines
from .peer import MMLAB, record_system
from .merge import merge_sections, sections_by_group
from .plot import plotted_groups
from .resultsfile import load_run
from .records import NAIVE
from .rounds import harness_bias, harness_bias_text
from .table import LEGEND, NO_INTERVAL, NOT_SIGNIFICANT, table_sections

PAGE_NAME = "index.html"
TRACE_NAME = "trace.json"
# The timeline run.sh --trace draws beside trace.json.
TRACE_PLOT = "trace-timeline.png"
PLOTS_DIR = "plots"
# A skipped case: '# bench NAME cpus=K: outside its range ...: skipped' and the like.
SKIP_RE = re.compile(r"^# (?:WARN )?bench\b.*\bskipped\b")
# CPUID leaf 0x40000000 vendor strings of the accelerators QEMU offers.
ACCELERATORS = {"TCGTCGTCGTCG": "TCG (QEMU's emulator)", "KVMKVMKVM": "KVM"}
BIAS_WORDS = "a bias in the set-up"
# Characters an SVG data: URI keeps as they are (the rest are percent-encoded).
SVG_SAFE = " =:/;,()-._~!*+?@[]$'"

CSS = """
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto;
       padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; } h2 { border-bottom: 2px solid #888; margin-top: 2em; }
h3 { font-size: 1em; margin: 1.5em 0 .3em; }
table { border-collapse: collapse; margin: .3em 0 1em; }
th, td { border: 1px solid #ccc; padding: 2px 6px; white-space: nowrap; }
th { background: #eee; } td.r { text-align: right; font-variant-numeric: tabular-nums; }
table.facts th { text-align: left; } table.facts td { white-space: normal; max-width: 90em; }
td.win { background: #c8f0c8; font-weight: bold; } td.loss { background: #f8c8c8;
  font-weight: bold; } td.ns, td.noci { color: #777; } td.bias { background: #ffe08a; }
.plots { display: flex; flex-wrap: wrap; gap: 8px; }
.designs { display: flex; flex-wrap: wrap; gap: 0 16px; align-items: flex-start; }
caption { text-align: left; font-weight: bold; font-size: 13px; }
td.l { white-space: normal; max-width: 22em; }
tr.base td { border-top: 2px solid #888; background: #f6f6f6; }
figure { margin: 0; width: 640px; } figure img { width: 100%; border: 1px solid #ddd; }
figcaption { font-size: 12px; color: #555; } .missing { border: 2px dashed #c00;
  padding: 1em; color: #c00; } .bad { color: #b00; font-weight: bold; }
ul.legend { font-size: 13px; color: #444; } code { font-size: 13px; }
#headline { background: #f7f9fc; border: 1px solid #cdd7e4; padding: 0 1em 1em; }
#headline h2 { margin-top: .5em; } ul.sentences li { margin: .2em 0; font-size: 15px; }
table.headline caption { font-size: 14px; padding: .3em 0; } p.note { font-size: 13px;
  color: #555; } svg.forest, svg.dots { background: white; border: 1px solid #ddd; }
figure.dots { width: auto; }
"""

# Counts the plots the browser decoded, the forest plot's rows it drew and the headline's
# size; the browser test (tools/tests/page_check.py) reads them.
CHECK_SCRIPT = """<script>
addEventListener("load", function () {
  var imgs = document.querySelectorAll("img.plot"), ok = 0, i;
  for (i = 0; i < imgs.length; i++) if (imgs[i].complete && imgs[i].naturalWidth > 0) ok++;
  var c = document.getElementById("plot-check");
  c.setAttribute("data-loaded", ok); c.setAttribute("data-total", imgs.length);
  c.textContent = ok + " of " + imgs.length + " plots loaded";
  var rows = document.querySelectorAll("#forest svg.forest g.forest-row"), drawn = 0;
  for (i = 0; i < rows.length; i++) if (rows[i].getBBox().width > 0) drawn++;
  var h = document.getElementById("headline"), f = document.getElementById("forest-check");
  f.setAttribute("data-forest-rows", rows.length); f.setAttribute("data-forest-drawn", drawn);
  f.setAttribute("data-headline-height", h ? h.offsetHeight : 0);
  f.setAttribute("data-headline-rows", document.querySelectorAll("#headline tr").length);
  f.textContent = drawn + " of " + rows.length + " forest rows drawn";
});
</script>"""


def esc(text):
    """text escaped for HTML element content and attribute values."""
    return html.escape(str(text), quote=True)


def page(title, body):
    """A whole HTML document: title, inline CSS, body parts, the plot-count script."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style></head>\n<body>\n"
            + "\n".join(body)
            + "\n<p>Plots: <span id=\"plot-check\">(counted when the page has loaded)</span>; "
            "forest plot: <span id=\"forest-check\">(counted when the page has loaded)</span></p>\n"
            + CHECK_SCRIPT + "\n</body></html>\n")


def facts_table(pairs):
    """A two-column table of (name, value) pairs; values are escaped."""
    rows = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in pairs)
    return f"<table class=\"facts\">{rows}</table>"


def accelerator(header):
    """The accelerator a run's header implies, from the CPUID hypervisor vendor."""
    vendor = (header or {}).get("hypervisor")
    if not vendor:
        return "none reported (bare metal, or an emulator with no hypervisor leaf, e.g. Bochs)"
    return ACCELERATORS.get(vendor.rstrip("\0"), f"hypervisor {vendor}")


def header_facts(header, qemu_cmd=None):
    """(name, value) pairs describing the machine and build of a run."""
    if not header:
        return [("header", "no MMLAB header in this run")]
    mem = header.get("mem_bytes")
    cpu = " ".join(str(header.get(k)) for k in ("cpu_vendor", "cpu_model") if header.get(k))
    pairs = [("version", header.get("version")), ("CPU", cpu or "?"),
             ("CPUs online", header.get("cpus")), ("accelerator", accelerator(header)),
             ("firmware", header.get("firmware")),
             ("boot", f"{header.get('boot')} (loader {header.get('loader')})"),
             ("memory", f"{mem // (1 << 20)} MiB" if isinstance(mem, int) else "?"),
             ("timing", header.get("timing") or "time (no timing field)"),
             ("TSC", f"{header.get('tsc_hz')} Hz ({header.get('tsc_method')})"),
             ("kernel command line", header.get("cmdline"))]
    # trace: run.sh --trace's state and its measured overhead (an object).
    pairs += [(k, header[k] if isinstance(header[k], str) else json.dumps(header[k]))
              for k in ("spinlock", "spin_pause", "compiler", "trace") if k in header]
    if qemu_cmd:
        pairs.append(("QEMU command", qemu_cmd))
    return pairs


def all_header_fields(header):
    """Every field of the header line, folded away: those the summary leaves out too."""
    if not header:
        return ""
    pairs = [(k, v if isinstance(v, str) else json.dumps(v)) for k, v in header.items()]
    return ("<details><summary>All header fields (the run's MMLAB line)</summary>"
            + facts_table(pairs) + "</details>")


def cell_class(header, text, align):
    """The CSS class of one table cell: numbers right, ratios by significance."""
    classes = ["r" if align == "r" else "l"]
    if header == "ratio" or header.endswith(" ratio"):
        classes.append(_ratio_class(text))
    elif header == "note" and (BIAS_WORDS in text or "harness bias" in text):
        classes.append("bias")
    return " ".join(c for c in classes if c)


def _ratio_class(text):
    """'win'/'loss' for a significant ratio, 'ns' for '~', 'noci' for '?'."""
    if text.startswith(NOT_SIGNIFICANT):
        return "ns"
    if text.startswith(NO_INTERVAL):
        return "noci"
    try:
        value = float(text.rstrip("x"))
    except ValueError:
        return ""
    return "win" if value > 1 else "loss" if value < 1 else ""


def html_table(headers, rows, align, classes=None, row_classes=None):
    """An HTML table of text cells; classes(header, cell, align) gives each cell's class."""
    classes = classes or cell_class
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = []
    for i, row in enumerate(rows):
        cells = "".join(_td(classes(h, c, a), c) for h, c, a in zip(headers, row, align))
        css = row_classes[i] if row_classes else ""
        body.append(f"<tr class=\"{css}\">{cells}</tr>" if css else f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def _td(css, text):
    attr = f' class="{css}"' if css else ""
    return f"<td{attr}>{esc(text)}</td>"


def plot_figure(path, caption, missing="was gnuplot installed?"):
    """A <figure> with the image at path inline (PNG, or SVG text as a data: URI), or a
    visible box when it is missing."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError:
        return (f"<figure><div class=\"missing\">plot missing: {esc(caption)}.png "
                f"({esc(missing)})</div></figure>")
    if path.endswith(".svg"):
        # Percent-encoded text: a third of the size of base64, and gnuplot's SVG is
        # half the size of its PNG. The page stays small (docs/output.md).
        src = "data:image/svg+xml;charset=utf-8," + urllib.parse.quote(raw, safe=SVG_SAFE)
    else:
        src = "data:image/png;base64," + base64.b64encode(raw).decode("ascii")
    return (f"<figure><img class=\"plot\" alt=\"{esc(caption)}\" "
            f"src=\"{esc(src)}\"><figcaption>{esc(caption)}</figcaption></figure>")


def run_plot(outdir, stem):
    """A run's plot: gnuplot's SVG when it is there, else its PNG."""
    base = os.path.join(outdir, PLOTS_DIR, stem)
    return plot_figure(base + (".svg" if os.path.exists(base + ".svg") else ".png"), stem)


def bench_names(log, skips):
    """Every benchmark the run mentions, in the order it first does."""
    names = [r.bench for r in log.benches] + [f["bench"] for f in log.failures]
    names += [m.group(1) for m in (re.match(r"^# (?:WARN )?bench (\w+)", s) for s in skips) if m]
    return list(dict.fromkeys(names))


def skip_lines(log_path):
    """The '# bench ... skipped' lines of a serial log (none when it cannot be read)."""
    try:
        with open(log_path, "rb") as f:
            text = f.read().decode("utf-8", errors="replace")
    except OSError:
        return []
    return [line for _, line in read_lines(text)[0] if SKIP_RE.match(line)]


def bench_section(name, log, outdir, skips):
    """The HTML of one benchmark: its tables, its plots, its failures and skips."""
    parts = [f"<section id=\"bench-{esc(name)}\" class=\"bench\"><h2>{esc(name)}</h2>"]
    for group, tables in _group_tables(log.benches, name):
        parts += [f"<h3>{esc(group.title)}: {esc(group.metric)} in {esc(group.unit)}, "
                  f"{esc(group.better)} is better</h3>", "<div class=\"designs\">"
                  + "".join(tables) + "</div>"]
    failed = [f for f in log.failures if f["bench"] == name]
    skipped = [s for s in skips if re.match(rf"^# (?:WARN )?bench {re.escape(name)}\b", s)]
    parts += _list_block("Failed", [failure_text(f) for f in failed], "bad")
    parts += _list_block("Skipped", [s[2:] for s in skipped], "")
    figures = [run_plot(outdir, stem)
               for group, stem in plotted_groups(log.benches) if group.bench == name]
    own = [r for r in log.benches if r.bench == name and record_system(r) == MMLAB]
    figures += [f"<figure class=\"dots\">{render_dots(g)}</figure>"
                for g in single_count_groups(group_results(own))]
    if figures:
        parts += ["<h3>Plots</h3>", "<div class=\"plots\">" + "".join(figures) + "</div>"]
    return "\n".join(parts + ["</section>"])


def _group_tables(records, name):
    """(group, [HTML tables]) for benchmark name's groups: one table per group.

    The tables come from table.txt's sections (mmlab.table.table_sections,
    merged by mmlab.merge as table.txt merges them), so a column added there
    appears here too: naive's row, then a row per design; sections that do
    not line up stay apart.
    """
    out = []
    for group, sections in sections_by_group(table_sections(records)):
        if group.bench != name:
            continue
        merged = merge_sections(sections)
        if merged:
            headers, rows, align, row_classes = merged
            out.append((group, [html_table(headers, rows, align, row_classes=row_classes)]))
            continue
        out.append((group, [html_table(h, r, a).replace(
            "<table>", f"<table><caption>{esc(NAIVE)} vs {esc(v)}</caption>", 1)
            for v, h, r, a in sections]))
    return out


def failure_text(f):
    """One failed case as 'bench variant cpus=K params: why'."""
    words = [f["bench"], f.get("variant"), f"cpus={f['cpus']}" if f.get("cpus") else ""]
    words += [f"{k}={v}" for k, v in (f.get("params") or {}).items()]
    return " ".join(filter(None, words)) + f": {f['why']}"


def _list_block(label, items, css):
    if not items:
        return []
    lis = "".join(f"<li>{esc(i)}</li>" for i in items)
    cls = f' class="{css}"' if css else ""
    return [f"<h3{cls}>{esc(label)} ({len(items)})</h3><ul>{lis}</ul>"]


def status_block(log, skips):
    """The run's verdict: the trailer, its counts, the failures, skips and problems."""
    t = log.trailer
    if t is None:
        verdict = "no MMLAB-DONE trailer: the run did not finish"
    else:
        reason = f" ({t['reason']})" if t.get("reason") else ""
        verdict = (f"{t.get('status')}{reason}: passed {t.get('passed')}, failed "
                   f"{t.get('failed')}, skipped {t.get('skipped')}")
    css = "" if t and t.get("status") == "pass" else " class=\"bad\""
    parts = [f"<p{css} id=\"status\">Run status: {esc(verdict)}</p>"]
    parts += _list_block("Failed cases", [failure_text(f) for f in log.failures], "bad")
    parts += _list_block("Skipped", [s[2:] for s in skips], "")
    parts += _list_block("Problems in the log", [str(p) for p in log.problems], "bad")
    parts += _list_block("Warnings", [harness_bias_text(b) for b in harness_bias(log.benches)],
                         "bad")
    return parts


def legend():
    """The table's legend and what the colours of the page mean."""
    items = []
    for line in LEGEND:  # an indented line goes on with the one before it
        if line[:1].isspace() and items:
            items[-1] += " " + line.strip()
        else:
            items.append(line)
    items.append("Colours: green, the improved design wins significantly; red, it loses "
                 f"significantly; grey, '{NOT_SIGNIFICANT}' or '{NO_INTERVAL}' (no "
                 "significant difference); yellow note, an A/A control that differs from 1 (harness "
                 "bias).")
    return "<ul class=\"legend\">" + "".join(f"<li>{esc(' '.join(i.split()))}</li>"
                                             for i in items) + "</ul>"


def render_run_page(log, outdir):
    """The index.html text of the run in outdir, whose parsed log is log.

    The headline and the forest plot first; then the run's metadata, status,
    failures and skips; then a section per benchmark.
    """
    name = os.path.basename(os.path.normpath(outdir))
    skips = skip_lines(log.path)
    status = status_block(log, skips)
    body = [f"<h1>mmlab results: {esc(name)}</h1>",
            headline_section(log, status[0] + "<p><a href=\"#details\">Run details, failures "
                             "and skips</a></p>"),
            forest_section(log),
            "<section id=\"details\" class=\"details\"><h2>Run details</h2>",
            facts_table(header_facts(log.header, _read_text(outdir, "qemu-cmd.txt"))),
            all_header_fields(log.header)]
    body += status[1:] + trace_block(outdir) + ["</section>"]
    names = bench_names(log, skips)
    body.append("<p>Benchmarks: " + ", ".join(
        f"<a href=\"#bench-{esc(n)}\">{esc(n)}</a>" for n in names) + "</p>" if names
        else "<p class=\"bad\">No benchmark results.</p>")
    body += [legend()] + [bench_section(n, log, outdir, skips) for n in names]
    components = component_results(log.benches)
    body += render_fits_html(fit_results(log.benches), html_table, esc)
    body += render_shootdown_html(shootdown_results(log.benches), html_table, esc)
    body += render_reader_loss_html(reader_loss_results(log.benches), html_table, esc)
    body += render_kernel_html(kernel_component_results(log.benches, components), html_table,
                               esc)
    return page(f"mmlab results {name}", body)


def trace_block(outdir):
    """The link to trace.json (and its timeline, inline) when the run has them."""
    if not os.path.exists(os.path.join(outdir, TRACE_NAME)):
        return []
    parts = [f"<p>Trace: <a href=\"{TRACE_NAME}\">{TRACE_NAME}</a> (Chrome trace events: "
             "open it in Perfetto or chrome://tracing)</p>"]
    timeline = os.path.join(outdir, TRACE_PLOT)
    if os.path.exists(timeline):
        parts.append("<div class=\"plots\">" + plot_figure(timeline, TRACE_PLOT[:-4]) + "</div>")
    return parts


def _read_text(outdir, filename):
    """A small text file of the results folder, stripped, or None."""
    try:
        with open(os.path.join(outdir, filename), errors="replace") as f:
            return f.read().strip() or None
    except OSError:
        return None


def write_run_page(log, outdir):
    """Write outdir/index.html for the run whose parsed log is log; return its path."""
    path = os.path.join(outdir, PAGE_NAME)
    with open(path, "w") as f:
        f.write(render_run_page(log, outdir))
    return path


def main(argv=None):
    """Command-line entry point: (re)write RESULTS_DIR/index.html; returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1 or argv[0].startswith("-"):
        print("usage: mmlab page RESULTS_DIR", file=sys.stderr)
        return 2
    outdir = argv[0]
    log_path = os.path.join(outdir, "serial.log")
    log = parse_log(log_path) if os.path.exists(log_path) else load_run(outdir)
    if any(p.kind == "unreadable" for p in log.problems):
        print(f"mmlab page: {outdir}: {log.problems[0].message}", file=sys.stderr)
        return 1
    print(write_run_page(log, outdir))
    return 0

