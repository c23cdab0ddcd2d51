#!/bin/bash
# End to end: a private sshd on 127.0.0.1 with pam_hijack in its own PAM
# service, users whose login shell is hijack-shell, real containers, a
# real auditd.  Every ssh path (interactive pty, ssh cmd, scp both modes,
# rsync, sftp via an external sftp-server) must land inside the mapped
# container, and nothing may land on the host that should not.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh scp sftp rsync auditctl ausearch python3 setcap
D=$HJ_TMP/ssh
mkdir -p "$D"
id=$$
U1=hjt1$id U2=hjt2$id U3=hjt3$id U4=hjt4$id U5=hjt5$id U6=hjtc$id G=hjtg$id

hj_shell_install "$D"
hj_conf_take

hj_auditd "$D"

# -- containers: web1 (users), web2 (group), with ssh tools inside
mkroot() { # DIR HOSTNAME
	make_rootfs "$1" "$2"
	copy_bin "$1" /usr/lib/openssh/sftp-server
	copy_bin "$1" /usr/bin/rsync
	copy_bin "$1" /usr/bin/scp
	cp "$top_builddir/tests/helpers/hj-tiocsti" "$1/bin/"
	for u in $U1 $U2 $U5; do
		rootfs_add_user "$1" "$u"
		mkdir -p "$1/home/$u"
		chown "$(id -u $u):$(id -g $u)" "$1/home/$u"
	done
	chmod 1777 "$1/tmp"
}
U="$top_srcdir/tests/users.sh"
"$U" groupadd "$G" >/dev/null
HJ_CLEANUP+=("'$U' del $U1 $U2 $U3 $U4 $U5 $U6 $G >/dev/null 2>&1")
"$U" useradd "$U1" -M -s "$HS" >/dev/null
"$U" useradd "$U2" -M -s "$HS" -G "$G" >/dev/null
"$U" useradd "$U3" -M -s /bin/bash -d "$D/home3" >/dev/null
"$U" useradd "$U4" -M -s "$HS" >/dev/null
"$U" useradd "$U5" -M -s "$HS" >/dev/null
"$U" useradd "$U6" -M -s "$HS" >/dev/null
for u in $U1 $U2 $U3 $U4 $U5 $U6; do
	usermod -p '*' -d "$D/home-$u" "$u"
	mkdir -p "$D/home-$u"
done
mkroot "$HJ_TMP/r1" web1
mkroot "$HJ_TMP/r2" web2
# web1 has a devpts of its own, as every runtime mounts one; web2's
# /dev/pts is a tmpfs faking one (hijack-shell(8): the host's pty then)
rootfs_pts "$HJ_TMP/r1" devpts
rootfs_pts "$HJ_TMP/r2" tmpfs
CT_WRAP=/bin/pts-init ct_start web1 web1 "$HJ_TMP/r1" || bail_out "container web1"
I1=$CT_INIT
CT_WRAP=/bin/pts-init ct_start web2 web2 "$HJ_TMP/r2" || bail_out "container web2"
I2=$CT_INIT
cg_create stopped
# a cgroup that holds only a host process (one a user moved there)
host_in_cgroup hostonly || bail_out "hostonly"

cat > "$CONF" <<EOF
# e2e-ssh.sh
$U1	$HJ_RUN/web1
@$G	$HJ_RUN/web2
$U5	$HJ_RUN/stopped	name=stopped1
$U6	$HJ_RUN/hostonly	name=hostonly1	stopped=host
EOF
chmod 644 "$CONF"

# -- a private sshd: its own PAM service through the argv[0] name
SSHD_EXTRA="PermitUserEnvironment yes
AcceptEnv HIJACK_* LD_* LANG"
sshd_start "$D" $U1 $U2 $U3 $U4 $U5 $U6

# -- ssh host cmd
is "ssh cmd: hostname is the container's" "$(s $U1 hostname)" web1
s $U1 'exit 42'
is "ssh cmd: exit status passes through (42)" "$?" 42
for ns in mnt uts ipc net pid cgroup; do
	is "ssh cmd: $ns namespace is the container's" "$(s $U1 readlink /proc/self/ns/$ns)" "$(ns_of "$I1" $ns)"
done
is "ssh cmd: pid 1 is the container's init" "$(s $U1 cat /proc/1/comm)" sleep
is "ssh cmd: / is the container's root" "$(s $U1 cat /etc/hijack-marker)" "container-rootfs web1"
is "ssh cmd: /proc/self/cgroup is the container's root on every hierarchy" \
	"$(s $U1 cat /proc/self/cgroup | grep -vc ':/$')" 0
