"""The top of a run's results page: the headline and the forest plot.

The headline section (id="headline") says what the run shows in sentences
that mmlab.headline writes from the figures (which designs win, by how
much, where there is no difference, which controls failed), then shows the
headline table (the terminal's, as HTML) and the run's status in one line.
The forest section (id="forest") holds mmlab.forest's chart of every
comparison. Both come before the run's metadata, skips and tables.
"""
from __future__ import annotations

from .forest import render_forest
from .headline import (NEAR1_CELL, NO_INTERVAL, NOT_SIGNIFICANT, SIGNIFICANT, comparisons,
                       failed_control_lines, failed_control_summary, headline_blocks,
                       headline_sentences, ratio_words, row_cells)
from .records import NAIVE
from .svg import esc


def _table(headers, rows):
    """A plain HTML table of text cells; a ratio cell is classed by its mark."""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return f"<table class=\"headline\"><tr>{head}</tr>{body}</table>"


def _cell(text):
    """A headline cell: a significant ratio green (win) or red (loss), the others grey."""
    css = ""
    if text.startswith(SIGNIFICANT):
        css = "win" if float(text[1:].split("x")[0]) > 1 else "loss"
    elif text[:1] in (NOT_SIGNIFICANT, NO_INTERVAL) or text == NEAR1_CELL:
        css = "ns"
    return f"<td class=\"{css}\">{esc(text)}</td>" if css else f"<td>{esc(text)}</td>"


def headline_tables(comps):
    """The headline table of each benchmark as HTML: a caption and a row per parameter set."""
    out = []
    for block in headline_blocks(comps):
        if not block.rows:
            continue
        g = next(c for row in block.rows for c in row if c is not None).group
        metrics = len({c.group.metric for row in block.rows for c in row if c is not None})
        caption = (f"{block.bench} at {block.cpus} CPUs: {g.metric} ({g.unit}, {g.better} is "
                   f"better); ratio = {ratio_words(g.better)}, [95% CI]")
        table = _table(["parameters"] + block.designs + ["count per op behind the best"],
                       [row_cells(r, metrics) for r in block.rows])
        out.append(table.replace("<tr>", f"<caption>{esc(caption)}</caption><tr>", 1))
    return out


def failure_words(f):
    """'tlb early_ack cpus=2 pages=32: why' of a failed case."""
    words = [f["bench"], f.get("variant"), f"cpus={f['cpus']}" if f.get("cpus") else ""]
    words += [f"{k}={v}" for k, v in (f.get("params") or {}).items()]
    return " ".join(filter(None, words)) + f": {f['why']}"


def headline_section(log, status_line):
    """The page's headline: sentences, the headline table, failed controls, the run status."""
    comps = comparisons(log.benches)
    parts = ["<section id=\"headline\"><h2>Headline</h2>",
             "<ul class=\"sentences\">" + "".join(f"<li>{esc(s)}</li>"
                                                  for s in headline_sentences(log.benches))
             + "</ul>"]
    parts += headline_tables(comps)
    fails = failed_control_summary(failed_control_lines(comps))
    if fails:
        items = "".join(f"<li>{esc(f.strip())}</li>" for f in fails[1:])
        parts.append(f"<p class=\"bad\">{esc(fails[0])}</p>"
                     + (f"<ul>{items}</ul>" if items else ""))
    if log.failures:
        parts.append(f"<p class=\"bad\">{len(log.failures)} failed case(s): "
                     + esc("; ".join(failure_words(f) for f in log.failures[:5]))
                     + (" ..." if len(log.failures) > 5 else "") + "</p>")
    parts.append("<p class=\"note\">* the 95% CI excludes 1 (significant); ~ it includes 1 (no "
                 "difference); ? too few runs for an interval. Every design and CPU count: the "
                 "forest plot below and the benchmark tables.</p>")
    parts.append(status_line)
    return "\n".join(parts + ["</section>"])


def forest_section(log):
    """The forest plot of every comparison, in a section of its own."""
    comps = comparisons(log.benches)
    if not comps:
        return "<section id=\"forest\"><h2>Forest plot</h2><p>No design to compare.</p></section>"
    return ("<section id=\"forest\"><h2>Forest plot: every design against " + esc(NAIVE)
            + "</h2><p class=\"note\">Each row: a design's ratio against the reference (dot) "
            "and its bootstrap 95% CI (bar), log axis, grouped by benchmark and CPU count. "
            "Green: wins, red: loses (significantly); blue: no significant difference; grey: "
            "A/A controls and rows expected near 1 (they belong on the line at 1); hollow: no "
            "interval."
            "</p>" + render_forest(comps) + "</section>")
