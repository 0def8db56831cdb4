"""The top of a run's results page: the headline and the forest plot.

The headline section (id="headline") says what each benchmark's declared
row shows, in sentences that mmlab.headline writes from the figures, then
what must be read first (failed A/A controls, unstable rows, lost runs),
the declared rows as tables (the terminal's, as HTML) and the run's status
in one line.
The forest section (id="forest") holds mmlab.forest's chart of every
comparison. Both come before the run's metadata, skips and tables.
"""
from __future__ import annotations

from .forest import render_forest
from .headline import (NEAR1_CELL, NO_INTERVAL, NOT_SIGNIFICANT, SIGNIFICANT, UNSTABLE,
                       block_table, block_title, comparisons, first_lines, headline_blocks,
                       headline_sentences, mode_line)
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
    elif text[:1] in (NOT_SIGNIFICANT, NO_INTERVAL) or text.startswith(NEAR1_CELL):
        css = "ns"
    elif text == UNSTABLE:
        css = "bad"
    return f"<td class=\"{css}\">{esc(text)}</td>" if css else f"<td>{esc(text)}</td>"


def headline_tables(comps):
    """Each benchmark's declared row as HTML: its title as the caption, a row per design."""
    out = []
    for block in headline_blocks(comps):
        table = _table(*block_table(block))
        out.append(table.replace("<tr>", f"<caption>{esc(block_title(block))}</caption><tr>", 1))
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
    first = first_lines(log.benches, comps, headline_blocks(comps)) if comps else []
    if first:
        parts.append("<ul class=\"bad\">" + "".join(f"<li>{esc(f.strip())}</li>"
                                                    for f in first) + "</ul>")
    parts += headline_tables(comps)
    if log.failures:
        parts.append(f"<p class=\"bad\">{len(log.failures)} failed case(s): "
                     + esc("; ".join(failure_words(f) for f in log.failures[:5]))
                     + (" ..." if len(log.failures) > 5 else "") + "</p>")
    if comps:
        parts.append(f"<p class=\"note\">{esc(mode_line(comps))} Every design and CPU count: "
                     "the forest plot below and the benchmark tables.</p>")
    parts.append(status_line)
    return "\n".join(parts + ["</section>"])


def forest_section(log):
    """The forest plot of every comparison, in a section of its own."""
    comps = comparisons(log.benches)
    if not comps:
        return "<section id=\"forest\"><h2>Forest plot</h2><p>No design to compare.</p></section>"
    return ("<section id=\"forest\"><h2>Forest plot: every design against " + esc(NAIVE)
            + "</h2><p class=\"note\">Each row: a design's ratio against the reference (dot) "
            "and its 95% CI (bar), log axis, grouped by benchmark and CPU count. "
            "Green: wins, red: loses (significantly); blue: no significant difference; grey: "
            "A/A controls and rows expected near 1 (they belong on the line at 1); hollow: no "
            "interval."
            "</p>" + render_forest(comps) + "</section>")
