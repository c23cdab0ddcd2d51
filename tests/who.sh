#!/bin/bash
# hijack who: three live ssh sessions (a real sshd, pam_hijack,
# hijack-shell) in two containers are listed with their user, container,
# cgroup, start time, client address and pids, each checked against what
# the kernel says about the processes; after logout the list is empty.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh ss setpriv setcap
D=$HJ_TMP/who
mkdir -p "$D"
U1=hjtw1$$ U2=hjtw2$$
hj_shell_install "$D"
hj_conf_take

U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 $U2 >/dev/null 2>&1")
for u in $U1 $U2; do
	"$U" useradd "$u" -M -s "$HS" >/dev/null
	usermod -p '*' -d "$D/home-$u" "$u"
done
for c in web1 web2; do
	make_rootfs "$HJ_TMP/r-$c" "$c"
	chmod 1777 "$HJ_TMP/r-$c/tmp"
done
ct_start web1 web1 "$HJ_TMP/r-web1" || bail_out "container web1"
I1=$CT_INIT
ct_start web2 web2 "$HJ_TMP/r-web2" || bail_out "container web2"
I2=$CT_INIT
printf '%s\t%s\tname=one\n%s\t%s\tname=two\n' "$U1" "$HJ_RUN/web1" \
	"$U2" "$HJ_RUN/web2" > "$CONF"
chmod 644 "$CONF"
sshd_start "$D" $U1 $U2

# the header, and nothing else, before anyone logs in
who() { "$HIJACK" --shell "$HS" who "$@"; }
who_rows() { who | tail -n +2; }
is "no session: only the header" "$(who)" \
	"USER CONTAINER SINCE FROM RELAY SESSION CGROUP"
is "no session: no row" "$(who_rows | wc -l)" 0
out=$(setpriv --reuid 65534 --regid 65534 --clear-groups "$HIJACK" --shell "$HS" who 2>&1)
rc=$?
is "hijack who as another user: refused" "$rc" 1
like "... saying why" "$out" "only root may list the sessions"

# three sessions, each reading a fifo until logout: the readers first, so
# that no client inherits another session's write end
t0=$(date +%s)
start() { # N USER [COMMAND-PREFIX]
	mkfifo "$D/f$1"
	ssh -p "$PORT" "${SSHO[@]}" "$2@127.0.0.1" "exec ${3-}cat >/dev/null" \
		< "$D/f$1" >/dev/null 2>&1 &
	eval "C$1=\$!"
}
start 1 "$U1"
start 2 "$U1"
# the third says it comes from elsewhere: a session's environment is its
# user's to change, and hijack who must not believe it
start 3 "$U2" "env SSH_CONNECTION='10.6.6.6 4242 10.0.0.1 22' "
exec {W1}>"$D/f1" {W2}>"$D/f2" {W3}>"$D/f3"
for i in $(seq 100); do
	[ "$(who_rows | wc -l)" = 3 ] && break
	sleep 0.1
done
rows=$(who_rows)
t1=$(date +%s)
diag "$rows"
is "three sessions, three rows" "$(wc -l <<<"$rows")" 3

