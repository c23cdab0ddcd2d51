# shellcheck shell=bash
# The login path of the end-to-end tests, shared by e2e-ssh.sh and
# e2e-runtimes.sh (source after lib.sh):
#
#   hj_shell_install DIR   a copy of hijack-shell with the file capabilities
#                          of an installed one; sets HS.  In a private mount
#                          namespace also its small waiter, at the path
#                          compiled into it (over that directory, in this
#                          namespace only); sets WAITER to what a session's
#                          waiting parent runs: the waiter, else $HS
#   hj_conf_take           an empty directory of our own over the directory
#                          of the compiled-in hijack.conf, in this mount
#                          namespace only; sets CONF
#   sshd_start DIR USER... a private sshd on 127.0.0.1 with pam_hijack in a
#                          PAM service of its own; USERs may log in with the
#                          key DIR/id; $SSHD_EXTRA is appended to the
#                          config, $SSHD_PAM_EXTRA to the PAM service,
#                          $SSHD_PAM_PRE before pam_hijack's session line;
#                          $SSHD_TCP_FORWARDING is AllowTcpForwarding's
#                          (and $SSHD_AGENT_FORWARDING AllowAgentForwarding's)
#                          value (default no);
#                          sets PORT, SSHD_CONFIG, SSHD
#   s USER [CMD...]        ssh in as USER
#
# hijack-shell reads only its compiled-in hijack.conf, which every build
# with the same prefix on this machine shares.  A test that writes it runs
# in a private mount namespace (hj_private_mounts, first thing in the
# script) and bind mounts a directory of its own over the file's directory
# (as bench/run does), so concurrent tests never see each other's rules and
# nothing is left on the host.  sshd and hijack-shell, started from the
# test, inherit the namespace.

# hj_private_mounts "$0" "$@": re-run the calling script (same pid, so the
# same HJ_RUN) in a mount namespace of its own, when root.
hj_private_mounts() {
	[ "${HJ_PRIVATE_MOUNTS-}" = 1 ] || [ "$(id -u)" != 0 ] && return 0
	trap - EXIT
	rmdir "$HJ_TMP"
	HJ_PRIVATE_MOUNTS=1 exec unshare --mount --propagation private bash "$@"
}

MODULE=$top_builddir/pam_hijack/.libs/pam_hijack.so
SHELL_BIN=$top_builddir/hijack-shell/hijack-shell
# the file capabilities of an installed hijack-shell, as configure.ac
# defines them (AC_SUBST into the Makefile)
HIJACK_SHELL_CAPS=$(sed -n 's/^HIJACK_SHELL_CAPS = //p' "$top_builddir/Makefile" 2>/dev/null)
[ -n "$HIJACK_SHELL_CAPS" ] ||
	bail_out "no HIJACK_SHELL_CAPS in $top_builddir/Makefile (configure first)"

hj_shell_install() {
	mkdir -p "$1"
	cp "$SHELL_BIN" "$1/hijack-shell"
	chmod 755 "$1/hijack-shell"
	setcap "$HIJACK_SHELL_CAPS" "$1/hijack-shell" ||
		bail_out "setcap failed"
	HS=$1/hijack-shell
	WAITER=$HS
	[ "${HJ_PRIVATE_MOUNTS-}" = 1 ] && hj_waiter_take "$1/libexec"
}

# hj_waiter_take DIR: hijack-shell-wait in DIR, over the directory of the
# path compiled into hijack-shell (HJ_WAITER_PATH), which is created if
# need be (as an install would) and left empty on the host
WAITER_BIN=$top_builddir/hijack-shell/hijack-shell-wait
hj_waiter_take() {
	local path
	path=$(strings -a "$SHELL_BIN" | grep -m1 '^/.*/hijack-shell-wait$')
	[ -n "$path" ] || bail_out "no waiter path in $SHELL_BIN"
	[ -x "$WAITER_BIN" ] || bail_out "$WAITER_BIN missing: build first"
	mkdir -p "$1" "$(dirname "$path")"
	cp "$WAITER_BIN" "$1/hijack-shell-wait"
	# as installed (hijack-shell/local.mk, debian/rules)
	chmod 755 "$1"
	chmod 711 "$1/hijack-shell-wait"
	mount --bind "$1" "$(dirname "$path")" ||
		bail_out "cannot bind mount over $(dirname "$path")"
	HJ_CLEANUP+=("umount -l '$(dirname "$path")'")
	WAITER=$path
}

hj_conf_take() {
	local dir
	CONF=${hj_conf:-/usr/local/etc/security/hijack.conf}
	dir=$(dirname "$CONF")
	[ "${HJ_PRIVATE_MOUNTS-}" = 1 ] ||
		bail_out "hj_conf_take outside a private mount namespace"
	mkdir -p "$dir" "$HJ_TMP/confdir"
	cp -a "$dir/." "$HJ_TMP/confdir/"
	# the machine's hijack.conf and drop-ins are not the test's
	rm -rf "$HJ_TMP/confdir/hijack.conf" "$HJ_TMP/confdir/hijack.conf.d"
	chmod 755 "$HJ_TMP/confdir"
	mount --bind "$HJ_TMP/confdir" "$dir" ||
		bail_out "cannot bind mount over $dir"
	HJ_CLEANUP+=("umount -l '$dir'")
}

