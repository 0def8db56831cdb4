# A short benchmark run through the whole pipeline, twice (compared in
# bench-ends.sh); exact mode; every benchmark briefly; the flush ceiling.

note "benchmark pipeline (ipi, 2 CPUs, TCG)"
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
# shellcheck disable=SC2086 # the machine is whole words
expect_run bench-migrate-2nodes 0 --bench migrate --boot kernel --accel tcg $numa_2nodes_smp4 \
	--results "$bench_runs/migrate" -- cpus=2,4 iters=1
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
# (2 for each 8 pages); with 512, 64 pages stay page by page (2 invalidations per page, no full flush).
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
