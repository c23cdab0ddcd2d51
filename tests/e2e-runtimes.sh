#!/bin/bash
# End to end against containers started by real runtimes (runc, crun, LXC,
# rootful podman, docker with the cgroupfs driver, from the Debian
# packages), each from a busybox-static root
# filesystem built here (no image pulls).  Each runtime's own cgroup layout
# is mapped by a hijack.conf rule as an admin would write it; a user logs in
# through a private sshd (pam_hijack, hijack-shell with file capabilities)
# and must land in that container: its hostname, the namespaces of its init,
# its cgroups, and --check must name the init (not conmon, not the LXC
# monitor, not a runtime helper).  A runtime that cannot run here is skipped
# with the reason.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
. "$(dirname "$0")/runtimes.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh setcap python3 flock
D=$HJ_TMP/ssh
id=$$
U="$top_srcdir/tests/users.sh"
RUNTIMES="runc crun lxc podman docker"
declare -A USR HOST INIT RULE REASON STOP CGDIR EXEC
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

# -- docker (docker.io, cgroupfs driver): a dockerd of the test's own.
# Every path of its own under $b (data and exec roots, pid file, socket,
# daemon.json instead of /etc/docker's, the trust key that 20.10 would
# write to /etc/docker/key.json); no iptables, no bridge, no ip_forward
# (dockerd sets net.ipv4.ip_forward=1 at start unless told not to, even
# with --bridge=none: measured here), no registry (an imported image,
# --pull never, --network none).  dockerd starts its own containerd.
# Two fixed paths remain: the plugins' exec root /run/docker/plugins
# (dockerd) and the shims' sockets in /run/containerd/s (containerd-shim):
# removed when this run made them and they are empty.
# With the cgroupfs driver, runc puts the init in PARENT/<id> on every v1
# hierarchy and, on a hybrid host, in the cgroup2 tree too (runc joins the
# unified hierarchy in hybrid mode); PARENT is the container's
# --cgroup-parent, which outlives every `docker run`: the rule names it
# (hijack.conf(5), A name that lasts).
DOCKER_NAME=hjdock$id
docker_down() { # DIR: containers, dockerd and containerd by pid, mounts
	local b=$1 p i
	if [ -n "${DOCKERD-}" ]; then
		"${DK[@]}" ps -aq 2>/dev/null | xargs -r "${DK[@]}" rm -f >/dev/null 2>&1
		kill -TERM "$DOCKERD" 2>/dev/null
		for i in $(seq 200); do
			kill -0 "$DOCKERD" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$DOCKERD" 2>/dev/null
		wait "$DOCKERD" 2>/dev/null
	fi
	# dockerd stops the containerd it started; if it could not
	p=${CONTAINERD-}
	if [ -n "$p" ] && [ "$(cat "/proc/$p/comm" 2>/dev/null)" = containerd ]; then
		ct_kill "$p"
	fi
	# its data root is bind mounted on itself, image layers are overlay
	# mounts, network namespaces nsfs mounts: the deepest first
	awk -v b="$b/" 'index($5, b) == 1 { print $5 }' /proc/self/mountinfo |
		sort -r | while read -r m; do umount "$m" 2>/dev/null || umount -l "$m"; done
}
start_docker() {
	local n=$DOCKER_NAME b=$HJ_TMP/docker d i fwd
	if [ ! -x /usr/sbin/dockerd ] || [ ! -x /usr/bin/docker ]; then
		REASON[docker]="docker.io is not installed"
		return 1
	fi
	mkdir -p "$b"
	mkroot "$b/rootfs" "${HOST[docker]}"
	tar -C "$b/rootfs" -cf "$b/rootfs.tar" .
	printf '{ "deprecated-key-path": "%s" }\n' "$b/key.json" > "$b/daemon.json"
	# the docker.io client, the daemon's version (PATH may have another)
	DK=(env DOCKER_CONFIG="$b/cli" /usr/bin/docker -H "unix://$b/docker.sock")
	HJ_CLEANUP+=("docker_down '$b'")
	for d in /run/docker/plugins /run/docker /run/containerd/s /run/containerd; do
		[ -e "$d" ] || HJ_CLEANUP+=("rmdir '$d' 2>/dev/null")
	done
	cg_create docker || { REASON[docker]="cannot create its cgroup parent"; return 1; }
	fwd=$(cat /proc/sys/net/ipv4/ip_forward)
	dockerd --data-root "$b/data" --exec-root "$b/exec" \
		--pidfile "$b/docker.pid" -H "unix://$b/docker.sock" \
		--config-file "$b/daemon.json" \
		--iptables=false --ip6tables=false --bridge=none \
		--ip-forward=false --ip-masq=false \
		--exec-opt native.cgroupdriver=cgroupfs \
		--cgroup-parent "/$HJ_RUN/docker" \
		</dev/null >"$b/dockerd.log" 2>&1 &
	DOCKERD=$!
	for i in $(seq 300); do
		"${DK[@]}" version >/dev/null 2>&1 && break
		kill -0 "$DOCKERD" 2>/dev/null || break
		sleep 0.1
	done
	if ! "${DK[@]}" version >/dev/null 2>&1; then
		REASON[docker]="dockerd did not start: $(grep -v 'level=info' "$b/dockerd.log" | tail -n 2 | tr '\n' ' ' | head -c 300)"
		return 1
	fi
	CONTAINERD=$(cat "$b/exec/containerd/containerd.pid" 2>/dev/null)
	diag "docker: dockerd $DOCKERD, containerd ${CONTAINERD:-?}, $("${DK[@]}" info -f 'storage {{.Driver}}, cgroup driver {{.CgroupDriver}} v{{.CgroupVersion}}, runc {{.RuncCommit.ID}}' 2>&1)"
	is "docker: dockerd leaves the host's ip_forward as it was" \
		"$(cat /proc/sys/net/ipv4/ip_forward)" "$fwd"
	check "docker: no docker0 bridge on the host" \
		test ! -e /sys/class/net/docker0
	"${DK[@]}" import "$b/rootfs.tar" hjbbx:latest >"$b/out" 2>&1 || {
		REASON[docker]="docker import failed: $(tail -n 2 "$b/out" | tr '\n' ' ' | head -c 200)"
		return 1
	}
	STOP[docker]="${DK[*]} stop -t 1 $n >/dev/null 2>&1"
	RULE[docker]="${USR[docker]}	/$HJ_RUN/docker/$n	name=$n"
	docker_run || return 1
}
# docker_run: (again) the container named $DOCKER_NAME below its
# --cgroup-parent; sets INIT[docker], CGDIR[docker] (the init's own cgroup)
docker_run() {
	local n=$DOCKER_NAME b=$HJ_TMP/docker cid
	if ! "${DK[@]}" run -d --pull never --name "$n" --hostname "${HOST[docker]}" \
		--network none --cgroup-parent "/$HJ_RUN/docker/$n" \
		hjbbx /bin/sleep 100000 >"$b/out" 2>&1; then
		REASON[docker]="docker run failed: $(tail -n 2 "$b/out" | tr '\n' ' ' | head -c 200)"
		return 1
	fi
	INIT[docker]=$("${DK[@]}" inspect -f '{{.State.Pid}}' "$n")
	cid=$("${DK[@]}" inspect -f '{{.Id}}' "$n")
	CGDIR[docker]=/$HJ_RUN/docker/$n/$cid
}

