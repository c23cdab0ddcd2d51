# shellcheck shell=bash
# A private sshd on 127.0.0.1 for the ssh tests and benchmarks, sourced
# after lib.sh.  Its PAM service is its own, through the argv[0] name
# (basename of the symlink sshd is started by), so the system's sshd
# stack is never touched; keys, config and log live in $D.
#
#   D=DIR                          set by the caller, must exist
#   sshd_pam_service MODULE        /etc/pam.d/<service>: pam_hijack + pam_unix
#   sshd_keys USER...              host key, one client key ($D/id) for USERs
#   sshd_start [CONFIG-LINE...]    start it; extra sshd_config lines
# Sets SVC, PORT, SSHD (pid) and SSHO (ssh client options).

sshd_pam_service() { # MODULE
	SVC=sshd-hjtest-$$
	ln -sf /usr/sbin/sshd "/usr/local/sbin/$SVC"
	HJ_CLEANUP+=("rm -f /usr/local/sbin/$SVC /etc/pam.d/$SVC")
	cat > "/etc/pam.d/$SVC" <<-EOF2
	account required $1
	account required pam_unix.so
	session required pam_unix.so
	session required $1
	EOF2
}

sshd_keys() { # USER...
	local u
	mkdir -p "$D/keys"
	ssh-keygen -q -t ed25519 -N '' -f "$D/hostkey"
	ssh-keygen -q -t ed25519 -N '' -f "$D/id"
	for u in "$@"; do cp "$D/id.pub" "$D/keys/$u"; done
	chmod 755 "$D/keys"
	chmod 644 "$D/keys"/* 2>/dev/null
}

sshd_start() { # [CONFIG-LINE...]
	local l
	PORT=$((20000 + $$ % 20000))
	while ss -ltn | grep -q ":$PORT "; do PORT=$((PORT + 1)); done
	{
		cat <<-EOF2
		Port $PORT
		ListenAddress 127.0.0.1
		HostKey $D/hostkey
		PidFile $D/sshd.pid
		UsePAM yes
		PubkeyAuthentication yes
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		AuthorizedKeysFile $D/keys/%u
		StrictModes no
		PrintMotd no
		PrintLastLog no
		Subsystem sftp /usr/lib/openssh/sftp-server
		AllowTcpForwarding no
		AllowAgentForwarding no
		AllowStreamLocalForwarding no
		X11Forwarding no
		PermitTunnel no
		EOF2
		for l in "$@"; do echo "$l"; done
	} > "$D/sshd_config"
	mkdir -p /run/sshd
	"/usr/local/sbin/$SVC" -f "$D/sshd_config" -D -e 2>"$D/sshd.log" &
	SSHD=$!
	HJ_PIDS+=("$SSHD")
	for _ in $(seq 100); do ss -ltn | grep -q "127.0.0.1:$PORT " && break; sleep 0.05; done
	# shellcheck disable=SC2034 # used by the caller
	SSHO=(-i "$D/id" -o BatchMode=yes -o StrictHostKeyChecking=no
		-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR)
}
