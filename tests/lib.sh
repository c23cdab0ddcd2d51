# shellcheck shell=bash
# Shared helpers of the shell tests: TAP output, throw-away containers.
#
# Every test run puts its cgroups under one cgroup named for the run
# (hjtest-<pid>) on each mounted hierarchy, kills what it started by pid
# and removes those cgroups on exit.  Nothing else is touched.

T_N=0
T_FAILED=0
HJ_RUN=${HJ_RUN:-hjtest-$$}
HJ_TMP=$(mktemp -d /tmp/hjtest.XXXXXX)
chmod 755 "$HJ_TMP"
HJ_PIDS=()
HJ_CLEANUP=()

top_builddir=${top_builddir:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
top_srcdir=${top_srcdir:-$top_builddir}
HIJACK=${HIJACK:-$top_builddir/hijack/hijack}
# root's check of a user's next login, for the test's hijack-shell ($HS)
hjcheck() { "$HIJACK" --shell "$HS" check "$@"; }

ok() { T_N=$((T_N + 1)); echo "ok $T_N - $*"; }
not_ok() {
	T_N=$((T_N + 1)); T_FAILED=$((T_FAILED + 1)); echo "not ok $T_N - $*"
}
# check DESC CMD... : passes when CMD succeeds
check() { local d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
# is DESC GOT EXPECTED
is() {
	if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1: got '$2', expected '$3'"; fi
}
# like DESC GOT PATTERN (grep -E)
like() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then ok "$1"
	else not_ok "$1: '$2' does not match /$3/"; fi
}
isnt() {
	if [ "$2" != "$3" ]; then ok "$1"; else not_ok "$1: got '$2', expected anything else"; fi
}
# skip DESC REASON, skip_all REASON.  tests/run counts a skip as a failure
# on Debian 12 (where tests/deps.sh installs everything) unless REASON
# starts with "kernel:" (a kernel feature or mount the machine lacks) or
# "cannot:" (a state of the machine that is not the test's to change).
skip() { T_N=$((T_N + 1)); echo "ok $T_N - $1 # SKIP $2"; }
skip_all() { echo "1..0 # SKIP $*"; exit 0; }
done_testing() { echo "1..$T_N"; }
diag() { echo "# $*"; }
# diag_file WHAT FILE: FILE's last 40 lines as diagnostics
diag_file() {
	diag "$1 (last 40 lines of ${2##*/}):"
	tail -n 40 "$2" 2>/dev/null | sed 's/^/#   /'
}
# bail_out MSG: stop the whole test (TAP "Bail out!"), a failure
bail_out() { echo "Bail out! $*"; exit 1; }

require_root() { [ "$(id -u)" = 0 ] || skip_all "needs root"; }
# require_tools CMD...: skip the whole test unless each is in PATH or sbin
require_tools() {
	local t
	for t; do
		command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] ||
			skip_all "no $t"
	done
}

# Mount points of the cgroup hierarchies (v1 and v2) in this mount ns.
hj_hierarchies() {
	awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts
}

