#!/bin/bash
# Load and soak over loopback, bounded in count and time:
#
#  - 200 concurrent ssh logins over 20 users mapped to 20 containers:
#    every session checks it landed in its own container (hostname and
#    uts namespace inode): 0 misrouted, 0 failed;
#  - SOAK_LOGINS (default 1000) sequential logins: sshd's open fds and
#    threads, processes left in the containers' cgroups, zombies, and the
#    memory of sshd are the same before and after.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
N_USERS=20 N_CONC=200 N_SEQ=${SOAK_LOGINS:-1000}
D=$HJ_TMP/soak
mkdir -p "$D"
id=$$
U="$top_srcdir/tests/users.sh"
hj_shell_install "$D"
hj_conf_take

users=()
: > "$CONF"
for i in $(seq 0 $((N_USERS - 1))); do
	u=hjts${id}u$i
	users+=("$u")
	"$U" useradd "$u" -M -s "$HS" -d "$D" >/dev/null || bail_out "useradd"
	usermod -p '*' "$u"
	r=$HJ_TMP/r$i
	make_rootfs "$r" "s$i" >/dev/null 2>&1
	ct_start "s$i" "soak$i" "$r" || bail_out "container $i"
	eval "INIT_$i=$CT_INIT"
	printf '%s\t%s/s%s\n' "$u" "$HJ_RUN" "$i" >> "$CONF"
done
HJ_CLEANUP+=("'$U' del ${users[*]} >/dev/null 2>&1")
chmod 644 "$CONF"
# sshd drops a connection still unauthenticated after LoginGraceTime,
# and Debian's sshd does so without a word (the CVE-2024-6387 fix made
# its SIGALRM handler silent): 200 key exchanges at once on a machine that
# also builds kernels can take longer than the default 120 s.  No grace
# limit here; each client has a deadline of its own instead.
SSHD_EXTRA=$(printf '%s\n' "MaxStartups 1000" "MaxSessions 1000" "LoginGraceTime 0")
sshd_start "$D" "${users[@]}"

# -- 200 at once: each session reports where it is; ssh says at INFO
# level why a connection closed, and its exit status and time are kept.
# The key exchange is curve25519 (the default, sntrup761x25519, costs
# more CPU, and the load here is meant to be ours, not the kex's); a
# login has 10 minutes.
for k in $(seq 0 $((N_CONC - 1))); do
	i=$((k % N_USERS))
	{
		t0=$SECONDS
		timeout -k 5 600 ssh -p "$PORT" \
			"${SSHO[@]/#LogLevel=ERROR/LogLevel=INFO}" \
			-o KexAlgorithms=curve25519-sha256 \
			"${users[$i]}@127.0.0.1" \
			'echo "$(hostname) $(readlink /proc/self/ns/uts)"'
		rc=$?
		echo "exit $rc after $((SECONDS - t0)) s" >&2
	} > "$D/c.$k" 2> "$D/c.$k.err" &
done
wait_for=$(jobs -p | grep -vxF "$(printf '%s\n' "${HJ_PIDS[@]}")")
# shellcheck disable=SC2086
wait $wait_for 2>/dev/null
misrouted=0 failed=0
for k in $(seq 0 $((N_CONC - 1))); do
	i=$((k % N_USERS))
	init=$(eval echo "\$INIT_$i")
	want="soak$i $(ns_of "$init" uts)"
	got=$(cat "$D/c.$k")
	if [ -z "$got" ]; then
		failed=$((failed + 1))
		echo "login $k (${users[$i]}) failed: $(tr '\n' ' ' < "$D/c.$k.err")" >> "$D/why"
	elif [ "$got" != "$want" ]; then
		misrouted=$((misrouted + 1))
	fi
done
diag "the slowest of the $N_CONC logins took $(sed -n 's/^exit .* after \([0-9]*\) s$/\1/p' "$D"/c.*.err | sort -n | tail -n1) s"
is "$N_CONC concurrent logins over $N_USERS users: 0 misrouted" "$misrouted" 0
is "$N_CONC concurrent logins over $N_USERS users: 0 failed" "$failed" 0
# why, below the "not ok" line where tests/run shows it
if [ "$failed" != 0 ]; then
	diag_file "the failed logins" "$D/why"
	grep -vE '^(Accepted publickey|Received disconnect|Disconnected from)' \
		"$D/sshd.log" > "$D/sshd.unusual"
	diag_file "sshd's log, routine lines left out" "$D/sshd.unusual"
fi

# -- sequential soak
snapshot() {
	local p
	echo "fds $(ls /proc/$SSHD/fd | wc -l)"
	echo "threads $(awk '/^Threads:/ {print $2}' /proc/$SSHD/status)"
	echo "rss $(awk '/^VmRSS:/ {print $2}' /proc/$SSHD/status)"
	echo "procs $(for h in $(hj_hierarchies); do cat "$h/$HJ_RUN"/s*/cgroup.procs 2>/dev/null; done | sort -u | wc -l)"
	echo "zombies $(ps -eo stat,ppid | awk -v a="$SSHD" '$1 ~ /^Z/ && $2 == a' | wc -l)"
	echo "sessions $(sessions_of "$SSHD")"
}
# sessions_of PID: the hijack-shell processes below PID (this test's
# sshd), not those of another sshd or test on the machine
sessions_of() {
	ps -e -o pid=,ppid=,comm= | awk -v top="$1" '
		{ parent[$1] = $2; comm[$1] = $3 }
		END {
			for (p in comm) {
				d = 0
				if (comm[p] != "hijack-shell")
					continue
				for (a = parent[p]; a > 1 && d++ < 64; a = parent[a])
					if (a == top) { n++; break }
			}
			print n + 0
		}'
}
s "${users[0]}" true
sleep 0.5
snapshot > "$D/before"
fails=0
for k in $(seq 1 "$N_SEQ"); do
	i=$((k % N_USERS))
	[ "$(s "${users[$i]}" hostname 2>/dev/null)" = "soak$i" ] || fails=$((fails + 1))
done
sleep 1
snapshot > "$D/after"
is "$N_SEQ sequential logins: all landed in their container" "$fails" 0
for key in fds threads procs zombies sessions; do
	is "after $N_SEQ logins: sshd/session $key unchanged" \
		"$(awk -v k=$key '$1 == k {print $2}' "$D/after")" \
		"$(awk -v k=$key '$1 == k {print $2}' "$D/before")"
done
b=$(awk '$1 == "rss" {print $2}' "$D/before") a=$(awk '$1 == "rss" {print $2}' "$D/after")
diag "sshd RSS before $b KiB, after $a KiB"
check "after $N_SEQ logins: sshd's memory did not grow (RSS within 64 KiB)" \
	test $((a - b)) -le 64

done_testing
