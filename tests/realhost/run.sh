#!/bin/bash
# The real host: Debian 12 with systemd as PID 1, only cgroup2, pam_systemd
# in sshd's stack, auditd, and AppArmor as Debian's kernel enables it, in a
# QEMU guest (TCG).  The image (tests/realhost/image.sh) is cached in
# HIJACK_REALHOST_CACHE (default /var/cache/hijack-realhost), keyed by its
# package list and recipe; the .debs are built from this tree (never
# installed here) and installed in the guest as the README says.  The
# guest follows README's steps 1-3 literally (tests/realhost/guest.sh),
# then for each runtime of RUNTIMES starts a container, writes a rule that
# survives re-creation, and logs in over ssh from here to the guest's sshd
# as a mapped user: ssh host cmd and its exit status, an interactive pty,
# scp, sftp, rsync, pam_systemd's session scope during and after the
# login, the VIRT_CONTROL record, and the session's AppArmor label,
# namespaces and cgroup against the container init's.  Boots once, powers
# off at the end.  Prints TAP; tests/run runs it.
#
#   HIJACK_REALHOST_CACHE     cache directory
#   HIJACK_REALHOST_RUNTIMES  runtimes to test (default: all, in order)
#   HIJACK_REALHOST_KEEP=1    leave the guest running at the end (debug)
#
# tests/realhost/run.sh --image-only builds the cached image and stops
# (tests/run starts it in the background while the other tests run).
. "$(dirname "$0")/../lib.sh"
. "$top_srcdir/tests/deb-build.sh"
. "$top_srcdir/tests/realhost/image.sh"
require_root
require_tools mmdebstrap qemu-system-x86_64 mke2fs ssh scp sftp rsync ss flock \
	dpkg-buildpackage ansible-playbook

RUNTIMES=${HIJACK_REALHOST_RUNTIMES:-docker podman nspawn runc rootless quadlet lxc nsv1}
# the rule of each runtime: a WHERE that outlives the container (the one
# init beneath it is found at login), and the container's hostname; the
# README's docker and nspawn rows give theirs (below, from the README)
declare -A WHERE=(
	[podman]=/webpodman.slice
	[runc]=/ctr/web1
	[rootless]="(user@UID.service)/webrootless.slice"
	[quadlet]=/system.slice/webquad.service
	[lxc]=/lxc.payload.weblxc
	[nsv1]=/machine.slice/machine-webnsv1.scope)
declare -A HOSTNAME_=([podman]=web-podman [runc]=web-runc
	[rootless]=web-rootless [quadlet]=web-quad [lxc]=web-lxc [nsv1]=web-nsv1)
# the form of the rule, for the table; RECREATE: removed and started
# again under the same name, or RESTART: restarted (lxc-stop, lxc-start;
# systemctl restart), the same rule must land again
declare -A FORM=(
	[docker]="the README's: --cgroup-parent=web1.slice (docker-<id>.scope below)"
	[podman]="--cgroup-parent=webpodman.slice (libpod-<id>.scope/container below)"
	[nspawn]="the README's: machine.slice/machine-<name>.scope (init in payload/)"
	[runc]="linux.cgroupsPath /ctr/web1"
	[rootless]="rootless --cgroup-parent=webrootless.slice under user@UID.service (libpod-<id>.scope/container below)"
	[quadlet]="the unit's cgroup (QUADLET)"
	[lxc]="lxc.payload.<name>, systemd inside (init in init.scope)"
	[nsv1]="machine.slice/machine-<name>.scope, busybox payload, no SYSTEMD_NSPAWN_UNIFIED_HIERARCHY")
declare -A RECREATE=([docker]=1 [podman]=1 [rootless]=1)
declare -A RESTART=([lxc]=1 [quadlet]=1)
declare -A LIGHT=([lxc]=1 [quadlet]=1)
declare -A TTY
declare -A LANDED
declare -A FLOOD

RH_CACHE=${HIJACK_REALHOST_CACHE:-/var/cache/hijack-realhost}
rh_log() { diag "realhost: $*"; }
rh_die() { bail_out "realhost: $*"; }
mkdir -p "$RH_CACHE"
exec 8>"$RH_CACHE/.lock"
flock 8
t0=$(date +%s)
rh_paths
rh_image
[ "${1:-}" != --image-only ] || exit 0
t_image=$(($(date +%s) - t0))

