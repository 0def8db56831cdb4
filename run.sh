#!/usr/bin/env bash
# mmlab launcher: installs what is missing, builds, boots the kernel in QEMU,
# collects the serial log and reports. See ./run.sh --help and docs/usage.md.
# Exit status: 0 all passed, 1 a test or benchmark failed (or the guest
# crashed), 2 usage error, 3 the guest hung or timed out, 4 interrupted
# (SIGTERM, SIGINT or SIGHUP: the guest is ended, partial results written).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
O=${O:-$here/build}
PYTHON=${PYTHON:-python3}
. "$here/tools/run-bochs.sh"
. "$here/tools/peer/peer.sh"
. "$here/tools/run-signals.sh"

accel=auto smp="" mem=1G firmware=bios boot=iso machine=pc mode=bench bench=""
results="" timeout_s="" quiet=0 verbose=0 compare=() extra=() spcr="" qemu_extra=() cpu_model="" loader=""
emulator=qemu
timing="" timing_given=0
trace=0 trace_word=0
seconds=""
peer=""

usage() {
	cat <<'USAGE'
usage: ./run.sh [options] [-- kernel-words...]
       ./run.sh --compare A B

Builds mmlab, boots it in QEMU (or Bochs), runs every benchmark (or the self-tests) and
writes results/<date-time>/: serial.log, results.json, table.txt, plots/ and
index.html (the results page: open it in a browser).

  --emulator qemu|bochs  QEMU (default) or Bochs 2.7, a second x86
                         implementation: boots the GRUB ISO (BIOS, pc) only
  --accel kvm|tcg|auto   accelerator (auto: KVM when the host CPU has vmx/svm
                         and /dev/kvm is usable, else TCG)
  --exact                exact mode (benchmarks' default under TCG): QEMU counts
                         instructions (-icount shift=0,sleep=off, one host
                         thread runs the vCPUs in turn), every figure is the
                         instructions the machine executed, the same on every
                         run at any host load (docs/output.md, "Timing")
  --timing               time mode (the default under KVM): elapsed TSC cycles,
                         each vCPU thread pinned to its own host core when
                         there are enough
  --smp N                virtual CPUs (default: every host CPU; 2 under Bochs,
                         which runs every CPU on one host thread)
  --mem SIZE             guest memory, e.g. 512M, 4G (default 1G)
  --firmware bios|uefi   SeaBIOS or OVMF (default bios)
  --boot iso|kernel|pxe  GRUB ISO, QEMU -kernel (multiboot1; fastest), or
                         PXE: GRUB from a per-run TFTP tree (make netboot)
                         through QEMU's DHCP/TFTP server (default iso)
  --loader multiboot|multiboot2
                         GRUB command that loads the kernel with --boot iso
                         or pxe (default multiboot2; --boot kernel is always
                         multiboot1)
  --machine pc|q35       QEMU machine type (default pc)
  --cpu MODEL            QEMU -cpu model and features, e.g. qemu64,-apic
                         (default max under TCG, host,-arch-capabilities
                         under KVM); under Bochs one of bochs --help cpu
                         (default corei7_skylake_x)
  --spcr UART            give the guest an ACPI SPCR table naming UART as the
                         firmware console: ttyS0, ttyS1, io:PORT, mmio32:ADDR
  --qemu-arg ARG         one more QEMU argument (repeatable), e.g.
                         --qemu-arg -machine --qemu-arg hpet=off
  --selftest             run the KTAP self-tests instead of benchmarks
  --bench LIST           comma-separated benchmarks (default: all)
  --torture              run the mm torture (mode=torture) instead
  --seconds N            how long the torture runs (default 60)
  --trace                record the timed runs' events (trace=1) and write
                         trace.json (Perfetto / chrome://tracing) and
                         trace-timeline.png (docs/output.md, "Trace")
  --peer linux           also boot Debian's stock Linux kernel (fetched with apt-get
                         download) under the same QEMU settings, run user-space
                         equivalents of tlb, swapfree, faultlock and pin there, and
                         show Linux beside mmlab's designs in the table
  --results DIR          results folder (default results/<date-time>)
  --timeout SEC          kill the guest after SEC seconds (exit status 3;
                         default 900 for self-tests, 3600 for benchmarks,
                         three times that under Bochs)
  --quiet                no progress lines while the guest runs
  --verbose              stream the console's lines (and the build's) as they come,
                         instead of one progress line per benchmark
  --compare A B          compare two results folders (or serial logs); also writes
                         compare.txt and the page index.html to --results DIR
                         (default results/compare-<date-time>)
  --help                 this text
  -- WORDS               extra kernel command-line words (key=value); ktest=
                         (which suites) needs --selftest

serial.log records the UART the kernel writes to: console= from the kernel
words if given, else the one --spcr names (ttyS0 or ttyS1), else ttyS0.

Exit status: 0 passed, 1 failed or crashed, 2 usage error, 3 hung/timed out,
4 interrupted: on SIGTERM, SIGINT or SIGHUP run.sh ends its guest (QEMU, Bochs,
the Linux peer) and every other process it started, keeps serial.log, writes
results.json marked "incomplete" (and the table and page) and exits 4.
USAGE
}

