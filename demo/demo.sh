#!/bin/bash
# hijack demo, as root on a fresh Debian 12 machine:
#
#	demo/demo.sh          # build, install, start a container and an sshd,
#	                      # log in with ssh and land inside the container
#	demo/demo.sh stop     # remove everything the demo created
#
# What it creates: the installed hijack files (make install), a container
# from a busybox-static root filesystem in cgroup hijack-demo/web1, the
# user hjdemo (login shell: tlog-rec-session running hijack-shell), a
# rule for it at the top of /etc/security/hijack.conf (an existing file
# is saved and restored),
# and a private sshd on 127.0.0.1:2222 with its own PAM service
# sshd-hijack-demo.  The system's sshd and its PAM stack are not touched.
# hjdemo's sessions are recorded with tlog: its login shell is
# tlog-rec-session (made setuid _tlog with dpkg-statoverride), which runs
# hijack-shell (/etc/tlog/tlog-rec-session.conf, saved and restored) and
# writes to $STATE/tlog/sessions.log; the demo ends with a replay.
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
STATE=/run/hijack-demo
CG=hijack-demo/web1
USER_=hjdemo
PORT=${HIJACK_DEMO_PORT:-2222}
SVC=sshd-hijack-demo
CONF=/etc/security/hijack.conf
TLOG_CONF=/etc/tlog/tlog-rec-session.conf
TLOG_REC=/usr/bin/tlog-rec-session

hierarchies() { awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts; }

stop() {
	local p
	for p in sshd init helper; do
		[ -f "$STATE/$p.pid" ] && kill -KILL "$(cat "$STATE/$p.pid")" 2>/dev/null
	done
	sleep 0.3
	for h in $(hierarchies); do
		[ -d "$h/hijack-demo" ] && find "$h/hijack-demo" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	id "$USER_" >/dev/null 2>&1 && userdel "$USER_"
	rm -f "/etc/pam.d/$SVC" "/usr/local/sbin/$SVC"
	if [ -f "$STATE/hijack.conf.orig" ]; then
		cp -p "$STATE/hijack.conf.orig" "$CONF"
	elif [ -f "$STATE/conf.created" ]; then
		rm -f "$CONF"
	fi
	if [ -f "$STATE/tlog.conf.orig" ]; then
		cp -p "$STATE/tlog.conf.orig" "$TLOG_CONF"
	fi
	if [ -f "$STATE/statoverride" ]; then
		dpkg-statoverride --remove "$TLOG_REC" >/dev/null 2>&1
		chown root:root "$TLOG_REC" && chmod 755 "$TLOG_REC"
	fi
	[ -f "$STATE/utmp.created" ] && rm -f /run/utmp
	if [ -f "$STATE/installed" ]; then
		make -s uninstall >/dev/null 2>&1
	fi
	rm -rf "$STATE"
	echo "demo: stopped and removed"
}

if [ "${1:-start}" = stop ]; then
	stop
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "demo: run as root" >&2; exit 1; }
[ -d "$STATE" ] && stop >/dev/null

echo "demo: installing dependencies, building and installing (log: $top/demo.log)"
tests/deps.sh || exit 1
{ ./autogen.sh && ./configure --prefix=/usr/local --with-sconfdir=/etc/security &&
	make clean && make -j2 && make install; } > "$top/demo.log" 2>&1 ||
	{ tail -20 "$top/demo.log"; exit 1; }
mkdir -p "$STATE"
touch "$STATE/installed"
HS=/usr/local/sbin/hijack-shell
MODULE=$(sed -n "s/^securedir = //p" Makefile)
MODULE=${MODULE:-/lib/x86_64-linux-gnu/security}/pam_hijack.so

