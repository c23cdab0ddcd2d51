#!/bin/bash
# The attack suite: each check fails if the attack works.
#
# hijack-shell is started the way sshd starts a login shell (setuid to
# the user, then exec with "-c cmd" or as "-hijack-shell"), with the file
# capabilities of an installed copy; the containers are real.  The CVEs
# named are those of runc (CVE-2019-5736 /proc/self/exe, CVE-2024-21626
# leaked fd/cwd, CVE-2016-9962 ptrace while entering), LXC/runc trusting
# the container's /proc (CVE-2015-1334, CVE-2025-52881), libraries or NSS
# loaded from the container (CVE-2019-14271, CVE-2025-32463) and
# virt-login-shell (CVE-2013-4400); see https://www.cve.org/.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
command -v setcap >/dev/null || skip_all "no setcap"
D=$HJ_TMP/att
mkdir -p "$D"
id=$$
A=hjt6$id B=hjt7$id L=hjt8$id G=hjtx$id
U="$top_srcdir/tests/users.sh"

hj_shell_install "$D"
hj_conf_take

# a long (31 character) user name, as long as useradd takes
LONG=hjt9$(printf '%s' "$id" | head -c 6)$(printf 'x%.0s' $(seq 21))
LONG=${LONG:0:31}
"$U" groupadd "$G" >/dev/null
HJ_CLEANUP+=("'$U' del $A $B $LONG $G >/dev/null 2>&1")
"$U" useradd "$A" -M -s "$HS" >/dev/null
"$U" useradd "$B" -M -s "$HS" -G "$G" >/dev/null
"$U" useradd "$LONG" -M -s "$HS" >/dev/null

# -- containers: web1 with an evil NSS module and passwd, web2 plain
R1=$HJ_TMP/r1 R2=$HJ_TMP/r2
make_rootfs "$R1" web1
make_rootfs "$R2" web2
for u in $A $B $LONG; do
	for r in "$R1" "$R2"; do
		rootfs_add_user "$r" "$u"
		mkdir -p "$r/home/$u"; chown "$(id -u "$u")" "$r/home/$u"
	done
done
chmod 1777 "$R1/tmp" "$R2/tmp"
# CVE-2019-14271 / CVE-2025-32463: a library the container ships must
# never be loaded by a privileged process
cat > "$D/evil.c" <<'EOF'
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>
/* leaves a mark only when loaded into a privileged process */
__attribute__((constructor)) static void evil(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };
	int fd;

	syscall(SYS_capget, &h, d);
	if (geteuid() != 0 && !d[0].effective && !d[1].effective)
		return;
	fd = open("/tmp/hj-evil-privileged", O_CREAT | O_WRONLY, 0644);
	if (fd >= 0)
		close(fd);
}
EOF
gcc -shared -fPIC -o "$D/libevil.so" "$D/evil.c"
mkdir -p "$R1/lib/x86_64-linux-gnu"
cp "$D/libevil.so" "$R1/lib/x86_64-linux-gnu/libnss_evil.so.2"
echo "passwd: evil files" > "$R1/etc/nsswitch.conf"
echo "group: evil files" >> "$R1/etc/nsswitch.conf"
cp "$D/libevil.so" "$R1/tmp/libevil.so"
echo "/tmp/libevil.so" > "$R1/etc/ld.so.preload"

ct_start web1 web1 "$R1" || bail_out "web1"
I1=$CT_INIT H1=$CT_HELPER
ct_start web2 web2 "$R2" || bail_out "web2"
I2=$CT_INIT

write_conf() { # content...
	printf '%s\n' "$@" > "$CONF"
	chown root:root "$CONF"
	chmod 644 "$CONF"
}
write_conf "$A	$HJ_RUN/web1" "@$G	$HJ_RUN/web2" "$B	$HJ_RUN/web1" "$LONG	$HJ_RUN/web1"

# run hijack-shell as sshd would: as the user, with the caller's env
as() { # USER [env...] -- args
	local u=$1; shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	setpriv --reuid="$(id -u "$u")" --regid="$(id -g "$u")" --init-groups \
		--inh-caps=-all -- env -i PATH=/usr/bin:/bin TERM=dumb "${envs[@]}" \
		"$HS" "$@"
}

# an --enable-asan module needs the runtime preloaded into pamtester
pt_env=()
asan=$(asan_preload "$MODULE")
[ -z "$asan" ] || pt_env=("LD_PRELOAD=$asan" ASAN_OPTIONS=detect_leaks=0)
# A login's PAM session step, as sshd's monitor runs it (root): for an
# init with seccomp filters, pam_hijack keeps root's copy of them, which
# hijack-shell (the user's process) only reads.
SVCS=hjtest-session-$$
printf 'session required %s conf=%s\n' "$MODULE" "$CONF" > "/etc/pam.d/$SVCS"
HJ_CLEANUP+=("rm -f /etc/pam.d/$SVCS")
pam_session() { # USER
	env "${pt_env[@]}" pamtester "$SVCS" "$1" open_session close_session
}

# -- 1-6: environment forging (virt-login-shell CVE-2013-4400)
out=$(as $A HIJACK_CGROUP=$HJ_RUN/web2 HIJACK_CONTAINER=web2 -- -c hostname 2>&1); rc=$?
like "env: HIJACK_CGROUP naming another container refuses, never a grant" \
	"$rc:$out" "^1:.*pam_hijack mapped this login to cgroup $HJ_RUN/web2"
out=$(as $A "HIJACK_CGROUP=$(printf 'x\r\033[2K')" -- -c hostname 2>&1); rc=$?
like "env: a forged HIJACK_CGROUP is printed escaped (no control bytes)" \
	"$rc:$(printf '%s' "$out" | tr -d '\n' | LC_ALL=C tr -dc '\000-\037\177' | wc -c)" "^1:0$"
like "env: ... and what it held is shown as \\xNN" "$out" 'cgroup x\\x0d\\x1b\[2K, but'
is "env: LD_PRELOAD of a host library is not honoured" \
	"$(as $A LD_PRELOAD=$D/libevil.so -- -c 'echo ${LD_PRELOAD-unset}' 2>/dev/null)" unset
check "env: the LD_PRELOAD library was never loaded into a privileged process" test ! -e /tmp/hj-evil-privileged
is "env: SHELL cannot choose the shell inside" \
	"$(as $A SHELL=/bin/false -- -c 'echo $SHELL' 2>/dev/null)" /bin/sh
is "env: HOME cannot choose the home inside" \
	"$(as $A HOME=/etc -- -c 'echo $HOME; pwd' 2>/dev/null | tr '\n' ' ')" "/home/$A /home/$A "
is "env: PATH is rebuilt" "$(as $A PATH=/tmp/evil -- -c 'echo $PATH' 2>/dev/null)" /usr/local/bin:/usr/bin:/bin
is "env: TERM with shell metacharacters is dropped" \
	"$(as $A 'TERM=$(reboot)' -- -c 'echo ${TERM-unset}' 2>/dev/null)" unset

