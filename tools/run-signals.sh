# shellcheck shell=bash
# run.sh's clean-up on SIGTERM, SIGINT and SIGHUP (sourced by run.sh).
#
# A parent that stops run.sh (timeout(1), CI, LAVA, a script) signals run.sh
# alone, not its process group: without this the guest (QEMU, Bochs, the
# Linux peer's QEMU) would run on, unwatched, and skew whatever is measured
# after it. On any of the three signals run.sh ends every process it started
# (TERM, then KILL after RUN_STOP_GRACE_S), writes what the run has (the
# guest's serial.log is already on disk; results.json marked "incomplete",
# table.txt and index.html from it) and exits RUN_INTERRUPTED.
#
# Bash runs a trap only between foreground commands, so run.sh waits for
# anything long (make, the guest, the peer) with `wait`, which a signal cuts
# short. Reads run.sh's $results, $mode, $here and $PYTHON.

RUN_INTERRUPTED=4
RUN_STOP_GRACE_S=3

# Every descendant of process $1, parents before their children.
run_descendants() {
	local child
	for child in $(pgrep -P "$1"); do
		echo "$child"
		run_descendants "$child"
	done
}

# TERM to the processes named; KILL to those still there after the grace time.
run_end_processes() {
	local pid alive i
	[ $# -gt 0 ] || return 0
	kill -TERM "$@" 2>/dev/null
	for ((i = 0; i < RUN_STOP_GRACE_S * 10; i++)); do
		alive=()
		for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
		[ ${#alive[@]} -gt 0 ] || return 0
		sleep 0.1
	done
	kill -KILL "${alive[@]}" 2>/dev/null
}

# A benchmark run's partial results: results.json (marked incomplete), table.txt, index.html.
run_write_partial() {
	local sig=$1
	[ -n "${results:-}" ] && [ -s "$results/serial.log" ] || return 0
	[ "$mode" = bench ] || return 0
	"$PYTHON" "$here/tools/mmlab" report --no-plots --incomplete "SIG$sig" \
		"$results/serial.log" "$results" > "$results/report-interrupted.txt" 2>&1
	echo "run.sh: partial results (results.json marked incomplete) in $results" >&"$RUN_STDERR"
}

run_on_signal() {
	local sig=$1 pids
	trap '' TERM INT HUP
	echo "run.sh: interrupted by SIG$sig: ending the guest and every process run.sh started" >&"$RUN_STDERR"
	pids=$(run_descendants $$)
	# shellcheck disable=SC2086 # one pid a word
	run_end_processes $pids
	run_write_partial "$sig"
	echo "run.sh: exit status $RUN_INTERRUPTED (interrupted)" >&"$RUN_STDERR"
	exit "$RUN_INTERRUPTED"
}

# The handler may run inside a command whose stderr is redirected (run_qemu's
# `{ wait; } 2>/dev/null`): it writes to a copy of run.sh's own stderr.
run_trap_signals() {
	exec {RUN_STDERR}>&2
	trap 'run_on_signal TERM' TERM
	trap 'run_on_signal INT' INT
	trap 'run_on_signal HUP' HUP
}
