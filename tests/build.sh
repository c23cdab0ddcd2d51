#!/bin/bash
# What the build itself promises: hijack(1) does not depend on libaudit
# (-Wl,--as-needed) and starts on a host without it; nothing depends on
# libcgroup (a v1 controller's hierarchy comes from our own mount table);
# and the file capabilities configure.ac defines for hijack-shell are the
# ones `make -s print-caps` gives and README.md and hijack-shell(8) spell
# out.
. "$(dirname "$0")/lib.sh"

needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p' | tr '\n' ' '; }
SH=$top_builddir/hijack-shell/hijack-shell
PAM=$top_builddir/pam_hijack/.libs/pam_hijack.so

got=$(needed "$HIJACK")
like "hijack(1) links libc" "$got" '(^| )libc\.so'
diag "hijack(1) NEEDED: $got"
check "hijack(1) has no NEEDED libaudit" \
	bash -c "! grep -qE 'libaudit' <<<'$got'"
like "hijack-shell does need it (the check above can tell)" "$(needed "$SH")" 'libaudit\.so'
for f in "$HIJACK" "$SH" "$PAM"; do
	check "${f#"$top_builddir"/} has no NEEDED libcgroup" \
		bash -c "! grep -q libcgroup <<<'$(needed "$f")'"
done

# libaudit hidden (/dev/null over it, in a mount namespace of our own)
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	libs=$(ldd "$SH" | awk '/libaudit/ { print $3 }' | tr '\n' ' ')
	like "ldd finds the libaudit hijack-shell needs" "$libs" '^/[^ ]+ $'
	# shellcheck disable=SC2016
	hide='for l in $LIBS; do mount --bind /dev/null "$l" || exit 99; done; "$@"'
	LIBS=$libs unshare --mount --propagation private bash -c "$hide" - "$SH" --version >/dev/null 2>&1
	rc=$?
	like "with it hidden, hijack-shell cannot start (exit $rc)" "$rc" '^127$'
	out=$(LIBS=$libs unshare --mount --propagation private bash -c "$hide" - "$HIJACK" --help 2>&1)
	is "with it hidden, hijack --help starts and exits 0" "$?" 0
	like "... and prints its usage" "$out" '^Usage:'
else
	skip "hijack starts with libaudit hidden" "needs root and unshare"
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