# -- 7: NSS modules and ld.so.preload shipped by the container
as $A -- -c true >/dev/null 2>&1
check "the container's NSS module and ld.so.preload never reach a privileged process" \
	bash -c "! ls '$R1/tmp/hj-evil-privileged' /tmp/hj-evil-privileged 2>/dev/null"

# -- 8-12: a broken or insecure hijack.conf never lets a mapped user in
try_conf() { # DESC
	local out rc
	out=$(as $A -- -c hostname 2>&1); rc=$?
	if [ $rc != 0 ] && [ "$out" != web1 ] && [ "$out" != "$(hostname)" ]; then ok "$1"
	else not_ok "$1: rc $rc, '$out'"; fi
}
write_conf "$A	$HJ_RUN/web1"
cp "$CONF" "$D/real.conf"
ln -sf "$D/real.conf" "$D/link.conf"
mv "$CONF" "$D/conf.bak"; ln -s "$D/real.conf" "$CONF"
try_conf "hijack.conf as a symlink is refused"
rm -f "$CONF"; mv "$D/conf.bak" "$CONF"
chmod 664 "$CONF"; try_conf "group-writable hijack.conf is refused"
chmod 646 "$CONF"; try_conf "world-writable hijack.conf is refused"
chmod 644 "$CONF"; chown "$(id -u $A)" "$CONF"; try_conf "hijack.conf owned by the user is refused"
chown root "$CONF"
write_conf "$A	$HJ_RUN/../web1"; try_conf "a rule climbing out with .. is refused"
write_conf "$A	$HJ_RUN//web1"; try_conf "a rule with a doubled slash is refused"
write_conf "$A	$HJ_RUN/web1 shel=/bin/sh"; try_conf "a typo in an option is refused (not ignored)"
printf '%s\t%s/web1\0\n' "$A" "$HJ_RUN" > "$CONF"; try_conf "a NUL byte in the file is refused"
rm -f "$CONF"; try_conf "a missing hijack.conf refuses mapped users (hijack-shell is their shell)"
mkfifo "$CONF"; try_conf "a FIFO in place of hijack.conf is refused (no hang)"
rm -f "$CONF"

# -- 13: a bind mount inside cgroupfs cannot redirect a rule
V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
V1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/self/mounts)
BASE=${V2:-$V1}
mkdir -p "$BASE/$HJ_RUN/bindx"
mount --bind "$BASE/$HJ_RUN/web2" "$BASE/$HJ_RUN/bindx"
HJ_CLEANUP=("umount '$BASE/$HJ_RUN/bindx'" "${HJ_CLEANUP[@]}")
write_conf "$A	$HJ_RUN/bindx"
out=$(as $A -- -c hostname 2>&1)
isnt "a cgroup bind-mounted over the rule's path is not followed to web2" "$out" web2
isnt "... and does not land on the host either" "$out" "$(hostname)"
umount "$BASE/$HJ_RUN/bindx"; HJ_CLEANUP=("${HJ_CLEANUP[@]:1}")

# -- 14-15: first match wins; a user with two rules
write_conf "@$G	$HJ_RUN/web2" "$B	$HJ_RUN/web1"
is "two rules: the first match (group) wins" "$(as $B -- -c hostname 2>/dev/null)" web2
write_conf "$B	$HJ_RUN/web1" "@$G	$HJ_RUN/web2"
is "two rules: the first match (user) wins" "$(as $B -- -c hostname 2>/dev/null)" web1

# -- 16: a very long user name through a template
write_conf "$LONG	$HJ_RUN/web1	name=%u"
is "a 31-character user name through a template" "$(as $LONG -- -c hostname 2>/dev/null)" web1

# -- 17-18: the container's passwd and shell run unprivileged only
write_conf "$A	$HJ_RUN/web1"
sed -i "s|^$A:.*|$A:x:$(id -u $A):$(id -g $A)::/home/$A:/bin/evilsh|" "$R1/etc/passwd"
printf '#!/bin/sh\ngrep -E "^CapEff|^CapPrm" /proc/self/status | tr -s "\\t " " "\n' > "$R1/bin/evilsh"
chmod 755 "$R1/bin/evilsh"
is "the container's own login shell for the user runs without capabilities" \
	"$(as $A -- -c true 2>/dev/null | tr '\n' ' ')" "CapPrm: 0000000000000000 CapEff: 0000000000000000 "
ln -sf /proc/1/root/etc/shadow "$R1/etc/passwd.evil"
mv "$R1/etc/passwd" "$R1/etc/passwd.real"; ln -s /etc/passwd.evil "$R1/etc/passwd"
is "a symlinked /etc/passwd inside falls back to /bin/sh, reads nothing of the host" \
	"$(as $A -- -c 'echo $SHELL:$HOME' 2>/dev/null)" "/bin/sh:/"
rm -f "$R1/etc/passwd" "$R1/etc/passwd.evil"; mv "$R1/etc/passwd.real" "$R1/etc/passwd"
sed -i "s|:/bin/evilsh$|:/bin/sh|" "$R1/etc/passwd"

# -- 19: fds of the host (CVE-2024-21626)
exec 7<"$CONF"
is "no host fd reaches the container (caller's fd 7 open)" \
	"$(as $A -- -c 'ls /proc/self/fd | sort -n | tr "\n" " "' 2>/dev/null)" "0 1 2 3 "
exec 7<&-

# -- 20: a container whose cwd is a host directory (CVE-2024-21626)
mkdir -p "$D/hostdir"; echo secret > "$D/hostdir/secret"
cg_create chr
(
	for h in $(hj_hierarchies); do echo "$BASHPID" > "$(cg_path "$h" chr)/cgroup.procs"; done
	cd "$D/hostdir" && exec unshare --fork --pid --mount --uts --mount-proc \
		python3 -c 'import os, sys; os.chroot(sys.argv[1]); os.execv("/bin/sleep", ["sleep", "1000000"])' "$R2"
) </dev/null >/dev/null 2>&1 &
HJ_PIDS+=("$!")
CI=$(wait_init "$!")
HJ_PIDS+=("$CI")
diag "chroot container init $CI, cwd $(readlink /proc/$CI/cwd)"
is "the target's cwd is outside its root: entry lands in / instead" \
	"$("$top_builddir/hijack/hijack" pid "$CI" sh -c 'pwd; cat secret 2>/dev/null' | tr '\n' ' ')" "/ "

# -- 21-23: the privileged process cannot be inspected or hijacked
write_conf "$A	$HJ_RUN/web1"
as $A -- -c 'sleep 30' >/dev/null 2>&1 &
bgp=$!
parent=""
# setpriv and env exec: the subshell's child becomes hijack-shell
for i in $(seq 100); do
	parent=$(pgrep -P "$bgp" -x hijack-shell) && pgrep -P "$parent" >/dev/null && break
	parent=""
	sleep 0.05
