#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Session recording with tlog, end to end: tlog-rec-session is the mapped
# user's login shell and runs hijack-shell (its `shell` setting), so the
# recording is made on the host, outside the container, for a pty session
# and for `ssh host cmd`.  A private sshd with pam_loginuid and pam_hijack;
# tlog's file writer (no journal, no syslog here) into a directory only
# the tlog user can open; tlog-rec-session setuid/setgid to that user, as
# upstream installs it (Debian's package does not: dpkg-statoverride).
#
# Checked: the session runs in the container; tlog-play of each recording
# shows the container's output; each recording carries the user and the
# audit session id of pam_hijack's VIRT_CONTROL record for that login;
# scp, sftp and rsync still land in the container; neither container
# root nor the user can read or change the recording, nor see or trace
# the recorder; hijack check knows the setup and its faults.
#
# Needs root, tlog (its _tlog user) and an auditd: ours, unless one runs.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh auditd auditctl ausearch setcap tlog-rec-session \
	tlog-play script runuser
getent passwd _tlog >/dev/null || skip_all "no _tlog user (the tlog package makes it)"
[ -n "$(find /lib /usr/lib -path '*/security/pam_loginuid.so' -print -quit 2>/dev/null)" ] ||
	skip_all "no pam_loginuid.so"
[ -f /etc/tlog/tlog-rec-session.conf ] || skip_all "no /etc/tlog/tlog-rec-session.conf"
D=$HJ_TMP/rec
mkdir -p "$D"
chmod 755 "$D"
id=$$
U1=hjtrec$id
CT=rec$id
MARK="marker-$id-typed-inside"

hj_auditd "$D"
# tlog-rec-session records a pty session in utmp through libutempter and
# refuses the session when it cannot: /run/utmp is made at boot on Debian
# (systemd's tmpfiles.d: f+! /run/utmp 0664 root utmp), not on every
# test machine
if [ ! -e /run/utmp ]; then
	install -m 664 -o root -g utmp /dev/null /run/utmp
	HJ_CLEANUP+=("rm -f /run/utmp")
fi
hj_shell_install "$D"
hj_conf_take

# tlog-rec-session as it should be installed: setuid/setgid _tlog (the
# recorder keeps _tlog as its effective ids, the shell it starts gets the
# user's real ids back).  A copy, so the system's binary stays untouched.
TR=$D/tlog-rec-session
cp /usr/bin/tlog-rec-session "$TR"
chown _tlog:_tlog "$TR"
chmod 6755 "$TR"
# the recordings: a directory only _tlog can open
LOGDIR=$D/tlog
mkdir -m 700 "$LOGDIR"
chown _tlog:_tlog "$LOGDIR"
LOG=$LOGDIR/sessions.log
# tlog's system-wide configuration, in this mount namespace only
cat > "$D/tlog-rec-session.conf" <<EOF
{
    "shell": "$HS",
    "notice": "",
    "writer": "file",
    "file": { "path": "$LOG" },
    "log": { "input": true, "output": true, "window": true }
}
EOF
mount --bind "$D/tlog-rec-session.conf" /etc/tlog/tlog-rec-session.conf ||
	bail_out "cannot bind mount over /etc/tlog/tlog-rec-session.conf"
HJ_CLEANUP+=("umount -l /etc/tlog/tlog-rec-session.conf")

U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 >/dev/null 2>&1")
"$U" useradd "$U1" -M -s "$TR" >/dev/null || bail_out "useradd $U1"
usermod -p '*' -d "$D/home-$U1" "$U1"
mkdir -p "$D/home-$U1"
uid=$(id -u "$U1")
make_rootfs "$HJ_TMP/r1" "$CT"
rootfs_add_user "$HJ_TMP/r1" "$U1"
mkdir -p "$HJ_TMP/r1/home/$U1"
chown "$uid:$(id -g "$U1")" "$HJ_TMP/r1/home/$U1"
ct_start web1 "$CT" "$HJ_TMP/r1" || bail_out "container"
I1=$CT_INIT
cat > "$CONF" <<EOF
# recording.sh
$U1	$HJ_RUN/web1	name=$CT
EOF
chmod 644 "$CONF"