# -- the container: busybox rootfs, its own cgroup, its own namespaces
R=$STATE/rootfs
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,etc,tmp,root,run,oldroot,home/$USER_}
cp /bin/busybox "$R/bin/" && chroot "$R" /bin/busybox --install -s
for d in null:1:3 zero:1:5 urandom:1:9 tty:5:0; do
	IFS=: read -r n a b <<<"$d"; mknod -m 666 "$R/dev/$n" c "$a" "$b"
done
chmod 1777 "$R/tmp"
echo "hello from inside web1" > "$R/etc/motd"
for h in $(hierarchies); do
	p=$h
	for part in hijack-demo web1; do
		p=$p/$part
		mkdir -p "$p"
		if [ -e "$p/cpuset.cpus" ] && [ -z "$(cat "$p/cpuset.cpus")" ]; then
			cat "$(dirname "$p")/cpuset.cpus" > "$p/cpuset.cpus"
			cat "$(dirname "$p")/cpuset.mems" > "$p/cpuset.mems"
		fi
	done
done
(
	for h in $(hierarchies); do echo "$BASHPID" > "$h/$CG/cgroup.procs"; done
	exec unshare --fork --pid --mount --uts --ipc --net --cgroup --propagation private \
		sh -c "mount --bind $R $R && cd $R && pivot_root . oldroot &&
		exec /bin/busybox sh -c 'mount -t proc proc /proc; umount -l /oldroot;
		mkdir -p /dev/pts; ln -sf pts/ptmx /dev/ptmx;
		mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts /dev/pts;
		hostname web1; exec sleep 1000000'"
) </dev/null >/dev/null 2>&1 &
echo $! > "$STATE/helper.pid"
for i in $(seq 100); do
	init=$(pgrep -P "$(cat "$STATE/helper.pid")" -x sleep) && break
	sleep 0.05
done
echo "$init" > "$STATE/init.pid"

# -- recording: tlog-rec-session setuid/setgid _tlog (as upstream installs
# it), running hijack-shell, writing where only _tlog can open
if ! dpkg-statoverride --list "$TLOG_REC" >/dev/null; then
	dpkg-statoverride --update --add _tlog _tlog 6755 "$TLOG_REC"
	touch "$STATE/statoverride"
fi
cp -p "$TLOG_CONF" "$STATE/tlog.conf.orig"
RECDIR=$STATE/tlog
install -d -m 700 -o _tlog -g _tlog "$RECDIR"
cat > "$TLOG_CONF" <<EOF
// written by hijack's demo/demo.sh; 'demo/demo.sh stop' restores this file
{
    "shell": "$HS",
    "notice": "\\nThis session is recorded (tlog).\\n\\n",
    "writer": "file",
    "file": { "path": "$RECDIR/sessions.log" },
    "log": { "input": true }
}
EOF
# libutempter, which tlog-rec-session uses, needs the utmp file that
# Debian's boot creates (tmpfiles.d: f+! /run/utmp 0664 root utmp)
if [ ! -e /run/utmp ]; then
	install -m 664 -o root -g utmp /dev/null /run/utmp
	touch "$STATE/utmp.created"
fi

# -- the user and the rule
useradd -M -d "$STATE/home" -s "$TLOG_REC" "$USER_"
usermod -p '*' "$USER_"
mkdir -p "$STATE/home"
echo "$USER_:x:$(id -u $USER_):$(id -g $USER_)::/home/$USER_:/bin/sh" >> "$R/etc/passwd"
chown "$(id -u $USER_):$(id -g $USER_)" "$R/home/$USER_"
mkdir -p "$(dirname "$CONF")"
if [ -e "$CONF" ]; then cp -p "$CONF" "$STATE/hijack.conf.orig"; else touch "$STATE/conf.created"; fi
{
	echo "# added by hijack's demo/demo.sh; 'demo/demo.sh stop' restores this file"
	echo "$USER_	$CG	name=web1"
	[ -f "$STATE/hijack.conf.orig" ] && cat "$STATE/hijack.conf.orig"
} > "$CONF.new"
chmod 644 "$CONF.new" && mv "$CONF.new" "$CONF"

