#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# The fault rows of tests/FAULTS.md for auditing and pids, against the
# real kernel audit and a real auditd:
#
#   auditd down          no audit daemon: the kernel accepts the record and
#                        only printk's it (rate limited); audit=required
#                        refuses, audit=optional lets the login through
#   auditing disabled    auditctl -e 0: the kernel drops user records
#                        silently; the same
#   audit log disk full  auditd on a 256 KiB tmpfs.  With the Debian
#                        default disk_full_action=suspend auditd stays
#                        registered and discards records: nothing outside
#                        auditd can tell, and even audit=required lets the
#                        login through with its record lost.  With
#                        disk_full_action=exec of a script that stops
#                        auditd, audit=required refuses once auditd is gone
#   out of pids          a container at its pids.max: hijack-shell's clone
#                        fails, the ssh login is refused with a message and
#                        an op=deny reason=pids record
#
# The auditd cases need the audit daemon slot of the kernel: they run only
# when no audit daemon runs (one this test did not start is never
# stopped), and are skipped otherwise.  Everything runs in a private mount
# namespace (the tmpfs, hijack.conf); users hjt*, cgroups under hjtest-PID.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools auditd auditctl ausearch pamtester sshd ssh setcap
D=$HJ_TMP/af
mkdir -p "$D"
id=$$
U1=hjtf1$id U2=hjtf2$id
REQ=hjt-af-req-$id OPT=hjt-af-opt-$id

# an --enable-asan module needs the runtime preloaded into pamtester
asan=$(asan_preload "$MODULE")
pamtester() {
	if [ -n "$asan" ]; then
		LD_PRELOAD=$asan ASAN_OPTIONS=detect_leaks=0 command pamtester "$@"
	else
		command pamtester "$@"
	fi
}
# login SERVICE: pamtester's output; its exit status
login() { pamtester "$1" "$U1" acct_mgmt open_session close_session 2>&1; }

hj_shell_install "$D"
hj_conf_take
U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 $U2 >/dev/null 2>&1")
"$U" useradd "$U1" -M -N -g users >/dev/null
"$U" useradd "$U2" -M -N -g users -s "$HS" >/dev/null
usermod -p '*' -d "$D/home-$U2" "$U2"
mkdir -p "$D/home-$U2"
ct_start web1 web1 || bail_out "container web1"
ct_start full full || bail_out "container full"
cat > "$CONF" <<EOF
# audit-faults.sh
$U1	$HJ_RUN/web1
$U2	$HJ_RUN/full
EOF
chmod 644 "$CONF"
for s in "$REQ required" "$OPT optional"; do
	# shellcheck disable=SC2086 # two words
	set -- $s
	HJ_CLEANUP+=("rm -f /etc/pam.d/$1")
	cat > "/etc/pam.d/$1" <<EOF
account required $MODULE audit=$2
account required pam_permit.so
session required $MODULE audit=$2
session required pam_permit.so
EOF
done
enabled_before=$(audit_status enabled)
HJ_CLEANUP+=("auditctl -e $enabled_before >/dev/null")

# -- no audit daemon; auditing disabled
down_tests() { # what; pamtester outputs and status in the variables
	like "$1, audit=required: the user is told" "$req_out" \
		"Login refused: it cannot be audited"
	isnt "$1, audit=required: the session is refused" "$req_rc" 0
	is "$1, audit=optional: the login goes on" "$opt_rc" 0
}
if [ "$(audit_status pid)" != 0 ]; then
	for _ in $(seq 6); do
		skip "auditd down / auditing disabled" "cannot: an audit daemon we did not start runs"
	done
else
	for e in 0 1; do
		auditctl -e $e >/dev/null
		req_out=$(login "$REQ"); req_rc=$?
		login "$OPT" >/dev/null; opt_rc=$?
		what="auditing disabled (auditctl -e 0)"
		[ $e = 0 ] || what="auditd down (auditing enabled)"
		if [ "$(audit_status pid)" != 0 ]; then
			for _ in 1 2 3; do skip "$what" "cannot: an audit daemon started meanwhile"; done
		else
			down_tests "$what"
		fi
	done
	auditctl -e "$enabled_before" >/dev/null