# -- the packages of this tree
deb_build "$HJ_TMP/deb" || {
	sed 's/^/# /' "$HJ_TMP/deb/build.log" | tail -30
	rh_die "dpkg-buildpackage failed"
}
debs=$(ls "$HJ_TMP"/deb/*.deb | grep -v -- -dbgsym_)
t_debs=$(($(date +%s) - t0 - t_image))

# -- boot
for port in $(shuf -i 20000-40000 -n 50); do
	ss -ltnH "sport = :$port" | grep -q . || break
done
CONSOLE=$HJ_TMP/console.log
qemu-system-x86_64 -accel tcg -m 4G -smp 2 -display none -monitor none \
	-serial "file:$CONSOLE" -no-reboot \
	-kernel "$RH_KERNEL" -initrd "$RH_INITRD" \
	-append "root=/dev/vda rw console=ttyS0 quiet systemd.unified_cgroup_hierarchy=1" \
	-drive "file=$RH_IMG,if=virtio,format=raw,snapshot=on" \
	-nic "user,model=virtio-net-pci,hostfwd=tcp:127.0.0.1:$port-:22" \
	</dev/null >"$HJ_TMP/qemu.log" 2>&1 &
QEMU=$!
HJ_PIDS+=("$QEMU")
SSHO=(-p "$port" -i "$RH_KEY" -o StrictHostKeyChecking=no
	-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes
	-o ConnectTimeout=20 -o ServerAliveInterval=10)
g() { timeout "${G_TIMEOUT:-300}" ssh "${SSHO[@]}" root@127.0.0.1 "$@"; }
gs() { g bash /root/guest.sh "$@"; } # a step of guest.sh
u() { local who=$1; shift; timeout 120 ssh "${SSHO[@]}" "$who@127.0.0.1" "$@"; }
# wait_some SECONDS STEP ARGS...: until guest.sh STEP counts at least one
wait_some() {
	local i
	for i in $(seq "$1"); do
		[ "$(gs "${@:2}" 2>/dev/null)" -ge 1 ] 2>/dev/null && return 0
		sleep 1
	done
	return 1
}
# wait_ssh TRIES: until the guest's sshd answers (boot, reload)
wait_ssh() {
	local i
	for i in $(seq "$1"); do
		kill -0 "$QEMU" 2>/dev/null || return 1
		g true 2>/dev/null && return 0
		sleep 2
	done
	return 1
}
if ! wait_ssh 150; then
	tail -n 30 "$CONSOLE" | sed 's/^/# console: /'
	cat "$HJ_TMP/qemu.log" | sed 's/^/# qemu: /'
	rh_die "the guest did not answer ssh"
fi
t_boot=$(($(date +%s) - t0 - t_image - t_debs))
if [ "${HIJACK_REALHOST_KEEP:-0}" != 1 ]; then
	# powered off from inside; killed if it does not stop
	HJ_CLEANUP=("g systemctl poweroff >/dev/null 2>&1; for _ in \$(seq 60); do kill -0 $QEMU 2>/dev/null || break; sleep 1; done" "${HJ_CLEANUP[@]}")
else
	HJ_PIDS=()
	diag "guest kept: ssh ${SSHO[*]} root@127.0.0.1 (qemu pid $QEMU)"
fi
like "guest: systemd is PID 1, only cgroup2 is mounted" \
	"$(g 'cat /proc/1/comm; findmnt -rn -t cgroup,cgroup2 -o FSTYPE | sort -u | tr "\n" " "')" \
	'^systemd
cgroup2 $'
like "guest: AppArmor is enabled" "$(g cat /sys/module/apparmor/parameters/enabled)" '^Y$'

g mkdir -p /root/debs
# shellcheck disable=SC2086
scp -q "${SSHO[@]/#-p/-P}" $debs root@127.0.0.1:/root/debs/ &&
	scp -q "${SSHO[@]/#-p/-P}" "$top_srcdir/README.md" "$top_srcdir/tests/realhost/guest.sh" \
		"$top_srcdir/tests/audit-collector.conf" root@127.0.0.1:/root/ ||
	rh_die "cannot copy into the guest"

# -- README steps 1-3, literally
out=$(gs step1_install 2>&1)
rc=$?
is "README step 1: apt install of this tree's .debs" "$rc" 0
[ $rc = 0 ] || echo "$out" | tail -n 5 | sed 's/^/# /'
like "hijack-shell has its file capabilities" "$(g getcap /usr/sbin/hijack-shell)" 'cap_sys_admin'
ex=$(grep -o '`/usr/share/doc/[^`]*/examples/`' "$top_srcdir/README.md" | head -n1 | tr -d '`')
check "README: runtimes.conf is where it says the package puts it ($ex)" \
	g test -f "${ex}runtimes.conf"
out=$(gs step2_sshd 2>&1)
rc=$?
is "README step 2: its sshd settings pass sshd -t and reload" "$rc" 0
# sshd re-executes itself on reload: connections are refused meanwhile
check "sshd answers again after the reload" wait_ssh 30
[ $rc = 0 ] || echo "$out" | tail -n 5 | sed 's/^/# /'
eff=$(gs sshd_effective "'subsystem|x11forwarding|allowtcpforwarding|allowagentforwarding|allowstreamlocalforwarding|permittunnel'" | sort | tr '\n' ';')
# TCP and agent forwarding stay on (Debian's defaults): the container's
is "README step 2: sshd takes every setting" "$eff" \
	"allowagentforwarding yes;allowstreamlocalforwarding no;allowtcpforwarding yes;permittunnel no;subsystem sftp /usr/lib/openssh/sftp-server;x11forwarding no;"
like "README step 2: pam_hijack after pam_systemd in /etc/pam.d/sshd" \
	"$(g "grep -nE '^(account|session)[[:space:]]+required[[:space:]]+pam_hijack|^@include common-(account|session)' /etc/pam.d/sshd | cut -d: -f2- | tr -s ' \t' ' ' | tr '\n' ';'")" \
	'^@include common-account;account required pam_hijack.so admin_group=sudo;@include common-session;session required pam_hijack.so;$'
out=$(gs step3_rootfs 2>&1)
rc=$?
is "README step 3: the rootfs recipe runs without an error" "$rc" 0
[ $rc = 0 ] || echo "$out" | tail -n 3 | sed 's/^/# /'
check "README step 3: busybox installed its applets in usr/bin and sbin" \
	g test -L /srv/web1/rootfs/usr/bin/env -a -L /srv/web1/rootfs/sbin/ifconfig

users=""
for rt in $RUNTIMES; do users="$users rh$rt"; done
# the playbook's team member (runc's container)
case " $RUNTIMES " in *" runc "*) users="$users rhans" ;; esac
# shellcheck disable=SC2086
gs rootfs_extras $users >/dev/null 2>&1 || rh_die "cannot set up the users"
echo "payload-$$" >"$HJ_TMP/payload"
case " $RUNTIMES " in
*" rootless "*) WHERE[rootless]=$(gs rt_rootless_where) ;;
esac
# the README's own rule and hostname for its docker and nspawn rows
WHERE[docker]=$(gs readme_where docker)
HOSTNAME_[docker]=$(gs readme_hostname "'docker run -d'")
WHERE[nspawn]=$(gs readme_where systemd-nspawn)
HOSTNAME_[nspawn]=$(gs readme_hostname "'systemd-run --unit='")
for rt in docker nspawn; do
	like "README: the $rt row names a WHERE and a hostname" \
		"${WHERE[$rt]} ${HOSTNAME_[$rt]}" '^/[^ ]+ [^ ]+$'
