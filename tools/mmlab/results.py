"""Turns an mmlab serial log into results, and compares two runs.

usage: mmlab report [--gnuplot PROG] [--no-plots] [--full-table]
                    [--incomplete REASON] [--peer PEERLOG]...
                    [--boot LOG]... [--peer-boot PEERLOG]... LOG OUTDIR
       mmlab compare [--noise-factor F] [--outdir DIR] A B

report writes OUTDIR/results.json, OUTDIR/table.txt and
OUTDIR/plots/<bench>[-<params>].png and .svg, then prints the headline
(mmlab.headline: at most 40 lines) and the paths of table.txt and
index.html; --full-table prints the whole table.txt instead. --incomplete
REASON marks results.json "incomplete" (run.sh writes one so when it is
interrupted: the log stops mid-run). Problems
in the log go to standard error (and results.json). Without gnuplot the
plots are skipped with a message and the rest is still written. --peer adds
the results of a peer system's log (tools/peer/linux.sh: BENCH lines with
"system") to results.json (and its header and trailer under "peers") and
to the table's peer columns; its problems and failures count as the run's.
compare takes two results folders, results.json files or serial logs and
prints a table of %change per result, positive meaning B is better; with
--outdir it also writes DIR/compare.txt and the comparison page DIR/index.html.
report also writes OUTDIR/index.html, the run's results page (mmlab.html).

Exit status: 0 done; 1 the log has problems or its trailer reports a
failure (report), or a run could not be read (compare); 2 usage error.
"""
import argparse
import json
import os
import sys

from .compare import render_compare, render_compare_page
from .headline import render_headline
from .log import parse_log
from .html import PAGE_NAME, write_run_page
from .likeforlike import like_for_like, render_like_for_like
from .peer import MMLAB, boot_ratios, record_system, render_boot_ratios, split_systems
from .plot import GnuplotMissing, plot_groups, plotted_groups
from .problems import Problem
from .records import trailer_failed
from .resultsfile import RESULTS_NAME, load_run, write_results_json
from .stats import NOISE_FACTOR
from .table import render_failures, render_results_table

PROG = "mmlab"
TABLE_NAME = "table.txt"
PLOTS_DIR = "plots"
COMPARE_NAME = "compare.txt"
# Failed cases the terminal lists after the headline (table.txt has them all).
MAX_FAILURES = 5


def cmd_report(args):
    """Write results.json, table.txt and plots for a log; print the table."""
    log = parse_log(args.log)
    if any(p.kind == "unreadable" for p in log.problems):
        return _fail(f"{args.log}: {log.problems[0].message}", 2)
    own = split_systems(log.benches)[0]
    peers = [_merge_peer(log, path) for path in args.peer]
    ratios, lfl = _boot_ratios(own, log.benches, args) if args.peer else (None, None)
    os.makedirs(args.outdir, exist_ok=True)
    results_path = os.path.join(args.outdir, RESULTS_NAME)
    write_results_json(log, results_path, peers=peers or None, boot_ratios=ratios,
                       like_for_like=lfl)
    if args.incomplete:
        _mark_incomplete(results_path, args.incomplete)
    table = render_results_table(log.benches, log.header, log.problems, log.failures,
                                 log.trailer)
    boots = []
    if args.boot or args.peer_boot:
        system = next((record_system(r) for r in log.benches if record_system(r) != MMLAB), "peer")
        boots = render_boot_ratios(ratios, system.split("-")[0]) + render_like_for_like(lfl)
        table += "\n".join(boots) + "\n"
    headline = render_headline(log.benches)
    table_path = os.path.join(args.outdir, TABLE_NAME)
    with open(table_path, "w") as f:
        f.write("\n".join(headline) + "\n\n" + table)
    if not args.no_plots:
        _write_plots(log, os.path.join(args.outdir, PLOTS_DIR), args.gnuplot)
    page = write_run_page(log, args.outdir)
    # The boots' mmlab/peer ratios are the peer run's result: the terminal shows them too.
    short = headline + boots + _failures(log)
    sys.stdout.write(table if args.full_table else "\n".join(short) + "\n")
    print(f"Every design, every parameter set: {table_path}\nResults page: {page}")
    return _report_status(log)


def _failures(log):
    """The failed cases, at most MAX_FAILURES of them, for the terminal."""
    lines = render_failures(log.failures)
    if len(lines) > MAX_FAILURES + 2:
        more = len(lines) - MAX_FAILURES - 2
        lines = lines[:MAX_FAILURES + 2] + [f"  ... and {more} more in {TABLE_NAME}"]
    return lines


def _mark_incomplete(path, reason):
    """Mark results.json as the partial results of a run stopped by reason (e.g. SIGTERM)."""
    with open(path) as f:
        doc = json.load(f)
    doc["incomplete"] = True
    doc["interrupted_by"] = reason
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def _merge_peer(log, path):
    """Add a peer log's results, failures and problems to log; its summary for results.json."""
    peer = parse_log(path)
    for p in peer.problems:
        log.problems.append(Problem(p.line, p.kind, f"{path}: {p.message}", p.part))
    own = [r for r in peer.benches if record_system(r) == MMLAB]
    if own:
        log.problems.append(Problem(own[0].line, "peer-no-system", f"{path}: {len(own)} result(s) "
                                    "of a peer log carry no \"system\"", "bench"))
    log.benches += [r for r in peer.benches if record_system(r) != MMLAB]
    log.failures += [{**f, "source": path} for f in peer.failures]
    if peer.trailer is not None and trailer_failed(peer.trailer):
        log.problems.append(Problem(peer.trailer_line, "peer-failed",
                                    f"{path}: the peer run reports failure: {peer.trailer}",
                                    "trailer"))
    return {"source": path, "header": peer.header, "trailer": peer.trailer}


