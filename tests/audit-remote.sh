#!/bin/bash
# Audit shipped to a collector: the host's auditd (ours, with its own
# configuration directory) runs audisp-remote, which sends every record
# to a second auditd that listens in a network namespace of its own, as
# a collector on another machine would (a veth pair of ours between
# them; local_events=no, so it takes nothing from this kernel).  A login
# through pam_hijack (pamtester, a PAM service of the test's own, with
# pam_loginuid) is found on the collector by ausearch -m VIRT_CONTROL
# --vm-name, with the same auid, ses and fields as on the host.  Then the
# collector goes down during logins and comes back: the host keeps every
# record, and audisp-remote's queue delivers the ones it held.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
PATH=$PATH:/usr/sbin:/sbin
require_tools auditd auditctl ausearch audisp-remote pamtester ip
[ -x /sbin/audisp-remote ] || skip_all "no /sbin/audisp-remote"
D=$HJ_TMP/ar
mkdir -p "$D"
U="$top_srcdir/tests/users.sh"
u=hjtar$$
module=$top_builddir/pam_hijack/.libs/pam_hijack.so
ctr=arweb$$
service=hjtest-ar-$$

# The kernel takes one audit daemon at a time (lib.sh's hj_auditd); this
# test needs its own, with the remote plugin: none may run already.
exec {HJ_AUDIT_LOCK}>/run/hijack-tests-audit.lock
flock -w 3600 "$HJ_AUDIT_LOCK" || bail_out "another test run holds the audit daemon"
[ "$(audit_status pid)" = 0 ] ||
	skip_all "an audit daemon this test did not start runs (pid $(audit_status pid))"

# -- the collector: a network namespace and a /run of its own
hj_shell_install "$D"
hj_conf_take
"$U" useradd "$u" -M -N -g users -s "$HS" >/dev/null || bail_out "useradd failed"
HJ_CLEANUP+=("'$U' del $u >/dev/null 2>&1")
mkdir -p "$D/col" "$D/host/plugins.d"
sed "s|@DIR@|$D/col|g" "$top_srcdir/tests/audit-collector.conf" > "$D/col/auditd.conf"
mkdir -p "$D/col/plugins.d"
# README's collector settings
readme_block 'collects\):$' > "$D/col/readme.conf"
CPORT=$(sed -n 's/^tcp_listen_port = //p' "$D/col/readme.conf")
[ -n "$CPORT" ] || bail_out "no collector settings in README.md"
cat "$D/col/readme.conf" >> "$D/col/auditd.conf"
# a netns and a mount namespace with a private /run (auditd's pid file)
unshare --net --mount --propagation private sleep 1000000 &
NSPID=$!
HJ_PIDS+=("$NSPID")
sleep 0.2
VH=hjar$$h VC=hjar$$c
ip link add "$VH" type veth peer name "$VC" netns "$NSPID" || bail_out "veth"
HJ_CLEANUP+=("ip link del $VH 2>/dev/null")
# a /30 that no route of this machine knows but the default one
for _ in $(seq 200); do
	net=10.$((200 + RANDOM % 50)).$((RANDOM % 250)).$(((RANDOM % 60) * 4))
	o4=${net##*.}
	HIP=${net%.*}.$((o4 + 1)) CIP=${net%.*}.$((o4 + 2))
	r=$(ip route get "$CIP" 2>/dev/null)
	case $r in *" via "*) ;; *) continue ;; esac
	ip -o addr | grep -q " ${net%.*}\." || break
done
ip addr add "$HIP/30" dev "$VH" && ip link set "$VH" up || bail_out "veth host side"
nsenter --net="/proc/$NSPID/ns/net" sh -c "ip addr add $CIP/30 dev $VC && ip link set $VC up && ip link set lo up" ||
	bail_out "veth collector side"
