#!/usr/bin/env bash
# The whole test suite behind `make test`: host unit tests, host-tool tests,
# the QEMU self-test matrix and run.sh's contract (exit codes, crash reports,
# timeouts). Every step leaves KTAP in $O/test-logs; tools/ktap_summary.py
# reads them all and prints the closing "N passed, N failed, N skipped" line.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$here/$O ;; esac
PYTHON=${PYTHON:-python3}
logs=$O/test-logs
runs=$O/test-runs
contract_runs=$O/test-contract
rm -rf "$logs" "$runs" "$contract_runs"
mkdir -p "$logs" "$runs" "$contract_runs"

note() { echo "test: $*" >&2; }

kvm_usable() { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }

# ---- host --------------------------------------------------------------------

note "host unit tests (ASan/UBSan)"
"$O/test-host" > "$logs/host-unit.ktap" 2>&1

note "host tool tests"
"$PYTHON" "$here/tests/tools/run.py" > "$logs/host-tools.ktap" 2>&1

# ---- QEMU self-test matrix ---------------------------------------------------

# boot NAME RUN.SH-ARGS...: one self-test boot; its serial log is its KTAP.
boot() {
	local name=$1 rc
	shift
	note "boot $name: $*"
	"$here/run.sh" --selftest --quiet --results "$runs/$name" "$@" 2> "$runs/$name.stderr"
	rc=$?
	if [ $rc -ne 0 ]; then
		note "  $name: run.sh exit $rc"
		tail -n 5 "$runs/$name.stderr" >&2
	fi
	return $rc
}

# A KVM boot that the (possibly nested, emulated) KVM itself cannot run is a
# skip with QEMU's reason, never a pass.
boot_kvm() {
	local name=$1 rc reason
	shift
	if ! kvm_usable; then
		printf 'KTAP version 1\n1..1\nok 1 %s # SKIP no usable /dev/kvm\n' "$name" > "$logs/$name.ktap"
		return
	fi
	boot "$name" --accel kvm "$@"
	rc=$?
	reason=$(grep -h -m1 -E 'KVM internal error|emulation failure|this CPU has no x2APIC' \
		"$runs/$name/qemu.log" "$runs/$name/serial.log" 2>/dev/null | head -n 1)
	if [ $rc -ne 0 ] && [ -n "$reason" ]; then
		printf 'KTAP version 1\n1..1\nok 1 %s # SKIP KVM could not run it: %s\n' "$name" "$reason" > "$logs/$name.ktap"
		mv "$runs/$name/serial.log" "$runs/$name/serial.log.skipped"
	fi
}

# Firmware and boot paths.
boot tcg-iso-bios-smp2 --accel tcg --firmware bios --boot iso --smp 2
boot tcg-iso-uefi-smp4 --accel tcg --firmware uefi --boot iso --smp 4
# CPU counts through -kernel (multi-threaded TCG gives more vCPUs than host cores).
for n in 1 2 4 8; do
	boot "tcg-kernel-smp$n" --accel tcg --boot kernel --smp "$n"
done
# Machine types, memory sizes (above 4 GiB included) and forced APIC modes.
boot tcg-q35-smp4 --accel tcg --boot kernel --machine q35 --smp 4
boot tcg-q35-64m --accel tcg --boot kernel --machine q35 --smp 2 --mem 64M
boot tcg-pc-6g --accel tcg --boot kernel --smp 2 --mem 6G
boot tcg-xapic --accel tcg --boot kernel --smp 4 -- apic=xapic
# KVM where /dev/kvm is usable, through -kernel (GRUB is slow under nested KVM).
# The suites that exercise the machine (boot, traps, CPUs, firmware tables):
# on an emulated KVM (kvm_pvm, shadow paging) every first touch of a page
# exits to the host, so the memory-heavy randomized mm suites, which TCG runs
# above, would take many minutes there.
kvm_suites=ktest=boot,traps,smp,acpi,cmdline,json
boot_kvm kvm-kernel-smp2 --boot kernel --smp 2 --timeout 180 -- "$kvm_suites"
boot_kvm kvm-x2apic-smp2 --boot kernel --smp 2 --timeout 180 -- apic=x2apic "$kvm_suites"

# ---- run.sh contract: exit statuses, crash reports, timeouts ---------------------

