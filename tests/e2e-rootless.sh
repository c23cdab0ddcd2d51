#!/bin/bash
# Rootless podman end to end: an ordinary user's own container (user
# namespace, no root anywhere), entered over ssh by that user's
# UNPRIVILEGED hijack-shell (a copy without file capabilities).
#
# Without systemd, rootless podman makes no cgroup, so the admin step of
# hijack.conf(5) "ROOTLESS CONTAINERS" gives the user one:
# contrib/hijack-delegate makes <base>/<user> on every hierarchy, owned by
# the user, and (from the sshd PAM stack, through pam_exec) puts each login
# session in <base>/<user>/session.  The user runs the container in
# <base>/<user>/web; the rule is  USER <base>/%u/web.  On cgroup2 the
# unprivileged hijack-shell may join that cgroup only because the common
# ancestor of its own cgroup and the container's is the user's.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh podman newuidmap setpriv runc
D=$HJ_TMP/ssh
id=$$
US="$top_srcdir/tests/users.sh"
DELEGATE="$top_srcdir/contrib/hijack-delegate"
RU=hjtl$id
BASE=$HJ_RUN/users
HOSTN=rootless-$id
mkdir -p "$D"

# hijack-shell without any capability: what an ordinary user can run
cp "$SHELL_BIN" "$D/hijack-shell-unpriv"
chmod 755 "$D/hijack-shell-unpriv"
HSU=$D/hijack-shell-unpriv
hj_conf_take

HJ_CLEANUP+=("'$US' del $RU >/dev/null 2>&1")
"$US" useradd "$RU" -M -s "$HSU" -d "$HJ_TMP/home" >/dev/null ||
	bail_out "useradd $RU"
