#!/bin/bash
# Logins while the container is restarted in a loop: every ssh login
# lands in the container that runs at that moment (its hostname says
# which incarnation) or is refused with a reason, and none lands on the
# host or in the helper that starts the next incarnation (a host process
# alone in the rule's cgroup for a moment).  Private mount namespace,
# own hijack.conf, cgroups hjtest-PID, user hjtrr*.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh ssh-keygen setcap
D=$HJ_TMP/rr
mkdir -p "$D"
hj_shell_install "$D"
hj_conf_take
A=hjtrr$$
"$top_srcdir/tests/users.sh" useradd "$A" -M -s "$HS" >/dev/null
HJ_CLEANUP+=("'$top_srcdir/tests/users.sh' del $A >/dev/null 2>&1")
R=$HJ_TMP/rootfs
make_rootfs "$R" rr >/dev/null 2>&1
rootfs_add_user "$R" "$A"
printf '%s\t%s\tname=rr\n' "$A" "$HJ_RUN/rr" > "$CONF"
chmod 644 "$CONF"
sshd_start "$D" "$A"
myhost=$(hostname)

# the restarter: start incarnation N (hostname rrN), let it run a moment,
# kill it, again; the pids of the one running are in $D/cur
restarter() {
	local i=0
	while [ ! -e "$D/stop" ]; do
		i=$((i + 1))
		ct_start rr "rr$i" "$R" || exit 1
		echo "$CT_HELPER $CT_INIT" > "$D/cur"
		sleep "0.$((RANDOM % 6))"
		ct_kill "$CT_HELPER" "$CT_INIT"
		echo "$i" > "$D/restarts"
	done
}
restarter 2>>"$D/restarter.err" &
RESTARTER=$!
HJ_CLEANUP=("touch '$D/stop'; wait $RESTARTER 2>/dev/null; ct_kill \$(cat '$D/cur' 2>/dev/null)" "${HJ_CLEANUP[@]}")

landed=0 refused=0 ended=0 closed=0 wrong=()
for n in $(seq 40); do
	out=$(timeout 60 ssh -p "$PORT" "${SSHO[@]}" "$A@127.0.0.1" hostname 2>&1)
	rc=$?
	last=$(tail -n1 <<<"$out")
	if [ "$rc" = 0 ] && [[ $last =~ ^rr[0-9]+$ ]]; then
		landed=$((landed + 1))
		continue
	fi
	# each kind of outcome but landing, counted below
	printf 'rc=%s %s\n' "$rc" "$(tr '\n' ' ' <<<"$out" | sed 's/[0-9][0-9]*/N/g')" >> "$D/outcomes"
	if grep -qx "$myhost" <<<"$out"; then
		wrong+=("login $n: on the host: $(tr '\n' ' ' <<<"$out")")
	elif [ "$rc" = 255 ] ||
		grep -q "not running\|stopped while\|holds no container\|cannot enter\|refused" <<<"$out"; then
		# sshd ends a login pam_hijack's account step refuses (255)
		refused=$((refused + 1))
		[ "$rc" = 255 ] && closed=$((closed + 1))
	elif [ "$rc" = 137 ]; then
		# landed, and the container was killed under it
		ended=$((ended + 1))
	else
		wrong+=("login $n: rc=$rc: $(tr '\n' ' ' <<<"$out")")
	fi
done
touch "$D/stop"
wait "$RESTARTER"
diag "40 logins across $(cat "$D/restarts" 2>/dev/null || echo 0) restarts: $landed landed, $refused refused, $ended killed with their container"
sort "$D/outcomes" 2>/dev/null | uniq -c | while read -r l; do diag "  $l"; done
# the outcomes themselves in the result line, where a CI summary shows it
is "every login landed in a running incarnation or was refused with a reason" "${wrong[*]}" ""
check "... some landed" test "$landed" -gt 0
check "... each login sshd closed ($closed) was one pam_hijack's account step refused" \
	test "$(grep -c "Access denied for user $A by PAM account configuration" "$D/sshd.log")" -ge "$closed"
check "... across restarts" test "$(cat "$D/restarts" 2>/dev/null || echo 0)" -ge 3

done_testing