die_usage() { echo "run.sh: $*" >&2; echo "run.sh: see ./run.sh --help" >&2; exit 2; }
say() { [ "$quiet" = 1 ] || echo "run.sh: $*" >&2; }

need_arg() { [ $# -ge 2 ] && [ -n "$2" ] || die_usage "option $1 needs a value"; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--accel) need_arg "$@"; accel=$2; shift ;;
		--smp) need_arg "$@"; smp=$2; shift ;;
		--mem) need_arg "$@"; mem=$2; shift ;;
		--firmware) need_arg "$@"; firmware=$2; shift ;;
		--boot) need_arg "$@"; boot=$2; shift ;;
		--machine) need_arg "$@"; machine=$2; shift ;;
		--emulator) need_arg "$@"; emulator=$2; shift ;;
		--loader) need_arg "$@"; loader=$2; shift ;;
		--cpu) need_arg "$@"; cpu_model=$2; shift ;;
		--spcr) need_arg "$@"; spcr=$2; shift ;;
		--qemu-arg) need_arg "$@"; qemu_extra+=("$2"); shift ;;
		--exact) timing=exact timing_given=1 ;;
		--timing) timing=time timing_given=1 ;;
		--selftest) mode=selftest ;;
		--bench) need_arg "$@"; bench=$2; shift ;;
		--torture) mode=torture ;;
		--seconds) need_arg "$@"; seconds=$2; shift ;;
		--trace) trace=1 ;;
		--peer) need_arg "$@"; peer=$2; shift ;;
		--results) need_arg "$@"; results=$2; shift ;;
		--timeout) need_arg "$@"; timeout_s=$2; shift ;;
		--quiet) quiet=1 ;;
		--verbose) verbose=1 ;;
		--compare) [ $# -ge 3 ] || die_usage "--compare needs two folders"; compare=("$2" "$3"); shift 2 ;;
		--help|-h) usage; exit 0 ;;
		--) shift; extra=("$@"); break ;;
		*) die_usage "unknown option '$1'" ;;
		esac
		shift
	done
	check_args
}

