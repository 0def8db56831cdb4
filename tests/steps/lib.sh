# What every checks step of tests/matrix.cfg shares: tests/matrix.py sources
# this, then the step's script, then calls ktap_write. A step's cases go to
# $logs/$ktap.cases, so several steps can fill one KTAP log, in row order.
set -uo pipefail

bench_runs=$O/test-bench
cases=$logs/$ktap.cases
ncase=0
[ ! -f "$cases" ] || ncase=$(grep -cE '^(not )?ok ' "$cases")

note() { echo "test: $*" >&2; }

# check NAME OK [DIAG]: one case, passed when OK is 1; DIAG explains a failure.
check() {
	local name=$1 ok=$2 diag=${3:-}
	ncase=$((ncase + 1))
	if [ "$ok" = 1 ]; then
		echo "ok $ncase $name" >> "$cases"
	else
		echo "not ok $ncase $name" >> "$cases"
		[ -z "$diag" ] || echo "# $diag" >> "$cases"
	fi
}
# skip_check NAME REASON: a case this machine cannot run, counted as skipped with its reason.
skip_check() {
	ncase=$((ncase + 1))
	echo "ok $ncase $1 # SKIP $2" >> "$cases"
}
# The step's KTAP log: every case its rows have checked so far.
ktap_write() {
	[ -f "$cases" ] || return 0
	{
		echo "KTAP version 1"
		echo "1..$ncase"
		cat "$cases"
	} > "$logs/$ktap.ktap"
}

expect_run() { # NAME EXPECTED-RC RUN.SH-ARGS...: sets last_rc, last_out, last_log
	local name=$1 want=$2
	shift 2
	"$here/run.sh" --quiet --results "$contract_runs/$name" "$@" > "$contract_runs/$name.out" 2>&1
	last_rc=$?
	last_out=$contract_runs/$name.out
	last_log=$contract_runs/$name/serial.log
	check "${name}_exit_status_$want" "$([ $last_rc = "$want" ] && echo 1 || echo 0)" "run.sh exited $last_rc"
}

has() { grep -qaE "$2" "$1" 2>/dev/null && echo 1 || echo 0; }
header() { grep -a -m1 '^MMLAB {' "$runs/$1/serial.log" 2>/dev/null; }
in_header() { header "$1" | grep -qF "$2" && echo 1 || echo 0; }
