# shellcheck shell=bash
# run.sh's --peer flag (sourced by run.sh): after mmlab's own run, boot a
# peer system under the same QEMU settings and merge its results into the
# same results folder (peer-<name>/serial.log; results.json; the table's
# peer columns). Only "linux" exists (tools/peer/linux.sh). Uses run.sh's
# variables: accel, smp, mem, machine, cpu_model, bench, extra, timeout_s,
# results, emulator, mode, timing, rc, verdict, and its qemu_args, run_qemu and
# decode_status for mmlab's further boots.

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

# How many boots of each system (mmlab's first boot is run.sh's own run):
# they alternate, mmlab, peer, mmlab, peer, ..., and the report takes each
# boot's median as one observation of mmlab/peer (docs/output.md).
PEER_BOOTS=${MMLAB_PEER_BOOTS:-3}

# Boots mmlab, then the peer, alternately, PEER_BOOTS times each (mmlab's
# first boot has run already); sets rc to 1 (the peer failed or cannot be
# fetched) or 3 (it hung) unless rc already says worse. The report gets
# every boot's log that has one.
run_peer() {
	local words i
	words=$(peer_words)
	if [ -z "$words" ]; then
		say "--peer $peer: no benchmark of --bench '$bench' has a $peer equivalent (${PEER_BENCHES[*]}): not booted"
		return
	fi
	[[ $PEER_BOOTS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: bad MMLAB_PEER_BOOTS '$PEER_BOOTS'" >&2; rc=2; return; }
	say "peer $peer: $words; $PEER_BOOTS boots of each system, alternating"
	peer_boot "$results/peer-$peer" "$words" --peer || return
	for ((i = 2; i <= PEER_BOOTS; i++)); do
		peer_mmlab_boot "$i" || return
		peer_boot "$results/peer-$peer/boot-$i" "$words" --peer-boot || return
	done
}

# mmlab's boot number $1 in results/boot-$1 (run.sh's own QEMU settings and
# kernel words); run.sh's rc and verdict stay those of its first boot.
# Status 1 when this boot did not pass (the alternation stops there).
peer_mmlab_boot() {
	local main=$results main_rc=$rc main_verdict=$verdict ok
	results=$main/boot-$1
	mkdir -p "$results" || { results=$main; return 1; }
	qemu_args
	run_qemu
	decode_status
	say "mmlab boot $1 of $PEER_BOOTS: $verdict"
	ok=$rc
	[ "$ok" != 0 ] || peer_report_args+=(--boot "$results/serial.log")
	results=$main rc=$main_rc verdict=$main_verdict
	[ "$ok" = 0 ] || echo "run.sh: --peer $peer: mmlab boot $1 did not pass (see $main/boot-$1/serial.log)" >&2
	[ "$ok" = 0 ]
}

# One boot of the peer into dir $1 with mmpeer words $2; its log goes to
# the report with option $3 (--peer for the first, --peer-boot after).
# Status 1 when it did not pass (rc set as run_peer says).
peer_boot() {
	local dir=$1 words=$2 opt=$3 cpu=max status exact=()
	[ "${timing-}" != exact ] || exact=(--exact) # Linux counts instructions too
	[ "$accel" = kvm ] && cpu=host,-arch-capabilities
	[ -z "$cpu_model" ] || cpu=$cpu_model
	# shellcheck disable=SC2086 # words are plain key=value tokens
	O=$O bash "$here/tools/peer/$peer.sh" --out "$dir" --accel "$accel" --smp "$smp" --mem "$mem" \
		--machine "$machine" --cpu "$cpu" --timeout "$timeout_s" "${exact[@]+"${exact[@]}"}" -- $words &
	wait $! # a signal to run.sh cuts the wait short (tools/run-signals.sh)
	status=$?
	[ -s "$dir/serial.log" ] && peer_report_args+=("$opt" "$dir/serial.log")
	case $status in
	0) return 0 ;;
	3) echo "run.sh: --peer $peer: the $peer guest hung or timed out" >&2; rc=3 ;;
	4) echo "run.sh: --peer $peer: the kernel package cannot be fetched (see above)" >&2
	   [ "$rc" != 0 ] || rc=1 ;;
	*) echo "run.sh: --peer $peer failed (status $status; see $dir/serial.log)" >&2
	   [ "$rc" != 0 ] || rc=1 ;;
	esac
	return 1
}