check_args() {
	case $accel in kvm|tcg|auto) ;; *) die_usage "bad --accel '$accel' (kvm|tcg|auto)" ;; esac
	case $firmware in bios|uefi) ;; *) die_usage "bad --firmware '$firmware' (bios|uefi)" ;; esac
	case $boot in iso|kernel|pxe) ;; *) die_usage "bad --boot '$boot' (iso|kernel|pxe)" ;; esac
	case $loader in ''|multiboot|multiboot2) ;; *) die_usage "bad --loader '$loader' (multiboot|multiboot2)" ;; esac
	if [ "$boot" = kernel ] && [ "$loader" = multiboot2 ]; then
		die_usage "--boot kernel uses QEMU's multiboot1 loader; --loader multiboot2 needs --boot iso or pxe"
	fi
	case $machine in pc|q35) ;; *) die_usage "bad --machine '$machine' (pc|q35)" ;; esac
	[ -z "$spcr" ] || [[ $spcr =~ ^(ttyS[01]|io:0x[0-9a-fA-F]+|mmio(8|32):0x[0-9a-fA-F]+)$ ]] ||
		die_usage "bad --spcr '$spcr' (ttyS0, ttyS1, io:0xPORT, mmio8:0xADDR or mmio32:0xADDR)"
	[ -z "$cpu_model" ] || [[ $cpu_model =~ ^[A-Za-z0-9_.,=+-]+$ ]] || die_usage "bad --cpu '$cpu_model' (a QEMU CPU model, e.g. qemu64,-apic)"
	[ -z "$smp" ] || [[ $smp =~ ^[1-9][0-9]*$ ]] || die_usage "bad --smp '$smp' (a CPU count)"
	[[ $mem =~ ^[1-9][0-9]*[MG]$ ]] || die_usage "bad --mem '$mem' (e.g. 512M or 4G)"
	case $emulator in qemu) ;; bochs) bochs_check_args ;; *) die_usage "bad --emulator '$emulator' (qemu|bochs)" ;; esac
	[ -z "$timeout_s" ] || [[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die_usage "bad --timeout '$timeout_s' (seconds)"
	[ -z "$bench" ] || [[ $bench =~ ^[a-z0-9_]+(,[a-z0-9_]+)*$ ]] || die_usage "bad --bench '$bench'"
	if [ "$mode" = selftest ] && [ -n "$bench" ]; then die_usage "--selftest and --bench exclude each other"; fi
	if [ "$mode" = selftest ] && [ "$trace" = 1 ]; then die_usage "--trace records benchmarks: not with --selftest"; fi
	[ -z "$seconds" ] || [[ $seconds =~ ^[1-9][0-9]*$ ]] || die_usage "bad --seconds '$seconds' (seconds)"
	if [ "$mode" = torture ] && { [ -n "$bench" ] || [ "$trace" = 1 ]; }; then die_usage "--torture: not with --bench or --trace"; fi
	if [ -n "$seconds" ] && [ "$mode" != torture ]; then die_usage "--seconds is the torture's: use it with --torture"; fi
	peer_check_args
	if [ "$timing" = exact ] && [ "$accel" = kvm ]; then die_usage "--exact counts instructions under TCG: not with --accel kvm"; fi
	if [ "$timing" = exact ] && [ "$emulator" = bochs ]; then die_usage "--exact needs QEMU's icount: not with --emulator bochs"; fi
	if [ "$boot" = kernel ] && [ "$firmware" = uefi ]; then
		die_usage "--boot kernel uses QEMU's multiboot1 loader, which needs --firmware bios"
	fi
	local w
	for w in "${extra[@]+"${extra[@]}"}"; do
		# The words reach the kernel through grub.cfg or -append: keep them plain.
		[[ $w =~ ^[A-Za-z0-9_.,:/=+-]+$ ]] || die_usage "kernel word '$w' has characters other than [A-Za-z0-9_.,:/=+-]"
		# ktest= picks self-test suites; another mode would ignore it and run
		# something else entirely (all the benchmarks, say).
		if [[ $w == ktest=* ]] && [ "$mode" != selftest ]; then
			die_usage "kernel word '$w' picks self-test suites: add --selftest"
		fi
		if [[ $w == timing=* ]]; then die_usage "kernel word '$w': use --exact or --timing"; fi
		# The kernel word alone traces too: write trace.json for it as for --trace.
		if [ "$w" = trace=1 ] && [ "$mode" = bench ]; then trace=1 trace_word=1; fi
	done
}

# ---- host set-up -----------------------------------------------------------

install_missing() {
	bash "$here/tools/deps.sh" run || exit 1
	[ "$emulator" != bochs ] || bash "$here/tools/deps.sh" bochs || exit 1
	[ -z "$peer" ] || bash "$here/tools/deps.sh" peer || exit 1
}

build() {
	local targets=(all)
	[ "$boot" = pxe ] && targets+=(netboot)
	local log=/dev/stderr
	mkdir -p "$O"
	# The compiler's lines go to build.log unless --verbose; a failure shows its end.
	[ "$verbose" = 1 ] || { log=$O/build.log; say "building (log: $log)"; }
	[ "$verbose" = 0 ] || say "building"
	# In the background and waited for: a signal ends it at once (tools/run-signals.sh).
	make -C "$here" -s O="$O" "${targets[@]}" > "$log" 2>&1 &
	wait $! && return
	[ "$verbose" = 1 ] || tail -n 30 "$log" >&2
	echo "run.sh: build failed" >&2
	exit 1
}

# ---- accelerator -------------------------------------------------------------

kvm_hardware() { grep -qE '^flags.*\b(vmx|svm)\b' /proc/cpuinfo; }
kvm_usable() { [ -r /dev/kvm ] && [ -w /dev/kvm ]; }

pick_accel() {
	case $accel in
	tcg) say "accelerator: TCG (asked for)" ;;
	kvm)
		kvm_usable || { echo "run.sh: --accel kvm but /dev/kvm is missing or not usable" >&2; exit 2; }
		kvm_hardware || say "warning: the host CPU shows no vmx/svm: this KVM is nested and emulated (slower than TCG)"
		if [ "$boot" = pxe ] && ! kvm_hardware; then
			say "warning: PXE under an emulated KVM is known to fail (BIOS: iPXE resets the VM;" \
				"UEFI: OVMF stops with an emulation failure); expect exit status 1 or 3, use --accel tcg"
		fi
		say "accelerator: KVM (asked for)" ;;
	auto)
		if [ "$timing" = exact ]; then
			accel=tcg; say "accelerator: TCG (--exact counts instructions under TCG)"
		elif kvm_usable && kvm_hardware; then
			accel=kvm; say "accelerator: KVM (hardware virtualisation present)"
		else
			accel=tcg
			if kvm_usable; then
				say "accelerator: TCG (/dev/kvm exists but the CPU shows no vmx/svm: emulated KVM is slower)"
			else
				say "accelerator: TCG (no usable /dev/kvm)"
			fi
		fi ;;
	esac
}