fi

# -- the audit log's disk full: auditd on a tiny tmpfs
# start_auditd ACTION: our auditd, its log on an empty 256 KiB tmpfs
start_auditd() {
	local c=$D/auditd-$1
	mkdir -p "$c/log" "$c/plugins"
	mount -t tmpfs -o size=256k,mode=0700 "hjt-auditlog-$id" "$c/log" || return 1
	HJ_CLEANUP+=("umount '$c/log' 2>/dev/null")
	# shellcheck disable=SC2016 # expanded by the script
	printf '#!/bin/sh\necho "$PPID" > %s/stopped\nkill -TERM "$PPID"\n' "$c" > "$c/stop-auditd"
	chmod 750 "$c/stop-auditd" # auditd wants 0750, 0755, 0555 or 0550
	[ "$1" = exec ] && action="exec $c/stop-auditd" || action=$1
	cat > "$c/auditd.conf" <<EOF
local_events = yes
write_logs = yes
log_file = $c/log/audit.log
log_format = ENRICHED
flush = INCREMENTAL_ASYNC
freq = 1
max_log_file = 8
num_logs = 1
max_log_file_action = IGNORE
space_left = 1
space_left_action = IGNORE
admin_space_left = 0
admin_space_left_action = IGNORE
disk_full_action = $action
disk_error_action = $action
plugin_dir = $c/plugins
q_depth = 2000
overflow_action = SYSLOG
end_of_event_timeout = 2
EOF
	chmod 600 "$c/auditd.conf"
	auditd -n -c "$c" > "$c/auditd.out" 2>&1 &
	AUDITD=$!
	HJ_CLEANUP+=("kill -TERM $AUDITD 2>/dev/null; wait $AUDITD 2>/dev/null")
	for _ in $(seq 100); do
		[ "$(audit_status pid)" = "$AUDITD" ] && break
		kill -0 "$AUDITD" 2>/dev/null || break
		sleep 0.1
	done
	LOG=$c/log/audit.log
	[ "$(audit_status pid)" = "$AUDITD" ] && return 0
	diag "auditd -c $c: $(cat "$c/auditd.out"); audit pid $(audit_status pid)"
	return 1
}
stop_auditd() {
	kill -TERM "$AUDITD" 2>/dev/null
	wait "$AUDITD" 2>/dev/null
	umount "$(dirname "$LOG")"
}
fill() { dd if=/dev/zero of="$(dirname "$LOG")/filler" bs=4k 2>/dev/null; sync; }
# records of user U1 in our log (the file: ausearch would read auditd.conf)
records() { grep -c "type=VIRT_CONTROL.*op=$1 .*user=\"$U1\"" "$LOG" 2>/dev/null; }
auditd_is() { [ "$(audit_status pid)" = "$1" ]; }
records_are() { [ "$(records "$1")" = "$2" ]; }
waitfor() { for _ in $(seq 50); do "$@" && return 0; sleep 0.1; done; return 1; }

n_full=8
if [ "$(audit_status pid)" != 0 ]; then
	for _ in $(seq $n_full); do
		skip "audit log disk full" "cannot: an audit daemon we did not start runs"
	done
elif ! start_auditd suspend; then
	for _ in $(seq $n_full); do not_ok "auditd (disk_full_action=suspend) started"; done