done
case " $RUNTIMES " in
*" quadlet "*) FORM[quadlet]=${FORM[quadlet]/QUADLET/$(gs rt_quadlet_kind)} ;;
esac

# The session's view of itself, in the container's busybox sh
# (/proc/self: a child has the shell's namespaces, and may read its own
# links where the shell's are closed to it)
SELF='cat /proc/self/attr/current; for n in cgroup ipc mnt net pid uts user; do readlink /proc/self/ns/$n; done; cat /proc/self/cgroup; hostname'

# login_cases RT USER PID: everything a login must show, for one container
login_cases() {
	local rt=$1 who=$2 pid=$3 want got sid n rc f
	want=$(gs facts "$pid")
	got=$(u "$who" "$SELF" 2>&1)
	is "$rt: ssh $who cmd lands in the container's hostname" \
		"$(echo "$got" | tail -n1)" "${HOSTNAME_[$rt]}"
	# the session's own view of its AppArmor label (line 1) is not
	# compared: below a stacked AppArmor namespace (LXC's generated
	# profile) a task sees "unconfined"; the host's view is, below
	is "$rt: namespaces of the session = the init's" \
		"$(echo "$got" | sed -n 2,8p | tr '\n' ' ')" "$(echo "$want" | sed -n 2,8p | tr '\n' ' ')"
	is "$rt: /proc/self/cgroup of the session = the init's (in its cgroup ns)" \
		"$(echo "$got" | sed -n '9,$p' | sed '$d')" "$(echo "$want" | sed -n '9,$p' | sed '$d')"
	[ "$(echo "$got" | sed 1d)" = "$(echo "$want" | sed 1d)" ] && LANDED[$rt]=yes
	u "$who" 'exit 42'
	is "$rt: ssh cmd's exit status comes back" "$?" 42
	# the terminal: tty names it, and it is of the container's devpts
	# (the device of the container's /dev/pts, as its init sees it)
	got=$(printf '%s\n' hostname \
		'echo "T=$(tty) D=$(stat -Lc %d /proc/self/fd/0) P=$(stat -c %d /dev/pts)"' \
		'exit 7' | timeout 60 ssh -tt "${SSHO[@]}" "$who@127.0.0.1" 2>&1)
	rc=$?
	is "$rt: interactive pty (ssh -tt): the shell's exit status" "$rc" 7
	# (dash prints its prompt before the output; busybox sh echoes)
	like "$rt: interactive pty: the shell runs in the container" "$got" "^([\$#] )?${HOSTNAME_[$rt]}"$'\r'"?$"
	t=$(echo "$got" | grep -o 'T=/[^ ]* D=[0-9]* P=[0-9]*' | head -n1)
	like "$rt: interactive pty: tty prints /dev/pts/N" "$t" '^T=/dev/pts/[0-9]+ '
	n=$(g stat -c %d "/proc/$pid/root/dev/pts")
	is "$rt: interactive pty: the tty is of the container's devpts (dev $n)" \
		"$(echo "$t" | sed -n 's/.* D=\([0-9]*\) P=\([0-9]*\)$/\1 \2/p')" "$n $n"
	isnt "$rt: ... not of the host's devpts" "${n:-none}" "$(g stat -c %d /dev/pts)"
	TTY[$rt]="${t%% *}, the container's devpts"
	[ "$(echo "$t" | sed -n 's/.* D=\([0-9]*\) .*/\1/p')" = "$n" ] || TTY[$rt]="wrong: $t"
	f=/proc/$pid/root/home/$who
	# scp, sftp, rsync: sshd's and PAM's paths, the same for every
	# runtime; the runtimes added for their cgroup layout skip them
	[ "${LIGHT[$rt]:-}" = 1 ] || file_cases "$rt" "$who" "$f"
	forward_cases "$rt" "$who" "$pid"
	session_cases "$rt" "$who" "$pid" "$want"
}

