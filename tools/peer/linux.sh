#!/usr/bin/env bash
# mmlab's Linux peer: boots the distribution's stock kernel (Debian's
# linux-image-amd64, fetched with apt-get download, never installed) with
# a tiny initramfs (busybox-static, the zram modules, tools/peer/init.sh and
# the mmpeer workloads built here from tools/peer/src) under the QEMU
# settings mmlab ran with, and leaves its serial console in OUT/serial.log:
# BENCH lines in mmlab's contract with "system":"linux-<release>".
#
# usage: tools/peer/linux.sh [--out DIR] [--accel tcg|kvm] [--smp N] [--mem SIZE]
#                            [--cpu MODEL] [--machine pc|q35] [--timeout SEC]
#                            [--exact] [--fetch-only] [-- MMPEER-WORDS...]
# --exact: QEMU counts instructions, as mmlab's exact mode (see boot()).
# The packages are cached in $MMLAB_PEER_CACHE (default $O/peer, O=build)
# and reused; $MMLAB_PEER_META names another kernel meta package. Exit status: 0 the workloads passed, 1 one failed (or the
# kernel crashed), 2 usage error, 3 the guest hung or timed out, 4 the
# kernel package (or busybox-static) cannot be fetched here.
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
src=$here/tools/peer
cache=${MMLAB_PEER_CACHE:-${O:-$here/build}/peer}
out="" accel=tcg smp=$(nproc) mem=1G cpu="" machine=pc timeout_s=900 fetch_only=0 exact=0 words=()

die() { echo "peer: $1" >&2; exit "${2:-1}"; }
say() { echo "peer: $*" >&2; }

parse_args() {
	while [ $# -gt 0 ]; do
		case $1 in
		--out|--accel|--smp|--mem|--cpu|--machine|--timeout)
			[ $# -ge 2 ] && [ -n "$2" ] || die "option $1 needs a value" 2
			case $1 in
			--out) out=$2 ;; --accel) accel=$2 ;; --smp) smp=$2 ;; --mem) mem=$2 ;;
			--cpu) cpu=$2 ;; --machine) machine=$2 ;; --timeout) timeout_s=$2 ;;
			esac
			shift ;;
		--fetch-only) fetch_only=1 ;;
		--exact) exact=1 ;;
		--) shift; words=("$@"); break ;;
		*) die "unknown option '$1'" 2 ;;
		esac
		shift
	done
	case $accel in tcg|kvm) ;; *) die "bad --accel '$accel' (tcg|kvm)" 2 ;; esac
	case $machine in pc|q35) ;; *) die "bad --machine '$machine' (pc|q35)" 2 ;; esac
	[[ $smp =~ ^[1-9][0-9]*$ ]] || die "bad --smp '$smp'" 2
	[[ $mem =~ ^[1-9][0-9]*[MG]$ ]] || die "bad --mem '$mem' (e.g. 512M or 1G)" 2
	[[ $timeout_s =~ ^[1-9][0-9]*$ ]] || die "bad --timeout '$timeout_s'" 2
	[ -n "$cpu" ] || { cpu=max; [ "$accel" = kvm ] && cpu=host,-arch-capabilities; }
	[ "$exact" = 0 ] || [ "$accel" = tcg ] || die "--exact counts instructions under TCG: not with --accel $accel" 2
	[ "$fetch_only" = 1 ] || [ -n "$out" ] || die "--out DIR is needed" 2
}

# ---- packages ------------------------------------------------------------------

# The real kernel package behind a meta package: linux-image-amd64 depends on
# exactly one linux-image-<version>-amd64. Empty when apt knows none.
kernel_package() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1
}