# ---- boot media and QEMU -----------------------------------------------------

# Benchmarks: exact mode where the accelerator is an emulator (TCG), time
# mode under KVM and, unless --exact is given, beside a --peer (the peer's
# traced in-kernel figures are times). Self-tests and the torture keep every vCPU
# on its own host thread (real concurrency for their races) unless --exact.
pick_timing() {
	[ -n "$timing" ] || { timing=time; [ "$mode" = bench ] && [ "$accel" = tcg ] && [ "$emulator" = qemu ] && [ -z "$peer" ] && timing=exact; }
	say "timing: $timing"
}

# More vCPUs than host cores, each its own host thread (exact mode runs them
# in turn on one): a fair lock handed to a waiter whose thread the host has
# descheduled stalls every CPU queued behind it, so the kernel is asked for
# its unfair lock, and the header says so. A spinlock= word given wins.
pick_spinlock() {
	local w
	for w in "${extra[@]+"${extra[@]}"}"; do [[ $w != spinlock=* ]] || return 0; done
	[ "$emulator" = qemu ] && [ "$timing" != exact ] && [ "$smp" -gt "$(nproc)" ] || return 0
	extra+=("spinlock=unfair")
	say "spinlock: unfair ($smp vCPUs on $(nproc) host cores)"
}

kernel_cmdline() {
	local words=("mode=$mode")
	# Self-tests and the torture run in the kernel's default (time) unless asked.
	[ "$mode" != bench ] && [ "$timing_given" = 0 ] || words+=("timing=$timing")
	[ -z "$bench" ] || words+=("bench=$bench")
	[ -z "$seconds" ] || words+=("seconds=$seconds")
	[ "$trace" = 0 ] || [ "$trace_word" = 1 ] || words+=("trace=1")
	words+=("${extra[@]+"${extra[@]}"}")
	echo "${words[*]}"
}

# The run's GRUB menu: one entry with the run's command line, messages on COM1.
write_grub_cfg() {
	cat > "$1" <<CFG
serial --unit=0 --speed=115200
terminal_input serial console
terminal_output serial console
set timeout=0
menuentry "mmlab run" {
	${loader:-multiboot2} /boot/mmlab.elf $cmdline
	boot
}
CFG
}

