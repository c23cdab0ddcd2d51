# shellcheck shell=bash disable=SC2004,SC2034,SC2154
# (the arrays are the caller's associative ones, which it reads; id its too)
# Containers started by real runtimes from the Debian packages, each from
# a busybox-static root filesystem built here (no image pulls): runc and
# crun (an OCI bundle), LXC, rootful podman.  Sourced after lib.sh by
# tests/e2e-runtimes.sh, which logs in to them, and by bench/run, which
# times each runtime's own exec against hijack.
#
# The caller sets id and declares the associative arrays USR (the users
# to add to each root filesystem; may be empty), HOST (each runtime's
# hostname), and INIT, RULE, REASON, STOP, CGDIR, EXEC, which a start_*
# function fills: the init's pid, a hijack.conf rule for USR, why it could
# not start, how to stop it, its cgroup, and the runtime's own command to
# run a program in it (runc exec, lxc-attach, podman exec).  Every start
# adds its stop to HJ_CLEANUP.

mkroot() { # DIR HOSTNAME
	local u
	make_rootfs "$1" "$2"
	for u in "${USR[@]}"; do
		rootfs_add_user "$1" "$u" /
	done
	chmod 1777 "$1/tmp"
}

# cgroups a runtime makes outside the run's cgroup: remove the ones this
# run brought into existence (absent before), deepest first, when empty
cg_created_by_us() { # NAME (relative to the hierarchy roots)
	local h
	for h in $(hj_hierarchies); do
		[ -e "$h/$1" ] && return 0
	done
	HJ_CLEANUP+=("for h in \$(hj_hierarchies); do [ -d \"\$h/$1\" ] && find \"\$h/$1\" -depth -type d -exec rmdir {} + 2>/dev/null; done")
}

json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

# -- runc and crun: an OCI bundle, the cgroup chosen by linux.cgroupsPath
start_oci() { # RUNTIME
	local rt=$1 b=$HJ_TMP/$1 cg2 hug=""
	command -v "$rt" >/dev/null || { REASON[$rt]="$rt is not installed"; return 1; }
	mkdir -p "$b"
	mkroot "$b/rootfs" "${HOST[$rt]}"
	(cd "$b" && runc spec 2>/dev/null || crun spec) || { REASON[$rt]="no OCI spec"; return 1; }
	python3 - "$b" "${HOST[$rt]}" "/$HJ_RUN/$rt" <<'EOF' || return 1
import json, sys
b, host, cg = sys.argv[1:]
c = json.load(open(b + "/config.json"))
c["process"]["terminal"] = False
c["process"]["args"] = ["/bin/sh", "-c", "exec sleep 100000"]
c["hostname"] = host
c["root"]["path"] = b + "/rootfs"
c["linux"]["cgroupsPath"] = cg
json.dump(c, open(b + "/config.json", "w"))
EOF
	STOP[$rt]="$rt --root '$b/state' delete -f $rt-$id >/dev/null 2>&1"
	HJ_CLEANUP+=("${STOP[$rt]}")
	# crun refuses hybrid cgroups while cgroup2 has a controller
	# (hugetlb here): a v1 hugetlb hierarchy of ours, for the start only
	cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	if [ "$rt" = crun ] && [ "$cg2" != /sys/fs/cgroup ] && [ -n "$cg2" ] &&
		grep -qw hugetlb "$cg2/cgroup.controllers" &&
		! awk '$3 == "cgroup" && $4 ~ /(^|,)hugetlb(,|$)/ { f = 1 } END { exit !f }' /proc/self/mounts; then
		mkdir -p "$b/hugetlb"
		mount -t cgroup -o hugetlb none "$b/hugetlb" && hug=$b/hugetlb
		HJ_CLEANUP+=("mountpoint -q '$b/hugetlb' && umount '$b/hugetlb'")
		diag "crun: mounted a v1 hugetlb hierarchy for the start"
	fi
	"$rt" --root "$b/state" run -d --bundle "$b" "$rt-$id" </dev/null >"$b/out" 2>&1
	local rc=$?
	[ -n "$hug" ] && umount "$hug"
	if [ $rc != 0 ]; then
		REASON[$rt]="$rt run failed: $(tr '\n' ' ' < "$b/out" | head -c 200)"
		return 1
	fi
	INIT[$rt]=$("$rt" --root "$b/state" state "$rt-$id" | json '["pid"]')
	EXEC[$rt]="$rt --root $b/state exec $rt-$id"
	RULE[$rt]="${USR[$rt]-}	/$HJ_RUN/$rt	name=$rt-$id"
	CGDIR[$rt]=/$HJ_RUN/$rt
}