usermod -p '*' "$RU"
grep -q "^$RU:" /etc/subuid || skip_all "useradd gave $RU no subordinate uid range"
ruid=$(id -u "$RU") rgid=$(id -g "$RU")
mkdir -p "$HJ_TMP/home" "$HJ_TMP/xdg"
chown "$ruid:$rgid" "$HJ_TMP/home" "$HJ_TMP/xdg"
chmod 700 "$HJ_TMP/xdg"
asuser() {
	setpriv --reuid "$ruid" --regid "$rgid" --init-groups env -i \
		HOME="$HJ_TMP/home" XDG_RUNTIME_DIR="$HJ_TMP/xdg" \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
P="podman --root $HJ_TMP/home/storage --runroot $HJ_TMP/xdg/runroot
	--tmpdir $HJ_TMP/xdg/tmp --storage-driver vfs --cgroup-manager cgroupfs
	--events-backend file --runtime runc"
P=$(echo $P)

# -- the admin step: the user's delegated cgroup (below the run's cgroup)
cg_create "" || bail_out "cgroups"
"$DELEGATE" --base "$BASE" "$RU"
check "hijack-delegate: the user owns their cgroup on every hierarchy" \
	bash -c "for h in $(hj_hierarchies | tr '\n' ' '); do
		[ \"\$(stat -c %u \$h/$BASE/$RU)\" = $ruid ] &&
		[ \"\$(stat -c %u \$h/$BASE/$RU/cgroup.procs)\" = $ruid ] || exit 1; done"
check "hijack-delegate: the session cgroup stays root's" \
	bash -c "for h in $(hj_hierarchies | tr '\n' ' '); do
		[ \"\$(stat -c %u \$h/$BASE/$RU/session/cgroup.procs)\" = 0 ] || exit 1; done"

# -- the user starts a container from a host login (placed as PAM would)
make_rootfs "$HJ_TMP/rootfs" "$HOSTN"
tar -C "$HJ_TMP/rootfs" -cf "$HJ_TMP/rootfs.tar" .
chmod 644 "$HJ_TMP/rootfs.tar"
HJ_CLEANUP+=("for p in \$(pgrep -u $ruid); do kill -KILL \$p; done 2>/dev/null; sleep 0.2")
HJ_CLEANUP+=("asuser $P rm -f -t 0 web >/dev/null 2>&1")
# again: the first attempt fails while the user's podman processes live
HJ_CLEANUP+=("'$US' del $RU >/dev/null 2>&1")
(
	"$DELEGATE" --base "$BASE" "$RU" "$BASHPID" || exit 1
	exec setpriv --reuid "$ruid" --regid "$rgid" --init-groups env -i \
		HOME="$HJ_TMP/home" XDG_RUNTIME_DIR="$HJ_TMP/xdg" \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin sh -c "
		for h in $(hj_hierarchies | tr '\n' ' '); do
			mkdir -p \$h/$BASE/$RU/web &&
			echo \$\$ > \$h/$BASE/$RU/web/cgroup.procs || exit 1
		done
		$P import -q $HJ_TMP/rootfs.tar localhost/hjbbx >/dev/null &&
		$P run -d --name web --network none --hostname $HOSTN \
			--ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
			localhost/hjbbx /bin/sleep 100000"
) >"$HJ_TMP/podman.out" 2>&1 || {
	sed 's/^/# /' "$HJ_TMP/podman.out"
	bail_out "rootless podman run failed"
}
INIT=$(asuser $P inspect -f '{{.State.Pid}}' web)
diag "rootless init pid $INIT, $(grep '^0::' /proc/$INIT/cgroup)"
isnt "the container has a user namespace of its own" "$(ns_of "$INIT" user)" "$(ns_of 1 user)"
is "its init runs as the user on the host" "$(stat -c %u /proc/$INIT)" "$ruid"

cat > "$CONF" <<EOF
# e2e-rootless.sh
$RU	$BASE/%u/web	name=rootless-$id
EOF
chmod 644 "$CONF"

# -- without the delegated session, the unprivileged shell cannot enter
out=$( (cd / && asuser "$HSU" -c hostname) 2>&1)
rc=$?
isnt "from outside the user's cgroup (cgroup2 common ancestor): refused" "$rc" 0
isnt "and never runs on the host" "$out" "$(hostname)"

# -- over ssh, with the session placed by hijack-delegate through pam_exec
SSHD_PAM_EXTRA="session required pam_exec.so quiet $DELEGATE --base $BASE"
sshd_start "$D" "$RU"
is "ssh lands in the rootless container (hostname)" "$(s "$RU" hostname)" "$HOSTN"
want=""
for ns in user mnt uts ipc net pid; do
	want+="$ns:$(ns_of "$INIT" $ns) "
done
got=$(s "$RU" 'for ns in user mnt uts ipc net pid; do printf "%s:%s " $ns $(readlink /proc/self/ns/$ns); done')
is "every namespace is the init's (user namespace included)" "$got" "$want"
is "the session sits in the container's cgroup" \
	"$(s "$RU" 'grep "^0::" /proc/self/cgroup')" "$(grep '^0::' /proc/$INIT/cgroup)"
# root in the container is the user on the host (podman's mapping), with
# capabilities that only count inside the user's own user namespace
is "root inside is the user's uid on the host (uid_map)" \
	"$(s "$RU" 'cat /proc/self/uid_map' | awk '$1 == 0 { print $2, $3 }')" "$ruid 1"
is "no ambient capability in the session" \
	"$(s "$RU" "awk '/^CapAmb/ { print \$2 }' /proc/self/status")" 0000000000000000
# the unprivileged shell cannot copy podman's seccomp filter (that needs
# CAP_SYS_ADMIN): no_new_privs stands in, and the bounding set is the init's
st=$(s "$RU" 'cat /proc/self/status')
is "the init runs under podman's seccomp filter" "$(awk '/^Seccomp:/ { print $2 }' /proc/$INIT/status)" 2
is "the session: no_new_privs in place of the filter (hijack-shell(8))" \
	"$(awk '/^NoNewPrivs:/ { print $2 }' <<<"$st")" 1
is "the session's bounding set is the init's" \
	"$(awk '/^CapBnd:/ { print $2 }' <<<"$st")" "$(awk '/^CapBnd:/ { print $2 }' /proc/$INIT/status)"
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG "$HSU" --check "$RU" 2>&1)
like "--check (root) picks the container init (pid $INIT)" "$out" "task: +pid $INIT \(container init\)"

done_testing
