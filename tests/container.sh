#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# A minimal container for tests: a cgroup NAME on every mounted hierarchy
# and an unshare'd sleep as the pid 1 of new pid/mount/uts/ipc/net/cgroup
# namespaces, with hostname HOST.
#
#   container.sh start NAME HOST   print the pid of the unshare helper
#                                  (host pid namespace) once pid 1 runs
#   container.sh create NAME       only the cgroups: a stopped container
#   container.sh stop NAME PID     kill what start started, rmdir the cgroups
#   container.sh init NAME         print the pid of the container's pid 1
#   container.sh hierarchies       list the cgroup mounts used
#
# Only cgroups called NAME and processes inside them are ever touched.
set -eu

hierarchies() {
	if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
		echo /sys/fs/cgroup
		return
	fi
	for h in /sys/fs/cgroup/*; do
		if [ ! -d "$h" ] || [ -L "$h" ]; then
			continue
		fi
		case $(stat -f -c %T "$h") in
		cgroup2fs | cgroupfs) echo "$h" ;;
		esac
	done
}

# the container's pid 1 (last NSpid field 1) among the cgroup's members
init_pid() {
	# shellcheck disable=SC2013 # one pid a line
	for p in $(cat "$1/cgroup.procs" 2>/dev/null); do
		if awk '/^NSpid:/ { exit !($NF == 1 && NF > 2) }' \
			"/proc/$p/status" 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	return 1
}

create() {
	for h in $(hierarchies); do
		mkdir "$h/$1"
	done
}

start() {
	name=$1 host=$2
	dirs=
	for h in $(hierarchies); do
		mkdir "$h/$name"
		# a v1 cpuset takes no task before it has cpus and mems
		if [ -f "$h/cpuset.cpus" ] && [ -f "$h/$name/cpuset.mems" ]; then
			cat "$h/cpuset.cpus" >"$h/$name/cpuset.cpus"
			cat "$h/cpuset.mems" >"$h/$name/cpuset.mems"
		fi
		dirs="$dirs $h/$name"
	done
	# shellcheck disable=SC2016,SC2086
	setsid sh -c 'host=$1; shift
		for d; do echo $$ >"$d/cgroup.procs"; done
		exec unshare --fork --kill-child --pid --mount --uts --ipc \
			--net --cgroup --mount-proc \
			sh -c "hostname $host && exec sleep infinity"' \
		sh "$host" $dirs </dev/null >/dev/null 2>&1 &
	pid=$!
	first=${dirs# }
	first=${first%% *}
	i=0
	until init_pid "$first" >/dev/null; do
		i=$((i + 1))
		if [ $i -gt 100 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "container $name did not start" >&2
			stop "$name" "$pid"
			return 1
		fi
		sleep 0.05
	done
	echo "$pid"
}

stop() {
	name=$1 pid=$2
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || :
	fi
	for h in $(hierarchies); do
		d=$h/$name
		[ -d "$d" ] || continue
		i=0
		while [ -s "$d/cgroup.procs" ] && [ $i -lt 100 ]; do
			# shellcheck disable=SC2013 # one pid a line
			for p in $(cat "$d/cgroup.procs"); do
				kill -KILL "$p" 2>/dev/null || :
			done
			i=$((i + 1))
			sleep 0.05
		done
		rmdir "$d"
	done
}

case ${1-} in
create) create "$2" ;;
start) start "$2" "$3" ;;
stop) stop "$2" "${3-}" ;;
init) init_pid "$(hierarchies | head -n 1)/$2" ;;
hierarchies) hierarchies ;;
*)
	echo "usage: $0 create NAME | start NAME HOST | stop NAME [PID] |" \
		"init NAME | hierarchies" >&2
	exit 2
	;;
esac
