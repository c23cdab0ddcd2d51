#!/bin/bash
# Forwarding lands in the container (pam_hijack(8)): a mapped login's
# forwarded connections (-L, -D, -W) are made from, and its remote
# listeners (-R) open in, the container's network namespace, because
# pam_hijack's session step moves sshd's privileged process there before
# sshd forks the child that serves the channels.  The same port serves
# "container" in the container and "host" (the decoy) on the host's
# loopback: a forward that reaches the decoy is one that runs on the host.
# A user no rule maps keeps the host's network; a mapped login whose
# container is gone by the session step is refused and forwards nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sshd.sh"
hj_private_mounts "$0" "$@"
require_root
require_tools sshd ssh ssh-agent ssh-add git python3 curl setcap nsenter ss ip auditctl ausearch
D=$HJ_TMP/fwd
mkdir -p "$D"
id=$$
U1=hjtf1$id U2=hjtf2$id U3=hjtf3$id U4=hjtf4$id

hj_shell_install "$D"
hj_conf_take
hj_auditd "$D"

U="$top_srcdir/tests/users.sh"
HJ_CLEANUP+=("'$U' del $U1 $U2 $U3 $U4 >/dev/null 2>&1")
"$U" useradd "$U1" -M -s "$HS" >/dev/null || bail_out "useradd"
"$U" useradd "$U2" -M -s /bin/bash >/dev/null
"$U" useradd "$U3" -M -s "$HS" >/dev/null
"$U" useradd "$U4" -M -s "$HS" >/dev/null
for u in $U1 $U2 $U3 $U4; do
	usermod -p '*' -d "$D/home-$u" "$u"
	mkdir -p "$D/home-$u"
done

for c in web1 web3; do
	make_rootfs "$HJ_TMP/$c" "$c"
	cp "$top_builddir/tests/helpers/hj-agent" "$HJ_TMP/$c/bin/"
	for u in $U1 $U3; do rootfs_add_user "$HJ_TMP/$c" "$u" /tmp; done
	chmod 1777 "$HJ_TMP/$c/tmp"
done
ct_start web1 web1 "$HJ_TMP/web1" || bail_out "container web1"
I1=$CT_INIT
ct_start web3 web3 "$HJ_TMP/web3" || bail_out "container web3"
I3=$CT_INIT
# dev: a developer's container, with the host's /usr (git, ssh) read-only
make_rootfs "$HJ_TMP/dev" dev
ln -s usr/lib "$HJ_TMP/dev/lib" && ln -s usr/lib64 "$HJ_TMP/dev/lib64"
rootfs_add_user "$HJ_TMP/dev" "$U4" /tmp
chmod 1777 "$HJ_TMP/dev/tmp"
CT_BINDS=/usr ct_start dev dev "$HJ_TMP/dev" || bail_out "container dev"
I4=$CT_INIT
nsenter --net="/proc/$I4/ns/net" ip link set lo up || bail_out "dev's lo"
NET1=$(ns_of "$I1" net)
isnt "web1 has a network namespace of its own" "$NET1" "$(ns_of $$ net)"
# unshare --net leaves loopback down
nsenter --net="/proc/$I1/ns/net" ip link set lo up || bail_out "web1's lo"

cat > "$CONF" <<EOF
# forward.sh
$U1	$HJ_RUN/web1
$U3	$HJ_RUN/web3
$U4	$HJ_RUN/dev
EOF
chmod 644 "$CONF"

# serve NAME PORT [PID]: an HTTP server on 127.0.0.1:PORT (of PID's
# network, else ours) whose /who says NAME, its requests logged to
# $D/NAME.log
serve() {
	local name=$1 port=$2 pid=${3:-} pre=()
	[ -z "$pid" ] || pre=(nsenter --net="/proc/$pid/ns/net")
	mkdir -p "$D/www-$name"
	echo "$name" > "$D/www-$name/who"
	"${pre[@]}" python3 -m http.server --bind 127.0.0.1 --directory "$D/www-$name" \
		"$port" </dev/null >/dev/null 2>"$D/$name.log" &
	HJ_PIDS+=("$!")
	wait_tcp_listen "$pid" "127.0.0.1:$port" || bail_out "the $name server does not listen"
}
get() { curl --noproxy '*' -s --max-time 10 "$@"; }
# via PROXY URL: through the proxy only (--proxy wins over the environment)
via() { curl --proxy "$1" -s --max-time 10 "$2"; }
# wait_listen PORT: a local forward is up
wait_listen() { wait_tcp_listen "" "127.0.0.1:$1"; }
requests() { grep -c 'GET /who' "$D/$1.log"; }