col_start() {
	nsenter --net="/proc/$NSPID/ns/net" --mount="/proc/$NSPID/ns/mnt" \
		sh -c "mount -t tmpfs hjtest-run /run 2>/dev/null; exec auditd -n -c '$D/col'" \
		>>"$D/col/auditd.out" 2>&1 &
	COL=$!
	HJ_PIDS+=("$COL")
	wait_tcp_listen "$NSPID" ":$CPORT" || bail_out "the collector does not listen"
}
col_stop() { kill -TERM "$COL" 2>/dev/null; wait "$COL" 2>/dev/null; }
col_start

# -- the host's auditd: Debian's configuration, the remote plugin on
sed -e "s|^plugin_dir.*||" -e "s|^log_file.*|log_file = $D/host/audit.log|" \
	/etc/audit/auditd.conf > "$D/host/auditd.conf"
echo "plugin_dir = $D/host/plugins.d" >> "$D/host/auditd.conf"
sed 's/^active.*/active = yes/' /etc/audit/plugins.d/au-remote.conf > "$D/host/plugins.d/au-remote.conf"
# audisp-remote reads this path only: ours in this mount namespace
mkdir -p "$D/host/spool"
# README's settings, our collector's address and queue file; then
# Debian's defaults for the rest, a short retry
readme_block 'audisp-remote.conf`:$' |
	sed -e "s|^remote_server = .*|remote_server = $CIP|" \
		-e "s|^queue_file = .*|queue_file = $D/host/spool/remote.log|" \
		> "$D/host/audisp-remote.conf"
grep -q '^mode = forward$' "$D/host/audisp-remote.conf" || bail_out "no audisp-remote.conf in README.md"
is "README's collector port is the one audisp-remote uses" \
	"$(sed -n 's/^port = //p' "$D/host/audisp-remote.conf")" "$CPORT"
cat >> "$D/host/audisp-remote.conf" <<EOF
transport = tcp
queue_depth = 10240
format = managed
network_retry_time = 1
max_tries_per_record = 3
max_time_per_record = 5
heartbeat_timeout = 0
disk_low_action = ignore
disk_full_action = warn_once
disk_error_action = warn_once
remote_ending_action = reconnect
generic_error_action = syslog
generic_warning_action = syslog
queue_error_action = stop
overflow_action = syslog
startup_failure_action = warn_once_continue
EOF
chmod 640 "$D/host/audisp-remote.conf" "$D/host/auditd.conf"
mount --bind "$D/host/audisp-remote.conf" /etc/audit/audisp-remote.conf ||
	bail_out "cannot mount over /etc/audit/audisp-remote.conf"
auditd -n -c "$D/host" >"$D/host/auditd.out" 2>&1 &
AUDITD=$!
HJ_CLEANUP=("kill -TERM $AUDITD 2>/dev/null; wait $AUDITD 2>/dev/null" "${HJ_CLEANUP[@]}")
for i in $(seq 100); do
	[ "$(audit_status pid)" = "$AUDITD" ] && break
	sleep 0.1
done
is "the host's auditd is ours" "$(audit_status pid)" "$AUDITD"
before=$(audit_status enabled)
HJ_CLEANUP+=("auditctl -e $before >/dev/null")
[ "$before" = 1 ] || auditctl -e 1 >/dev/null
TS_DAY=$(date '+%x') TS_TIME=$(date '+%T')
sleep 1

# -- a container, a rule, a PAM service that sets the loginuid
ct_start "$ctr" "$ctr" || bail_out "no container"
printf '%s\t%s\tname=%s\n' "$u" "$HJ_RUN/$ctr" "$ctr" > "$D/hijack.conf"
chmod 644 "$D/hijack.conf"
HJ_CLEANUP+=("rm -f /etc/pam.d/$service")
cat > "/etc/pam.d/$service" <<EOF
account required $module conf=$D/hijack.conf
account required pam_permit.so
session required pam_loginuid.so
session required $module conf=$D/hijack.conf
session required pam_permit.so
EOF
login() { pamtester "$service" "$u" acct_mgmt open_session close_session >>"$D/logins.out" 2>&1; }
host_recs() { ausearch --input "$D/host/audit.log" -m VIRT_CONTROL --vm-name "$ctr" -ts "$TS_DAY" "$TS_TIME" 2>/dev/null | grep '^type=VIRT_CONTROL'; }
col_recs() { ausearch --input "$D/col/audit.log" -m VIRT_CONTROL --vm-name "$ctr" -ts "$TS_DAY" "$TS_TIME" 2>/dev/null | grep '^type=VIRT_CONTROL'; }
# the record as the kernel made it: no node= prefix, no enrichment
strip() { sed -e 's/^node=[^ ]* //' -e 's/\x1d.*//'; }
wait_col() { # N: until the collector holds N records, at most 30 s
	for _ in $(seq 150); do
		[ "$(col_recs | wc -l)" -ge "$1" ] && return 0
		sleep 0.2
	done
	return 1
}

