"""The one command line of mmlab's host tools: `python3 tools/mmlab COMMAND ...`.

Each command is a module's own main(), given the arguments after the
command's name, so its options, output and exit status are that module's
(`python3 tools/mmlab COMMAND --help`). The table below is the whole list;
`python3 tools/mmlab --help` prints it. A module is imported only when its
command runs, so run.sh's progress line does not load the plotting code.
"""
from __future__ import annotations

import argparse
import importlib

# name: (module, function, argument list prefix, one-line help)
COMMANDS = {
    "report": ("results", "main", ["report"],
               "a log's results.json, table.txt, plots and index.html"),
    "compare": ("results", "main", ["compare"],
                "compare two runs: %%change per result (and a page with --outdir)"),
    "page": ("html", "main", [], "(re)write a results folder's index.html"),
    "log": ("log", "main", [], "parse a serial log and list its contract problems"),
    "summary": ("summary", "main", [], "count KTAP results (and BENCH lines) across logs"),
    "progress": ("progress", "main", [], "one progress line per benchmark, from console lines"),
    "trace": ("trace", "main", [],
              "a trace=1 log to trace.json (-o), a timeline (--plot), or --check a trace.json"),
    "ipi-steps": ("ipi_steps", "main", [], "per-step cycles of a cross-CPU call round, from a trace"),
}


def build_parser():
    """The parser that names the commands; each command parses its own options."""
    parser = argparse.ArgumentParser(
        prog="mmlab", description="mmlab's host tools: results, tables, plots, pages, traces.",
        epilog="Run 'mmlab COMMAND --help' for a command's options.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, (_, _, _, text) in COMMANDS.items():
        sub.add_parser(name, help=text, add_help=False)
    return parser


def main(argv):
    """Run the command argv names with the rest of argv; return its exit status."""
    args = build_parser().parse_args(argv[:1])
    module, function, prefix, _ = COMMANDS[args.command]
    run = getattr(importlib.import_module("." + module, __package__), function)
    return run(prefix + argv[1:])
