#!/bin/bash
# Rootless containers end to end: an ordinary user's own containers (user
# namespaces the user owns), entered over ssh through the INSTALLED
# hijack-shell, the one with file capabilities that also serves root's
# containers.  No second copy, no special login shell.
#
# The user owns a cgroup of their own on every hierarchy (what systemd's
# user@.service delegation gives; the test makes it by hand, as pam_hijack
# delegate= does without systemd) and runs the containers in cgroups below
# it.  sshd, and so every login session, sits in a ROOT-owned cgroup, as
# pam_systemd puts sessions in user-N.slice/session-N.scope: on cgroup2
# the user cannot move a process from there into their own cgroup, so
# hijack-shell joins it while still privileged, only after checking that
# the user owns it, and drops every capability before entering the user
# namespace.  A cgroup the user does not own is refused.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh podman newuidmap newgidmap setpriv runc unshare
D=$HJ_TMP/ssh
id=$$
US="$top_srcdir/tests/users.sh"
RU=hjtl$id
BASE=users
HOSTN=rootless-$id
mkdir -p "$D"

hj_shell_install "$D/installed"
hj_conf_take

HJ_CLEANUP+=("'$US' del $RU >/dev/null 2>&1")
"$US" useradd "$RU" -M -s "$HS" -d "$HJ_TMP/home" >/dev/null ||
	bail_out "useradd $RU"
