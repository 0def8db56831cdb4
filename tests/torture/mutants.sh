#!/bin/sh
# The torture's planted bugs (tests/torture/mutants/*.sh, docs/testing.md):
# each is applied alone to a scratch copy of the tree, where make test's host
# binaries are built: it is caught when a unit suite (build/test-host,
# build/test-host-smp: seed-independent) fails, or else when the host torture
# fails from every seed within the given seconds. Prints KTAP: per mutant,
# what caught it and after how many seconds, for the units and each seed.
#
# With --kernel, the kernel torture instead (./run.sh --torture --smp THREADS
# under TCG, one boot per seed; its seconds are the boot's wall time).
#
#   tests/torture/mutants.sh [--seconds=N] [--seeds="1 2 3 4 5"] [--threads=N] [--kernel] [NAME...]
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
seconds=30
seeds="1 2 3 4 5"
threads=4
kernel=0
names=
for a in "$@"; do
	case $a in
	--seconds=*) seconds=${a#--seconds=} ;;
	--seeds=*) seeds=${a#--seeds=} ;;
	--threads=*) threads=${a#--threads=} ;;
	--kernel) kernel=1 ;;
	-*) echo "usage: $0 [--seconds=N] [--seeds=\"S ...\"] [--threads=N] [NAME...]" >&2; exit 2 ;;
	*) names="$names $a" ;;
	esac
done
[ -n "$names" ] || names=$(cd "$root/tests/torture/mutants" && ls *.sh | sed 's/\.sh$//')

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mmlab-mutants.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

# A copy of the sources, with the torture's objects and their times, so each
# mutant rebuilds only what its edit touches.
copy_tree() {
	mkdir -p "$1"
	(cd "$root" && tar cf - --exclude=./.git --exclude=./build .) | (cd "$1" && tar xf -)
	if [ $kernel = 1 ] && [ -d "$root/build" ]; then
		(cd "$root" && tar cf - build) | (cd "$1" && tar xf -)
	elif [ -d "$root/build/torture" ]; then
		mkdir -p "$1/build"
		(cd "$root/build" && tar cf - $host_objs) | (cd "$1/build" && tar xf -)
	fi
}

# The unit suites of make test in tree $1: prints "caught SECONDS what" or "missed SECONDS".
run_units() {
	t0=$(date +%s.%N)
	what=
	for bin in test-host test-host-smp; do
		if ! timeout 600 "$1/build/$bin" >"$2.$bin" 2>&1; then
			what="$bin: $(grep -m1 -E '^ *# .*expected|not ok|ERROR: AddressSanitizer|runtime error' \
				"$2.$bin" | sed 's/^ *//' | cut -c1-100)"
			break
		fi
	done
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	if [ -n "$what" ]; then printf 'caught %.1f %s\n' "$dt" "$what"; else printf 'missed %.1f\n' "$dt"; fi
}

# One seed: prints "caught SECONDS what" or "missed SECONDS".
run_seed() {
	t0=$(date +%s.%N)
	if [ $kernel = 1 ]; then
		(cd "$1" && ./run.sh --torture --seconds "$seconds" --smp "$threads" --boot kernel \
			--accel tcg --timeout $((seconds * 4 + 300)) --results "$1/results-$2" \
			-- seed="$2") >"$3.run" 2>&1
		rc=$?
		cat "$1/results-$2/serial.log" >"$3" 2>/dev/null
	else
		timeout $((seconds * 3 + 120)) "$1/build/test-torture" --seconds="$seconds" \
			--seed="$2" --threads="$threads" >"$3" 2>&1
		rc=$?
	fi
	dt=$(echo "$(date +%s.%N) - $t0" | bc)
	what=$( (grep -m1 '# torture FAILED' "$3" ||
		grep -m1 -E 'ERROR: AddressSanitizer|runtime error|PANIC' "$3") |
		sed -e 's/^# torture FAILED (seed=[0-9]*): //' -e 's/^==[0-9]*==//' | cut -c1-110)
	if [ $rc -ne 0 ]; then
		printf 'caught %.1f %s\n' "$dt" "${what:-exit $rc}"
	else
		printf 'missed %.1f\n' "$dt"
	fi
}

# The unmutated objects first, so each copy starts from them up to date.
host_bins="build/test-torture build/test-host build/test-host-smp"
host_objs="torture host host-smp test-host test-host-smp"
if [ $kernel = 0 ] && ! make -C "$root" -j2 $host_bins >"$scratch/base.build" 2>&1; then
	echo "Bail out! the unmutated tree does not build"
	exit 1
fi
n=0
failed=0
set -- $names
echo "KTAP version 1"
echo "# mutants: seconds=$seconds seeds=\"$seeds\" threads=$threads"
echo "1..$#"
for name in $names; do
	n=$((n + 1))
	m="$root/tests/torture/mutants/$name.sh"
	tree="$scratch/$name"
	echo "# $name: $(sed -n 's/^# kind: //p' "$m")"
	copy_tree "$tree"
	if ! (cd "$tree" && sh "$m") >"$scratch/$name.apply" 2>&1; then
		echo "not ok $n $name # did not apply: $(head -c 200 "$scratch/$name.apply")"
		failed=$((failed + 1))
		continue
	fi
	if [ $kernel = 0 ] && ! (cd "$tree" && make -j2 $host_bins) >"$scratch/$name.build" 2>&1; then
		echo "not ok $n $name # did not build"
		tail -5 "$scratch/$name.build" | sed 's/^/# /'
		failed=$((failed + 1))
		continue
	fi
	missed=0
	if [ $kernel = 0 ]; then
		r=$(run_units "$tree" "$scratch/$name")
		echo "# $name unit suites: $r"
		case $r in caught*) echo "ok $n $name # caught by a unit suite"; rm -rf "$tree"; continue ;; esac
	fi
	for seed in $seeds; do
		r=$(run_seed "$tree" "$seed" "$scratch/$name.$seed.log")
		echo "# $name seed $seed: $r"
		case $r in missed*) missed=$((missed + 1)) ;; esac
	done
	if [ $missed -eq 0 ]; then
		echo "ok $n $name # caught by the torture from every seed"
	else
		echo "not ok $n $name # missed by $missed seeds"
		failed=$((failed + 1))
	fi
	rm -rf "$tree"
done
echo "# mutants: $((n - failed)) of $n caught"
[ $failed -eq 0 ]