P=$(free_tcp_port)
serve container "$P" "$I1"
serve host "$P"
is "the decoy answers on the host's loopback" "$(get "http://127.0.0.1:$P/who")" host

# the killer of web3, run by pam_exec in the session stack before
# pam_hijack for U3 only: the container is gone between the account and
# the session steps
cat > "$D/kill-web3" <<EOF
#!/bin/sh
[ "\$PAM_USER" = "$U3" ] || exit 0
kill -KILL $I3
for i in \$(seq 200); do
	procs=\$(cat $(for h in $(hj_hierarchies); do printf '%s ' "$(cg_path "$h" web3)/cgroup.procs"; done) 2>/dev/null)
	[ -z "\$procs" ] && exit 0
	sleep 0.05
done
exit 1
EOF
chmod 755 "$D/kill-web3"

SSHD_TCP_FORWARDING=yes
SSHD_AGENT_FORWARDING=yes
SSHD_PAM_PRE="session required pam_exec.so $D/kill-web3"
sshd_start "$D" $U1 $U2 $U3 $U4
# every ssh here is one connection, one PAM session
S=(ssh -p "$PORT" "${SSHO[@]}" -o ExitOnForwardFailure=yes)
logins=0
http_get='printf "GET /who HTTP/1.0\r\n\r\n"'

# -- -W: a stdio forward, no session channel, no hijack-shell
out=$(eval "$http_get" | "${S[@]}" -W "127.0.0.1:$P" "$U1@127.0.0.1" | tail -n1)
logins=$((logins + 1))
is "-W reaches the container's service" "$out" container

# -- -L, with sshd's processes of the connection in the container's network
LP=$(free_tcp_port)
"${S[@]}" -N -L "$LP:127.0.0.1:$P" "$U1@127.0.0.1" &
fwd=$!
logins=$((logins + 1))
HJ_PIDS+=("$fwd")
if wait_listen "$LP"; then
	is "-L reaches the container's service" "$(get "http://127.0.0.1:$LP/who")" container
	mon=$(pgrep -P "$SSHD" | head -n1)
	child=$(pgrep -P "$mon" -u "$U1" | head -n1)
	is "ssh -N: sshd's privileged process of the connection is in web1's network" \
		"$(ns_of "$mon" net)" "$NET1"
	is "ssh -N: the child serving the channels is in web1's network" \
		"$(ns_of "$child" net)" "$NET1"
	is "... and still in the host's mount namespace (paths stay the host's)" \
		"$(ns_of "$child" mnt)" "$(ns_of $$ mnt)"
else
	not_ok "-L: the local forward listens"
fi
kill "$fwd" 2>/dev/null
wait "$fwd" 2>/dev/null

# -- -D: a SOCKS proxy into the container's network; localhost is resolved
# by sshd with the host's resolver configuration, and means the
# container's loopback
DP=$(free_tcp_port)
"${S[@]}" -N -D "127.0.0.1:$DP" "$U1@127.0.0.1" &
fwd=$!
logins=$((logins + 1))
HJ_PIDS+=("$fwd")
if wait_listen "$DP"; then
	is "-D (SOCKS) reaches the container's service" \
		"$(via "socks5://127.0.0.1:$DP" "http://127.0.0.1:$P/who")" container
	is "-D: 'localhost', resolved by sshd, is the container's loopback" \
		"$(via "socks5h://127.0.0.1:$DP" "http://localhost:$P/who")" container
else
	not_ok "-D: the SOCKS proxy listens"
fi
kill "$fwd" 2>/dev/null
wait "$fwd" 2>/dev/null

# -- ControlMaster: a forward added to a running master lands inside
M=$D/master
"${S[@]}" -M -S "$M" -N "$U1@127.0.0.1" &
fwd=$!
logins=$((logins + 1))
HJ_PIDS+=("$fwd")
for _ in $(seq 200); do [ -S "$M" ] && break; sleep 0.05; done
LP2=$(free_tcp_port)
"${S[@]}" -S "$M" -O forward -L "$LP2:127.0.0.1:$P" "$U1@127.0.0.1" 2>/dev/null
if wait_listen "$LP2"; then
	is "ControlMaster: a forward added to the master reaches the container" \
		"$(get "http://127.0.0.1:$LP2/who")" container
else
	not_ok "ControlMaster: the added forward listens"
fi
"${S[@]}" -S "$M" -O exit "$U1@127.0.0.1" 2>/dev/null
wait "$fwd" 2>/dev/null