make_run_iso() {
	write_grub_cfg "$results/grub.cfg"
	sh "$here/tools/mkiso.sh" "$results/mmlab.iso" "$O/mmlab.elf" "$results/grub.cfg" ||
		{ echo "run.sh: making the ISO failed" >&2; exit 1; }
}

# The run's TFTP root: GRUB from $O/tftp (hard links when the file system
# allows), a copy of the kernel, and the run's own grub.cfg (a new file, never
# written through a link into the shared tree).
make_run_tftp() {
	local tftp=$results/tftp d
	rm -rf "$tftp"
	mkdir -p "$tftp/boot/grub" || { echo "run.sh: cannot create $tftp" >&2; exit 1; }
	for d in i386-pc x86_64-efi fonts locale; do
		[ -d "$O/tftp/boot/grub/$d" ] || continue
		cp -rl "$O/tftp/boot/grub/$d" "$tftp/boot/grub/" 2>/dev/null ||
			cp -r "$O/tftp/boot/grub/$d" "$tftp/boot/grub/" ||
			{ echo "run.sh: copying the netboot tree failed" >&2; exit 1; }
	done
	cp "$O/mmlab.elf" "$tftp/boot/mmlab.elf"
	write_grub_cfg "$tftp/boot/grub/grub.cfg"
}

# QEMU's user network answers DHCP with the boot file and serves $tftp
# (restrict=on: the guest reaches nothing beyond QEMU's own services). Under
# BIOS the e1000's iPXE ROM loads GRUB's core.0; under OVMF, bootindex=0
# makes the NIC the first boot option.
pxe_args() {
	local tftp=$results/tftp
	make_run_tftp
	if [ "$firmware" = uefi ]; then
		args+=(-netdev "user,id=n0,restrict=on,tftp=$tftp,bootfile=boot/grub/x86_64-efi/core.efi"
			-device virtio-net-pci,netdev=n0,bootindex=0)
	else
		args+=(-netdev "user,id=n0,restrict=on,tftp=$tftp,bootfile=boot/grub/i386-pc/core.0"
			-device e1000,netdev=n0 -boot n)
	fi
}

# Which UART the kernel will write to (0: COM1, 1: COM2), by its own rule:
# console= if given, else the firmware's SPCR console, else COM1.
console_unit() {
	local w unit=0
	[ "$spcr" = ttyS1 ] && unit=1
	for w in "${extra[@]+"${extra[@]}"}"; do
		case $w in console=ttyS0) unit=0 ;; console=ttyS1) unit=1 ;; esac
	done
	echo "$unit"
}

# The serial ports: serial.log on the console's UART; with the console on
# COM2, COM1 (where GRUB writes) goes to com1.log. --spcr adds the table.
serial_args() {
	if [ "$(console_unit)" = 1 ]; then
		args+=(-serial "file:$results/com1.log" -serial chardev:con)
	else
		args+=(-serial chardev:con)
	fi
	if [ -n "$spcr" ]; then
		"$PYTHON" "$here/tools/mkspcr.py" "$spcr" "$results/spcr.bin" ||
			{ echo "run.sh: making the SPCR table failed" >&2; exit 1; }
		args+=(-acpitable "file=$results/spcr.bin")
	fi
}

qemu_args() {
	local cpu=max
	[ "$accel" = kvm ] && cpu=host,-arch-capabilities
	[ -z "$cpu_model" ] || cpu=$cpu_model
	args=(-machine "$machine,accel=$accel" -cpu "$cpu" -smp "$smp" -m "$mem"
		-display none -monitor none -no-reboot
		-chardev "file,id=con,path=$results/serial.log"
		-device isa-debug-exit,iobase=0xf4,iosize=0x04)
	serial_args
	if [ "$firmware" = uefi ]; then
		cp /usr/share/OVMF/OVMF_VARS_4M.fd "$results/OVMF_VARS.fd"
		args+=(-drive "if=pflash,format=raw,unit=0,readonly=on,file=/usr/share/OVMF/OVMF_CODE_4M.fd"
			-drive "if=pflash,format=raw,unit=1,file=$results/OVMF_VARS.fd")
	fi
	# One host thread runs the vCPUs in turn; the clock counts their
	# instructions (1 ns each: the TSC counts one per instruction); the
	# guest's RTC follows that clock, not the host's.
	[ "$timing" != exact ] || args+=(-icount shift=0,sleep=off -rtc clock=vm)
	[ "$timing" != time ] || args+=(-qmp "unix:$results/qmp.sock,server=on,wait=off")
	args+=("${qemu_extra[@]+"${qemu_extra[@]}"}")
	case $boot in
	iso) make_run_iso; args+=(-cdrom "$results/mmlab.iso" -boot d) ;;
	kernel) args+=(-kernel "$O/mmlab.elf" -append "$cmdline") ;;
	pxe) pxe_args ;;
	esac
}

