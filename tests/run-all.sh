#!/usr/bin/env bash
# The whole test suite behind `make test`: host unit tests, host-tool tests,
# the QEMU self-test matrix and run.sh's contract (exit codes, crash reports,
# timeouts). Every step leaves KTAP in $O/test-logs; `tools/mmlab summary`
# reads them all and prints the closing "N passed, N failed, N skipped" line.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$here/$O ;; esac
PYTHON=${PYTHON:-python3}
# The tools need numpy and scipy, which Debian installs for its own python3
# only. tools/mmlab re-runs itself there; the inline scripts below import the
# package directly, so they need that interpreter from the start.
if ! "$PYTHON" -c 'import numpy, scipy' 2>/dev/null && /usr/bin/python3 -c 'import numpy, scipy' 2>/dev/null; then
	PYTHON=/usr/bin/python3
fi
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

# kernel/smp.c itself, threads as CPUs (tests/host/host_smp.c).
note "host smp tests (kernel/smp.c on threads)"
"$O/test-host-smp" > "$logs/host-smp.ktap" 2>&1

note "host tool tests"
"$PYTHON" "$here/tools/tests/run.py" > "$logs/host-tools.ktap" 2>&1

# docs/design.md's layering rules on this tree's #include lines and mm/'s calls.
note "layering rules"
"$PYTHON" "$here/tools/check-layering.py" --all --ktap > "$logs/layering.ktap" 2>&1

# docs/style.md's machine-checkable rules: no tracked merge leftovers, no
# trailing blanks, tabs for C indentation, 100 columns.
note "tree tidiness"
"$PYTHON" "$here/tools/check-tree.py" --rule leftovers --rule whitespace --rule columns --rule percpu --rule tracker --ktap > "$logs/tree.ktap" 2>&1

# The committed fuzz corpora and crash regression inputs, once each (clang's libFuzzer).
note "fuzz corpus replay"
O=$O bash "$here/tests/fuzz/replay.sh" > "$logs/fuzz-replay.ktap" 2> "$logs/fuzz-replay.stderr"

# The host mm torture (tests/torture/, docs/testing.md): the real mm/ code on
# 4 host threads for about a minute under ASan/UBSan from a fixed seed, with
# a dark CPU in every case and allocation failures of every kind (its last
# case, torture_injection, fails if one never happened)
# (replay: build/test-torture --seed=1 --threads=4). A sanitizer report or a
# non-zero exit with no "not ok" line is a failure too. Then its
# ThreadSanitizer build, the same minute and seed: any data race it reports
# fails the step (TSan's exit 66).
# torture_step NAME BINARY ARGS...
torture_step() {
	local name=$1 bin=$2 rc
	shift 2
	note "host mm torture: $name $*"
	"$bin" "$@" > "$logs/$name.ktap" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && ! grep -q '^not ok' "$logs/$name.ktap"; then
		printf 'not ok 99 %s # exit %d (sanitizer report above?)\n' "$name" $rc >> "$logs/$name.ktap"
	fi
	[ $rc -eq 0 ] || note "  $name: exit $rc (replay: $bin $*)"
}
if make -s -C "$here" O="$O" "$O/test-torture" "$O/test-torture-tsan" > "$logs/torture-build.log" 2>&1; then
	torture_step torture-host "$O/test-torture" --seconds=60 --threads=4 --seed=1
	torture_step torture-tsan "$O/test-torture-tsan" --seconds=60 --threads=4 --seed=1
else
	printf 'KTAP version 1\n1..1\nnot ok 1 torture_build # %s\n' \
		"$(tail -n 3 "$logs/torture-build.log" | tr '\n' ' ')" > "$logs/torture-host.ktap"
fi

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
# GRUB's multiboot (v1) command, which passes only the arguments.
boot tcg-iso-bios-mb1 --accel tcg --firmware bios --boot iso --loader multiboot --smp 2 -- ktest=boot,mb1_cmdline,pic,smp
# CPU counts through -kernel (multi-threaded TCG gives more vCPUs than host cores).
for n in 1 2 4 8; do
	boot "tcg-kernel-smp$n" --accel tcg --boot kernel --smp "$n"
done
# Machine types, memory sizes (above 4 GiB included) and forced APIC modes.
boot tcg-q35-smp4 --accel tcg --boot kernel --machine q35 --smp 4
boot tcg-q35-64m --accel tcg --boot kernel --machine q35 --smp 2 --mem 64M
boot tcg-pc-6g --accel tcg --boot kernel --smp 2 --mem 6G
boot tcg-xapic --accel tcg --boot kernel --smp 4 -- apic=xapic
# Network boot (docs/lab.md): GRUB over PXE from QEMU's DHCP/TFTP server, the
# BIOS boot with every suite, the slower UEFI one with a few.
boot tcg-pxe-bios-smp2 --accel tcg --firmware bios --boot pxe --smp 2
boot tcg-pxe-uefi-smp2 --accel tcg --firmware uefi --boot pxe --smp 2 -- ktest=boot,console,acpi
# Lab-machine conditions QEMU can imitate (checked further in "lab machines"
# below): many CPUs, no HPET, the HPET as the TSC reference, the firmware
# console on COM2 (an ACPI SPCR table), more than 64 GiB of RAM (reserve=off:
# the host commits only what the guest touches) and a UEFI memory map with a
# 3 GiB hole below 4 GiB.
boot tcg-q35-smp32 --accel tcg --boot kernel --machine q35 --smp 32 -- ktest=boot,smpboot,tsc
# Many CPUs: the call, mailbox and per-CPU suites with a whole mask word
# online (deadlines scaled to the vCPUs, the header's deadline_scale).
boot tcg-q35-smp64 --accel tcg --boot kernel --machine q35 --smp 64 --mem 4G -- ktest=smp,percpu
boot tcg-no-hpet --accel tcg --boot kernel --smp 2 --qemu-arg -machine --qemu-arg hpet=off \
	-- ktest=boot,tsc,acpi
# Legal machines QEMU's defaults hide: no ACPI at all (one CPU,
# warned), and a CPU without NX (the page tables cannot say "not executable").
boot tcg-no-acpi --accel tcg --boot kernel --smp 2 --qemu-arg -no-acpi -- ktest=boot,acpi,smp,tsc,pic
boot tcg-no-nx --accel tcg --boot kernel --smp 2 --cpu max,-nx -- ktest=mm,pt,kpt,fault
boot tcg-tsc-hpet --accel tcg --boot kernel --smp 2 -- tsc_calibrate=hpet ktest=boot,tsc,smp
boot tcg-spcr-com2 --accel tcg --boot kernel --smp 2 --spcr ttyS1 -- ktest=boot,console,acpi
boot tcg-mem-72g --accel tcg --boot kernel --smp 2 --mem 72G \
	--qemu-arg -object --qemu-arg memory-backend-ram,id=ram0,size=72G,reserve=off \
	--qemu-arg -machine --qemu-arg memory-backend=ram0 -- ktest=boot,pmm
boot tcg-uefi-holes --accel tcg --firmware uefi --boot iso --smp 2 --mem 6G \
	--qemu-arg -machine --qemu-arg max-ram-below-4g=1G -- ktest=boot,pmm
# NUMA shapes: sockets x cores x threads from CPUID, nodes and distances from
# the SRAT and SLIT (checked in "lab machines"). 2x2x2 over two nodes; 1x4x2
# over four, of unequal sizes, node 2 with CPUs and no memory, node 3 memory
# and no CPUs; SMT off (2x4x1) over two nodes of unequal sizes, no SLIT.
numa_mem() { # N=SIZE...: a RAM backend mN per node
	local i
	for i in "$@"; do
		printf -- '--qemu-arg -object --qemu-arg memory-backend-ram,id=m%s,size=%s ' \
			"${i%%=*}" "${i#*=}"
	done
}
numa() { # -numa OPTIONS...
	local a
	for a in "$@"; do printf -- '--qemu-arg -numa --qemu-arg %s ' "$a"; done
}
numa_suites=ktest=boot,acpi,acpi_numa,topology,pmm_node
# shellcheck disable=SC2046 # the helpers print whole words
boot tcg-numa-2x2x2 --accel tcg --boot kernel --machine q35 --smp 8 --mem 2G --qemu-arg -smp \
	--qemu-arg 8,sockets=2,cores=2,threads=2 $(numa_mem 0=1G 1=1G) $(numa node,nodeid=0,cpus=0-3,memdev=m0 \
	node,nodeid=1,cpus=4-7,memdev=m1 dist,src=0,dst=1,val=20) -- "$numa_suites,mm"
# shellcheck disable=SC2046
boot tcg-numa-1x4x2-4nodes --accel tcg --boot kernel --machine q35 --smp 8 --mem 2G --qemu-arg -smp \
	--qemu-arg 8,sockets=1,cores=4,threads=2 $(numa_mem 0=1G 1=512M 3=512M) \
	$(numa node,nodeid=0,cpus=0-1,memdev=m0 node,nodeid=1,cpus=2-3,memdev=m1 node,nodeid=2,cpus=4-7 \
	node,nodeid=3,memdev=m3 dist,src=0,dst=1,val=12 dist,src=0,dst=2,val=21 dist,src=0,dst=3,val=31 \
	dist,src=1,dst=2,val=13 dist,src=1,dst=3,val=22 dist,src=2,dst=3,val=14) -- "$numa_suites"
# shellcheck disable=SC2046
boot tcg-numa-smt-off --accel tcg --boot kernel --machine q35 --smp 8 --mem 2G --qemu-arg -smp \
	--qemu-arg 8,sockets=2,cores=4,threads=1 $(numa_mem 0=1536M 1=512M) \
	$(numa node,nodeid=0,cpus=0-3,memdev=m0 node,nodeid=1,cpus=4-7,memdev=m1) -- "$numa_suites"