# tlog refuses a charset other than UTF-8 (and warns on ASCII)
SSHD_EXTRA="SetEnv LANG=C.UTF-8"
sshd_start "$D" "$U1"
cat > "/etc/pam.d/$SVC" <<EOF
account  required pam_unix.so
account  required $MODULE
session  required pam_loginuid.so
session  required pam_unix.so
session  required $MODULE
EOF

# -- a pty session: type commands inside; while it runs, look at the
# recorder from the host as the user would
# (tlog-rec-session flushes type-ahead when it puts the terminal in raw
# mode, TCSAFLUSH: type once the session's shell runs inside, however
# long a loaded machine takes to get there; a fixed sleep lost the typed
# lines under ASan beside a full tests/run, and the session never ended)
mkfifo "$D/pty.in"
timeout 300 ssh -tt -p "$PORT" "${SSHO[@]}" "$U1@127.0.0.1" <"$D/pty.in" >"$D/pty.out" 2>&1 &
spid=$!
exec 7>"$D/pty.in"
# the recorder (effective uid _tlog) once its child runs hijack-shell
rpid="" kids=""
for _ in $(seq 300); do
	rpid=$(pgrep -u _tlog -x tlog-rec-sessio | head -n1)
	kids=$(for c in $(cat /proc/"$rpid"/task/*/children 2>/dev/null); do
		echo "$(cat /proc/"$c"/comm) $(awk '/^Uid:/ {print $2,$3,$4}' /proc/"$c"/status)"
	done)
	grep -q hijack-shell <<<"$kids" && break
	sleep 0.1
done
if [ -n "$rpid" ]; then
	is "the recorder runs on the host as _tlog (effective uid)" \
		"$(awk '/^Uid:/ {print $3}' "/proc/$rpid/status")" "$(id -u _tlog)"
	like "the recorder's child is hijack-shell with the user's ids" \
		"$kids" "^hijack-shell $uid $uid $uid$"
	check "the user cannot read the recorder's memory or environment" \
		bash -c "! runuser -u '$U1' -- cat /proc/$rpid/environ >/dev/null 2>&1"
	# container root: pid 1 of the container, through hijack(1)
	inside=$("$HIJACK" pid "$I1" /bin/sh -c \
		'for p in /proc/[0-9]*; do cat $p/comm; done' 2>&1)
	like "container root lists its own processes (the init)" "$inside" "^sleep$"
	is "container root does not see the recorder among them" \
		"$(grep -c tlog <<<"$inside")" 0
else
	not_ok "found the recorder of the pty session"
fi
for _ in $(seq 600); do pgrep -u "$U1" -x sh >/dev/null && break; sleep 0.1; done
sleep 0.5
echo "echo $MARK; hostname" >&7
sleep 1
echo exit >&7
exec 7>&-
wait "$spid"
out=$(tr -d '\r' <"$D/pty.out")
like "pty session: ran inside the container" "$out" "^$CT$"

# -- ssh host cmd, its stdin open as from a terminal or a script: tlog
# 12.1 drops the output of a command whose stdin is at end of file when it
# exits (ssh -n, </dev/null: Scribery/tlog#347)
out=$(sleep 3 | s "$U1" "echo cmd-$MARK; hostname; exit 7")
rc=$?
like "ssh cmd: ran inside the container" "$out" "^$CT$"
is "ssh cmd: exit status passes through tlog and hijack-shell (7)" "$rc" 7

# -- file transfer through the recorded login: scp (sftp and legacy
# protocols), rsync and sftp still land in the container
if [ -x /usr/lib/openssh/sftp-server ] && command -v rsync scp sftp >/dev/null; then
	for b in /usr/lib/openssh/sftp-server /usr/bin/rsync /usr/bin/scp; do
		copy_bin "$HJ_TMP/r1" "$b"
	done
	H=$HJ_TMP/r1/home/$U1
	echo "payload-$id" >"$D/payload"
	scp -q -P "$PORT" "${SSHO[@]}" "$D/payload" "$U1@127.0.0.1:sftp-mode"
	is "scp (sftp protocol) through tlog: lands in the container" "$(cat "$H/sftp-mode" 2>&1)" "payload-$id"
	scp -O -q -P "$PORT" "${SSHO[@]}" "$D/payload" "$U1@127.0.0.1:legacy-mode"
	is "scp -O through tlog: lands in the container" "$(cat "$H/legacy-mode" 2>&1)" "payload-$id"
	rsync -q -e "ssh -p $PORT ${SSHO[*]}" "$D/payload" "$U1@127.0.0.1:via-rsync"
	is "rsync through tlog: lands in the container" "$(cat "$H/via-rsync" 2>&1)" "payload-$id"
	printf 'get /etc/hijack-marker %s\n' "$D/got" |
		sftp -q -b - -P "$PORT" "${SSHO[@]}" "$U1@127.0.0.1" >/dev/null
	is "sftp through tlog: reads the container's files" "$(cat "$D/got" 2>&1)" "container-rootfs $CT"
else
	skip "file transfer through tlog" "no sftp-server, scp, sftp or rsync"
fi

# tlog 12.1's limit without a terminal, shown, not asserted (the README
# and hijack-shell(8) describe it)
out=$(s "$U1" hostname </dev/null 2>&1)
diag "ssh host hostname </dev/null through tlog: status $?, output '$out' (Scribery/tlog#347)"
# -- the recordings
sleep 0.5
check "the recording file exists" test -s "$LOG"
is "the recording belongs to _tlog, mode 600" "$(stat -c '%U %a' "$LOG")" "_tlog 600"
# tlog-play needs a terminal: script(1) gives it one
play() { timeout 30 script -qec "tlog-play -r file -i '$LOG' -m '$1' -s 100" /dev/null </dev/null | tr -d '\r\0' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'; }
field() { grep -m1 "\"rec\":\"$1\"" "$LOG" | grep -o "\"$2\":[^,]*" | cut -d: -f2- | tr -d '"'; }
vrec=$(ausearch --input-logs -ts "$TS_DAY" "$TS_TIME" -m VIRT_CONTROL --vm-name "$CT" \
	-ua "$uid" 2>/dev/null | grep 'op=start.*reason="login"')
# the recordings of the two sessions: what the user typed (in_txt) and
# what the ssh command printed (out_txt)
rec_with() { grep "\"$1\":\"[^\"]*$2" "$LOG" | grep -o '"rec":"[^"]*"' | head -n1 | cut -d'"' -f4; }
pty_rec=$(rec_with in_txt "echo $MARK")
cmd_rec=$(rec_with out_txt "cmd-$MARK")
pty_play=$(play "$pty_rec")
cmd_play=$(play "$cmd_rec")
isnt "the pty session and ssh cmd are two recordings" "${pty_rec:-none}" "${cmd_rec:-none}"
like "tlog-play of the pty session: the command typed inside" "$pty_play" "echo $MARK"
like "tlog-play of the pty session: the container's hostname" "$pty_play" "^$CT$"
like "tlog-play of ssh cmd: the container's hostname" "$cmd_play" "^$CT$"
like "the pty recording has the keystrokes (log.input)" \
	"$(grep "\"rec\":\"$pty_rec\"" "$LOG" | grep -o '"in_txt":"[^"]*"' | tr -d '\n')" "echo $MARK"
for r in "pty:$pty_rec" "cmd:$cmd_rec"; do
	k=${r%%:*} r=${r#*:}
	is "$k recording: user" "$(field "$r" user)" "$U1"
	ses=$(field "$r" session)
	isnt "$k recording: an audit session id" "${ses:-4294967295}" 4294967295
	like "$k recording: pam_hijack's VIRT_CONTROL record of the same login has ses=$ses" \
		"$vrec" "auid=$uid ses=$ses .*op=start vm=\"$CT\""
done
isnt "the two sessions have different ids" "$(field "$pty_rec" session)" "$(field "$cmd_rec" session)"

# -- nobody but _tlog (and root) reaches the recording
[ -s "$LOG" ] || bail_out "no recording to attack"
sum=$(sha256sum <"$LOG")
check "the user cannot read the recording" \
	bash -c "! runuser -u '$U1' -- cat '$LOG' >/dev/null 2>&1"
check "the user cannot append to the recording" \
	bash -c "! runuser -u '$U1' -- sh -c 'echo forged >> \"$LOG\"' 2>/dev/null"
check "the user cannot remove the recording" \
	bash -c "! runuser -u '$U1' -- rm -f '$LOG' 2>/dev/null"
out=$("$HIJACK" pid "$I1" /bin/sh -c "
	ls -d '$LOGDIR' 2>&1; echo forged >> '$LOG' 2>&1 && echo WROTE
	find / -xdev -name sessions.log 2>/dev/null; echo end" 2>&1)
is "container root finds no recording (path, find /)" \
	"$(grep -v 'No such file\|nonexistent\|^end$' <<<"$out")" ""
is "the recording is unchanged" "$(sha256sum <"$LOG")" "$sum"
# -- hijack check knows the recorded setup
chk() { HIJACK_CHECK_SSHD_CONFIG=${1:-$SSHD_CONFIG} HIJACK_CHECK_PAM_SERVICE=$SVC hjcheck "$U1" 2>&1; }
out=$(chk)
like "--check: tlog-rec-session running hijack-shell is the login shell" "$out" \
	"^login shell: $TR, recording on the host, running $HS$"
is "--check: no PROBLEM, no warning for the recorded setup" \
	"$(grep -E '^(PROBLEM|warning)' <<<"$out")" ""
chmod 755 "$TR"
like "--check: a tlog-rec-session that is not setuid is a warning" "$(chk)" \
	"^warning: +$TR is not setuid to a user of its own"
chown _tlog:_tlog "$TR"
chmod 6755 "$TR"
cp "$CONF" "$D/conf.saved"
echo "# no rule" >"$CONF"
like "--check: no rule for a user whose tlog runs hijack-shell is a warning" "$(chk)" \
	"^warning: +the login shell is $TR running hijack-shell: every login is refused"
cat "$D/conf.saved" >"$CONF"
cp "$SSHD_CONFIG" "$D/sshd_config.env"
echo "AcceptEnv LANG TLOG_*" >> "$D/sshd_config.env"
like "--check: AcceptEnv TLOG_* is a PROBLEM (the client picks tlog's shell)" \
	"$(chk "$D/sshd_config.env")" "^PROBLEM: sshd: AcceptEnv TLOG_\\* lets clients choose"
# a tlog that never answers (its configuration a FIFO nobody writes, as a
# stopped or stuck recorder): the check says so within its 10 s and
# leaves nothing of the user's running
mkfifo -m 644 "$D/tlog.fifo"
mount --bind "$D/tlog.fifo" /etc/tlog/tlog-rec-session.conf ||
	bail_out "cannot bind mount a FIFO over tlog's configuration"
t0=$(date +%s)
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG HIJACK_CHECK_PAM_SERVICE=$SVC \
	timeout 60 "$HIJACK" --shell "$HS" check "$U1" 2>&1)
t=$(($(date +%s) - t0))
umount /etc/tlog/tlog-rec-session.conf
like "--check: a tlog stuck on its configuration is a PROBLEM (${t} s)" "$out" \
	"^PROBLEM: login shell of $U1 is $TR, whose shell setting cannot be read \\($TR --configuration: Connection timed out\\)"
check "--check: ... within its deadline, not the test's" test "$t" -lt 40
is "--check: ... and the stuck tlog is gone" "$(pgrep -U "$U1" -f "$TR --configuration")" ""
# (rewritten in place: the bind mount holds the inode)
sed "s|\"shell\": \"$HS\"|\"shell\": \"/bin/sh\"|" "$D/tlog-rec-session.conf" >"$D/conf.new"
cat "$D/conf.new" >"$D/tlog-rec-session.conf"
like "--check: tlog-rec-session running another shell is a PROBLEM" "$(chk)" \
	"^PROBLEM: login shell of $U1 is $TR, which runs /bin/sh, not $HS: sessions land on the host"

diag "the pty session, as tlog-play shows it:"
# shellcheck disable=SC2001 # one prefix per line
sed 's/^/#   /' <<<"$pty_play"

done_testing