cg2() { sed -n 's/^0:://p' "/proc/$1/cgroup"; }
# the client's own end of its connection, as ss sees the ssh process
client_port() {
	ss -tnpH state established "( dport = :$PORT )" |
		awk -v p="pid=$1," 'index($0, p) { print $3 }'
}
# check N USER CONTAINER INIT: the row of client N
check_row() {
	local n=$1 user=$2 name=$3 init=$4 c from row since relay sess
	eval "c=\$C$n"
	from=$(client_port "$c")
	row=$(awk -v f="$from" '$4 == f' <<<"$rows")
	is "session $n: one row from the client's address $from" \
		"$(grep -c . <<<"$row")" 1
	read -r r_user r_name since r_from relay sess r_cg <<<"$row"
	is "session $n: user" "$r_user" "$user"
	is "session $n: container (the rule's name)" "$r_name" "$name"
	if [ -n "$(cg2 "$init")" ]; then
		is "session $n: cgroup is the container's" "$r_cg" "$(cg2 "$init")"
	else
		like "session $n: cgroup is the container's" "$r_cg" "/$HJ_RUN/$name"
	fi
	# boot time (btime) and the start in clock ticks are both cut to
	# whole seconds: up to 2 s early
	since=$(date -d "$since" +%s 2>/dev/null || echo 0)
	check "session $n: since the login ($since in [$t0 - 2, $t1])" \
		test "$since" -ge "$((t0 - 2))" -a "$since" -le "$t1"
	is "session $n: the relay is hijack-shell's waiter" "$(readlink "/proc/$relay/exe")" "$WAITER"
	is "session $n: the relay runs as the user" \
		"$(awk '/^Uid:/ { print $2 }' "/proc/$relay/status")" "$(id -u "$user")"
	is "session $n: the session is the relay's child" \
		"$(awk '/^PPid:/ { print $2 }' "/proc/$sess/status")" "$relay"
	is "session $n: the session is in the container's pid namespace" \
		"$(ns_of "$sess" pid)" "$(ns_of "$init" pid)"
}
check_row 1 "$U1" one "$I1"
check_row 2 "$U1" one "$I1"
check_row 3 "$U2" two "$I2"
sess3=$(awk -v u="$U2" '$1 == u { print $6 }' <<<"$rows")
like "the forged SSH_CONNECTION reached the session" \
	"$(tr '\0' '\n' < "/proc/$sess3/environ")" "^SSH_CONNECTION=10\.6\.6\.6 "
is "... yet hijack who gives the connection's real peer" \
	"$(awk -v u="$U2" '$1 == u { print $4 }' <<<"$rows")" "$(client_port "$C3")"
is "two sessions of one user have two relays" \
	"$(awk -v u="$U1" '$1 == u { print $5 }' <<<"$rows" | sort -u | wc -l)" 2

# relays are the files hijack-shell waits from, --shell's and its waiter
# at the path compiled in (hijack-shell-wait), not whatever is called
# hijack-shell
mkdir -p "$D/other" "$D/nowaiter"
cp "$HS" "$D/other/hijack-shell"
is "another file named hijack-shell lists the sessions of the waiter only" \
	"$("$HIJACK" --shell "$D/other/hijack-shell" who | tail -n +2 | wc -l)" 3
mount --bind "$D/nowaiter" "$(dirname "$WAITER")"
is "... and with no waiter installed, none" \
	"$("$HIJACK" --shell "$D/other/hijack-shell" who | tail -n +2 | wc -l)" 0
is "... while --shell naming the relays' hijack-shell file lists none either (theirs is the waiter)" \
	"$("$HIJACK" --shell "$HS" who | tail -n +2 | wc -l)" 0
umount "$(dirname "$WAITER")"
out=$("$HIJACK" --shell "$HS" who extra 2>&1); rc=$?
is "hijack who with an argument: bad usage" "$rc:$(head -n1 <<<"$out")" \
	"1:hijack: who takes no argument"
out=$("$HIJACK" --shell hijack-shell who 2>&1); rc=$?
is "hijack who --shell with a relative path: refused" "$rc:$(head -n1 <<<"$out")" \
	"1:hijack: --shell needs an absolute path, not 'hijack-shell'"
out=$("$HIJACK" --shell "$D/nonexistent" who 2>&1); rc=$?
is "hijack who --shell naming no file: refused" "$rc:$out" \
	"1:hijack: cannot find hijack-shell at $D/nonexistent: No such file or directory"
is "hijack-shell itself lists nothing any more: it has no --who" \
	"$("$HS" --who >/dev/null 2>&1; echo $?)" 2
