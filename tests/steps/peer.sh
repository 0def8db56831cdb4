# The Linux peer: Debian's stock kernel in the same run (peer-linux.ktap).

# tools/peer/linux.sh fetches the kernel and busybox-static with apt-get
# download: where they cannot be fetched the step is a skip with the reason.
# Otherwise a short tlb run (2 page counts, 2 runs) must boot, pass, and
# print BENCH lines that parse, name the system and carry the in-kernel
# figures of its traced pass with the exact calls; the table merge and
# the usage errors are checked without another boot.
note "Linux peer: fetch, boot under TCG, a short tlb run"
peer_dir=$O/test-peer
rm -rf "$peer_dir" "$peer_dir.report" "$peer_dir-hang"
O=$O bash "$here/tools/peer/linux.sh" --fetch-only > "$O/test-peer.fetch" 2>&1
peer_fetch_rc=$?
if [ $peer_fetch_rc = 4 ]; then
	skip_check peer_linux "$(tail -n 1 "$O/test-peer.fetch" | tr -d '#')"
else
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
fi
