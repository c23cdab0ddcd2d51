#!/bin/bash
# hijack-shell --check, one case per row of README's Troubleshooting table:
# each fault an admin can make gives the line the README quotes and the
# exit status it promises (1 when a mapped user could reach the host or
# be refused, 0 otherwise).  Private mount namespace, own hijack.conf,
# own cgroups (hjtest-PID), users hjtc*.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
for t in setcap ssh-keygen; do
	command -v $t >/dev/null 2>&1 || skip_all "no $t"
done
[ -x /usr/sbin/sshd ] || skip_all "no sshd"
D=$HJ_TMP/check
mkdir -p "$D"
hj_shell_install "$D"
hj_conf_take
U="$top_srcdir/tests/users.sh"
A=hjtc$$
"$U" useradd "$A" -M -s "$HS" >/dev/null
HJ_CLEANUP+=("'$U' del $A >/dev/null 2>&1")

# a safe sshd configuration, and a PAM service with pam_hijack
ssh-keygen -q -t ed25519 -N '' -f "$D/hostkey"
mkdir -p /run/sshd	# sshd -T refuses to run without it
safe="HostKey $D/hostkey
UsePAM yes
Subsystem sftp /usr/lib/openssh/sftp-server
AllowTcpForwarding no
AllowAgentForwarding no
AllowStreamLocalForwarding no
X11Forwarding no
PermitTunnel no"
echo "$safe" > "$D/sshd_config"
SVC=hjtest-check-$$
printf 'account required pam_hijack.so\nsession required pam_hijack.so\n' > "/etc/pam.d/$SVC"
HJ_CLEANUP+=("rm -f /etc/pam.d/$SVC")
export HIJACK_CHECK_SSHD_CONFIG=$D/sshd_config HIJACK_CHECK_PAM_SERVICE=$SVC

ct_start web1 web1 || bail_out "no container"
INIT=$CT_INIT
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
CG=$HJ_RUN/web1

rules() { printf '%s\n' "$@" > "$CONF"; chmod 644 "$CONF"; }
# chk DESC EXIT PATTERN: run --check A, its status and a line of output
chk() {
	local out rc
	out=$(hjcheck "$A" 2>&1); rc=$?
	is "$1: exit $2" "$rc" "$2"
	like "$1: says so" "$out" "$3"
	[ "$rc" = "$2" ] || printf '%s\n' "$out" | sed 's/^/# /'
}

rules "$A	$CG	name=web1"
chk "a safe setup" 0 "^RESULT: ok$"
out=$(hjcheck "$A")
like "names the rule and its line" "$out" "^rule: +$CONF:1$"
like "names the container's init" "$out" "^task: +pid $INIT \(container init\)"
like "names where the user's groups come from" "$out" "^groups: +$A \(files\)$"
like "hijack check: the host's side too (PAM)" "$out" "^pam: +pam_hijack is in /etc/pam.d/$SVC$"
# the file-capability shell checks only the container's side
out=$("$HS" --check "$A" 2>&1); rc=$?
is "hijack-shell --check (root): the container's side, exit 0" "$rc" 0
like "... names the init" "$out" "^task: +pid $INIT \(container init\)"
unlike "... no PAM line: not its business" "$out" "^pam:"
unlike "... no sshd line" "$out" "sshd"
like "... says who checks the rest" "$out" "^note: +the login shell, PAM and sshd are root's to check: hijack check $A$"
out=$(setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups -- "$HIJACK" --shell "$HS" check "$A" 2>&1); rc=$?
is "hijack check by a user: refused" "$rc:$out" \
	"1:hijack: only root may run hijack check; a user checks their own login with hijack-shell --check"
out=$("$HIJACK" --shell "$D/no-such-shell" check "$A" 2>&1); rc=$?
is "hijack check of a hijack-shell that is not there: refused" "$rc:$out" \
	"1:hijack: cannot find hijack-shell at $D/no-such-shell: No such file or directory"