def _boot_ratios(own, merged, args):
    """(boot_ratios, like_for_like): the boot as the unit, this log and --boot, the first --peer and --peer-boot."""
    peer_first = [r for r in merged if record_system(r) != MMLAB]
    mmlab_boots = [own] + [[r for r in parse_log(p).benches if record_system(r) == MMLAB]
                           for p in args.boot]
    peer_boots = [peer_first] + [parse_log(p).benches for p in args.peer_boot]
    return boot_ratios(mmlab_boots, peer_boots), like_for_like(mmlab_boots, peer_boots)


def _write_plots(log, plot_dir, gnuplot):
    """Draw the plots; a missing gnuplot is reported, not fatal."""
    pairs = plotted_groups(log.benches)
    if not pairs:
        return
    subtitle = (log.header or {}).get("cpu_model") or ""
    try:
        plot_groups([g for g, _ in pairs], plot_dir, gnuplot, subtitle, [s for _, s in pairs])
    except GnuplotMissing:
        print(f"{PROG}: {gnuplot} not found, plots skipped "
              "(install gnuplot-nox); results.json and table.txt are written",
              file=sys.stderr)
    except RuntimeError as e:
        print(f"{PROG}: plots failed: {e}", file=sys.stderr)


def _report_status(log):
    """Print the log's problems and a failing trailer to stderr; return the exit code."""
    for p in log.problems:
        print(f"{PROG}: {log.path}: {p}", file=sys.stderr)
    failed = log.trailer is not None and trailer_failed(log.trailer)
    if failed:
        print(f"{PROG}: {log.path}: the run reports failure: {log.trailer}", file=sys.stderr)
    return 1 if log.problems or failed else 0


def cmd_compare(args):
    """Print the comparison of runs A and B."""
    runs = [load_run(path) for path in (args.a, args.b)]
    for run in runs:
        for p in run.problems:
            print(f"{PROG}: {run.path}: {p}", file=sys.stderr)
    if any(p.kind == "unreadable" for run in runs for p in run.problems):
        return 1
    boots = [[load_run(p).benches for p in paths] for paths in (args.a_boot, args.b_boot)]
    text = render_compare(runs[0], runs[1], args.noise_factor, *boots)
    sys.stdout.write(text)
    if args.outdir:
        os.makedirs(args.outdir, exist_ok=True)
        with open(os.path.join(args.outdir, COMPARE_NAME), "w") as f:
            f.write(text)
        with open(os.path.join(args.outdir, PAGE_NAME), "w") as f:
            f.write(render_compare_page(runs[0], runs[1], args.noise_factor, *boots))
    return 0


def _fail(message, status):
    print(f"{PROG}: {message}", file=sys.stderr)
    return status


def build_parser():
    """The command-line parser with its two subcommands."""
    parser = argparse.ArgumentParser(prog="mmlab",
                                     description="Tables, plots and comparisons of mmlab runs.")
    sub = parser.add_subparsers(dest="command", metavar="{report,compare}")
    sub.required = True
    report = sub.add_parser("report", help="write results.json, table.txt and plots for a log")
    report.add_argument("log", metavar="LOG", help="serial log")
    report.add_argument("outdir", metavar="OUTDIR", help="results folder to write")
    report.add_argument("--gnuplot", default="gnuplot", metavar="PROG",
                        help="gnuplot program (default: gnuplot)")
    report.add_argument("--no-plots", action="store_true", help="do not draw plots")
    report.add_argument("--full-table", action="store_true",
                        help="print the whole table.txt, not the headline")
    report.add_argument("--incomplete", metavar="REASON",
                        help="mark results.json incomplete: the run was stopped (REASON)")
    report.add_argument("--peer", action="append", default=[], metavar="PEERLOG",
                        help="a peer system's serial log to merge (repeatable)")
    report.add_argument("--boot", action="append", default=[], metavar="LOG",
                        help="another mmlab boot's log, for mmlab/peer over boots (repeatable)")
    report.add_argument("--peer-boot", action="append", default=[], metavar="PEERLOG",
                        help="another boot of the peer, for mmlab/peer over boots (repeatable)")
    report.set_defaults(func=cmd_report)
    compare = sub.add_parser("compare", help="compare two runs, %%change per result")
    compare.add_argument("a", metavar="A", help="results folder, results.json or serial log")
    compare.add_argument("b", metavar="B", help="results folder, results.json or serial log")
    compare.add_argument("--noise-factor", type=float, default=NOISE_FACTOR, metavar="F",
                         help="mark changes above F x the larger ±stddev%% "
                              f"(default {NOISE_FACTOR:g})")
    compare.add_argument("--a-boot", action="append", default=[], metavar="RUN",
                         help="another boot of A (repeatable): the boot is the unit")
    compare.add_argument("--b-boot", action="append", default=[], metavar="RUN",
                         help="another boot of B (repeatable)")
    compare.add_argument("--outdir", metavar="DIR",
                         help="also write DIR/compare.txt and DIR/index.html (the page)")
    compare.set_defaults(func=cmd_compare)
    return parser


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    args = build_parser().parse_args(argv)
    return args.func(args)

