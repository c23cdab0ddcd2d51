#!/bin/sh
# The project's hijack command in the guest: one behaviour, two backends.
# A container (new pid/mnt/uts/ipc namespaces, its own cgroups, with a
# helper listed first in the cgroup as unshare does) is entered with
# `hijack -b native` and `hijack -b stock`; both must land in the same
# place.  Prints PASS/FAIL lines for the harness.
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
is() { if [ "$2" = "$3" ]; then pass "$1"; else fail "$1" "got '$2', expected '$3'"; fi; }

V1=/sys/fs/cgroup/pids V2=/sys/fs/cgroup/unified
mkdir -p $V1/clict $V2/clict
(
	# "0": the writer itself (in a subshell $$ is the parent's pid)
	echo 0 > $V1/clict/cgroup.procs
	echo 0 > $V2/clict/cgroup.procs
	exec unshare -p -f -m -u -i --mount-proc sh -c 'hostname clict; exec sleep 100000'
) </dev/null >/dev/null 2>&1 &
HELPER=$!
# kid PARENT COMM: sets KID to PARENT's child running COMM, polling for
# up to 60 s (the debug kernel under TCG on a loaded host is slow; one
# scan of /proc with a grep per process once took longer than a 15 s
# sleep lived).  /proc/PID/task/PID/children is there: CHECKPOINT_RESTORE,
# which the seccomp filter copy needs, selects PROC_CHILDREN.
kid() {
	KID=""
	for i in $(seq 600); do
		for c in $(cat /proc/$1/task/$1/children 2>/dev/null); do
			[ "$(cat /proc/$c/comm 2>/dev/null)" = "$2" ] && KID=$c
		done
		[ -n "$KID" ] && return 0
		sleep 0.1
	done
	return 1
}
# unshare -f: its child is the container's init, pid 1 of the new pid ns
kid $HELPER sleep
INIT=$KID
[ -n "$INIT" ] || { fail cli-container "no init"; exit 1; }
grep -q '^NSpid:.*[[:space:]]1$' /proc/$INIT/status ||
	{ fail cli-container "$INIT is not pid 1 of a pid namespace"; exit 1; }

# the library finds the call by probing (lib/spawn.c), and then uses it
# unasked
hijack -v pid $INIT true 2>/tmp/v.auto
grep -q "via native" /tmp/v.auto && pass cli-native-probed ||
	fail cli-native-probed "$(cat /tmp/v.auto)"
# man/hijack.2's example program, as the page prints it (run-tests.sh
# builds it): it runs a command inside the process its first argument
# names, prints the child's pid, and exits with the command's status.
out=$(hijack-example $INIT hostname 2>&1)
is man-example-hostname "$(echo "$out" | grep -v '^child PID: ')" clict
echo "$out" | grep -q '^child PID: [1-9][0-9]*$' && pass man-example-pid ||
	fail man-example-pid "$out"
hijack-example $INIT sh -c 'exit 7' >/dev/null
is man-example-exit-status $? 7
is man-example-cgroups "$(hijack-example $INIT cat /proc/self/cgroup | grep -v '^child PID: ')" \
	"$(cat /proc/$INIT/cgroup)"
for b in native stock; do
	out=$(hijack -v -b $b pid $INIT hostname 2>/tmp/v.$b)
	is "cli-$b-pid-hostname" "$out" clict
	grep -q "via $b" /tmp/v.$b && pass "cli-$b-backend-used" ||
		fail "cli-$b-backend-used" "$(cat /tmp/v.$b)"
	out=$(hijack -b $b cgroup $V2/clict/cgroup.procs hostname 2>&1)
	is "cli-$b-cgroup-v2-hostname" "$out" clict
	out=$(hijack -b $b cgroup $V1/clict/tasks hostname 2>&1)
	is "cli-$b-cgroup-v1-tasks-hostname" "$out" clict
	for ns in mnt uts ipc pid; do
		is "cli-$b-ns-$ns" "$(hijack -b $b pid $INIT readlink /proc/self/ns/$ns)" \
			"$(readlink /proc/$INIT/ns/$ns)"
	done
	hijack -b $b pid $INIT sh -c 'exit 7'
	is "cli-$b-exit-status" $? 7
	hijack -b $b pid $INIT sh -c 'kill -KILL $$'
	is "cli-$b-signal-death" $? 137
	hijack -b $b pid $INIT sleep 600 2>/tmp/h.err &
	h=$!
	kid $h sleep || echo "INFO cli-$b-child: hijack: $(cat /tmp/h.err)"
	child=$KID
	is "cli-$b-child-cgroups" "$(cat /proc/$child/cgroup 2>/dev/null)" "$(cat /proc/$INIT/cgroup)"
	is "cli-$b-child-parent" "$(awk '/^PPid:/ {print $2}' /proc/$child/status 2>/dev/null)" "$h"
	kill $child $h 2>/dev/null
	wait $h
	out=$(hijack -b $b cgroup /proc/self/status true 2>&1)
	case $out in *"Bad file descriptor"*) pass "cli-$b-ebadf" ;; *) fail "cli-$b-ebadf" "$out" ;; esac
