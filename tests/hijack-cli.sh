#!/bin/bash
# The hijack command against real containers: namespaces, cgroups v1 and
# v2, root directory, exit statuses, signals and the seed's error codes.
. "$(dirname "$0")/lib.sh"
require_root

ROOTFS=$HJ_TMP/rootfs
make_rootfs "$ROOTFS" web1
ct_start web1 web1 "$ROOTFS" || bail_out "cannot start container"
HELPER=$CT_HELPER INIT=$CT_INIT
HOST_UTS=$(ns_of $$ uts)
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
V1=$(awk '$3 == "cgroup" && $4 ~ /pids/ { print $2; exit }' /proc/self/mounts)
diag "container init $INIT, helper $HELPER, v2 at ${V2:-none}, v1 pids at ${V1:-none}"

# -- target selection: the helper is listed first, the init is chosen
first=$(head -n1 "$(cg_path "${V2:-$V1}" web1)/cgroup.procs")
is "the unshare helper is listed first in the cgroup" "$first" "$HELPER"
out=$("$HIJACK" -v cgroup "$(cg_path "${V2:-$V1}" web1)/cgroup.procs" true 2>&1)
like "--verbose names the container init, not the helper" "$out" "pid $INIT \(container init\)"
like "--verbose names the backend and namespaces" "$out" "namespaces entered: mnt uts ipc net pid cgroup"

# -- landing inside: hostname, root, namespace inodes
is "hijack pid: hostname is the container's" "$("$HIJACK" pid "$INIT" hostname)" web1
is "hijack pid: / is the container's root" \
	"$("$HIJACK" pid "$INIT" cat /etc/hijack-marker)" "container-rootfs web1"
is "hijack pid: pid 1 is the container's sleep" \
	"$("$HIJACK" pid "$INIT" cat /proc/1/comm)" sleep
for ns in mnt uts ipc net pid cgroup; do
	got=$("$HIJACK" pid "$INIT" readlink /proc/self/ns/$ns)
	is "hijack pid: $ns namespace inode is the init's" "$got" "$(ns_of "$INIT" $ns)"
done
is "the caller's own uts namespace is unchanged" "$(ns_of $$ uts)" "$HOST_UTS"

# -- every membership file form, v1 and v2
forms=()
[ -n "$V1" ] && forms+=("$(cg_path "$V1" web1)/tasks" "$(cg_path "$V1" web1)/cgroup.procs" "$(cg_path "$V1" web1)")
[ -n "$V2" ] && forms+=("$(cg_path "$V2" web1)/cgroup.procs" "$(cg_path "$V2" web1)")
for f in "${forms[@]}"; do
	is "hijack cgroup ${f#/sys/fs/cgroup/}: hostname" "$("$HIJACK" cgroup "$f" hostname)" web1
done

# -- cgroup membership on every hierarchy, seen from the host
"$HIJACK" pid "$INIT" sleep 30 &
hj=$!
HJ_PIDS+=("$hj")
child=""
for i in $(seq 100); do
	child=$(pgrep -P "$hj" -x sleep) && break
	sleep 0.05
done
if [ -n "$child" ]; then
	is "the child's /proc/PID/cgroup equals the init's (all hierarchies)" \
		"$(cat /proc/$child/cgroup)" "$(cat /proc/$INIT/cgroup)"
	for ns in mnt uts ipc net pid cgroup; do
		is "the child's $ns namespace (host view)" "$(ns_of "$child" $ns)" "$(ns_of "$INIT" $ns)"
	done
	is "the child's parent is the hijack caller" "$(awk '/^PPid:/ {print $2}' /proc/$child/status)" "$hj"
	is "the child's root is the container's" "$(stat -Lc %i /proc/$child/root/etc/hijack-marker)" \
		"$(stat -c %i "$ROOTFS/etc/hijack-marker")"
	kill -TERM "$hj"
	wait "$hj"
	is "SIGTERM to hijack reaches the child: exit 143" "$?" 143
	check "the child is gone after SIGTERM" bash -c "! kill -0 $child 2>/dev/null"
else
	not_ok "child of hijack appears"
fi

