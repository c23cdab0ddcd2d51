#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# pam_hijack with pamtester against a real /etc/pam.d service and a real
# auditd: a login into a running container and a refused login into a
# stopped one leave VIRT_CONTROL records that ausearch and aureport read.
#
# Needs root.  Starts auditd -n itself unless one runs already, and
# removes everything it creates (users hjt*, cgroups under hjtest-PID,
# /etc/pam.d/hijack-test-PID).  TAP output.
. "$(dirname "$0")/lib.sh"
require_root
require_tools auditd auditctl ausearch aureport pamtester useradd unshare strace
module=$top_builddir/pam_hijack/.libs/pam_hijack.so
[ -f "$module" ] || bail_out "$module not built"
U="$top_srcdir/tests/users.sh"
D=$HJ_TMP/pa
mkdir -p "$D"

# an --enable-asan module needs the runtime preloaded into pamtester
preload=$(asan_preload "$module")
pamtester() {
	if [ -n "$preload" ]; then
		LD_PRELOAD=$preload ASAN_OPTIONS=detect_leaks=0 \
			command pamtester "$@"
	else
		command pamtester "$@"
	fi
}

service=hijack-test-$$
# the containers' names (vm= in the records) are unique to the run
ctr=hjtest-$$-web1
gone=hjtest-$$-gone
u_in=hjta$$
u_out=hjtb$$

# --- auditd: reuse a running one, or start our own in the foreground ---
hj_auditd "$D"
if [ -n "$AUDITD" ] && [ "$(audit_status pid)" != "$AUDITD" ]; then
	sed 's/^/# /' "$D/auditd.out"
	bail_out "auditd did not start"
fi

# --- users, container, config, service ---
HJ_CLEANUP+=("'$U' del $u_in $u_out")
{ "$U" useradd "$u_in" -M -N -g users &&
	"$U" useradd "$u_out" -M -N -g users; } || bail_out "useradd failed"
ct_start web1 web1 || bail_out "cannot start the container"
init=$CT_INIT
cat >"$D/hijack.conf" <<EOC
# pam-audit.sh
$u_in  $HJ_RUN/web1 name=$ctr
$u_out $HJ_RUN/gone name=$gone
EOC
chmod 0644 "$D/hijack.conf"
HJ_CLEANUP+=("rm -f '/etc/pam.d/$service'")
cat >"/etc/pam.d/$service" <<EOC
account required $module conf=$D/hijack.conf
account required pam_permit.so
session required $module conf=$D/hijack.conf
session required pam_permit.so
EOC

# --- a login into the running container ---
pamtester "$service" "$u_in" acct_mgmt open_session close_session \
	>"$D/in.out" 2>&1
is "pamtester: $u_in logs in (container running)" "$?" 0

# --- a refused login: the container is stopped ---
pamtester "$service" "$u_out" acct_mgmt >"$D/out.out" 2>&1
rc=$?
isnt "pamtester: $u_out refused (container stopped)" "$rc" 0
check "pamtester: $u_out told '$gone is not running'" \
	grep -q "container $gone is not running" "$D/out.out"
pamtester "$service" "$u_out" open_session >>"$D/out.out" 2>&1
isnt "pamtester: $u_out open_session refused" "$?" 0

# --- a refused session: the init runs under a seccomp filter and is
# parked in vfork(), so it never stops for the copy of its filters ---
u_park=hjtp$$
parked=hjtest-$$-parked
"$U" useradd "$u_park" -M -N -g users || bail_out "useradd failed"
HJ_CLEANUP+=("'$U' del $u_park")
echo "$u_park $HJ_RUN/parked name=$parked" >>"$D/hijack.conf"
make_rootfs "$D/rp" parked >/dev/null 2>&1
cp "$top_builddir/tests/helpers/hj-confined" "$D/rp/bin/"
touch "$D/rp/park"
CT_COMM=hj-confined CT_WRAP="/bin/hj-confined -f 1 -P /park" \
	ct_start parked parked "$D/rp" || bail_out "cannot start the parked container"
pinit=$CT_INIT
for _ in $(seq 100); do
	grep -q '^State:[[:space:]]*D' "/proc/$pinit/status" && break
	sleep 0.05
done
pamtester "$service" "$u_park" acct_mgmt open_session >"$D/park.out" 2>&1
isnt "pamtester: $u_park's session refused (init parked in vfork())" "$?" 0
check "pamtester: $u_park told the init did not stop" \
	grep -q "cannot enter container $parked: the container's init did not stop" "$D/park.out"