# migrate's self-test on two nodes: pages move node 0 -> 1 through every design.
# shellcheck disable=SC2046
boot tcg-numa-migrate --accel tcg --boot kernel --machine q35 --smp 2 --mem 2G $(numa_mem 0=1G 1=1G) \
	$(numa node,nodeid=0,cpus=0,memdev=m0 node,nodeid=1,cpus=1,memdev=m1) -- ktest=migrate
# KVM where /dev/kvm is usable, through -kernel (GRUB is slow under nested KVM).
# The suites that exercise the machine (boot, traps, CPUs, firmware tables):
# on an emulated KVM (kvm_pvm, shadow paging) every first touch of a page
# exits to the host, so the memory-heavy randomized mm suites, which TCG runs
# above, would take many minutes there.
kvm_suites=ktest=boot,traps,smp,acpi,cmdline,json,kpt
# The first KVM boot also runs the stale-translation detector (both
# shootdown designs must pass it under KVM too). Where KVM's shadow paging
# hides missing flushes its control sees none and the cases skip, saying so;
# the control alone took 110 s on the emulated KVM, hence the timeout.
boot_kvm kvm-kernel-smp2 --boot kernel --smp 2 --timeout 480 -- "$kvm_suites,tlb_stale"
# A local APIC the firmware disabled (apic_fw_off=1 imitates it): KVM lets
# the kernel enable it again, and the run goes on with a warning.
boot_kvm kvm-apic-fw-off --boot kernel --smp 2 --timeout 300 -- apic_fw_off=1 ktest=boot,smp
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
# skip_check NAME REASON: a case this machine cannot run, counted as skipped with its reason.
skip_check() {
	ncase=$((ncase + 1))
	results+=("ok $ncase $1 # SKIP $2")
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

# The kernel mm torture (mode=torture, docs/testing.md): every CPU runs the
# torture's mix over the real mm code, 45 s from seed 1; its verdict is a
# case, and a failure must name the seed, so it can be replayed.
note "kernel mm torture (mode=torture, 45 s, 2 CPUs, seed 1)"
"$here/run.sh" --torture --seconds 45 --quiet --results "$contract_runs/torture-smp2" --boot kernel \
	--accel tcg --smp 2 -- seed=1 > "$contract_runs/torture-smp2.out" 2>&1
tlog=$contract_runs/torture-smp2/serial.log
check torture_kernel_ran "$(has "$tlog" '^# torture: \{"ops": [1-9]')"
# Its dead-CPU injection happened: CPUs went dark and were written off.
check torture_kernel_dead_cpus \
	"$(has "$tlog" '^# torture: \{.*"dead_cpus": [1-9][0-9]*, "written_off": [1-9]')"
check torture_kernel_passed "$(has "$tlog" '^MMLAB-DONE \{.*"status":"pass"')" \
	"$(grep -a '^# torture FAILED' "$tlog" | head -n 1)"
check torture_kernel_failure_names_seed "$(if grep -qa '"status":"fail"' "$tlog"; then
	has "$tlog" '^# torture FAILED \(seed=1\)'; else echo 1; fi)"
# At 4 CPUs too: a caller wedged by another's write-off
# needs a dark CPU and two live callers besides it, which 2 CPUs lack.
note "kernel mm torture (mode=torture, 45 s, 4 CPUs, seed 1)"
"$here/run.sh" --torture --seconds 45 --quiet --results "$contract_runs/torture-smp4" --boot kernel \
	--accel tcg --smp 4 -- seed=1 > "$contract_runs/torture-smp4.out" 2>&1
tlog=$contract_runs/torture-smp4/serial.log
check torture_kernel_smp4_ran "$(has "$tlog" '^# torture: \{"ops": [1-9].*"cpus": 4')"
check torture_kernel_smp4_passed "$(has "$tlog" '^MMLAB-DONE \{.*"status":"pass"')" \
	"$(grep -a '^# torture FAILED' "$tlog" | head -n 1)"
# The torture can fail: its control design (no-remote: remotes never flush)
# must be caught, here within seconds, by a read through a stale translation.
expect_run torture-control 1 --torture --seconds 60 --boot kernel --accel tcg --smp 2 \
	-- seed=1 torture_controls=1
check torture_control_caught "$(has "$last_log" '^not ok 1 torture_no-remote')" \
	"$(grep -a '^# torture FAILED' "$last_log" | head -n 1)"

note "run.sh contract"
# tools/deps.sh (the one installer): as a user who cannot install, on a PATH
# with nothing but `id`, it names the exact apt-get command and fails.
# It runs from a copy in a world-readable folder: the clone may be in a private one.
deps_dir=$(mktemp -d) && mkdir "$deps_dir/bin" && ln -s "$(command -v id)" "$deps_dir/bin/id"
cp "$here/tools/deps.sh" "$deps_dir/" && chmod -R a+rX "$deps_dir"
runuser -u nobody -- env PATH="$deps_dir/bin" /bin/bash "$deps_dir/deps.sh" run > "$contract_runs/deps.out" 2>&1
check deps_nonroot_fails "$([ $? = 1 ] && echo 1 || echo 0)"
check deps_nonroot_names_command "$(has "$contract_runs/deps.out" 'apt-get install -y --no-install-recommends make gcc qemu-system-x86')"
rm -rf "$deps_dir"

# Header changes are seen by make however O= is spelled: run.sh passes an absolute one,
# make test a relative one, and both must rebuild what includes a changed header.
for spelling in absolute relative; do
	o=$O
	[ $spelling = absolute ] || o=$(realpath --relative-to="$here" "$O")
	make -s -C "$here" -q -W mm/pt.h O="$o" "$o/kernel/mm/fault.c.o" > /dev/null 2>&1
	rc=$?
	check "build_tracks_headers_${spelling}_O" "$([ $rc = 1 ] && echo 1 || echo 0)" \
		"make -q -W mm/pt.h O=$o: exit $rc (1: the object is out of date, as it must be)"
done

expect_run bad-flag 2 --no-such-flag
check bad_flag_named "$(has "$last_out" "no-such-flag")"

# ktest= without --selftest: a usage error, not a benchmark run that ignores it.
expect_run ktest-without-selftest 2 --boot kernel -- ktest=boot
check ktest_without_selftest_named "$(has "$last_out" "ktest=boot' picks self-test suites: add --selftest")"

expect_run loader-mb2-with-kernel 2 --selftest --boot kernel --loader multiboot2
check loader_mb2_with_kernel_named "$(has "$last_out" "loader multiboot2 needs --boot iso or pxe")"

expect_run bad-kernel-word 2 --selftest --accel tcg --boot kernel -- bogus=1
check bad_kernel_word_named "$(has "$last_out" "bogus")"
check bad_kernel_word_header_first "$(grep -a -m1 -E '^(MMLAB|mmlab)' "$last_log" | grep -c '^MMLAB {')"

expect_run bad-kernel-value 2 --selftest --accel tcg --boot kernel -- iters=0
check bad_kernel_value_named "$(has "$last_out" "iters")"

expect_run bad-remote-value 2 --bench tlb --accel tcg --boot kernel -- remote=lazy
check bad_remote_value_named "$(has "$last_out" "bad value 'lazy' for 'remote'")"

# QEMU 7.2's TCG has no x2APIC: forcing it must fail with a clear message, not hang.
if ! grep -qa '"x2apic_cpu":true' "$runs/tcg-kernel-smp1/serial.log"; then
	expect_run x2apic-missing 1 --selftest --accel tcg --boot kernel -- apic=x2apic
	check x2apic_missing_named "$(has "$last_out" "apic=x2apic but this CPU has no x2APIC")"
fi

# A CPU without a local APIC: a clear failing end, not the #DF the
# BIOS-programmed 8259 timer used to raise at the first sti, nor a hang.
expect_run no-local-apic 1 --selftest --accel tcg --boot kernel --smp 2 --cpu qemu64,-apic --timeout 120 -- ktest=boot
check no_local_apic_named "$(has "$last_log" '^mmlab: error: this CPU has no usable local APIC')"
check no_local_apic_trailer "$(has "$last_log" '^MMLAB-DONE .*"status":"fail".*local APIC')"
check no_local_apic_no_exception "$([ "$(has "$last_log" 'EXCEPTION')" = 0 ] && echo 1 || echo 0)"
# QEMU 7.2's TCG keeps a disabled APIC off until reset (as a P6 did): the
# kernel's attempt to enable it again fails, and it says so.
expect_run apic-fw-off-tcg 1 --selftest --accel tcg --boot kernel --smp 2 --timeout 120 -- apic_fw_off=1 ktest=boot
check apic_fw_off_tcg_named "$(has "$last_log" '^mmlab: error: this CPU has no usable local APIC .*IA32_APIC_BASE\[11\]')"
if [ -f "$runs/kvm-apic-fw-off/serial.log" ]; then
	check apic_fw_off_kvm_reenabled "$(has "$runs/kvm-apic-fw-off/serial.log" '^# WARN apic: the firmware left the local APIC disabled .*enabled it again')"
