#!/bin/bash
# The guest side of tests/realhost/run.sh: copied into the guest with
# README.md and the .debs, run as root over ssh as `guest.sh STEP ARGS`.
# Each runtime is four steps, rt_NAME_start, _pid, _stop, and its rule
# (RULE_NAME in run.sh); a new runtime is four small functions here and
# one word in run.sh's RUNTIMES.
set -u
cd /root
README=/root/README.md

# The first indented block (4 spaces) after the first README line that
# matches PATTERN, de-indented: the README's own commands, run as written
# (tests/lib.sh's readme_block, which this guest does not have).
readme_block() {
	awk -v pat="$1" '
		!found && $0 ~ pat { found = 1; next }
		found && /^    / { inb = 1; print substr($0, 5); next }
		found && inb && /^$/ { print; next }
		found && inb { exit }' "$README"
}

# The first `code` span of the README that starts with PREFIX (a table
# cell's "\|" is a "|").
readme_code() {
	grep -o "\`$1[^\`]*\`" "$README" | head -n1 | tr -d '`' | sed 's/\\|/|/g'
}

# -- README steps 1-3, as an admin follows them
step1_install() {
	local cmd
	cmd=$(readme_block '^\*\*1\. Install\*\*')
	echo "+ $cmd"
	# apt's questions answered as a person would (no terminal here)
	echo 'APT::Get::Assume-Yes "true";' >/etc/apt/apt.conf.d/90realhost
	cd /root/debs && DEBIAN_FRONTEND=noninteractive eval "$cmd"
}