rules "# a comment" "$A	$CG	shel=/bin/sh"
chk "unknown option" 1 "^PROBLEM: $CONF:2: unknown option 'shel'"
rules "$A	$CG	name=web1"
chmod 666 "$CONF"
chk "world-writable hijack.conf" 1 "^PROBLEM: $CONF: .*writable"
chmod 644 "$CONF"; chown 1:1 "$CONF"
chk "hijack.conf not root's" 1 "^PROBLEM: $CONF: owned by uid 1, not root"
chown 0:0 "$CONF"; mv "$CONF" "$CONF.real"; ln -s "$CONF.real" "$CONF"
chk "hijack.conf a symlink" 1 "^PROBLEM: $CONF: is a symbolic link"
rm -f "$CONF"; mv "$CONF.real" "$CONF"

rules "nobody	$CG"
chk "no rule for the user" 0 "^rule: +none in $CONF or $CONF\.d/\*\.conf: not routed"
chk "no rule, hijack-shell as shell" 0 "^warning: +the login shell is hijack-shell: every login is refused"

# hijack.conf.d: the rule's file and line; a broken drop-in, with its own
mkdir -m 755 "$CONF.d"
printf '# managed by Ansible\n%s\t%s\tname=web1\n' "$A" "$CG" > "$CONF.d/50-web.conf"
chmod 644 "$CONF.d/50-web.conf"
chk "a drop-in's rule" 0 "^rule: +$CONF\.d/50-web\.conf:2$"
printf 'x\n' > "$CONF.d/60-bad.conf"
chk "a broken drop-in" 1 "^PROBLEM: $CONF\.d/60-bad\.conf:1: missing cgroup or '-' after 'x'"
rm -r "$CONF.d"

rules "$A	$HJ_RUN/stopped	name=web9"
chk "container stopped (no cgroup)" 1 "^PROBLEM: container web9 is not running \(no such cgroup\): logins are refused"
rules "$A	$HJ_RUN/stopped	name=web9 stopped=host"
chk "container stopped, stopped=host" 1 "^PROBLEM: container web9 is not running \(no such cgroup\): logins are routed to the host"
cg_create empty
rules "$A	$HJ_RUN/empty	name=web8"
chk "empty cgroup" 1 "^PROBLEM: container web8 is not running \(no live task in cgroup $HJ_RUN/empty\): logins are refused"
rules "$A	$HJ_RUN/empty	name=web8 stopped=host"
chk "empty cgroup, stopped=host: refused, not the host" 1 "^PROBLEM: container web8 is not running \(no live task in cgroup $HJ_RUN/empty\): logins are refused"

if [ -n "$V2" ] && [ -e "$(cg_path "$V2" web1)/cgroup.freeze" ]; then
	rules "$A	$CG	name=web1"
	echo 1 > "$(cg_path "$V2" web1)/cgroup.freeze"
	sleep 0.2
	chk "frozen container" 1 "^PROBLEM: container web1 is frozen: logins are refused until it is thawed"
	echo 0 > "$(cg_path "$V2" web1)/cgroup.freeze"
else
	skip "frozen container" "kernel: no cgroup.freeze"
fi

# what a session would be confined to: an init confined as docker's are
out=$(hjcheck "$A")
like "an unconfined init: the host's bounding set, nothing else" "$out" \
	"^confinement: bounding set $(awk '/^CapBnd:/ { print $2 }' /proc/$INIT/status), no_new_privs no, seccomp none$"
make_rootfs "$D/rconf" conf
cp "$top_builddir/tests/helpers/hj-confined" "$D/rconf/bin/"
CT_WRAP="/bin/hj-confined -n -f 2" CT_COMM=sleep ct_start conf1 conf1 "$D/rconf" ||
	bail_out "conf1"
rules "$A	$HJ_RUN/conf1	name=conf1"
chk "an init with a bounding set, no_new_privs and two filters" 0 \
	"^confinement: bounding set 00000000a80425fb, no_new_privs yes, seccomp filters copied \(2\)$"
CT_WRAP="/bin/hj-confined -S" CT_COMM=hj-confined ct_start conf2 conf2 "$D/rconf" ||
	bail_out "conf2"
rules "$A	$HJ_RUN/conf2	name=conf2"
chk "an init in seccomp strict mode" 1 "^PROBLEM: container conf2: its init runs in seccomp strict mode: logins are refused$"
# the user's own check reads root's copy of the filters only: none yet
CT_WRAP="/bin/hj-confined -f 1" CT_COMM=sleep ct_start conf3 conf3 "$D/rconf" ||
	bail_out "conf3"
