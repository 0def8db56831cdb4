#!/usr/bin/env bash
# The LAVA job templates in tools/lava/, checked with Debian's lava-dispatcher
# and no server (make test; docs/lab.md): every template validates
# (lava-run --validate, the lab ones against tools/lava/lab-device-example.yaml),
# and the QEMU job runs twice under TCG, a short benchmark run and a few
# self-test suites, after which tools/lava/lava_check.py checks that every
# BENCH result and every self-test case arrived as a LAVA test case with its
# measurement and units. Prints KTAP on stdout; lava-run's output goes to
# $O/test-lava/. Without lava-run (or as non-root, which it needs) every
# case is a skip with the reason.
# usage: O=build bash tests/lava-jobs.sh > build/test-logs/lava.ktap
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$here/$O ;; esac
PYTHON=${PYTHON:-python3}
lava=$here/tools/lava
out=$O/test-lava
rm -rf "$out"
mkdir -p "$out"

cases=()
ncase=0
add() { # NAME OK [DIAGNOSTIC]
	ncase=$((ncase + 1))
	if [ "$2" = 1 ]; then
		cases+=("ok $ncase $1")
	else
		cases+=("not ok $ncase $1")
		[ -z "${3:-}" ] || cases+=("# $3")
	fi
}

finish() {
	echo "KTAP version 1"
	echo "1..$ncase"
	printf '%s\n' "${cases[@]}"
	exit 0
}

skip_all() {
	echo "KTAP version 1"
	echo "1..1"
	echo "ok 1 lava_jobs # SKIP $1"
	exit 0
}

command -v lava-run >/dev/null || skip_all "no lava-run (apt-get install lava-dispatcher)"
[ "$(id -u)" = 0 ] || skip_all "lava-run needs root (it writes /var/lib/lava)"

render() { # TEMPLATE OUT NAME=VALUE...
	local tpl=$1 dst=$2
	shift 2
	"$PYTHON" "$lava/render.py" "$tpl" "$@" > "$dst"
}

# lava-run exits 0 whether or not the job passed: read its results lines.
job_passed() {
	grep -q '"case": "job", "definition": "lava", "result": "pass"' "$1"
}

validate() { # NAME DEVICE JOB
	lava-run --validate --job-id 9100 --output-dir "$out/$1.validate" --device "$2" "$3" \
		> "$out/$1.validate.log" 2>&1
	job_passed "$out/$1.validate.log"
}

kernel_url=file://$O/mmlab.elf
for fw in bios uefi; do
	render "$lava/lab-$fw-job.yaml" "$out/lab-$fw.yaml" DEVICE_TYPE=x86 NAME="mmlab-lab-$fw" \
		CMDLINE="mode=bench format=lava console=ttyS1" KERNEL_URL="$kernel_url" MINUTES=60
	validate "lab-$fw" "$lava/lab-device-example.yaml" "$out/lab-$fw.yaml"
	add "lava_template_lab_${fw}_validates" "$([ $? = 0 ] && echo 1 || echo 0)" \
		"$(grep -m1 -E '"error"|error_msg' "$out/lab-$fw.validate.log" | cut -c1-300)"
done

# run_job NAME CMDLINE MODE: renders the QEMU job, runs it, checks the results.
run_job() {
	local name=$1 cmdline=$2 mode=$3 start end secs
	render "$lava/qemu-job.yaml" "$out/$name.yaml" NAME="mmlab-$name" CMDLINE="$cmdline" \
		KERNEL_URL="$kernel_url" MINUTES=5
	if [ "$mode" = bench ]; then
		validate "$name" "$lava/qemu-device.yaml" "$out/$name.yaml"
		add lava_template_qemu_validates "$([ $? = 0 ] && echo 1 || echo 0)"
	fi
	start=$(date +%s.%N)
	timeout -s KILL 300 lava-run --job-id 9101 --output-dir "$out/$name" \
		--device "$lava/qemu-device.yaml" "$out/$name.yaml" > "$out/$name.log" 2>&1
	end=$(date +%s.%N)
	"$PYTHON" "$lava/lava_check.py" --label "lava_${name//-/_}" --mode "$mode" "$out/$name.log" \
		> "$out/$name.check" 2>&1
	secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", b - a }')
	cases+=("# lava $name: $secs s, $(sed -n 's/^# \(.*LAVA test cases.*\)/\1/p' "$out/$name.check")")
	while read -r verdict num rest; do
		case $verdict in
		ok) add "$rest" 1 ;;
		not) add "${rest#* }" 0 "$(grep -A1 -F "$rest" "$out/$name.check" | sed -n 2p)" ;;
		esac
	done < <(grep -E '^(ok|not ok) ' "$out/$name.check")
}

run_job qemu-bench "mode=bench bench=ipi iters=2 format=lava" bench
run_job qemu-selftest "mode=selftest ktest=boot,console,cmdline,json format=lava" selftest
finish
