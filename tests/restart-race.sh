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
restart_logins 40 "$A" "$R" rr "$D"
diag "40 logins across $RL_RESTARTS restarts: $RL_LANDED landed, $RL_REFUSED refused, $RL_ENDED killed with their container"
sort "$D/outcomes" 2>/dev/null | uniq -c | while read -r l; do diag "  $l"; done
# the outcomes themselves in the result line, where a CI summary shows it
is "every login landed in a running incarnation or was refused with a reason" "${RL_WRONG[*]}" ""
check "... some landed" test "$RL_LANDED" -gt 0
check "... each login sshd closed ($RL_CLOSED) was one pam_hijack's account step refused" \
	test "$(grep -c "Access denied for user $A by PAM account configuration" "$D/sshd.log")" -ge "$RL_CLOSED"
check "... across restarts" test "$RL_RESTARTS" -ge 3

done_testing
