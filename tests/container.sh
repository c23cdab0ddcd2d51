#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# tests/lib.sh's containers for a test that is not a shell script
# (tests/check_pam.c): the same ct_start, the same cgroups below the
# run's cgroup RUN (HJ_RUN), here kept after this script exits.
#
#   container.sh start RUN NAME HOST  start a container in cgroup RUN/NAME
#                                     (hostname HOST); print its init's pid
#   container.sh create RUN NAME      only the cgroups: a stopped container
#   container.sh hierarchies          list the cgroup mounts used
#   container.sh stop RUN             kill every process in RUN's cgroups
#                                     (all started by the test), rmdir them
HJ_RUN=${2:-none}
. "$(dirname "$0")/lib.sh"
# what this script starts outlives it: only its temporary directory goes;
# the containers' root directories stay until "stop"
trap 'rm -rf "$HJ_TMP"' EXIT
CT_ROOTFS_BASE=/tmp/hjtest.ct-$HJ_RUN

case ${1-} in
start)
	ct_start "$3" "$4" >/dev/null || exit 1
	echo "$CT_INIT"
	;;
create) cg_create "$3" ;;
hierarchies) hj_hierarchies ;;
stop)
	for _ in $(seq 100); do
		pids=$(for h in $(hj_hierarchies); do
			[ -d "$h/$HJ_RUN" ] &&
				find "$h/$HJ_RUN" -name cgroup.procs -exec cat {} +
		done | sort -u)
		[ -n "$pids" ] || break
		# shellcheck disable=SC2086 # one pid a word
		kill -KILL $pids 2>/dev/null
		sleep 0.05
	done
	cg_remove_all
	rm -rf "$CT_ROOTFS_BASE"
	;;
*)
	echo "usage: $0 start RUN NAME HOST | create RUN NAME | stop RUN |" \
		"hierarchies" >&2
	exit 2
	;;
esac