done
if [ -n "$parent" ]; then
	check "the user cannot read the environ of their hijack-shell (non-dumpable)" \
		bash -c "! setpriv --reuid=$(id -u $A) --regid=$(id -g $A) --clear-groups cat /proc/$parent/environ >/dev/null 2>&1"
	check "the user cannot ptrace their hijack-shell" \
		bash -c "! setpriv --reuid=$(id -u $A) --regid=$(id -g $A) --clear-groups $top_builddir/tests/helpers/hj-ptrace $parent >/dev/null 2>&1"
	inside=$("$top_builddir/hijack/hijack" pid "$I1" sh -c 'for p in /proc/[0-9]*; do readlink $p/exe; done' 2>/dev/null)
	check "container root sees no process running the host's hijack-shell (CVE-2019-5736)" \
		bash -c "! grep -q hijack-shell <<<'$inside'"
	is "the waiting parent runs hijack-shell's waiter" "$(readlink "/proc/$parent/exe")" "$WAITER"
	check "the waiter's binary cannot be opened for writing while in use" \
		bash -c "! (: >> '$WAITER') 2>/dev/null"
	kill -KILL "$parent"
	sleep 0.3
	left=$(pgrep -u "$(id -u $A)" -f '^sleep 30$' | while read -r p; do
		[ "$(ns_of "$p" pid)" = "$(ns_of $$ pid)" ] && echo "$p"; done)
	is "killing the waiting parent leaves nothing of the session on the host" "$left" ""
else
	not_ok "found the session parent"
fi
wait "$bgp" 2>/dev/null

