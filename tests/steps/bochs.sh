# What the Bochs boots of the matrix showed (bochs.ktap), then one benchmark
# and run.sh's own ends under Bochs: trailer statuses, timeout, flags Bochs
# cannot take. The matrix skips the boots and this step without Bochs.
. "$here/tools/run-bochs.sh"

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
