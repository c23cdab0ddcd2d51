#!/bin/bash
# What the build itself promises: hijack(1) depends on neither libcgroup
# nor libaudit (-Wl,--as-needed) and starts on a host without them, and
# the file capabilities configure.ac defines for hijack-shell are the ones
# `make -s print-caps` gives and README.md and hijack-shell(8) spell out.
. "$(dirname "$0")/lib.sh"

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' '; }
SH=$top_builddir/hijack-shell/hijack-shell

got=$(needed "$HIJACK")
like "hijack(1) links libc" "$got" '(^| )libc\.so'
diag "hijack(1) NEEDED: $got"
check "hijack(1) has no NEEDED libcgroup or libaudit" \
	bash -c "! grep -qE 'libcgroup|libaudit' <<<'$got'"
like "hijack-shell does need them (the check above can tell)" "$(needed "$SH")" 'libcgroup\.so.*libaudit\.so|libaudit\.so.*libcgroup\.so'

# both libraries hidden (/dev/null over them, in a mount namespace of our own)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	libs=$(ldd "$SH" | awk '/libcgroup|libaudit/ { print $3 }' | tr '\n' ' ')
	like "ldd finds both libraries hijack-shell needs" "$libs" '^/[^ ]+ /[^ ]+ $'
	# shellcheck disable=SC2016
	hide='for l in $LIBS; do mount --bind /dev/null "$l" || exit 99; done; "$@"'
	LIBS=$libs unshare --mount --propagation private bash -c "$hide" - "$SH" --version >/dev/null 2>&1
	rc=$?
	like "with them hidden, hijack-shell cannot start (exit $rc)" "$rc" '^127$'
	out=$(LIBS=$libs unshare --mount --propagation private bash -c "$hide" - "$HIJACK" --help 2>&1)
	is "with them hidden, hijack --help starts and exits 0" "$?" 0
	like "... and prints its usage" "$out" '^Usage:'
else
	skip "hijack starts with libcgroup and libaudit hidden" "needs root and unshare"
fi

caps=$(sed -n 's/^HIJACK_SHELL_CAPS = //p' "$top_builddir/Makefile")
like "configure.ac defines the capabilities of hijack-shell" "$caps" '^cap_[a-z_]+(,cap_[a-z_]+)*\+ep$'
is "make -s print-caps prints them" \
	"$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory -C "$top_builddir" print-caps)" "$caps"
check "hijack-shell(8) gives the same setcap" grep -qxF "setcap $caps \\e" "$top_srcdir/man/hijack-shell.8"
check "README.md's troubleshooting gives the same setcap" \
	grep -qF "\`setcap $caps /usr/sbin/hijack-shell\`" "$top_srcdir/README.md"
check "no other spelling of the capability list in README.md or man/" bash -c \
	"! grep -h 'cap_sys_admin,' '$top_srcdir/README.md' '$top_srcdir'/man/* | grep -vF '$caps'"
done_testing