# The waiter is installed executable but not readable by users (0711): the
# kernel then keeps it non-dumpable from the exec on, while the loader
# runs, before its main() says so itself.  A preloaded constructor, run
# before main(), tells; a readable copy is the control.
P=$(mktemp -d /tmp/hjt-dump.XXXXXX)
HJ_CLEANUP+=("rm -rf '$P'")
chmod 755 "$P"
cat > "$P/dump.c" <<'EOF'
#include <stdio.h>
#include <sys/prctl.h>
__attribute__((constructor)) static void before_main(void)
{
	fprintf(stderr, "dumpable=%d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
}
EOF
gcc -shared -fPIC -o "$P/libdump.so" "$P/dump.c"
cp "$WAITER_BIN" "$P/readable-wait"
chmod 755 "$P/readable-wait"
# a sanitized waiter (--enable-asan) wants its runtime preloaded first
pre=$(asan_preload "$WAITER_BIN")
before_main() {
	setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --clear-groups --no-new-privs \
		env -i LD_PRELOAD="${pre:+$pre }$P/libdump.so" "$1" 2>&1 | head -n1
}
is "the waiter as installed is 0711" "$(stat -c %a "$WAITER")" 711
is "... and is non-dumpable before its main() runs" "$(before_main "$WAITER")" dumpable=0
is "... where a readable copy is not (the check can tell)" "$(before_main "$P/readable-wait")" dumpable=1

# -- 24: TIOCSTI into the session's terminal stays inside (pty of its own)
cp "$top_builddir/tests/helpers/hj-tiocsti" "$R1/bin/" 2>/dev/null
out=$(script -qec "$(printf '%q ' setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups -- "$HS" -c "hj-tiocsti 'touch /tmp/sti-$id
'")" /dev/null 2>&1)
sleep 0.5
check "TIOCSTI from inside cannot make the host run anything" test ! -e "/tmp/sti-$id"

# -- 25: a container that stops, or whose init dies, mid-way
write_conf "$A	$HJ_RUN/web2"
ct_kill "$I2"
out=$(as $A -- -c hostname 2>&1); rc=$?
isnt "a container whose init died refuses the login" "$rc" 0
like "... with a message saying so" "$out" "not running"
is "... and never lands on the host" "$(grep -c "^$(hostname)$" <<<"$out")" 0

# -- 26: concurrent logins of one user all land in the same container
write_conf "$A	$HJ_RUN/web1"
conc=()
for i in $(seq 20); do as $A -- -c hostname > "$D/conc.$i" 2>&1 & conc+=($!); done
wait "${conc[@]}"
is "20 concurrent logins of one user: all in web1" "$(cat "$D"/conc.* | sort | uniq -c | awk '{print $1, $2}')" "20 web1"

# -- 27: the user cannot pick another user's container with arguments
is "hijack-shell refuses unknown arguments (no --target, no -c - games)" \
	"$(as $A -- --cgroup "$HJ_RUN/web2" -c hostname >/dev/null 2>&1; echo $?)" 2
out=$(as $A -- --check $B 2>&1); rc=$?
isnt "a user may not run --check for another user" "$rc" 0

# -- 28-34: never the host by accident: only a container's init is entered,
# found anywhere in the rule's subtree; stopped=host only for a missing cgroup
host_in_cgroup hostonly || bail_out "hostonly"
write_conf "$A	$HJ_RUN/hostonly	stopped=host"
out=$(as $A -- -c hostname 2>&1); rc=$?
isnt "a cgroup holding only a host process (stopped=host) refuses the login" "$rc" 0
is "... and never lands on the host" "$(grep -c "^$(hostname)$" <<<"$out")" 0
# systemd in a container moves itself into init.scope; crun uses <scope>/container
ct_start sysd sysd "$R2" || bail_out "sysd"
IS=$CT_INIT
cg_create sysd/init.scope
for h in $(hj_hierarchies); do echo "$IS" > "$(cg_path "$h" sysd/init.scope)/cgroup.procs"; done
write_conf "$A	$HJ_RUN/sysd	stopped=host"
is "an init in a child cgroup (init.scope) is found: the container is running" \
	"$(as $A -- -c hostname 2>/dev/null)" sysd
# two containers in one subtree: which one?  refused
ct_start pair/a paira "$R2" || bail_out "pair/a"
ct_start pair/b pairb "$R2" || bail_out "pair/b"
write_conf "$A	$HJ_RUN/pair	stopped=host"
out=$(as $A -- -c hostname 2>&1); rc=$?
isnt "two containers in the rule's subtree refuse the login" "$rc" 0
is "... nor the host" "$(grep -cE "^($(hostname)|paira|pairb)$" <<<"$out")" 0
# an existing, empty cgroup is not a stopped container
cg_create emptyx
write_conf "$A	$HJ_RUN/emptyx	stopped=host"
out=$(as $A -- -c hostname 2>&1); rc=$?
like "an empty existing cgroup (stopped=host) refuses the login" "rc=$rc $out" "^rc=1 .*not running"
is "... and never lands on the host" "$(grep -c "^$(hostname)$" <<<"$out")" 0

# -- 33-38: the group database fails (an LDAP or sssd timeout): refuse, never
# skip the group rule.  A real NSS module that answers UNAVAIL/ETIMEDOUT for
# groups, found through an ld.so.cache and nsswitch.conf of this mount
# namespace only.
mkdir -p "$D/nss"
# One module, built twice: hjfail answers UNAVAIL with ETIMEDOUT (a
# directory that times out), hjhang never answers (one that is silent).
cat > "$D/nss/hjnss.c" <<'EOF2'
#include <errno.h>
#include <grp.h>
#include <nss.h>
#include <stddef.h>
#include <unistd.h>
#include <sys/types.h>
#define F(x) F2(NAME, x)
#define F2(n, x) F3(n, x)
#define F3(n, x) _nss_##n##_##x
#ifdef HANG
#define BODY { for (;;) pause(); }
#else
#define BODY { *errnop = ETIMEDOUT; return NSS_STATUS_UNAVAIL; }
#endif
enum nss_status F(getgrnam_r)(const char *n, struct group *g,
	char *b, size_t l, int *errnop) BODY
enum nss_status F(getgrgid_r)(gid_t gid, struct group *g,
	char *b, size_t l, int *errnop) BODY
enum nss_status F(initgroups_dyn)(const char *u, gid_t gid,
	long *start, long *size, gid_t **groups, long limit, int *errnop) BODY
#ifndef HANG
enum nss_status F(setgrent)(int stay) { return NSS_STATUS_UNAVAIL; }
enum nss_status F(getgrent_r)(struct group *g, char *b, size_t l,
	int *errnop) BODY
#endif
EOF2
gcc -shared -fPIC -DNAME=hjfail -o "$D/nss/libnss_hjfail.so.2" "$D/nss/hjnss.c"
gcc -shared -fPIC -DNAME=hjhang -DHANG -o "$D/nss/libnss_hjhang.so.2" "$D/nss/hjnss.c"
{ echo "include /etc/ld.so.conf.d/*.conf"; echo "$D/nss"; } > "$D/nss/ld.so.conf"
ldconfig -X -C "$D/nss/ld.so.cache" -f "$D/nss/ld.so.conf"
sed 's/^group:.*/group: files hjfail/' /etc/nsswitch.conf > "$D/nss/nsswitch.conf"
chmod 644 "$D/nss/"*
mount --bind "$D/nss/ld.so.cache" /etc/ld.so.cache
mount --bind "$D/nss/nsswitch.conf" /etc/nsswitch.conf
HJ_CLEANUP=("umount /etc/nsswitch.conf; umount /etc/ld.so.cache" "${HJ_CLEANUP[@]}")
write_conf "@hjtnss$id	$HJ_RUN/sysd" "*	-"
out=$(as $A -- -c hostname 2>&1); rc=$?
isnt "a group rule whose lookup fails refuses the login (no fall through to '* -')" "$rc" 0
is "... never the host" "$(grep -c "^$(hostname)$" <<<"$out")" 0
like "... and says which group could not be looked up" "$out" "$CONF:1: cannot look up group hjtnss$id: Connection timed out"
# pam_hijack, through a real PAM stack
SVCN=hjtest-nss-$$
printf 'account required %s conf=%s\naccount required pam_permit.so\n' "$MODULE" "$CONF" > "/etc/pam.d/$SVCN"
HJ_CLEANUP+=("rm -f /etc/pam.d/$SVCN")
if command -v pamtester >/dev/null; then
	env "${pt_env[@]}" pamtester "$SVCN" "$A" acct_mgmt >/dev/null 2>&1; rc=$?
	isnt "pam_hijack refuses the account when the group lookup fails" "$rc" 0
	write_conf "@$G	$HJ_RUN/sysd" "*	-"
	env "${pt_env[@]}" pamtester "$SVCN" "$B" acct_mgmt >/dev/null 2>&1; rc=$?
	is "... a group the files database answers for still works" "$rc" 0
else
	skip "pam_hijack refuses the account when the group lookup fails" "no pamtester"
	skip "... a group the files database answers for still works" "no pamtester"
fi
write_conf "@$G	$HJ_RUN/sysd" "*	-"
is "hijack-shell: a group from files still enters its container" "$(as $B -- -c hostname 2>/dev/null)" sysd
# a directory that never answers (sssd waiting on an LDAP server that
# accepts and is silent, a stopped responder): the lookup has a deadline
# (HJ_LOOKUP_MS, 15 s), and the login is refused, never held
# (setpriv would hang itself, asking the group database: the ids are
# taken now, and python switches to them without NSS)
ua="$(id -u "$A") $(id -g "$A") $(id -G "$A" | tr ' ' ,)"
ub="$(id -u "$B") $(id -g "$B") $(id -G "$B" | tr ' ' ,)"
as_g() { # "UID GID GROUPS" args
	timeout 60 python3 -c '
import os, sys
uid, gid, groups = sys.argv[1].split()
os.setgroups([int(g) for g in groups.split(",")])
os.setgid(int(gid))
os.setuid(int(uid))
os.execve(sys.argv[2], sys.argv[2:], {"PATH": "/usr/bin:/bin", "TERM": "dumb"})
' "$1" "$HS" "${@:2}"
}
# (the mounted file is rewritten in place: it is /etc/nsswitch.conf)
sed 's/^group:.*/group: files hjhang/' "$D/nss/nsswitch.conf" > "$D/nss/nsswitch.new"
cat "$D/nss/nsswitch.new" > "$D/nss/nsswitch.conf"
write_conf "$A	$HJ_RUN/sysd" "@hjtnss$id	$HJ_RUN/sysd" "*	-"
is "a user rule before the group rule: no lookup, no wait" \
	"$(as_g "$ua" -c hostname 2>/dev/null)" sysd
t0=$(date +%s)
out=$(as_g "$ub" -c hostname 2>&1); rc=$?
t=$(($(date +%s) - t0))
isnt "a group lookup that never answers refuses the login" "$rc" 0
check "... at its deadline, not before and not much after (${t}s)" test "$t" -ge 14 -a "$t" -le 30
is "... never the host" "$(grep -c "^$(hostname)$" <<<"$out")" 0
like "... and says so" "$out" "the user and group databases did not answer for $B within 15 s"
is "... no lookup process is left behind" \
	"$(pgrep -f "^$HS" | while read -r p; do [ "$(stat -c %u /proc/$p)" = "$(id -u $B)" ] && echo $p; done | wc -l)" 0
if command -v pamtester >/dev/null; then
	t0=$(date +%s)
	env "${pt_env[@]}" timeout 60 pamtester "$SVCN" "$B" acct_mgmt >/dev/null 2>&1; rc=$?
	t=$(($(date +%s) - t0))
	isnt "pam_hijack: a group lookup that never answers refuses the account" "$rc" 0
	check "... at its deadline (${t}s)" test "$t" -ge 14 -a "$t" -le 30
else
	skip "pam_hijack: a group lookup that never answers refuses the account" "no pamtester"
	skip "... at its deadline" "no pamtester"
fi
# a source that cannot answer at all (its module missing, as libnss_sss
# without sssd fails with ENOENT, as sssd offline with nothing cached
# says "not found"): the group is unknown, and a group rule no database
# knows refuses rather than falling through to '* -'
sed 's/^group:.*/group: files hjmissing/' "$D/nss/nsswitch.conf" > "$D/nss/nsswitch.new"
cat "$D/nss/nsswitch.new" > "$D/nss/nsswitch.conf"
write_conf "@hjtnss$id	$HJ_RUN/sysd" "*	-"
out=$(as_g "$ub" -c hostname 2>&1); rc=$?
isnt "a group rule whose source is missing refuses the login" "$rc" 0
is "... never the host ('* -' after it)" "$(grep -c "^$(hostname)$" <<<"$out")" 0
like "... and says why" "$out" "$CONF:1: cannot look up group hjtnss$id: no group database knows it \\(or its directory is down\\)"
write_conf "@$G	$HJ_RUN/sysd" "*	-"
is "... while a group the files database knows still enters its container" \
	"$(as_g "$ub" -c hostname 2>/dev/null)" sysd
umount /etc/nsswitch.conf; umount /etc/ld.so.cache; HJ_CLEANUP=("${HJ_CLEANUP[@]:1}")

# == a session is a process of the container, never more ==

# -- TIOCSTI: sti.sh REDIRECT runs a session that pushes a command line
# into the terminal on its fd 1, then a host shell on that terminal reads
# a line and runs it.  Both with the terminal on stdout only (stdin
# redirected) and on stdin too.
write_conf "$A	$HJ_RUN/web1"
cat > "$D/sti.sh" <<EOF
#!/bin/bash
session() {
	setpriv --reuid=$(id -u $A) --regid=$(id -g $A) --init-groups -- \\
		"$HS" -c "hj-tiocsti 'touch /tmp/sti2-$id
' <&1"
}
if [ "\${1-}" = stdin-null ]; then session </dev/null; else session; fi
read -r -t 3 line && eval "\$line"
EOF
chmod 755 "$D/sti.sh"
rm -f "/tmp/sti2-$id"
# (script's own stdin stays open meanwhile: at EOF it would type ^D)
sleep 4 | script -qec "$D/sti.sh stdin-null" /dev/null >/dev/null 2>&1
check "stdout on a terminal, stdin not: TIOCSTI from inside types nothing into the host's terminal" \
	test ! -e "/tmp/sti2-$id"
rm -f "/tmp/sti2-$id"
sleep 4 | script -qec "$D/sti.sh" /dev/null >/dev/null 2>&1
check "stdin on a terminal: TIOCSTI from inside types nothing into the host's terminal either" \
	test ! -e "/tmp/sti2-$id"
rm -f "/tmp/sti2-$id"

# -- without any terminal the session still leads a session of its own
# (no controlling terminal of the host to reach)
is "a session without a terminal is a session leader" \
	"$(as $A -- -c 'set -- $(cat /proc/$$/stat); [ "$6" = $$ ] && echo leader || echo "sid $6"' 2>&1 </dev/null)" leader

# -- cwd= is entered after dropping privileges, not with CAP_DAC_OVERRIDE
mkdir -p "$R1/root/private"; chmod 700 "$R1/root" "$R1/root/private"
write_conf "$A	$HJ_RUN/web1	cwd=/root/private"
out=$(as $A -- -c pwd 2>&1); rc=$?
like "cwd= a directory the user cannot enter: refused, not entered with privilege" \
	"$rc:$out" "^126:.*cannot change to /root/private"
write_conf "$A	$HJ_RUN/web1	cwd=/tmp"
is "cwd= a directory the user may enter is the session's cwd" "$(as $A -- -c pwd 2>&1)" /tmp

# -- supplementary groups are the container's for the user, not the host's
write_conf "$B	$HJ_RUN/web1"
echo "ctrgrp:x:4242:$A,$B" >> "$R1/etc/group"
echo "other:x:4343:$A" >> "$R1/etc/group"
gids=$(as $B -- -c 'id -G' 2>&1)
is "groups: the container's /etc/group for the user, never the host's ($G)" "$gids" "$(id -g $B) 4242"
gid_g=$(getent group "$G" | cut -d: -f3)
isnt "... and the host's group $G ($gid_g) is not among them" "$(tr ' ' '\n' <<<"$gids" | grep -x "$gid_g")" "$gid_g"
cp "$R1/etc/group" "$D/group.keep"
for g in $(seq 5000 6100); do echo "g$g:x:$g:$B"; done >> "$R1/etc/group"
out=$(as $B -- -c 'id -G' 2>&1); rc=$?
like "groups: more than 1024 in the container's /etc/group refuses the login" "rc=$rc $out" "^rc=126 .*groups"
cp "$D/group.keep" "$R1/etc/group"

# -- a setuid-root install (a packaging mistake) never leaves euid 0: the
# postcondition holds on every path, the host path of stopped=host included
cp "$HS" "$D/hijack-shell-suid"; setcap -r "$D/hijack-shell-suid" 2>/dev/null
chown root:root "$D/hijack-shell-suid"; chmod 4755 "$D/hijack-shell-suid"
# (a shell that keeps a setuid euid: dash and bash would drop it themselves)
write_conf "$A	$HJ_RUN/stopped-$id	stopped=host	shell=/usr/bin/python3"
is "setuid-root hijack-shell, stopped=host: the shell on the host runs as the user, euid included" \
	"$(setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups -- env -i PATH=/usr/bin:/bin \
		"$D/hijack-shell-suid" -c 'import os; print(os.geteuid(), os.getuid())' 2>&1)" "$(id -u $A) $(id -u $A)"
write_conf "$A	$HJ_RUN/web1"
is "setuid-root hijack-shell, container rule: the session runs as the user, euid included" \
	"$(setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups -- env -i PATH=/usr/bin:/bin \
		"$D/hijack-shell-suid" -c 'hostname; id -u' 2>&1 | tr '\n' ' ')" "web1 $(id -u $A) "
rm -f "$D/hijack-shell-suid"

# -- two accounts sharing a uid: PAM knows the login by name, the shell
# by uid; pam_hijack maps S to web1, the uid's first name A to the host
S=hjts$id
"$U" useradd "$S" -M -o -u "$(id -u $A)" -g "$(id -g $A)" -s "$HS" >/dev/null
HJ_CLEANUP+=("'$U' del $S >/dev/null 2>&1")
write_conf "$S	$HJ_RUN/web1" "$A	-"
sshd_start "$D/sshd" "$S" "$A"
out=$(s "$S" 'hostname; cat /etc/hijack-marker 2>/dev/null || echo host' 2>&1); rc=$?
like "accounts sharing a uid: the login of $S (mapped to web1) is refused" "rc=$rc $(tr '\n' ' ' <<<"$out")" \
	"^rc=1 .*pam_hijack mapped this login for user $S"
isnt "... and never lands on the host as $A" "$(tail -n1 <<<"$out")" host
# hijack check against this sshd and PAM service: the uid is its one problem
chk() { HIJACK_CHECK_SSHD_CONFIG=$SSHD_CONFIG HIJACK_CHECK_PAM_SERVICE=$SVC hjcheck "$1" 2>&1; }
out=$(chk "$S"); rc=$?
is "accounts sharing a uid: hijack check $S exits 1" "$rc" 1
is "... with one PROBLEM, naming the uid's first account" "$(grep '^PROBLEM' <<<"$out" | sed 's/: hijack-shell.*//')" \
	"PROBLEM: uid $(id -u $A) is $A in the user database, not $S"
isnt "... and no 'RESULT: ok'" "$(grep '^RESULT' <<<"$out")" "RESULT: ok"
write_conf "$A	$HJ_RUN/web1"
out=$(chk "$A"); rc=$?
is "the uid's first account, mapped, checks out: exit 0" "$rc $(grep '^RESULT' <<<"$out")" "0 RESULT: ok"

# -- the headline attack: container root plants a setuid-root program as a
# mapped user's shell in the container's /etc/passwd.  The init is
# confined as docker confines one (bounding set, a seccomp filter); at the
# next login the program must get no more than container root has, and
# must not open the host's root directory by handle (CAP_DAC_READ_SEARCH,
# "shocker").
cat > "$D/evilsh.c" <<'EOF'
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main(void)
{
	struct { struct file_handle fh; unsigned char b[8]; } h;
	unsigned int ino = 2, gen = 0; /* the root of an ext4 filesystem */
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	int fd;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "CapEff:", 7) || !strncmp(line, "CapBnd:", 7) ||
		    !strncmp(line, "NoNewPrivs:", 11) || !strncmp(line, "Seccomp:", 8))
			fputs(line, stdout);
	h.fh.handle_bytes = 8;
	h.fh.handle_type = 1; /* FILEID_INO32_GEN */
	memcpy(h.fh.f_handle, &ino, 4);
	memcpy(h.fh.f_handle + 4, &gen, 4);
	fd = open_by_handle_at(open("/", O_RDONLY), &h.fh, O_RDONLY | O_DIRECTORY);
	printf("euid: %d\nhandle: %s\n", (int)geteuid(), fd >= 0 ? "opened" : "refused");
	return 0;
}
EOF
gcc -static -O2 -o "$D/evilsh" "$D/evilsh.c"
R3=$HJ_TMP/r3
make_rootfs "$R3" web3
cp "$top_builddir/tests/helpers/hj-confined" "$R3/bin/"
install -o root -m 4755 "$D/evilsh" "$R3/bin/evilsh"
rootfs_add_user "$R3" "$A" / /bin/evilsh
st() { awk -v k="$2:" '$1 == k { print $2 }' <<<"$1"; }
for nnp in "" -n; do
	CT_WRAP="/bin/hj-confined $nnp -f 1" ct_start "web3$nnp" web3 "$R3" ||
		bail_out "web3$nnp"
	I3=$CT_INIT
	init=$(cat "/proc/$I3/status")
	write_conf "$A	$HJ_RUN/web3$nnp"
	pam_session "$A" >/dev/null 2>&1
	out=$(as $A -- -c true 2>&1)
	diag "init $I3 ($nnp): $(st "$init" CapBnd) nnp $(st "$init" NoNewPrivs) seccomp $(st "$init" Seccomp); session: $(tr '\n' ' ' <<<"$out")"
	is "setuid-root shell planted by container root${nnp:+ (init with no_new_privs)}: bounding set is the init's" \
		"$(st "$out" CapBnd)" "$(st "$init" CapBnd)"
	eff=$(st "$out" CapEff)
	check "... its effective capabilities are within the init's bounding set" \
		test $(( 0x${eff:-ffffffffffffffff} & ~0x$(st "$init" CapBnd) )) = 0
	is "... no_new_privs as the init" "$(st "$out" NoNewPrivs)" "$(st "$init" NoNewPrivs)"
	is "... the init's seccomp filter" "$(st "$out" Seccomp)" 2
	is "... and the host's root directory cannot be opened by handle" "$(st "$out" handle)" refused
	if [ -n "$nnp" ]; then
		is "... no_new_privs: the setuid bit gives nothing" "$(st "$out" euid)" "$(id -u $A)"
	fi
	# root's own session is the container's root: the init's bounding
	# set, also under no_new_privs, and a dumpable shell
	write_conf "root	$HJ_RUN/web3$nnp	shell=/bin/hj-confined"
	pam_session root >/dev/null 2>&1
	is "root's session${nnp:+ (init with no_new_privs)}: uid 0 with the init's capabilities" \
		"$(as root -- -c caps 2>&1)" "0 $(st "$init" CapBnd) $(st "$init" CapBnd)"
	is "... and its shell is dumpable" "$(as root -- -c dumpable 2>&1)" 1
	ct_kill "$I3"
