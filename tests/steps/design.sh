# Adding a design is one file; verify fails broken designs.

# The one-file promise with a real design, moved out and back in (tests/design_plugin.sh).
O=$O bash "$here/tests/design_plugin.sh" "$logs/design-plugin" > "$logs/design-plugin.log" 2>&1
dp_rc=$?
check design_plugin "$([ $dp_rc = 0 ] && echo 1 || echo 0)" \
	"$(grep -a '^not ok' "$logs/design-plugin.log" | tr '\n' ' ')"

# The "adding a design" proof (docs/design.md): tests/design_example.c is a
# TLB design with a counter, traits and a promise of its own, which the real
# table never holds. In a scratch copy of the tracked tree without it (the
# file gone), adding it back must be the new file and no changed line (git
# status), and nothing else in the copy may name it or its counter. That copy, built with make TEST_DESIGN=1,
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
	git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base
	# Its counter, ops and functions: named by no code left.
	git grep -lE 'PCPU_TLB_EXAMPLE_ROUNDS|tlb_example_rounds|tlb_(ops|add|flush)_example' \
		-- '*.c' '*.h' '*.S' '*.ld' '*.py' Makefile > "$td_logs/test-design-names.log"
	cp "$here/tests/design_example.c" tests/design_example.c
	git status --porcelain
	git diff --stat | tail -n 1
) > "$logs/test-design-diff.log" 2>&1
check test_design_named_nowhere_else "$([ -f "$logs/test-design-names.log" ] &&
	[ ! -s "$logs/test-design-names.log" ] && echo 1 || echo 0)" \
	"named in: $(tr '\n' ' ' < "$logs/test-design-names.log" 2>/dev/null)"
check test_design_one_file "$([ "$(grep -c . "$logs/test-design-diff.log")" = 1 ] &&
	grep -qx '?? tests/design_example.c' "$logs/test-design-diff.log" && echo 1 || echo 0)" \
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
