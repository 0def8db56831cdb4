# shellcheck shell=bash
# run.sh's --peer flag (sourced by run.sh): after mmlab's own run, boot a
# peer system under the same QEMU settings and merge its results into the
# same results folder (peer-<name>/serial.log; results.json; the table's
# peer columns). Only "linux" exists (tools/peer/linux.sh). Uses run.sh's
# variables: accel, smp, mem, machine, cpu_model, bench, extra, timeout_s,
# results, emulator, mode.

PEER_BENCHES=(tlb swapfree faultlock pin) # what mmpeer has an equivalent of
peer_report_args=()

peer_check_args() {
	[ -n "$peer" ] || return 0
	case $peer in linux) ;; *) die_usage "bad --peer '$peer' (linux)" ;; esac
	[ "$mode" = bench ] || die_usage "--peer runs benchmarks: it excludes --selftest"
	[ "$emulator" = qemu ] || die_usage "--peer boots Linux under QEMU: it needs --emulator qemu"
}

# The mmpeer words for this run: the benchmarks of --bench it has, and
# iters= and cpus= (a list of numbers) from the kernel words. Empty when
# --bench names none of them.
peer_words() {
	local words=() want=() b w
	for b in "${PEER_BENCHES[@]}"; do
		if [ -z "$bench" ] || [[ ,$bench, == *,$b,* ]]; then want+=("$b"); fi
	done
	[ ${#want[@]} -gt 0 ] || return 0
	words=("bench=$(IFS=,; echo "${want[*]}")")
	for w in "${extra[@]+"${extra[@]}"}"; do
		[[ $w =~ ^iters=[0-9]+$ || $w =~ ^cpus=[0-9]+(,[0-9]+)*$ ]] && words+=("$w")
	done
	echo "${words[*]}"
}

# Boots the peer; sets rc to 1 (it failed or cannot be fetched) or 3 (it
# hung) unless rc already says worse. The table gets its log either way.
run_peer() {
	local words dir=$results/peer-$peer cpu=max status
	words=$(peer_words)
	if [ -z "$words" ]; then
		say "--peer $peer: no benchmark of --bench '$bench' has a $peer equivalent (${PEER_BENCHES[*]}): not booted"
		return
	fi
	[ "$accel" = kvm ] && cpu=host,-arch-capabilities
	[ -z "$cpu_model" ] || cpu=$cpu_model
	say "peer $peer: $words"
	# shellcheck disable=SC2086 # words are plain key=value tokens
	O=$O bash "$here/tools/peer/$peer.sh" --out "$dir" --accel "$accel" --smp "$smp" --mem "$mem" \
		--machine "$machine" --cpu "$cpu" --timeout "$timeout_s" -- $words &
	wait $! # a signal to run.sh cuts the wait short (tools/run-signals.sh)
	status=$?
	[ -s "$dir/serial.log" ] && peer_report_args=(--peer "$dir/serial.log")
	case $status in
	0) ;;
	3) echo "run.sh: --peer $peer: the $peer guest hung or timed out" >&2; rc=3 ;;
	4) echo "run.sh: --peer $peer: the kernel package cannot be fetched (see above)" >&2
	   [ "$rc" != 0 ] || rc=1 ;;
	*) echo "run.sh: --peer $peer failed (status $status; see $dir/serial.log)" >&2
	   [ "$rc" != 0 ] || rc=1 ;;
	esac
}
