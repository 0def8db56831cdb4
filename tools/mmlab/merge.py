"""A group's table sections (naive against each design) merged into one table.

mmlab.table makes one section per design pair (naive against each design);
table.txt and the results page show a group's designs in one table instead:
naive's row first, then a row per design with its ratio against naive. A
'naive / design' cell (outliers, counters) is split between the two rows.
"""
from __future__ import annotations

import json

from .records import NAIVE

# How a section puts naive's and a design's values in one cell.
PAIR_SEP = " / "


def sections_by_group(sections):
    """[(group, [(design, headers, rows, align)])]: consecutive sections of one group."""
    out = []
    for sec in sections:
        if not out or out[-1][0] is not sec.group:
            out.append((sec.group, []))
        out[-1][1].append((sec.improved, sec.headers, sec.rows, sec.align))
    return out


def _design_header(header, variant):
    """header without its design's name: 'batched (cycles)' -> 'median (cycles)'."""
    if variant and (header == variant or header.startswith(variant + " ")):
        return "median" + header[len(variant):]
    return header


def _split_pair(cell):
    """('naive part', 'design part') of a 'naive / design' cell, or None."""
    parts = cell.split(PAIR_SEP)
    return (parts[0], parts[1]) if len(parts) == 2 else None


def merge_sections(sections):
    """One (headers, rows, align, row classes) for a group's sections, or None.

    sections: (design, headers, rows, align) of naive against each design.
    Each section's columns before its design's median are naive's (and the
    CPU count); they must be the same in every section. The columns from
    the design's median on become the columns of a design row, in the order
    the sections give them (a column only some sections have, a counter or
    a peer's, is blank on the others' rows); a column whose every cell is
    'naive / design' gives naive its half on naive's row.
    """
    cut = _common_cut(sections)
    if cut is None:
        return None
    parts = [_design_part(v, h, rows, a, cut) for v, h, rows, a in sections]
    cols = _ordered_union([list(p["align"]) for p in parts])
    _, h0, rows0, a0 = sections[0]
    naive_at = {k: j for j, k in enumerate(_keyed([_design_header(h, NAIVE) for h in h0[:cut]]))}
    lead = [j for k, j in naive_at.items() if k not in cols]
    paired = {k for k in cols if all(_split_pair(c) for p in parts if k in p["align"]
                                     for row in p["rows"] for c in [row[k]])}
    rows, classes = [], []
    for i, row in enumerate(rows0):
        rows.append([row[j] for j in lead] + [NAIVE] + [_naive_cell(k, row, naive_at, paired, parts, i)
                                                        for k in cols])
        classes.append("base")
        for v, p in zip((s[0] for s in sections), parts):
            cells = [p["rows"][i].get(k, "") for k in cols]
            rows.append([row[j] for j in lead] + [v or "improved"] + [
                _split_pair(c)[1] if k in paired and c else c for k, c in zip(cols, cells)])
            classes.append("")
    align = "".join(a0[j] for j in lead) + "l" + "".join(
        next(p["align"][k] for p in parts if k in p["align"]) for k in cols)
    return [h0[j] for j in lead] + ["design"] + [k[0] for k in cols], rows, align, classes


def _design_part(variant, headers, rows, align, cut):
    """A section's design columns keyed by (name, occurrence): their alignment and cells."""
    keys = _keyed([_design_header(h, variant) for h in headers[cut:]])
    return {"align": dict(zip(keys, align[cut:])),
            "rows": [dict(zip(keys, row[cut:])) for row in rows]}


def _naive_cell(key, row, naive_at, paired, parts, i):
    """naive's cell in column key: its own column, else its half of a paired cell."""
    if key in naive_at:
        return row[naive_at[key]]
    if key in paired:
        return next(_split_pair(p["rows"][i][key])[0] for p in parts if key in p["align"])
    return ""


def _keyed(names):
    """(name, how many times it came before): '±CI' is both a design's and a peer's."""
    return [(n, names[:j].count(n)) for j, n in enumerate(names)]


def _ordered_union(lists):
    """The keys of every list once, each after the key its list had before it."""
    out = []
    for keys in lists:
        at = 0
        for k in keys:
            if k in out:
                at = out.index(k) + 1
            else:
                out.insert(at, k)
                at += 1
    return out


def _common_cut(sections):
    """Where every section's design columns start, if naive's columns before are all alike."""
    cuts = {_first_design_column(v, h) for v, h, _, _ in sections}
    if len(cuts) != 1 or None in cuts:
        return None
    cut = cuts.pop()
    naive_parts = {json.dumps([h[:cut]] + [r[:cut] for r in rows]) for _, h, rows, _ in sections}
    return cut if len(naive_parts) == 1 else None


def _first_design_column(variant, headers):
    """Where a section's design columns start: its design's median; None if not found."""
    name = variant or "improved"
    return next((j for j, h in enumerate(headers) if h == name or h.startswith(name + " ")),
                None)
