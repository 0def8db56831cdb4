#!/bin/bash
# The one-file promise, with a real design (docs/adding-a-design.md): in a
# scratch copy of the tracked tree, mm/tlb/designs/serial.c is moved out,
# the kernel and every host test binary are built and the design must be
# gone from them; moved back in (git status: that file and no changed line),
# built again, it must be in the kernel's design set, its host cases must
# run and pass, and the torture must run its case. Then each linker-set
# limit is lowered below what is registered, and the link must fail by name.
#   tests/design_plugin.sh [LOGDIR]    (O= the build folder, default build)
# Prints one 'ok NAME' or 'not ok NAME' line per check; exit 1 if any failed.
here=$(cd "$(dirname "$0")/.." && pwd)
O=${O:-build}
mkdir -p "$O" && out=$(cd "$O" && pwd)/design-plugin
logs=${1:-$out}
design=mm/tlb/designs/serial.c
name=serial
tree=$out/tree
failed=0
rm -rf "$tree" && mkdir -p "$tree" "$logs"
logs=$(cd "$logs" && pwd)

check() { # NAME OK(1/0) [WHY]
	if [ "$2" = 1 ]; then echo "ok $1"; else echo "not ok $1${3:+ # $3}"; failed=1; fi
}
build() { # LOG: the kernel and every host test binary of the scratch tree
	make -s -C "$tree" O="$tree/build" "$tree/build/mmlab.elf" "$tree/build/test-host" "$tree/build/test-host-smp" \
		"$tree/build/test-torture" > "$logs/$1" 2>&1
}
listed() { # 1 when the kernel links the design's registration, else 0
	nm "$tree/build/mmlab.elf" | grep -c "design_entry_tlb_ops_$name\$"
}
host_lines() { # the host tests' diagnostics that name the design
	grep -ac "^ *# $name[,:]" "$logs/$1"
}

# The tracked tree, and the objects already built (their times kept), so
# that only what the design's absence changes is rebuilt.
git -C "$here" ls-files -z | (cd "$here" && tar --null -T - -cf -) | tar -C "$tree" -xf -
[ -d "$out/../kernel" ] && (cd "$out/.." && tar cf - kernel host host-smp torture 2>/dev/null) |
	(mkdir -p "$tree/build" && tar -C "$tree/build" -xf -)
mv "$tree/$design" "$out/$name.c"
(cd "$tree" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm base)

if build plugin-out-build.log; then
	check design_plugin_out_builds 1
	check design_plugin_out_not_in_kernel "$([ "$(listed)" = 0 ] && echo 1 || echo 0)"
	"$tree/build/test-host" > "$logs/plugin-out-host.ktap" 2>&1
	check design_plugin_out_host_tests "$([ $? = 0 ] && echo 1 || echo 0)"
	check design_plugin_out_not_in_host "$([ "$(host_lines plugin-out-host.ktap)" = 0 ] && echo 1 || echo 0)"
	"$tree/build/test-torture" --seconds=2 --case=$name > "$logs/plugin-out-torture.log" 2>&1
	check design_plugin_out_not_in_torture \
		"$(grep -aq "torture_$name" "$logs/plugin-out-torture.log" && echo 0 || echo 1)"
else
	check design_plugin_out_builds 0 "$(tail -n 3 "$logs/plugin-out-build.log" | tr '\n' ' ')"
fi

mv "$out/$name.c" "$tree/$design"
touch "$tree/$design" # as a new file is: newer than every object
(cd "$tree" && git status --porcelain) > "$logs/plugin-status.log"
check design_plugin_one_file "$([ "$(cat "$logs/plugin-status.log")" = "?? $design" ] && echo 1 || echo 0)" \
	"$(tr '\n' ' ' < "$logs/plugin-status.log")"
if build plugin-in-build.log; then
	check design_plugin_in_builds 1
	check design_plugin_in_kernel "$([ "$(listed)" = 1 ] && echo 1 || echo 0)"
	"$tree/build/test-host" > "$logs/plugin-in-host.ktap" 2>&1
	check design_plugin_in_host_tests "$([ $? = 0 ] && echo 1 || echo 0)"
	check design_plugin_in_host "$([ "$(host_lines plugin-in-host.ktap)" -gt 0 ] && echo 1 || echo 0)"
	"$tree/build/test-torture" --seconds=2 --case=$name > "$logs/plugin-in-torture.log" 2>&1
	check design_plugin_in_torture "$(grep -aq "^ok [0-9]* torture_$name\$" "$logs/plugin-in-torture.log" &&
		echo 1 || echo 0)"
else
	check design_plugin_in_builds 0 "$(tail -n 3 "$logs/plugin-in-build.log" | tr '\n' ' ')"
fi

# One too many: each limit set to one less than the kernel registers.
for set in bench:BENCH_MAX_BENCHES:BENCH_ENTRY_BYTES design:DESIGN_SET_MAX:DESIGN_ENTRY_BYTES; do
	IFS=: read -r s max bytes <<< "$set"
	a=$(nm "$tree/build/mmlab.elf" | sed -n "s/^\([0-9a-f]*\) . __start_${s}_set\$/\1/p")
	b=$(nm "$tree/build/mmlab.elf" | sed -n "s/^\([0-9a-f]*\) . __stop_${s}_set\$/\1/p")
	n=$((0x${b:-0} - 0x${a:-0}))
	per=$(sed -n "s/^#define $bytes \([0-9]*\).*/\1/p" "$tree/include/linker_sets.h")
	lower=$((n / per - 1))
	sed -i "s/$max \* $bytes/$lower * $bytes/" "$tree/kernel/sets.ld.S"
	make -s -C "$tree" O="$tree/build" "$tree/build/mmlab.elf" > "$logs/plugin-limit-$s.log" 2>&1
	rc=$?
	cp "$here/kernel/sets.ld.S" "$tree/kernel/sets.ld.S"
	check "design_plugin_${s}_limit_is_a_link_error" \
		"$([ $rc != 0 ] && grep -q "more .* registered than $max" "$logs/plugin-limit-$s.log" &&
			echo 1 || echo 0)" "limit $lower of $((n / per)): exit $rc"
done
exit $failed
