"""Text formatting for mmlab's tables: numbers, percentages and aligned columns.

Numbers keep about four significant digits without scientific notation
below a billion, so columns of cycles, microseconds and bytes/ms all read
at a glance. Tables are plain fixed-width text: a header row, a rule of
dashes, and rows, with columns separated by two spaces.
"""
import math

MISSING = "-"
GAP = "  "


def format_number(value):
    """A statistic for a table cell: '1210', '302.5', '1.25', '0.00586'."""
    if value is None:
        return MISSING
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not math.isfinite(value):
        return str(value)
    magnitude = abs(value)
    if magnitude == 0:
        return "0"
    if magnitude >= 1e9:
        return f"{value:.3e}"
    if magnitude >= 1000:
        return f"{value:.0f}"
    if magnitude >= 100:
        return f"{value:.1f}"
    if magnitude >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def format_count(value):
    """A per-operation counter: whole values without decimals ('64', '0.002')."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return format_number(value)


def format_percent(value, signed=False):
    """A percentage with two decimals ('1.25%', '+20.00%'); 'n/a' for None."""
    if value is None:
        return "n/a"
    return f"{value:+.2f}%" if signed else f"{value:.2f}%"


def format_spread(rsd):
    """A relative standard deviation as '±1.25%'; '±?' when undefined."""
    return "±?" if rsd is None else "±" + format_percent(rsd)


def format_ratio(value):
    """A ratio such as '4.00x'; 'n/a' for None."""
    return "n/a" if value is None else f"{value:.2f}x"


def describe_run(header):
    """Lines naming the machine and build a run came from, from its header."""
    if not header:
        return ["(no MMLAB header)"]
    mem = header.get("mem_bytes")
    words = [f"mmlab {header.get('version')}", str(header.get("cpu_model")),
             f"{header.get('cpus')} cpus",
             f"hypervisor {header.get('hypervisor') or 'none'}",
             f"firmware {header.get('firmware')}",
             f"{mem // (1 << 20)} MiB" if isinstance(mem, int) else "memory ?",
             f"timing {header.get('timing') or 'time'}"]
    return [", ".join(words), f"cmdline: {header.get('cmdline')}"]


def render_table(headers, rows, align):
    """Fixed-width lines for rows under headers.

    align is a string with one 'l' or 'r' per column. Trailing spaces are
    trimmed so the text diffs cleanly.
    """
    widths = [len(h) for h in headers]
    for row in rows:
        widths = [max(w, len(cell)) for w, cell in zip(widths, row)]
    lines = [_render_row(headers, widths, align), _render_row(
        ["-" * w for w in widths], widths, align)]
    lines += [_render_row(row, widths, align) for row in rows]
    return lines


def _render_row(cells, widths, align):
    padded = [cell.rjust(w) if a == "r" else cell.ljust(w)
              for cell, w, a in zip(cells, widths, align)]
    return GAP.join(padded).rstrip()
