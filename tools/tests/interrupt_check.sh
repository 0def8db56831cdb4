#!/usr/bin/env bash
# run.sh stopped by SIGTERM mid-benchmark, as timeout(1), CI or a
# parent script stop it: no process it started may be left (the guest
# above all), it exits 4 (interrupted), and it leaves serial.log and a
# results.json marked incomplete. Prints KTAP; make test runs it (tests/matrix.cfg).
#
# usage: interrupt_check.sh DIR   (DIR: a scratch folder, emptied first)
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: interrupt_check.sh DIR}
PYTHON=${PYTHON:-python3}
WAIT_S=300
rm -rf "$dir"
mkdir -p "$dir"

# Every descendant of process $1.
descendants() {
	local c
	for c in $(pgrep -P "$1"); do echo "$c"; descendants "$c"; done
}

"$here/run.sh" --bench tlb --accel tcg --boot kernel --smp 2 --results "$dir/run" -- iters=6 \
	> "$dir/out.txt" 2>&1 &
pid=$!
# Mid-benchmark: the first case has started and the guest is still running.
for ((i = 0; i < WAIT_S * 2; i++)); do
	grep -qa '^# bench tlb cpus=' "$dir/run/serial.log" 2>/dev/null && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.5
done
started=$(grep -ca '^# bench tlb cpus=' "$dir/run/serial.log" 2>/dev/null)
kids=$(descendants "$pid" | tr '\n' ' ')
guest=$(pgrep -f -- "$dir/run/serial.log" | tr '\n' ' ')
kill -TERM "$pid"
wait "$pid"
rc=$?
sleep 1
left=""
for p in $kids $guest; do kill -0 "$p" 2>/dev/null && left+="$p($(tr '\0' ' ' < "/proc/$p/cmdline" | cut -c1-60)) "; done
left+=$(pgrep -f -- "$dir/run/serial.log" | tr '\n' ' ')
incomplete=$("$PYTHON" -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(1 if d.get("incomplete") is True and d.get("interrupted_by") == "SIGTERM" else 0)' \
	"$dir/run/results.json" 2>/dev/null)

n=0
t() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n $2"; else echo "# $3"; echo "not ok $n $2"; fi
}
echo "KTAP version 1"
echo "1..6"
t "$([ "${started:-0}" -ge 1 ] && [ -n "$guest" ] && echo 1)" interrupt_mid_benchmark \
	"no case had started, or no guest was running, when SIGTERM was to be sent (guest: '$guest')"
t "$([ $rc = 4 ] && echo 1)" interrupt_exit_status_4 "run.sh exit $rc, want 4: $(tail -n 3 "$dir/out.txt" | tr '\n' ' ')"
t "$([ -z "$left" ] && echo 1)" interrupt_no_process_left "still running: $left"
t "$([ -s "$dir/run/serial.log" ] && echo 1)" interrupt_serial_log_kept "no serial.log"
t "$([ "$incomplete" = 1 ] && echo 1)" interrupt_results_marked_incomplete \
	"results.json missing or not marked incomplete by SIGTERM"
t "$(grep -q '^run.sh: interrupted by SIGTERM' "$dir/out.txt" && echo 1)" interrupt_said \
	"run.sh did not say it was interrupted"