fi
# Other hardware mmlab needs, each named: long mode and PAE from the 32-bit
# entry, before they are used; the TSC and MSRs from C. (TCG does not enforce
# CPUID: before, a kernel on a CPU "without" PAE, a TSC or PGE ran and passed.)
for lack in lm:'no long mode' pae:'no PAE' tsc:'no time-stamp counter' pge:'no global pages'; do
	expect_run "cpu-no-${lack%%:*}" 1 --selftest --accel tcg --boot kernel --smp 1 --cpu "qemu64,-${lack%%:*}" --timeout 120 -- ktest=boot
	check "cpu_no_${lack%%:*}_named" "$(has "$last_log" "^mmlab: error: .*${lack#*:} \\(CPUID")"
	check "cpu_no_${lack%%:*}_trailer" "$(has "$last_log" '^MMLAB-DONE .*"status":"fail"')"
done
# Every boot remaps and masks the 8259s and masks the I/O APIC before the first sti.
for r in tcg-kernel-smp2 tcg-iso-bios-smp2 tcg-iso-uefi-smp4; do
	check "pic_masked_${r//-/_}" "$(has "$runs/$r/serial.log" '^# pic: 8259 remapped to 0x20-0x2f, all masked; ioapic 0 at 0xfec00000: 24 entries masked')"
done

# Spinlocks hand over in arrival order unless run.sh asks for spinlock=unfair, as it does
# with more vCPUs than host cores (kernel/spinlock.h); never from the hypervisor's name.
check spinlock_ticket_under_tcg "$(has "$runs/tcg-kernel-smp1/serial.log" '"spinlock":"ticket"')"
if [ "$(nproc)" -lt 8 ]; then
	check spinlock_unfair_overcommitted "$(has "$runs/tcg-kernel-smp8/serial.log" \
		'^MMLAB \{.*"cmdline":"[^"]*spinlock=unfair.*"spinlock":"unfair"')"
fi
if [ -f "$runs/kvm-kernel-smp2/serial.log" ]; then
	check spinlock_ticket_under_kvm "$(has "$runs/kvm-kernel-smp2/serial.log" '"spinlock":"ticket"')"
fi

# One wait policy: every spin-wait turn pauses, under TCG as under KVM
# (arch/x86_64/arch.c); spin_pause=off (a like-for-like peer row) drops it,
# the header says so, and the cross-CPU calls and flushes still pass.
check spin_pause_on_under_tcg "$(has "$runs/tcg-kernel-smp1/serial.log" '"spin_pause":true')"
if [ -f "$runs/kvm-kernel-smp2/serial.log" ]; then
	check spin_pause_on_under_kvm "$(has "$runs/kvm-kernel-smp2/serial.log" '"spin_pause":true')"
fi
expect_run spin-pause-off 0 --selftest --accel tcg --boot kernel --smp 2 -- spin_pause=off ktest=smp,smp_wait,tlb
check spin_pause_forced_off "$(has "$last_log" '"spin_pause":false')"
check spin_pause_forced_off_passed "$(has "$last_log" '^MMLAB-DONE .*"status":"pass"')"
# Exact mode needs every wait to pause: spin_pause=off with it is a usage error.
expect_run exact-spin-pause-off 2 --exact --bench ipi --boot kernel --smp 2 -- spin_pause=off

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

# No multiboot2 framebuffer request (tag type 5): under a BIOS it makes GRUB
# switch video modes through the VGA BIOS, which breaks GRUB under Bochs.
"$PYTHON" "$here/tools/mb2-tags.py" "$O/mmlab.elf" > "$contract_runs/mb2-tags.txt" 2>&1
check mb2_header_valid "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 1 "$contract_runs/mb2-tags.txt")"
check mb2_no_framebuffer_tag "$(grep -q '^5 ' "$contract_runs/mb2-tags.txt" && echo 0 || echo 1)"
check uefi_iso_loaded_by_grub_efi "$(has "$runs/tcg-iso-uefi-smp4/serial.log" '^MMLAB \{.*"firmware":"uefi","boot":"multiboot2","loader":"GRUB')"

# The kernel must build with clang as well as gcc (-Werror in both).
if command -v clang >/dev/null; then
	make -s -C "$here" CC=clang O="$O/clang" "$O/clang/mmlab.elf" > "$logs/clang-build.log" 2>&1
	check clang_build "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 3 "$logs/clang-build.log" | tr '\n' ' ')"
else
	skip_check clang_build "clang is not installed (apt-get install clang), so the clang build was not tried"
fi

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
# ipi at 2 CPUs is measured at one CPU count: no sweep plot in plots/, but the
# page's dot-and-interval chart per group (docs/output.md).
check bench_plot_dots "$(has "$bench_runs/A/index.html" 'svg class="dots"')"
check bench_table_has_ipi "$(has "$bench_runs/A/table.txt" '^ipi target=all')"
check bench_table_has_ipi_polling "$(has "$bench_runs/A/table.txt" '^ipi target=one target_state=polling')"
"$PYTHON" "$here/tools/mmlab" summary --bench "$bench_runs/A/serial.log" > "$bench_runs/A.bench-check" 2>&1
check bench_lines_well_formed "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 3 "$bench_runs/A.bench-check" | tr '\n' ' ')"
nbench=$(grep -ac '^BENCH {' "$bench_runs/A/serial.log")
nlava=$(grep -acE '^MMLAB-LAVA test_case_id=[a-z0-9_-]+ result=(pass|fail) measurement=[0-9.]+ units=[^ ]+$' "$bench_runs/A/serial.log")
check bench_lava_line_per_result "$([ "$nbench" -gt 0 ] && [ "$nbench" = "$nlava" ] && echo 1 || echo 0)" "BENCH $nbench, LAVA $nlava"
# Exact mode (--exact, icount): two boots of the same short run print the same
# BENCH lines, every digit; the header says timing "exact" and no A/A failed.
note "exact mode: two boots, identical figures (ipi, tlb pages=8, 2 CPUs)"
for side in E1 E2; do
	expect_run "bench-exact-$side" 0 --exact --bench ipi,tlb --boot kernel --smp 2 \
		--results "$bench_runs/$side" -- pages=8
done
check bench_exact_header "$(has "$bench_runs/E1/serial.log" '^MMLAB \{.*"timing":"exact"')"
check bench_exact_instructions "$(has "$bench_runs/E1/serial.log" '^BENCH \{"bench":"tlb".*"metric":"instructions_per_page","unit":"instructions"')"
check bench_exact_two_boots_identical "$(grep -a '^BENCH' "$bench_runs/E1/serial.log" > "$bench_runs/E1.bench" &&
	grep -a '^BENCH' "$bench_runs/E2/serial.log" | cmp -s "$bench_runs/E1.bench" - && echo 1 || echo 0)" \
	"the BENCH lines of two exact boots differ: diff $bench_runs/E1/serial.log $bench_runs/E2/serial.log"
# Exact mode: within one boot, the timed runs of a design (each its own
# episode) agree within 0.1%: the frame allocator's state does not move
# (tlb, 1 CPU), nor where the emulator's time slice falls (pagemap, 2 CPUs).
runs_agree() { # SERIAL-LOG: 1 when every BENCH line's samples lie within 0.1%
	grep -a '^BENCH {' "$1" | "$PYTHON" -c '
import json, sys
runs = [json.loads(l[6:])["samples"] for l in sys.stdin]
print(1 if runs and all(max(r) <= min(r) * 1.001 for r in runs) else 0)' 2>/dev/null || echo 0
}
expect_run bench-exact-runs-tlb 0 --exact --bench tlb --boot kernel --smp 2 \
	--results "$bench_runs/E3" -- cpus=1 pages=512 iters=4
check bench_exact_runs_agree_tlb "$(runs_agree "$bench_runs/E3/serial.log")" \
	"a design's runs differ within one exact boot: grep samples $bench_runs/E3/serial.log"
expect_run bench-exact-runs-pagemap 0 --exact --bench pagemap,faultlock --boot kernel --smp 2 \
	--results "$bench_runs/E4" -- cpus=2 iters=4
check bench_exact_runs_agree_pagemap "$(runs_agree "$bench_runs/E4/serial.log")" \
	"a design's runs differ within one exact boot: grep samples $bench_runs/E4/serial.log"
# faultlock's fork writer at 4 CPUs in exact mode: a fixed number of forks per
# run, interleaved with the faulters, so its runs agree and the writer forked.
expect_run bench-exact-runs-faultlock4 0 --exact --bench faultlock --boot kernel --smp 4 \
	--results "$bench_runs/E5" -- cpus=4 iters=4
check bench_exact_runs_agree_faultlock_4cpus "$(runs_agree "$bench_runs/E5/serial.log")" \
	"a design's runs differ within one exact boot: grep samples $bench_runs/E5/serial.log"
check bench_exact_faultlock_writer_forked "$(grep -a '"writer":"fork"' "$bench_runs/E5/serial.log" |
	grep -qa '"writer_ops_per_s":0[,}]' && echo 0 || has "$bench_runs/E5/serial.log" '"writer_ops_per_s":[1-9]')" \
	"a fork writer forked nothing: grep writer_ops_per_s $bench_runs/E5/serial.log"
# migrate on two nodes (CPUs 0-1 / 2-3): pages move node 0 -> 1 while readers
# check every value; verify fails the boot on a wrong count, node or value.
# shellcheck disable=SC2046
expect_run bench-migrate-2nodes 0 --bench migrate --boot kernel --accel tcg --machine q35 --smp 4 \
	--mem 2G $(numa_mem 0=1G 1=1G) $(numa node,nodeid=0,cpus=0-1,memdev=m0 \
	node,nodeid=1,cpus=2-3,memdev=m1) --results "$bench_runs/migrate" -- cpus=2,4 iters=1