# cg_create REL: the cgroup REL (below the run's cgroup) on every hierarchy
cg_create() {
	local h d part path
	for h in $(hj_hierarchies); do
		path=$h
		for part in $HJ_RUN ${1//\// }; do
			d=$path/$part
			if [ ! -d "$d" ]; then
				mkdir "$d" || return 1
				if [ -e "$d/cpuset.cpus" ] && [ -z "$(cat "$d/cpuset.cpus")" ]; then
					cat "$path/cpuset.cpus" > "$d/cpuset.cpus"
					cat "$path/cpuset.mems" > "$d/cpuset.mems"
				fi
			fi
			path=$d
		done
	done
}

# cg_path HIERARCHY-MOUNT REL
cg_path() { echo "$1/$HJ_RUN/$2"; }

# Remove the run's cgroups, deepest first (after their tasks are gone).
cg_remove_all() {
	local h i left
	# a container's last processes (conmon, a rootless podman's) may
	# still be leaving their cgroups: try again for a few seconds
	for i in $(seq 50); do
		left=
		for h in $(hj_hierarchies); do
			[ -d "$h/$HJ_RUN" ] || continue
			find "$h/$HJ_RUN" -depth -type d -exec rmdir {} + 2>/dev/null
			[ -d "$h/$HJ_RUN" ] && left=1
		done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "# cgroups of this run left behind: $HJ_RUN" >&2
	return 1
}

# copy_bin ROOTFS BINARY: a host program into a container's root with the
# libraries ldd names, at the same paths
copy_bin() {
	local l
	mkdir -p "$1$(dirname "$2")"
	cp -L "$2" "$1$2"
	for l in $(ldd "$2" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$1$(dirname "$l")"
		cp -L "$l" "$1$l"
	done
}

# A busybox-static root filesystem with a marker file.
make_rootfs() {
	local r=$1
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,etc,tmp,root,run,oldroot}
	cp /bin/busybox "$r/bin/"
	chroot "$r" /bin/busybox --install -s 2>/dev/null ||
		for a in $("$r/bin/busybox" --list); do ln -sf busybox "$r/bin/$a"; done
	echo "root:x:0:0:root:/root:/bin/sh" > "$r/etc/passwd"
	echo "root:x:0:" > "$r/etc/group"
	echo "container-rootfs $2" > "$r/etc/hijack-marker"
	mknod -m 666 "$r/dev/null" c 1 3
	mknod -m 666 "$r/dev/zero" c 1 5
	mknod -m 666 "$r/dev/urandom" c 1 9
	mknod -m 666 "$r/dev/tty" c 5 0
}

# rootfs_pts ROOTFS devpts|tmpfs: /bin/pts-init in ROOTFS, which mounts
# a devpts instance of the container's own at /dev/pts (with /dev/ptmx
# -> pts/ptmx, as runc and lxc do), or a tmpfs faking one (a ptmx node
# c 5 2 on a tmpfs), then execs its arguments: start the container with
# CT_WRAP=/bin/pts-init.
rootfs_pts() {
	local mnt='mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts'
	[ "$2" = tmpfs ] && mnt='mount -t tmpfs tmpfs /dev/pts && mknod -m 666 /dev/pts/ptmx c 5 2'
	printf '#!/bin/sh\nmkdir -p /dev/pts && %s && ln -sf pts/ptmx /dev/ptmx && exec "$@"\n' \
		"$mnt" > "$1/bin/pts-init"
	chmod 755 "$1/bin/pts-init"
}

# rootfs_add_user ROOTFS USER [HOME [SHELL]]: USER (a host user) in the
# container's /etc/passwd, with the host's uid and gid (defaults:
# /home/USER, /bin/sh)
rootfs_add_user() {
	local r=$1 u=$2
	echo "$u:x:$(id -u "$u"):$(id -g "$u")::${3:-/home/$u}:${4:-/bin/sh}" \
		>> "$r/etc/passwd"
}

# readme_block PATTERN: the first indented block (4 spaces, empty lines
# within it kept) after the first line of README.md that matches PATTERN
# (awk), de-indented: the README's own settings, as a test uses them.
readme_block() {
	awk -v pat="$1" '
		!found && $0 ~ pat { found = 1; next }
		found && /^    / { inb = 1; print substr($0, 5); next }
		found && inb && /^$/ { print; next }
		found && inb { exit }' "$top_srcdir/README.md"
}

# asan_preload SO: the ASan runtime that SO (an --enable-asan build) links,
# which a program loading SO (sshd, pamtester) must preload; empty output
# when SO is not sanitized
asan_preload() {
	local asan
	asan=$(readelf -d "$1" 2>/dev/null | sed -n 's/.*\[\(libasan[^]]*\)\].*/\1/p')
	[ -z "$asan" ] || ${CC:-cc} -print-file-name="$asan"
}

# ct_start NAME HOSTNAME [ROOTFS]: a container in cgroup NAME, new
# pid/mnt/uts/ipc/net/cgroup namespaces, pivoted into ROOTFS (default: a
# fresh make_rootfs under $CT_ROOTFS_BASE, else $HJ_TMP: a container
# has a root of its own, or a login refuses it).
# Sets CT_HELPER (the unshare process, listed first in the cgroup) and
# CT_INIT (pid 1 of the container), and remembers both for cleanup.
# With CT_WRAP="CMD ARGS..." the init runs through CMD (inside the
# container), which ends by exec'ing "sleep 1000000"; CT_COMM names what
# the init is once ready when it is not sleep (e.g. CMD itself).
ct_start() {
	local name=$1 host=$2 rootfs=${3:-} h inner
	cg_create "$name" || return 1
	if [ -z "$rootfs" ]; then
		rootfs=${CT_ROOTFS_BASE:-$HJ_TMP}/ct-${name//\//-}
		make_rootfs "$rootfs" "$host" || return 1
	fi
	# CT_BINDS="DIR...": host directories bound read-only at the same
	# path in the rootfs (the host's /usr: a container with git and ssh)
	local binds="" b
	for b in ${CT_BINDS-}; do
		binds+=" && mount --bind '$b' '$rootfs$b' && mount -o remount,bind,ro '$rootfs$b'"
	done
	inner="mount --make-rprivate / && mount --bind '$rootfs' '$rootfs'$binds && cd '$rootfs' && pivot_root . oldroot && exec /bin/busybox sh -c 'mount -t proc proc /proc; umount -l /oldroot; hostname $host; exec ${CT_WRAP:+$CT_WRAP }sleep 1000000'"
	(
		for h in $(hj_hierarchies); do
			echo "$BASHPID" > "$(cg_path "$h" "$name")/cgroup.procs" || exit 1
		done
		# CT_HOSTNET=1: the host's network, as podman --network host
		local ns=(--pid --mount --uts --ipc --cgroup)
		[ -n "${CT_HOSTNET:-}" ] || ns+=(--net)
		exec unshare --fork "${ns[@]}" --propagation private sh -c "$inner"
	) </dev/null >/dev/null 2>&1 &
	CT_HELPER=$!
	HJ_PIDS+=("$CT_HELPER")
	CT_INIT=$(wait_init "$CT_HELPER") || return 1
	HJ_PIDS+=("$CT_INIT")
}

# free_tcp_port: a TCP port that no socket of this machine uses, listening
# or connected, and the one after it too; below the kernel's ephemeral
# range (ip_local_port_range), so that no outgoing connection takes it
# between the choice and the bind
free_tcp_port() {
	local lo span port
	read -r lo _ </proc/sys/net/ipv4/ip_local_port_range
	span=$((lo - 10002))
	port=$((10000 + RANDOM % span))
	while ss -tanH | awk '{ print $4 }' | grep -qE ":($port|$((port + 1)))\$"; do
		port=$((10000 + (port - 10000 + 2) % span))
	done
	echo "$port"
}

# tcp_listens PID ADDR:PORT: something listens on ADDR:PORT (a grep -E
# pattern; ":PORT" for any address) in the network namespace of PID, or
# in ours when PID is empty.  wait_tcp_listen PID ADDR:PORT: until it
# does, at most 10 s.
tcp_listens() {
	if [ -n "$1" ]; then
		nsenter --net="/proc/$1/ns/net" ss -ltnH
	else
		ss -ltnH
	fi | grep -qE -- "$2 "
}
wait_tcp_listen() {
	for _ in $(seq 200); do
		tcp_listens "$1" "$2" && return 0
		sleep 0.05
	done
	return 1
}

# The pid-namespace init below a helper: last NSpid field 1.
wait_init() {
	local i c
	for i in $(seq 100); do
		for c in $(cat "/proc/$1/task/$1/children" 2>/dev/null); do
			if awk '/^NSpid:/ { exit !($NF == 1) }' "/proc/$c/status" 2>/dev/null &&
				[ "$(cat /proc/$c/comm)" = "${CT_COMM:-sleep}" ]; then
				echo "$c"; return 0
			fi
		done
		sleep 0.05
	done
	return 1
}

# host_in_cgroup NAME: a host process (no namespace of its own), as a user
# might move one into a cgroup, alone in cgroup NAME on every hierarchy.
# Sets HOST_PID and remembers it for cleanup.
host_in_cgroup() {
	local h
	cg_create "$1" || return 1
	(
		for h in $(hj_hierarchies); do
			echo "$BASHPID" > "$(cg_path "$h" "$1")/cgroup.procs" || exit 1
		done
		exec sleep 1000000
	) </dev/null >/dev/null 2>&1 &
	HOST_PID=$!
	HJ_PIDS+=("$HOST_PID")
	sleep 0.2
}

# Kill a container (its init takes the whole pid namespace with it).
ct_kill() {
	local p
	for p in "$@"; do kill -KILL "$p" 2>/dev/null; done
	for p in "$@"; do
		while kill -0 "$p" 2>/dev/null; do
			wait "$p" 2>/dev/null || sleep 0.02
			[ -e "/proc/$p/status" ] && grep -q '^State:.*Z' "/proc/$p/status" && break
		done
	done
}

ns_of() { readlink "/proc/$1/ns/$2"; }

# hj_auditd DIR: an audit daemon for the test's records, ours (auditd -n,
# stopped on exit) unless one runs, and auditing enabled for the run (put
# back as it was on exit).  Sets AUDITD (empty when not ours), and TS_DAY
# TS_TIME for `ausearch -ts` (resolution: seconds).
audit_status() { auditctl -s | awk -v k="$1" '$1 == k { print $2 }'; }
hj_auditd() {
	local i before
	# The kernel takes one audit daemon at a time: runs of the suite in
	# other checkouts wait here rather than steal each other's records.
	exec {HJ_AUDIT_LOCK}>/run/hijack-tests-audit.lock
	flock -w 3600 "$HJ_AUDIT_LOCK" ||
		bail_out "another test run holds the audit daemon"
	AUDITD=
	if [ "$(audit_status pid)" = 0 ]; then
		auditd -n >"$1/auditd.out" 2>&1 &
		AUDITD=$!
		HJ_CLEANUP+=("kill -TERM $AUDITD 2>/dev/null; wait $AUDITD 2>/dev/null")
		for i in $(seq 100); do
			[ "$(audit_status pid)" = "$AUDITD" ] && break
			sleep 0.1
		done
	fi
	before=$(audit_status enabled)
	HJ_CLEANUP+=("auditctl -e $before >/dev/null")
	[ "$before" = 1 ] || auditctl -e 1 >/dev/null
	TS_DAY=$(date '+%x') TS_TIME=$(date '+%T')
	sleep 1
}

hj_cleanup() {
	local f
	ct_kill "${HJ_PIDS[@]}" 2>/dev/null
	sleep 0.1
	for f in "${HJ_CLEANUP[@]}"; do eval "$f"; done
	cg_remove_all
	rm -rf "$HJ_TMP"
}
trap hj_cleanup EXIT