echo "host secret" > "$D/host-secret"; chmod 644 "$D/host-secret"
s $U1 "cat $D/host-secret" >/dev/null 2>&1
isnt "ssh cmd: the host's files are not visible" "$?" 0
like "ssh cmd: the host's processes are not visible" "$(s $U1 'ls /proc | grep -c "^[0-9]"')" "^[1-9]$"
is "ssh cmd: only the container's loopback in its network namespace" \
	"$(s $U1 'ls /sys/class/net 2>/dev/null || tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "')" lo
is "ssh cmd: the user is who logged in" "$(s $U1 id -u)" "$(id -u $U1)"
is "ssh cmd: cwd is the user's home in the container" "$(s $U1 pwd)" "/home/$U1"
st=$(s $U1 "grep -E '^(CapInh|CapPrm|CapEff|CapAmb)' /proc/self/status" | awk '{print $2}' | sort -u)
is "ssh cmd: no capability left in the session" "$st" 0000000000000000
is "ssh cmd: real, effective, saved uid are the user's" \
	"$(s $U1 "awk '/^Uid:/ {print \$2, \$3, \$4}' /proc/self/status")" "$(id -u $U1) $(id -u $U1) $(id -u $U1)"
is "ssh cmd: no fd beyond 0-2 reaches the container (besides ls's own)" \
	"$(s $U1 ls /proc/self/fd | sort -n | tr '\n' ' ')" "0 1 2 3 "
is "ssh cmd: environment is rebuilt" "$(s $U1 'echo $HOME:$USER:$LOGNAME:$SHELL:$HIJACK_CONTAINER')" \
	"/home/$U1:$U1:$U1:/bin/sh:web1"

# find the session's processes: the command inside the container's pid
# namespace, and its waiting parent on the host (the hijack-shell it
# descends from, not another session's) once that parent has re-executed
# itself to wait and set itself up (main() begins by making it
# non-dumpable, so its /proc files turn root's): a login that is
# slow to get there (ASan, a loaded machine) is waited for, not
# mistaken for the waiter
session_procs() { # PATTERN
	local p end=$((SECONDS + 8))
	parent="" inner=""
	while [ "$SECONDS" -lt "$end" ]; do
		inner=$(pgrep -f "$1" | while read -r p; do
			[ "$(ns_of "$p" pid)" = "$(ns_of "$I1" pid)" ] && echo "$p"; done | head -n1)
		parent=""
		p=$inner
		while [ -n "$p" ] && [ "$p" -gt 1 ]; do
			p=$(awk '/^PPid:/ {print $2}' "/proc/$p/status" 2>/dev/null)
			if [ "$(cat "/proc/$p/comm" 2>/dev/null)" = hijack-shell ]; then
				parent=$p
				break
			fi
		done
		if [ -n "$parent" ] &&
			tr '\0' ' ' < "/proc/$parent/cmdline" | grep -q -- '--wait-for-child' &&
			[ "$(stat -c %u "/proc/$parent/status")" = 0 ]; then
			return 0
		fi
		sleep 0.1
	done
	[ -n "$parent" ] && [ -n "$inner" ]
}

# -- the waiting parent on the host holds nothing either
s $U1 'sleep 20' &
bg=$!
if session_procs '^sleep 20$'; then
	is "session parent on the host: CapEff 0" "$(awk '/^CapEff/ {print $2}' /proc/$parent/status)" 0000000000000000
	is "session parent on the host: CapPrm 0" "$(awk '/^CapPrm/ {print $2}' /proc/$parent/status)" 0000000000000000
	# it re-executed itself to wait: still not ptraceable by the user
	# (a non-dumpable task's /proc files are root's), no way back to the
	# file capabilities, nothing of the user's environment, no fd but 0-2
	is "session parent on the host: not dumpable" "$(stat -c %u /proc/$parent/status)" 0
	is "session parent on the host: NoNewPrivs" "$(awk '/^NoNewPrivs/ {print $2}' /proc/$parent/status)" 1
	is "session parent on the host: empty environment" "$(tr '\0' '\n' < /proc/$parent/environ | wc -l)" 0
	is "session parent on the host: fds 0-2 only" "$(ls /proc/$parent/fd | sort -n | tr '\n' ' ')" "0 1 2 "
	is "session process sits in the container's cgroups (host view)" "$(cat /proc/$inner/cgroup)" "$(cat /proc/$I1/cgroup)"
	# the small waiter (hijack-shell-wait: libc alone), not hijack-shell
	is "session parent on the host runs the waiter" "$(readlink /proc/$parent/exe)" "$WAITER"
	is "... named hijack-shell" "$(cat /proc/$parent/comm)" hijack-shell
	# (a sanitized build maps its runtimes and what they need too)
	libs=$(awk '$6 ~ /\.so/ { n = $6; sub(/.*\//, "", n); print n }' "/proc/$parent/maps" |
		sort -u | grep -v -e '^libc\.so' -e '^ld-linux')
	grep -qE '^lib(a|ub)san\.so' <<<"$libs" &&
		libs=$(grep -Ev '^lib(asan|ubsan|m|gcc_s|stdc\+\+)\.so' <<<"$libs")
	is "... which maps no library but libc and the dynamic loader" "$(tr '\n' ' ' <<<"$libs")" " "
	diag "session parent private memory: $(awk '/^Private_(Clean|Dirty)/ {s += $2} END {print s}' /proc/$parent/smaps_rollup) KiB"