done

# Confinement: whatever the backend, hijack's command is as
# confined as the container's init: its bounding set, no_new_privs,
# seccomp filters and AppArmor label.  Each case has a negative control:
# with --no-confine the command keeps the caller's confinement, so every
# check below fails if hijack skipped a part.
fields() { grep -E '^(CapBnd|NoNewPrivs|Seccomp|Seccomp_filters):' "$@" | tr -s '\t ' ' ' | tr '\n' ';'; }
isnt() { if [ "$2" != "$3" ]; then pass "$1"; else fail "$1" "got '$2' for both"; fi; }

# spawn NAME LABEL NAME-OF-INIT COMMAND...: a container (own cgroups and
# namespaces) whose init is COMMAND, started under the AppArmor profile
# LABEL (none if empty); sets HELPER and CINIT
spawn() {
	name=$1 label=$2 comm=$3
	shift 3
	mkdir -p $V1/$name $V2/$name
	(
		echo 0 > $V1/$name/cgroup.procs
		echo 0 > $V2/$name/cgroup.procs
		if [ -n "$label" ]; then
			printf 'exec %s' "$label" > /proc/self/attr/apparmor/exec || exit 1
		fi
		exec unshare -p -f -m -u -i --mount-proc -- "$@"
	) </dev/null >/dev/null 2>&1 &
	HELPER=$!
	kid $HELPER $comm
	CINIT=$KID
	[ -n "$CINIT" ] || fail "cli-$name-init" "no init"
}

# bg ARGS...: `hijack ARGS... sleep 600` in the background; sets H (the
# hijack process) and CHILD (its command, once it runs sleep)
bg() {
	hijack "$@" sleep 600 </dev/null >/dev/null 2>/tmp/bg.err &
	H=$!
	kid $H sleep || echo "INFO bg $*: hijack: $(cat /tmp/bg.err)"
	CHILD=$KID
}
unbg() { kill $CHILD $H 2>/dev/null; wait $H 2>/dev/null; }

SELF=$(fields /proc/self/status)
# Seccomp_filters (5.9+) and filter copying (CHECKPOINT_RESTORE) are there
case $SELF in
*Seccomp_filters*) pass cli-confine-kernel ;;
*) fail cli-confine-kernel "no Seccomp_filters in /proc/self/status: '$SELF'" ;;
esac

# confined NAME PROBES: the checks for a confined init CINIT; PROBES are
# K:ERRNO pairs for `hj-confined probe K` run by the command (unfiltered,
# getpriority(1000 + K, 0) fails with EINVAL, 22: no such "which")
# The backends whose confinement is checked: both, unless the harness
# says otherwise (the debug guest checks native's only: run-tests.sh).
CB=${HIJACK_CLI_CONFINE_BACKENDS:-native stock}
confined() {
	name=$1 probes=$2
	want=$(fields /proc/$CINIT/status)
	# the init must differ from the caller, or nothing below can fail
	isnt "cli-$name-init-confined" "$want" "$SELF"
	for b in $CB; do
		bg -b $b pid $CINIT
		got=$(fields /proc/$CHILD/status 2>&1)
		is "cli-$b-$name-status" "$got" "$want"
		# what hijack said, for a failure's reader
		[ "$got" = "$want" ] || echo "INFO cli-$b-$name-status: hijack: $(cat /tmp/bg.err)"
		unbg
		for pe in $probes; do
			is "cli-$b-$name-probe-${pe%%:*}" \
				"$(hijack -b $b pid $CINIT hj-confined probe ${pe%%:*} 2>&1)" "${pe#*:}"
		done
		# negative control: the caller's own, not the init's
		bg --no-confine -b $b pid $CINIT
		got=$(fields /proc/$CHILD/status 2>&1)
		is "cli-$b-$name-no-confine-status" "$got" "$SELF"
		[ "$got" = "$SELF" ] || echo "INFO cli-$b-$name-no-confine-status: hijack: $(cat /tmp/bg.err)"
		isnt "cli-$b-$name-no-confine-differs" "$got" "$want"
		unbg
		is "cli-$b-$name-no-confine-probe" \
			"$(hijack --no-confine -b $b pid $CINIT hj-confined probe 1 2>&1)" 22
	done
}
finish() { kill -KILL $CINIT $HELPER 2>/dev/null; wait $HELPER 2>/dev/null; }

# docker's: no_new_privs and one filter
spawn nnp "" sleep hj-confined -n -f 1 sleep 100000
confined nnp "1:41 2:22"
finish
# no no_new_privs: the filters are loaded while still privileged; two,
# newest first (probe 0 answers the newest's errno)
spawn filt "" sleep hj-confined -f 2 sleep 100000
confined filt "0:42 1:41 2:42"
finish

# strict mode cannot be given to a new process: refused, on both backends
spawn strict "" hj-confined hj-confined -S
for b in native stock; do
	out=$(hijack -b $b pid $CINIT true 2>&1)
	rc=$?
	is "cli-$b-strict-refused" "$rc" 1
	case $out in
	*"strict mode"*) pass "cli-$b-strict-message" ;;
	*) fail "cli-$b-strict-message" "$out" ;;
	esac
	hijack --no-confine -b $b pid $CINIT true
	is "cli-$b-strict-no-confine" $? 0