rules "$A	$HJ_RUN/conf3	name=conf3"
out=$(setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups -- "$HS" --check 2>&1)
like "the user's own check, no copy of the init's filters yet: says so" "$out" \
	"^cannot check: the seccomp filters of container conf3's init: no copy of the init's seccomp filters from a login's PAM session \(pam_hijack\) \(the next login makes it\)$"
chk "root's check makes the copy" 0 "^confinement: .* seccomp filters copied \(1\)$"
out=$(setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups -- "$HS" --check 2>&1)
like "... which the user's own check then reads" "$out" "^confinement: .* seccomp filters copied \(1\)$"
# an init parked in vfork() never stops for the copy
touch "$D/rconf/park"
CT_WRAP="/bin/hj-confined -f 1 -P /park" CT_COMM=hj-confined ct_start conf4 conf4 "$D/rconf" ||
	bail_out "conf4"
rules "$A	$HJ_RUN/conf4	name=conf4"
chk "an init that does not stop for the copy of its filters" 1 \
	"^PROBLEM: container conf4: the container's init did not stop for the copy of its seccomp filters within 10000 ms: logins are refused until it does$"
rm -f "$D/rconf/park"

# a host process in a cgroup of its own: no namespace differs
host_in_cgroup hostonly || bail_out "hostonly"
rules "$A	$HJ_RUN/hostonly	name=fake"
chk "a host cgroup, not a container" 1 "^PROBLEM: container fake \(cgroup $HJ_RUN/hostonly\): the cgroup holds no container, only host processes: logins are refused"
rules "$A	$HJ_RUN/hostonly	name=fake stopped=host"
chk "a host cgroup, stopped=host: refused, not the host" 1 "^PROBLEM: container fake \(cgroup $HJ_RUN/hostonly\): the cgroup holds no container, only host processes: logins are refused"

# mount and pid namespaces of its own, but the host's root directory
# (unshare without pivot_root or chroot): the session would see the
# host's files, so no container either
cg_create hostroot || bail_out "hostroot"
(
	for h in $(hj_hierarchies); do
		echo "$BASHPID" > "$(cg_path "$h" hostroot)/cgroup.procs" || exit 1
	done
	exec unshare --fork --pid --mount --uts --ipc --net --mount-proc \
		--propagation private sleep 1000000
) </dev/null >/dev/null 2>&1 &
HJ_PIDS+=("$!")
HR=$(wait_init "$!") || bail_out "hostroot init"
HJ_PIDS+=("$HR")
rules "$A	$HJ_RUN/hostroot	name=hr"
chk "own namespaces, the host's root: not a container" 1 "^PROBLEM: container hr \(cgroup $HJ_RUN/hostroot\): the cgroup holds no container, only host processes: logins are refused"

# the init in a child cgroup (systemd's init.scope): named with its cgroup
ct_start sysd/x sysd || bail_out "no container"
SI=$CT_INIT
cg_create sysd/init.scope
for h in $(hj_hierarchies); do echo "$SI" > "$(cg_path "$h" sysd/init.scope)/cgroup.procs"; done
rules "$A	$HJ_RUN/sysd	name=sysd stopped=host"
chk "an init in a child cgroup" 0 "^RESULT: ok$"
like "... names the init's cgroup" "$(hjcheck "$A")" "^task: +pid $SI \(container init\) in /.*/$HJ_RUN/sysd/init\.scope$"
ct_start sysd/y sysd2 || bail_out "no container"
chk "two containers in the subtree" 1 "^PROBLEM: container sysd \(cgroup $HJ_RUN/sysd\): the cgroup holds more than one container: logins are refused"

# a group rule whose group no database knows (deleted, or its directory
# down with nothing cached): refused, never skipped
rules "@hjtnosuch$$	$CG	name=web1" "*	-"
chk "a group rule no database knows" 1 "^PROBLEM: $CONF:1: cannot look up group hjtnosuch$$: no group database knows it \(or its directory is down\)"

rules "$A	$CG	name=web1"
usermod -s /bin/sh "$A"
chk "login shell not hijack-shell" 1 "^PROBLEM: login shell of $A is /bin/sh, not $HS: sessions land on the host"
usermod -s "$HS" "$A"