# forward_cases RT USER PID: the login's TCP forwards are the container's
# network's (pam_hijack(8), Forwarding; README step 2 leaves forwarding
# on): -L reaches a server on the container's loopback, never the decoy
# on the guest's at the same port; -R listens in the container's network
# and not the guest's
forward_cases() {
	local rt=$1 who=$2 pid=$3 fp lp fwd out
	fp=$(gs fwd_port)
	if ! gs fwd_serve "$pid" "$fp" >/dev/null 2>&1; then
		not_ok "$rt: forwarding: the servers listen (container's and host's 127.0.0.1:$fp)"
		gs fwd_stop >/dev/null 2>&1
		return
	fi
	lp=$(free_tcp_port)
	timeout 120 ssh "${SSHO[@]}" -N -o ExitOnForwardFailure=yes \
		-L "127.0.0.1:$lp:127.0.0.1:$fp" "$who@127.0.0.1" </dev/null 2>/dev/null &
	fwd=$!
	for _ in $(seq 300); do ss -ltnH | grep -q "127.0.0.1:$lp " && break; sleep 0.1; done
	out=$(curl --noproxy '*' -s --max-time 30 "http://127.0.0.1:$lp/who")
	is "$rt: ssh -L lands in the container's network (its 127.0.0.1, not the host's)" "$out" container
	kill "$fwd" 2>/dev/null
	wait "$fwd" 2>/dev/null
	timeout 120 ssh "${SSHO[@]}" -N -o ExitOnForwardFailure=yes \
		-R "127.0.0.1:$((fp + 1)):127.0.0.1:9" "$who@127.0.0.1" </dev/null 2>/dev/null &
	fwd=$!
	for _ in $(seq 100); do
		[ "$(gs fwd_listens "$pid" "$((fp + 1))")" = "1 0" ] && break
		sleep 0.3
	done
	is "$rt: ssh -R listens in the container's network, not the host's" \
		"$(gs fwd_listens "$pid" "$((fp + 1))")" "1 0"
	kill "$fwd" 2>/dev/null
	wait "$fwd" 2>/dev/null
	gs fwd_stop >/dev/null 2>&1
}

# file_cases RT USER HOMEDIR: scp, sftp and rsync land in the container
file_cases() {
	local rt=$1 who=$2 f=$3
	scp -q "${SSHO[@]/#-p/-P}" "$HJ_TMP/payload" "$who@127.0.0.1:via-scp" 2>/dev/null
	is "$rt: scp lands in the container" "$(g cat "$f/via-scp" 2>&1)" "payload-$$"
	printf 'put %s via-sftp\n' "$HJ_TMP/payload" |
		sftp -q -b - "${SSHO[@]/#-p/-P}" "$who@127.0.0.1" >/dev/null 2>&1
	is "$rt: sftp lands in the container" "$(g cat "$f/via-sftp" 2>&1)" "payload-$$"
	rsync -q -e "ssh ${SSHO[*]}" "$HJ_TMP/payload" "$who@127.0.0.1:via-rsync" 2>/dev/null
	is "$rt: rsync lands in the container" "$(g cat "$f/via-rsync" 2>&1)" "payload-$$"
}

# session_cases RT USER PID WANT: pam_systemd, the label, the audit record
session_cases() {
	local rt=$1 who=$2 pid=$3 want=$4 n sid
	# pam_systemd: the session's scope while logged in, none after
	u "$who" 'sleep 299' >/dev/null 2>&1 &
	n=$!
	sid=
	for _ in $(seq 30); do
		sid=$(gs session_of "$who")
		[ -n "$sid" ] && break
		sleep 0.5
	done
	is "$rt: pam_systemd's session scope is active during the login" \
		"$( [ -n "$sid" ] && gs session_scope "$sid")" active
	is "$rt: AppArmor label of the session (the host's view) = the init's" \
		"$(gs label_of "$who")" "$(echo "$want" | sed -n 1p)"
	gs end_sleep "$who"
	wait "$n"
	is "$rt: ... and gone after logout" "$( [ -n "$sid" ] && gs session_gone "$who" "$sid")" gone
	n=$(gs audit_count "$pid" "${HOSTNAME_[$rt]}")
	like "$rt: VIRT_CONTROL op=start records name the container and its init ($n)" "$n" '^[1-9][0-9]*$'
}

# rootless_cases USER plain|keepid: rootless podman under the user's own
# user@.service, with no delegate= and no script: the ids as mapped,
# --check by the user and by root; once, delegate= ignored with a notice
rootless_cases() {
	local who=$1 mode=$2 uid want out since
	uid=$(g id -u "$who")
	want="0 0"
	[ "$mode" = keepid ] && want="$uid $(g id -g "$who")"
	is "rootless ($mode): the ids as mapped there" \
		"$(u "$who" 'id -u; id -g' 2>&1 | tr '\n' ' ')" "$want "
	out=$(g "cd / && runuser -u $who -- hijack-shell --check" 2>&1)
	like "rootless ($mode): --check by the user: their own user namespace, delegated" \
		"$(echo "$out" | grep -E '^(userns|cgroups):' | tr '\n' ';')" \
		"^userns: +$who's own \\(a rootless container\\).*;cgroups: +delegated to $who: joined;\$"
	like "rootless ($mode): --check by the user: no PROBLEM" "$(echo "$out" | tail -n1)" \
		'^RESULT: (ok|no problem in what could be read)'
	out=$(g hijack check "$who" 2>&1)
	like "rootless ($mode): --check by root: ids, RESULT: ok" \
		"$(echo "$out" | grep -E '^identity:|^RESULT' | tr '\n' ';')" \
		"^identity: +uid ${want% *} gid ${want#* } inside: .*;RESULT: ok;\$"
	[ "$mode" = keepid ] || return 0
	# delegate= where systemd runs: ignored, with a notice
	since=$(g "date '+%Y-%m-%d %H:%M:%S'")
	gs pam_session_opt add delegate=hijack.users >/dev/null
	is "rootless, delegate= on the session line: the login still lands" \
		"$(u "$who" hostname 2>&1)" "${HOSTNAME_[rootless]}"
	like "rootless, delegate=: ignored with a notice, as systemd runs" \
		"$(gs journal_grep "'$since'" "'delegate=hijack.users ignored: systemd runs here'")" \
		"user@.service delegates a cgroup to $who"
	check "rootless, delegate=: no hijack.users cgroup was made" \
		g test ! -e /sys/fs/cgroup/hijack.users
	gs pam_session_opt del delegate=hijack.users >/dev/null
}

