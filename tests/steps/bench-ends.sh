# The benchmark runs' ends: a missed deadline, --compare of bench.sh's two
# runs, samples and interleaving, and runs that cannot give what was asked.

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
nbench=$(grep -ac '^BENCH {' "$bench_runs/A/serial.log")
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