for v in naive:1000 batched:31; do
	check "bench_migrate_${v%%:*}_flushes" "$(has "$bench_runs/migrate/serial.log" \
		"^BENCH \\{\"bench\":\"migrate\",\"variant\":\"${v%%:*}\",\"cpus\":4,.*\"dst_node\":1,.*\"flushes_per_kpage\":${v#*:},.*\"reader_wrong_values\":0,")"
done
# Every other benchmark, briefly: each verifies its own exact counts after its runs.
expect_run bench-all 0 --bench tlb,tlbmulti,pin,pagemap,faultlock,swapfree,reclaim --accel tcg --boot kernel --smp 2 \
	--results "$bench_runs/all" -- iters=2 swapfree_mb=32
"$PYTHON" "$here/tools/mmlab" summary --bench "$bench_runs/all/serial.log" > "$bench_runs/all.bench-check" 2>&1
check bench_all_lines_well_formed "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 3 "$bench_runs/all.bench-check" | tr '\n' ' ')"
for b in tlb tlbmulti pin pagemap faultlock swapfree reclaim; do
	check "bench_${b}_reported" "$(has "$bench_runs/all/serial.log" "^BENCH \\{\"bench\":\"$b\"")"
done
# Every benchmark runs its reference design again as the A/A control "aa",
# marked as the control; the busy readers' figures are each variant's own, with their n.
for b in tlb tlbmulti pin pagemap faultlock swapfree reclaim; do
	check "bench_${b}_aa_control" "$(has "$bench_runs/all/serial.log" "^BENCH \\{\"bench\":\"$b\",\"variant\":\"aa\".*\"control\":true,\"control_kind\":\"aa\"")"
done
# reclaim (Gorman's workload) reports the seed's figures, naive one round per page
# swapped out, batched one per batch of 32 (verify checked them exactly; these check
# they are printed).
check bench_reclaim_seed_figures "$(has "$bench_runs/all/serial.log" '^BENCH \{"bench":"reclaim","variant":"naive".*"reader_loss_pct":.*"receiver_irqs_per_sec":.*"tlb_shootdowns_per_op":([0-9.]+),.*"swap_out_pages_per_op":\1,')"
check bench_reclaim_batched_per_32 "$(has "$bench_runs/all/serial.log" '^BENCH \{"bench":"reclaim","variant":"batched".*"tlb_shootdowns_per_op":0\.0[0-9]*,')"
check bench_tlb_readers_n "$(has "$bench_runs/all/serial.log" '"bench":"tlb".*"remote":"busy".*"remote_read_episodes":2,"remote_read_windows":2')"
# Workload fidelity: both remote modes, the readers' loss, the pages sweep's plot,
# pagemap on every CPU, and the faultlock pass vm-scalability names.
all_log=$bench_runs/all/serial.log
check bench_tlb_remote_busy "$(has "$all_log" '"bench":"tlb".*"remote":"busy".*"remote_lost_cycles_per_page"')"
check bench_tlb_remote_idle "$(has "$all_log" '"bench":"tlb".*"remote":"idle"')"
check bench_tlb_pages_sweep_plot "$(ls "$bench_runs"/all/plots/tlb-remote-busy-cpus-2-by-pages*.png >/dev/null 2>&1 && echo 1 || echo 0)"
check bench_pagemap_two_cpus "$(has "$all_log" '"bench":"pagemap","variant":"cached","cpus":2')"
check bench_faultlock_anon_cow_seq "$(has "$all_log" '"fault":"cow-copy".*"vm_scalability_case":"anon-cow-seq"')"
# pin's folio design takes one refcount atomic per 2 MiB folio at 512 pages per call;
# every faultlock design runs the writer case, whose lines carry the writer's rate.
check bench_pin_folio_per_folio "$(has "$all_log" '"bench":"pin","variant":"folio".*"per_call":512,"folio":"2m".*"pin_ref_atomics_per_op":1.000')"
check bench_pin_naive_per_page "$(has "$all_log" '"bench":"pin","variant":"naive".*"per_call":512,"folio":"2m".*"pin_ref_atomics_per_op":512.000')"
for d in naive fixed vma_lock; do
	check "bench_faultlock_writer_$d" "$(has "$all_log" "\"bench\":\"faultlock\",\"variant\":\"$d\".*\"writer\":\"fork\".*\"writer_ops_per_s\":[0-9]")"
done
# The later TLB designs: in the tlb table, and in tlbmulti where gen coalesces.
for v in early_ack gen; do
	check "bench_tlb_variant_$v" "$(has "$all_log" "^BENCH \\{\"bench\":\"tlb\",\"variant\":\"$v\"")"
	check "bench_tlbmulti_variant_$v" "$(has "$all_log" "^BENCH \\{\"bench\":\"tlbmulti\",\"variant\":\"$v\"")"
done
# tlb_ceiling= sets the one flush policy: with 1, each 8-page batch is a full flush on both CPUs
# (2 per 8 pages); with 512, 64 pages stay page by page (2 invalidations per page, no full flush).
tlb_per_op() { # LOG PAGES COUNTER: that counter per page on the batched tlb line for PAGES
	grep -a '^BENCH {"bench":"tlb","variant":"batched"' "$1" | grep -a "\"pages\":$2[,}]" |
		head -n 1 | grep -ao "\"$3\":[0-9.]*" | cut -d: -f2
}
for c in 1 512; do
	expect_run "bench-tlb-ceiling-$c" 0 --bench tlb --accel tcg --boot kernel --smp 2 -- \
		iters=1 cpus=2 tlb_ceiling=$c
	cp "$last_log" "$bench_runs/tlb-ceiling-$c.log" 2>/dev/null
done
v1=$(tlb_per_op "$bench_runs/tlb-ceiling-1.log" 8 tlb_flush_all_per_op)
o1=$(tlb_per_op "$bench_runs/tlb-ceiling-1.log" 8 tlb_flush_one_per_op)
check tlb_ceiling_1_full_flushes "$([ "$v1" = 0.250 ] && [ "$o1" = 0.000 ] && echo 1 || echo 0)" \
	"pages=8: tlb_flush_all_per_op '$v1' (want 0.250), tlb_flush_one_per_op '$o1' (want 0.000)"
v2=$(tlb_per_op "$bench_runs/tlb-ceiling-512.log" 64 tlb_flush_one_per_op)
o2=$(tlb_per_op "$bench_runs/tlb-ceiling-512.log" 64 tlb_flush_all_per_op)
check tlb_ceiling_512_page_by_page "$([ "$v2" = 2.000 ] && [ "$o2" = 0.000 ] && echo 1 || echo 0)" \
	"pages=64: tlb_flush_one_per_op '$v2' (want 2.000), tlb_flush_all_per_op '$o2' (want 0.000)"
# The "adding a design" proof (docs/design.md): tests/design_example.c is a
# TLB design with a counter, traits and a promise of its own, which the real
# table never holds. In a scratch copy of the tracked tree without it (the
# file gone, its line in tlb_designs[] gone), adding it back must be the new
# file plus one inserted line in mm/tlb_designs.c (git diff), and nothing else
# in the copy may name its counter. That copy, built with make TEST_DESIGN=1,
# must reach the host tests (its promises in tlb_model) and the kernel: the
# BENCH lines (verified against its own promises, its counter reported), the table, the plots, and
# the design-table self-tests (tlb_example).
td_out=$O/test-design
td_scratch=$O/test-design-tree
rm -rf "$td_scratch" && mkdir -p "$td_scratch" "$td_out"
td_out=$(cd "$td_out" && pwd)
td_logs=$(cd "$logs" && pwd)
git -C "$here" ls-files -z | (cd "$here" && tar --null -T - -cf -) | tar -C "$td_scratch" -xf -
(
	cd "$td_scratch" || exit 1
	rm tests/design_example.c
	grep -v '&tlb_ops_example\.d,' mm/tlb_designs.c > tlb_designs.tmp && mv tlb_designs.tmp mm/tlb_designs.c
	git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base
	# Its counter and functions: named by no code left (its ops only by the
	# extern declaration under #ifdef MMLAB_TEST_DESIGN beside the table).
	git grep -lE 'PCPU_TLB_EXAMPLE_ROUNDS|tlb_example_rounds|tlb_(ops|add|flush)_example' \
		-- '*.c' '*.h' '*.S' '*.ld' '*.py' Makefile ':!mm/tlb_designs.c' > "$td_logs/test-design-names.log"
	grep -c 'tlb_ops_example' mm/tlb_designs.c >> "$td_logs/test-design-names.log"
	cp "$here/tests/design_example.c" tests/design_example.c
	cp "$here/mm/tlb_designs.c" mm/tlb_designs.c
	git status --porcelain
	git diff --stat | tail -n 1
) > "$logs/test-design-diff.log" 2>&1
check test_design_named_nowhere_else "$([ "$(cat "$logs/test-design-names.log" 2>/dev/null)" = 1 ] &&
	echo 1 || echo 0)" \
	"named in (then lines of tlb_designs.c): $(tr '\n' ' ' < "$logs/test-design-names.log" 2>/dev/null)"
check test_design_one_file_one_line "$([ "$(grep -c . "$logs/test-design-diff.log")" = 3 ] &&
	grep -qx ' M mm/tlb_designs.c' "$logs/test-design-diff.log" &&
	grep -qx '?? tests/design_example.c' "$logs/test-design-diff.log" &&
	grep -qx ' 1 file changed, 1 insertion(+)' "$logs/test-design-diff.log" && echo 1 || echo 0)" \
	"$(tr '\n' ' ' < "$logs/test-design-diff.log")"