# an upgrade replaces the files under the running relays
cp "$HS" "$D/hs.new"
setcap "$HIJACK_SHELL_CAPS" "$D/hs.new"
mv "$D/hs.new" "$HS"
cp "$WAITER" "$D/libexec/wait.new"
mv "$D/libexec/wait.new" "$WAITER"
is "the relays' file reads as replaced" \
	"$(readlink "/proc/$(who_rows | awk 'NR == 1 { print $5 }')/exe")" "$WAITER (deleted)"
is "after the files are replaced (an upgrade), the sessions are still listed" \
	"$(who_rows | wc -l)" 3

# a rule changed since the login: the container is no longer vouched for
printf '%s\t%s\tname=two\n' "$U1" "$HJ_RUN/web2" > "$CONF"
is "a rule moved elsewhere since the login: container '?'" \
	"$(who | awk -v u="$U1" '$1 == u { print $2 }' | sort -u)" "?"
printf '%s\t%s\tname=one\n%s\t%s\tname=two\n' "$U1" "$HJ_RUN/web1" \
	"$U2" "$HJ_RUN/web2" > "$CONF"

# A cgroup's name is its creator's (a rootless user names the ones
# delegated to it): a row never carries its bytes raw.
evil=$'\r\e[2K\e[1A'
c2=$(cg2 "$sess3")
h2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
if [ -n "$c2" ] && [ -n "$h2" ] && mkdir "$h2$c2/$evil" &&
	echo "$sess3" > "$h2$c2/$evil/cgroup.procs"; then
	out=$(who)
	is "a session in a cgroup named with control bytes: none in hijack who's output" \
		"$(LC_ALL=C tr -d '\n -~' <<<"$out" | wc -c)" 0
	like "... the name escaped" "$(grep "^$U2 " <<<"$out")" ' /.*/\\x0d\\x1b\[2K\\x1b\[1A$'
	echo "$sess3" > "$h2$c2/cgroup.procs"
	rmdir "$h2$c2/$evil"
else
	not_ok "cannot move session 3 into a cgroup of its own on cgroup2"
fi

# Container root forges a relay: any program copied to hijack-shell's
# path inside its root, run as "--wait-for-child" under no_new_privs with
# one child, then deleted.  /proc/PID/exe of a process that pivot_root'ed
# reads relative to the container's root, so the path reads like
# hijack-shell's after an upgrade.  Its root and mount namespace are not the host's.
# The same at the waiter's path.
for fp in "$HS" "$WAITER"; do
	fake=$HJ_TMP/r-web1$fp
	mkdir -p "$(dirname "$fake")"
	cp "$top_builddir/tests/helpers/hj-confined" "$fake"
	nsenter -t "$I1" -a -r -w "$fp" --wait-for-child >"$D/fake.out" 2>&1 &
	FAKE_NSENTER=$!
	HJ_PIDS+=("$FAKE_NSENTER")
	fake_pid=""
	for _ in $(seq 100); do
		fake_pid=$(pgrep -P "$FAKE_NSENTER" | head -n1)
		[ -n "$fake_pid" ] && [ -n "$(cat "/proc/$fake_pid/task/$fake_pid/children" 2>/dev/null)" ] && break
		sleep 0.05
	done
	rm -f "$fake"
	is "the look-alike's file reads as ours, replaced ($fp)" \
		"$(readlink "/proc/$fake_pid/exe")" "$fp (deleted)"
	like "... it runs as a relay would" "$(tr '\0' ' ' < "/proc/$fake_pid/cmdline")" \
		"^$fp --wait-for-child $"
	is "a look-alike relay in a container is not listed" "$(who_rows | wc -l)" 3
	# shellcheck disable=SC2046 # its children, one pid each
	kill $(cat "/proc/$fake_pid/task/$fake_pid/children" 2>/dev/null) \
		"$fake_pid" "$FAKE_NSENTER" 2>/dev/null
	wait "$FAKE_NSENTER" 2>/dev/null
done

# logout: end of input ends each session
exec {W1}>&- {W2}>&- {W3}>&-
wait "$C1" "$C2" "$C3"
is "after logout: no row" "$(who_rows | wc -l)" 0

done_testing