# -- exit statuses and signal deaths
"$HIJACK" pid "$INIT" sh -c 'exit 7'
is "exit status passes through (7)" "$?" 7
"$HIJACK" pid "$INIT" sh -c 'kill -KILL $$'
is "death by SIGKILL gives 137" "$?" 137
"$HIJACK" pid "$INIT" /no/such/binary 2>/dev/null
is "a command that does not exist gives 127" "$?" 127
"$HIJACK" pid "$INIT" /etc/hijack-marker 2>/dev/null
is "a command that cannot be executed gives 126" "$?" 126
is "default command is /bin/sh" "$(echo 'echo $0; hostname' | "$HIJACK" pid "$INIT" | tr '\n' ' ')" "/bin/sh web1 "
is "--wd sets the working directory inside" "$("$HIJACK" -w /etc pid "$INIT" pwd)" /etc

# -- the command line (hijack/args.c; tests/fuzz/fuzz_args.c fuzzes it)
is "-- after the target ends the options" "$("$HIJACK" pid "$INIT" -- sh -c 'echo $1' x -v)" -v
out=$("$HIJACK" pid " $INIT" true 2>&1); rc=$?
is "a pid with leading blanks is refused" "$rc:$out" "1:hijack: invalid pid ' $INIT'
Try 'hijack --help' for more information."
out=$("$HIJACK" -b 2>&1)
like "a missing option argument names the option" "$out" "option -b needs an argument"
out=$("$HIJACK" --verbose=yes pid "$INIT" true 2>&1); rc=$?
is "--verbose=yes: exit 1" "$rc" 1
like "--verbose=yes: takes no argument" "$out" "option '--verbose=yes' takes no argument"
out=$("$HIJACK" container "$INIT" true 2>&1)
like "an unknown target kind is named" "$out" "unknown target kind 'container' \(pid or cgroup\)"
HS=$top_builddir/hijack-shell/hijack-shell
for a in "-x" "-c" "-c true extra" "--check a b" "--check="; do
	# shellcheck disable=SC2086 # split on purpose
	"$HS" $a >/dev/null 2>&1
	is "hijack-shell $a: usage, exit 2" "$?" 2
done
"$HS" --check "" >/dev/null 2>&1
is "hijack-shell --check '': usage, exit 2" "$?" 2
out=$("$HS" --wait-for-child $$ -1 2>&1); rc=$?
is "hijack-shell --wait-for-child without no_new_privs: refused" "$rc:$out" \
	"2:hijack-shell: --wait-for-child is internal"
for a in "$$ 2" "0 -1" "$$ -2" "$$ x" "+$$ -1"; do
	# shellcheck disable=SC2086 # split on purpose
	setpriv --no-new-privs "$HS" --wait-for-child $a >/dev/null 2>&1
	is "hijack-shell --wait-for-child $a: usage, exit 2" "$?" 2
done
# the small waiter hijack-shell execs: the same rules, the same waiting
W=$top_builddir/hijack-shell/hijack-shell-wait
out=$("$W" --wait-for-child $$ -1 2>&1); rc=$?
is "hijack-shell-wait without no_new_privs: refused" "$rc:$out" \
	"2:hijack-shell-wait: --wait-for-child is internal"
for a in "" "-c true" "--check" "--wait-for-child $$ 2" "--wait-for-child 0 -1"; do
	# shellcheck disable=SC2086 # split on purpose
	setpriv --no-new-privs "$W" $a >/dev/null 2>&1
	is "hijack-shell-wait $a: usage, exit 2" "$?" 2
done
# shellcheck disable=SC2016 # the inner shell's
setpriv --no-new-privs sh -c 'sh -c "exit 7" & exec "$1" --wait-for-child $! -1' sh "$W"
is "hijack-shell-wait passes its child's exit status on" "$?" 7
# shellcheck disable=SC2016 # the inner shell's
setpriv --no-new-privs sh -c 'sh -c "kill -TERM \$\$" & exec "$1" --wait-for-child $! -1' sh "$W"
is "... and a signal's death as 128 + the signal" "$?" 143
# (an --enable-asan/--enable-ubsan build adds the sanitizers' runtimes)
is "hijack-shell-wait needs no library but libc" \
	"$(readelf -d "$W" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
		grep -Ev '^lib(a|ub)san\.so' | tr '\n' ' ')" "libc.so.6 "
