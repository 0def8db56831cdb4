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
