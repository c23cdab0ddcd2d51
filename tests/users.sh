#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
#
# Test users and groups (names start with "hjt"), safe against tests that
# run at the same time: useradd and friends fail while another holds the
# lock on /etc/passwd or /etc/group, so retry those failures.
#
#   users.sh useradd NAME [useradd options]
#   users.sh groupadd NAME
#   users.sh del NAME...        remove users and groups of these names
set -u

retry() {
	i=0
	while :; do
		"$@" && return 0
		rc=$?
		# 1: cannot update the password file, 10: the group file
		if [ $rc != 1 ] && [ $rc != 10 ] || [ $i -ge 50 ]; then
			return $rc
		fi
		i=$((i + 1))
		sleep 0.1
	done
}

case ${1-} in
useradd | groupadd)
	cmd=$1 name=$2
	shift 2
	case $name in
	hjt*) ;;
	*)
		echo "users.sh: $name: test names start with hjt" >&2
		exit 2
		;;
	esac
	retry "$cmd" "$@" "$name"
	;;
del)
	shift
	for name; do
		case $name in
		hjt*) ;;
		*) continue ;;
		esac
		if getent passwd "$name" >/dev/null; then
			retry userdel "$name"
		fi
		if getent group "$name" >/dev/null; then
			retry groupdel "$name"
		fi
	done
	;;
*)
	echo "usage: $0 useradd|groupadd NAME [options] | del NAME..." >&2
	exit 2
	;;
esac