# -- -R: the listener opens in the container, not on the host, and a
# client inside the container (a second login) reaches the ssh client's
# side through it
CP=$(free_tcp_port)
serve client "$CP"
RP=$(free_tcp_port)
"${S[@]}" -N -R "127.0.0.1:$RP:127.0.0.1:$CP" "$U1@127.0.0.1" &
fwd=$!
logins=$((logins + 1))
HJ_PIDS+=("$fwd")
wait_tcp_listen "$I1" "127.0.0.1:$RP"
check "-R listens in the container's network" tcp_listens "$I1" "127.0.0.1:$RP"
check "-R does not listen on the host" bash -c "! ss -ltnH | grep -q ':$RP '"
out=$("${S[@]}" "$U1@127.0.0.1" "hostname; wget -qO- http://127.0.0.1:$RP/who")
logins=$((logins + 1))
is "-R: a client in the container reaches the ssh client's side" "$out" "web1
client"
kill "$fwd" 2>/dev/null
wait "$fwd" 2>/dev/null

# -- VS Code Remote-SSH's pattern: a server started by `ssh host cmd`
# listens on the container's loopback; `ssh -N -L` reaches it
SP=$(free_tcp_port)
"${S[@]}" "$U1@127.0.0.1" "mkdir -p /tmp/srv && echo editor-server > /tmp/srv/who && httpd -p 127.0.0.1:$SP -h /tmp/srv"
logins=$((logins + 1))
LP3=$(free_tcp_port)
"${S[@]}" -N -L "$LP3:127.0.0.1:$SP" "$U1@127.0.0.1" &
fwd=$!
logins=$((logins + 1))
HJ_PIDS+=("$fwd")
if wait_listen "$LP3"; then
	is "a server the session started in the container, reached with -N -L" \
		"$(get "http://127.0.0.1:$LP3/who")" editor-server
else
	not_ok "-N -L to the session's server listens"
fi
kill "$fwd" 2>/dev/null
wait "$fwd" 2>/dev/null

is "the decoy on the host never saw a mapped user's request" "$(requests host)" 1

# -- -A: the forwarded agent, through a socket inside the container in a
# directory of the session's; the relay answers the session's uid only
ssh-keygen -q -t ed25519 -N '' -C "hj-agent-key-$id" -f "$D/agentkey"
ssh-agent -a "$D/agent.sock" >/dev/null || bail_out "ssh-agent"
AGENT=$(pgrep -f -- "ssh-agent -a $D/agent.sock" | head -n1)
HJ_PIDS+=("$AGENT")
SSH_AUTH_SOCK=$D/agent.sock ssh-add -q "$D/agentkey" 2>/dev/null || bail_out "ssh-add"
A=(env SSH_AUTH_SOCK="$D/agent.sock" "${S[@]}" -A)
out=$("${A[@]}" "$U1@127.0.0.1" 'echo "$SSH_AUTH_SOCK"; hostname; hj-agent')
logins=$((logins + 1))
sock=$(head -n1 <<<"$out")
like "-A: SSH_AUTH_SOCK is a socket in the container's /tmp" "$sock" '^/tmp/hijack-agent-[A-Za-z0-9]{6}/agent$'
is "-A: the session, in web1, lists the client's key" "$(tail -n+2 <<<"$out")" "web1
identities: 1
comment: hj-agent-key-$id"
out=$("${S[@]}" "$U1@127.0.0.1" 'echo "${SSH_AUTH_SOCK-unset}"')
logins=$((logins + 1))
is "without -A: no SSH_AUTH_SOCK" "$out" unset
# a session that stays until its input ends, and who else may use its agent
mkfifo "$D/hold"
"${A[@]}" "$U1@127.0.0.1" 'echo "$SSH_AUTH_SOCK"; read -r x' <"$D/hold" >"$D/agent-session" 2>&1 &
held=$!
exec 9>"$D/hold"
logins=$((logins + 1))
HJ_PIDS+=("$held")
for _ in $(seq 200); do [ -s "$D/agent-session" ] && break; sleep 0.05; done
sock=$(head -n1 "$D/agent-session")
dir=$HJ_TMP/web1${sock%/agent}
is "-A: the socket's directory is the session's own, mode 700" \
	"$(stat -c '%U %a' "$dir")" "$U1 700"
relay=$(pgrep -u "$U1" -f -- "--agent-relay" | head -n1)
check "-A: the relay is on the host, in the host's mount namespace" \
	test -n "$relay" -a "$(ns_of "${relay:-0}" mnt)" = "$(ns_of $$ mnt)"
is "-A: ... runs the small waiter program, not hijack-shell" \
	"$(readlink "/proc/${relay:-0}/exe")" "$WAITER"
is "-A: ... not dumpable, with no capabilities" \
	"$(awk '/^CapEff:/ { print $2 }' "/proc/${relay:-0}/status") $(stat -c %U "/proc/${relay:-0}/status")" "0000000000000000 root"
