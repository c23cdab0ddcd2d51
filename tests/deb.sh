#!/bin/bash
# The Debian package: dpkg-buildpackage -us -uc -b from a copy of the
# source, then what the .deb holds (dpkg-deb -c) and declares (conffiles,
# maintainer scripts).  About two minutes on 2 cores: it runs only with
# HIJACK_TEST_DEB=1 (tests/run sets it).
. "$(dirname "$0")/lib.sh"
[ "${HIJACK_TEST_DEB:-0}" = 1 ] || skip_all "set HIJACK_TEST_DEB=1 to build the .deb"
for t in dpkg-buildpackage dh dpkg-deb; do
	command -v $t >/dev/null 2>&1 || skip_all "no $t (apt-get install dpkg-dev debhelper)"
done
[ -d "$top_srcdir/debian" ] || skip_all "no debian/ in $top_srcdir"

# a clean copy: tracked and new files of a git checkout, or the dist tree
W=$HJ_TMP/deb
mkdir -p "$W/src"
if git -C "$top_srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	git -C "$top_srcdir" ls-files -z -co --exclude-standard |
		(cd "$top_srcdir" && xargs -0 cp --parents -a -t "$W/src" 2>/dev/null)
else
	cp -a "$top_srcdir/." "$W/src"
fi
chmod -R u+w "$W/src"
# not inside our own make check: no make variables (TEST_LOGS...) leak in
( cd "$W/src" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u HIJACK_TEST_DEB \
	dpkg-buildpackage -us -uc -b ) >"$W/build.log" 2>&1
rc=$?
is "dpkg-buildpackage -us -uc -b succeeds" "$rc" 0
[ $rc = 0 ] || { sed 's/^/# /' "$W/build.log" | tail -30; done_testing; exit 0; }
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
deb=$(ls "$W"/hijack_*_"$arch".deb 2>/dev/null | head -n1)
check "a hijack_*_$arch.deb was built" test -f "$deb"
c=$(dpkg-deb -c "$deb" | awk '{ print $1, $6 }')
for f in ./usr/bin/hijack ./usr/sbin/hijack-shell \
	"./lib/$multiarch/security/pam_hijack.so" ./etc/security/hijack.conf \
	./usr/share/man/man1/hijack.1.gz ./usr/share/man/man8/hijack-shell.8.gz \
	./usr/share/man/man8/pam_hijack.8.gz ./usr/share/man/man5/hijack.conf.5.gz \
	./usr/share/doc/hijack/examples/runtimes.conf ./usr/share/doc/hijack/copyright \
	./usr/libexec/hijack/hijack-delegate; do
	like "the package holds $f" "$c" " $f$"
done
like "hijack-shell is 0755 (file capabilities, not setuid)" "$c" "^-rwxr-xr-x \./usr/sbin/hijack-shell$"
check "no setuid or setgid file" bash -c "! grep -Eq '^-..[sS]|^-.....[sS]' <<<'$c'"
check "no libtool archive in the PAM directory" bash -c "! grep -q 'security/.*\.la$' <<<'$c'"
d=$HJ_TMP/ctl
dpkg-deb -e "$deb" "$d"
is "/etc/security/hijack.conf is a conffile" "$(cat "$d/conffiles" 2>/dev/null)" /etc/security/hijack.conf
like "postinst gives hijack-shell its file capabilities" "$(cat "$d/postinst")" \
	"setcap \"\\\$CAPS\" /usr/sbin/hijack-shell"
like "postinst: exactly the five capabilities of hijack-shell(8)" "$(cat "$d/postinst")" \
	"^CAPS=cap_sys_admin,cap_sys_chroot,cap_sys_ptrace,cap_dac_override,cap_audit_write\+ep$"
like "the module exports only pam_sm_*" \
	"$(dpkg-deb --fsys-tarfile "$deb" | tar -xO "./lib/$multiarch/security/pam_hijack.so" > "$HJ_TMP/m.so"; nm -D --defined-only "$HJ_TMP/m.so" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')" \
	"^(pam_sm_[a-z_]+ )+$"
if command -v lintian >/dev/null 2>&1; then
	out=$(lintian --no-tag-display-limit "$W"/hijack_*.changes 2>&1)
	is "lintian reports no error" "$(grep -c '^E:' <<<"$out")" 0
	grep -E '^(E|W):' <<<"$out" | sed 's/^/# /'
fi
done_testing
