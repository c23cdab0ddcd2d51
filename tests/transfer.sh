#!/bin/bash
# File transfer readiness: hijack check (through hijack-shell --check) looks inside the container
# (as the session would) for the sftp subsystem sshd names, the user in
# the container's /etc/passwd, rsync and scp, and warns with the
# consequence; a login asking for a missing sftp-server gets a one-line
# reason on stderr and a deny audit record saying the same.  A real sshd,
# pam_hijack, auditd and busybox containers: "bare" has nothing of ssh,
# "full" has what e2e-ssh.sh copies in.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh scp sftp auditctl ausearch setcap
[ -x /usr/lib/openssh/sftp-server ] || skip_all "no /usr/lib/openssh/sftp-server"
D=$HJ_TMP/transfer
mkdir -p "$D"
U1=hjtx1$$ U2=hjtx2$$
SFTP=/usr/lib/openssh/sftp-server
hj_shell_install "$D"
hj_conf_take
hj_auditd "$D"

U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 $U2 >/dev/null 2>&1")
for u in $U1 $U2; do
	"$U" useradd "$u" -M -s "$HS" >/dev/null
	usermod -p '*' -d "$D/home-$u" "$u"
	mkdir -p "$D/home-$u"
done
RB=$HJ_TMP/r-bare RF=$HJ_TMP/r-full
make_rootfs "$RB" bare
make_rootfs "$RF" full
for b in $SFTP /usr/bin/rsync /usr/bin/scp; do
	[ -x "$b" ] && copy_bin "$RF" "$b"
done
rootfs_add_user "$RF" "$U2"
mkdir -p "$RF/home/$U2"
chown "$U2" "$RF/home/$U2"
ct_start bare bare "$RB" || bail_out "container bare"
ct_start full full "$RF" || bail_out "container full"
printf '%s\t%s\tname=bare\n%s\t%s\tname=full\n' "$U1" "$HJ_RUN/bare" \
	"$U2" "$HJ_RUN/full" > "$CONF"
chmod 644 "$CONF"
sshd_start "$D" $U1 $U2

# -- --check, against the private sshd's configuration and PAM service
chk() { HIJACK_CHECK_SSHD_CONFIG=${CFG:-$SSHD_CONFIG} HIJACK_CHECK_PAM_SERVICE=$SVC hjcheck "$1"; }
out=$(chk "$U1")
rc=$?
like "--check, bare: the sftp-server sshd names is missing" "$out" \
	"^warning: +scp and sftp will fail: $SFTP is not in bare$"
like "--check, bare: the user is not in its passwd" "$out" \
	"^warning: +scp and sftp will fail: $U1 \(uid $(id -u "$U1")\) is not in bare's /etc/passwd"
like "--check, bare: no rsync" "$out" "^warning: +rsync will fail: no rsync in bare's PATH"
like "--check, bare: no scp" "$out" "^warning: +scp -O \(the legacy protocol\) will fail: no scp in bare's PATH"
is "--check, bare: warnings, not problems (exit 0)" "$rc" 0
[ "$rc" = 0 ] || diag "$out"

out=$(chk "$U2")
like "--check, full: sftp-server is there" "$out" "^sftp: +$SFTP is in full$"
is "--check, full: no transfer warning" "$(grep -c 'will fail' <<<"$out")" 0

chmod 644 "$RF$SFTP"
like "--check, full: a sftp-server that cannot be executed" "$(chk "$U2")" \
	"^warning: +scp and sftp will fail: $SFTP cannot be executed in full: Permission denied$"
chmod 755 "$RF$SFTP"

# the path is the one sshd's configuration names
sed "s|^Subsystem.*|Subsystem sftp /opt/ssh/sftp-server -l INFO|" "$SSHD_CONFIG" > "$D/sshd_config.opt"
CFG=$D/sshd_config.opt
like "--check: the Subsystem sshd names is what is looked for" "$(chk "$U2")" \
	"^warning: +scp and sftp will fail: /opt/ssh/sftp-server is not in full$"
unset CFG

# looked at inside: a symlink to a host path means nothing in there
mkdir -p "$D/host/lib"
cp "$SFTP" "$D/host/lib/sftp-server"
mkdir -p "$RB/usr/lib/openssh"
ln -s "$D/host/lib/sftp-server" "$RB$SFTP"
like "--check: a symlink to a file only the host has is not there" "$(chk "$U1")" \
	"^warning: +scp and sftp will fail: $SFTP is not in bare$"
rm -f "$RB$SFTP"
ln -s /bin/busybox "$RB$SFTP"
like "--check: a symlink inside the container is followed there" "$(chk "$U1")" \
	"^sftp: +$SFTP is in bare$"
rm -f "$RB$SFTP"

# -- logins: the user is told why, and so is the audit log.  sshd throws
# a subsystem's stderr away: the reason reaches sftp in its own protocol
echo "payload-$$" > "$D/payload"
# (ssh's log lines end in CR LF)
out=$(echo "ls" | sftp -b - -P "$PORT" "${SSHO[@]}" "$U1@127.0.0.1" 2>&1)
rc=$?
out=${out//$'\r'/}
isnt "sftp into bare: fails" "$rc" 0
like "sftp into bare: the user sees why" "$out" \
	"^realpath \.: scp and sftp will fail: $SFTP is not in bare$"
diag "sftp said: $out"
out=$(scp -P "$PORT" "${SSHO[@]}" "$D/payload" "$U1@127.0.0.1:x" 2>&1)
rc=$?
out=${out//$'\r'/}
isnt "scp into bare: fails" "$rc" 0
# OpenSSH's scp prints the status code, never the server's text
like "scp into bare: more than a bare 'Connection closed'" "$out" \
	'^scp: dest open "x": Operation unsupported$'
diag "scp said: $out"
# the answer, packet by packet: the version, then the request's own id
# with the reason; a packet past SFTP's size limit ends it
P=$top_srcdir/tests/helpers/sftp-probe.py
out=$(python3 "$P" huge -- ssh -p "$PORT" "${SSHO[@]}" -s "$U1@127.0.0.1" sftp 2>/dev/null)
is "sftp protocol: version, a failed request with the reason, then the end" "$out" \
"version 3
status 16909060 8 scp and sftp will fail: $SFTP is not in bare
eof"
out=$(s "$U1" "$SFTP" 2>&1 </dev/null)
like "ssh $SFTP into bare as a command: the line on stderr" "$out" \
	"^hijack-shell: scp and sftp will fail: $SFTP is not in bare$"
is "ssh cmd into bare still works" "$(s "$U1" hostname)" bare
scp -q -P "$PORT" "${SSHO[@]}" "$D/payload" "$U2@127.0.0.1:y" 2>/dev/null
is "scp into full: the file lands in the container" "$(cat "$RF/home/$U2/y" 2>/dev/null)" "payload-$$"

sleep 1
rec=$(ausearch -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" 2>/dev/null)
like "audit: a deny record for bare saying the sftp-server is missing" "$rec" \
	"op=deny.*vm=\"?bare\"?.*reason=\"?no-sftp-server"
like "audit: ssh cmd into bare is a start record" "$rec" \
	"op=start.*vm=\"?bare\"?.*reason=\"?entry"
like "audit: scp into full is a start record" "$rec" \
	"op=start.*vm=\"?full\"?.*reason=\"?entry"

done_testing