cp "$HS" "$D/hijack-shell-nocaps"
out=$("$D/hijack-shell-nocaps" --check "$A" 2>&1)
like "no file capabilities" "$out" "^privilege: +none \(enough only for containers the user owns\)"
like "file capabilities" "$(hjcheck "$A")" "^privilege: +$HS has file capabilities"

printf 'account required pam_unix.so\n' > "/etc/pam.d/$SVC"
like "pam_hijack missing from the service" "$(hjcheck "$A")" "^pam: +pam_hijack is NOT in /etc/pam.d/$SVC$"
printf 'account required pam_hijack.so\n' > "/etc/pam.d/$SVC"

sshd_bad() { # CONFIG-LINE PATTERN: the line instead of the safe one
	printf '%s\n%s\n' "$1" "$(grep -v "^${1%% *} " <<<"$safe")" > "$D/sshd_config"
	chk "sshd: $1" 1 "$2"
}
sshd_bad "Subsystem sftp internal-sftp" "^PROBLEM: sshd: 'Subsystem sftp internal-sftp' bypasses the login shell"
sshd_bad "AllowTcpForwarding yes" "^PROBLEM: sshd: allowtcpforwarding yes: forwarding is done by sshd on the host"
printf '%s\nAllowAgentForwarding yes\n' "$(grep -v AllowAgent <<<"$safe")" > "$D/sshd_config"
chk "sshd: agent forwarding, relayed into the container" 0 "^RESULT: ok$"
like "... says where the agent goes" "$(hjcheck "$A")" \
	"^forwarding: +allowagentforwarding yes: the agent is relayed to a socket of the session's in the container's /tmp$"
sshd_bad "X11Forwarding yes" "^PROBLEM: sshd: x11forwarding yes"
sshd_bad "AllowStreamLocalForwarding all" "^PROBLEM: sshd: allowstreamlocalforwarding (yes|all)"
sshd_bad "PermitTunnel yes" "^PROBLEM: sshd: permittunnel yes"
sshd_bad "ForceCommand /bin/true" "^PROBLEM: sshd: ForceCommand /bin/true"
sshd_bad "ForceCommand internal-sftp" "^PROBLEM: sshd: ForceCommand internal-sftp: bypasses the login shell"
sshd_bad "ChrootDirectory /srv" "^PROBLEM: sshd: ChrootDirectory /srv hides the login shell"
sshd_bad "UsePAM no" "^PROBLEM: sshd: UsePAM is no: pam_hijack never runs"
# a Match block for the mapped user is what --check evaluates
printf '%s\nMatch User %s\n\tAllowTcpForwarding yes\n' "$safe" "$A" > "$D/sshd_config"
chk "sshd: forwarding in a Match block for the user" 1 "^PROBLEM: sshd: allowtcpforwarding yes"
printf '%s\nAllowTcpForwarding yes\nMatch User %s\n\tAllowTcpForwarding no\n' "$(grep -v AllowTcp <<<"$safe")" "$A" > "$D/sshd_config"
chk "sshd: forwarding off in the user's Match block" 0 "^RESULT: ok$"

# Every Subsystem line counts, not only the first one sshd -T prints.
printf '%s\nSubsystem files internal-sftp\n' "$safe" > "$D/sshd_config"
chk "sshd: a second Subsystem with internal-sftp" 1 "^PROBLEM: sshd: 'Subsystem files internal-sftp' bypasses the login shell"

# Match blocks that apply to the user from some other address, host or
# port: sshd -T evaluates one connection, the files say them all.
n=$(($(wc -l <<<"$safe") + 2))	# the line after the Match line
match() { # DESC EXIT PATTERN MATCH-LINE SETTING...: the safe config and a block
	local desc=$1 rc=$2 pat=$3 m=$4
	shift 4
	{ echo "$safe"; echo "$m"; printf '\t%s\n' "$@"; } > "$D/sshd_config"
	chk "sshd: $desc" "$rc" "$pat"
}
match "Match Address turns forwarding on" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$n: 'Match Address 10.0.0.0/8' sets AllowTcpForwarding yes: forwarding is done by sshd on the host, outside the container$" \
	"Match Address 10.0.0.0/8" "AllowTcpForwarding yes"