if make -s -C "$td_scratch" TEST_DESIGN=1 O="$td_out" all "$td_out/test-host" > "$logs/test-design-build.log" 2>&1; then
	check test_design_build 1
	"$td_out/test-host" > "$logs/test-design-host.ktap" 2>&1
	td_rc=$?
	check test_design_host_tests "$([ $td_rc = 0 ] && echo 1 || echo 0)" \
		"$(grep -a 'not ok' "$logs/test-design-host.ktap" | head -n 2 | tr '\n' ' ')"
	check test_design_host_has_example "$(has "$logs/test-design-host.ktap" '# example, 1 pages')"
	TEST_DESIGN=1 O="$td_out" expect_run bench-test-design 0 --bench tlb --accel tcg --boot kernel \
		--smp 2 -- iters=1 cpus=2 remote=idle
	check test_design_bench_lines "$(has "$last_log" '^BENCH \{"bench":"tlb","variant":"example"')"
	# Its own counter on its lines (one round a page), from its table entry alone.
	check test_design_counter_reported "$(has "$last_log" \
		'^BENCH \{"bench":"tlb","variant":"example".*"tlb_example_rounds_per_op":1\.000[,}]')"
	check test_design_in_table "$(has "$contract_runs/bench-test-design/table.txt" '^ +[0-9]+  example +[0-9]')"
	check test_design_in_plots "$(grep -lq example "$contract_runs"/bench-test-design/plots/tlb-*.svg 2>/dev/null && echo 1 || echo 0)"
	TEST_DESIGN=1 O="$td_out" expect_run selftest-test-design 0 --selftest --accel tcg --boot kernel \
		--smp 2 --timeout 300 -- ktest=tlb
	check test_design_selftest_suite "$(has "$last_log" '^ok [0-9]+ tlb_example\b')"
	check real_table_has_no_example "$(has "$bench_runs/all/serial.log" '"variant":"example"' | tr 01 10)"
else
	check test_design_build 0 "$(tail -n 3 "$logs/test-design-build.log" | tr '\n' ' ')"
fi
# Verify that can fail: make TEST_DESIGN=broken adds deliberately broken
# designs (tests/design_broken.c; beside the ipi and pin tables). Each claims a real
# design's promises and breaks them; the benchmark's verify must fail each one by name
# (at 3 CPUs: two remotes to skip one of, two ipi targets to wait for in turn), caught
# by what the targets' layers count, and no real design may fail beside them.
bd_out=$O/build-broken
if make -s -C "$here" TEST_DESIGN=broken O="$bd_out" all > "$logs/test-design-broken-build.log" 2>&1; then
	check broken_design_build 1
	TEST_DESIGN=broken O="$bd_out" expect_run bench-broken 1 --bench tlb,ipi,pin,reclaim --accel tcg \
		--boot kernel --smp 3 --timeout 1200 -- iters=1 cpus=3 remote=idle target_state=halted
	check broken_tlb_skip_fails_verify "$(has "$last_log" '^# bench FAIL tlb broken_skip cpus=3 .*: broken_skip ')"
	check broken_tlb_early_free_fails_verify "$(has "$last_log" '^# bench FAIL tlb broken_early_free cpus=3 .*: broken_early_free: [0-9]+ gather flushes returned before every target acknowledged')"
	check broken_ipi_batched_fails_verify "$(has "$last_log" '^# bench FAIL ipi broken_batched cpus=3 target=all .*: broken_batched promises 1 calls_posted per 1 round')"
	check broken_ipi_serial_fails_verify "$(has "$last_log" '^# bench FAIL ipi broken_serial cpus=3 target=all .*: broken_serial promises 1 calls_posted per 1 round')"
	check broken_tlb_ack_skip_fails_verify "$(has "$last_log" '^# bench FAIL tlb broken_ack_skip cpus=3 .*: broken_ack_skip: CPU [0-9]+ \(remote\) did 0 invlpg')"
	check broken_tlb_ack_early_fails_verify "$(has "$last_log" '^# bench FAIL tlb broken_ack_early cpus=3 .*: broken_ack_early: CPU [0-9]+ \(remote\) acknowledged [1-9][0-9]* calls .* before its handler returned')"
	check broken_reclaim_skip_fails_verify "$(has "$last_log" '^# bench FAIL reclaim broken_skip cpus=3 .*: broken_skip: [1-9][0-9]* reads saw another page')"
	check broken_reclaim_early_free_seen_reused "$(has "$last_log" '^# bench FAIL reclaim broken_early_free cpus=3 .*: broken_early_free: [1-9][0-9]* reads of a new owner.s data through stale translations')"
	check broken_pin_always_fails_verify "$(has "$last_log" '^# bench FAIL pin broken_always cpus=3 .*: broken_always: ')"
	real_fails=$(grep -aE '^# bench FAIL ' "$last_log" | grep -vcE '^# bench FAIL [a-z]+ broken_')
	check broken_build_real_designs_pass "$([ "$real_fails" = 0 ] && echo 1 || echo 0)" "$real_fails real design(s) failed"
	# pin_watch=1: the flag line's writes counted by write watches, not by the design
	# (broken_uncounted counts none). The traps shift exact figures: A/A not judged here.
	TEST_DESIGN=broken O="$bd_out" expect_run bench-broken-pin-watch 1 --bench pin --accel tcg \
		--boot kernel --smp 3 --timeout 600 -- iters=1 cpus=3 pin_watch=1
	check broken_pin_uncounted_fails_verify "$(has "$last_log" '^# bench FAIL pin broken_uncounted cpus=3 .*: broken_uncounted: the flag line.s write watches saw [1-9][0-9]* writes for [0-9]+ calls on 3 CPUs \(the design counted 0 ')"
	check broken_pin_always_fails_watch "$(has "$last_log" '^# bench FAIL pin broken_always cpus=3 .*: broken_always: the flag line.s write watches saw ')"
	real_fails=$(grep -aE '^# bench FAIL ' "$last_log" | grep -vE '^# bench FAIL [a-z]+ broken_' | grep -vcE 'A/A median differs')
	check broken_pin_watch_real_designs_pass "$([ "$real_fails" = 0 ] && echo 1 || echo 0)" "$real_fails real design(s) failed"
else
	check broken_design_build 0 "$(tail -n 3 "$logs/test-design-broken-build.log" | tr '\n' ' ')"
fi
# A CPU that misses a shootdown deadline (timeout_ms=1 under TCG): named, out of the run, the
# cases that need it fail, and the run ends with status fail (exit 1), not a pass that freed frames.
# Time mode: 4 vCPU threads on fewer host cores miss 1 ms; under icount every CPU answers in time.
expect_run bench-tlb-timeout 1 --timing --bench tlb --accel tcg --boot kernel --smp 4 -- timeout_ms=1 iters=1
check bench_tlb_timeout_names_cpu "$(has "$last_log" 'did not answer within 1 ms: out of the run')"
check bench_tlb_timeout_case_fails "$(has "$last_log" '^# bench FAIL tlb ')"
check bench_tlb_timeout_run_fails "$(has "$last_log" '^MMLAB-DONE .*"status":"fail"')"
"$here/run.sh" --compare "$bench_runs/A" "$bench_runs/B" --results "$bench_runs/compare" > "$bench_runs/compare.txt" 2>&1
check bench_compare_runs "$([ $? = 0 ] && echo 1 || echo 0)"
check bench_compare_change_column "$(has "$bench_runs/compare.txt" '%change')"
# Every result carries its samples, the variants' runs alternate,
# and runs that cannot give what was asked for end failing, naming why.
nsamples=$(grep -ac '^BENCH {.*"samples":\[[0-9]' "$bench_runs/A/serial.log")
check bench_every_line_has_samples "$([ "$nbench" -gt 0 ] && [ "$nbench" = "$nsamples" ] && echo 1 || echo 0)" "BENCH $nbench, with samples $nsamples"
"$PYTHON" - "$here/tools" "$bench_runs/A/serial.log" "$bench_runs/all/serial.log" > "$bench_runs/interleave.check" 2>&1 <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from mmlab.log import parse_log
from mmlab.records import interleaving_problems
bad = []
for path in sys.argv[2:]:
    recs = parse_log(path).benches
    bad += [f"{path}: no seq" for r in recs if not r.seq] + interleaving_problems(recs)
print("\n".join(bad) or "interleaved")
sys.exit(1 if bad else 0)
PY
check bench_variants_interleaved "$([ $? = 0 ] && echo 1 || echo 0)" "$(head -n 2 "$bench_runs/interleave.check" | tr '\n' ' ')"
check bench_control_rows_marked "$(has "$bench_runs/A/table.txt" 'expected near 1 \(2 CPUs: one target')"
expect_run bench-cpus-beyond-online 2 --bench ipi --accel tcg --boot kernel --smp 2 -- cpus=64
check bench_cpus_beyond_online_named "$(has "$last_log" '^mmlab: error: cpus=64: only 2 CPUs are online')"
check bench_cpus_beyond_online_status "$(has "$last_log" '^MMLAB-DONE .*"status":"usage"')"
# pages= naming no case of a benchmark with that parameter is a usage error, never an empty run.
expect_run bench-pages-no-case 2 --bench tlb --accel tcg --boot kernel --smp 1 -- pages=7
check bench_pages_no_case_named "$(has "$last_log" '^mmlab: error: pages=: no case of tlb has that page count')"
expect_run bench-words-contradict 2 --bench swapfree --accel tcg --boot kernel --smp 2 -- swap_mb=4 swapfree_mb=8
check bench_words_contradict_named "$(has "$last_log" "'swapfree_mb=8' contradicts 'swap_mb=4'")"
# ipi needs 2 CPUs: on 1 nothing runs, and a run with no result fails.
expect_run bench-no-result 1 --bench ipi --accel tcg --boot kernel --smp 1 -- iters=2
check bench_no_result_reason "$(has "$last_log" '^MMLAB-DONE .*"skipped":1,"status":"fail","reason":"no benchmark produced a result"')"

