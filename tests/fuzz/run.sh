#!/bin/bash
# Build the libFuzzer harnesses straight from the library sources with
# clang-14 (ASan + UBSan + libFuzzer), run each for FUZZ_SECONDS (default
# 60) from its seed corpus, and print TAP.  A crash, leak, hang or
# sanitizer report fails the run and leaves the input in $FUZZ_OUT.
#
#	tests/fuzz/run.sh [harness...]	# conf proc shell args pamopt sshdconf;
#					# default: all
#
# FUZZ_SECONDS=600 FUZZ_OUT=/var/tmp/fuzz tests/fuzz/run.sh conf  # offline
# FUZZ_SECONDS=0 only replays the checked-in corpus (past findings included).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
secs=${FUZZ_SECONDS:-60}
out=${FUZZ_OUT:-$top/tests/fuzz/out}
cc=${FUZZ_CC:-clang-14}
harnesses=("$@")
[ ${#harnesses[@]} -gt 0 ] || harnesses=(conf proc shell args pamopt sshdconf)

if ! command -v "$cc" >/dev/null; then
	echo "1..0 # SKIP $cc not found (apt-get install clang-14 libclang-rt-14-dev)"
	exit 0
fi
mkdir -p "$out" || exit 1

# the library needs only what AC_USE_SYSTEM_EXTENSIONS gives it
printf '#define _GNU_SOURCE 1\n' > "$out/config.h"
cflags=(-g -O1 "-fsanitize=fuzzer,address,undefined"
	-fno-sanitize-recover=all -fno-omit-frame-pointer
	-Wall -Wextra -Wno-unused-parameter -Werror
	-I"$out" -I"$top/lib" -DSCONFDIR='"/etc/security"')
# shellcheck disable=SC2207
cgflags=($(pkg-config --cflags libcgroup 2>/dev/null))
# shellcheck disable=SC2207
cglibs=($(pkg-config --libs libcgroup 2>/dev/null || echo -lcgroup))
libsrc=("$top/lib/cgroup.c" "$top/lib/proc.c")

echo "1..${#harnesses[@]}"
n=0 failed=0
for h in "${harnesses[@]}"; do
	n=$((n + 1))
	case $h in
	conf) src=("$here/fuzz_$h.c" "${libsrc[@]}" "$top/lib/conf.c") ;;
	shell) src=("$here/fuzz_$h.c" -I"$top/hijack-shell"
		"$top/hijack-shell/account.c" "$top/hijack-shell/caps.c" "$top/hijack-shell/environ.c") ;;
	args) src=("$here/fuzz_$h.c" -I"$top/hijack" -I"$top/hijack-shell"
		"$top/hijack/args.c" "$top/hijack-shell/args.c") ;;
	pamopt) src=("$here/fuzz_$h.c" -I"$top/pam_hijack"
		"$top/pam_hijack/options.c") ;;
	sshdconf) src=("$here/fuzz_$h.c" -I"$top/hijack-shell"
		"$top/hijack-shell/sshdconf.c") ;;
	*) src=("$here/fuzz_$h.c" "${libsrc[@]}") ;;
	esac
	bin=$out/fuzz_$h
	log=$out/fuzz_$h.log
	if ! "$cc" "${cflags[@]}" "${cgflags[@]}" -o "$bin" "${src[@]}" \
		"${cglibs[@]}" >"$log" 2>&1; then
		sed 's/^/# /' "$log" | tail -20
		echo "not ok $n - fuzz $h: build failed"
		failed=1
		continue
	fi
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
		echo "ok $n - fuzz $h: $execs execs, no crash"
	else
		grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" |
			head -10 | sed 's/^/# /'
		echo "not ok $n - fuzz $h: exit $rc after ${execs:-?} execs (log $log)"
		failed=1
	fi
done
exit $failed