match "key=value, any case, quotes, comments" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$((n + 1)): 'Match address 10.0.0.0/8,192.168.0.0/16' sets X11Forwarding YES: forwarding" \
	'match address "10.0.0.0/8,192.168.0.0/16"  # the LAN' "# X11Forwarding no" "x11forwarding=YES"
match "Match all" 1 "^PROBLEM: sshd: $D/sshd_config:$n: 'Match all' sets PermitTunnel yes" \
	"Match all" "PermitTunnel yes"
match "Match Host, X11 forwarding" 1 "^PROBLEM: sshd: $D/sshd_config:$n: 'Match Host \*.example.com' sets X11Forwarding yes" \
	"Match Host *.example.com" "X11Forwarding yes"
match "ForceCommand internal-sftp for an address" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$n: 'Match LocalPort 2222' sets ForceCommand internal-sftp -d /upload: bypasses the login shell" \
	"Match LocalPort 2222" "ForceCommand internal-sftp -d /upload"
match "ChrootDirectory for a routing domain" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$n: 'Match RDomain \*' sets ChrootDirectory /srv/%u" \
	"Match RDomain *" "ChrootDirectory /srv/%u"
match "the user's Match block with an address" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$n: 'Match User $A Address 10.0.0.0/8' sets AllowStreamLocalForwarding all" \
	"Match User $A Address 10.0.0.0/8" "AllowStreamLocalForwarding all"
"$U" groupadd "hjtg$$" >/dev/null
HJ_CLEANUP+=("'$U' del hjtg$$ >/dev/null 2>&1")
usermod -aG "hjtg$$" "$A"
match "a Match Group of the user" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$n: 'Match Group hjtg$$ LocalAddress 10.1.2.3' sets AllowTcpForwarding remote" \
	"Match Group hjtg$$ LocalAddress 10.1.2.3" "AllowTcpForwarding remote"
match "Match User otheruser" 0 "^RESULT: ok$" \
	"Match User hjtnobody,root Address 10.0.0.0/8" "AllowTcpForwarding yes" "X11Forwarding yes"
match "Match User excluding the user" 0 "^RESULT: ok$" \
	"Match User hjt*,!$A" "AllowTcpForwarding yes"
match "a Match Group the user is not in" 0 "^RESULT: ok$" \
	"Match Group root Address 10.0.0.0/8" "AllowTcpForwarding yes"
{ echo "$safe"; printf 'Match User %s\n\tAllowTcpForwarding no\nMatch Address 10.0.0.0/8\n\tAllowTcpForwarding yes\n' "$A"; } > "$D/sshd_config"
chk "sshd: the user's earlier Match block wins" 0 "^RESULT: ok$"
{ echo "$safe"; printf 'Match User %s\n\tAllowTcpForwarding yes\n' "$A"; } > "$D/sshd_config"
chk "sshd: the user's own Match block names its line" 1 \
	"^PROBLEM: sshd: $D/sshd_config:$n: 'Match User $A' sets AllowTcpForwarding yes"

# Include'd drop-ins, as Debian's sshd_config.d/*.conf
mkdir -p "$D/conf.d"
printf '# a drop-in\nMatch Address 192.168.0.0/16\n\tAllowTcpForwarding local\n' > "$D/conf.d/50-lan.conf"
printf 'Banner none\n' > "$D/conf.d/10-banner.conf"
{ echo "Include $D/conf.d/*.conf"; echo "$safe"; } > "$D/sshd_config"
chk "sshd: a Match block in an Include'd drop-in" 1 \
	"^PROBLEM: sshd: $D/conf.d/50-lan.conf:3: 'Match Address 192.168.0.0/16' sets AllowTcpForwarding local"
printf 'Match User hjtnobody\n\tAllowTcpForwarding yes\n' > "$D/conf.d/50-lan.conf"
{ echo "$safe"; echo "Match Address 10.0.0.0/8"; echo "	Include $D/conf.d/*.conf"; } > "$D/sshd_config"
chk "sshd: a clean drop-in inside a Match block" 0 "^RESULT: ok$"
printf 'PermitTunnel yes\n' > "$D/conf.d/50-lan.conf"
chk "sshd: a drop-in Include'd in a Match block" 1 \
	"^PROBLEM: sshd: $D/conf.d/50-lan.conf:1: 'Match Address 10.0.0.0/8' sets PermitTunnel yes"

