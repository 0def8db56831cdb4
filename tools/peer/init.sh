#!/bin/busybox sh
# /init of mmlab's Linux peer initramfs (built by tools/peer/linux.sh):
# mounts the kernel's file systems (tracefs too, for mmpeer's in-kernel
# timing of tlb: tools/peer/src/peer_ftrace.c), loads the modules listed in
# /modules.load (zram and what it needs, in load order), makes a zram swap
# device, brings every CPU online (linux.sh --exact boots with maxcpus=1),
# runs /mmpeer with the words in /peer.args, and powers off. Its
# output goes to the serial console; mmpeer's last line is the trailer.
# The initramfs has no device nodes: until devtmpfs is up this shell has no
# standard streams, so nothing may print before the exec below.
/bin/busybox mount -t devtmpfs devtmpfs /dev
exec 0</dev/console 1>/dev/console 2>&1
/bin/busybox mount -t proc proc /proc
/bin/busybox --install -s /bin
export PATH=/bin
mount -t sysfs sysfs /sys

say() { echo "# peer: $*"; }

mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null ||
	say "cannot mount tracefs on /sys/kernel/tracing: no in-kernel timing"

for m in $(cat /modules.load); do
	insmod "/modules/$m" || say "insmod $m failed"
done
# zram swap of half the memory: swapfree swaps at most swapfree_mb out.
if [ -e /sys/block/zram0/disksize ]; then
	kb=$(sed -n 's/^MemTotal: *\([0-9]*\) kB/\1/p' /proc/meminfo)
	echo "$((kb / 2))K" > /sys/block/zram0/disksize &&
		mkswap /dev/zram0 > /dev/null && swapon /dev/zram0 &&
		say "swap: zram0, $((kb / 2048)) MiB, $(cat /sys/block/zram0/comp_algorithm)"
else
	say "no /sys/block/zram0: the zram module did not load"
fi
for c in /sys/devices/system/cpu/cpu[0-9]*; do
	[ ! -e "$c/online" ] || [ "$(cat "$c/online")" = 1 ] || echo 1 > "$c/online" ||
		say "cannot bring ${c##*/} online"
done
say "$(uname -sr), $(grep -c ^processor /proc/cpuinfo) CPUs"
/mmpeer $(cat /peer.args)
say "mmpeer exit status $?"
sync
poweroff -f