done

# -- concurrent logins into a container with a seccomp filter: each PAM
# session step wants a copy of the filter, one takes it with ptrace, and
# none may see another's hold on the init as "traced" (EBUSY)
CT_WRAP="/bin/hj-confined -f 1" ct_start web4 web4 "$R3" || bail_out "web4"
I4=$CT_INIT
write_conf "$B	$HJ_RUN/web4"
conc=()
for i in $(seq 20); do
	{ pam_session "$B" >/dev/null 2>&1; as $B -- -c hostname; } > "$D/conc4.$i" 2>&1 &
	conc+=($!)
done
wait "${conc[@]}"
grep -h hijack-shell "$D"/conc4.* | sort | uniq -c | sed "s/^/# /"
is "20 concurrent logins into a container with a seccomp filter: all in web4" \
	"$(cat "$D"/conc4.* | sort | uniq -c | awk '{print $1, $2}')" "20 web4"
is "... and its init is left running, untraced" \
	"$(awk '/^State:/ { s = $2 } /^TracerPid:/ { t = $2 } END { print s, t }' /proc/$I4/status)" "S 0"
ct_kill "$I4"

# -- an init whose filter cannot be copied (seccomp strict mode) refuses the
# login: never a session less confined than the init
CT_WRAP="/bin/hj-confined -S" CT_COMM=hj-confined ct_start web3s web3 "$R3" ||
	bail_out "web3s"