{
	echo "KTAP version 1"
	echo "1..$ncase"
	printf '%s\n' "${results[@]}"
} > "$contract"

# ---- results pages in a real browser --------------------------------------------------

# The page of the bench-all run and the --compare page above, rendered by headless
# Chromium: every plot decoded, a section per benchmark, a screenshot kept in
# $logs/results-page/, and a copy with one plot corrupted must be caught.
note "results pages in headless Chromium"
"$PYTHON" "$here/tools/tests/page_check.py" "$logs/results-page" "$bench_runs/all" \
	"$bench_runs/compare" "$bench_runs/A" > "$logs/results-page.ktap" 2> "$logs/results-page.stderr"

# ---- run.sh stopped by SIGTERM mid-benchmark ------------------------------------------

# As timeout(1) or CI stop it: exit status 4, no process left behind (the guest
# above all), serial.log kept and results.json marked incomplete.
note "run.sh interrupted by SIGTERM mid-benchmark"
PYTHON=$PYTHON bash "$here/tools/tests/interrupt_check.sh" "$O/test-interrupt" \
	> "$logs/interrupt.ktap" 2> "$logs/interrupt.stderr"

# ---- lab machines: what the boots above showed, and failure paths ----

note "lab machines: PXE, console discovery, clocks, CPUs, memory, LAVA"
lab=$logs/lab-machines.ktap
ncase=0
results=()
header() { grep -a -m1 '^MMLAB {' "$runs/$1/serial.log" 2>/dev/null; }
in_header() { header "$1" | grep -qF "$2" && echo 1 || echo 0; }

