#!/bin/bash
# End to end against containers started by real runtimes (runc, crun, LXC,
# rootful podman from the Debian packages), each from a busybox-static root
# filesystem built here (no image pulls).  Each runtime's own cgroup layout
# is mapped by a hijack.conf rule as an admin would write it; a user logs in
# through a private sshd (pam_hijack, hijack-shell with file capabilities)
# and must land in that container: its hostname, the namespaces of its init,
# its cgroups, and --check must name the init (not conmon, not the LXC
# monitor, not a runtime helper).  A runtime that cannot run here is skipped
# with the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh setcap python3 flock
D=$HJ_TMP/ssh
id=$$
U="$top_srcdir/tests/users.sh"
RUNTIMES="runc crun lxc podman"
declare -A USR HOST INIT RULE REASON STOP CGDIR
for rt in $RUNTIMES; do
	USR[$rt]=hjt${rt:0:1}$id
	HOST[$rt]=$rt-$id
done

hj_shell_install "$D"
hj_conf_take
HJ_CLEANUP+=("'$U' del ${USR[*]} >/dev/null 2>&1")
for rt in $RUNTIMES; do
	"$U" useradd "${USR[$rt]}" -M -s "$HS" -d "$D/home" >/dev/null ||
		bail_out "useradd ${USR[$rt]}"
	usermod -p '*' "${USR[$rt]}"
done
mkdir -p "$D/home"

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
	RULE[$rt]="${USR[$rt]}	/$HJ_RUN/$rt	name=$rt-$id"
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
	RULE[lxc]="${USR[lxc]}	lxc.payload.$n	name=$n"
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
	cid=$("${P[@]}" inspect -f '{{.Id}}' "$n")
	RULE[podman]="${USR[podman]}	libpod_parent/libpod-$cid	name=$n"
	CGDIR[podman]=/libpod_parent/libpod-$cid
}

start_oci runc
start_oci crun
start_lxc
start_podman

# -- hijack.conf: one rule per running container, as an admin writes them
{
	echo "# e2e-runtimes.sh"
	for rt in $RUNTIMES; do
		[ -n "${RULE[$rt]-}" ] && echo "${RULE[$rt]}"
	done
} > "$CONF"
chmod 644 "$CONF"

sshd_start "$D" "${USR[@]}"

for rt in $RUNTIMES; do
	if [ -z "${INIT[$rt]-}" ]; then
		skip "$rt: end to end" "${REASON[$rt]:-did not start}"
		continue
	fi
	u=${USR[$rt]} i=${INIT[$rt]}
	diag "$rt: init pid $i in ${CGDIR[$rt]}"
	is "$rt: ssh lands in the container (hostname)" "$(s "$u" hostname)" "${HOST[$rt]}"
	want="" got=""
	for ns in mnt uts ipc net pid cgroup; do
		want+="$ns:$(ns_of "$i" $ns) "
	done
	got=$(s "$u" 'for ns in mnt uts ipc net pid cgroup; do printf "%s:%s " $ns $(readlink /proc/self/ns/$ns); done')
	is "$rt: every namespace is the init's" "$got" "$want"
	is "$rt: the session sits in the init's cgroups" \
		"$(s "$u" 'cat /proc/self/cgroup; echo =; cat /proc/1/cgroup' | awk '/^=$/ { n = 1; next } { a[n + 0] = a[n + 0] $0 "|" } END { print (a[0] == a[1]) ? "same" : a[0] " vs " a[1] }')" same
	is "$rt: the user is who logged in" "$(s "$u" id -u)" "$(id -u "$u")"
	# as confined as the runtime made the init (hijack-shell(8), Confinement)
	diag "$rt: init $(grep -E '^(CapBnd|NoNewPrivs|Seccomp|Seccomp_filters):' /proc/$i/status | tr -s '\t\n' '  ')"
	st=$(s "$u" 'cat /proc/self/status')
	for k in CapBnd NoNewPrivs Seccomp; do
		is "$rt: the session's $k is the init's" "$(awk -v k="$k:" '$1 == k { print $2 }' <<<"$st")" \
			"$(awk -v k="$k:" '$1 == k { print $2 }' /proc/$i/status)"
	done
	nf=$(awk '$1 == "Seccomp_filters:" { print $2 }' <<<"$st")
	check "$rt: at least the init's $(awk '$1 == "Seccomp_filters:" { print $2 }' /proc/$i/status) seccomp filters" \
		test "${nf:-0}" -ge "$(awk '$1 == "Seccomp_filters:" { print $2 }' /proc/$i/status)"
	out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG "$HS" --check "$u")
	rc=$?
	like "$rt: --check picks the container init (pid $i)" "$out" "task: +pid $i \(container init\) in .*${CGDIR[$rt]}$"
	is "$rt: --check passes" "$rc" 0
done

# -- stopping a container through its runtime refuses the next login
for rt in $RUNTIMES; do
	[ -n "${INIT[$rt]-}" ] || continue
	eval "${STOP[$rt]}"
	out=$(s "${USR[$rt]}" hostname 2>&1)
	rc=$?
	isnt "$rt: after the runtime stopped it, the login is refused" "$rc" 0
	isnt "$rt: and never reaches a shell on the host" "$out" "$(hostname)"
done

done_testing
