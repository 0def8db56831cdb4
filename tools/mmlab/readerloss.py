"""The readers' side of a benchmark whose readers count their own episodes (reclaim).

A record that carries "reader_loss_pct" (bench/bench_reclaim.c) gives, over
its counted episodes, each one's loss against the null pass of the same
episode (the readers over the range resident, no reclaim), as a median and
the interval of the kernel's order statistics ("_lo", "_hi"); the null and
timed rates behind it; whether the null rate matched the first result's
("reader_baseline_same"); on the A/A row, whether its loss agrees with the
reference's ("reader_loss_aa_agrees"); and the receivers' interrupts,
counted on the receivers over the run's time. This module lays them out,
one row per record, for table.txt, the page and results.json.
"""
from __future__ import annotations

from .fits import params_words
from .format import format_number, render_table
from .records import per_records

LOSS = "reader_loss_pct"


def _range(rec, key):
    """(median, lo, hi) of a reported series, or None when the record lacks it."""
    vals = [rec.extra.get(key + suffix) for suffix in ("", "_lo", "_hi")]
    return tuple(vals) if all(isinstance(v, (int, float)) for v in vals) else None


@per_records
def reader_loss_results(records):
    """results.json's `reader_loss` objects: one per record that reports its readers' loss."""
    out = []
    for r in records:
        loss = _range(r, LOSS)
        if loss is None:
            continue
        irqs = _range(r, "receiver_irqs_per_run")
        rate = _range(r, "receiver_irqs_per_sec")
        out.append({"bench": r.bench, "params": dict(r.params), "cpus": r.cpus,
                    "design": r.variant, "episodes": r.extra.get("reader_episodes"),
                    "loss_pct": loss[0], "loss_pct_ci": [loss[1], loss[2]],
                    "null_cycles_per_kread": r.extra.get("reader_null_cycles_per_kread"),
                    "cycles_per_kread": r.extra.get("reader_cycles_per_kread"),
                    "baseline_same": r.extra.get("reader_baseline_same"),
                    "aa_agrees": r.extra.get("reader_loss_aa_agrees"),
                    "receiver_irqs_per_run": irqs[0] if irqs else None,
                    "receiver_irqs_per_sec": rate[0] if rate else None})
    return out


def _flag(value):
    return "-" if value is None else "yes" if value else "NO"


def reader_loss_table(rows):
    """(headers, rows, align) of the readers' loss."""
    headers = ["bench", "params", "cpus", "design", "episodes", "loss %", "interval",
               "null cycles/kread", "cycles/kread", "baseline same", "A/A agrees",
               "receiver irqs/run", "receiver irqs/s"]
    out = [[c["bench"], params_words(c["params"]), str(c["cpus"]), c["design"],
            str(c["episodes"] or "-"), format_number(c["loss_pct"]),
            f"{format_number(c['loss_pct_ci'][0])}..{format_number(c['loss_pct_ci'][1])}",
            format_number(c["null_cycles_per_kread"]), format_number(c["cycles_per_kread"]),
            _flag(c["baseline_same"]), _flag(c["aa_agrees"]),
            format_number(c["receiver_irqs_per_run"]), format_number(c["receiver_irqs_per_sec"])]
           for c in rows]
    return headers, out, "lllllrrrrllrr"


LEGEND = [
    "readers' loss per episode: how much longer the readers took in the timed pass than in the "
    "null pass of the same episode",
    "(the range read resident, no reclaim): median over the counted episodes, interval the "
    "kernel's order statistics;",
    "baseline same: the null pass ran at the first result's rate; A/A agrees: the aa row's "
    "loss agrees with the reference's;",
    "receiver irqs: interrupts the reading CPUs took, counted on them, per run and per second "
    "of the run.",
]


def render_reader_loss_text(rows):
    """table.txt's section of the readers' loss, or []."""
    if not rows:
        return []
    return ["", "Readers' loss per episode"] + LEGEND + render_table(*reader_loss_table(rows))


def render_reader_loss_html(rows, html_table, esc):
    """The results page's section (html_table, esc: mmlab.html's)."""
    if not rows:
        return []
    return ["\n".join(["<div id=\"reader-loss\" class=\"bench\"><h2>Readers' loss per "
                       "episode</h2>", f"<p>{esc(' '.join(LEGEND))}</p>",
                       html_table(*reader_loss_table(rows)), "</div>"])]
