# Bochs as run.sh's second x86 implementation (./run.sh --emulator bochs).
# Sourced by run.sh, whose variables ($results, $smp, $mem, $cpu_model,
# $timeout_s, $quiet, ...) it reads; it sets what decode_status reads.
# Bochs has no isa-debug-exit: the guest's status comes from the
# MMLAB-DONE trailer in serial.log, and the runner ends Bochs itself.

BOCHS_BIOS=/usr/share/bochs/BIOS-bochs-latest
BOCHS_VGABIOS=/usr/share/vgabios/vgabios.bin
BOCHS_CPU_DEFAULT=corei7_skylake_x
# Bochs emulates every CPU on one host thread: --smp's default of one CPU
# per host CPU would only make a run slower.
BOCHS_SMP_DEFAULT=2
# Emulated instructions per second of emulated time (clock sync=none): the
# guest's TSC, PIT, HPET and APIC timer all count at this rate whatever the
# host's load, so guest timeouts never fire because the host is busy.
# 50 M keeps 2 CPUs near real time on a 2020s host core.
BOCHS_IPS=50000000
# Bochs holds at most this much guest RAM in host memory (its own limit);
# a larger guest pages the rest through a file Bochs manages.
BOCHS_HOST_MB_MAX=2048

# The Debian packages a Bochs run needs that are not installed (tools/deps.sh
# holds the list; a caller of this file sets $here to the tree).
bochs_missing_packages() {
	bash "$here/tools/deps.sh" bochs --check
}

# What QEMU offers and Bochs has no use for: a usage error naming the flag.
bochs_check_args() {
	local bad=""
	[ "$accel" = auto ] || bad="--accel $accel (Bochs emulates the CPU itself)"
	[ "$boot" = iso ] || bad="--boot $boot (Bochs boots the GRUB ISO only)"
	[ "$firmware" = bios ] || bad="--firmware $firmware (Bochs has its BIOS only)"
	[ "$machine" = pc ] || bad="--machine $machine (Bochs emulates an i440FX PC)"
	[ -z "$spcr" ] || bad="--spcr (needs QEMU's -acpitable)"
	[ ${#qemu_extra[@]} -eq 0 ] || bad="--qemu-arg"
	[ -z "$bad" ] || die_usage "--emulator bochs cannot take $bad"
	if [ -n "$smp" ] && [ "$smp" -gt 254 ]; then
		die_usage "bad --smp '$smp': Bochs emulates at most 254 CPUs"
	fi
	if [ "$(bochs_mem_mb)" -gt 1048576 ]; then
		die_usage "bad --mem '$mem': Bochs emulates at most 1 TiB (1048576M)"
	fi
	# Before the build when Bochs is there already; bochs_args checks again after installing.
	if command -v bochs >/dev/null; then bochs_pick_cpu; fi
}

# The CPU models this Bochs build knows (bochs --help cpu), one per line.
bochs_models() {
	bochs --help cpu 2>&1 | sed -n '/^Supported CPU models:/,$p' | grep -E '^[a-z][a-z0-9_]*$'
}

# Sets $cpu_model to the Bochs model asked for (or the default); a model
# Bochs does not know is a usage error listing the ones it does.
bochs_pick_cpu() {
	cpu_model=${cpu_model:-$BOCHS_CPU_DEFAULT}
	bochs_models | grep -qx "$cpu_model" ||
		die_usage "bad --cpu '$cpu_model' for Bochs; its models: $(bochs_models | tr '\n' ' ')"
}

# $mem (e.g. 512M, 4G) in MiB.
bochs_mem_mb() {
	case $mem in
	*G) echo $((${mem%G} * 1024)) ;;
	*M) echo "${mem%M}" ;;
	esac
}

