# The trace (trace.ktap): ./run.sh --bench tlb --trace --smp 4 writes a
# trace.json that the checker accepts: Chrome trace events, a named track
# per CPU, IPI and ack flows.
# Every case up to 512 pages fits the default buffers; pages=8194's 8194
# rounds per run of the page-by-page designs fit no buffer (docs/output.md).
note "trace: tlb --trace --smp 4"
trace_run=$O/test-trace
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
check trace_run_passed "$([ $trace_rc = 0 ] && echo 1)" "run.sh exit $trace_rc: $(tail -n 2 "$trace_run.out" | tr '\n' ' ')"
check trace_json_checked "$([ $trace_check_rc = 0 ] && echo 1)" "$(head -n 3 "$trace_run.check" | tr '\n' ' ')"
check trace_one_track_per_cpu "$([ "$trace_tracks" = 4 ] && echo 1)" "first case has '$trace_tracks' CPU tracks, want 4"
check trace_nothing_lost "$([ "$trace_lost" = 0 ] && echo 1)" "$trace_lost cases lost records"
check trace_selftest_refused "$([ $trace_st_rc = 2 ] && [ "$trace_st_named" = 1 ] && echo 1)" \
	"run.sh exit $trace_st_rc (want 2), message found $trace_st_named times"