done
finish

# AppArmor: a profile compiled on the host (no apparmor_parser here),
# loaded through securityfs in one write, a container init started under
# it; the command gets the init's label, an unconfined init's command
# stays unconfined.
AA=/sys/kernel/security/apparmor
case $(cat /sys/kernel/security/lsm 2>&1) in
*apparmor*) pass cli-apparmor-enabled ;;
*) fail cli-apparmor-enabled "lsm: $(cat /sys/kernel/security/lsm 2>&1)" ;;
esac
if dd if=/etc/apparmor/hijack-test.aa of=$AA/.load bs=1M 2>/tmp/aa.err &&
	grep -qx 'hijack-test (enforce)' $AA/profiles; then
	pass cli-apparmor-load
else
	fail cli-apparmor-load "$(cat /tmp/aa.err; cat $AA/profiles 2>&1)"
fi
spawn aa hijack-test sleep hj-confined -n -f 1 sleep 100000
label=$(cat /proc/$CINIT/attr/current 2>&1)
is cli-apparmor-init-label "$label" "hijack-test (enforce)"
confined aa "1:41"
for b in $CB; do
	bg -b $b pid $CINIT
	is "cli-$b-apparmor-label" "$(cat /proc/$CHILD/attr/current 2>&1)" "$label"
	is "cli-$b-apparmor-label-own-attr" \
		"$(cat /proc/$CHILD/attr/apparmor/current 2>&1)" "$label"
	unbg
	is "cli-$b-apparmor-label-inside" \
		"$(hijack -b $b pid $CINIT cat /proc/self/attr/current 2>&1)" "$label"
	bg --no-confine -b $b pid $CINIT
	is "cli-$b-apparmor-no-confine" "$(cat /proc/$CHILD/attr/current 2>&1)" unconfined
	unbg
	# the unconfined container of the tests above
	bg -b $b pid $INIT
	is "cli-$b-apparmor-unconfined-init" "$(cat /proc/$CHILD/attr/current 2>&1)" unconfined
	unbg
done
finish
rmdir $V1/nnp $V2/nnp $V1/filt $V2/filt $V1/strict $V2/strict $V1/aa $V2/aa 2>/dev/null

# Side by side, in blocks of 10 alternating, so the guest's load hits all
# three alike: /bin/true, and the project's hijack entering the container
# with each backend (native: sys_hijack; stock: what a stock kernel needs,
# pidfd + clone3 into the cgroup + setns + fork).  /proc/uptime ticks in
# 10 ms; a block of 10 entries under TCG takes far longer.  Not a test.
up() { cut -d' ' -f1 /proc/uptime; }
t_true=0 t_native=0 t_stock=0 rounds=${HIJACK_CLI_BENCH_BLOCKS:-5}
[ "${HIJACK_BENCH:-1}" = 0 ] && rounds=0
for r in $(seq $rounds); do
	for m in true native stock; do
		t0=$(up)
		for i in 1 2 3 4 5 6 7 8 9 10; do
			if [ $m = true ]; then /bin/true
			else hijack -b $m pid $INIT /bin/true; fi
		done
		t1=$(up)
		eval "t_$m=\$(awk -v a=\$t_$m -v b=$t0 -v c=$t1 'BEGIN { print a + c - b }')"
	done
done
[ "$rounds" = 0 ] ||
	awk -v n=$((rounds * 10)) -v t=$t_true -v nat=$t_native -v st=$t_stock 'BEGIN {
		printf "BENCH cli mean of %d: /bin/true %.1f ms, hijack -b native %.1f ms, hijack -b stock %.1f ms\n",
			n, t * 1000 / n, nat * 1000 / n, st * 1000 / n
		if (st > t)
			printf "BENCH cli native/stock = %.2f, overhead native/stock = %.2f\n",
				nat / st, (nat - t) / (st - t)
	}'

# What hj_spawn() asks again after hj_target_check_access(), as a login
# enters, with each backend (tests/lib/spawn_checks.c): it lands, with
# and without a working directory; a caller that lost its privilege is
# EPERM, a tracer that lets go is waited for and one that stays is EBUSY,
# a frozen cgroup is EDEADLK.  With sys_hijack the kernel asks all but
# the freezer.
hj-spawn-checks $INIT $V2/clict clict

# The library alone, without the command's start-up: hj_spawn() with each
# backend and plain fork(), the child exiting at once and then exec'ing
# /bin/true (BENCH lines, not a test).  What is tested: every child of
# both backends was created by the backend asked for and exited 0.
if hj-spawn-bench $INIT $((${HIJACK_BENCH_ROUNDS:-500} / 2)) 2>/tmp/sb.err; then
	pass cli-lib-spawn-both-backends
else
	fail cli-lib-spawn-both-backends "$(cat /tmp/sb.err)"
fi

kill -KILL $INIT $HELPER 2>/dev/null
wait $HELPER 2>/dev/null
sleep 0.2
rmdir $V1/clict $V2/clict 2>/dev/null
exit 0
