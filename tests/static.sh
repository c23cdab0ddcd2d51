#!/bin/bash
# Static analysis of the C sources, as TAP: cppcheck (warning,
# portability, performance) and gcc -fanalyzer.  Any finding fails; the
# few suppressions are inline (cppcheck-suppress) and explained in
# tests/STATIC.md.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
dirs=()
for d in lib hijack pam_hijack hijack-shell; do
	[ -d "$d" ] && dirs+=("$d")
done
mapfile -t srcs < <(find "${dirs[@]}" -name '*.c' | sort)
log=$top/tests/static.log
: >"$log"
# configure's config.h, or the little of it the sources use
inc=$(mktemp -d) || exit 1
trap 'rm -rf "$inc"' EXIT
if [ -f config.h ]; then
	cp config.h "$inc/"
else
	printf '#define _GNU_SOURCE 1\n#define PACKAGE_VERSION "0"\n' \
		>"$inc/config.h"
fi
defs=(-I"$inc" -Ilib -DSCONFDIR='"/etc/security"' -DSBINDIR='"/usr/sbin"'
	-DHJ_WAITER_PATH='"/usr/libexec/hijack/hijack-shell-wait"')

echo "1..2"
failed=0
if ! command -v cppcheck >/dev/null; then
	echo "ok 1 - cppcheck # SKIP not installed"
elif cppcheck -q --enable=warning,portability,performance \
	--error-exitcode=1 --inline-suppr "${defs[@]}" "${dirs[@]}" \
	>>"$log" 2>&1; then
	echo "ok 1 - cppcheck: ${#srcs[@]} files in ${dirs[*]}, no findings"
else
	grep -E '^\S+:[0-9]+' "$log" | head -10 | sed 's/^/# /'
	echo "not ok 1 - cppcheck: findings (log $log)"
	failed=1
fi

bad=0
# shellcheck disable=SC2207
cgflags=($(pkg-config --cflags libaudit pam 2>/dev/null))
for f in "${srcs[@]}"; do
	gcc -fanalyzer -O2 -Wall -Wextra -Wno-unused-parameter \
		-Werror "${defs[@]}" "${cgflags[@]}" -c -o /dev/null "$f" \
		>>"$log" 2>&1 || bad=$((bad + 1))
done
if [ "$bad" = 0 ]; then
	echo "ok 2 - gcc -fanalyzer: ${#srcs[@]} files, no findings"
else
	grep -E 'warning|error' "$log" | head -10 | sed 's/^/# /'
	echo "not ok 2 - gcc -fanalyzer: findings in $bad files (log $log)"
	failed=1
fi
exit $failed