else
	auditctl -e 1 >/dev/null
	out=$(login "$REQ")
	is "disk not full yet, audit=required: the login goes on" "$?" 0
	check "disk not full yet: the op=start record is in the log" waitfor records_are start 1
	fill
	# the first records after the disk filled up may still fit in a page
	for _ in 1 2 3 4 5; do login "$OPT" >/dev/null; done
	before=$(records start)
	out=$(login "$REQ")
	is "disk full, disk_full_action=suspend, audit=required: the login goes on (undetectable)" "$?" 0
	sleep 1
	is "disk full, disk_full_action=suspend: the record is lost" "$(records start)" "$before"
	is "disk full, disk_full_action=suspend: auditd stays registered" "$(audit_status pid)" "$AUDITD"
	stop_auditd
	auditctl -e "$enabled_before" >/dev/null

	if ! start_auditd exec; then
		for _ in 1 2 3; do not_ok "auditd (disk_full_action=exec) started"; done
	else
		auditctl -e 1 >/dev/null
		fill
		# logins until auditd notices and its disk_full_action stops it
		for _ in $(seq 20); do
			[ "$(audit_status pid)" = 0 ] && break
			login "$OPT" >/dev/null
			sleep 0.2
		done
		check "disk full, disk_full_action=exec (stop auditd): auditd stopped" \
			test "$(audit_status pid)" = 0 -a -s "$D/auditd-exec/stopped"
		out=$(login "$REQ")
		rc=$?
		like "disk full, auditd stopped by its disk_full_action, audit=required: told" "$out" \
			"Login refused: it cannot be audited"
		isnt "disk full, auditd stopped by its disk_full_action, audit=required: refused" "$rc" 0
		stop_auditd
		auditctl -e "$enabled_before" >/dev/null
	fi
fi

# -- out of pids: the container's pids.max reached
pids=$(cg_path /sys/fs/cgroup/pids full)
[ -d "$pids" ] || pids=$(cg_path /sys/fs/cgroup full)
if [ ! -f "$pids/pids.max" ]; then
	for _ in 1 2 3 4; do skip "out of pids" "kernel: no pids controller"; done
else
	# an auditd for the record: ours, unless one runs
	hj_auditd "$D"
	sshd_start "$D" "$U2"
	cat "$pids/pids.current" > "$pids/pids.max"
	out=$(s "$U2" 'echo inside; hostname' 2>&1)
	rc=$?
	isnt "out of pids: the ssh login fails" "$rc" 0
	like "out of pids: the user is told why" "$out" \
		"container full cannot start another process"
	is "out of pids: nothing ran, inside or on the host" \
		"$(grep -c '^inside$' <<<"$out")" 0
	# the op=deny records for the container "full" with reason $1
	deny() {
		ausearch --input-logs -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" \
			--vm-name full 2>/dev/null |
			grep "op=deny.*user=\"$U2\".*reason=\"$1\""
	}
	rec=$(waitfor deny pids)
	like "out of pids: an op=deny reason=pids record" "$rec" \
		"op=deny vm=\"full\" vm-pid=-1 user=\"$U2\".*reason=\"pids\".*res=failed"
	echo max > "$pids/pids.max"

	# -- a frozen container: pam_hijack refuses at once (no hang), with
	#    a message and an op=deny reason=frozen record
	V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	fz=$(cg_path "$V2" full)/cgroup.freeze
	if [ -z "$V2" ] || [ ! -e "$fz" ]; then
		for _ in 1 2 3 4; do skip "frozen container" "kernel: no cgroup.freeze"; done
	else
		echo 1 > "$fz"
		HJ_CLEANUP+=("echo 0 > '$fz' 2>/dev/null")
		out=$(timeout 60 ssh -p "$PORT" "${SSHO[@]}" "$U2@127.0.0.1" 'echo inside' 2>&1)
		rc=$?
		isnt "frozen container: the ssh login fails" "$rc" 0
		isnt "frozen container: refused, not hung (timeout)" "$rc" 124
		is "frozen container: nothing ran" "$(grep -c '^inside$' <<<"$out")" 0
		rec=$(waitfor deny frozen)
		like "frozen container: an op=deny reason=frozen record (pam_hijack's)" "$rec" \
			"op=deny vm=\"full\" vm-pid=[0-9]+ user=\"$U2\".*reason=\"frozen\".*exe=\"/usr/sbin/sshd\".*res=failed"
		echo 0 > "$fz"
	fi
fi

done_testing
