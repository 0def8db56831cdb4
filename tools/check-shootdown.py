#!/usr/bin/env python3
"""Checks the tlb shootdown component against the null (mmlab.shootdown), as KTAP.

usage: check-shootdown.py LOG
       check-shootdown.py --run DIR [--smp N] [--timeout SEC]

A design that sends IPIs at N CPUs must show a shootdown component that is
not 0 (exact mode: beyond the A/A's spread; time mode: an interval that
excludes 0). The silent control, which sends the remotes nothing, must
show 0 (within the spread, or an interval holding 0): what the null leaves
is the design's work alone. A design that sends no IPI but works for the
remotes otherwise (lazy queues an entry per remote, and releases its frames
after the call: counted) must not show a component below 0: nothing it
does may fall outside the measurement. The null itself sends no IPI.
--run first boots a short exact tlb run (8 pages, busy and idle remotes) into DIR.
Exit status: 0 every check passed, 1 one failed or nothing was checked, 2 usage.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from mmlab.log import parse_log  # noqa: E402
from mmlab.shootdown import NULL, shootdown_results  # noqa: E402

IPI = "ipi_sent_per_op"
RUN_WORDS = ["pages=8"]


def _sent(records, row):
    """The most IPIs per page the row's design sent at any page count of its CPU count and
    parameters, or None (no record). Per-page counters print 3 decimals: 2 rounds in 8194
    pages read 0.000, so one page count alone cannot say whether a design sends."""
    rest = {k: v for k, v in row["params"].items()}
    got = [r.counters.get(IPI, 0) for r in records
           if (r.bench, r.variant, r.cpus) == (row["bench"], row["design"], row["cpus"])
           and {k: v for k, v in r.params.items() if k != "pages"} == rest]
    return max(got) if got else None


def _null_quiet(records):
    """(name, ok, diag) of the null's records at more than one CPU: no IPI sent."""
    nulls = [r for r in records if r.variant == NULL and r.cpus > 1]
    loud = [r for r in nulls if r.counters.get(IPI, 0)]
    diag = f"{len(loud)} of {len(nulls)} null records sent IPIs" if loud or not nulls else ""
    return "null_sends_no_ipi", bool(nulls) and not loud, diag or None


def _sent_here(records, row):
    """The IPIs per page the row's own record at N CPUs sent (3 decimals), or 0."""
    for r in records:
        if ((r.bench, r.variant, r.cpus) == (row["bench"], row["design"], row["cpus"])
                and r.params.get("pages") == row["pages"]
                and {k: v for k, v in r.params.items() if k != "pages"} == row["params"]):
            return r.counters.get(IPI, 0)
    return 0


def _want(row, sent, sent_here):
    """(what the row must show, whether it does): 0, not 0, or not below 0. A design
    whose IPIs here print as 0.000 per page (2 rounds in 8194 pages) sends too few
    for the spread to resolve: its component must then only not fall below 0."""
    hi = (row["shootdown"] + row["aa_spread"] if row["aa_spread"] is not None
          else row["shootdown_ci"][1])
    if row["silent"]:
        return "0", row["zero"]
    if sent and sent_here:
        return "not 0", not row["zero"]
    return "not below 0", hi >= 0


def checks(records):
    """[(name, ok, diagnostic or None)] of every shootdown row of records."""
    out = [_null_quiet(records)]
    for row in shootdown_results(records):
        sent = _sent(records, row)
        if sent is None or row["zero"] is None:
            continue
        name = "shootdown_{}_{}_{}pages_{}cpus".format(
            row["design"], "_".join(f"{k}{v}" for k, v in sorted(row["params"].items())),
            row["pages"], row["cpus"])
        want, ok = _want(row, sent, _sent_here(records, row))
        spread = (f"A/A spread {row['aa_spread']:.4g}" if row["aa_spread"] is not None
                  else f"95% CI {row['shootdown_ci']}")
        what = ("silent control" if row["silent"] else
                f"IPIs (up to {sent:.4g} per page)" if sent else "no IPI")
        diag = (f"{what}: shootdown {row['shootdown']:.4g} {row['unit']} ({spread}), "
                f"expected {want}")
        out.append((name, ok, diag))
    return out


def ktap(results):
    """KTAP lines of (name, ok, diag) results."""
    lines = ["KTAP version 1", f"1..{len(results)}"]
    for k, (name, ok, diag) in enumerate(results, 1):
        lines.append(f"{'ok' if ok else 'not ok'} {k} {name}")
        if diag and not ok:
            lines.append(f"# {diag}")
    return lines


def boot(outdir, smp, timeout):
    """Runs the short exact tlb run into outdir; returns run.sh's exit status."""
    cmd = [os.path.join(HERE, "..", "run.sh"), "--quiet", "--exact", "--bench", "tlb",
           "--boot", "kernel", "--smp", str(smp), "--timeout", str(timeout),
           "--results", outdir, "--"] + RUN_WORDS
    return subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          check=False).returncode


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log", nargs="?", help="a serial log with tlb results")
    ap.add_argument("--run", metavar="DIR", help="boot a short exact tlb run into DIR first")
    ap.add_argument("--smp", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    args = ap.parse_args(argv)
    if bool(args.log) == bool(args.run):
        ap.print_usage(sys.stderr)
        return 2
    log = args.log
    if args.run:
        rc = boot(args.run, args.smp, args.timeout)
        log = os.path.join(args.run, "serial.log")
        if rc != 0:
            print("\n".join(ktap([("shootdown_run", False, f"run.sh exited {rc}: {log}")])))
            return 1
    results = checks(parse_log(log).benches)
    if len(results) < 2:
        results.append(("shootdown_rows", False, f"no shootdown component in {log}"))
    print("\n".join(ktap(results)))
    return 0 if all(ok for _, ok, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