# -- LXC: the cgroup is lxc.payload.NAME, the monitor in lxc.monitor.NAME
start_lxc() {
	local n=hjlxc$id b=$HJ_TMP/lxc
	command -v lxc-start >/dev/null || { REASON[lxc]="lxc is not installed"; return 1; }
	mkdir -p "$b/ct/$n"
	mkroot "$b/rootfs" "${HOST[lxc]}"
	cat > "$b/ct/$n/config" <<EOF
lxc.uts.name = ${HOST[lxc]}
lxc.rootfs.path = dir:$b/rootfs
lxc.net.0.type = empty
lxc.apparmor.profile = unconfined
lxc.mount.auto = proc:mixed sys:ro cgroup:mixed
lxc.autodev = 1
# a devpts instance of its own, as Debian's common.conf (lxc.pty.max =
# 1024) gives every templated container; without it LXC mounts none
lxc.pty.max = 16
lxc.init.cmd = /bin/sleep 100000
EOF
	cg_created_by_us lxc.pivot
	cg_created_by_us "lxc.payload.$n"
	cg_created_by_us "lxc.monitor.$n"
	STOP[lxc]="lxc-stop -n $n -P '$b/ct' -k >/dev/null 2>&1"
	HJ_CLEANUP+=("${STOP[lxc]}")
	if ! lxc-start -n "$n" -P "$b/ct" -d -o "$b/lxc.log" ||
		! lxc-wait -n "$n" -P "$b/ct" -s RUNNING -t 10; then
		REASON[lxc]="lxc-start failed: $(tail -n 2 "$b/lxc.log" | tr '\n' ' ' | head -c 200)"
		return 1
	fi
	INIT[lxc]=$(lxc-info -n "$n" -P "$b/ct" -p -H)
	EXEC[lxc]="lxc-attach -n $n -P $b/ct --"
	RULE[lxc]="${USR[lxc]-}	lxc.payload.$n	name=$n"
	CGDIR[lxc]=/lxc.payload.$n
}

# -- podman (root, cgroupfs manager): /libpod_parent/libpod-<id>
start_podman() {
	local n=hjpod$id b=$HJ_TMP/podman cid
	command -v podman >/dev/null || { REASON[podman]="podman is not installed"; return 1; }
	command -v runc >/dev/null || { REASON[podman]="podman needs runc here"; return 1; }
	P=(podman --root "$b/root" --runroot "$b/runroot" --tmpdir "$b/tmp"
		--storage-driver vfs --cgroup-manager cgroupfs
		--events-backend file --runtime runc)
	mkdir -p "$b"
	mkroot "$b/rootfs" "${HOST[podman]}"
	tar -C "$b/rootfs" -cf "$b/rootfs.tar" .
	cg_created_by_us libpod_parent
	STOP[podman]="${P[*]} rm -f -t 0 $n >/dev/null 2>&1"
	HJ_CLEANUP+=("${STOP[podman]}")
	if ! "${P[@]}" import -q "$b/rootfs.tar" localhost/hjbbx >"$b/out" 2>&1 ||
		! "${P[@]}" run -d --name "$n" --network none --hostname "${HOST[podman]}" \
			--ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
			--security-opt no-new-privileges \
			localhost/hjbbx /bin/sleep 100000 >>"$b/out" 2>&1; then
		REASON[podman]="podman run failed: $(tail -n 2 "$b/out" | tr '\n' ' ' | head -c 200)"
		return 1
	fi
	INIT[podman]=$("${P[@]}" inspect -f '{{.State.Pid}}' "$n")
	EXEC[podman]="${P[*]} exec $n"
	cid=$("${P[@]}" inspect -f '{{.Id}}' "$n")
	RULE[podman]="${USR[podman]-}	libpod_parent/libpod-$cid	name=$n"
	CGDIR[podman]=/libpod_parent/libpod-$cid
}