# -- a private sshd with pam_hijack, on loopback only
ln -sf /usr/sbin/sshd "/usr/local/sbin/$SVC"
cat > "/etc/pam.d/$SVC" <<EOF
account required $MODULE
account required pam_unix.so
session required pam_loginuid.so
session required pam_unix.so
session required $MODULE
EOF
ssh-keygen -q -t ed25519 -N '' -f "$STATE/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$STATE/id"
mkdir -p "$STATE/keys" && cp "$STATE/id.pub" "$STATE/keys/$USER_"
cat > "$STATE/sshd_config" <<EOF
Port $PORT
ListenAddress 127.0.0.1
HostKey $STATE/hostkey
PidFile $STATE/sshd.pid.sshd
UsePAM yes
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
AuthorizedKeysFile $STATE/keys/%u
StrictModes no
PrintMotd no
Subsystem sftp /usr/lib/openssh/sftp-server
AllowAgentForwarding no
AllowStreamLocalForwarding no
X11Forwarding no
PermitTunnel no
SetEnv LANG=C.UTF-8
EOF
mkdir -p /run/sshd
"/usr/local/sbin/$SVC" -f "$STATE/sshd_config" -D -e </dev/null >/dev/null 2>"$STATE/sshd.log" &
echo $! > "$STATE/sshd.pid"
for i in $(seq 100); do ss -ltn | grep -q "127.0.0.1:$PORT " && break; sleep 0.05; done

SSH="ssh -i $STATE/id -p $PORT -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
probe='hostname; echo "pid 1: $(cat /proc/1/comm)"
	for n in mnt uts pid net cgroup; do readlink /proc/self/ns/$n; done
	head -n1 /proc/self/cgroup; ls / | tr "\n" " "; echo'
echo
echo "\$ $SSH $USER_@127.0.0.1"
# (stdin kept open: tlog 12.1 drops the output of a command whose stdin
# is at end of file when it exits, Scribery/tlog#347)
inside=$(sleep 2 | $SSH "$USER_@127.0.0.1" "$probe" 2>&1 | grep -v '^This session is recorded\|^$')
outside=$(sh -c "$probe")
paste -d'|' <(echo "HOST"; echo "$outside") <(echo "SSH SESSION of $USER_"; echo "$inside") |
	awk -F'|' '{ printf "  %-45.45s  %s\n", $1, $2 }'
echo
echo "What the admin's check command says:"
HIJACK_CHECK_SSHD_CONFIG=$STATE/sshd_config HIJACK_CHECK_PAM_SERVICE=$SVC /usr/local/bin/hijack check "$USER_" | sed 's/^/  /'
echo
echo "A session typed at a terminal, recorded on the host by tlog-rec-session:"
echo "  \$ $SSH -tt $USER_@127.0.0.1"
(sleep 1; echo "hostname; tty; cat /etc/motd"; sleep 1; echo exit) |
	$SSH -tt "$USER_@127.0.0.1" >/dev/null 2>&1
LOG=$RECDIR/sessions.log
rec=$(tail -n1 "$LOG" | grep -o '"rec":"[^"]*"' | cut -d'"' -f4)
echo "Its recording ($LOG, readable only by _tlog and root):"
tail -n1 "$LOG" | grep -o '"user":"[^"]*","term":"[^"]*","session":[0-9]*' | sed 's/^/  /'
echo "  \$ tlog-play -r file -i $LOG -m $rec"
script -qec "tlog-play -r file -i '$LOG' -m '$rec' -s 4" /dev/null </dev/null |
	tr -d '\r\0' | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; /^[[:space:]]*$/d; s/^/  | /'
echo
echo "The demo keeps running.  Log in by hand:"
echo "  $SSH $USER_@127.0.0.1"
echo "Remove everything it created:"
echo "  $top/demo/demo.sh stop"