# Shows progress as the console's lines arrive: for a benchmark run, one line
# per benchmark (tools/mmlab progress); with --verbose or --selftest,
# mmlab's own lines (not firmware noise).
follow_log() {
	if [ "$mode" = bench ] && [ "$verbose" = 0 ]; then
		tail -n +1 -F --pid="$1" "$results/serial.log" 2>/dev/null |
			"$PYTHON" "$here/tools/mmlab" progress --benches "$bench"
		return
	fi
	tail -n +1 -F --pid="$1" "$results/serial.log" 2>/dev/null |
		grep --line-buffered -E '^(MMLAB|mmlab:|# (bench|WARN|torture)|not ok|ok [0-9]+ [a-z])' >&2
}

run_qemu() {
	local start end status pid
	: > "$results/serial.log"
	printf '%q ' qemu-system-x86_64 "${args[@]}" > "$results/qemu-cmd.txt"
	echo >> "$results/qemu-cmd.txt"
	start=$(date +%s.%N)
	timeout -s KILL "$timeout_s" qemu-system-x86_64 "${args[@]}" 2> "$results/qemu.log" &
	pid=$!
	[ "$timing" != time ] || pin_vcpus &
	[ "$quiet" = 1 ] || follow_log "$pid" &
	{ wait "$pid"; } 2>/dev/null
	status=$?
	end=$(date +%s.%N)
	wait 2>/dev/null
	elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
	qemu_status=$status
}

# Time mode: each vCPU thread on a host core of its own (thread ids from
# QMP's query-cpus-fast), when the host has a core for each; pinned.txt
# records it. A vCPU that shares a core loses it to the other for whole
# host time slices, which the figures would then measure.
pin_vcpus() {
	local sock=$results/qmp.sock tids i=0 t n=0
	[ "$(nproc)" -ge "$smp" ] || { echo "not pinned: $smp vCPUs, $(nproc) host cores" > "$results/pinned.txt"; return; }
	for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
	tids=$("$PYTHON" -c '
import json, socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); f = s.makefile("rw")
f.readline()
for cmd in ("qmp_capabilities", "query-cpus-fast"):
    f.write(json.dumps({"execute": cmd}) + "\n"); f.flush()
    while True:
        r = json.loads(f.readline())
        if "return" in r or "error" in r: break
print(" ".join(str(c["thread-id"]) for c in r.get("return", [])))' "$sock" 2>/dev/null) ||
		{ echo "not pinned: QMP gave no thread ids" > "$results/pinned.txt"; return; }
	for t in $tids; do
		taskset -p -c "$i" "$t" > /dev/null 2>&1 && n=$((n + 1))
		i=$((i + 1))
	done
	echo "pinned $n of $smp vCPU threads, one per host core (threads $tids)" > "$results/pinned.txt"
}

# QEMU's isa-debug-exit gives (v << 1) | 1; see arch/x86_64/include/arch/qemu_exit.h.
decode_status() {
	case $qemu_status in
	33) verdict=pass; rc=0 ;;
	35) verdict=fail; rc=1 ;;
	37) verdict=usage; rc=2 ;;
	39) verdict="crashed (kernel panic or exception; see serial.log)"; rc=1 ;;
	137|124) verdict="timed out after ${timeout_s}s (killed)"; rc=3 ;;
	0) verdict="guest reset itself (triple fault?) without reporting"; rc=1 ;;
	*) verdict="QEMU failed with status $qemu_status: $(tail -n 3 "$results/qemu.log" | tr '\n' ' ')"; rc=1 ;;
	esac
	if grep -qE 'KVM internal error|emulation failure' "$results/qemu.log" 2>/dev/null; then
		verdict="KVM could not run the guest: $(grep -m1 -E 'KVM internal error|emulation failure' "$results/qemu.log")"
		rc=3
	fi
	if [ "$boot" = pxe ] && [ "$accel" = kvm ] && [ "$rc" != 0 ] && ! kvm_hardware; then
		verdict="$verdict; PXE under an emulated KVM is known to fail: use --accel tcg"
	fi
}

