#!/usr/bin/env bash
# make test's fuzz step: runs every committed corpus input (tests/fuzz/corpus/)
# and crash regression input (tests/fuzz/regress/) once through its fuzz
# target, no fuzzing, and prints KTAP with one case per target. An input that
# crashes, trips a sanitizer or an invariant, or runs longer than
# FUZZ_REPLAY_TIMEOUT seconds fails its target. Every case is a skip, with
# the reason, when clang or its libFuzzer runtime (libclang-rt-14-dev) is
# missing. usage: O=build tests/fuzz/replay.sh
set -uo pipefail

here=$(cd "$(dirname "$0")/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$here/$O ;; esac
FUZZ_CC=${FUZZ_CC:-clang}
timeout_s=${FUZZ_REPLAY_TIMEOUT:-2}
targets=(acpi mb1 mb2 console cmdline)
out=$O/fuzz
mkdir -p "$out"

echo "KTAP version 1"
echo "1..${#targets[@]}"

skip_all() {
	local i=0 t
	for t in "${targets[@]}"; do
		i=$((i + 1))
		echo "ok $i fuzz_${t}_replay # SKIP $1"
	done
	exit 0
}

# Can this clang link a libFuzzer program with the sanitizers?
probe=$(mktemp -d "${TMPDIR:-/tmp}/mmlab-fuzz.XXXXXX")
trap 'rm -rf "$probe"' EXIT
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n);\n%s\n' \
	'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return (int)(d && !n); }' \
	> "$probe/p.c"
command -v "$FUZZ_CC" >/dev/null || skip_all "no $FUZZ_CC to build the fuzz targets with"
"$FUZZ_CC" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2> "$probe/err" ||
	skip_all "$FUZZ_CC cannot link -fsanitize=fuzzer (install libclang-rt-14-dev): $(head -n 1 "$probe/err")"

if ! make -s -C "$here" O="$O" FUZZ_CC="$FUZZ_CC" fuzz-build > "$out/build.log" 2>&1; then
	i=0
	for t in "${targets[@]}"; do
		i=$((i + 1))
		echo "not ok $i fuzz_${t}_replay"
	done
	echo "# build failed: $(tail -n 3 "$out/build.log" | tr '\n' ' ')"
	exit 1
fi

i=0
failed=0
for t in "${targets[@]}"; do
	i=$((i + 1))
	shopt -s nullglob
	corpus=("$here/tests/fuzz/corpus/$t"/*)
	regress=("$here/tests/fuzz/regress/$t"/*)
	shopt -u nullglob
	log=$out/replay-$t.log
	if [ $((${#corpus[@]} + ${#regress[@]})) = 0 ]; then
		echo "not ok $i fuzz_${t}_replay"
		echo "# no corpus or regression inputs for $t"
		failed=1
		continue
	fi
	# Each input runs once; libFuzzer stops at the first that fails.
	if "$out/fuzz_$t" -timeout="$timeout_s" "${corpus[@]}" "${regress[@]}" > "$log" 2>&1; then
		echo "# fuzz_$t: ${#corpus[@]} corpus and ${#regress[@]} regression inputs ran clean"
		echo "ok $i fuzz_${t}_replay"
	else
		echo "not ok $i fuzz_${t}_replay"
		grep -m1 -B1 -E 'ERROR|runtime error|invariant broken' "$log" | sed 's/^/# /'
		grep -m1 -E '^Running: ' "$log" >/dev/null &&
			echo "# last input: $(grep -E '^Running: ' "$log" | tail -n 1 | cut -d' ' -f2)"
		echo "# log: $log"
		failed=1
	fi
done
exit $failed
