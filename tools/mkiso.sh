#!/bin/sh
# Builds a hybrid BIOS/UEFI GRUB ISO holding one kernel and one grub.cfg.
# usage: mkiso.sh OUT.iso KERNEL.elf GRUB.cfg
set -eu
out=$1 kernel=$2 cfg=$3
stage=$(mktemp -d "${TMPDIR:-/tmp}/mmlab-iso.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/boot/grub"
cp "$kernel" "$stage/boot/mmlab.elf"
cp "$cfg" "$stage/boot/grub/grub.cfg"
log=$stage.log
if ! grub-mkrescue -o "$out" "$stage" >"$log" 2>&1; then
	cat "$log" >&2
	rm -f "$log"
	exit 1
fi
rm -f "$log"