# --- a refused login: the init is traced (a debugger, a tracer that
# stays): the module names it as hijack-shell does, reason=traced ---
u_tr=hjtr$$
traced=hjtest-$$-traced
"$U" useradd "$u_tr" -M -N -g users || bail_out "useradd failed"
HJ_CLEANUP+=("'$U' del $u_tr")
echo "$u_tr $HJ_RUN/traced name=$traced" >>"$D/hijack.conf"
ct_start traced traced || bail_out "cannot start the traced container"
tinit=$CT_INIT
strace -q -p "$tinit" -o /dev/null &
tracer=$!
HJ_PIDS+=("$tracer")
for _ in $(seq 100); do
	[ "$(awk '/^TracerPid:/ { print $2 }' "/proc/$tinit/status")" = "$tracer" ] && break
	sleep 0.05
done
is "the traced container's init is traced by our strace" \
	"$(awk '/^TracerPid:/ { print $2 }' "/proc/$tinit/status")" "$tracer"
pamtester "$service" "$u_tr" acct_mgmt >"$D/tr.out" 2>&1
isnt "pamtester: $u_tr refused (init traced)" "$?" 0
kill "$tracer" 2>/dev/null
wait "$tracer" 2>/dev/null

# --- the records, as auditd wrote them ---
# (--input-logs: without it ausearch reads stdin when it is not a tty)
# find_records VM N: at least N records of VM in $D/VM.rec
find_records() {
	local _
	for _ in $(seq 50); do
		ausearch --input-logs -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" \
			--vm-name "$1" >"$D/$1.rec" 2>/dev/null &&
			[ "$(grep -c 'type=VIRT_CONTROL' "$D/$1.rec")" -ge "$2" ] &&
			return 0
		sleep 0.1
	done
	return 1
}

check "ausearch -m VIRT_CONTROL --vm-name $ctr finds the login" \
	find_records "$ctr" 1
check "start record: virt=hijack op=start vm vm-pid=$init user uid cgroup" \
	grep -q "virt=hijack op=start vm=\"$ctr\" vm-pid=$init user=\"$u_in\" uid=$(id -u "$u_in") cgroup=\"$HJ_RUN/web1\" reason=\"login\"" \
	"$D/$ctr.rec"
check "start record: res=success" grep -q "res=success" "$D/$ctr.rec"

check "ausearch -m VIRT_CONTROL --vm-name $gone finds both refusals" \
	find_records "$gone" 2
is "deny records: op=deny vm-pid=-1 reason=not-running res=failed" \
	"$(grep -c "virt=hijack op=deny vm=\"$gone\" vm-pid=-1 user=\"$u_out\" .*reason=\"not-running\".*res=failed" "$D/$gone.rec")" 2

check "ausearch -m VIRT_CONTROL --vm-name $parked finds the refusal" \
	find_records "$parked" 1
is "deny record: op=deny vm-pid=the init reason=timeout res=failed" \
	"$(grep -c "virt=hijack op=deny vm=\"$parked\" vm-pid=$pinit user=\"$u_park\" .*reason=\"timeout\".*res=failed" "$D/$parked.rec")" 1

check "ausearch -m VIRT_CONTROL --vm-name $traced finds the refusal" \
	find_records "$traced" 1
is "deny record: op=deny reason=traced res=failed" \
	"$(grep -c "virt=hijack op=deny vm=\"$traced\" vm-pid=-1 user=\"$u_tr\" .*reason=\"traced\".*res=failed" "$D/$traced.rec")" 1

# auid/ses are pamtester's; the record carries the host's exe
check "records name the program that logged in (exe=pamtester)" \
	grep -q 'exe="/usr/bin/pamtester"' "$D/$ctr.rec"

aureport --input-logs --virt -ts "$TS_DAY" "$TS_TIME" >"$D/report" 2>&1
check "aureport --virt lists VIRT_CONTROL events" grep -q "VIRT_CONTROL" "$D/report"
check "aureport --virt lists all three (1 start, 2 deny)" \
	test "$(grep -c "VIRT_CONTROL" "$D/report")" -ge 3

if [ "$T_FAILED" != 0 ]; then
	diag "records for $ctr:"
	sed 's/^/# /' "$D/$ctr.rec"
	diag "records for $gone:"
	sed 's/^/# /' "$D/$gone.rec"
	diag "aureport --virt:"
	sed 's/^/# /' "$D/report"
	sed 's/^/# pamtester: /' "$D/in.out" "$D/out.out"
fi
done_testing
