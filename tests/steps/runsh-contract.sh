# run.sh's contract: the installer's refusal, header tracking, exit statuses,
# crash reports, timeouts, CPU features, the clang build (runsh-contract.ktap).

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
