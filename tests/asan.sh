#!/bin/bash
# `make check` again (all but the soak and package tests), built a second
# time with --enable-asan --enable-ubsan --enable-werror in build-asan/
# (a copy of the sources: automake builds out of tree only from an
# unconfigured source tree, and tests/run builds in tree).  One TAP line
# a test program, from its .trs.
#
#	tests/asan.sh [dir]	# default: build-asan
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$top/build-asan}
src=$dir/src
log=$dir/build.log

rm -rf "$src" && mkdir -p "$src" || exit 1
if git -C "$top" rev-parse --git-dir >/dev/null 2>&1; then
	(cd "$top" && git ls-files -co --exclude-standard -z |
		rsync -a --from0 --files-from=- ./ "$src/")
else
	rsync -a --exclude=/build-asan "$top/" "$src/" &&
		{ [ ! -f "$src/Makefile" ] || make -C "$src" distclean >/dev/null; }
fi || { echo "1..1"; echo "not ok 1 - asan: cannot copy the sources"; exit 1; }

cd "$src" || exit 1
if ! { ./autogen.sh && ./configure --enable-asan --enable-ubsan \
	--enable-werror && make -j2; } >"$log" 2>&1; then
	echo "1..1"
	tail -20 "$log" | sed 's/^/# /'
	echo "not ok 1 - asan+ubsan build failed (log $log)"
	exit 1
fi
rm -f tests/*.trs tests/*/*.trs
# All of make check but the soak (1 200 logins of the same paths, run once
# in the plain build) and the package tests (the .debs are built without
# sanitizers).  HIJACK_ASAN_TESTS=all runs the whole make check.
tests=${HIJACK_ASAN_TESTS:-tests/check_lib tests/check_conf tests/check_pam \
tests/hijack-cli.sh tests/pam-audit.sh tests/e2e-ssh.sh tests/attacks.sh \
tests/check.sh tests/audit-faults.sh tests/audit-review.sh tests/recording.sh \
tests/e2e-runtimes.sh tests/e2e-rootless.sh tests/forward.sh}
if [ "$tests" = all ]; then
	HIJACK_TEST_DEB=0 make -j1 check >>"$log" 2>&1
else
	HIJACK_TEST_DEB=0 make -j1 check TESTS="$tests" >>"$log" 2>&1
fi
rc=$?
mapfile -t trs < <(ls tests/*.trs tests/*/*.trs 2>/dev/null)
echo "1..$((${#trs[@]} + 1))"
n=0 failed=0
for t in "${trs[@]}"; do
	n=$((n + 1))
	name=${t%.trs}
	pass=$(grep -c '^:test-result: PASS' "$t")
	skip=$(grep -c '^:test-result: SKIP' "$t")
	bad=$(grep -Ec '^:test-result: (FAIL|ERROR|XPASS)' "$t")
	if [ "$bad" != 0 ]; then
		grep -E '^(not ok|Bail out)|ERROR: AddressSanitizer|runtime error' \
			"$name.log" | head -5 | sed 's/^/# /'
		echo "not ok $n - asan+ubsan $name: $bad of $((pass + bad + skip)) failed (log $src/$name.log)"
		failed=1
	elif [ "$pass" = 0 ]; then
		echo "ok $n - asan+ubsan $name # SKIP $(sed -n 's/.*# SKIP //p' "$name.log" | head -1)"
	else
		echo "ok $n - asan+ubsan $name: $pass passed, $skip skipped"
	fi
done
n=$((n + 1))
if [ "$rc" = 0 ] && [ ${#trs[@]} -gt 0 ]; then
	echo "ok $n - asan+ubsan make check: exit 0"
else
	echo "not ok $n - asan+ubsan make check: exit $rc, ${#trs[@]} programs ran (log $log)"
	failed=1
fi
exit $failed
