#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Reviewing a container session from the audit log, end to end: a private
# sshd whose PAM stack has pam_loginuid, pam_tty_audit (enabled for the
# mapped user only) and pam_hijack; the user logs in with a pty, types a
# distinctive command inside the container, and the admin finds
#   - the keystrokes with aureport --tty / ausearch -m TTY, under the
#     user's auid,
#   - the container with ausearch -m VIRT_CONTROL --vm-name,
# both tied by the same auid and session id (ses=).
#
# Needs root and an auditd: ours (auditd -n), unless one runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh auditd auditctl ausearch aureport setcap
for m in pam_loginuid.so pam_tty_audit.so; do
	[ -n "$(find /lib /usr/lib -path "*/security/$m" -print -quit 2>/dev/null)" ] ||
		skip_all "no $m"
done
D=$HJ_TMP/review
mkdir -p "$D"
id=$$
U1=hjtr1$id
CT=review$id
MARK="marker-$id-typed-inside"

hj_auditd "$D"

hj_shell_install "$D"
hj_conf_take
U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 >/dev/null 2>&1")
"$U" useradd "$U1" -M -s "$HS" >/dev/null
usermod -p '*' -d "$D/home-$U1" "$U1"
mkdir -p "$D/home-$U1"
make_rootfs "$HJ_TMP/r1" "$CT"
rootfs_add_user "$HJ_TMP/r1" "$U1"
mkdir -p "$HJ_TMP/r1/home/$U1"
chown "$(id -u "$U1"):$(id -g "$U1")" "$HJ_TMP/r1/home/$U1"
ct_start web1 "$CT" "$HJ_TMP/r1" || bail_out "container"
cat > "$CONF" <<EOF
# audit-review.sh
$U1	$HJ_RUN/web1	name=$CT
EOF
chmod 644 "$CONF"

sshd_start "$D" "$U1"
# the stack of pam_hijack(8) EXAMPLES: loginuid first, so that every
# record of the session (pam_hijack's included) carries auid and ses
cat > "/etc/pam.d/$SVC" <<EOF
account  required pam_unix.so
account  required $MODULE
session  required pam_loginuid.so
session  required pam_unix.so
session  required pam_tty_audit.so disable=* enable=$U1
session  required $MODULE
EOF

# -- a pty session: type the command inside, then leave
out=$( (echo "echo $MARK; hostname"; sleep 2; echo exit) |
	ssh -tt -p "$PORT" "${SSHO[@]}" "$U1@127.0.0.1" 2>&1)
like "the session ran inside the container" "$(tr -d '\r' <<<"$out")" "^$CT$"
uid=$(id -u "$U1")

# the records, as auditd wrote them (--input-logs: stdin is no tty)
A=(--input-logs -ts "$TS_DAY" "$TS_TIME")
virt() { ausearch "${A[@]}" -m VIRT_CONTROL --vm-name "$CT" -ua "$uid" 2>/dev/null | grep 'op=start'; }
tty() { ausearch "${A[@]}" -m TTY -ua "$uid" 2>/dev/null | grep 'type=TTY'; }
wait_for() { for _ in $(seq 50); do "$@" >/dev/null && return 0; sleep 0.1; done; return 1; }
wait_for virt
vrec=$(virt)
wait_for tty
trec=$(tty)
like "ausearch -m VIRT_CONTROL --vm-name $CT -ua: pam_hijack's op=start, by the user's auid" \
	"$vrec" "auid=$uid ses=[0-9]+ .*op=start vm=\"$CT\".*reason=\"login\""
ses=$(grep 'reason="login"' <<<"$vrec" | head -n1 | grep -o ' ses=[0-9]*' | cut -d= -f2)
isnt "the VIRT_CONTROL record carries a session id" "${ses:-4294967295}" 4294967295
like "hijack-shell's op=start reason=entry in the same session" "$vrec" \
	"auid=$uid ses=$ses .*op=start vm=\"$CT\".*reason=\"entry\""
like "ausearch -m TTY -ua: TTY records of the user's session" "$trec" "auid=$uid .*ses=$ses "

# aureport --tty decodes the keystrokes: the command typed inside
rep=$(aureport "${A[@]}" --tty -i 2>/dev/null)
like "aureport --tty shows the command typed inside, under the user and session" \
	"$rep" "$U1 .* $ses .*echo $MARK"
# who typed it: the shell inside the container reading its own pty
# (hijack-shell relays the outer terminal in raw mode, and those reads
# show up too, under comm=hijack-shell)
like "the keystrokes are recorded from the shell inside (comm sh)" \
	"$(ausearch "${A[@]}" -m TTY -ua "$uid" --session "$ses" -i 2>/dev/null | grep 'comm=sh')" \
	"type=TTY"
diag "aureport --tty rows of the session:"
grep " $ses " <<<"$rep" | sed 's/^/#   /'
diag "VIRT_CONTROL of the session:"
# shellcheck disable=SC2001 # one prefix per line
sed 's/^/#   /' <<<"$vrec"

done_testing
