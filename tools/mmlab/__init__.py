"""mmlab's host tools: from a serial log to results, tables, plots and pages.

One module per concern, one command line: `python3 tools/mmlab COMMAND ...`
(cli.py lists the commands; docs/output.md, "Host tools", describes them).
The pipeline reads a log (log, ktap, records, problems), computes
(stats, rounds, fits, inkernel, groups, sweep, peer, compare, headline), renders
(format, table, merge, plot, svg, dots, forest, headline_html, html) and
writes a run's folder (resultsfile, results); trace, trace_plot and
ipi_steps read trace=1 records; progress and summary serve run.sh and
make test. Modules import each other relatively, so the package runs
from the tree with nothing installed.
"""