# The run's bochsrc. The display is rfb, the one library in Debian's bochs
# package that needs neither an X server (bochs-wx, bochs-x, bochs-sdl) nor
# a terminal (bochs-term): a VNC server on the first free port from 5900,
# waiting for nobody (timeout=0). Sound is off
# (the ALSA driver aborts Bochs on a host without a sound card); a triple
# fault or a Bochs panic ends Bochs with the message in bochs.log.
write_bochsrc() {
	local mb host_mb
	mb=$(bochs_mem_mb)
	host_mb=$((mb < BOCHS_HOST_MB_MAX ? mb : BOCHS_HOST_MB_MAX))
	cat > "$results/bochsrc" <<RC
cpu: model=$cpu_model, count=$smp, ips=$BOCHS_IPS, reset_on_triple_fault=0, ignore_bad_msrs=0
memory: guest=$mb, host=$host_mb
clock: sync=none
romimage: file=$BOCHS_BIOS
vgaromimage: file=$BOCHS_VGABIOS
pci: enabled=1, chipset=i440fx
ata0-master: type=cdrom, path=$results/mmlab.iso, status=inserted
boot: cdrom
$(bochs_serial_lines)
display_library: rfb, options="timeout=0"
mouse: enabled=0
sound: driver=dummy
speaker: enabled=0
log: $results/bochs.log
panic: action=fatal
error: action=report
info: action=report
RC
}

# serial.log on the console's UART, as under QEMU (serial_args): with the
# console on COM2, COM1 (GRUB's messages) goes to com1.log.
bochs_serial_lines() {
	if [ "$(console_unit)" = 1 ]; then
		echo "com1: enabled=1, mode=file, dev=$results/com1.log"
		echo "com2: enabled=1, mode=file, dev=$results/serial.log"
	else
		echo "com1: enabled=1, mode=file, dev=$results/serial.log"
	fi
}

# Everything a Bochs run needs in $results: the ISO and the bochsrc.
bochs_args() {
	bochs_pick_cpu
	make_run_iso
	write_bochsrc
}

# The trailer's JSON status, once the whole line (CR LF ended) is in serial.log.
trailer_status() {
	grep -a -m1 -E '^MMLAB-DONE \{.*\}'$'\r''?$' "$results/serial.log" 2>/dev/null |
		sed -n 's/.*"status":"\([a-z]*\)".*/\1/p'
}

# Ends Bochs (and the timeout around it) once the guest has said it is done.
stop_bochs() {
	kill -TERM "$1" 2>/dev/null
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	kill -KILL "$1" 2>/dev/null
}

# Boots Bochs and waits for the trailer, Bochs' own end or the timeout; sets
# $trailer (the trailer's status, or empty), $bochs_exit and $elapsed (to
# the trailer). Debian's Bochs starts in its debugger: "c" on stdin
# continues, and the end of stdin makes it quit if the debugger ever takes
# over again.
run_bochs() {
	local start end pid status=""
	: > "$results/serial.log"
	echo c > "$results/bochs-stdin.txt"
	printf '%q ' bochs -f "$results/bochsrc" > "$results/bochs-cmd.txt"
	echo >> "$results/bochs-cmd.txt"
	start=$(date +%s.%N)
	timeout -s KILL "$timeout_s" bochs -f "$results/bochsrc" < "$results/bochs-stdin.txt" \
		> "$results/bochs-stdout.log" 2>&1 &
	pid=$!
	[ "$quiet" = 1 ] || follow_log "$pid" &
	while kill -0 "$pid" 2>/dev/null; do
		status=$(trailer_status)
		[ -z "$status" ] || break
		sleep 0.5
	done
	end=$(date +%s.%N)
	[ -z "$status" ] || stop_bochs "$pid"
	{ wait "$pid"; } 2>/dev/null
	bochs_exit=$?
	wait 2>/dev/null
	[ -n "$status" ] || status=$(trailer_status) # written just before Bochs stopped
	elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
	trailer=$status
}

# The status isa-debug-exit would have given (see decode_status), so both
# emulators share one mapping to run.sh's exit statuses.
decode_bochs_status() {
	case $trailer in
	pass) qemu_status=33 ;;
	fail) qemu_status=35 ;;
	usage) qemu_status=37 ;;
	panic) qemu_status=39 ;;
	'')
		case $bochs_exit in
		137|124) qemu_status=$bochs_exit ;; # timeout killed it
		*)
			verdict="Bochs stopped before the trailer (status $bochs_exit): $(bochs_last_words)"
			rc=1
			return ;;
		esac ;;
	*)
		verdict="the trailer's status '$trailer' is none of pass, fail, usage, panic"
		rc=1
		return ;;
	esac
	decode_status
}

# Why Bochs ended: its panic or exit message.
bochs_last_words() {
	grep -a -h -m1 -E '>>PANIC<<|exception\(\)|Bochs is exiting' \
		"$results/bochs.log" "$results/bochs-stdout.log" 2>/dev/null | head -n 1
}