start_oci runc
start_oci crun
start_lxc
start_podman
start_docker

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
	# a terminal from the container's own devpts (hijack-shell(8))
	out=$(s "$u" -tt 'tty; stat -c %d "$(tty)"' </dev/null 2>/dev/null | tr -d '\r')
	like "$rt: ssh -t: tty names a terminal (/dev/pts/N)" "$(sed -n 1p <<<"$out")" '^/dev/pts/[0-9]+$'
	is "$rt: ... of the container's own devpts" "$(sed -n 2p <<<"$out")" \
		"$(stat -c %d "/proc/$i/root/dev/pts")"
	out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$u")
	rc=$?
	like "$rt: --check picks the container init (pid $i)" "$out" "task: +pid $i \(container init\) in .*${CGDIR[$rt]}$"
	is "$rt: --check passes" "$rc" 0
done

# -- docker: the CLI on the cgroups the init is in, the 7 namespaces, the
# exit status, and the same rule after the container is made again
NS7="mnt uts ipc net pid cgroup user"
ns7() { # PID: its 7 namespaces as the session prints its own
	local ns o=""
	for ns in $NS7; do o+="$ns:$(ns_of "$1" $ns) "; done
	echo "$o"
}
ns7_self='for ns in '$NS7'; do printf "%s:%s " $ns $(readlink /proc/self/ns/$ns); done; echo'
cg_same='cat /proc/self/cgroup; echo =; cat /proc/1/cgroup'
wait_gone() { local k; for k in $(seq 100); do [ -e "/proc/$1" ] || return 0; sleep 0.05; done; return 1; }
# same: the two halves of $cg_same's output are equal and not empty
same() { awk '/^=$/ { n = 1; next } { a[n + 0] = a[n + 0] $0 "|" } END { print (a[0] != "" && a[0] == a[1]) ? "same" : a[0] " vs " a[1] }'; }
if [ -n "${INIT[docker]-}" ]; then
	u=${USR[docker]} i=${INIT[docker]} n=$DOCKER_NAME
	cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	cg1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
	diag "docker: /proc/$i/cgroup: $(tr '\n' ' ' < "/proc/$i/cgroup")"
	# (a named v1 hierarchy that another test mounts in its own mount
	# namespace shows in /proc/PID/cgroup too: ask each of ours instead)
	miss=""
	for h in $(hj_hierarchies); do
		grep -qx "$i" "$h${CGDIR[docker]}/cgroup.procs" 2>/dev/null || miss+="$h "
	done
	is "docker: the init is in its --cgroup-parent/<id> on every hierarchy mounted" "$miss" ""
	if [ -n "$cg2" ]; then
		check "docker: ... the cgroup2 tree included (hybrid host)" \
			grep -qx "0::${CGDIR[docker]}" "/proc/$i/cgroup"
	fi
	# hijack cgroup, by the v2 directory and by a v1 tasks file
	for f in ${cg2:+"$cg2${CGDIR[docker]}"} ${cg1:+"$cg1${CGDIR[docker]}/tasks"}; do
		out=$("$HIJACK" cgroup "$f" -- /bin/sh -c "hostname; $ns7_self; $cg_same" 2>&1)
		rc=$?
		is "docker: hijack cgroup ${f#/sys/fs/cgroup/} exits 0" "$rc" 0
		is "docker: ... lands in the container (hostname)" "$(sed -n 1p <<<"$out")" "${HOST[docker]}"
		is "docker: ... in the init's 7 namespaces" "$(sed -n 2p <<<"$out")" "$(ns7 "$i")"
		is "docker: ... in the init's cgroups" "$(sed -n '3,$p' <<<"$out" | same)" same
	done
	"$HIJACK" cgroup "$cg2${CGDIR[docker]}" -- /bin/sh -c 'exit 7' </dev/null
	is "docker: hijack cgroup passes the exit status through (7)" "$?" 7
	# hijack-shell
	is "docker: ssh: the init's 7 namespaces" "$(s "$u" "$ns7_self")" "$(ns7 "$i")"
	s "$u" 'exit 7' </dev/null
	is "docker: ssh: the exit status passes through (7)" "$?" 7
	# made again under the same name: a new id, the same rule
	old_cg=${CGDIR[docker]} rule=$(cat "$CONF")
	"${DK[@]}" rm -f "$n" >/dev/null 2>&1
	check "docker: rm -f: the init is gone" wait_gone "$i"
	if docker_run; then
		i2=${INIT[docker]}
		diag "docker: made again, init pid $i2 in ${CGDIR[docker]}"
		isnt "docker: made again: another container id" "${CGDIR[docker]}" "$old_cg"
		is "docker: made again: hijack.conf unchanged" "$(cat "$CONF")" "$rule"
		is "docker: made again: ssh lands (hostname)" "$(s "$u" hostname)" "${HOST[docker]}"
		is "docker: made again: ssh: the new init's 7 namespaces" "$(s "$u" "$ns7_self")" "$(ns7 "$i2")"
		is "docker: made again: ssh: the new init's cgroups" "$(s "$u" "$cg_same" | same)" same
		out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$u")
		like "docker: made again: --check picks the new init (pid $i2)" "$out" \
			"task: +pid $i2 \(container init\) in .*${CGDIR[docker]}$"
	else
		not_ok "docker: made again: ${REASON[docker]}"
	fi