login
is "a login: pamtester succeeds" "$?" 0
h=$(host_recs | grep 'op=start')
is "the host logs one op=start record" "$(grep -c . <<<"$h")" 1
check "the collector receives it" wait_col 1
c=$(col_recs | grep 'op=start')
like "... found there by ausearch -m VIRT_CONTROL --vm-name" "$c" "vm=\"?$ctr\"?"
auid=$(sed -n 's/.* auid=\([0-9]*\) .*/\1/p' <<<"$h")
ses=$(sed -n 's/.* ses=\([0-9]*\) .*/\1/p' <<<"$h")
is "... the login's auid (pam_loginuid)" "$(sed -n 's/.* auid=\([0-9]*\) .*/\1/p' <<<"$c")" "$(id -u "$u")"
is "... and the same ses as on the host" "$(sed -n 's/.* ses=\([0-9]*\) .*/\1/p' <<<"$c")" "$ses"
isnt "... a real session id" "$ses" 4294967295
is "... the same record as the host's" "$(strip <<<"$c")" "$(strip <<<"$h")"
is "... auid as the host logged it" "$auid" "$(id -u "$u")"

# -- the collector down during logins
col_stop
for _ in 1 2 3; do login; done
is "collector down: the host still logs every login" "$(host_recs | grep -c 'op=start')" 4
is "... and the collector has none of them yet" "$(col_recs | grep -c 'op=start')" 1
col_start
login
check "collector back: the held records and the new one arrive" wait_col 5
is "... all five logins on the collector" "$(col_recs | grep -c 'op=start')" 5
is "... none twice" "$(col_recs | strip | sort | uniq -d | wc -l)" 0

# -- keystrokes: an ssh login with pam_tty_audit, typed inside the
# container; aureport --tty on the collector decodes them
printf '%s\t%s\tname=%s\n' "$u" "$HJ_RUN/$ctr" "$ctr" > "$CONF"
chmod 644 "$CONF"
rootfs_add_user "$HJ_TMP/ct-$ctr" "$u"
sshd_start "$D" "$u"
cat > "/etc/pam.d/$SVC" <<EOF
account  required pam_unix.so
account  required $MODULE
session  required pam_loginuid.so
session  required pam_unix.so
session  required pam_tty_audit.so disable=* enable=$u
session  required $MODULE
EOF
MARK=typed-$$-inside
out=$( (echo "echo $MARK; hostname"; sleep 2; echo exit) |
	ssh -tt -p "$PORT" "${SSHO[@]}" "$u@127.0.0.1" 2>&1)
like "an ssh session with pam_tty_audit runs inside the container" "$(tr -d '\r' <<<"$out")" "^$ctr$"
rep=
for _ in $(seq 150); do
	rep=$(aureport -if "$D/col/audit.log" --tty -i 2>/dev/null)
	grep -q "$MARK" <<<"$rep" && break
	sleep 0.2
done
ses=$(col_recs | grep 'reason="\?login' | tail -n1 | grep -o ' ses=[0-9]*' | cut -d= -f2)
isnt "the collector has the ssh login's record, with a session id" "${ses:-4294967295}" 4294967295
like "aureport --tty on the collector: the command typed inside, under the user and that session" \
	"$rep" "$u .* $ses .*echo $MARK"

done_testing