step2_sshd() {
	local file pam
	# the file the README says to write, and its block
	file=$(grep -o '`/etc/ssh/sshd_config[^`]*`' "$README" | head -n1 | tr -d '`')
	echo "+ $file"
	case $file in
	*.d/*) ;;
	*) echo "README names $file, not a drop-in"; return 1 ;;
	esac
	readme_block "^\`$file\`" >"$file"
	[ -s "$file" ] || { echo "no block after $file"; return 1; }
	cat "$file"
	pam=$(readme_block '^`systemctl reload ssh`\. The PAM lines:|The PAM lines:')
	# after @include common-account, and at the end of the session lines
	printf '%s\n' "$pam" | grep '^account' >/tmp/acct
	printf '%s\n' "$pam" | grep '^session' >/tmp/sess
	[ -s /tmp/acct ] && [ -s /tmp/sess ] || { echo "no PAM lines"; return 1; }
	sed -i '/^@include common-account/r /tmp/acct' /etc/pam.d/sshd
	last=$(grep -n '^session' /etc/pam.d/sshd | tail -n1 | cut -d: -f1)
	sed -i "${last}r /tmp/sess" /etc/pam.d/sshd
	sshd -t || return 1
	systemctl reload ssh
}

# effective sshd settings, as sshd itself resolves them
sshd_effective() {
	sshd -T -C user=root,host=h,addr=127.0.0.1 | grep -Ei "^($1) "
}

step3_rootfs() {
	local err
	readme_block '^for the examples' >/tmp/rootfs.sh
	[ -s /tmp/rootfs.sh ] || { echo "no rootfs recipe"; return 1; }
	cat /tmp/rootfs.sh
	err=$(bash -e /tmp/rootfs.sh 2>&1 >/dev/null)
	rc=$?
	[ -z "$err" ] || { echo "stderr: $(echo "$err" | head -n3) ($(echo "$err" | wc -l) lines)"; return 1; }
	return $rc
}

# what the README's rootfs lacks for these tests: ssh's file tools and
# the users, as the container's own /etc/passwd
copy_bin() { # ROOTFS BINARY
	local l
	mkdir -p "$1$(dirname "$2")"
	cp -L "$2" "$1$2"
	for l in $(ldd "$2" 2>/dev/null | grep -o '/[^ ]*'); do
		mkdir -p "$1$(dirname "$l")"
		cp -L "$l" "$1$l"
	done
}
rootfs_extras() { # USER...
	local r=/srv/web1/rootfs u
	copy_bin $r /usr/lib/openssh/sftp-server
	copy_bin $r /usr/bin/rsync
	copy_bin $r /usr/bin/scp
	echo "root:x:0:0:root:/root:/bin/sh" >$r/etc/passwd
	echo "root:x:0:" >$r/etc/group
	mkdir -p $r/root $r/run
	chmod 1777 $r/tmp
	for u; do
		useradd -m -s /usr/sbin/hijack-shell "$u"
		mkdir -p -m 700 "/home/$u/.ssh"
		cp /root/.ssh/authorized_keys "/home/$u/.ssh/"
		chown -R "$u:" "/home/$u/.ssh"
		echo "$u:x:$(id -u "$u"):$(id -g "$u")::/home/$u:/bin/sh" >>$r/etc/passwd
		mkdir -p "$r/home/$u"
		chown "$(id -u "$u"):$(id -g "$u")" "$r/home/$u"
	done
}

# rule USER WHERE NAME: the README's step 4, for this user
rule() {
	sed -i "/^$1[[:space:]]/d" /etc/security/hijack.conf
	echo "$1  $2  name=$3" >>/etc/security/hijack.conf
}

# What a session must equal: the init's LSM label, namespaces, its cgroup
# as seen from its own cgroup namespace, its hostname.
facts() { # PID
	local p=$1 n
	cat "/proc/$p/attr/current"
	for n in cgroup ipc mnt net pid uts user; do readlink "/proc/$p/ns/$n"; done
	nsenter -t "$p" -C cat "/proc/$p/cgroup"
	nsenter -t "$p" -u hostname
}

# the session of USER that logind knows, and whether it is gone
session_of() {
	loginctl list-sessions --no-legend | awk -v u="$1" '$3 == u { print $1 }' | head -n1
}
session_scope() { # ID
	systemctl is-active "session-$1.scope" 2>/dev/null
}
session_gone() { # USER ID
	local i
	for i in $(seq 30); do
		if ! loginctl show-session "$2" >/dev/null 2>&1 &&
			[ "$(session_scope "$2")" != active ]; then
			echo gone
			return 0
		fi
		sleep 0.5
	done
	echo "still there: $(loginctl show-session "$2" -p State -p Scope 2>&1 | tr '\n' ' ')"
}

# the AppArmor label of USER's `sleep 299` (a session's), as the host sees
# it.  The session scope is there from PAM's open_session; the shell
# reaches the container later, which on a loaded TCG guest once took
# longer than 10 s: the session lives until end_sleep, not for a fixed
# time that a slow guest could outlast.
label_of() { # USER
	local p=
	for _ in $(seq 120); do
		p=$(pgrep -u "$1" -n -f '^sleep 299$') && break
		sleep 0.5
	done
	if [ -z "$p" ]; then
		echo "no session's sleep; $1 runs: $(pgrep -a -u "$1" | tr '\n' ';')"
		return 1
	fi
	cat "/proc/$p/attr/current" 2>&1
}

# end USER's session of label_of: its `sleep 299`, the test's own
end_sleep() { # USER
	pkill -u "$1" -f '^sleep 299$'
}

# the README's query (--input-logs: stdin is not a terminal here, and
# ausearch would read it instead of the logs)
audit_count() { # PID NAME
	ausearch --input-logs -m VIRT_CONTROL --vm-name "$2" 2>/dev/null |
		grep -E "vm=\"?$2\"? vm-pid=$1 .*res=success" | grep -c 'op=start'
}

image_tar() {
	tar -C /srv/web1/rootfs -c .
}

# The first `code` span of the README that contains STRING (fixed).
readme_span() {
	grep -o '`[^`]*`' "$README" | grep -F -- "$1" | head -n1 | tr -d '`' | sed 's/\\|/|/g'
}
# The rule's WHERE of the README's runtime table, row ROW (the start of
# its first cell): the first code span of its last cell.
readme_where() { # ROW
	grep -F -- "| $1" "$README" | head -n1 | sed 's/\\|/\x01/g' |
		awk -F' [|] ' '{ print $NF }' | grep -o '`[^`]*`' | head -n1 | tr -d '`'
}
# the --hostname of the README's start command that contains STRING
readme_hostname() { # STRING
	readme_span "$1" | grep -oE -- '--hostname[= ][^ ]+' | head -n1 | sed 's/--hostname[= ]//'
}

# -- docker (docker.io, systemd cgroup driver): the README's import and
#    run, literally: a slice of its own (--cgroup-parent), the scope
#    docker-<id>.scope beneath it
rt_docker_start() {
	local cmd
	systemctl start docker || return 1
	cd /srv/web1 || return 1
	if ! docker image inspect web1 >/dev/null 2>&1; then
		cmd=$(readme_span 'docker import')
		echo "+ $cmd"
		eval "$cmd" >/dev/null || return 1
	fi
	cmd=$(readme_code 'docker run -d')
	echo "+ $cmd"
	[ -n "$cmd" ] && eval "$cmd" >/dev/null
}
rt_docker_pid() { docker inspect -f '{{.State.Pid}}' web1; }
rt_docker_stop() { docker rm -f web1 >/dev/null; }

# -- podman, rootful (crun, systemd manager): the README's import, then
#    a slice of its own; the init is in libpod-<id>.scope/container
rt_podman_start() {
	podman image exists localhost/web1 ||
		(cd /srv/web1 && eval "$(readme_code 'tar -C rootfs -c')") || return 1
	podman run -d --name webpodman --hostname web-podman --network none \
		--cgroup-parent=webpodman.slice localhost/web1 sleep infinity >/dev/null
}
rt_podman_pid() { podman inspect -f '{{.State.Pid}}' webpodman; }
rt_podman_stop() { podman rm -f -t 0 webpodman >/dev/null; }

# -- systemd-nspawn, registered with machined: the README's command,
#    literally (machine web1); machine-<name>.scope, the init in its
#    payload child
nspawn_wait() { # MACHINE
	for _ in $(seq 60); do
		machinectl show "$1" -p Leader --value >/dev/null 2>&1 && return 0
		sleep 0.5
	done
	return 1
}
rt_nspawn_start() {
	local cmd
	cmd=$(readme_code 'systemd-run --unit=web1')
	echo "+ $cmd"
	[ -n "$cmd" ] && eval "$cmd" || return 1
	nspawn_wait web1
}
rt_nspawn_pid() { machinectl show web1 -p Leader --value; }
rt_nspawn_stop() { machinectl terminate web1; }

# -- systemd-nspawn again, the same command without the README's
#    SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=1: a payload without systemd (busybox)
#    then gets nspawn's legacy layout on this pure cgroup2 host
#    (systemd 252 nspawn.c, detect_unified_cgroup_hierarchy_from_image:
#    no systemd >= 230 in the image, CGROUP_UNIFIED_NONE), a named
#    name=systemd v1 hierarchy the host never mounts
rt_nsv1_start() {
	systemd-run -q --unit=webnsv1 systemd-nspawn -q -D /srv/web1/rootfs \
		-M webnsv1 --hostname=web-nsv1 --private-network /bin/sleep infinity || return 1
	nspawn_wait webnsv1
}
rt_nsv1_pid() { machinectl show webnsv1 -p Leader --value; }
rt_nsv1_stop() { machinectl terminate webnsv1; }
# the session's cgroup2 line, and its named hierarchies (and the init's)
cg_lines() { # PID
	grep -v '^0::' "/proc/$1/cgroup" | tr '\n' ' '
}

# -- LXC, systemd inside (Debian's own packages, built into the image by
#    image.sh): lxc.payload.<name> is the cgroup lxc makes for the
#    container and removes when it stops; systemd puts itself in
#    init.scope below it.  The container's config as lxc-create's debian
#    template writes it (common.conf), without the network.
LXC_R=/var/lib/lxc/weblxc/rootfs
rt_lxc_start() {
	local u uid gid
	[ -x $LXC_R/lib/systemd/systemd ] || { echo "no rootfs at $LXC_R"; return 1; }
	cat >/var/lib/lxc/weblxc/config <<-EOF
		lxc.include = /usr/share/lxc/config/common.conf
		lxc.uts.name = web-lxc
		lxc.rootfs.path = dir:$LXC_R
		lxc.net.0.type = empty
		lxc.apparmor.profile = generated
		lxc.apparmor.allow_nesting = 0
	EOF
	echo web-lxc >$LXC_R/etc/hostname
	u=rhlxc
	if id -u $u >/dev/null 2>&1 && ! grep -q "^$u:" $LXC_R/etc/passwd; then
		uid=$(id -u $u) gid=$(id -g $u)
		echo "$u:x:$uid:$gid::/home/$u:/bin/sh" >>$LXC_R/etc/passwd
		echo "$u:x:$gid:" >>$LXC_R/etc/group
		mkdir -p $LXC_R/home/$u && chown "$uid:$gid" $LXC_R/home/$u
	fi
	lxc-start -n weblxc </dev/null >/dev/null 2>&1 || return 1
	# systemd in init.scope, the hostname set: what a login must equal
	for _ in $(seq 120); do
		grep -q '^0::/lxc.payload.weblxc/init.scope$' "/proc/$(rt_lxc_pid)/cgroup" 2>/dev/null &&
			[ "$(nsenter -t "$(rt_lxc_pid)" -u hostname 2>/dev/null)" = web-lxc ] && return 0
		sleep 0.5
	done
	echo "systemd not up: $(rt_lxc_pid) $(cat "/proc/$(rt_lxc_pid)/cgroup")"
	return 1
}
rt_lxc_pid() { lxc-info -n weblxc -p -H; }
rt_lxc_stop() { lxc-stop -n weblxc -k; }
rt_lxc_restart() { rt_lxc_stop && rt_lxc_start; }

# -- podman with systemd: quadlet's web1.container needs podman >= 4.4;
#    without /usr/libexec/podman/quadlet (Debian 12 has 4.3), the
#    equivalent unit of `podman generate systemd --new`, the container
#    created with quadlet's --cgroups=split so that it lives in the
#    unit's cgroup (system.slice/webquad.service), as quadlet's does
QUADLET=/usr/libexec/podman/quadlet
rt_quadlet_kind() {
	if [ -x $QUADLET ]; then echo quadlet; else echo "generate systemd --new (no $QUADLET, podman $(podman --version | awk '{print $3}'))"; fi
}
rt_quadlet_start() {
	podman image exists localhost/web1 ||
		(cd /srv/web1 && eval "$(readme_code 'tar -C rootfs -c')") || return 1
	if [ ! -f /etc/systemd/system/webquad.service ] &&
		[ ! -f /etc/containers/systemd/webquad.container ]; then
		if [ -x $QUADLET ]; then
			mkdir -p /etc/containers/systemd
			printf '[Container]\nImage=localhost/web1\nContainerName=webquad\nHostName=web-quad\nNetwork=none\nExec=sleep infinity\n' \
				>/etc/containers/systemd/webquad.container
		else
			podman create -q --name webquad --hostname web-quad --network none \
				--cgroups=split localhost/web1 sleep infinity >/dev/null || return 1
			(cd /etc/systemd/system && podman generate systemd --new --files --name webquad) >/dev/null || return 1
			mv /etc/systemd/system/container-webquad.service /etc/systemd/system/webquad.service
			podman rm webquad >/dev/null
			# what quadlet writes, and generate systemd does not: it
			# replaces --cgroups=split with --cgroups=no-conmon, and
			# the container then lives in machine.slice/libpod-<id>.scope,
			# outside the unit (its cgroup holds conmon alone)
			sed -i -e 's/^\[Service\]/[Service]\nDelegate=yes/' \
				-e 's/--cgroups=no-conmon/--cgroups=split/' /etc/systemd/system/webquad.service
		fi
		systemctl daemon-reload
	fi
	systemctl start webquad.service
}
rt_quadlet_pid() { podman inspect -f '{{.State.Pid}}' webquad; }
rt_quadlet_stop() { systemctl stop webquad.service; }
rt_quadlet_restart() { systemctl restart webquad.service; }
rt_quadlet_unit() { cat /etc/systemd/system/webquad.service 2>/dev/null; }
# the unit of `podman generate systemd --new` as it comes (no quadlet):
# --cgroups=no-conmon, the container outside the unit's cgroup
rt_quadlet0_start() {
	if [ ! -f /etc/systemd/system/webquad0.service ]; then
		podman create -q --name webquad0 --hostname web-quad0 --network none \
			localhost/web1 sleep infinity >/dev/null || return 1
		(cd /etc/systemd/system && podman generate systemd --new --files --name webquad0) >/dev/null || return 1
		mv /etc/systemd/system/container-webquad0.service /etc/systemd/system/webquad0.service
		podman rm webquad0 >/dev/null
		systemctl daemon-reload
	fi
	systemctl start webquad0.service
}
rt_quadlet0_pid() { podman inspect -f '{{.State.Pid}}' webquad0; }
rt_quadlet0_stop() { systemctl stop webquad0.service; }

# -- runc with linux.cgroupsPath: the README's bundle and command
rt_runc_start() {
	local cmd
	cd /srv/web1 || return 1
	rm -f config.json
	runc spec || return 1
	# the README's settings ("root" is only the path: not read-only)
	sed -i -e 's|"terminal": true|"terminal": false|' \
		-e 's|"path": "rootfs",|"path": "/srv/web1/rootfs"|' \
		-e '/"readonly": true/d' \
		-e 's|"hostname": "runc"|"hostname": "web-runc"|' \
		-e '/"args": \[/,/\]/c\			"args": ["sleep", "infinity"],' \
		-e 's|"linux": {|"linux": {\n\t\t"cgroupsPath": "/ctr/web1",|' config.json
	cmd=$(readme_code 'runc run -d')
	echo "+ $cmd"
	eval "$cmd"
}
rt_runc_pid() { runc state web1 | sed -n 's/^ *"pid": \([0-9]*\),/\1/p'; }
rt_runc_stop() { runc delete -f web1; }

# -- runc again, its /dev/pts a tmpfs instead of a devpts (a container
#    faking one): the session's pty falls back to the host's
rt_nopts_start() {
	mkdir -p /srv/web2 && cd /srv/web2 || return 1
	sed -e 's|"/ctr/web1"|"/ctr/web2"|' -e 's|"web-runc"|"web-nopts"|' \
		-e '/"destination": "\/dev\/pts"/,/\]/{s/"devpts"/"tmpfs"/g;/newinstance\|ptmxmode/d}' \
		/srv/web1/config.json >config.json || return 1
	grep -q '"tmpfs"' config.json || return 1
	runc run -d --bundle /srv/web2 web2 </dev/null >/dev/null 2>&1
}
rt_nopts_pid() { runc state web2 | sed -n 's/^ *"pid": \([0-9]*\),/\1/p'; }
rt_nopts_stop() { runc delete -f web2; }
# the op=pty records of container NAME that say why
audit_pty() { # NAME
	ausearch --input-logs -m VIRT_CONTROL --vm-name "$1" 2>/dev/null |
		grep 'op=pty' | grep -o 'reason=[^ ]*' | sort -u
}

# -- podman, rootless, under the user's own user@.service (linger), no
#    delegate script or option: a slice of the user's own
#    (--cgroup-parent) below user@UID.service, libpod-<id>.scope/container
#    beneath it.  rt_rootless_start keepid: --userns=keep-id.
RL=rhrootless
rl() { # podman as the user, with the user manager's bus for its scopes
	local uid
	uid=$(id -u $RL)
	(cd / && XDG_RUNTIME_DIR=/run/user/$uid \
		DBUS_SESSION_BUS_ADDRESS=unix:path=/run/user/$uid/bus \
		runuser -u $RL -- podman "$@")
}
rt_rootless_start() {
	local uid keep=
	uid=$(id -u $RL) || return 1
	loginctl enable-linger $RL || return 1
	for _ in $(seq 60); do
		systemctl is-active -q "user@$uid.service" && break
		sleep 0.5
	done
	rl image exists localhost/web1 ||
		tar -C /srv/web1/rootfs -c . | rl import - web1 >/dev/null || return 1
	[ "${1:-}" = keepid ] && keep=--userns=keep-id
	rl run -d --name web --hostname web-rootless --network none $keep \
		--cgroup-parent=webrootless.slice localhost/web1 sleep infinity \
		>/dev/null || return 1
	# the session's home is the one of the container's /etc/passwd; it
	# is root of the container's there without keep-id
	[ -n "$keep" ] || rl exec web chown 0:0 /home/$RL
}
rt_rootless_pid() { rl inspect -f '{{.State.Pid}}' web; }
rt_rootless_stop() { rl rm -f -t 0 web >/dev/null; }
# the stable WHERE: the user's slice below their user@.service
rt_rootless_where() {
	local uid
	uid=$(id -u $RL) || return 1
	echo "/user.slice/user-$uid.slice/user@$uid.service/webrootless.slice"
}

# until USER's rule no longer finds a live container (nspawn stops
# asynchronously), at most 30 s
wait_down() { # USER
	for _ in $(seq 60); do
		hijack check "$1" 2>&1 | tail -n1 | grep -q '^RESULT: ok' || return 0
		sleep 0.5
	done
	return 1
}
where_left() { # WHERE: is the cgroup still there
	if [ -d "/sys/fs/cgroup/${1#/}" ]; then echo "is left (empty)"; else echo "is gone"; fi
}

# pam_hijack's session line with or without OPTION (delegate=...)
pam_session_opt() { # add|del OPTION
	case $1 in
	add) sed -i "s|^\(session[[:space:]]*required[[:space:]]*pam_hijack.so\)|\1 $2|" /etc/pam.d/sshd ;;
	del) sed -i "s| $2||" /etc/pam.d/sshd ;;
	esac
	grep '^session.*pam_hijack' /etc/pam.d/sshd
}
# Forwarding: an HTTP server on 127.0.0.1:PORT of PID's network whose
# /who says "container", and a decoy on the host's that says "host"
fwd_listens() { # PID PORT: listeners in PID's network, in the host's
	echo "$(nsenter --net="/proc/$1/ns/net" ss -ltnH | grep -c "127.0.0.1:$2 ")" \
		"$(ss -ltnH | grep -c "127.0.0.1:$2 ")"
}
fwd_port() { # a port, and the next, that no socket uses
	local p=$((20000 + RANDOM % 10000))
	while ss -tanH | grep -qE ":($p|$((p + 1))) "; do p=$((p + 2)); done
	echo "$p"
}
fwd_serve() { # PID PORT
	mkdir -p /srv/fwd-ct /srv/fwd-host
	echo container >/srv/fwd-ct/who
	echo host >/srv/fwd-host/who
	setsid nsenter --net="/proc/$1/ns/net" busybox httpd -f -p "127.0.0.1:$2" \
		-h /srv/fwd-ct </dev/null >/dev/null 2>&1 &
	echo $! >>/run/hj-fwd.pids
	setsid busybox httpd -f -p "127.0.0.1:$2" -h /srv/fwd-host </dev/null >/dev/null 2>&1 &
	echo $! >>/run/hj-fwd.pids
	for _ in $(seq 50); do
		[ "$(fwd_listens "$1" "$2")" = "1 1" ] && return 0
		sleep 0.1
	done
	return 1
}
fwd_stop() {
	# shellcheck disable=SC2046 # one pid a word
	[ -f /run/hj-fwd.pids ] && kill $(cat /run/hj-fwd.pids) 2>/dev/null
	rm -f /run/hj-fwd.pids
}

# journal lines since SINCE (a date) that contain STRING
# -- recordings: tlog as README's "Replaying a session" sets it up, shipped
# as its "Recordings on a collector" says (collector and host on this
# guest, over loopback)
rec_setup() { # USER
	local cmd
	cmd=$(readme_block 'file capabilities work as under sshd:$' | sed "s/alice/$1/g")
	[ -n "$cmd" ] || { echo "no tlog block in README"; return 1; }
	echo "+ $cmd"
	eval "$cmd"
}
rec_ship() {
	local cmd
	cmd=$(readme_block 'the collector, over HTTP' | sed "s/collector.example.com/127.0.0.1/g")
	[ -n "$cmd" ] || { echo "no collector block in README"; return 1; }
	echo "+ $cmd"
	eval "$cmd" || return 1
	cmd=$(readme_block 'On each host, the uploader' | sed "s/collector.example.com/127.0.0.1/g")
	[ -n "$cmd" ] || { echo "no uploader block in README"; return 1; }
	echo "+ $cmd"
	eval "$cmd"
}
# the recording of USER's session with MARK in it, as the README's
# collector commands find it (empty until it has arrived)
rec_replay() { # USER MARK UID
	local cmd id
	cmd=$(readme_block 'On the collector, find and replay' |
		sed -e "s/<uid of alice on the host>/$3/g" -e "s/alice/$1/g")
	[ -n "$cmd" ] || { echo "no replay block in README"; return 1; }
	eval "$(echo "$cmd" | sed -n 1p)" >/tmp/rec-ids 2>/dev/null
	for id in $(sed -n 's/.*TLOG_REC=\([^ ]*\).*/\1/p' /tmp/rec-ids | sort -u); do
		echo "$cmd" | sed -n 2p | sed "s/<recording id>/$id/g" >/tmp/rec-play.sh
		timeout 60 script -qec "bash /tmp/rec-play.sh" /dev/null </dev/null 2>/dev/null |
			grep -q "$2" && { echo "$id"; return 0; }
	done
	return 1
}
rec_play() { # USER ID UID: the replayed recording (tlog-play needs a
	# terminal: script(1) gives it one)
	local cmd
	cmd=$(readme_block 'On the collector, find and replay' |
		sed -e "s/<uid of alice on the host>/$3/g" -e "s/alice/$1/g" -e "s/<recording id>/$2/g")
	echo "$cmd" | sed -n 2p >/tmp/rec-play.sh
	timeout 60 script -qec "bash /tmp/rec-play.sh" /dev/null </dev/null |
		tr -d '\r\0' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
}
# a host user other than USER writes a journal entry that claims to be a
# recording of USER's session with MARK: the README's query must not
# find it
rec_forge() { # USER MARK
	# a system account: its entries go to the system journal, which
	# the uploader reads from the start
	useradd -r -M hjtforge 2>/dev/null
	su -s /bin/sh hjtforge -c "printf 'TLOG_USER=$1\nTLOG_SESSION=1\nTLOG_REC=forged-rec\nMESSAGE={\"ver\":\"2.3\",\"host\":\"realhost\",\"rec\":\"forged-rec\",\"user\":\"$1\",\"term\":\"xterm\",\"session\":1,\"id\":1,\"pos\":0,\"timing\":\">12\",\"in_txt\":\"\",\"in_bin\":[],\"out_txt\":\"$2 forged\",\"out_bin\":[]}\n' | logger --journald"
}
# journald's rate limit as a faster host meets it: 200 messages a minute
# (Debian's is 10000 in 30 s, scaled by free space, which a TCG guest
# cannot reach), and without README's tlog.conf, or with it back
rec_budget() { # low|readme
	mkdir -p /etc/systemd/journald.conf.d
	printf '[Journal]\nRateLimitIntervalSec=60s\nRateLimitBurst=200\n' \
		>/etc/systemd/journald.conf.d/50-hjtest-budget.conf
	case $1 in
	low) mv /etc/systemd/journald.conf.d/tlog.conf /root/tlog.conf.readme ;;
	readme) mv /root/tlog.conf.readme /etc/systemd/journald.conf.d/tlog.conf ;;
	esac
	systemctl restart systemd-journald
}
rec_budget_end() {
	rm -f /etc/systemd/journald.conf.d/50-hjtest-budget.conf
	systemctl restart systemd-journald
}
# the recorder's messages under UID since SINCE (seconds since the epoch)
rec_count() { # UID SINCE
	journalctl -q --no-pager -o cat _UID="$1" _EXE=/usr/bin/tlog-rec-session --since "@$2" | grep -c '"ver":'
}
rec_forged_seen() { # USER: does the README's search on the collector list the forgery?
	local cmd
	cmd=$(readme_block 'On the collector, find and replay' |
		sed -e "s/<uid of alice on the host>/$2/g" -e "s/alice/$1/g")
	eval "$(echo "$cmd" | sed -n 1p)" 2>/dev/null | grep -c 'forged-rec'
}
rec_unfiltered() { # USER: a search by TLOG_USER alone lists the forgery
	journalctl -D /var/log/journal/remote -o verbose TLOG_USER="$1" 2>/dev/null | grep -c 'TLOG_REC=forged-rec'
}
rec_any_forged() { # the forgery reached the collector at all
	journalctl -D /var/log/journal/remote -o verbose TLOG_REC=forged-rec 2>/dev/null | grep -c 'TLOG_REC=forged-rec'
}