I3=$CT_INIT
write_conf "$A	$HJ_RUN/web3s"
out=$(as $A -- -c 'echo inside' 2>&1); rc=$?
like "an init in seccomp strict mode: the login is refused, saying why" "rc=$rc $out" \
	"^rc=1 .*seccomp strict mode"
is "... the strict-mode init was not disturbed" "$(awk '/^State:/ { print $2 }' /proc/$I3/status)" S
ct_kill "$I3"

# -- su -s: su honours -s only when the target's login shell is listed in
# /etc/shells.  hijack-shell is therefore never listed (the package does
# not add it): someone who knows a mapped user's password and runs
# `su -s /bin/sh USER` gets hijack-shell all the same, in the container.
write_conf "$A	$HJ_RUN/web1"
echo "$A:hj-pw-$id" | chpasswd
cat > "$D/su.py" <<'EOF'
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
out, sent, end = b"", False, time.time() + 20
while time.time() < end:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out += data
    if not sent and b"assword" in out:
        os.write(fd, sys.argv[1].encode() + b"\n")
        sent = True
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
EOF
su_as_b() { # SHELLS-FILE: su -s /bin/sh A, typed by user B, with that /etc/shells
	unshare --mount --propagation private bash -c "mount --bind '$1' /etc/shells &&
		setpriv --reuid=$(id -u $B) --regid=$(id -g $B) --init-groups -- \
		/usr/bin/python3 '$D/su.py' 'hj-pw-$id' su -s /bin/sh $A -c 'cat /etc/hijack-marker 2>/dev/null || echo on-the-host'"
}
grep -vx "$HS" /etc/shells > "$D/shells.unlisted"
out=$(su_as_b "$D/shells.unlisted" 2>&1)
like "su -s /bin/sh to a mapped user whose shell is not in /etc/shells: the container" "$out" "container-rootfs web1"
{ cat /etc/shells; echo "$HS"; } > "$D/shells.listed"
out=$(su_as_b "$D/shells.listed" 2>&1)
like "... listed in /etc/shells, su -s would land on the host (why it is not listed)" "$out" "on-the-host"
passwd -d "$A" >/dev/null