# nsv1_cases USER PID: nspawn's legacy layout on pure cgroup2 (a named
# name=systemd v1 hierarchy that no mount on the host shows): what a
# login does there
nsv1_cases() {
	local who=$1 pid=$2 want got
	want=$(gs facts "$pid")
	got=$(u "$who" "$SELF" 2>&1)
	NSV1=$(gs cg_lines "$pid")
	diag "nsv1: the init's cgroups beside cgroup2: ${NSV1:-none}"
	is "nsv1: ssh $who cmd lands in the container's hostname" \
		"$(echo "$got" | tail -n1)" "${HOSTNAME_[nsv1]}"
	is "nsv1: namespaces of the session = the init's" \
		"$(echo "$got" | sed -n 2,8p | tr '\n' ' ')" "$(echo "$want" | sed -n 2,8p | tr '\n' ' ')"
	is "nsv1: the session's cgroup2 cgroup = the init's" \
		"$(echo "$got" | grep '^0::')" "$(echo "$want" | grep '^0::')"
	diag "nsv1: the session's cgroups beside cgroup2: $(echo "$got" | sed -n '/^[1-9][0-9]*:/p' | tr '\n' ' ')"
	[ "$(echo "$got" | sed 1d)" = "$(echo "$want" | sed 1d)" ] && LANDED[nsv1]=yes ||
		LANDED[nsv1]="cgroup2 and namespaces; not the named v1 hierarchy"
	u "$who" 'exit 42'
	is "nsv1: ssh cmd's exit status comes back" "$?" 42
}

# play NAME VARS...: the README's ansible-playbook command, from a copy of
# the example, with the test's inventory and teams (and PLAY_ARGS); its
# recap in PLAYED
play() {
	local name=$1 cmd
	shift
	printf '%s\n' "$@" >"$AD/teams.yml"
	cmd=$(readme_block 'in `teams[.]yml`:$')
	(cd "$AD" && eval "$cmd -e @extra.yml ${PLAY_ARGS:-}") >"$HJ_TMP/play-$name.log" 2>&1
	PLAY_RC=$?
	PLAYED=$(sed -n 's/^realhost *: //p' "$HJ_TMP/play-$name.log" | tr -s ' ')
}
ansible_cases() {
	local out rc cport sum tuid debs
	out=$(G_TIMEOUT=120 gs rt_runc_start 2>&1)
	out=$(gs ans_reset 2>&1)
	rc=$?
	check "ansible: sshd answers after README steps 1 and 2 are undone" wait_ssh 30
	like "ansible: ... no package, no PAM line left" \
		"$( [ $rc = 0 ] && gs ans_state rhans | sed -n 1,2p | tr '\n' ' ')" '^packages: (pn ?)* pam: 0 $'
	AD=$HJ_TMP/ansible
	# (pipelining: fewer round trips to the TCG guest; README's command as is)
	export ANSIBLE_LOCAL_TEMP=$HJ_TMP/ansible-tmp ANSIBLE_NOCOLOR=1 ANSIBLE_PIPELINING=1
	cp -r "$top_srcdir/conf/examples/ansible" "$AD"
	printf 'realhost ansible_host=127.0.0.1 ansible_port=%s ansible_user=root ansible_ssh_private_key_file=%s ansible_ssh_common_args="-o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null"\n' \
		"$port" "$RH_KEY" >"$AD/hosts"
	cport=$(gs fwd_port)
	# this tree's packages, in ls's order (the playbook installs libpam-hijack
	# first, as hijack depends on it)
	debs=$(ls "$HJ_TMP"/deb/libpam-hijack_*.deb "$HJ_TMP"/deb/hijack_*.deb | sed 's/.*/  - "&"/')
	printf 'hijack_debs:\n%s\nhijack_tlog: true\nhijack_audit_collector: 127.0.0.1\nhijack_audit_port: %s\n' \
		"$debs" "$cport" >"$AD/extra.yml"
	check "ansible: an audit collector listens on the guest's loopback (port $cport)" \
		gs ans_collector "$cport"
	TEAM=("hijack_teams:" "  - name: web" "    rules:"
		"      - {who: rhans, where: /ctr/web1, options: name=web-runc}"
		"    users: [rhans]")
	play first "${TEAM[@]}"
	is "ansible: README's command runs the playbook (exit status)" "$PLAY_RC" 0
	like "ansible: ... and it changed the host" "$PLAYED" '^ok=[0-9]+ changed=[1-9][0-9]* unreachable=0 failed=0 '
	[ "$PLAY_RC" = 0 ] || tail -n 20 "$HJ_TMP/play-first.log" | sed 's/^/# /'
	is "ansible: the packages, the PAM lines, tlog and audisp-remote as README says" \
		"$(gs ans_state rhans | tr '\n' ';')" \
		"packages: ii ii ;pam: 2;shell: /usr/bin/tlog-rec-session;tlog: _tlog _tlog 6755 /usr/bin/tlog-rec-session 6755 _tlog;au-remote: yes;journald: [Journal] RateLimitBurst=0 ;"
	like "ansible: the PAM lines are README step 2's, where it puts them" \
		"$(g "grep -nE '^(account|session)[[:space:]]+required[[:space:]]+pam_hijack|^@include common-(account|session)' /etc/pam.d/sshd | cut -d: -f2- | tr -s ' \t' ' ' | tr '\n' ';'")" \
		'^@include common-account;account required pam_hijack.so admin_group=sudo;@include common-session;session required pam_hijack.so;$'
	is "ansible: sshd takes the drop-in's settings" \
		"$(gs sshd_effective "'x11forwarding|allowstreamlocalforwarding|permittunnel'" | sort | tr '\n' ';')" \
		"allowstreamlocalforwarding no;permittunnel no;x11forwarding no;"
	like "ansible: hijack check rhans" "$(g hijack check rhans 2>&1 | tail -n1)" '^RESULT: ok'
	check "ansible: the package put the playbook where README says" \
		g cmp -s /usr/share/doc/libpam-hijack/examples/ansible/hijack.yml /dev/stdin <"$AD/hijack.yml"
	# (tlog loses a command's output when its stdin ends first: README;
	# its notice is on stderr.  The sleep holds stdin open; the login
	# does not wait for it to end.)
	is "ansible: rhans's login lands in the container, through tlog" \
		"$(u rhans hostname 2>/dev/null < <(sleep 15 2>/dev/null))" web-runc
	check "ansible: audisp-remote sent the login's VIRT_CONTROL record to the collector" \
		wait_some 30 ans_collected web-runc
	gs ans_collector_stop
	sum=$(gs ans_sum /etc/security/hijack.conf.d/web.conf)
	play second "${TEAM[@]}"
	like "ansible: a second run changes nothing" "$PLAY_RC $PLAYED" '^0 ok=[0-9]+ changed=0 unreachable=0 failed=0 '
	[ "$PLAY_RC" = 0 ] || tail -n 20 "$HJ_TMP/play-second.log" | sed 's/^/# /'
	# a team file with a typo: validate= stops it, the one in place stays
	# (README's --tags teams from here: only the teams are pushed)
	PLAY_ARGS="--tags teams" play broken "hijack_teams:" "  - name: web" "    rules:" \
		"      - {who: rhans, where: /ctr/web1, options: name=web-runc shel=/bin/sh}" \
		"    users: [rhans]"
	isnt "ansible: a broken team file fails the play" "$PLAY_RC" 0
	like "ansible: ... hijack check-conf names the line" "$(cat "$HJ_TMP/play-broken.log")" \
		":3: unknown option 'shel'"
	is "ansible: ... the installed drop-in is unchanged" \
		"$(gs ans_sum /etc/security/hijack.conf.d/web.conf)" "${sum:-no drop-in}"
	is "ansible: ... and logins still land" "$(u rhans hostname 2>/dev/null < <(sleep 15 2>/dev/null))" web-runc
	# the same file put there by other means: the mapped login is refused
	g "printf 'rhans /ctr/web1 name=web-runc shel=/bin/sh\n' >/etc/security/hijack.conf.d/hand.conf"
	since=$(g "date '+%Y-%m-%d %H:%M:%S'")
	out=$(u rhans hostname 2>&1 < <(sleep 15 2>/dev/null))
	rc=$?
	is "ansible: a broken drop-in written by hand refuses the mapped login" \
		"exit $([ $rc = 0 ] && echo 0 || echo non-0), $(echo "$out" | grep -cxE 'web-runc|realhost') in it" \
		"exit non-0, 0 in it"
	like "ansible: ... pam_hijack names the file and line" \
		"$(gs journal_grep "'$since'" "'hand.conf:1: unknown option'")" "hand.conf:1: unknown option 'shel'"
	g rm -f /etc/security/hijack.conf.d/hand.conf
	# a team dropped from the list: its drop-in goes, the admin's own stays
	g "printf '# mine\n' >/etc/security/hijack.conf.d/local.conf"
	PLAY_ARGS="--tags teams" play dropped "hijack_teams: []"
	is "ansible: a team no longer listed: its drop-in is removed, the admin's stays" \
		"$PLAY_RC $(g ls /etc/security/hijack.conf.d | tr '\n' ' ')" "0 local.conf "
	gs rt_runc_stop >/dev/null 2>&1
}