# the agent's relay: hijack-shell's, and the waiter's (forward.sh: a
# session's relay is the waiter)
for p in "$HS" "$W"; do
	n=$(basename "$p")
	out=$("$p" --agent-relay agent.1 2>&1); rc=$?
	is "$n --agent-relay without no_new_privs: refused" "$rc:$out" \
		"2:$n: --agent-relay is internal"
	for a in "" "../agent" "/tmp/x" "a b" ".." "agent.1 x"; do
		setpriv --no-new-privs "$p" --agent-relay "$a" >/dev/null 2>&1
		is "$n --agent-relay '$a': usage, exit 2" "$?" 2
	done
done
out=$(setpriv --no-new-privs "$W" --agent-relay agent.1 3</dev/null 4</ 2>&1); rc=$?
is "hijack-shell-wait --agent-relay with no listener at fd 3: fails, says why" "$rc:$out" \
	"1:hijack-shell-wait: agent relay: Socket operation on non-socket"

# -- no host fd beyond 0-2 and no host cwd reaches the container
inside=$(exec 7</etc/hostname && "$HIJACK" pid "$INIT" ls /proc/self/fd | sort -n | tr '\n' ' ')
outside=$(exec 7</etc/hostname && ls /proc/self/fd | sort -n | tr '\n' ' ')
is "the library adds no fd of its own (pidfd, root, cgroup, pipes)" "$inside" "$outside"
links=$("$HIJACK" pid "$INIT" ls -l /proc/self/fd/)
check "no fd inside points at a pidfd, /proc or a cgroup" \
	bash -c "! grep -Eq 'pidfd|/proc/[0-9]|cgroup' <<<'$links'"
is "cwd inside defaults to the target's (container /)" "$(cd /tmp && "$HIJACK" pid "$INIT" pwd)" /

# -- errors of the seed's contract
useradd -M -r -s /usr/sbin/nologin hjt-user$$ 2>/dev/null
HJ_CLEANUP+=("userdel hjt-user$$ 2>/dev/null")
before=$(cat "$(cg_path "${V2:-$V1}" web1)/cgroup.procs" | wc -l)
out=$(runuser -u hjt-user$$ -- "$HIJACK" pid "$INIT" true 2>&1)
rc=$?
is "ordinary user vs root container: exit 1" "$rc" 1
like "ordinary user vs root container: EPERM" "$out" "Operation not permitted \(no ptrace rights"
is "ordinary user vs root container: no child created" \
	"$(cat "$(cg_path "${V2:-$V1}" web1)/cgroup.procs" | wc -l)" "$before"

"$top_builddir/tests/helpers/hj-ptrace" "$INIT" > "$HJ_TMP/ptrace.out" &
tracer=$!
HJ_PIDS+=("$tracer")
for i in $(seq 50); do grep -q seized "$HJ_TMP/ptrace.out" && break; sleep 0.05; done
out=$("$HIJACK" pid "$INIT" true 2>&1)
like "traced target: EBUSY" "$out" "Device or resource busy \(the target is being traced\)"
kill -KILL "$tracer"; wait "$tracer" 2>/dev/null
is "after the tracer is gone the target is enterable again" "$("$HIJACK" pid "$INIT" hostname)" web1
is "the target was never left stopped" "$(awk '{print $3}' /proc/$INIT/stat)" S

cg_create empty
out=$("$HIJACK" cgroup "$(cg_path "${V2:-$V1}" empty)/cgroup.procs" true 2>&1)
like "empty cgroup: ESRCH" "$out" "No such process \(no running task\)"
out=$("$HIJACK" cgroup /etc/passwd true 2>&1)
like "regular file: EBADF" "$out" "Bad file descriptor"
out=$("$HIJACK" cgroup /proc/self/status true 2>&1)
like "a /proc file: EBADF" "$out" "Bad file descriptor"
ln -s "$(cg_path "${V2:-$V1}" web1)/cgroup.procs" "$HJ_TMP/link"
out=$("$HIJACK" cgroup "$HJ_TMP/link" true 2>&1)
like "a symlink to cgroup.procs is refused (O_NOFOLLOW): EBADF" "$out" "Bad file descriptor"
if [ -n "$V1" ]; then
	out=$("$HIJACK" cgroup "$(cg_path "$V1" web1)/notify_on_release" true 2>&1)
	like "another file of a cgroup: EBADF" "$out" "Bad file descriptor"