# -- container root parks its init (seccomp filter and all) in vfork(), a
# killable sleep that PTRACE_INTERRUPT cannot end: a copy of its filters
# waits for a stop that never comes.  The login through sshd is refused
# in bounded time, saying why, and the init is let go.  Once root holds
# a current copy, a login stops nothing: the parked init is no obstacle.
CT_COMM=hj-confined CT_WRAP="/bin/hj-confined -f 1 -P /park-$id" \
	ct_start web5 web5 "$R3" || bail_out "web5"
I5=$CT_INIT
write_conf "$A	$HJ_RUN/web5"
parked() { grep -q '^State:[[:space:]]*D' "/proc/$I5/status"; }
park() { # on|off
	local c
	if [ "$1" = on ]; then
		touch "$R3/park-$id"
		for _ in $(seq 100); do parked && return 0; sleep 0.05; done
		return 1
	fi
	rm -f "$R3/park-$id"
	for c in $(cat "/proc/$I5/task/$I5/children"); do kill "$c"; done
	for _ in $(seq 100); do parked || return 0; sleep 0.05; done
	return 1
}
check "web5's init is parked in vfork()" park on
t0=$(date +%s)
out=$(timeout 60 ssh -p "$PORT" "${SSHO[@]}" "$A@127.0.0.1" hostname 2>&1); rc=$?
t1=$(date +%s)
isnt "an init parked in vfork(), no copy of its filters yet: the ssh login is refused" "$rc" 0
like "... saying why" "$out" "cannot enter container web5: the container's init did not stop"
is "... and lands nowhere" "$(grep -cx 'web5\|'"$(hostname)" <<<"$out")" 0
check "... within 20 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 20
is "... the init is let go: not traced" "$(awk '/^TracerPid:/ { print $2 }' "/proc/$I5/status")" 0
check "... and still parked, as its root left it" parked
check "the init leaves vfork()" park off
# (A's shell in web3's rootfs is evilsh, which shows its own status)
like "... the next login copies its filters and lands, under the init's filter" \
	"$(s "$A" hostname 2>/dev/null)" "Seccomp:[[:space:]]+2"
check "the init parks in vfork() again" park on
like "with root's copy current, a login stops nothing: it lands beside the parked init" \
	"$(timeout 60 ssh -p "$PORT" "${SSHO[@]}" "$A@127.0.0.1" hostname 2>/dev/null)" "Seccomp:[[:space:]]+2"
check "... which is still parked" parked
park off

# -- container root serves its /etc/passwd from a FUSE server that never
# answers a read (hj-stuckfs: a regular file, so the reader's S_ISREG and
# O_NONBLOCK do not help).  The account is read inside by an unprivileged
# child of the session, which blocks in that read where even SIGKILL
# cannot end it: the login is refused within the report's deadline
# (HJ_CHILD_REPORT_MS, 10 s, and a 1 s grace to reap), hijack-shell does
# not wait on the child, and the child holds no capability.
R7=$HJ_TMP/r7
make_rootfs "$R7" web7
mkdir "$R7/stuck"
ct_start web7 web7 "$R7" || bail_out "web7"
# the server and its mount live in the container's mount namespace (and
# go with it); the server is ours, by PID, outside the container's cgroup
coproc SFP { exec "$top_builddir/tests/helpers/hj-stuckfs" \
	-n "/proc/$CT_INIT/ns/mnt" /stuck passwd @hang 2>&1; }
