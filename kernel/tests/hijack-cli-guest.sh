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
INIT=""
for i in $(seq 100); do
	# no /proc/PID/task/PID/children in a tinyconfig kernel: scan
	for st in /proc/[0-9]*/status; do
		grep -q '^Name:.*sleep' $st 2>/dev/null &&
			grep -q '^NSpid:.*[[:space:]].*[[:space:]]1$' $st &&
			grep -q "^PPid:[[:space:]]*$HELPER\$" $st &&
			INIT=$(basename "$(dirname $st)")
	done
	[ -n "$INIT" ] && break
	sleep 0.05
done
[ -n "$INIT" ] || { fail cli-container "no init"; exit 1; }

if [ -e /proc/sys/kernel/hijack_syscall_nr ]; then
	pass cli-native-advertised
else
	fail cli-native-advertised "no /proc/sys/kernel/hijack_syscall_nr"
fi
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
	hijack -b $b pid $INIT sleep 15 &
	h=$!
	# the debug kernel (KASAN, lockdep) is slow: poll, up to 10 s
	child=""
	for i in $(seq 100); do
		for st in /proc/[0-9]*/status; do
			grep -q "^PPid:[[:space:]]*$h\$" $st 2>/dev/null &&
				grep -q '^Name:.*sleep' $st && child=$(basename "$(dirname $st)")
		done
		[ -n "$child" ] && break
		sleep 0.1
	done
	is "cli-$b-child-cgroups" "$(cat /proc/$child/cgroup 2>/dev/null)" "$(cat /proc/$INIT/cgroup)"
	is "cli-$b-child-parent" "$(awk '/^PPid:/ {print $2}' /proc/$child/status 2>/dev/null)" "$h"
	kill $h 2>/dev/null
	wait $h
	out=$(hijack -b $b cgroup /proc/self/status true 2>&1)
	case $out in *"Bad file descriptor"*) pass "cli-$b-ebadf" ;; *) fail "cli-$b-ebadf" "$out" ;; esac
done

# Side by side, in blocks of 10 alternating, so the guest's load hits all
# three alike: /bin/true, and the project's hijack entering the container
# with each backend (native: sys_hijack; stock: what a stock kernel needs,
# pidfd + clone3 into the cgroup + setns + fork).  /proc/uptime ticks in
# 10 ms; a block of 10 entries under TCG takes far longer.  Not a test.
up() { cut -d' ' -f1 /proc/uptime; }
t_true=0 t_native=0 t_stock=0 rounds=${HIJACK_CLI_BENCH_BLOCKS:-5}
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
awk -v n=$((rounds * 10)) -v t=$t_true -v nat=$t_native -v st=$t_stock 'BEGIN {
	printf "BENCH cli mean of %d: /bin/true %.1f ms, hijack -b native %.1f ms, hijack -b stock %.1f ms\n",
		n, t * 1000 / n, nat * 1000 / n, st * 1000 / n
	if (st > t)
		printf "BENCH cli native/stock = %.2f, overhead native/stock = %.2f\n",
			nat / st, (nat - t) / (st - t)
}'

kill -KILL $INIT $HELPER 2>/dev/null
wait $HELPER 2>/dev/null
sleep 0.2
rmdir $V1/clict $V2/clict 2>/dev/null
exit 0