fi
out=$("$HIJACK" pid 999999999 true 2>&1)
like "a pid that does not exist: ESRCH" "$out" "No such process"
# The suite's hosts run stock kernels.  On 6.13 and later, hijack()'s
# number (463) is setxattrat(): the probe must tell them apart.
out=$("$HIJACK" -b native pid "$INIT" true 2>&1)
like "native backend on a stock kernel ($(uname -r)): ENOSYS" "$out" "does not provide sys_hijack"

# -- a frozen container, by cgroup2 cgroup.freeze and by the v1 freezer
#    (both where both exist): a clear error at once, never a hang
FZ=$(awk '$3 == "cgroup" && $4 ~ /freezer/ { print $2; exit }' /proc/self/mounts)
hows=
[ -n "$V2" ] && [ -e "$(cg_path "$V2" web1)/cgroup.freeze" ] && hows=cgroup2
[ -n "$FZ" ] && hows="$hows freezer"
freeze() {
	case $1 in
	cgroup2) echo "$2" > "$(cg_path "$V2" web1)/cgroup.freeze" ;;
	freezer) if [ "$2" = 1 ]; then s=FROZEN; else s=THAWED; fi
		echo $s > "$(cg_path "$FZ" web1)/freezer.state" ;;
	esac
}
for how in $hows; do
	freeze $how 1
	sleep 0.2
	out=$(timeout 10 "$HIJACK" pid "$INIT" hostname 2>&1); rc=$?
	is "frozen container ($how): refused, not hung" "$rc" 1
	like "frozen container ($how): the message says so" "$out" "frozen"
	if [ -n "$FZ" ]; then f=$(cg_path "$FZ" web1)/tasks
	else f=$(cg_path "$V2" web1)/cgroup.procs; fi
	out=$(timeout 10 "$HIJACK" cgroup "$f" hostname 2>&1); rc=$?
	is "frozen container ($how), entered by ${f##*/}: refused" "$rc" 1
	freeze $how 0
	sleep 0.2
	is "thawed container ($how): enterable again" "$("$HIJACK" pid "$INIT" hostname)" web1
done
[ -n "$hows" ] || skip "frozen container" "kernel: no freezer on this machine"

# -- a container at its pids.max: the clone's EAGAIN, told as pids.max and
#    never as "frozen" (the library gives frozen a code of its own)
PM=
for h in $V1 $V2; do
	[ -e "$(cg_path "$h" web1)/pids.max" ] && { PM=$(cg_path "$h" web1); break; }
done
if [ -n "$PM" ]; then
	cat "$PM/pids.current" > "$PM/pids.max"
	out=$(timeout 10 "$HIJACK" cgroup "$PM" hostname 2>&1); rc=$?
	echo max > "$PM/pids.max"
	is "container at pids.max: refused" "$rc" 1
	like "container at pids.max: the message names pids.max" "$out" \
		"Resource temporarily unavailable \(.*pids.max"
	check "container at pids.max: the message does not say frozen" \
		bash -c '[[ $1 != *frozen* ]]' _ "$out"
	is "below pids.max again: enterable" "$("$HIJACK" cgroup "$PM" hostname)" web1
else
	skip "container at pids.max" "no pids controller"
fi