report() {
	if [ "$mode" != bench ]; then
		"$PYTHON" "$here/tools/mmlab" summary --label "$(basename "$results")" "$results/serial.log" >&2 || [ "$rc" != 0 ] || rc=1
	else
		"$PYTHON" "$here/tools/mmlab" report "${peer_report_args[@]+"${peer_report_args[@]}"}" \
			"$results/serial.log" "$results" || [ "$rc" != 0 ] || rc=1
	fi
}

# --trace: the log's trace records as trace.json (checked) and a timeline of the first case.
write_trace() {
	"$PYTHON" "$here/tools/mmlab" trace "$results/serial.log" -o "$results/trace.json" >&2 &&
		"$PYTHON" "$here/tools/mmlab" trace --check "$results/trace.json" >&2 ||
		{ echo "run.sh: no valid trace.json from this run" >&2; [ "$rc" != 0 ] || rc=1; return; }
	"$PYTHON" "$here/tools/mmlab" trace "$results/serial.log" --plot "$results/trace-timeline.png" >/dev/null ||
		say "warning: no trace-timeline.png (see above); trace.json is written"
}

main() {
	parse_args "$@"
	run_trap_signals
	if [ ${#compare[@]} -eq 2 ]; then
		[ -n "$results" ] || results=$here/results/compare-$(date +%Y-%m-%d-%H%M%S)
		say "comparison page: $results/index.html"
		exec "$PYTHON" "$here/tools/mmlab" compare --outdir "$results" "${compare[0]}" "${compare[1]}"
	fi
	install_missing
	build
	[ "$emulator" = bochs ] || pick_accel
	pick_timing
	[ -n "$smp" ] || [ "$emulator" != bochs ] || smp=$BOCHS_SMP_DEFAULT
	[ -n "$smp" ] || smp=$(nproc)
	pick_spinlock
	if [ -z "$timeout_s" ]; then
		timeout_s=900
		[ "$mode" = bench ] && timeout_s=3600
		[ "$mode" = torture ] && timeout_s=$((${seconds:-60} + 600))
		[ "$emulator" = bochs ] && timeout_s=$((timeout_s * 3))
	fi
	[ -n "$results" ] || results=$here/results/$(date +%Y-%m-%d-%H%M%S)
	mkdir -p "$results" || die_usage "cannot create results folder '$results'"
	results=$(cd "$results" && pwd)
	cmdline=$(kernel_cmdline)
	if [ "$emulator" = bochs ]; then
		bochs_args
		say "booting under Bochs: GRUB ${loader:-multiboot2}, $cpu_model, $smp CPUs, $mem; kernel: $cmdline"
		run_bochs
		decode_bochs_status
	else
		qemu_args
		say "booting: $boot, $firmware, $machine, $accel, $smp CPUs, $mem; kernel: $cmdline"
		run_qemu
		decode_status
	fi
	echo "run.sh: guest finished in ${elapsed}s: $verdict" >&2
	# The trace first: the results page links trace.json when it is there.
	if [ "$trace" = 1 ] && [ "$rc" != 2 ] && [ "$rc" != 3 ]; then write_trace; fi
	# A peer that hangs (rc 3) still leaves mmlab's own results reported.
	if [ "$rc" != 2 ] && [ "$rc" != 3 ]; then [ -z "$peer" ] || run_peer; report; fi
	if [ "$rc" = 2 ]; then grep -h '^mmlab: error:' "$results/serial.log" >&2; fi
	# A benchmark report ends with the paths of table.txt and index.html.
	[ "$mode" = bench ] && [ -f "$results/index.html" ] || say "results in $results"
	exit "$rc"
}

main "$@"