# -- the example playbook (README, Configuration from Ansible), run from
# the test's host against this guest
# README steps 1 and 2 and the recordings' setup undone: the playbook
# starts from a host without hijack
ans_reset() {
	dpkg --purge hijack libpam-hijack >/dev/null || return 1
	sed -i '/pam_hijack\.so/d' /etc/pam.d/sshd
	rm -f /etc/ssh/sshd_config.d/hijack.conf /etc/tlog/tlog-rec-session.conf
	rm -rf /etc/security/hijack.conf.d
	if dpkg-statoverride --list /usr/bin/tlog-rec-session >/dev/null; then
		dpkg-statoverride --remove /usr/bin/tlog-rec-session
		chown root:root /usr/bin/tlog-rec-session
		chmod 0755 /usr/bin/tlog-rec-session
	fi
	sed -i 's/^active = yes/active = no/' /etc/audit/plugins.d/au-remote.conf
	rm -f /etc/systemd/journald.conf.d/tlog.conf
	systemctl restart systemd-journald
	sshd -t && systemctl reload ssh
}
# what is left of hijack after ans_reset, or what the playbook made
ans_state() { # USER
	echo "packages: $(dpkg-query -W -f='${db:Status-Abbrev}' hijack libpam-hijack 2>/dev/null | tr -s ' ' | tr -d '\n')"
	echo "pam: $(grep -cE '^[a-z]+[[:space:]]+required[[:space:]]+pam_hijack\.so' /etc/pam.d/sshd)"
	echo "shell: $(getent passwd "$1" | cut -d: -f7)"
	echo "tlog: $(dpkg-statoverride --list /usr/bin/tlog-rec-session) $(stat -c '%a %U' /usr/bin/tlog-rec-session)"
	echo "au-remote: $(sed -n 's/^active *= *//p' /etc/audit/plugins.d/au-remote.conf)"
	echo "journald: $(cat /etc/systemd/journald.conf.d/tlog.conf 2>/dev/null | tr '\n' ' ')"
}
# a collector on this guest's loopback, as README's "Audit records on a
# collector" sets one up: an auditd that takes only the network's records
# (local_events = no), its own configuration and log, and a /run of its
# own for its pid file (tests/audit-remote.sh's, without the netns)
ans_collector() { # PORT
	local d=/var/lib/hjcol
	rm -rf $d
	mkdir -p -m 700 $d/plugins.d
	sed "s|@DIR@|$d|g" /root/audit-collector.conf >$d/auditd.conf
	printf 'tcp_listen_port = %s\ntcp_max_per_addr = 4\n' "$1" >>$d/auditd.conf
	unshare --mount --propagation private \
		sh -c "mount -t tmpfs hjcol /run && exec auditd -n -c $d" >$d/auditd.out 2>&1 </dev/null &
	echo $! >/var/lib/hjcol.pid
	for _ in $(seq 100); do
		ss -ltnH "sport = :$1" | grep -q . && return 0
		sleep 0.2
	done
	return 1
}
ans_collected() { # NAME: the login records of container NAME it has
	ausearch --input /var/lib/hjcol/audit.log -m VIRT_CONTROL --vm-name "$1" 2>/dev/null |
		grep -c 'op=start'
}
ans_collector_stop() {
	[ -f /var/lib/hjcol.pid ] && kill "$(cat /var/lib/hjcol.pid)" 2>/dev/null
	rm -f /var/lib/hjcol.pid
}
ans_sum() { # FILE
	sha256sum <"$1" 2>/dev/null | cut -c1-16
}

journal_grep() { # SINCE STRING
	journalctl -q --no-pager --since "$1" 2>/dev/null | grep -F -- "$2" | head -n3
}

"$@"