t1=$(date +%s)
# part NAME: the time since the last part ended is NAME's (the time line)
T_PART=()
part_t=$t1
part() {
	T_PART+=("$1 $(($(date +%s) - part_t))s")
	part_t=$(date +%s)
}
for rt in $RUNTIMES; do
	who=rh$rt
	trt=$(date +%s)
	LANDED[$rt]=no
	# a start that keeps ssh's descriptors (the README's runc line once
	# did) hangs the login: 120 s, then a failure
	out=$(G_TIMEOUT=120 gs "rt_${rt}_start" 2>&1)
	rc=$?
	pid=$(gs "rt_${rt}_pid" 2>/dev/null)
	if [ $rc != 0 ] || [ -z "$pid" ]; then
		not_ok "$rt: the container starts: $(echo "$out" | tail -n 2 | tr '\n' ' ')"
		continue
	fi
	ok "$rt: the container starts (init pid $pid, cgroup $(g cat /proc/"$pid"/cgroup | sed -n 's/^0:://p'))"
	gs rule "$who" "${WHERE[$rt]}" "${HOSTNAME_[$rt]}"
	like "$rt: hijack check $who" "$(g hijack check "$who" 2>&1 | tail -n1)" '^RESULT: ok'
	case $rt in
	nsv1) nsv1_cases "$who" "$pid" ;;
	*) login_cases "$rt" "$who" "$pid" ;;
	esac
	[ "$rt" = rootless ] && rootless_cases "$who" plain
	[ "$rt" = lxc ] && like "lxc: systemd, the init, is in init.scope below the rule's cgroup" \
		"$(g cat /proc/"$pid"/cgroup)" "^0::${WHERE[lxc]}/init.scope\$"
	if [ "${RESTART[$rt]:-}" = 1 ]; then
		out=$(G_TIMEOUT=120 gs "rt_${rt}_restart" 2>&1)
		pid2=$(gs "rt_${rt}_pid" 2>/dev/null)
		isnt "$rt: restarted: a new init" "${pid2:-none}" "$pid"
		want=$(gs facts "${pid2:-0}")
		got=$(u "$who" "$SELF" 2>&1)
		is "$rt: the same rule lands in the restarted container" \
			"$(echo "$got" | sed 1d)" "$(echo "$want" | sed 1d)"
		[ "$(echo "$got" | sed 1d)" = "$(echo "$want" | sed 1d)" ] || LANDED[$rt]=no
		[ "${LANDED[$rt]}" = yes ] && LANDED[$rt]="yes, restarted too"
	elif [ "${RECREATE[$rt]:-}" = 1 ]; then
		gs "rt_${rt}_stop" >/dev/null 2>&1
		# rootless: the second container is --userns=keep-id
		out=$(gs "rt_${rt}_start" $([ "$rt" = rootless ] && echo keepid) 2>&1)
		pid2=$(gs "rt_${rt}_pid" 2>/dev/null)
		isnt "$rt: run again under the same name: a new init" "${pid2:-none}" "$pid"
		want=$(gs facts "${pid2:-0}")
		got=$(u "$who" "$SELF" 2>&1)
		is "$rt: the same rule lands in the new container" "$got" "$want"
		[ "$got" = "$want" ] || LANDED[$rt]=no
		[ "${LANDED[$rt]}" = yes ] && LANDED[$rt]="yes, twice"
		[ "$rt" = rootless ] && rootless_cases "$who" keepid
	fi
	gs "rt_${rt}_stop" >/dev/null 2>&1
	# removed: the same rule now refuses, never the host
	gs wait_down "$who" >/dev/null
	since=$(g "date '+%Y-%m-%d %H:%M:%S'")
	out=$(u "$who" hostname 2>&1)
	rc=$?
	is "$rt: removed: the same rule refuses the login" \
		"exit $([ $rc = 0 ] && echo 0 || echo non-0), $(echo "$out" | grep -cx "${HOSTNAME_[$rt]}") in it" \
		"exit non-0, 0 in it"
	like "$rt: ... pam_hijack says why" \
		"$(gs journal_grep "'$since'" "'cannot enter container ${HOSTNAME_[$rt]} (cgroup'")" \
		"refusing $who"
	part "$rt"
	diag "$rt: after removal ${WHERE[$rt]} $(gs where_left "${WHERE[$rt]}") ($(($(date +%s) - trt)) s)"