usermod -p '*' "$RU"
grep -q "^$RU:" /etc/subuid || skip_all "useradd gave $RU no subordinate uid range"
ruid=$(id -u "$RU") rgid=$(id -g "$RU")
subuid=$(awk -F: -v u="$RU" '$1 == u { print $2 }' /etc/subuid)
subgid=$(awk -F: -v u="$RU" '$1 == u { print $2 }' /etc/subgid)
mkdir -p "$HJ_TMP/home" "$HJ_TMP/xdg"
chown "$ruid:$rgid" "$HJ_TMP/home" "$HJ_TMP/xdg"
chmod 700 "$HJ_TMP/xdg"
# as the user, in cgroup REL (below the run's) on every hierarchy; execs,
# so only ever in a subshell
asuser_in() {
	local rel=$1 h
	shift
	for h in $(hj_hierarchies); do
		echo "$BASHPID" > "$(cg_path "$h" "$rel")/cgroup.procs" || return 1
	done
	exec ${ASUSER_PRE-} setpriv --reuid "$ruid" --regid "$rgid" --init-groups env -i \
		HOME="$HJ_TMP/home" XDG_RUNTIME_DIR="$HJ_TMP/xdg" \
		PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
asuser() { asuser_in "$BASE/$RU" "$@"; }
# as the user, in a cgroup of its own below theirs, made by the user
user_cgroup() {
	( asuser sh -c "for h in $(hj_hierarchies | tr '\n' ' '); do
		mkdir \$h/$HJ_RUN/$BASE/$RU/$1 || exit 1; done" )
}
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$V2" ] || skip_all "kernel: no cgroup2 mounted"
# unlike DESC GOT PATTERN (grep -E): passes when GOT does not match
unlike() {
	if printf '%s\n' "$2" | grep -Eq -- "$3"; then
		not_ok "$1: '$2' matches /$3/"
	else ok "$1"; fi
}
P="podman --root $HJ_TMP/home/storage --runroot $HJ_TMP/xdg/runroot
	--tmpdir $HJ_TMP/xdg/tmp --storage-driver vfs --cgroup-manager cgroupfs
	--events-backend file --runtime runc"
P=$(echo $P)

# -- the user's delegated cgroup, and a root-owned one for the sessions
cg_create "$BASE/$RU" && cg_create sessions && cg_create rootowned ||
	bail_out "cgroups"
for h in $(hj_hierarchies); do
	u=$(cg_path "$h" "$BASE/$RU")
	chown "$ruid:$rgid" "$u"
	for f in cgroup.procs tasks cgroup.threads cgroup.subtree_control; do
		[ -e "$u/$f" ] && chown "$ruid:$rgid" "$u/$f"
	done
	# v1 cpuset: the user's own children get cpus and memory nodes
	[ -e "$u/cpuset.cpus" ] && echo 1 > "$u/cgroup.clone_children"
done

# -- the containers, all the user's own (user namespaces the user owns)
make_rootfs "$HJ_TMP/rootfs" "$HOSTN"
cp "$top_builddir/tests/helpers/hj-confined" "$HJ_TMP/rootfs/bin/"
tar -C "$HJ_TMP/rootfs" -cf "$HJ_TMP/rootfs.tar" .
chmod 644 "$HJ_TMP/rootfs.tar"
HJ_CLEANUP+=("for p in \$(pgrep -u $ruid); do kill -KILL \$p; done 2>/dev/null; sleep 0.2")
HJ_CLEANUP+=("(asuser $P rm -f -t 0 web web0) >/dev/null 2>&1")
# again: the first attempt fails while the user's podman processes live
HJ_CLEANUP+=("'$US' del $RU >/dev/null 2>&1")
# web: podman --userns=keep-id, which maps the user's ids to themselves
( asuser sh -c "
	for h in $(hj_hierarchies | tr '\n' ' '); do
		mkdir -p \$h/$HJ_RUN/$BASE/$RU/web &&
		echo \$\$ > \$h/$HJ_RUN/$BASE/$RU/web/cgroup.procs || exit 1
	done
	$P import -q $HJ_TMP/rootfs.tar localhost/hjbbx >/dev/null &&
	$P run -d --name web --network none --hostname $HOSTN --userns=keep-id \
		--ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
		localhost/hjbbx /bin/sleep 100000" ) >"$HJ_TMP/podman.out" 2>&1 || {
	sed 's/^/# /' "$HJ_TMP/podman.out"
	bail_out "rootless podman run failed"
}
# web0: plain rootless podman, which maps the user's uid to 0
( asuser sh -c "
	for h in $(hj_hierarchies | tr '\n' ' '); do
		mkdir -p \$h/$HJ_RUN/$BASE/$RU/web0 &&
		echo \$\$ > \$h/$HJ_RUN/$BASE/$RU/web0/cgroup.procs || exit 1
	done
	$P run -d --name web0 --network none --hostname web0-$id \
		--ulimit nofile=1024:1024 --ulimit nproc=4096:4096 \
		localhost/hjbbx /bin/sleep 100000" ) >"$HJ_TMP/podman.out" 2>&1 || {
	sed 's/^/# /' "$HJ_TMP/podman.out"
	bail_out "rootless podman run failed"
}
INIT=$(asuser $P inspect -f '{{.State.Pid}}' web)
INIT0=$(asuser $P inspect -f '{{.State.Pid}}' web0)
diag "rootless init pid $INIT, $(grep '^0::' /proc/$INIT/cgroup)"
isnt "web has a user namespace of its own" "$(ns_of "$INIT" user)" "$(ns_of 1 user)"
is "its init runs as the user on the host" "$(stat -c %u /proc/$INIT)" "$ruid"

# unshare_ct REL HOSTNAME UNSHARE-ARGS...: the user's own container (a
# user namespace made by the user) in cgroup REL, pivoted into the rootfs;
# prints the init's pid
unshare_ct() {
	local rel=$1 host=$2 helper
	shift 2
	( asuser_in "$rel" unshare --user "$@" --fork --pid --mount --uts \
		--ipc --net --propagation private sh -c "
		mount --bind '$HJ_TMP/rootfs' '$HJ_TMP/rootfs' &&
		cd '$HJ_TMP/rootfs' && pivot_root . oldroot &&
		exec /bin/busybox sh -c 'mount -t proc proc /proc;
			umount -l /oldroot; hostname $host; exec sleep 1000000'"
	) </dev/null >"$HJ_TMP/$host.out" 2>&1 &
	helper=$!
	HJ_PIDS+=("$helper")
	wait_init "$helper"
}
# fb: the user's uid is not mapped (only the subordinate range is), in a
# cgroup the user makes in theirs
user_cgroup fb || bail_out "fb cgroup"
FB=$(unshare_ct "$BASE/$RU/fb" "fb-$id" --map-users="$subuid,0,65536" \
	--map-groups="$subgid,0,65536" --setuid 0 --setgid 0) || bail_out "fb: $(cat "$HJ_TMP/fb-$id.out")"
HJ_PIDS+=("$FB")
is "fb: the user's uid is not mapped in its user namespace" \
	"$(awk -v u="$ruid" '$2 <= u && u < $2 + $3' /proc/$FB/uid_map)" ""
# ro: the user's own, in a cgroup root owns
MAPS=(--map-users="$subuid,0,65536" --map-groups="$subgid,0,65536"
	--setuid 0 --setgid 0)
RO=$(unshare_ct rootowned "ro-$id" "${MAPS[@]}") ||
	bail_out "ro: $(cat "$HJ_TMP/ro-$id.out")"
HJ_PIDS+=("$RO")
is "ro: a user namespace of the user's (root is their first subordinate id)" \
	"$(awk '$1 == 0 { print $2 }' /proc/$RO/uid_map)" "$subuid"

# ki: as crun makes it for podman --userns=keep-id under user@.service:
# the user's cgroup, its child "container" on cgroup2 made by root of the
# container (the user's first subordinate uid); kx: the same child owned
# by a uid the container's user namespace does not map
for k in ki kx; do
	user_cgroup $k && user_cgroup $k/container || bail_out "$k cgroup"
done
kid=$(cg_path "$V2" "$BASE/$RU/ki/container")
kxd=$(cg_path "$V2" "$BASE/$RU/kx/container")
chown "$subuid:$subgid" "$kid" "$kid/cgroup.procs" &&
	chown "$((subuid + 65536)):$subgid" "$kxd" "$kxd/cgroup.procs" ||
	bail_out "ki, kx: chown"
KI=$(unshare_ct "$BASE/$RU/ki/container" "ki-$id" "${MAPS[@]}") ||
	bail_out "ki: $(cat "$HJ_TMP/ki-$id.out")"
HJ_PIDS+=("$KI")
KX=$(unshare_ct "$BASE/$RU/kx/container" "kx-$id" "${MAPS[@]}") ||
	bail_out "kx: $(cat "$HJ_TMP/kx-$id.out")"
HJ_PIDS+=("$KX")

# rn: the user's own user namespace, but in a network namespace root made
# (owned by the host's user namespace): not the user's to enter
user_cgroup rn || bail_out "rn cgroup"
( ASUSER_PRE="unshare --net" asuser_in "$BASE/$RU/rn" unshare --user \
	"${MAPS[@]}" --fork --pid --mount --uts --ipc --propagation private sh -c "
	mount --bind '$HJ_TMP/rootfs' '$HJ_TMP/rootfs' &&
	cd '$HJ_TMP/rootfs' && pivot_root . oldroot &&
	exec /bin/busybox sh -c 'mount -t proc proc /proc;
		umount -l /oldroot; hostname rn-$id; exec sleep 1000000'"
) </dev/null >"$HJ_TMP/rn.out" 2>&1 &
HJ_PIDS+=("$!")
RN=$(wait_init "$!") || bail_out "rn: $(cat "$HJ_TMP/rn.out")"
HJ_PIDS+=("$RN")
isnt "rn: its network namespace is not the host's" "$(ns_of "$RN" net)" "$(ns_of 1 net)"

# sg: the user's own, made with unshare -r: setgroups denied there
user_cgroup sg || bail_out "sg cgroup"
SG=$(unshare_ct "$BASE/$RU/sg" "sg-$id" --map-root-user) ||
	bail_out "sg: $(cat "$HJ_TMP/sg-$id.out")"
HJ_PIDS+=("$SG")
is "sg: its user namespace denies setgroups" "$(cat /proc/$SG/setgroups)" deny

rules() {
	cat > "$CONF" <<-EOF
	# e2e-rootless.sh
	$RU	$1
	EOF
	chmod 644 "$CONF"
}
rules "$HJ_RUN/$BASE/%u/web	name=web-$id"

# -- sshd, and every session it starts, in the root-owned cgroup
sshd_start "$D" "$RU"
for h in $(hj_hierarchies); do
	echo "$SSHD" > "$(cg_path "$h" sessions)/cgroup.procs" || bail_out "sshd cgroup"
done
is "sshd's sessions start in a cgroup root owns" \
	"$(stat -c %u "$V2$(sed -n 's/^0:://p' /proc/$SSHD/cgroup)")" 0
# the control: from there, an unprivileged entry cannot join (cgroup2)
cp "$SHELL_BIN" "$D/unpriv" && chmod 755 "$D/unpriv"
out=$(cd / && asuser_in sessions "$D/unpriv" -c hostname 2>&1)
like "control: without privilege, a session in root's cgroup cannot join" \
	"$out" "cannot enter container web-$id .*Permission denied"

# -- web: lands, as the user's own ids, with podman's filter copied
is "ssh lands in the rootless container (hostname)" "$(s "$RU" hostname)" "$HOSTN"
want=""
for ns in user mnt uts ipc net pid; do
	want+="$ns:$(ns_of "$INIT" $ns) "
done
got=$(s "$RU" 'for ns in user mnt uts ipc net pid; do printf "%s:%s " $ns $(readlink /proc/self/ns/$ns); done')
is "every namespace is the init's (user namespace included)" "$got" "$want"
is "the session sits in the container's cgroup" \
	"$(s "$RU" 'grep "^0::" /proc/self/cgroup')" "$(grep '^0::' /proc/$INIT/cgroup)"
is "keep-id: the user's own uid and gid inside" "$(s "$RU" 'id -u; id -g' | tr '\n' ' ')" "$ruid $rgid "
st=$(s "$RU" 'cat /proc/self/status')
is "no capability in the session" \
	"$(awk '/^Cap(Inh|Prm|Eff|Amb):/ { printf "%s ", $2 }' <<<"$st")" \
	"0000000000000000 0000000000000000 0000000000000000 0000000000000000 "
is "the session's bounding set is the init's" \
	"$(awk '/^CapBnd:/ { print $2 }' <<<"$st")" "$(awk '/^CapBnd:/ { print $2 }' /proc/$INIT/status)"
is "podman's seccomp filter is copied (privilege reads it)" \
	"$(awk '/^Seccomp:/ { print $2 }' <<<"$st")/$(awk '/^Seccomp_filters:/ { print $2 }' <<<"$st")" \
	"2/$(awk '/^Seccomp_filters:/ { print $2 }' /proc/$INIT/status)"
out=$(cd / && asuser_in sessions "$HS" --check 2>&1)
like "--check as the user: their own user namespace" "$out" "userns: +$RU's own \(a rootless container\): entered without privilege"
like "--check as the user: their own ids, mapped" "$out" "identity: +uid $ruid gid $rgid inside: $RU's own ids"
like "--check as the user: the cgroup is delegated" "$out" "cgroups: +delegated to $RU: joined"
like "--check as the user: says the host's side is root's hijack check" "$out" \
	"note: +the login shell, PAM and sshd are root's to check: hijack check $RU"
unlike "--check as the user: no PROBLEM line" "$out" "PROBLEM"
unlike "--check as the user: looks inside for file transfer, unprivileged" "$out" "cannot look inside"

# -- web0: the user's own uid is root there
rules "$HJ_RUN/$BASE/%u/web0	name=web0-$id"
is "web0: lands (hostname)" "$(s "$RU" hostname)" "web0-$id"
is "web0: the user's uid as mapped there: 0" "$(s "$RU" 'id -u; id -g' | tr '\n' ' ')" "0 0 "
# --check looks inside for file transfer as the session would: uid 0 of
# the user's namespace, entered without privilege
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$RU" 2>&1)
like "web0: --check (root) looks inside for file transfer" "$out" \
	"(sftp: +|warning: +scp and sftp will fail: ).* (is not )?in web0-$id"
unlike "web0: --check (root) does not fail to look inside" "$out" "cannot look inside"

# web0's shell as root of the user's namespace: exec gives it the
# bounding set; held before the exec, nothing is "gained", so the kernel
# leaves it dumpable like any process of the container (commit_creds())
rules "$HJ_RUN/$BASE/%u/web0	name=web0-$id	shell=/bin/hj-confined"
is "web0: the session's shell is dumpable" "$(s "$RU" dumpable)" 1
is "web0: its capabilities are the init's bounding set, no more" \
	"$(s "$RU" caps)" "0 $(awk '/^CapBnd:/ { print $2 }' /proc/$INIT0/status) $(awk '/^CapBnd:/ { print $2 }' /proc/$INIT0/status)"

# -- fb: the user's uid is unmapped there, so root of that namespace
rules "$HJ_RUN/$BASE/%u/fb	name=fb-$id	shell=/bin/sh"
is "fb: lands (hostname)" "$(s "$RU" hostname)" "fb-$id"
is "fb: root of the user namespace, as the uid is unmapped" "$(s "$RU" 'id -u; id -g' | tr '\n' ' ')" "0 0 "
is "fb: which is the first subordinate id on the host" \
	"$(s "$RU" 'cat /proc/self/uid_map' | awk '$1 == 0 { print $2 }')" "$subuid"
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$RU" 2>&1)
like "fb: --check says root of the user namespace" "$out" \
	"identity: +uid 0 gid 0 inside: root of the user namespace, as uid $ruid is not mapped"
like "fb: --check (root) RESULT: ok" "$out" "RESULT: ok"

# -- rn: a namespace the user could not enter unprivileged is not entered,
# the network by pam_hijack's session step (as root) included; sshd shows
# a refused session's PAM messages on the client's standard output
rules "$HJ_RUN/$BASE/%u/rn	name=rn-$id	shell=/bin/sh"
out=$(s "$RU" 'echo ran; hostname' 2>"$HJ_TMP/rn.err")
rc=$?
isnt "rn: refused" "$rc" 0
if grep -Eqx -- "ran|rn-$id" <<<"$out"; then not_ok "rn: nothing ran: '$out'"
else ok "rn: nothing ran"; fi
like "rn: refused, as not the user's to enter" "$out$(cat "$HJ_TMP/rn.err")" \
	"cannot enter container rn-$id .*network namespace is not $RU's to enter"

# -- sg: the container's groups cannot be set there: refused, and --check
# says so rather than RESULT: ok
rules "$HJ_RUN/$BASE/%u/sg	name=sg-$id	shell=/bin/sh"
out=$(s "$RU" 'echo ran' 2>"$HJ_TMP/sg.err")
isnt "sg: refused" "$?" 0
is "sg: nothing ran" "$out" ""
like "sg: because setgroups is denied there" "$(cat "$HJ_TMP/sg.err")" \
	"container sg-$id .*denies setgroups"
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$RU" 2>&1)
like "sg: --check says the login is refused" "$out" "PROBLEM: container sg-$id: its user namespace denies setgroups"

# -- ro: the user's own container, in a cgroup the user does not own
rules "$HJ_RUN/rootowned	name=ro-$id	shell=/bin/sh"
out=$(s "$RU" 'echo ran; hostname' 2>"$HJ_TMP/ro.err")
rc=$?
isnt "ro: refused" "$rc" 0
like "ro: because the cgroup is not delegated to the user" \
	"$(cat "$HJ_TMP/ro.err")" "not delegated to $RU"
is "ro: nothing ran" "$out" ""
is "ro: no session process joined root's cgroup" \
	"$(wc -l < "$(cg_path "$V2" rootowned)/cgroup.procs")" 2
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$RU" 2>&1)
like "ro: --check says the login is refused" "$out" \
	"PROBLEM: container ro-$id: its cgroup .* is not delegated to $RU"
unlike "ro: --check does not say RESULT: ok" "$out" "RESULT: ok"

# -- ki: its cgroup2 leaf belongs to root of the container, below the
# user's own: theirs through their user namespace
rules "$HJ_RUN/$BASE/%u/ki	name=ki-$id	shell=/bin/sh"
is "ki: a leaf root of the container owns lands (hostname)" \
	"$(s "$RU" hostname 2>&1)" "ki-$id"
out=$(HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG hjcheck "$RU" 2>&1)
like "ki: --check (root) says delegated" "$out" "cgroups: +delegated to $RU: joined"
# -- kx: a uid the container does not map owns the leaf: refused
rules "$HJ_RUN/$BASE/%u/kx	name=kx-$id	shell=/bin/sh"
out=$(s "$RU" 'echo ran; hostname' 2>"$HJ_TMP/kx.err")
is "kx: a leaf of a uid the container does not map: nothing ran" "$out" ""
like "kx: refused as not delegated" "$(cat "$HJ_TMP/kx.err")" "not delegated to $RU"

# -- pam_hijack delegate=BASE, for hosts without systemd: the user's own
# cgroup on every hierarchy, the session inside it; never root's
rules "$HJ_RUN/$BASE/%u/web	name=web-$id"
sed -i "s|^session required $MODULE\$|& delegate=$HJ_RUN/pd|" "/etc/pam.d/$SVC"
grep -q "delegate=$HJ_RUN/pd" "/etc/pam.d/$SVC" || bail_out "pam.d edit"
s "$RU" 'sleep 3' >/dev/null 2>&1 &
bg=$!
sleep 1.5
bad=""
for h in $(hj_hierarchies); do
	d=$(cg_path "$h" "pd/$RU")
	[ "$(stat -c %u "$d" 2>/dev/null)" = "$ruid" ] &&
	[ "$(stat -c %u "$d/cgroup.procs")" = "$ruid" ] &&
	[ "$(stat -c %u%a "$(cg_path "$h" pd)")" = 0755 ] &&
	[ "$(stat -c %u "$d/session/cgroup.procs")" = 0 ] || bad+=" $h"
	[ -e "$d/tasks" ] && [ "$(stat -c %u "$d/tasks")" != "$ruid" ] && bad+=" $h/tasks"
	[ -e "$d/cpuset.cpus" ] && [ -z "$(cat "$d/session/cpuset.cpus")" ] && bad+=" $h/cpuset"
done
is "delegate=: BASE/USER is the user's on every hierarchy, BASE and session root's" "$bad" ""
is "delegate=: the login's session (sshd) sits in BASE/USER/session" \
	"$(for p in $(cat "$V2/$HJ_RUN/pd/$RU/session/cgroup.procs"); do
		cat "/proc/$p/comm"; done | grep -c '^sshd')" 2
wait "$bg"
is "delegate=: the login still lands in the container" "$(s "$RU" hostname)" "$HOSTN"
cp "$D/id.pub" "$D/keys/root"
chmod 644 "$D/keys/root"
is "delegate=: root still logs in (on the host), and gets no cgroup" \
	"$(s root 'echo in' 2>&1; ls -d "$(cg_path "$V2" pd/root)" 2>/dev/null)" "in"

done_testing
