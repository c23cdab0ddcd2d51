#!/bin/bash
# The unit and PAM tests under valgrind memcheck: no error and no
# definite leak in any test (Check forks each test; valgrind follows the
# fork and its exit code fails that test).  Run after `make check` built
# them:
#
#	tests/valgrind.sh [builddir]
#
# valgrind 3.19 (Debian 12) does not know pidfd_open or openat2.  openat2
# falls back to the library's component walk, so that path is covered
# here; tests tagged "pidfd" cannot run and are left out (they run under
# ASan in tests/asan.sh and natively in `make check`).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top}
progs=(check_lib check_conf check_pam check_pamstack)

if ! command -v valgrind >/dev/null; then
	echo "1..0 # SKIP valgrind not installed"
	exit 0
fi
mkdir -p "$build/tests/valgrind" || exit 1
echo "1..${#progs[@]}"
n=0 failed=0
for p in "${progs[@]}"; do
	n=$((n + 1))
	log=$build/tests/valgrind/$p.log
	if [ ! -x "$build/tests/$p" ]; then
		echo "not ok $n - valgrind $p: not built (run make check first)"
		failed=1
		continue
	fi
	# through a pipe: Check reopens /dev/stdout for its TAP
	(cd "$build" && CK_EXCLUDE_TAGS=pidfd CK_DEFAULT_TIMEOUT=120 \
		CK_TIMEOUT_MULTIPLIER=10 \
		valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
		--error-exitcode=1 "tests/$p") 2>&1 | cat >"$log"
	rc=${PIPESTATUS[0]}
	pass=$(grep -c '^ok ' "$log")
	fail=$(grep -c '^not ok ' "$log")
	if [ "$rc" = 0 ] && [ "$fail" = 0 ] && [ "$pass" -gt 0 ]; then
		echo "ok $n - valgrind $p: $pass tests, no errors or definite leaks"
	else
		grep -E '^not ok|^==[0-9]+== [A-Z0-9]' "$log" | head -10 |
			sed 's/^/# /'
		echo "not ok $n - valgrind $p: exit $rc, $pass passed, $fail failed (log $log)"
		failed=1
	fi
done
exit $failed