done
# a container whose /dev/pts is not a devpts (runc, a tmpfs there): the
# login goes on with a host pty, the documented message and record
case " $RUNTIMES " in
*" runc "*)
	out=$(G_TIMEOUT=120 gs rt_nopts_start 2>&1)
	pid=$(gs rt_nopts_pid 2>/dev/null)
	like "no devpts: runc with a tmpfs at /dev/pts starts" "${pid:-none}" '^[0-9]+$'
	gs rule rhrunc /ctr/web2 web-nopts
	got=$(printf '%s\n' 'echo "T=$(tty)"' 'exit 5' |
		timeout 60 ssh -tt "${SSHO[@]}" rhrunc@127.0.0.1 2>&1)
	rc=$?
	is "no devpts: the interactive login goes on (exit status)" "$rc" 5
	like "no devpts: the documented message" "$got" \
		'hijack-shell: container web-nopts has no devpts of its own at /dev/pts \(not-devpts\)'
	t=$(echo "$got" | grep -o 'T=not a tty' | head -n1)
	is "no devpts: tty says not a tty (a host pty)" "$t" "T=not a tty"
	like "no devpts: a VIRT_CONTROL op=pty record says why" \
		"$(gs audit_pty web-nopts)" '^reason="?host-pty:not-devpts'
	RUNTIMES="$RUNTIMES runc-nopts"
	WHERE[runc-nopts]=/ctr/web2
	FORM[runc-nopts]="linux.cgroupsPath, a tmpfs at /dev/pts"
	LANDED[runc-nopts]=$( [ "$rc" = 5 ] && echo yes || echo no)
	TTY[runc-nopts]="${t:-?}: the fallback message"
	gs rt_nopts_stop >/dev/null 2>&1
	;;