contract=$logs/runsh-contract.ktap
ncase=0
results=()
check() {
	local name=$1 ok=$2 diag=${3:-}
	ncase=$((ncase + 1))
	if [ "$ok" = 1 ]; then
		results+=("ok $ncase $name")
	else
		results+=("not ok $ncase $name")
		[ -z "$diag" ] || results+=("# $diag")
	fi
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

note "run.sh contract"
expect_run bad-flag 2 --no-such-flag
check bad_flag_named "$(has "$last_out" "no-such-flag")"

expect_run bad-kernel-word 2 --selftest --accel tcg --boot kernel -- bogus=1
check bad_kernel_word_named "$(has "$last_out" "bogus")"
check bad_kernel_word_header_first "$(grep -a -m1 -E '^(MMLAB|mmlab)' "$last_log" | grep -c '^MMLAB {')"

expect_run bad-kernel-value 2 --selftest --accel tcg --boot kernel -- iters=0
check bad_kernel_value_named "$(has "$last_out" "iters")"

# QEMU 7.2's TCG has no x2APIC: forcing it must fail with a clear message, not hang.
if ! grep -qa '"x2apic_cpu":true' "$runs/tcg-kernel-smp1/serial.log"; then
	expect_run x2apic-missing 1 --selftest --accel tcg --boot kernel -- apic=x2apic
	check x2apic_missing_named "$(has "$last_out" "apic=x2apic but this CPU has no x2APIC")"
fi

expect_run hang-timeout 3 --selftest --accel tcg --boot kernel --timeout 5 -- crash=hang
check hang_reported "$(has "$last_out" "timed out")"

for kind in ud de pf gp; do
	expect_run "crash-$kind" 1 --selftest --accel tcg --boot kernel -- "crash=$kind"
	check "crash_${kind}_report" "$(has "$last_log" '^mmlab: EXCEPTION #')"
	check "crash_${kind}_registers" "$(has "$last_log" '^  RAX 0x[0-9a-f]{16}  RBX')"
	check "crash_${kind}_backtrace_named" "$(has "$last_log" "^    #[0-9]+ +0x[0-9a-f]+ <crash_")"
	check "crash_${kind}_trailer" "$(has "$last_log" '^MMLAB-DONE .*"status":"panic"')"
done
check crash_pf_cr2 "$(has "$contract_runs/crash-pf/serial.log" 'CR2 0x0000100000000000')"

expect_run crash-panic 1 --selftest --accel tcg --boot kernel -- crash=panic
check crash_panic_message "$(has "$last_log" '^mmlab: PANIC on CPU 0: ')"

# ---- benchmarks: a short run through the whole pipeline, twice, then compared -----

note "benchmark pipeline (ipi, 2 CPUs, TCG)"
bench_runs=$O/test-bench
rm -rf "$bench_runs"
for side in A B; do
	expect_run "bench-$side" 0 --bench ipi --accel tcg --boot kernel --smp 2 \
		--results "$bench_runs/$side" -- iters=3 format=lava
done
for f in serial.log results.json table.txt; do
	check "bench_output_$f" "$([ -s "$bench_runs/A/$f" ] && echo 1 || echo 0)"
done
check bench_plot_png "$(ls "$bench_runs"/A/plots/ipi-*.png >/dev/null 2>&1 && echo 1 || echo 0)"
check bench_plot_svg "$(ls "$bench_runs"/A/plots/ipi-*.svg >/dev/null 2>&1 && echo 1 || echo 0)"
check bench_table_has_ipi "$(has "$bench_runs/A/table.txt" '^ipi target=all')"
"$PYTHON" "$here/tools/ktap_summary.py" --bench "$bench_runs/A/serial.log" > "$bench_runs/A.bench-check" 2>&1
check bench_lines_well_formed "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 3 "$bench_runs/A.bench-check" | tr '\n' ' ')"
nbench=$(grep -ac '^BENCH {' "$bench_runs/A/serial.log")
nlava=$(grep -acE '^MMLAB-LAVA test_case_id=[a-z0-9_-]+ result=(pass|fail) measurement=[0-9.]+ units=[^ ]+$' "$bench_runs/A/serial.log")
check bench_lava_line_per_result "$([ "$nbench" -gt 0 ] && [ "$nbench" = "$nlava" ] && echo 1 || echo 0)" "BENCH $nbench, LAVA $nlava"
"$here/run.sh" --compare "$bench_runs/A" "$bench_runs/B" > "$bench_runs/compare.txt" 2>&1
check bench_compare_runs "$([ $? = 0 ] && echo 1 || echo 0)"
check bench_compare_change_column "$(has "$bench_runs/compare.txt" '%change')"

{
	echo "KTAP version 1"
	echo "1..$ncase"
	printf '%s\n' "${results[@]}"
} > "$contract"

# ---- totals --------------------------------------------------------------------

shopt -s nullglob
"$PYTHON" "$here/tools/ktap_summary.py" "$logs"/*.ktap "$runs"/*/serial.log