HJ_PIDS+=("$SFP_PID")
read -r -t 10 sfready <&"${SFP[0]}"
is "hj-stuckfs serves the container's /stuck" "$sfready" ready
nsenter -t "$CT_INIT" -m -- /bin/busybox mount --bind /stuck/passwd /etc/passwd
is "... and its passwd is the container's /etc/passwd" "$(nsenter -t "$CT_INIT" -m -- /bin/busybox stat -c %i /etc/passwd)" 2
write_conf "$A	$HJ_RUN/web7"
t0=$(date +%s)
# (timeout runs programs, not the function as; a refusal's exit leaks by
# design, which the ASan build must not count)
out=$(timeout -s KILL 60 setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" \
	--init-groups --inh-caps=-all -- \
	env -i PATH=/usr/bin:/bin TERM=dumb ASAN_OPTIONS=detect_leaks=0 \
	"$HS" -c hostname 2>&1); rc=$?
t1=$(date +%s)
is "a stuck FUSE /etc/passwd in the container: the login is refused (status 126)" "$rc" 126
like "... saying why" "$out" "cannot read the account of $A in the container: Connection timed out"
check "... within 20 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 20
# the reader is the only process of $A in web7 now: killed, blocked, bare
stuck=$(for p in $(cat "$(cg_path "$(hj_hierarchies | head -n1)" web7)/cgroup.procs"); do
	[ "$(stat -c %u "/proc/$p" 2>/dev/null)" = "$(id -u $A)" ] && echo "$p"; done)
is "... one reader of the login is left, blocked in the read" "$(echo "$stuck" | grep -c .)" 1
is "... holding no capability" "$(awk '/^CapEff|^CapPrm|^CapAmb/ {print $2}' "/proc/$stuck/status" 2>/dev/null | sort -u)" 0000000000000000
like "... with SIGKILL pending" "$(grep ^ShdPnd "/proc/$stuck/status" 2>/dev/null)$(grep ^SigPnd "/proc/$stuck/status" 2>/dev/null)" "0000000000000100"
# the same server stalls a working directory's lookup: hijack -w enters
# the container and then changes into it, where nothing answers
I7=$CT_INIT
t0=$(date +%s)
# (into a file: the killed intermediate keeps hijack's stdio open until
# the server goes, and a pipe would wait for it)
ASAN_OPTIONS=detect_leaks=0 timeout -s KILL 60 "$HIJACK" -w /stuck/hang \
	pid "$I7" true >"$HJ_TMP/hang.out" 2>&1; rc=$?
out=$(cat "$HJ_TMP/hang.out")
t1=$(date +%s)
is "hijack -w into a directory whose lookup never ends: refused (status 1)" "$rc" 1
like "... saying why" "$out" "cannot enter pid $I7 .*Connection timed out"
check "... within 20 s ($((t1 - t0)) s)" test $((t1 - t0)) -le 20
ct_kill "$SFP_PID"
deadline=$((SECONDS + 10))
# (a zombie of the container's init, which reaps nothing, or gone)
dead() { ! awk '/^State:/ { exit $2 == "Z" }' "/proc/$stuck/status" 2>/dev/null; }
while ! dead && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
check "... and it is dead once the server is" dead

# -- a user who may signal hijack-shell (run by hand, or --check) could
# stop it while it held the init in a ptrace stop.  It never ptraces:
# strace shows no ptrace() at all, as the user's login, --check and a
# hand-run session into an init with a filter of which root has no copy.
if command -v strace >/dev/null; then
	CT_WRAP="/bin/hj-confined -f 1" ct_start web6 web6 "$R3" || bail_out "web6"
	I6=$CT_INIT
	write_conf "$A	$HJ_RUN/web6"
	# (LeakSanitizer cannot run under ptrace: an --enable-asan build
	# would end --check with its fatal error instead of the report)
	trace() { # ARGS...: hijack-shell as A under strace; the ptrace calls
		strace -f -qq -e trace=ptrace -o "$D/strace.out" \
			setpriv --reuid="$(id -u $A)" --regid="$(id -g $A)" --init-groups \
			-- env -i PATH=/usr/bin:/bin ASAN_OPTIONS=detect_leaks=0 \
			"$HS" "$@" >"$D/strace.stdout" 2>&1
		grep -c 'ptrace(' "$D/strace.out"
	}
	is "hijack-shell by hand, no copy of the init's filters: no ptrace()" "$(trace -c hostname)" 0
	like "... and the session is refused, saying why" "$(cat "$D/strace.stdout")" \
		"cannot enter container web6 .*no copy of the init's seccomp filters"
	is "hijack-shell --check as the user: no ptrace()" "$(trace --check)" 0
	like "... it says no copy is there yet" "$(cat "$D/strace.stdout")" \
		"^cannot check: the seccomp filters of container web6's init"
	pam_session "$A" >/dev/null 2>&1
	is "after a PAM session step, hijack-shell by hand: no ptrace() either" "$(trace -c hostname)" 0
	like "... and the session runs in web6 under the init's filter" \
		"$(cat "$D/strace.stdout")" "Seccomp:[[:space:]]+2"
	is "the init was never traced" "$(awk '/^TracerPid:/ { print $2 }' "/proc/$I6/status")" 0
else
	not_ok "no strace (tests/deps.sh installs it)"
fi

# == a forward never reaches the host (pam_hijack(8), Forwarding) ==
# Decoys listen on the host's loopback only, IPv4 and IPv6, on a port
# nothing in web1 listens on; web1's network is its own, with its own
# loopback up (unshare --net leaves it down).  Each way a client could ask sshd
# to connect or listen for a mapped login is tried; a decoy that logs a
# request, or a listener on the host, is a forward that ran on the host.
# Without pam_hijack's network step each of these checks fails.
write_conf "$A	$HJ_RUN/web1"
nsenter --net="/proc/$I1/ns/net" ip link set lo up || bail_out "web1's lo"
FP=$(free_tcp_port)
decoy() { # NAME ADDRESS: an HTTP server whose requests go to $D/NAME.log
	mkdir -p "$D/www-$1" && echo host > "$D/www-$1/who"
	python3 -m http.server --bind "$2" --directory "$D/www-$1" "$FP" \
		</dev/null >/dev/null 2>"$D/$1.log" &
	HJ_PIDS+=("$!")
	wait_tcp_listen "" "$3:$FP" || bail_out "decoy $1 does not listen"
}
decoy d4 127.0.0.1 127.0.0.1
decoy d6 ::1 '\[::1\]'
hits() { cat "$D/d4.log" "$D/d6.log" | grep -c 'GET /'; }
is "the decoys answer on the host" \
	"$(curl --noproxy "*" -s --max-time 5 "http://127.0.0.1:$FP/who") $(curl --noproxy "*" -s --max-time 5 "http://[::1]:$FP/who")" "host host"
base=$(hits)
SSHD_TCP_FORWARDING=yes sshd_start "$D/sshd-fwd" "$A"
F=(ssh -p "$PORT" "${SSHO[@]}")
get='printf "GET /who HTTP/1.0\r\n\r\n"'
up() { wait_tcp_listen "" "$1"; }
for t in 127.0.0.1 '[::1]' localhost; do
	out=$(eval "$get" | timeout 20 "${F[@]}" -W "$t:$FP" "$A@127.0.0.1" 2>/dev/null)
	isnt "forward: -W $t:$FP does not reach the host's decoy" "$(tail -n1 <<<"$out")" host
done
LP=$(free_tcp_port)
"${F[@]}" -N -L "127.0.0.1:$LP:127.0.0.1:$FP" -L "127.0.0.1:$((LP + 1)):[::1]:$FP" "$A@127.0.0.1" &
fwd=$!
HJ_PIDS+=("$fwd")
if up "127.0.0.1:$LP"; then
	isnt "forward: -L to the host's 127.0.0.1 is the container's" "$(curl --noproxy "*" -s --max-time 5 "http://127.0.0.1:$LP/who")" host
	up "127.0.0.1:$((LP + 1))"
	isnt "forward: -L to the host's ::1 is the container's" "$(curl --noproxy "*" -s --max-time 5 "http://127.0.0.1:$((LP + 1))/who")" host
else
	not_ok "forward: -L listens on the client's side"
fi
kill "$fwd" 2>/dev/null; wait "$fwd" 2>/dev/null
DP=$(free_tcp_port)
"${F[@]}" -N -D "127.0.0.1:$DP" "$A@127.0.0.1" &
fwd=$!
HJ_PIDS+=("$fwd")
if up "127.0.0.1:$DP"; then
	for u in "http://127.0.0.1:$FP/who" "http://[::1]:$FP/who" "http://localhost:$FP/who"; do
		isnt "forward: -D (SOCKS) to $u is not the host's" \
			"$(curl --proxy "socks5h://127.0.0.1:$DP" -s --max-time 5 "$u")" host
	done
else
	not_ok "forward: -D listens on the client's side"
fi
kill "$fwd" 2>/dev/null; wait "$fwd" 2>/dev/null
M=$D/fwd-master
"${F[@]}" -M -S "$M" -N "$A@127.0.0.1" &
fwd=$!
HJ_PIDS+=("$fwd")
for _ in $(seq 200); do [ -S "$M" ] && break; sleep 0.05; done
LP=$(free_tcp_port)
"${F[@]}" -S "$M" -O forward -L "127.0.0.1:$LP:127.0.0.1:$FP" "$A@127.0.0.1" 2>/dev/null
if up "127.0.0.1:$LP"; then
	isnt "forward: a forward added to a ControlMaster is the container's" \
		"$(curl --noproxy "*" -s --max-time 5 "http://127.0.0.1:$LP/who")" host
else
	not_ok "forward: the ControlMaster's added forward listens"
fi
"${F[@]}" -S "$M" -O exit "$A@127.0.0.1" 2>/dev/null
wait "$fwd" 2>/dev/null
RP=$(free_tcp_port)
"${F[@]}" -N -R "127.0.0.1:$RP:127.0.0.1:9" -R "$((RP + 1)):127.0.0.1:9" "$A@127.0.0.1" &
fwd=$!
HJ_PIDS+=("$fwd")
wait_tcp_listen "$I1" ":$((RP + 1))"
check "forward: -R listens in web1's network" tcp_listens "$I1" ":$RP"
check "forward: -R 127.0.0.1:PORT never listens on the host" bash -c "! ss -ltnH | grep -q ':$RP '"
check "forward: -R PORT (any address) never listens on the host" bash -c "! ss -ltnH | grep -q ':$((RP + 1)) '"
kill "$fwd" 2>/dev/null; wait "$fwd" 2>/dev/null
is "forward: the host's decoys saw no request of a mapped login" "$(hits)" "$base"

done_testing