sshd_start() {
	local d=$1 u i asan env
	shift
	SVC=sshd-hjtest-$$
	mkdir -p "$d/keys" /run/sshd
	ln -sf /usr/sbin/sshd "/usr/local/sbin/$SVC"
	HJ_CLEANUP+=("rm -f /usr/local/sbin/$SVC /etc/pam.d/$SVC")
	cat > "/etc/pam.d/$SVC" <<EOF
account required $MODULE
account required pam_unix.so
session required pam_unix.so
${SSHD_PAM_PRE-}
session required $MODULE
${SSHD_PAM_EXTRA-}
EOF
	ssh-keygen -q -t ed25519 -N '' -f "$d/hostkey"
	ssh-keygen -q -t ed25519 -N '' -f "$d/id"
	for u in "$@"; do cp "$d/id.pub" "$d/keys/$u"; done
	chmod 755 "$d/keys"
	chmod 644 "$d/keys"/*
	PORT=$((20000 + $$ % 20000))
	while ss -ltn | grep -q ":$PORT "; do PORT=$((PORT + 1)); done
	SSHD_CONFIG=$d/sshd_config
	cat > "$SSHD_CONFIG" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $d/hostkey
PidFile $d/sshd.pid
UsePAM yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $d/keys/%u
StrictModes no
PrintMotd no
PrintLastLog no
Subsystem sftp /usr/lib/openssh/sftp-server
AllowTcpForwarding ${SSHD_TCP_FORWARDING:-no}
AllowAgentForwarding ${SSHD_AGENT_FORWARDING:-no}
AllowStreamLocalForwarding no
X11Forwarding no
PermitTunnel no
${SSHD_EXTRA-}
EOF
	# an --enable-asan module needs the runtime preloaded into sshd
	asan=$(asan_preload "$MODULE")
	env=()
	[ -z "$asan" ] || env=("LD_PRELOAD=$asan" ASAN_OPTIONS=detect_leaks=0)
	env "${env[@]}" "/usr/local/sbin/$SVC" -f "$SSHD_CONFIG" -D -e \
		2>"$d/sshd.log" &
	SSHD=$!
	HJ_PIDS+=("$SSHD")
	for i in $(seq 100); do
		ss -ltn | grep -q "127.0.0.1:$PORT " && break
		sleep 0.05
	done
	SSHO=(-i "$d/id" -o BatchMode=yes -o StrictHostKeyChecking=no
		-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR)
}

s() { local u=$1; shift; ssh -p "$PORT" "${SSHO[@]}" "$u@127.0.0.1" "$@"; }

# restart_logins N USER ROOTFS CGROUP DIR: N ssh logins of USER (mapped to
# the cgroup CGROUP below $HJ_RUN) while the container in it is restarted
# in a loop from ROOTFS: incarnation i has hostname CGROUPi, runs 0-0.5 s,
# is killed, again.  Each login is counted as landed (in a running
# incarnation), refused with a reason (sshd closes a login pam_hijack's
# account step refuses: 255), or killed with its container (137); any
# other outcome, the host's hostname above all, goes to RL_WRONG.  Sets
# RL_LANDED, RL_REFUSED, RL_CLOSED, RL_ENDED, RL_RESTARTS, RL_WRONG (an
# array); DIR/outcomes holds every outcome but landing, numbers blanked.
restart_logins() {
	local n=$1 user=$2 rootfs=$3 cg=$4 d=$5 k out rc last myhost restarter
	myhost=$(hostname)
	rm -f "$d/stop" "$d/cur" "$d/restarts" "$d/outcomes"
	(
		i=0
		while [ ! -e "$d/stop" ]; do
			i=$((i + 1))
			ct_start "$cg" "$cg$i" "$rootfs" || exit 1
			echo "$CT_HELPER $CT_INIT" > "$d/cur"
			sleep "0.$((RANDOM % 6))"
			ct_kill "$CT_HELPER" "$CT_INIT"
			echo "$i" > "$d/restarts"
		done
	) 2>>"$d/restarter.err" &
	restarter=$!
	HJ_CLEANUP=("touch '$d/stop'; wait $restarter 2>/dev/null; ct_kill \$(cat '$d/cur' 2>/dev/null)" "${HJ_CLEANUP[@]}")
	RL_LANDED=0 RL_REFUSED=0 RL_ENDED=0 RL_CLOSED=0 RL_WRONG=()
	for k in $(seq "$n"); do
		out=$(timeout 60 ssh -p "$PORT" "${SSHO[@]}" "$user@127.0.0.1" hostname 2>&1)
		rc=$?
		last=$(tail -n1 <<<"$out")
		if [ "$rc" = 0 ] && [[ $last =~ ^$cg[0-9]+$ ]]; then
			RL_LANDED=$((RL_LANDED + 1))
			continue
		fi
		printf 'rc=%s %s\n' "$rc" "$(tr '\n' ' ' <<<"$out" | sed 's/[0-9][0-9]*/N/g')" >> "$d/outcomes"
		if grep -qx "$myhost" <<<"$out"; then
			RL_WRONG+=("login $k: on the host: $(tr '\n' ' ' <<<"$out")")
		elif [ "$rc" = 255 ] ||
			grep -q "not running\|stopped while\|holds no container\|cannot enter\|refused" <<<"$out"; then
			RL_REFUSED=$((RL_REFUSED + 1))
			[ "$rc" = 255 ] && RL_CLOSED=$((RL_CLOSED + 1))
		elif [ "$rc" = 137 ]; then
			RL_ENDED=$((RL_ENDED + 1))
		else
			RL_WRONG+=("login $k: rc=$rc: $(tr '\n' ' ' <<<"$out")")
		fi
	done
	touch "$d/stop"
	wait "$restarter"
	RL_RESTARTS=$(cat "$d/restarts" 2>/dev/null || echo 0)
}