else
	not_ok "found the session's processes (parent '$parent', inner '$inner')"
fi
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null

# -- without the waiter installed (a copy of hijack-shell from the build
# tree), hijack-shell waits itself, as confined
mkdir -p "$D/nowaiter"
mount --bind "$D/nowaiter" "$(dirname "$WAITER")"
s $U1 'sleep 21' &
bg=$!
if session_procs '^sleep 21$'; then
	is "no waiter installed: the session parent is hijack-shell itself" "$(readlink /proc/$parent/exe)" "$HS"
	is "... without capabilities" "$(awk '/^CapPrm/ {print $2}' /proc/$parent/status)" 0000000000000000
	is "... under no_new_privs" "$(awk '/^NoNewPrivs/ {print $2}' /proc/$parent/status)" 1
	is "... with fds 0-2 only" "$(ls /proc/$parent/fd | sort -n | tr '\n' ' ')" "0 1 2 "
else
	not_ok "no waiter installed: found the session's processes (parent '$parent', inner '$inner')"
fi
kill "$bg" 2>/dev/null; wait "$bg" 2>/dev/null
is "... and its exit status reaches the client" "$(s $U1 'exit 9'; echo $?)" 9
umount "$(dirname "$WAITER")"

# -- stdin/stdout byte-exact
head -c 50000000 /dev/urandom > "$D/blob"
is "50 MB through cat inside is byte-exact" "$(s $U1 cat < "$D/blob" | sha256sum | cut -d' ' -f1)" \
	"$(sha256sum < "$D/blob" | cut -d' ' -f1)"
rm -f "$D/blob"

# -- file transfer lands in the container's filesystem
echo "payload-$id" > "$D/payload"
scp -q -P "$PORT" "${SSHO[@]}" "$D/payload" "$U1@127.0.0.1:sftp-mode" 2>/dev/null
is "scp (sftp protocol): file lands in the container" "$(cat "$HJ_TMP/r1/home/$U1/sftp-mode" 2>/dev/null)" "payload-$id"
scp -O -q -P "$PORT" "${SSHO[@]}" "$D/payload" "$U1@127.0.0.1:legacy-mode" 2>/dev/null
is "scp -O (legacy protocol): file lands in the container" "$(cat "$HJ_TMP/r1/home/$U1/legacy-mode" 2>/dev/null)" "payload-$id"
rsync -q -e "ssh -p $PORT ${SSHO[*]}" "$D/payload" "$U1@127.0.0.1:via-rsync" 2>/dev/null
is "rsync over ssh: file lands in the container" "$(cat "$HJ_TMP/r1/home/$U1/via-rsync" 2>/dev/null)" "payload-$id"
printf 'put %s via-sftp\nget /etc/hijack-marker %s\n' "$D/payload" "$D/got" |
	sftp -q -b - -P "$PORT" "${SSHO[@]}" "$U1@127.0.0.1" >/dev/null 2>&1
is "sftp (external sftp-server): put lands in the container" "$(cat "$HJ_TMP/r1/home/$U1/via-sftp" 2>/dev/null)" "payload-$id"
is "sftp: get reads the container's files" "$(cat "$D/got" 2>/dev/null)" "container-rootfs web1"
is "none of the transfers touched the host's home" "$(ls -A "$D/home-$U1")" ""