# a clean configuration with Match blocks
match "a clean config with a Match block" 0 "^RESULT: ok$" \
	"Match Address 10.0.0.0/8" "AllowTcpForwarding no" "PasswordAuthentication no"

# TCP forwarding with pam_hijack's session step required in the stack:
# the forwards are the container's (pam_hijack(8), Forwarding), named by
# the network's inode; optional or skippable, it is the host's again
netino=$(stat -L -c %i "/proc/$INIT/ns/net")
# (a module before it that can succeed: a stack of pam_hijack alone
# opens no session without it, whatever its control)
pam_session() { printf 'account required pam_hijack.so\nsession required pam_permit.so\n%s\n' "$1" > "/etc/pam.d/$SVC"; }
pam_session "session required pam_hijack.so"
sshd_fwd() { printf '%s\nAllowTcpForwarding %s\n' "$(grep -v AllowTcp <<<"$safe")" "$1" > "$D/sshd_config"; }
sshd_fwd yes
chk "forwarding, session step required" 0 "^RESULT: ok$"
like "... the forwards are the container's network" "$(hjcheck "$A")" \
	"^forwarding: +allowtcpforwarding yes: from and into container web1's network \(net:\[$netino\]\)$"
pam_session "session requisite /lib/security/pam_hijack.so debug"
chk "forwarding, session step requisite by path" 0 "^RESULT: ok$"
match "forwarding in a Match block, session step required" 0 "^RESULT: ok$" \
	"Match Address 10.0.0.0/8" "AllowTcpForwarding remote"
match "stream-local forwarding stays a problem" 1 "^PROBLEM: sshd: $D/sshd_config:$n: 'Match Address 10.0.0.0/8' sets AllowStreamLocalForwarding yes" \
	"Match Address 10.0.0.0/8" "AllowStreamLocalForwarding yes"
match "agent forwarding in a Match block: relayed" 0 "^RESULT: ok$" \
	"Match Address 10.0.0.0/8" "AllowAgentForwarding yes"
for ctl in optional sufficient "[success=ok default=ignore]"; do
	pam_session "session $ctl pam_hijack.so"
	sshd_fwd yes
	chk "forwarding, session step $ctl" 1 \
		"^PROBLEM: sshd: allowtcpforwarding yes: forwarding is done by sshd on the host, outside the container \(pam_hijack's session step is not required in /etc/pam.d/$SVC\)$"
	like "... and the stack is warned about ($ctl)" "$(hjcheck "$A")" \
		"^warning: +pam_hijack's session step is not required in /etc/pam.d/$SVC: forwarded ports would be the host's$"
done
# "-" only keeps libpam from logging a missing module: still required
pam_session "-session required pam_hijack.so"
chk "forwarding, -session required" 0 "^RESULT: ok$"
pam_session "-session optional pam_hijack.so"
chk "forwarding, -session optional" 1 "^PROBLEM: sshd: allowtcpforwarding yes: .*not required"
pam_session "# session required pam_hijack.so"
chk "forwarding, session step commented out" 1 "^PROBLEM: sshd: allowtcpforwarding yes: .*not required"
# a container in the host's network (--network host): its forwards are
# the host's network's, which is the container's own; said, not flagged
pam_session "session required pam_hijack.so"
CT_HOSTNET=1 ct_start hostnet hostnet || bail_out "no host-network container"
hostino=$(stat -L -c %i /proc/self/ns/net)
is "the host-network container shares our network" "$(stat -L -c %i "/proc/$CT_INIT/ns/net")" "$hostino"
rules "$A	$HJ_RUN/hostnet	name=hostnet"
chk "forwarding, a container in the host's network" 0 "^RESULT: ok$"
out=$(hjcheck "$A")
like "... hijack-shell --check says whose network it is" "$out" "^network: +net:\[$hostino\] \(the host's\)$"
like "... and hijack check says where its forwards go" "$out" \
	"^forwarding: +allowtcpforwarding yes: container hostnet has the host's network \(net:\[$hostino\]\), and so have its forwards, as its own processes do$"
rules "$A	$CG	name=web1"
like "web1's network is its own" "$(hjcheck "$A")" "^network: +net:\[$netino\] \(the container's own\)$"
# session modules after pam_hijack's run in the container's network
pam_session "session required pam_hijack.so
session optional pam_motd.so"
like "a session module after pam_hijack's: a warning" "$(hjcheck "$A")" \
	"^warning: +'session optional pam_motd.so' comes after pam_hijack's session step in /etc/pam.d/$SVC: it runs in the container's network$"