esac
part no-devpts
# tlog as README's "Replaying a session" sets it up, writing to this
# guest's journal, shipped as its "Recordings on a collector" says (the
# collector on the guest too); a forged entry never passes for one
case " $RUNTIMES " in
*" runc "*)
	out=$(G_TIMEOUT=120 gs rt_runc_start 2>&1)
	gs rule rhrunc /ctr/web1 web-runc
	out=$(gs rec_setup rhrunc 2>&1)
	like "recordings: README's tlog setup, then hijack check: RESULT: ok" "$out" "RESULT: ok"
	mark=typed-inside-$$
	# tlog drops what is typed before the session is up (README): type a
	# probe until the container's shell answers it (its output, 42, is
	# not the echo of what was typed), then the line to find
	mkfifo "$HJ_TMP/rec.in"
	timeout 150 ssh -tt "${SSHO[@]}" rhrunc@127.0.0.1 <"$HJ_TMP/rec.in" >"$HJ_TMP/rec.out" 2>&1 &
	n=$!
	exec 7>"$HJ_TMP/rec.in"
	for _ in $(seq 60); do
		echo 'echo up-$((6 * 7))' >&7
		sleep 2
		grep -q 'up-42' "$HJ_TMP/rec.out" && break
	done
	echo "echo $mark; hostname" >&7
	sleep 3
	echo exit >&7
	exec 7>&-
	wait "$n"
	got=$(cat "$HJ_TMP/rec.out")
	like "recordings: an interactive session through tlog lands in the container" \
		"$(tr -d '\r' <<<"$got")" "^web-runc$"
	tuid=$(g id -u rhrunc)
	out=$(gs rec_ship 2>&1)
	is "recordings: README's collector and uploader start" "$?" 0
	[ -n "$out" ] && diag "$(tail -n 3 <<<"$out")"
	gs rec_forge rhrunc "$mark" >/dev/null 2>&1
	id=
	for _ in $(seq 90); do
		id=$(gs rec_replay rhrunc "$mark" "$tuid" 2>/dev/null) && break
		sleep 1
	done
	like "recordings: on the collector, README's search finds the session" "${id:-none}" '^[0-9a-f-]+$'
	play=$(gs rec_play rhrunc "${id:-none}" "$tuid" 2>&1)
	like "recordings: tlog-play on the collector replays it: the container's hostname" "$play" "web-runc"
	like "... and what was typed" "$play" "$mark"
	check "recordings: another user's forged entry reached the collector too" \
		wait_some 30 rec_any_forged
	is "... which a search by TLOG_USER alone lists" "$(gs rec_unfiltered rhrunc)" 1
	is "... and README's search (_UID, _EXE) does not" "$(gs rec_forged_seen rhrunc "$tuid")" 0
	# cut short: a flood of output past journald's rate limit (lowered to
	# what this slow guest can reach) loses the rest of the recording,
	# what is typed after it included, unless README's RateLimitBurst=0
	# is there; 4 MB is about 1950 messages of tlog's 2 KiB
	for b in low readme; do
		gs rec_budget "$b" >/dev/null 2>&1
		since=$(g date +%s)
		# stdin held open until the login ends (tlog), not 30 s more
		u rhrunc "head -c 4000000 /dev/zero | tr '\\0' x; echo" >/dev/null 2>&1 < <(sleep 30 2>/dev/null)
		# journald may still be writing: counted until two counts 3 s
		# apart agree, for at most 30 s
		FLOOD[$b]=-1
		for i in $(seq 10); do
			sleep 3
			n=$(gs rec_count "$tuid" "$since")
			[ "$n" = "${FLOOD[$b]}" ] && break
			FLOOD[$b]=$n
		done
	done
	gs rec_budget_end >/dev/null 2>&1
	check "recordings: a flood past journald's limit cuts the recording short (${FLOOD[low]} of about 1950 messages kept)" \
		test "${FLOOD[low]:-0}" -lt 975
	check "... and README's RateLimitBurst=0 keeps it whole (${FLOOD[readme]} of about 1950)" \
		test "${FLOOD[readme]:-0}" -ge 1850
	gs rt_runc_stop >/dev/null 2>&1
	;;
esac
part recordings
# README's "Configuration from Ansible": the example playbook, run from
# here as README says, on this guest with README steps 1 and 2 undone;
# its team maps rhans into runc's container, with tlog and audisp-remote
case " $RUNTIMES " in
*" runc "*) ansible_cases ;;
esac
part ansible
# podman 4.3's `generate systemd --new` unit as it comes: the container
# is outside the unit's cgroup, and the rule naming the unit refuses
case " $RUNTIMES " in
*" quadlet "*)
	out=$(G_TIMEOUT=120 gs rt_quadlet0_start 2>&1)
	pid=$(gs rt_quadlet0_pid 2>/dev/null)
	like "quadlet, generate systemd as it comes: the container runs outside the unit" \
		"$(g cat /proc/"${pid:-0}"/cgroup 2>&1 | grep '^0::')" '^0::/machine\.slice/libpod-[0-9a-f]+\.scope/container$'
	gs rule rhquadlet /system.slice/webquad0.service web-quad0
	out=$(g hijack check rhquadlet 2>&1)
	like "quadlet, generate systemd as it comes: --check names the problem" \
		"$(echo "$out" | grep PROBLEM | head -n1)" 'holds no container'
	out=$(u rhquadlet hostname 2>&1)
	rc=$?
	is "quadlet, generate systemd as it comes: the login is refused" \
		"exit $([ $rc = 0 ] && echo 0 || echo non-0), $(echo "$out" | grep -c '^web-quad0$') in it" \
		"exit non-0, 0 in it"
	RUNTIMES="$RUNTIMES quadlet0"
	WHERE[quadlet0]=/system.slice/webquad0.service
	FORM[quadlet0]="podman generate systemd --new, unchanged (--cgroups=no-conmon)"
	LANDED[quadlet0]=$( [ $rc != 0 ] && echo "refused, holds no container" || echo "landed?")
	gs rt_quadlet0_stop >/dev/null 2>&1
	;;
esac
part quadlet0
t_cases=$(($(date +%s) - t1))

diag "runtime | rule (WHERE) | form | landed | tty"
for rt in $RUNTIMES; do
	diag "$rt | ${WHERE[$rt]} | ${FORM[$rt]} | ${LANDED[$rt]:-not run} | ${TTY[$rt]:-not run}"
done
diag "time: image ${t_image}s, debs ${t_debs}s, boot ${t_boot}s, README+setup $((t1 - t0 - t_image - t_debs - t_boot))s, cases ${t_cases}s ($(IFS=,; echo "${T_PART[*]}" | sed 's/,/, /g'))"
done_testing
