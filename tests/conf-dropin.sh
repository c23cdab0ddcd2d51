#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# hijack.conf.d over the real login path: a private sshd with pam_hijack,
# a user mapped only by a drop-in lands in the container; the first
# matching rule across files wins (hijack.conf before the drop-ins);
# leftovers of editors are not read; a broken or group-writable drop-in
# refuses the login (fail closed), and hijack check says which file and line.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh setcap
D=$HJ_TMP/dropin
mkdir -p "$D"
id=$$
U1=hjtd1$id
U2=hjtd2$id
CT=dropin$id

hj_shell_install "$D"
hj_conf_take
U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 $U2 >/dev/null 2>&1")
"$U" useradd "$U1" -M -s "$HS" >/dev/null
"$U" useradd "$U2" -M -s /bin/sh >/dev/null
for u in "$U1" "$U2"; do
	usermod -p '*' -d "$D/home-$u" "$u"
	mkdir -p "$D/home-$u"
	chown "$u:" "$D/home-$u"
done
make_rootfs "$HJ_TMP/r1" "$CT"
rootfs_add_user "$HJ_TMP/r1" "$U1"
mkdir -p "$HJ_TMP/r1/home/$U1"
chown "$(id -u "$U1"):$(id -g "$U1")" "$HJ_TMP/r1/home/$U1"
ct_start web1 "$CT" "$HJ_TMP/r1" || bail_out "container"

# hijack.conf names only U2 (on the host); the drop-ins map U1, and U2
# again, too late
printf '# conf-dropin.sh\n%s\t-\n' "$U2" > "$CONF"
chmod 644 "$CONF"
DD=$CONF.d
mkdir -m 755 "$DD"
printf '# managed by Ansible\n%s\t%s\tname=%s\n' "$U1" "$HJ_RUN/web1" "$CT" > "$DD/50-web.conf"
printf '%s\t%s\tname=%s\n' "$U2" "$HJ_RUN/web1" "$CT" > "$DD/60-late.conf"
chmod 644 "$DD"/*.conf
sshd_start "$D" "$U1" "$U2"

is "a user mapped by a drop-in lands in its container" "$(s "$U1" hostname 2>&1)" "$CT"
is "hijack.conf's rule before a drop-in's: the host" "$(s "$U2" hostname 2>&1)" "$(hostname)"
like "--check names the drop-in and line" "$(hjcheck "$U1" 2>&1)" \
	"rule: +$DD/50-web.conf:2"

# what editors and package managers leave behind is not read
printf 'not a rule\n' > "$DD/50-web.conf~"
printf 'not a rule\n' > "$DD/.50-web.conf.swp"
printf 'not a rule\n' > "$DD/50-web.conf.dpkg-old"
chmod 666 "$DD/50-web.conf~" "$DD/.50-web.conf.swp" "$DD/50-web.conf.dpkg-old"
is "editor and dpkg leftovers are skipped" "$(s "$U1" hostname 2>&1)" "$CT"

# a broken drop-in, even one that names nobody here, refuses the login
printf 'somebody\tctr/x\tshel=/bin/sh\n' > "$DD/70-bad.conf"
chmod 644 "$DD/70-bad.conf"
out=$(s "$U1" hostname 2>&1)
rc=$?
check "a broken drop-in: the mapped login is refused" [ "$rc" != 0 ]
if grep -Eqx "$CT|$(hostname)" <<<"$out"; then
	not_ok "... and runs nowhere: '$out'"
else
	ok "... and runs nowhere"
fi
like "... and --check names the file and line" "$(hjcheck "$U1" 2>&1)" \
	"^PROBLEM: $DD/70-bad.conf:1: unknown option 'shel'"
printf 'somebody\tctr/x\n' > "$DD/70-bad.conf"
chmod 664 "$DD/70-bad.conf"
out=$(s "$U1" hostname 2>&1)
rc=$?
check "a group-writable drop-in: refused" [ "$rc" != 0 ]
like "... and --check names the file" "$(hjcheck "$U1" 2>&1)" \
	"^PROBLEM: $DD/70-bad.conf: writable by group or others"
chmod 644 "$DD/70-bad.conf"
is "fixed: the login goes in again" "$(s "$U1" hostname 2>&1)" "$CT"

# hijack check-conf, a file before it is installed (validate=): as the
# login reads it, one line a file, exit 1 if any is bad
C=$D/cand
mkdir -m 700 "$C"
printf '# team web\n%s\t%s\tname=%s\n' "$U1" "$HJ_RUN/web1" "$CT" > "$C/good.conf"
printf '%s\tctr/x\n\n%s\tctr/y shel=/bin/sh\n' "$U2" "$U1" > "$C/bad.conf"
printf '%s\tctr/x\n' "$U2" > "$C/gw.conf"
chmod 600 "$C/good.conf" "$C/bad.conf"
chmod 620 "$C/gw.conf"
ln -s good.conf "$C/link.conf"
printf '%s\tctr/x\n' "$U2" > "$C/theirs.conf"
chown "$U2" "$C/theirs.conf"
chmod 644 "$C/theirs.conf"
out=$("$HIJACK" check-conf "$C/good.conf" 2>&1)
is "check-conf: a good drop-in: exit 0" "$?" 0
is "... one line, ok" "$out" "$C/good.conf: ok"
out=$("$HIJACK" check-conf "$C/bad.conf" 2>&1)
is "check-conf: an unknown option: exit 1" "$?" 1
is "... the file, the line, what is wrong" "$out" "hijack: $C/bad.conf:3: unknown option 'shel'"
for f in gw:"writable by group or others (mode 0620)" link:"is a symbolic link" \
	theirs:"owned by uid $(id -u "$U2"), not root" none:"cannot open: No such file or directory"; do
	out=$("$HIJACK" check-conf "$C/${f%%:*}.conf" 2>&1)
	is "check-conf refuses what a login refuses: ${f#*:}" "$? $out" "1 hijack: $C/${f%%:*}.conf: ${f#*:}"
done
out=$("$HIJACK" check-conf "$C/good.conf" "$C/bad.conf" "$CONF" 2>/dev/null)
is "check-conf: several files, one bad: exit 1, the good ones ok" "$? $(echo $out)" \
	"1 $C/good.conf: ok $CONF: ok"
# the same verdict as the login gives, for the same file installed
cp "$C/bad.conf" "$DD/70-bad.conf"
out=$(s "$U1" hostname 2>&1)
check "a file check-conf refuses, installed anyway: the login is refused" [ "$? $out" != "0 $CT" ]
rm -f "$DD/70-bad.conf"
cp "$C/good.conf" "$DD/70-good.conf"
chmod 644 "$DD/70-good.conf"
is "... and one it accepts lets it in" "$(s "$U1" hostname 2>&1)" "$CT"
out=$("$HIJACK" check-conf 2>&1)
is "check-conf with no file: a usage error" "$? $out" \
	"1 hijack: check-conf takes one or more files
Try 'hijack --help' for more information."

done_testing
