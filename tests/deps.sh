#!/bin/sh
# Install what building and testing hijack needs on Debian 12 (as root).
set -e
PKGS="build-essential autoconf automake libtool pkg-config gawk
libpam0g-dev libcgroup-dev libaudit-dev check libcap-dev
busybox-static util-linux procps iproute2 openssh-server openssh-client
rsync auditd pamtester hyperfine tlog
runc crun lxc podman conmon catatonit uidmap
qemu-system-x86 linux-source-6.1 bc flex bison libelf-dev libssl-dev cpio kmod apparmor
clang-14 libclang-rt-14-dev llvm-14 valgrind cppcheck
dpkg-dev debhelper fakeroot lintian libcap2-bin
mmdebstrap e2fsprogs"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