# -- interactive: pty, window size, ^C, exit status
rc=$(python3 "$top_srcdir/tests/helpers/ptydrive.py" "$D/pty.out" -- ssh -tt -p "$PORT" "${SSHO[@]}" "$U1@127.0.0.1")
out=$(tr -d '\r' < "$D/pty.out")
like "interactive: the login shell runs inside" "$out" "M1:24 80:web1:M1"
like "interactive: a window size change reaches the container" "$out" "M2:40 132:M2"
like "interactive: ^C killed the container process, not the session" "$out" "M3:alive:130:M3"
check "interactive: the interrupted command did not continue" bash -c "! grep -q '^AFTER-SLEEP' <<<'$out'"
is "interactive: exit status of the session (3)" "$rc" 3

# TIOCSTI: the container's terminal is a pty of its own, not sshd's
s $U1 -tt 'sleep 5' >/dev/null 2>&1 &
bg=$!
if session_procs '^sleep 5$'; then
	# (device numbers alone may coincide: each devpts counts from 0)
	isnt "the container's terminal is not the host pty sshd allocated" \
		"$(stat -L -c %d:%t:%T /proc/$inner/fd/0)" "$(stat -L -c %d:%t:%T /proc/$parent/fd/0)"
	# the pty is the container's devpts's, and the host keeps its master
	pts_dev=$(stat -c %d "/proc/$I1/root/dev/pts")
	is "the session's pty is on the container's devpts (st_dev of /dev/pts)" \
		"$(stat -L -c %d /proc/$inner/fd/0)" "$pts_dev"
	extra=$(ls /proc/$parent/fd | grep -vx '[012]')
	is "the host side holds one fd beyond 0-2: the master, of the container's devpts" \
		"$(for f in $extra; do stat -L -c %d:%t:%T "/proc/$parent/fd/$f" 2>&1; done)" "$pts_dev:5:2"
else
	not_ok "found the pty session's processes"
fi
wait "$bg" 2>/dev/null
# tty(1) and ttyname(): the name is the container's and opens fd 0's pty
out=$(s $U1 -tt 'tty; stat -L -c %d:%i /proc/self/fd/0; stat -c %d:%i "$(tty)"; stat -c %d /dev/pts' 2>&1 | tr -d '\r')
like "inside a pty session, tty prints the container's /dev/pts/N" "$(sed -n 1p <<<"$out")" '^/dev/pts/[0-9]+$'
check "ttyname(): the name tty prints is the session's own terminal" \
	test -n "$(sed -n 2p <<<"$out")" -a "$(sed -n 2p <<<"$out")" = "$(sed -n 3p <<<"$out")"
is "the terminal's st_dev is the container's /dev/pts" \
	"$(sed -n 2p <<<"$out" | cut -d: -f1)" "$(sed -n 4p <<<"$out")"
# TIOCSTI reaches the session's own terminal, the container's pty: the
# line it pushes is read back by the session's shell, inside
rm -f "$HJ_TMP/r1/tmp/sti-own-$id" "/tmp/sti-own-$id"
s $U1 -tt "hj-tiocsti 'tty > /tmp/sti-own-$id
'; read -r line; eval \"\$line\"" >/dev/null 2>&1
like "TIOCSTI from inside lands in the session's own pty, the container's, not on the host" \
	"$(cat "$HJ_TMP/r1/tmp/sti-own-$id" 2>&1)$(test -e "/tmp/sti-own-$id" && echo ' and the host')" \
	'^/dev/pts/[0-9]+$'
s $U1 -tt "hj-tiocsti 'touch /tmp/injected-$id
'; sleep 1" >/dev/null 2>&1
check "TIOCSTI from inside does not reach the host" test ! -e "/tmp/injected-$id"

# -- a container whose /dev/pts is not a devpts (a tmpfs fake): the
# session gets a pty of the host, as documented, and is told why
out=$(s $U2 -tt 'hostname; tty' 2>&1 | tr -d '\r' | tr '\n' ' ')
like "/dev/pts a tmpfs: the login lands inside on a pty of the host (not a tty), told why" "$out" \
	"container web2 has no devpts of its own at /dev/pts \(not-devpts\).* web2 not a tty $"

# -- who goes where
is "group-mapped user lands in web2" "$(s $U2 hostname)" web2
is "unmapped user with a normal shell lands on the host" "$(s $U3 hostname)" "$(hostname)"
out=$(s $U4 hostname 2>&1)
rc=$?
isnt "unmapped user with hijack-shell is refused" "$rc" 0
isnt "unmapped user with hijack-shell never reaches a shell" "$out" "$(hostname)"
out=$(s $U5 hostname 2>&1)
rc=$?
isnt "user of a stopped container is refused" "$rc" 0
isnt "user of a stopped container never reaches a shell" "$out" "$(hostname)"
out=$(s $U6 hostname 2>&1)
rc=$?
isnt "a cgroup with only a host process (stopped=host): refused" "$rc" 0
isnt "... never a shell on the host" "$(tail -n1 <<<"$out")" "$(hostname)"

