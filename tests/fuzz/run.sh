#!/bin/bash
# Build the libFuzzer harnesses with clang-14 (ASan + UBSan + libFuzzer)
# through the build system, in a copy of the sources configured with
# --enable-fuzzing (build-fuzz/, as tests/asan.sh does for ASan; the
# harnesses and what they link are in tests/fuzz/local.mk), run each for
# FUZZ_SECONDS (default 60) from its seed corpus, and print TAP.  A crash,
# leak, hang or sanitizer report fails the run and leaves the input in
# $FUZZ_OUT.
#
#	tests/fuzz/run.sh [harness...]	# conf proc shell args pamopt sshdconf;
#					# default: all
#
# FUZZ_SECONDS=600 FUZZ_OUT=/var/tmp/fuzz tests/fuzz/run.sh conf  # offline
# FUZZ_SECONDS=0 only replays the checked-in corpus (past findings included).
# FUZZ_JOBS=N runs N harnesses at a time (default: one a CPU).
# FUZZ_BUILD=DIR builds there (default: build-fuzz beside the sources).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-$top/tests/fuzz/out}
cc=${FUZZ_CC:-clang-14}
dir=${FUZZ_BUILD:-$top/build-fuzz}
src=$dir/src
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(conf proc shell args pamopt sshdconf)

if ! command -v "$cc" >/dev/null; then
	echo "1..0 # SKIP $cc not found (apt-get install clang-14 libclang-rt-14-dev)"
	exit 0
fi
mkdir -p "$out" || exit 1

# a copy of the sources: automake builds out of tree only from an
# unconfigured source tree, and tests/run builds in tree
build_fail() {
	echo "1..${#harnesses[@]}"
	tail -20 "$blog" | sed 's/^/# /'
	n=0
	for h in "${harnesses[@]}"; do
		n=$((n + 1))
		echo "not ok $n - fuzz $h: $1 (log $blog)"
	done
	exit 1
}
rm -rf "$src" && mkdir -p "$src" || exit 1
blog=$dir/build.log
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -co --exclude-standard -z |
		rsync -a --from0 --files-from=- ./ "$src/")
else
	rsync -a --exclude=/build-fuzz --exclude=/build-asan \
		--exclude=/tests/fuzz/out "$top/" "$src/" &&
		{ [ ! -f "$src/Makefile" ] || make -C "$src" distclean >/dev/null; }
fi >"$blog" 2>&1 || build_fail "cannot copy the sources"
progs=()
for h in "${harnesses[@]}"; do progs+=("tests/fuzz/fuzz_$h"); done
# not inside a make of ours: no make variables leak in
# shellcheck disable=SC2016 # expanded by sh -c
if ! (cd "$src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL sh -c \
	'./autogen.sh && ./configure CC="$0" CFLAGS="-g -O1" --enable-fuzzing \
	--enable-werror && make -j2 "$@"' "$cc" "${progs[@]}") \
	>>"$blog" 2>&1; then
	build_fail "build failed"
fi

# one harness: its TAP line (number N) in $out/result_$h, exit status 1
# if it found anything
fuzz_one() {
	local h=$1 n=$2 bin=$src/tests/fuzz/fuzz_$1 log=$out/fuzz_$1.log
	local limit rc execs

	: >"$log"
	# new inputs go to a scratch corpus; the checked-in seeds stay small
	mkdir -p "$out/corpus_$h" "$out/crash_$h"
	if [ "$secs" -gt 0 ] 2>/dev/null; then
		limit=(-max_total_time="$secs")
	else
		limit=(-runs=0)	# libFuzzer takes 0 seconds as "forever"
	fi
	"$bin" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -print_final_stats=1 \
		-artifact_prefix="$out/crash_$h/" \
		"$out/corpus_$h" "$here/corpus/$h" >>"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	if [ "$rc" = 0 ] && [ -n "$execs" ]; then
		echo "ok $n - fuzz $h: $execs execs, no crash" >"$out/result_$h"
		return 0
	fi
	{
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" |
			head -10 | sed 's/^/# /'
		echo "not ok $n - fuzz $h: exit $rc after ${execs:-?} execs (log $log)"
	} >"$out/result_$h"
	return 1
}

# Each harness is one process on one CPU: FUZZ_JOBS of them (default:
# one a CPU) run at once, each for its own FUZZ_SECONDS.
jobs=${FUZZ_JOBS:-$(nproc)}
echo "1..${#harnesses[@]}"
n=0 failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	rm -f "$out/result_$h"
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
	done
	fuzz_one "$h" "$n" &
done
wait
n=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	if [ -f "$out/result_$h" ]; then
		cat "$out/result_$h"
		grep -q '^not ok' "$out/result_$h" && failed=1
	else
		echo "not ok $n - fuzz $h: no result"
		failed=1
	fi
done
exit $failed