in1() { nsenter -t "$I1" -m -u -i -n -p "$@"; }
uid1=$(id -u "$U1") gid1=$(id -g "$U1")
is "-A: the same uid from elsewhere in web1 gets the agent (as with OpenSSH)" \
	"$(in1 -S "$uid1" -G "$gid1" /bin/hj-agent "$sock" | head -n1)" "identities: 1"
out=$(in1 -S 4242 -G 4242 /bin/hj-agent "$sock"); rc=$?
is "-A: another user in web1 cannot reach the socket" "$rc:$out" "2:connect: Permission denied"
out=$(in1 /bin/hj-agent "$sock"); rc=$?
is "-A: web1's root reaches the socket, but the relay does not answer it" "$rc:$out" "3:no answer"
exec 9>&-
wait "$held" 2>/dev/null
for _ in $(seq 100); do pgrep -u "$U1" -f -- "--agent-relay" >/dev/null || break; sleep 0.1; done
check "-A: the relay ends with the session" bash -c "! pgrep -u $U1 -f -- --agent-relay"

# -- git over ssh from inside the container with the forwarded agent: a
# repository of U2's (unmapped, on the host) cloned in the dev container
# through -R back to this sshd, authenticated by the client's agent key
# (which only the agent holds: nothing inside has a key)
cat "$D/agentkey.pub" >> "$D/keys/$U2"
git init -q --bare "$D/home-$U2/repo.git"
git init -q "$D/work" && echo "hello from the host's repository" > "$D/work/README" &&
	git -C "$D/work" add README &&
	git -C "$D/work" -c user.name=t -c user.email=t@t commit -qm one &&
	git -C "$D/work" push -q "$D/home-$U2/repo.git" HEAD:master || bail_out "git repository"
chown -R "$U2:" "$D/home-$U2"
GP=$(free_tcp_port)
out=$("${A[@]}" "$U4@127.0.0.1" 'ssh-add -l' 2>&1)
like "-A: ssh-add -l inside dev lists the client's key" "$out" "^256 SHA256:[^ ]+ hj-agent-key-$id \(ED25519\)$"
out=$("${A[@]}" -R "127.0.0.1:$GP:127.0.0.1:$PORT" "$U4@127.0.0.1" \
	"hostname; GIT_SSH_COMMAND='ssh -p $GP -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR' \
	git clone -q $U2@127.0.0.1:repo.git /tmp/clone-$id && cat /tmp/clone-$id/README" 2>&1)
is "-A -R: git clone over ssh from inside dev, with the forwarded agent" "$out" "dev
hello from the host's repository"
check "... into dev's /tmp, not the host's" test -f "$HJ_TMP/dev/tmp/clone-$id/README" -a ! -e "/tmp/clone-$id"
out=$("${S[@]}" -R "127.0.0.1:$GP:127.0.0.1:$PORT" "$U4@127.0.0.1" \
	"GIT_SSH_COMMAND='ssh -p $GP -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR' \
	git ls-remote $U2@127.0.0.1:repo.git >/dev/null 2>&1 && echo reached || echo refused")
is "... and without -A, no key inside: the server refuses" "$out" refused

# -- a user no rule maps keeps the host's network
out=$(eval "$http_get" | "${S[@]}" -W "127.0.0.1:$P" "$U2@127.0.0.1" | tail -n1)
is "an unmapped user's -W stays on the host" "$out" host

# -- the container gone between account and session: refused, nothing
# forwarded anywhere
before=$(requests host)
out=$(eval "$http_get" | "${S[@]}" -W "127.0.0.1:$P" "$U3@127.0.0.1" 2>&1)
rc=$?
isnt "container gone by the session step: the login is refused" "$rc" 0
isnt "... and forwards nothing" "$(tail -n1 <<<"$out")" host
is "... the decoy saw no request" "$(requests host)" "$before"
check "... web3 is really gone" bash -c "! kill -0 $I3 2>/dev/null"

# -- audit: one start record per mapped connection, -N and -W included
sleep 1
rec=$(ausearch -m VIRT_CONTROL -ts "$TS_DAY" "$TS_TIME" 2>/dev/null)
is "audit: one op=start reason=login record per connection of $U1 ($logins)" \
	"$(grep 'op=start' <<<"$rec" | grep -E "user=\"?$U1\"? " | grep -c 'reason="\?login')" "$logins"
like "audit: the refused login's deny record" "$(grep -E "user=\"?$U3\"? " <<<"$rec")" \
	'op=deny.*vm="?web3"?.*reason="?not-running'
like "sshd ends the refused connection" "$(cat "$D/sshd.log")" "pam_open_session"

done_testing