# fetch PKG: the path of PKG's .deb in the cache, downloaded when absent.
fetch() {
	local deb
	deb=$(ls "$cache/debs/$1"_*.deb 2>/dev/null | sort -V | tail -n 1)
	if [ -z "$deb" ]; then
		mkdir -p "$cache/debs" || return 1
		# The sandbox user _apt may not write to the cache; download as the caller.
		(cd "$cache/debs" && apt-get download -q -o APT::Sandbox::User="$(id -un)" "$1") \
			> "$cache/debs/$1.log" 2>&1 || return 1
		deb=$(ls "$cache/debs/$1"_*.deb 2>/dev/null | sort -V | tail -n 1)
	fi
	[ -n "$deb" ] && echo "$deb"
}

# Sets kpkg, kver, kdeb and bbdeb, or exits 4 naming what is missing.
fetch_all() {
	local meta bb
	read -r meta bb <<<"$(bash "$here/tools/deps.sh" peer --fetch-list)"
	meta=${MMLAB_PEER_META:-$meta} # another meta package (the tests name a missing one)
	command -v apt-get > /dev/null || die "no apt-get on this host: cannot fetch $meta" 4
	kpkg=$(kernel_package "$meta")
	# Offline, a package fetched before still serves.
	[ -n "$kpkg" ] || kpkg=$(ls "$cache/debs/" 2>/dev/null | sed -n 's/^\(linux-image-[0-9][^_]*-amd64\)_.*\.deb$/\1/p' | sort -V | tail -n 1)
	[ -n "$kpkg" ] || die "no kernel package available: apt-cache knows no dependency of $meta (apt-get update?)" 4
	kver=${kpkg#linux-image-}
	kdeb=$(fetch "$kpkg") || die "cannot fetch $kpkg with apt-get download: $(tail -n 1 "$cache/debs/$kpkg.log" 2>/dev/null)" 4
	bbdeb=$(fetch "$bb") || die "cannot fetch $bb with apt-get download: $(tail -n 1 "$cache/debs/$bb.log" 2>/dev/null)" 4
	say "kernel $kpkg ($(basename "$kdeb")), $(basename "$bbdeb")"
}

# The kernel and busybox trees, extracted once; depmod writes the
# modules.dep the package leaves to its postinst.
extract() {
	kroot=$cache/root-$kpkg bbroot=$cache/root-busybox
	if [ ! -e "$kroot/.done" ]; then
		rm -rf "$kroot" && mkdir -p "$kroot" && dpkg-deb -x "$kdeb" "$kroot" &&
			depmod -b "$kroot" "$kver" && touch "$kroot/.done" ||
			die "cannot unpack $kdeb (dpkg-deb, depmod)"
	fi
	if [ ! -e "$bbroot/.done" ] || [ "$bbroot/.done" -ot "$bbdeb" ]; then
		rm -rf "$bbroot" && mkdir -p "$bbroot" && dpkg-deb -x "$bbdeb" "$bbroot" &&
			touch "$bbroot/.done" || die "cannot unpack $bbdeb"
	fi
	[ -f "$kroot/boot/vmlinuz-$kver" ] || die "$kdeb holds no boot/vmlinuz-$kver"
}

# mod_order MODULE-PATH: the module's dependencies (theirs first), then itself.
mod_order() {
	local dep
	for dep in $(sed -n "s|^$1: *||p" "$kroot/lib/modules/$kver/modules.dep"); do
		mod_order "$dep"
	done
	echo "$1"
}

# ---- the initramfs ---------------------------------------------------------------

build_mmpeer() {
	local bin=$cache/mmpeer
	if [ ! -x "$bin" ] || [ -n "$(find "$src/src" -newer "$bin" 2>/dev/null)" ]; then
		say "building mmpeer (static)"
		gcc -static -O2 -pthread -Wall -Wextra -Werror -o "$bin.tmp" "$src"/src/*.c -lm &&
			mv "$bin.tmp" "$bin" || die "building mmpeer failed (static glibc is in libc6-dev)"
	fi
}

make_initramfs() {
	local stage=$out/initramfs zram m
	rm -rf "$stage" && mkdir -p "$stage"/{bin,proc,sys,dev,modules} || die "cannot create $stage"
	cp "$bbroot/bin/busybox" "$stage/bin/" && cp "$src/init.sh" "$stage/init" &&
		cp "$cache/mmpeer" "$stage/mmpeer" || die "cannot fill $stage"
	printf '%s\n' "${words[*]-}$([ "$exact" = 0 ] || echo ' exact=1')" > "$stage/peer.args"
	zram=$(grep -o '^kernel/drivers/block/zram/zram\.ko' "$kroot/lib/modules/$kver/modules.dep")
	[ -n "$zram" ] || die "$kpkg has no zram module"
	: > "$stage/modules.load"
	for m in $(mod_order "$zram" | awk '!seen[$0]++'); do
		cp "$kroot/lib/modules/$kver/$m" "$stage/modules/" || die "cannot copy $m"
		basename "$m" >> "$stage/modules.load"
	done
	(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) |
		gzip -1 > "$out/initramfs.cpio.gz" || die "cpio failed"
	rm -rf "$stage"
}

# ---- the boot ---------------------------------------------------------------------

# --exact: -icount shift=0,sleep=off -rtc clock=vm (the guest's TSC counts
# one per instruction) and maxcpus=1: the init script brings the other CPUs
# online. Booted with all of them, the boot CPU's bring-up loop (schedule()
# until the AP calls in) never lets the emulator's one host thread run the
# AP, which stays in wait_for_master_cpu() for good.
boot() {
	local args status append="console=ttyS0,115200 quiet loglevel=3 panic=-1 rdinit=/init"
	[ "$exact" = 0 ] || append+=" maxcpus=1"
	args=(-machine "$machine,accel=$accel" -cpu "$cpu" -smp "$smp" -m "$mem"
		-display none -monitor none -no-reboot
		-kernel "$kroot/boot/vmlinuz-$kver" -initrd "$out/initramfs.cpio.gz"
		-append "$append" -serial "file:$out/serial.log")
	[ "$exact" = 0 ] || args+=(-icount shift=0,sleep=off -rtc clock=vm)
	printf '%q ' qemu-system-x86_64 "${args[@]}" > "$out/qemu-cmd.txt"
	echo >> "$out/qemu-cmd.txt"
	say "booting $kpkg: $accel$([ "$exact" = 0 ] || echo ' exact'), $machine, -cpu $cpu, $smp CPUs, $mem; mmpeer ${words[*]-}"
	timeout -s KILL "$timeout_s" qemu-system-x86_64 "${args[@]}" 2> "$out/qemu.log"
	status=$?
	[ $status != 137 ] || die "the Linux guest timed out after ${timeout_s}s (killed); see $out/serial.log" 3
	[ $status = 0 ] || die "QEMU failed with status $status: $(tail -n 2 "$out/qemu.log" | tr '\n' ' ')"
}

# The trailer mmpeer printed decides the status.
verdict() {
	local trailer
	trailer=$(grep -a -m1 '^MMLAB-DONE ' "$out/serial.log")
	case $trailer in
	*'"status":"pass"'*) say "done: $trailer"; exit 0 ;;
	*'"status":"usage"'*) grep -a '^mmlab: error:' "$out/serial.log" >&2; exit 2 ;;
	'') die "the Linux guest stopped without mmpeer's trailer (kernel panic?); see $out/serial.log" 1 ;;
	*) say "failed: $trailer"; grep -a '^# bench FAIL' "$out/serial.log" >&2; exit 1 ;;
	esac
}

main() {
	parse_args "$@"
	mkdir -p "$cache" || die "cannot create the cache $cache"
	# Two runs at once share the cache: one fetches, unpacks and builds at a time.
	exec 9> "$cache/.lock" && flock 9 || die "cannot lock $cache/.lock"
	fetch_all
	extract
	[ "$fetch_only" = 0 ] || exit 0
	build_mmpeer
	flock -u 9
	mkdir -p "$out" && out=$(cd "$out" && pwd) || die "cannot create '$out'" 2
	make_initramfs
	boot
	verdict
}

main "$@"
