#!/bin/bash
# The Debian packages: dpkg-buildpackage -us -uc -b from a copy of the
# source, then what each .deb holds (dpkg-deb -c) and declares (depends,
# conffiles, maintainer scripts), and lintian.  libpam-hijack has the PAM
# module, hijack.conf and their manual pages; hijack the programs.  Runs
# only with HIJACK_TEST_DEB=1 (tests/run sets it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/deb-build.sh"
[ "${HIJACK_TEST_DEB:-0}" = 1 ] || skip_all "set HIJACK_TEST_DEB=1 to build the .debs"

W=$HJ_TMP/deb
deb_build "$W"
rc=$?
is "dpkg-buildpackage -us -uc -b succeeds" "$rc" 0
[ $rc = 0 ] || { grep -E "^(not ok|FAIL:|ERROR:)|^tests/.*:F:" "$W/build.log" | head -20 | sed 's/^/# /'; sed 's/^/# /' "$W/build.log" | tail -30; done_testing; exit 0; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
pam=$(ls "$W"/libpam-hijack_*_"$arch".deb 2>/dev/null | head -n1)
prog=$(ls "$W"/hijack_*_"$arch".deb 2>/dev/null | head -n1)
check "a libpam-hijack_*_$arch.deb was built" test -f "$pam"
check "a hijack_*_$arch.deb was built" test -f "$prog"
n=0
for d in "$W"/*.deb; do case $d in *-dbgsym_*) ;; *) n=$((n + 1)) ;; esac; done
is "no other package was built (besides -dbgsym)" "$n" 2

# files (no directories) of a package
files() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sort; }
cp_=$(files "$pam")
cg=$(files "$prog")
is "libpam-hijack holds the module, hijack.conf, their man pages, the pam-auth-update profile, the examples" \
	"$(printf '%s\n' "$cp_" | tr '\n' ' ')" \
	"$(printf '%s\n' ./etc/security/hijack.conf \
		"./lib/$multiarch/security/pam_hijack.so" \
		./usr/share/doc/libpam-hijack/README.md.gz \
		./usr/share/doc/libpam-hijack/changelog.gz \
		./usr/share/doc/libpam-hijack/copyright \
		./usr/share/doc/libpam-hijack/examples/ansible/hijack.yml \
		./usr/share/doc/libpam-hijack/examples/ansible/team.conf.j2 \
		./usr/share/doc/libpam-hijack/examples/ansible/teams.yml \
		./usr/share/doc/libpam-hijack/examples/runtimes.conf \
		./usr/share/lintian/overrides/libpam-hijack \
		./usr/share/man/man5/hijack.conf.5.gz \
		./usr/share/man/man8/pam_hijack.8.gz \
		./usr/share/pam-configs/hijack | sort | tr '\n' ' ')"
is "hijack holds the programs and their man pages" \
	"$(printf '%s\n' "$cg" | tr '\n' ' ')" \
	"$(printf '%s\n' ./usr/bin/hijack ./usr/sbin/hijack-shell \
		./usr/libexec/hijack/hijack-shell-wait \
		./usr/share/doc/hijack/README.md.gz \
		./usr/share/doc/hijack/changelog.gz \
		./usr/share/doc/hijack/copyright \
		./usr/share/lintian/overrides/hijack \
		./usr/share/man/man1/hijack.1.gz \
		./usr/share/man/man8/hijack-shell.8.gz | sort | tr '\n' ' ')"
c=$(dpkg-deb -c "$prog" | awk '{ print $1, $6 }')
like "hijack-shell is 0755 (file capabilities, not setuid)" "$c" "^-rwxr-xr-x \./usr/sbin/hijack-shell$"
like "its waiter is 0711 (users may run it, not read it: non-dumpable from its exec on)" "$c" "^-rwx--x--x \./usr/libexec/hijack/hijack-shell-wait$"
c="$c
$(dpkg-deb -c "$pam" | awk '{ print $1, $6 }')"
check "no setuid or setgid file" bash -c "! grep -Eq '^-..[sS]|^-.....[sS]' <<<'$c'"
check "no libtool archive in the PAM directory" bash -c "! grep -q 'security/.*\.la$' <<<'$c'"

field() { dpkg-deb -f "$1" "$2"; }
ver=$(field "$prog" Version)
like "hijack depends on exactly its own libpam-hijack (hijack-shell reads its hijack.conf)" \
	"$(field "$prog" Depends)" "(^|, )libpam-hijack \(= $ver\)(,|$)"
like "hijack depends on libcap2-bin (postinst runs setcap)" "$(field "$prog" Depends)" "(^|, )libcap2-bin(,|$)"
like "libpam-hijack depends on libpam-runtime (pam-auth-update)" \
	"$(field "$pam" Depends)" "(^|, )libpam-runtime(,|$)"
like "libpam-hijack recommends hijack (the shell that enters)" "$(field "$pam" Recommends)" "(^|, )hijack(,|$)"
is "libpam-hijack is Multi-Arch: same, like other PAM modules" "$(field "$pam" Multi-Arch)" same

P=$HJ_TMP/ctl-pam G=$HJ_TMP/ctl-prog
dpkg-deb -e "$pam" "$P"
dpkg-deb -e "$prog" "$G"
is "libpam-hijack: /etc/security/hijack.conf is its only conffile" "$(cat "$P/conffiles" 2>/dev/null)" /etc/security/hijack.conf
check "hijack: no conffile" test ! -e "$G/conffiles"
like "hijack postinst gives hijack-shell its file capabilities" "$(cat "$G/postinst")" \
	"setcap \"\\\$CAPS\" /usr/sbin/hijack-shell"
# configure.ac's definition, which debian/rules substitutes
want_caps=$(sed -n 's/^HIJACK_SHELL_CAPS = //p' "$top_builddir/Makefile")
caps=$(sed -n 's/^CAPS=//p' "$G/postinst")
like "configure defines the capabilities of hijack-shell" "$want_caps" '^cap_[a-z_,]+\+ep$'
is "hijack postinst: CAPS= exactly configure's HIJACK_SHELL_CAPS" "$caps" "$want_caps"
check "hijack postinst: no #TOKEN# left unsubstituted" bash -c "! grep -q '#[A-Z_]*#' '$G/postinst'"
check "hijack-shell(8) documents the same setcap as postinst runs" \
	grep -qxF "setcap $caps \\e" "$top_srcdir/man/hijack-shell.8"
like "hijack postinst keeps hijack-shell out of /etc/shells (su -s)" "$(cat "$G/postinst")" "^	remove-shell /usr/sbin/hijack-shell$"
check "... and never adds it" bash -c "! grep -q add-shell '$G/postinst'"
like "hijack postrm removes it on remove and purge" "$(cat "$G/postrm")" "^	remove-shell /usr/sbin/hijack-shell$"
like "libpam-hijack postinst registers the pam-auth-update profile" "$(cat "$P/postinst")" "^	pam-auth-update --package$"
like "libpam-hijack prerm takes it out of the stacks on remove" "$(cat "$P/prerm")" \
	"^	pam-auth-update --package --remove hijack$"
prof=$(dpkg-deb --fsys-tarfile "$pam" | tar -xO ./usr/share/pam-configs/hijack)
like "the pam-auth-update profile is not enabled by default" "$prof" "^Default: no$"
like "the profile's account and session lines name pam_hijack.so" \
	"$(grep -c '^	required	pam_hijack.so$' <<<"$prof")" "^2$"
like "the module exports only pam_sm_*" \
	"$(dpkg-deb --fsys-tarfile "$pam" | tar -xO "./lib/$multiarch/security/pam_hijack.so" > "$HJ_TMP/m.so"; nm -D --defined-only "$HJ_TMP/m.so" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')" \
	"^(pam_sm_[a-z_]+ )+$"
for s in "$P"/postinst "$P"/prerm "$G"/postinst "$G"/postrm; do
	check "$(basename "$(dirname "$s")")/$(basename "$s") is valid sh" sh -n "$s"
done
if command -v lintian >/dev/null 2>&1; then
	out=$(lintian --tag-display-limit 0 "$W"/hijack_*.changes 2>&1)
	is "lintian reports no error" "$(grep -c '^E:' <<<"$out")" 0
	is "lintian reports no warning" "$(grep -c '^W:' <<<"$out")" 0
	grep -E '^(E|W|I):' <<<"$out" | sed 's/^/# /'
else
	skip "lintian reports no error" "no lintian (apt-get install lintian)"
fi
done_testing