check grub_mb1_loaded "$(in_header tcg-iso-bios-mb1 '"boot":"multiboot1","loader":"GRUB')"
check grub_mb1_cmdline_whole "$(in_header tcg-iso-bios-mb1 '"cmdline":"mode=selftest ktest=boot,mb1_cmdline,pic,smp"')"
check grub_mb1_selftests_ran "$(has "$runs/tcg-iso-bios-mb1/serial.log" '^ok [0-9]+ mb1_cmdline\b')"
check qemu_kernel_image_path_left_out "$(has "$runs/tcg-kernel-smp2/serial.log" '^# boot: the loader put the image path ".*/mmlab\.elf" first')"
check pxe_bios_loaded_by_grub "$(in_header tcg-pxe-bios-smp2 '"boot":"multiboot2","loader":"GRUB')"
check pxe_uefi_firmware "$(in_header tcg-pxe-uefi-smp2 '"firmware":"uefi"')"
check smp32_all_online "$(has "$runs/tcg-q35-smp32/serial.log" '^# smp: 32 CPUs online')"
us=$(header tcg-q35-smp32 | sed -n 's/.*"ap_bringup_us":\([0-9]*\).*/\1/p')
check smp32_bringup_under_10s "$([ -n "$us" ] && [ "$us" -lt 10000000 ] && echo 1 || echo 0)" "ap_bringup_us=$us"
check no_hpet_reported "$(has "$runs/tcg-no-hpet/serial.log" '^# acpi: .*; no hpet;')"
check no_hpet_tsc_from_pit "$(in_header tcg-no-hpet '"tsc_method":"pit"')"
check no_acpi_one_cpu_warned "$(has "$runs/tcg-no-acpi/serial.log" '^# WARN acpi: no RSDP found: running on one CPU')"
check no_acpi_rsdp_test_skipped "$(has "$runs/tcg-no-acpi/serial.log" 'ok [0-9]+ test_boot_rsdp # SKIP the firmware offers no ACPI RSDP')"
check no_acpi_tables_test_skipped "$(has "$runs/tcg-no-acpi/serial.log" 'ok [0-9]+ test_acpi_qemu_tables # SKIP')"
check no_acpi_pic_masked "$(has "$runs/tcg-no-acpi/serial.log" '^# pic: 8259 remapped to 0x20-0x2f, all masked; no ioapic in the MADT')"
check no_nx_in_header "$(in_header tcg-no-nx '"nx":false')"
check tsc_from_hpet "$(in_header tcg-tsc-hpet '"tsc_method":"hpet"')"
# A TSC that is not invariant is in the header and warned about, never silent.
# TCG's default CPU model (qemu64) has no invtsc, so the TCG boots above have
# one; every boot whose header says so must warn.
inv=$(grep -al '"tsc_invariant":false' "$runs"/*/serial.log 2>/dev/null)
if [ -z "$inv" ]; then
	skip_check tsc_not_invariant_warned "no boot had a non-invariant TSC (every CPU model had invtsc)"
else
	unwarned=$(grep -aL '^# WARN tsc: not invariant' $inv | tr '\n' ' ')
	check tsc_not_invariant_warned "$([ -z "$unwarned" ] && echo 1 || echo 0)" "no warning in: $unwarned"
fi
expect_run hpet-forced-missing 1 --selftest --accel tcg --boot kernel --qemu-arg -machine \
	--qemu-arg hpet=off -- tsc_calibrate=hpet ktest=json
check hpet_forced_missing_named "$(has "$last_log" '^# WARN tsc: no HPET to calibrate against')"

check numa_2x2x2_header "$(in_header tcg-numa-2x2x2 '"topology":{"cpus":[[0,0,0,0],[0,0,0,1],[0,0,1,0],[0,0,1,1],[1,1,0,0],[1,1,0,1],[1,1,1,0],[1,1,1,1]],"nodes":2,"distance":[[10,20],[20,10]]}')"
check numa_4nodes_header "$(in_header tcg-numa-1x4x2-4nodes '"cpus":[[0,0,0,0],[0,0,0,1],[1,0,1,0],[1,0,1,1],[2,0,2,0],[2,0,2,1],[2,0,3,0],[2,0,3,1]],"nodes":4,"distance":[[10,12,21,31],[12,10,13,22],[21,13,10,14],[31,22,14,10]]')"
check numa_cpuless_node_served_nearest "$(has "$runs/tcg-numa-1x4x2-4nodes/serial.log" '# node 2 has no memory: refused, then served by node 1\b')"
check numa_memory_only_node_used "$(has "$runs/tcg-numa-1x4x2-4nodes/serial.log" '# node 3: the mm, its tables and 64 pages all from node 3\b')"
check numa_smt_off_header "$(in_header tcg-numa-smt-off '"cpus":[[0,0,0,0],[0,0,1,0],[0,0,2,0],[0,0,3,0],[1,1,0,0],[1,1,1,0],[1,1,2,0],[1,1,3,0]],"nodes":2,"distance":null')"
# placement= on the 2x2x2 two-node machine: at 4 CPUs spread and pack take different CPUs, in their order.
placement_run() { # NAME WORDS...: tlb at 4 CPUs on the 2x2x2 machine with the kernel WORDS
	# shellcheck disable=SC2046
	expect_run "$1" 0 --bench tlb --accel tcg --boot kernel --machine q35 --smp 8 --mem 2G --timeout 60 \
		--qemu-arg -smp --qemu-arg 8,sockets=2,cores=2,threads=2 $(numa_mem 0=1G 1=1G) \
		$(numa node,nodeid=0,cpus=0-3,memdev=m0 node,nodeid=1,cpus=4-7,memdev=m1 dist,src=0,dst=1,val=20) \
		-- cpus=4 pages=8 iters=1 "${@:2}"
}
every_bench() { # LOG ERE: 1 when LOG has BENCH lines and each matches ERE
	local n m
	n=$(grep -ac '^BENCH ' "$1")
	m=$(grep -a '^BENCH ' "$1" | grep -cE "$2")
	[ "$n" -gt 0 ] && [ "$n" = "$m" ] && echo 1 || echo 0
}
placement_run bench-placement-spread placement=spread
check bench_placement_spread_order "$(every_bench "$last_log" '"placement":"spread","cpu_list":\[0,4,2,6\],"where":\[\[0,0,0,0\],\[1,1,0,0\],\[0,0,1,0\],\[1,1,1,0\]\]')"
check bench_mem_node_local_is_node_0 "$(every_bench "$last_log" '"mem_node_asked":"local","mem_node":0,"params"')"
placement_run bench-placement-pack placement=pack mem_node=remote
check bench_placement_pack_order "$(every_bench "$last_log" '"placement":"pack","cpu_list":\[0,2,1,3\],"where":\[\[0,0,0,0\],\[0,0,1,0\],\[0,0,0,1\],\[0,0,1,1\]\]')"
check bench_mem_node_remote_is_node_1 "$(every_bench "$last_log" '"mem_node_asked":"remote","mem_node":1,"params"')"
check bench_placement_in_header "$(has "$last_log" '^MMLAB \{.*"timing":"exact","placement":"pack"')"
expect_run bench-placement-bad-word 2 --bench tlb --accel tcg --boot kernel --smp 1 --timeout 60 -- placement=numa
check bench_placement_bad_word_named "$(has "$last_log" "^mmlab: error: bad value 'numa' for 'placement' \(expected spread\|pack\|smt\|node\)")"
check spcr_com2_used "$(in_header tcg-spcr-com2 '"console":{"port":"ttyS1","address":"io:0x2f8","source":"spcr"')"
check spcr_com2_nothing_on_com1 "$([ -s "$runs/tcg-spcr-com2/com1.log" ] && echo 0 || echo 1)"
expect_run spcr-overridden 0 --selftest --accel tcg --boot kernel --spcr ttyS1 -- console=ttyS0 ktest=json
check spcr_overridden_by_console "$(has "$last_log" '"source":"cmdline".*console= overrides it')"
expect_run spcr-mmio-absent 0 --selftest --accel tcg --boot kernel --spcr mmio32:0xfebf0000 -- ktest=json
check spcr_mmio_absent_falls_back "$(has "$last_log" '^# WARN console: SPCR UART mmio32:0xfebf0000 did not answer')"
expect_run spcr-mmio-high 0 --selftest --accel tcg --boot kernel --spcr mmio32:0x4000000000 -- ktest=json
check spcr_mmio_high_reported "$(has "$last_log" '"note":"SPCR UART mmio32:0x4000000000.*not used')"

expect_run ap-nostart 0 --selftest --accel tcg --boot kernel --smp 4 -- ap_nostart=1 ktest=boot,json
check ap_nostart_named "$(has "$last_log" '^# WARN smp: CPU with APIC ID 3 did not come online')"
check ap_nostart_run_goes_on "$(has "$last_log" '"cpus":3,')"

# More than 64 GiB: the header's RAM is the sum of the usable regions, and the
# direct map (RAM plus the uncached gaps below 4 GiB) reaches the highest one.
"$PYTHON" - "$runs/tcg-mem-72g/serial.log" > "$O/test-mem-72g.check" 2>&1 <<'PY'
import json, re, sys
log = open(sys.argv[1], errors="replace").read()
hdr = json.loads(re.search(r"^MMLAB (\{.*\})$", log, re.M).group(1))
usable = [(int(a, 16), int(b, 16) + 1) for a, b in
          re.findall(r"^#   mem 0x([0-9a-f]+)-0x([0-9a-f]+) usable$", log, re.M)]
mm = re.search(r"direct map (\d+) MiB .*uncached (\d+) MiB", log)
total, top = sum(b - a for a, b in usable), max(b for a, b in usable)
mapped = (int(mm.group(1)) + int(mm.group(2))) << 20
print(f"mem_bytes {hdr['mem_bytes']} usable {total} top {top:#x} mapped {mapped:#x}")
sys.exit(0 if hdr["mem_bytes"] == total > 64 << 30 and mapped >= top else 1)
PY
check mem_72g_sizes_add_up "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 1 "$O/test-mem-72g.check")"

{
	echo "KTAP version 1"
	echo "1..$ncase"
	printf '%s\n' "${results[@]}"
} > "$lab"

# ---- Linux peer: Debian's stock kernel in the same run -----------------

# tools/peer/linux.sh fetches the kernel and busybox-static with apt-get
# download: where they cannot be fetched the step is a skip with the reason.
# Otherwise a short tlb run (2 page counts, 2 runs) must boot, pass, and
# print BENCH lines that parse, name the system and carry the in-kernel
# figures of its traced pass with the exact calls; the table merge and
# the usage errors are checked without another boot.
note "Linux peer: fetch, boot under TCG, a short tlb run"
peer_ktap=$logs/peer-linux.ktap
peer_dir=$O/test-peer
rm -rf "$peer_dir" "$peer_dir.report" "$peer_dir-hang"
O=$O bash "$here/tools/peer/linux.sh" --fetch-only > "$O/test-peer.fetch" 2>&1
peer_fetch_rc=$?
if [ $peer_fetch_rc = 4 ]; then
	printf 'KTAP version 1\n1..1\nok 1 peer_linux # SKIP %s\n' \
		"$(tail -n 1 "$O/test-peer.fetch" | tr -d '#')" > "$peer_ktap"
else
	ncase=0
	results=()
	check peer_fetched "$([ $peer_fetch_rc = 0 ] && echo 1 || echo 0)" "$(tail -n 1 "$O/test-peer.fetch")"
	O=$O bash "$here/tools/peer/linux.sh" --out "$peer_dir" --accel tcg --smp 2 --timeout 600 \
		-- bench=tlb iters=2 warmup=1 pages=1,32 cpus=2 > "$O/test-peer.out" 2>&1
	rc=$?
	check peer_boot_passed "$([ $rc = 0 ] && echo 1 || echo 0)" "linux.sh exit $rc: $(tail -n 1 "$O/test-peer.out")"
	"$PYTHON" "$here/tools/mmlab" log "$peer_dir/serial.log" > "$O/test-peer.parse" 2>&1
	check peer_lines_parse "$([ $? = 0 ] && echo 1 || echo 0)" "$(tail -n 2 "$O/test-peer.parse" | tr '\n' ' ')"
	nlines=$(grep -ac '^BENCH {' "$peer_dir/serial.log" 2>/dev/null)
	nsys=$(grep -ac '^BENCH {.*"system":"linux-[^"]*"' "$peer_dir/serial.log" 2>/dev/null)
	check peer_tlb_four_results "$([ "$nlines" = 4 ] && echo 1 || echo 0)" "$nlines BENCH lines (2 page counts x 2 variants)"
	check peer_results_name_system "$([ "$nsys" = "$nlines" ] && echo 1 || echo 0)" "$nsys of $nlines"
	check peer_trailer_pass "$(has "$peer_dir/serial.log" '^MMLAB-DONE \{"passed":4,"failed":0,"skipped":0,"status":"pass"\}')"
	# The traced pass (tools/peer/src/peer_ftrace.c): at 2 CPUs with a busy reader each
	# madvise call zaps, flushes and sends IPIs exactly once: batched 1 call for the 32
	# pages, naive 32 calls for 32 pages. A function the guest cannot trace (its note
	# line) or no tracefs makes its checks skips; a member missing without a note fails.
	"$PYTHON" - "$peer_dir/serial.log" > "$O/test-peer-kernel.check" 2>&1 <<'PY'
import json, re, sys
log = open(sys.argv[1], errors="replace").read()
off = re.search(r"^# bench tlb: kernel trace: not timed inside the kernel: (.*)$", log, re.M)
untraceable = set(re.findall(r"^# bench tlb: kernel trace: (\w+) is not in "
                             r"available_filter_functions", log, re.M))
lines = [json.loads(m) for m in re.findall(r"^BENCH (\{.*\})$", log, re.M)]
at32 = {o["variant"]: o for o in lines if o["cpus"] == 2 and o["params"].get("pages") == 32}
for name, fn in (("zap", "zap_page_range_single"), ("flush", "flush_tlb_mm_range"),
                 ("remote", "native_flush_tlb_multi")):
    for variant in ("batched", "naive"):
        case = f"peer_kernel_{name}_once_per_call_{variant}32"
        key = f"kernel_{fn}_calls_per_madvise"
        got = at32.get(variant, {}).get(key)
        if off or fn in untraceable:
            print(case, "skip", off.group(1) if off else f"{fn} is not traceable in the guest")
        elif got == 1 and at32[variant].get(f"kernel_{fn}_cycles_per_call", 0) > 0:
            print(case, "pass")
        else:
            print(case, "fail", f"{key} is {got} on the {variant} pages=32 line, want 1")
# The tracer's cost, calibrated on getppid() (peer_tlb.c tlb_trace_calibrate()):
# both figures, and the function traced, on every line.
with_overhead = [o for o in lines
                 if isinstance(o.get("kernel_trace_overhead_cycles_per_traced_call"), float)
                 and isinstance(o.get("kernel_trace_empty_call_cycles"), float)
                 and 0 < o["kernel_trace_empty_call_cycles"]
                 and o.get("kernel_trace_calibrated_on")]
print("peer_kernel_overhead_on_every_line",
      "skip no in-kernel timing" if off else
      "pass" if len(with_overhead) == len(lines) == 4 else
      f"fail {len(with_overhead)} of {len(lines)} lines carry the calibrated tracing overhead")
PY
	peer_kernel_rc=$?
	check peer_kernel_figures_read "$([ $peer_kernel_rc = 0 ] && echo 1 || echo 0)" \
		"$(tail -n 1 "$O/test-peer-kernel.check")"
	while read -r name verdict reason; do
		case $verdict in
		pass) check "$name" 1 ;;
		skip) skip_check "$name" "$reason" ;;
		*) check "$name" 0 "$reason" ;;
		esac
	done < <(grep '^peer_kernel_' "$O/test-peer-kernel.check")
	"$PYTHON" "$here/tools/mmlab" report --no-plots --peer "$peer_dir/serial.log" \
		"$bench_runs/A/serial.log" "$peer_dir.report" > /dev/null 2>&1
	check peer_merged_report "$([ $? = 0 ] && echo 1 || echo 0)"
	check peer_table_section "$(has "$peer_dir.report/table.txt" '^tlb pages=32 remote=busy: .*linux-[0-9]')"
	O=$O bash "$here/tools/peer/linux.sh" --out "$peer_dir-hang" --accel tcg --smp 2 --timeout 2 \
		-- bench=tlb > "$O/test-peer.hang" 2>&1
	check peer_timeout_exit_3 "$([ $? = 3 ] && echo 1 || echo 0)"
	check peer_timeout_named "$(has "$O/test-peer.hang" '^peer: the Linux guest timed out after 2s')"
	empty=$(mktemp -d)
	MMLAB_PEER_CACHE=$empty MMLAB_PEER_META=linux-image-no-such-meta bash "$here/tools/peer/linux.sh" \
		--fetch-only > "$O/test-peer.nopkg" 2>&1
	check peer_no_package_exit_4 "$([ $? = 4 ] && echo 1 || echo 0)"
	check peer_no_package_named "$(has "$O/test-peer.nopkg" '^peer: no kernel package available: .*linux-image-no-such-meta')"
	rm -rf "$empty"
	"${MMLAB_PEER_CACHE:-$O/peer}/mmpeer" bogus=1 > "$O/test-peer.usage" 2>&1
	check peer_bad_word_exit_2 "$([ $? = 2 ] && echo 1 || echo 0)"
	check peer_bad_word_named "$(has "$O/test-peer.usage" "^mmlab: error: mmpeer: unknown word 'bogus=1'")"
	expect_run peer-bad-name 2 --bench tlb --peer foo
	check peer_bad_name_named "$(has "$last_out" "bad --peer 'foo' \\(linux\\)")"
	{
		echo "KTAP version 1"
		echo "1..$ncase"
		printf '%s\n' "${results[@]}"
	} > "$peer_ktap"
fi

# ---- Bochs: a second x86 implementation -----------------------------------------------

# The GRUB ISO under Bochs 2.7 (tools/run-bochs.sh): its own CPU, APIC, PIC,
# HPET and BIOS. Every suite through GRUB multiboot2 (2 CPUs) and multiboot1
# (4 CPUs), a CPU model whose CPUID leaf 0x15 disagrees with its TSC, one
# benchmark, and the runner's own ends (trailer statuses, timeout, flags
# Bochs cannot take). About 2 minutes of Bochs on a quiet 2-core host.
bochs_ktap=$logs/bochs.ktap
. "$here/tools/run-bochs.sh"
bochs_lacks=$(bochs_missing_packages | tr '\n' ' ')
if [ -n "$bochs_lacks" ]; then
	printf 'KTAP version 1\n1..1\nok 1 bochs # SKIP Bochs is not installed (missing: %s)\n' \
		"${bochs_lacks% }" > "$bochs_ktap"
else
	note "Bochs: self-tests through GRUB multiboot2 and multiboot1, a benchmark, run.sh's ends"
	boot bochs-mb2-smp2 --emulator bochs --smp 2
	boot bochs-mb1-smp4 --emulator bochs --smp 4 --loader multiboot -- timeout_ms=1000
	boot bochs-icelake-smp4 --emulator bochs --smp 4 --cpu corei7_icelake_u -- ktest=boot,tsc,smp
	ncase=0
	results=()
	for r in bochs-mb2-smp2 bochs-mb1-smp4 bochs-icelake-smp4; do
		id=${r//-/_}
		check "${id}_no_hypervisor" "$(in_header "$r" '"hypervisor":null')"
		check "${id}_pic_masked" "$(has "$runs/$r/serial.log" '^# pic: 8259 remapped to 0x20-0x2f, all masked')"
		# clock sync=none: the TSC counts exactly at Bochs' ips (1% for the HPET's rounding).
		hz=$(header "$r" | sed -n 's/.*"tsc_hz":\([0-9]*\).*/\1/p')
		check "${id}_tsc_at_ips" "$([ -n "$hz" ] && [ $((hz / (BOCHS_IPS / 100))) = 100 ] && echo 1 || echo 0)" \
			"tsc_hz=$hz, ips $BOCHS_IPS"
	done
	check bochs_mb2_skylake "$(in_header bochs-mb2-smp2 '"cpu_model":"Intel(R) Core(TM) i7-7800X')"
	check bochs_mb2_loaded_by_grub "$(in_header bochs-mb2-smp2 '"boot":"multiboot2","loader":"GRUB')"
	check bochs_mb2_two_cpus "$(has "$runs/bochs-mb2-smp2/serial.log" '^# smp: 2 CPUs online')"
	check bochs_mb1_loaded_by_grub "$(in_header bochs-mb1-smp4 '"boot":"multiboot1","loader":"GRUB')"
	check bochs_mb1_cmdline_whole "$(in_header bochs-mb1-smp4 '"cmdline":"mode=selftest timeout_ms=1000"')"
	check bochs_mb1_four_cpus "$(has "$runs/bochs-mb1-smp4/serial.log" '^# smp: 4 CPUs online')"
	check bochs_icelake_model "$(in_header bochs-icelake-smp4 '"cpu_model":"QuadCore Intel Core i7-1065G7')"
	check bochs_icelake_leaf_15h_replaced "$(has "$runs/bochs-icelake-smp4/serial.log" \
		'^# WARN tsc: cpuid-15h says 1497600000 Hz but the hpet measures [0-9]+ Hz: using the hpet')"

	expect_run bochs-bench-ipi 0 --emulator bochs --bench ipi --smp 2 -- iters=3
	for f in serial.log results.json table.txt; do
		check "bochs_bench_output_$f" "$([ -s "$contract_runs/bochs-bench-ipi/$f" ] && echo 1 || echo 0)"
	done
	check bochs_bench_table_has_ipi "$(has "$contract_runs/bochs-bench-ipi/table.txt" '^ipi target=all')"
	expect_run bochs-panic 1 --emulator bochs --selftest --smp 2 -- crash=panic
	check bochs_panic_reported "$(has "$last_out" 'crashed \(kernel panic')"
	expect_run bochs-usage 2 --emulator bochs --selftest --smp 2 -- bogus=1
	check bochs_usage_named "$(has "$last_out" "unknown option 'bogus'")"
	expect_run bochs-hang 3 --emulator bochs --selftest --smp 2 --timeout 15 -- crash=hang
	check bochs_hang_reported "$(has "$last_out" 'timed out after 15s')"
	check bochs_hang_stopped "$(pgrep -f "bochs-bin -q -f $contract_runs/bochs-hang/bochsrc" >/dev/null && echo 0 || echo 1)"
	for flag in "--accel kvm" "--boot kernel" "--boot pxe" "--firmware uefi" "--machine q35" \
		"--qemu-arg -s" "--spcr ttyS1"; do
		id=$(echo "${flag#--}" | tr -c 'a-zA-Z0-9\n' _)
		expect_run "bochs-flag-$id" 2 --emulator bochs --selftest $flag
		check "bochs_flag_${id}_named" "$(has "$last_out" "bochs cannot take ${flag%% *}")"
	done
	expect_run bochs-flag-cpu 2 --emulator bochs --selftest --cpu qemu64
	check bochs_flag_cpu_named "$(has "$last_out" "bad --cpu 'qemu64' for Bochs; its models: .*corei7_skylake_x")"
	{
		echo "KTAP version 1"
		echo "1..$ncase"
		printf '%s\n' "${results[@]}"
	} > "$bochs_ktap"
fi

# ---- trace ----------------------------------------------------------------------------

# ./run.sh --bench tlb --trace --smp 4 writes a trace.json that the checker
# accepts: Chrome trace events, a named track per CPU, IPI and ack flows.
# Every case up to 512 pages fits the default buffers; pages=8194's 8194
# rounds per run of the page-by-page designs fit no buffer (docs/output.md).
note "trace: tlb --trace --smp 4"
trace_run=$O/test-trace
trace_ktap=$logs/trace.ktap
rm -rf "$trace_run" "$trace_run-selftest"
"$here/run.sh" --bench tlb --trace --accel tcg --boot kernel --smp 4 --quiet --results "$trace_run" \
	-- iters=2 cpus=4 remote=idle pages=1,8,32,33,34,64,512 > "$trace_run.out" 2>&1
trace_rc=$?
"$PYTHON" "$here/tools/mmlab" trace --check "$trace_run/trace.json" --min-flows 1 \
	> "$trace_run.check" 2>&1
trace_check_rc=$?
trace_tracks=$("$PYTHON" -c 'import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
print(len({e["tid"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name" and e["pid"] == 1}))' \
	"$trace_run/trace.json" 2>/dev/null)
trace_lost=$(grep -a '^TRACE-END' "$trace_run/serial.log" 2>/dev/null | grep -vc '"lost":0,')
# trace=1 with the self-tests is a usage error naming the word, never ignored.
"$here/run.sh" --selftest --accel tcg --boot kernel --smp 1 --quiet --results "$trace_run-selftest" \
	-- trace=1 ktest=trace > "$trace_run-selftest.out" 2>&1
trace_st_rc=$?
trace_st_named=$(grep -c 'mmlab: error: trace=1: tracing records benchmarks' "$trace_run-selftest.out")
trace_ok() { [ "$1" = 1 ] && echo "ok $2 $3" || { echo "not ok $2 $3"; echo "# $4"; }; }
{
	echo "KTAP version 1"
	echo "1..5"
	trace_ok "$([ $trace_rc = 0 ] && echo 1)" 1 trace_run_passed "run.sh exit $trace_rc: $(tail -n 2 "$trace_run.out" | tr '\n' ' ')"
	trace_ok "$([ $trace_check_rc = 0 ] && echo 1)" 2 trace_json_checked "$(head -n 3 "$trace_run.check" | tr '\n' ' ')"
	trace_ok "$([ "$trace_tracks" = 4 ] && echo 1)" 3 trace_one_track_per_cpu "first case has '$trace_tracks' CPU tracks, want 4"
	trace_ok "$([ "$trace_lost" = 0 ] && echo 1)" 4 trace_nothing_lost "$trace_lost cases lost records"
	trace_ok "$([ $trace_st_rc = 2 ] && [ "$trace_st_named" = 1 ] && echo 1)" 5 trace_selftest_refused "run.sh exit $trace_st_rc (want 2), message found $trace_st_named times"
} > "$trace_ktap"

note "LAVA job templates (lava-run, TCG)"
O=$O PYTHON=$PYTHON bash "$here/tests/lava-jobs.sh" > "$logs/lava-jobs.ktap" 2> "$logs/lava-jobs.stderr"

# ---- totals --------------------------------------------------------------------

shopt -s nullglob
"$PYTHON" "$here/tools/mmlab" summary "$logs"/*.ktap "$runs"/*/serial.log
