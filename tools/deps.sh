#!/usr/bin/env bash
# The one list of host packages mmlab needs, and the one installer that
# run.sh, `make test` and .ci/run call. Each package is named with a probe
# (a command or a file it provides), so a machine that has the tool by other
# means is not asked to install it.
#
# usage: tools/deps.sh run|bochs|peer|test [--check]
#   run      what ./run.sh needs to build and boot under QEMU and report
#   bochs    what ./run.sh --emulator bochs needs besides
#   peer     what ./run.sh --peer linux needs besides (tools/peer/linux.sh);
#            --fetch-list prints the packages it fetches with apt-get download
#            into its cache instead of installing them
#   test     all of those plus what `make test` needs (clang, the fuzzer
#            runtime, lava-run and the tools its lab-template check looks for,
#            chromium for the results pages)
#   --check  print the missing package names and exit 1 if any, install nothing
# Installing prints one line per step; apt-get's own output goes to
# $DEPS_LOG (default ${TMPDIR:-/tmp}/mmlab-deps.log). Exit status: 0 all
# present, 1 missing and not installable here (the exact command is printed).
set -uo pipefail

# package:probe, where a probe starting with / is a path, - asks dpkg (for a
# package with no fixed path of its own) and anything else is a command
run_pkgs=(make:make gcc:gcc qemu-system-x86:qemu-system-x86_64 grub-common:grub-mkrescue
	grub-pc-bin:/usr/lib/grub/i386-pc grub-efi-amd64-bin:/usr/lib/grub/x86_64-efi
	xorriso:xorriso mtools:mformat ovmf:/usr/share/OVMF/OVMF_CODE_4M.fd
	gnuplot-nox:gnuplot python3:python3
	python3-numpy:/usr/lib/python3/dist-packages/numpy
	python3-scipy:/usr/lib/python3/dist-packages/scipy)
# lava-dispatcher runs tools/lava/ jobs locally (lava-run); tftpd-hpa and ipmitool are what
# it checks for when validating the lab templates (TFTP deploy, IPMI serial-over-LAN).
# Bochs (with its BIOS and VGA BIOS) is the second x86 implementation of the test
# matrix; libclang-rt-14-dev holds clang's libFuzzer runtime for the fuzz targets.
# chromium renders the results pages in make test, headless (on Debian 12 with
# --no-install-recommends: 18 packages, 350 MB installed, 10 s here).
test_pkgs=(clang:clang git:git lava-dispatcher:lava-run tftpd-hpa:/usr/sbin/in.tftpd
	ipmitool:ipmitool libclang-rt-14-dev:- chromium:chromium)
# The Linux peer builds its workloads static (libc.a is in libc6-dev), unpacks
# packages (dpkg-deb), writes modules.dep (kmod's depmod) and a cpio initramfs.
peer_pkgs=(libc6-dev:/usr/lib/x86_64-linux-gnu/libc.a cpio:cpio kmod:- gzip:gzip dpkg:dpkg-deb)
# Fetched, never installed: the stock kernel (a meta package naming the real
# linux-image-<version>-amd64) and the static busybox of the initramfs.
peer_fetch=(linux-image-amd64 busybox-static)
bochs_pkgs=(bochs:bochs bochsbios:/usr/share/bochs/BIOS-bochs-latest
	vgabios:/usr/share/vgabios/vgabios.bin)

have() { # PROBE PKG
	case $1 in
	/*) [ -e "$1" ] ;;
	-) dpkg-query -W -f='${Status}' "$2" 2>/dev/null | grep -q 'install ok installed' ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

missing() { # PKG:PROBE...: prints the packages whose probe fails
	local entry
	for entry in "$@"; do
		have "${entry#*:}" "${entry%%:*}" || printf '%s ' "${entry%%:*}"
	done
}

main() {
	local set=${1:-} check=${2:-} pkgs=() want log start
	case $set in
	run) pkgs=("${run_pkgs[@]}") ;;
	bochs) pkgs=("${bochs_pkgs[@]}") ;;
	peer)
		[ "$check" != --fetch-list ] || { echo "${peer_fetch[*]}"; exit 0; }
		pkgs=("${peer_pkgs[@]}") ;;
	test) pkgs=("${run_pkgs[@]}" "${bochs_pkgs[@]}" "${peer_pkgs[@]}" "${test_pkgs[@]}") ;;
	*) echo "usage: tools/deps.sh run|bochs|peer|test [--check|--fetch-list]" >&2; exit 2 ;;
	esac
	want=$(missing "${pkgs[@]}")
	[ -n "$want" ] || exit 0
	if [ "$check" = --check ]; then
		echo "$want"
		exit 1
	fi
	if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
		echo "mmlab: missing host packages; install them with:" >&2
		echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends $want" >&2
		exit 1
	fi
	log=${DEPS_LOG:-${TMPDIR:-/tmp}/mmlab-deps.log}
	start=$(date +%s)
	echo "mmlab: installing $(wc -w <<<"$want") packages ($want) ..." >&2
	if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $want; } >"$log" 2>&1; then
		echo "mmlab: apt-get failed; the last lines of $log:" >&2
		tail -n 5 "$log" >&2
		exit 1
	fi
	echo "mmlab: installed in $(($(date +%s) - start))s (apt-get's log: $log)" >&2
	want=$(missing "${pkgs[@]}")
	[ -z "$want" ] || { echo "mmlab: still missing after apt-get: $want" >&2; exit 1; }
}

main "$@"
