# Lab machines: what the boots of the matrix showed, and failure paths
# (lab-machines.ktap). Reads the boots' serial logs in $runs.

note "lab machines: PXE, console discovery, clocks, CPUs, memory, LAVA"

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
	# shellcheck disable=SC2086 # the machine is whole words
	expect_run "$1" 0 --bench tlb --accel tcg --boot kernel $numa_2x2x2 --timeout 60 \
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

