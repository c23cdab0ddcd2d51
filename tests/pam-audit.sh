#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pam_hijack with pamtester against a real /etc/pam.d service and a real
# auditd: a login into a running container and a refused login into a
# stopped one leave VIRT_CONTROL records that ausearch and aureport read.
#
# Needs root.  Starts auditd -n itself unless one runs already, and
# removes everything it creates (users hjt*, cgroups hjtest-PID-*,
# /etc/pam.d/hijack-test-PID).  TAP output.
set -u

srcdir=${srcdir:-$(dirname "$0")/..}
top_builddir=${top_builddir:-$(pwd)}
module=$(cd "$top_builddir" && pwd)/pam_hijack/.libs/pam_hijack.so
container="$srcdir/tests/container.sh"
users="$srcdir/tests/users.sh"

skip() {
	echo "1..0 # SKIP $*"
	exit 0
}

[ "$(id -u)" = 0 ] || skip "needs root"
for tool in auditd auditctl ausearch aureport pamtester useradd unshare; do
	command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
[ -f "$module" ] || {
	echo "Bail out! $module not built"
	exit 1
}

# an --enable-asan module needs the runtime preloaded into pamtester
asan=$(readelf -d "$module" 2>/dev/null | sed -n 's/.*\[\(libasan[^]]*\)\].*/\1/p')
preload=
[ -z "$asan" ] || preload=$(${CC:-cc} -print-file-name="$asan")
pamtester() {
	if [ -n "$preload" ]; then
		LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 \
			command pamtester "$@"
	else
		command pamtester "$@"
	fi
}

service=hijack-test-$$
ctr=hjtest-$$-web1
gone=hjtest-$$-gone
u_in=hjta$$
u_out=hjtb$$
tmp=$(mktemp -d /tmp/hjt-audit-XXXXXX)
ctr_pid=
auditd_pid=
enabled_before=
failures=0
n=0

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	rm -f "/etc/pam.d/$service"
	"$users" del "$u_in" "$u_out"
	[ -z "$ctr_pid" ] || "$container" stop "$ctr" "$ctr_pid"
	if [ -n "$auditd_pid" ]; then
		kill -TERM "$auditd_pid" 2>/dev/null
		wait "$auditd_pid" 2>/dev/null
	fi
	[ -z "$enabled_before" ] || auditctl -e "$enabled_before" >/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

check() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failures=$((failures + 1))
	fi
}

audit_status() {
	auditctl -s | awk -v k="$1" '$1 == k { print $2 }'
}

# --- auditd: reuse a running one, or start our own in the foreground ---
enabled_before=$(audit_status enabled)
if [ "$(audit_status pid)" = 0 ]; then
	auditd -n >"$tmp/auditd.out" 2>&1 &
	auditd_pid=$!
	i=0
	while [ "$(audit_status pid)" != "$auditd_pid" ]; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$auditd_pid" 2>/dev/null; then
			cat "$tmp/auditd.out"
			echo "Bail out! auditd did not start"
			exit 1
		fi
		sleep 0.1
	done
fi
[ "$(audit_status enabled)" = 1 ] || auditctl -e 1 >/dev/null
start_day=$(date '+%x')
start_time=$(date '+%T')
sleep 1 # ausearch -ts has a resolution of seconds

# --- users, container, config, service ---
if ! "$users" useradd "$u_in" -M -N -g users ||
	! "$users" useradd "$u_out" -M -N -g users; then
	echo "Bail out! useradd failed"
	exit 1
fi
ctr_pid=$("$container" start "$ctr" web1) || {
	echo "Bail out! cannot start the container"
	exit 1
}
init=$("$container" init "$ctr")
cat >"$tmp/hijack.conf" <<EOF
# pam-audit.sh
$u_in  $ctr
$u_out $gone
EOF
chmod 0644 "$tmp/hijack.conf"
cat >"/etc/pam.d/$service" <<EOF
account required $module conf=$tmp/hijack.conf
account required pam_permit.so
session required $module conf=$tmp/hijack.conf
session required pam_permit.so
EOF

echo "1..10"

# --- a login into the running container ---
pamtester "$service" "$u_in" acct_mgmt open_session close_session \
	>"$tmp/in.out" 2>&1
check $? "pamtester: $u_in logs in (container running)"

# --- a refused login: the container is stopped ---
pamtester "$service" "$u_out" acct_mgmt >"$tmp/out.out" 2>&1
rc=$?
grep -q "container $gone is not running" "$tmp/out.out"
check $((rc == 0 || $?)) "pamtester: $u_out refused, told '$gone is not running'"
pamtester "$service" "$u_out" open_session >>"$tmp/out.out" 2>&1
check $((!$?)) "pamtester: $u_out open_session refused"

# --- the records, as auditd wrote them ---
# (--input-logs: without it ausearch reads stdin when it is not a tty)
find_records() {
	i=0
	while [ $i -lt 50 ]; do
		ausearch --input-logs -m VIRT_CONTROL -ts "$start_day" "$start_time" --vm-name "$1" \
			>"$tmp/$1.rec" 2>/dev/null &&
			[ "$(grep -c 'type=VIRT_CONTROL' "$tmp/$1.rec")" -ge "$2" ] &&
			return 0
		i=$((i + 1))
		sleep 0.1
	done
	return 1
}

find_records "$ctr" 1
check $? "ausearch -m VIRT_CONTROL --vm-name $ctr finds the login"
grep -q "virt=hijack op=start vm=\"$ctr\" vm-pid=$init user=\"$u_in\" uid=$(id -u "$u_in") cgroup=\"$ctr\" reason=\"login\"" \
	"$tmp/$ctr.rec" && grep -q "res=success" "$tmp/$ctr.rec"
check $? "start record: virt=hijack op=start vm vm-pid=$init user uid cgroup res=success"

find_records "$gone" 2
check $? "ausearch -m VIRT_CONTROL --vm-name $gone finds both refusals"
[ "$(grep -c "virt=hijack op=deny vm=\"$gone\" vm-pid=-1 user=\"$u_out\" .*reason=\"not-running\".*res=failed" "$tmp/$gone.rec")" = 2 ]
check $? "deny records: op=deny vm-pid=-1 reason=not-running res=failed"

# auid/ses are pamtester's; the record carries the host's exe
grep -q 'exe="/usr/bin/pamtester"' "$tmp/$ctr.rec"
check $? "records name the program that logged in (exe=pamtester)"

aureport --input-logs --virt -ts "$start_day" "$start_time" >"$tmp/report" 2>&1
grep -q "VIRT_CONTROL" "$tmp/report"
check $? "aureport --virt lists VIRT_CONTROL events"
[ "$(grep -c "VIRT_CONTROL" "$tmp/report")" -ge 3 ]
check $? "aureport --virt lists all three (1 start, 2 deny)"

if [ $failures != 0 ]; then
	echo "# records for $ctr:"
	sed 's/^/# /' "$tmp/$ctr.rec"
	echo "# records for $gone:"
	sed 's/^/# /' "$tmp/$gone.rec"
	echo "# aureport --virt:"
	sed 's/^/# /' "$tmp/report"
	sed 's/^/# pamtester: /' "$tmp/in.out" "$tmp/out.out"
	exit 1
fi
exit 0
