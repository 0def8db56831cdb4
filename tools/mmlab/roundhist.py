"""mmlab's ipi rounds beside kvm-unit-tests' ipi rounds: the same statistics from both.

usage: python3 tools/mmlab/roundhist.py [--variant V] LOG...
Each LOG is one boot: mmlab's serial log with round_hist=1 (the ipi
target=one line of V, default naive) or kvm-unit-tests' vmexit ipi output
with tools/peer/kut/ipi-round-hist.patch. Per boot: the mean per round (each
tool's own), the median round and the main mode (1,000-cycle buckets) and
the shares of rounds within 25% of the mode, above 1.25x and above 4x.
"""
from __future__ import annotations

import json
import os
import re
import statistics
import sys

KUT_MEAN = re.compile(r"^\s*ipi ipi (\d+)\s*$")
KUT_HIST = re.compile(r"^\s*ipi_hist ipi (\d+) (\d+)((?: \d+)+)\s*$")


def parse_kut(text):
    """{"mean", "rounds", "step", "hist"} of kvm-unit-tests' ipi, or None without its lines."""
    mean = hist = None
    for line in text.splitlines():
        m = KUT_MEAN.match(line)
        if m:
            mean = int(m.group(1))
        m = KUT_HIST.match(line)
        if m:
            hist = (int(m.group(1)), int(m.group(2)), [int(v) for v in m.group(3).split()])
    if mean is None or hist is None:
        return None
    return {"mean": float(mean), "rounds": hist[0], "step": hist[1], "hist": hist[2]}


def parse_mmlab(text, variant="naive"):
    """The same dict from an mmlab log's ipi target=one line of variant, or None."""
    for line in text.splitlines():
        if not line.startswith("BENCH {"):
            continue
        rec = json.loads(line[len("BENCH "):])
        if (rec.get("bench") == "ipi" and rec.get("variant") == variant
                and rec.get("params", {}).get("target") == "one" and "round_hist" in rec):
            return {"mean": float(rec["mean"]), "rounds": sum(rec["round_hist"]),
                    "step": rec["round_hist_step"], "hist": rec["round_hist"],
                    "median_of_runs": rec["median"], "spin_pause": rec.get("spin_pause", "on")}
    return None


def hist_figures(hist, step):
    """Median round, main mode and the shares around it, from a histogram."""
    n = sum(hist)
    if not n:
        return None
    seen, median = 0, None
    for i, count in enumerate(hist):
        seen += count
        if median is None and seen * 2 >= n:
            median = (i + 0.5) * step
    peak = max(range(len(hist)), key=lambda i: hist[i])
    mode = (peak + 0.5) * step

    def share(lo, hi):
        return sum(c for i, c in enumerate(hist) if lo <= (i + 0.5) * step < hi) / n
    return {"rounds": n, "median": median, "mode": mode,
            "near_mode": share(0.75 * mode, 1.25 * mode), "above_1_25x": share(1.25 * mode, 1e18),
            "above_4x": share(4 * mode, 1e18)}


def boot_row(name, d):
    f = hist_figures(d["hist"], d["step"])
    return {"boot": name, "mean": d["mean"], **f}


def load(path, variant):
    with open(path, errors="replace") as fh:
        text = fh.read()
    d = parse_kut(text)
    if d is not None:
        return "kvm-unit-tests", d
    d = parse_mmlab(text, variant)
    if d is not None:
        return f"mmlab spin_pause={d['spin_pause']}", d
    return None, None


def render(rows_by_tool):
    """Per boot rows, then each tool's medians over boots."""
    out = ["tool | boot | mean/round | median round | main mode | within 25% | >1.25x | >4x"]
    for tool, rows in rows_by_tool.items():
        for r in rows:
            out.append(f"{tool} | {r['boot']} | {r['mean']:,.0f} | {r['median']:,.0f} | "
                       f"{r['mode']:,.0f} | {r['near_mode']:.1%} | {r['above_1_25x']:.1%} | "
                       f"{r['above_4x']:.1%}")
    out.append("")
    out.append("tool | boots | median of boots' means | median of boots' median rounds | "
               "range of medians | mean share within 25%")
    for tool, rows in rows_by_tool.items():
        means = [r["mean"] for r in rows]
        meds = [r["median"] for r in rows]
        out.append(f"{tool} | {len(rows)} | {statistics.median(means):,.0f} | "
                   f"{statistics.median(meds):,.0f} | {min(meds):,.0f}-{max(meds):,.0f} | "
                   f"{statistics.fmean(r['near_mode'] for r in rows):.1%}")
    return out


def main(argv):
    variant, paths = "naive", list(argv)
    if paths[:1] == ["--variant"]:
        variant, paths = paths[1], paths[2:]
    if not paths:
        print(__doc__.split("\n\n")[1].splitlines()[0], file=sys.stderr)
        return 2
    rows = {}
    for path in paths:
        tool, d = load(path, variant)
        if tool is None:
            print(f"roundhist: {path}: no ipi round histogram", file=sys.stderr)
            return 1
        rows.setdefault(tool, []).append(boot_row(os.path.basename(path), d))
    print("\n".join(render(rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