# -- forged environment changes nothing
out=$(ssh -p "$PORT" "${SSHO[@]}" -o "SetEnv=HIJACK_CGROUP=$HJ_RUN/web2 HIJACK_CONTAINER=evil LD_PRELOAD=/tmp/evil.so LANG=C" \
	"$U1@127.0.0.1" 'hostname; echo "$HIJACK_CONTAINER:${LD_PRELOAD-unset}:$LANG"')
is "forged HIJACK_*/LD_* via SetEnv/AcceptEnv change nothing" "$out" "web1
web1:unset:C"

# -- audit records of each login
sleep 1
rec=$(ausearch -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" 2>/dev/null)
like "audit: a start record into web1 with the init's pid" "$rec" "op=start.*vm=\"?web1\"?.*vm-pid=$I1"
like "audit: a deny record for the stopped container" "$rec" "op=deny.*vm=\"?stopped1\"?"
# this run's users only: another checkout's tests may write records too
is "audit: one pty record, for web2's host pty, saying why" \
	"$(grep 'op=pty' <<<"$rec" | grep -E "user=\"?hjt.$id\"? " | grep -o 'vm="[^"]*" .*reason="[^"]*"' | sed 's/ vm-pid.*reason=/ /')" \
	'vm="web2" "host-pty:not-devpts"'
like "audit: a deny record for the cgroup of host processes, saying why" "$rec" \
	"op=deny.*vm=\"?hostonly1\"?.*reason=\"?not-a-container"
# a caller no rule maps is refused without a record: any local user could
# run hijack-shell by hand and flood the audit log otherwise
if grep -Eq "user=\"?$U4\"?( |$)" <<<"$rec"; then
	not_ok "audit: a record for the unmapped hijack-shell user"
else
	ok "audit: no record for the unmapped hijack-shell user"
fi
rep=$(aureport --virt -ts "$TS_DAY" "$TS_TIME" 2>/dev/null)
like "aureport --virt lists the successful entries" "$rep" "VIRT_CONTROL yes"
like "aureport --virt lists the refusals" "$rep" "VIRT_CONTROL no"
like "audit: hijack-shell's own record of the entry, by its own exe" "$rec" "op=start.*vm=\"?web1\"?.*reason=\"?entry\"?.*exe=\"$HS\""

# -- the admin check
out=$(HIJACK_CHECK_SSHD_CONFIG=$D/sshd_config HIJACK_CHECK_PAM_SERVICE=$SVC hjcheck $U1)
rc=$?
like "--check finds pam_hijack in the service's stack" "$out" "pam_hijack is in /etc/pam.d/$SVC"
like "--check names the rule and line" "$out" "rule: +$CONF:2"
like "--check finds the container init" "$out" "task: +pid $I1 \(container init\)"
like "--check lists the namespaces that differ" "$out" "namespaces: mnt uts ipc net pid cgroup"
is "--check passes for a safe setup" "$rc" 0
sed -i 's|^Subsystem.*|Subsystem sftp internal-sftp|; s|^AllowTcpForwarding no|AllowTcpForwarding yes|' "$D/sshd_config"
out=$(HIJACK_CHECK_SSHD_CONFIG=$D/sshd_config HIJACK_CHECK_PAM_SERVICE=$SVC hjcheck $U1)
rc=$?
like "--check flags internal-sftp" "$out" "PROBLEM: sshd: 'Subsystem sftp internal-sftp'"
like "--check: TCP forwards are the container's (session step required)" "$out" \
	"forwarding: +allowtcpforwarding yes: from and into container .*'s network \(net:\[$(stat -L -c %i "/proc/$I1/ns/net")\]\)"
is "--check fails when a mapped user could reach the host" "$rc" 1
sed -i 's|^session required .*pam_hijack.*|session optional '"$MODULE"'|' "/etc/pam.d/$SVC"
out=$(HIJACK_CHECK_SSHD_CONFIG=$D/sshd_config HIJACK_CHECK_PAM_SERVICE=$SVC hjcheck $U1)
like "--check flags TCP forwarding without a required session step" "$out" \
	"PROBLEM: sshd: allowtcpforwarding yes: forwarding is done by sshd on the host"

done_testing