# -- pure v1 and pure v2 views of the same machine (private mount ns)
if [ -n "$V1" ] && [ -n "$V2" ]; then
	got=$(unshare -m --propagation private sh -c "umount '$V2' && '$HIJACK' -v pid $INIT sh -c 'hostname; cat /proc/self/cgroup'" 2>&1)
	like "pure v1 view: lands inside" "$got" "^web1"
	like "pure v1 view: joins only the v1 hierarchies" "$got" "cgroups joined: $(($(hj_hierarchies | wc -l) - 1))"
	got=$(unshare -m --propagation private sh -c "
		for m in \$(awk '\$3 == \"cgroup\" { print \$2 }' /proc/self/mounts); do umount \$m; done
		'$HIJACK' -v cgroup '$(cg_path "$V2" web1)' hostname" 2>&1)
	like "pure v2 view: lands inside" "$got" "web1"
	like "pure v2 view: joins the one v2 hierarchy" "$got" "cgroups joined: 1"
fi

# -- an ordinary user enters their own user-namespace container
if runuser -u hjt-user$$ -- unshare --user --map-root-user true 2>/dev/null; then
	uid=$(id -u hjt-user$$) gid=$(id -g hjt-user$$)
	setpriv --reuid="$uid" --regid="$gid" --clear-groups -- unshare --user --map-root-user \
		--fork --pid --mount --uts --ipc --net --mount-proc \
		sh -c 'hostname rootless; exec sleep 1000000' </dev/null >/dev/null 2>&1 &
	uhelper=$!
	HJ_PIDS+=("$uhelper")
	uinit=$(wait_init "$uhelper")
	HJ_PIDS+=("$uinit")
	got=$(cd / && runuser -u hjt-user$$ -- "$HIJACK" pid "$uinit" sh -c 'hostname; id -u; readlink /proc/self/ns/user' 2>&1)
	is "rootless: the owner enters without privilege" "$got" "rootless
0
$(ns_of "$uinit" user)"
	out=$(runuser -u nobody -- "$HIJACK" pid "$uinit" true 2>&1)
	like "rootless: another user may not enter" "$out" "Operation not permitted"
else
	skip "rootless container" "kernel: unprivileged user namespaces are disabled"
fi

# -- confined as the container's init: the bounding set,
#    no_new_privs and seccomp filters of a docker-like init
#    (tests/helpers/hj-confined), compared with the init's own in /proc
cp "$top_builddir/tests/helpers/hj-confined" "$ROOTFS/hj-confined"
sec_fields() { awk '$1 ~ /^(CapBnd|NoNewPrivs|Seccomp|Seccomp_filters):$/ { printf "%s%s ", $1, $2 }' "$@"; }
status_field() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
# wait_seccomp PID MODE: until the init has entered seccomp mode MODE
wait_seccomp() {
	local i
	for i in $(seq 100); do
		[ "$(status_field "$1" Seccomp)" = "$2" ] && return 0
		sleep 0.05
	done
	return 1
}
CT_WRAP="/hj-confined -n -f 2" ct_start conf1 conf1 "$ROOTFS" &&
	wait_seccomp "$CT_INIT" 2 || bail_out "cannot start a confined container"
CINIT=$CT_INIT
want=$(sec_fields "/proc/$CINIT/status")
diag "confined init $CINIT: $want"
is "the host's bounding set is wider than the confined init's" \
	"$([ "$(status_field $$ CapBnd)" != "$(status_field "$CINIT" CapBnd)" ] && echo wider)" wider
is "hijack pid: CapBnd, NoNewPrivs, Seccomp, Seccomp_filters are the init's" \
	"$("$HIJACK" pid "$CINIT" sh -c 'cat /proc/self/status' | sec_fields)" "$want"
is "hijack cgroup: the same" \
	"$("$HIJACK" cgroup "$(cg_path "${V2:-$V1}" conf1)" sh -c 'cat /proc/self/status' | sec_fields)" "$want"
caps=$("$HIJACK" pid "$CINIT" sh -c 'cat /proc/self/status' |
	awk '$1 ~ /^Cap(Inh|Prm|Eff|Amb):$/ { printf "%s%s ", $1, $2 }')
bnd=$(status_field "$CINIT" CapBnd)
is "root inside has only the init's bounding set (no CAP_DAC_READ_SEARCH for open_by_handle_at)" \
	"$caps" "CapInh:0000000000000000 CapPrm:$bnd CapEff:$bnd CapAmb:0000000000000000 "
is "outside, getpriority(1001) is EINVAL" "$("$top_builddir/tests/helpers/hj-confined" probe 1)" 22
is "inside, the init's first filter answers getpriority(1001): errno 41" \
	"$("$HIJACK" pid "$CINIT" /hj-confined probe 1)" 41
is "inside, the init's second filter answers getpriority(1002): errno 42" \
	"$("$HIJACK" pid "$CINIT" /hj-confined probe 2)" 42
is "inside, the filters run newest first, as in the init: errno 42" \
	"$("$HIJACK" pid "$CINIT" /hj-confined probe 0)" 42
is "the init was not left stopped or traced by the filter copy" \
	"$(status_field "$CINIT" State):$(status_field "$CINIT" TracerPid)" S:0
is "the init's own confinement is unchanged" "$(sec_fields "/proc/$CINIT/status")" "$want"

out=$("$HIJACK" --no-confine pid "$CINIT" sh -c 'cat /proc/self/status' | sec_fields)
is "--no-confine: the caller's bounding set and no filter (debugging)" "$out" \
	"CapBnd:$(status_field $$ CapBnd) NoNewPrivs:0 Seccomp:0 Seccomp_filters:0 "

"$top_builddir/tests/helpers/hj-ptrace" "$CINIT" > "$HJ_TMP/ptrace2.out" &
tracer=$!
HJ_PIDS+=("$tracer")
for i in $(seq 50); do grep -q seized "$HJ_TMP/ptrace2.out" && break; sleep 0.05; done
out=$("$HIJACK" pid "$CINIT" true 2>&1); rc=$?
is "traced confined init: refused (exit 1)" "$rc" 1
like "traced confined init: EBUSY" "$out" "Device or resource busy \(the target is being traced\)"
kill -KILL "$tracer"; wait "$tracer" 2>/dev/null
is "traced confined init: still traced only by its tracer, then free, never stopped" \
	"$(status_field "$CINIT" State):$(status_field "$CINIT" TracerPid)" S:0

CT_WRAP="/hj-confined -f 1" ct_start conf2 conf2 "$ROOTFS" && wait_seccomp "$CT_INIT" 2 ||
	bail_out "cannot start a confined container"
is "an init without no_new_privs: its filter, loaded while privileged" \
	"$("$HIJACK" pid "$CT_INIT" sh -c 'cat /proc/self/status' | sec_fields)" \
	"$(sec_fields "/proc/$CT_INIT/status")"
is "an init without no_new_privs: the filter works inside" \
	"$("$HIJACK" pid "$CT_INIT" /hj-confined probe 1)" 41
# the planted-setuid attack: root inside plants a setuid-root program and runs
# it as another user; it gains the init's bounding set, not the host's
cp "$ROOTFS/hj-confined" "$ROOTFS/hj-suid" && chmod 4755 "$ROOTFS/hj-suid"
is "the setuid program works: outside, as nobody, it gets the host's set" \
	"$(setpriv --reuid=65534 --regid=65534 --clear-groups "$ROOTFS/hj-suid" caps)" \
	"0 $(status_field $$ CapBnd) $(status_field $$ CapBnd)"
bnd=$(status_field "$CT_INIT" CapBnd)
is "a setuid-root program run by another user inside: only the init's bounding set" \
	"$("$HIJACK" pid "$CT_INIT" /hj-confined as 65534 /hj-suid caps)" "0 $bnd $bnd"
rm -f "$ROOTFS/hj-suid"

CT_WRAP="/hj-confined -S" CT_COMM=hj-confined ct_start conf3 conf3 "$ROOTFS" &&
	wait_seccomp "$CT_INIT" 1 || bail_out "cannot start a strict-mode container"
rm -f "$ROOTFS/tmp/ran"
out=$("$HIJACK" pid "$CT_INIT" touch /tmp/ran 2>&1); rc=$?
is "a strict-mode init: refused with exit 1" "$rc" 1
is "a strict-mode init: the message says why" "$out" \
	"hijack: cannot enter pid $CT_INIT: it is in seccomp strict mode, which no new process can be given"
check "a strict-mode init: nothing ran inside" test ! -e "$ROOTFS/tmp/ran"
is "a strict-mode init: still blocked in read, not stopped" "$(status_field "$CT_INIT" State)" S

# an init with a filter, parked in vfork(): the copy gives up in bounded
# time and lets it go
touch "$ROOTFS/park"
CT_WRAP="/hj-confined -f 1 -P /park" CT_COMM=hj-confined ct_start conf4 conf4 "$ROOTFS" &&
	wait_seccomp "$CT_INIT" 2 || bail_out "cannot start a parked container"
for _ in $(seq 100); do [ "$(status_field "$CT_INIT" State)" = D ] && break; sleep 0.05; done
t0=$(date +%s)
out=$(timeout 60 "$HIJACK" pid "$CT_INIT" true 2>&1); rc=$?
t1=$(date +%s)
is "an init parked in vfork(): refused with exit 1" "$rc" 1
like "... saying why" "$out" "^hijack: cannot copy the seccomp filter of pid $CT_INIT: it did not stop within 10000 ms"
check "... within 20 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 20
is "... and let go: still parked, untraced" \
	"$(status_field "$CT_INIT" State):$(status_field "$CT_INIT" TracerPid)" D:0
rm -f "$ROOTFS/park"

done_testing