pam_session "session required pam_hijack.so"
unlike "pam_hijack last: no such warning" "$(hjcheck "$A")" "comes after pam_hijack"

# control flow that opens a session without pam_hijack's step, in the
# service and in what it includes (tests/check_pamstack.c runs each kind
# through libpam)
skip_pat() { echo "^PROBLEM: sshd: allowtcpforwarding yes: forwarding is done by sshd on the host, outside the container \\(pam_hijack's session step $1\\)$"; }
P=/etc/pam.d/$SVC
pam_session "session sufficient pam_permit.so
session required pam_hijack.so"
chk "sufficient before the step" 1 "$(skip_pat "can be skipped: $P:3: 'session sufficient pam_permit.so' can end the session stack before it")"
like "... and the stack is warned about" "$(hjcheck "$A")" \
	"^warning: +pam_hijack's session step can be skipped: $P:3: 'session sufficient pam_permit.so' can end the session stack before it: forwarded ports would be the host's$"
pam_session "session required pam_hijack.so
session sufficient pam_permit.so"
chk "sufficient after the step" 0 "^RESULT: ok$"
pam_session "session [success=1 default=ignore]   pam_succeed_if.so user = root
session required pam_hijack.so"
chk "a jump over the step" 1 "$(skip_pat "can be skipped: $P:3: 'session \\[success=1 default=ignore\\] pam_succeed_if.so user = root' can jump over it")"
pam_session "session required pam_hijack.so
session [default=reset] pam_permit.so
session optional pam_permit.so"
chk "a reset after the step" 1 "$(skip_pat "can be undone: $P:4: 'session \\[default=reset\\] pam_permit.so' can reset the stack after it failed")"
# the same in an included file: named by its own file and line
INC=/etc/pam.d/$SVC-inc
HJ_CLEANUP+=("rm -f $INC")
printf '# first\nsession optional pam_umask.so\nsession [success=done default=ignore] pam_localuser.so\n' > "$INC"
for how in "@include $SVC-inc" "session include $SVC-inc"; do
	pam_session "$how
session required pam_hijack.so"
	chk "done in an included file ($how)" 1 "$(skip_pat "can be skipped: $INC:3: 'session \\[success=done default=ignore\\] pam_localuser.so' can end the session stack before it")"
done
pam_session "session substack $SVC-inc
session required pam_hijack.so"
chk "done in a substack ends only the substack" 0 "^RESULT: ok$"
# Debian's own common-session jumps ([default=1] pam_permit.so) within
# itself: README's stack is safe
pam_session "@include common-session
session required pam_hijack.so"
chk "Debian's common-session, then the step" 0 "^RESULT: ok$"
like "... its lines are read" "$(grep -c '^session' /etc/pam.d/common-session)" "^[1-9]"
pam_session "session include $SVC-missing
session required pam_hijack.so"
chk "an include that cannot be read" 0 "^RESULT: ok$"
like "... is said" "$(hjcheck "$A")" \
	"^warning: +$P:3: cannot read '/etc/pam.d/$SVC-missing': No such file or directory$"
pam_session "# no session step"

# a cgroup's name is its creator's (a rootless user names its delegated
# ones): the init's cgroup is printed with its control bytes escaped
echo "$safe" > "$D/sshd_config"
evil=$'\r\e[2K\e[1A'
make_rootfs "$HJ_TMP/r-esc" esc >/dev/null 2>&1
if ct_start "esc/$evil" esc "$HJ_TMP/r-esc"; then
	rules "$A	$HJ_RUN/esc	name=esc"
	out=$(hjcheck "$A" 2>&1)
	is "an init in a cgroup named with control bytes: none in --check's output" \
		"$(LC_ALL=C tr -d '\n -~' <<<"$out" | wc -c)" 0
	like "... the cgroup escaped" "$(grep '^task:' <<<"$out")" \
		"in /.*/$HJ_RUN/esc/\\\\x0d\\\\x1b\\[2K\\\\x1b\\[1A$"
else
	not_ok "cannot start a container in a cgroup named with control bytes"
fi

done_testing
