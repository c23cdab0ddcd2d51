#!/bin/bash
# hijack demo: a real container from a busybox-static root filesystem in
# its own cgroup, entered with `hijack cgroup`, host and container side by
# side.  As root on Debian 12:
#
#	demo/demo.sh          # build, start the container, show it
#	demo/demo.sh stop     # remove everything the demo created
set -u
cd "$(dirname "$0")/.."
top=$(pwd)
STATE=/run/hijack-demo
CG=hijack-demo/web1

hierarchies() { awk '$3 == "cgroup" || $3 == "cgroup2" { print $2 }' /proc/self/mounts; }

stop() {
	if [ -f "$STATE/helper.pid" ]; then
		kill -KILL "$(cat "$STATE/init.pid" 2>/dev/null)" "$(cat "$STATE/helper.pid")" 2>/dev/null
		sleep 0.2
	fi
	for h in $(hierarchies); do
		[ -d "$h/hijack-demo" ] && find "$h/hijack-demo" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	rm -rf "$STATE"
	echo "demo: stopped and removed"
}

if [ "${1:-start}" = stop ]; then
	stop
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "demo: run as root" >&2; exit 1; }
[ -d "$STATE" ] && stop >/dev/null

echo "demo: installing dependencies and building (see $top/demo.log)"
tests/deps.sh || exit 1
{ ./autogen.sh && ./configure && make -j2; } > "$top/demo.log" 2>&1 ||
	{ tail -20 "$top/demo.log"; exit 1; }

mkdir -p "$STATE/rootfs"
R=$STATE/rootfs
mkdir -p "$R"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,etc,tmp,root,run,oldroot}
cp /bin/busybox "$R/bin/" && chroot "$R" /bin/busybox --install -s
echo "root:x:0:0:root:/root:/bin/sh" > "$R/etc/passwd"
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
		hostname web1; exec sleep 1000000'"
) </dev/null >/dev/null 2>&1 &
echo $! > "$STATE/helper.pid"
for i in $(seq 100); do
	init=$(pgrep -P "$(cat "$STATE/helper.pid")" -x sleep) && break
	sleep 0.05
done
echo "$init" > "$STATE/init.pid"

V2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
F=${V2:+$V2/$CG/cgroup.procs}
F=${F:-$(hierarchies | head -n1)/$CG/tasks}
echo
echo "\$ hijack -v cgroup $F sh -c '...'"
inside=$("$top/hijack/hijack" -v cgroup "$F" sh -c '
	hostname; echo "pid 1: $(cat /proc/1/comm)"
	for n in mnt uts pid net cgroup; do readlink /proc/self/ns/$n; done
	head -n1 /proc/self/cgroup; ls / | tr "\n" " "; echo' 2>"$STATE/verbose")
outside=$(sh -c '
	hostname; echo "pid 1: $(cat /proc/1/comm)"
	for n in mnt uts pid net cgroup; do readlink /proc/self/ns/$n; done
	head -n1 /proc/self/cgroup; ls / | tr "\n" " "; echo')
cat "$STATE/verbose"
echo
paste -d'|' <(echo "HOST"; echo "$outside") <(echo "INSIDE web1 (via hijack)"; echo "$inside") |
	awk -F'|' '{ printf "  %-45.45s  %s\n", $1, $2 }'
echo
echo "The container keeps running.  Try:  $top/hijack/hijack cgroup $F"
echo "Remove everything:                 $top/demo/demo.sh stop"