fi

# -- stopping a container through its runtime refuses the next login
for rt in $RUNTIMES; do
	[ -n "${INIT[$rt]-}" ] || continue
	eval "${STOP[$rt]}"
	out=$(s "${USR[$rt]}" hostname 2>&1)
	rc=$?
	isnt "$rt: after the runtime stopped it, the login is refused" "$rc" 0
	isnt "$rt: and never reaches a shell on the host" "$out" "$(hostname)"
done

# -- docker stop: the --cgroup-parent stays, empty: "not running"
if [ -n "${INIT[docker]-}" ]; then
	u=${USR[docker]} n=$DOCKER_NAME
	diag "docker: after docker stop: $(find "$cg2/$HJ_RUN/docker" -name cgroup.procs | sed "s|^$cg2||" | tr '\n' ' ')"
	# sshd shows a non-pty session no PAM message: the shell as sshd runs it
	out=$(setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups \
		--inh-caps=-all -- env -i PATH=/usr/bin:/bin "$HS" -c hostname 2>&1)
	rc=$?
	like "docker: after docker stop, the shell refuses: not running, the cgroup empty" \
		"rc=$rc $out" "^rc=1 .*container $n is not running \(cgroup /?$HJ_RUN/docker/$n is empty\)"
	out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$u")
	rc=$?
	like "docker: after docker stop, --check says so" "$out" \
		"^PROBLEM: container $n is not running \(no live task in cgroup /?$HJ_RUN/docker/$n\): logins are refused"
	is "docker: ... and exits 1" "$rc" 1
fi

done_testing
