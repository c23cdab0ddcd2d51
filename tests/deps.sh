#!/bin/sh
# Install what building and testing hijack needs on Debian 12 (as root).
set -e
PKGS="build-essential autoconf automake libtool pkg-config gawk
libpam0g-dev libaudit-dev check libcap-dev
busybox-static util-linux procps iproute2 openssh-server openssh-client
rsync git curl auditd pamtester hyperfine tlog strace
runc crun lxc podman conmon catatonit uidmap
qemu-system-x86 linux-source-6.12 bc flex bison libelf-dev libssl-dev cpio kmod apparmor
gcc-multilib
clang-14 libclang-rt-14-dev llvm-14 valgrind cppcheck
dpkg-dev debhelper fakeroot lintian libcap2-bin
mmdebstrap e2fsprogs ansible-core"
# missing_of PKG...: those not installed, each after a space
missing_of() {
	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "ok installed" || printf ' %s' "$p"
	done
}
# shellcheck disable=SC2086
missing=$(missing_of $PKGS)
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# install_quietly PKG...: install those missing without starting any
# service.  invoke-rc.d asks /usr/sbin/policy-rc.d first, and exit status
# 101 is "action forbidden by policy" (init-system-helpers,
# README.policy-rc.d); a temporary one of ours, only when none is there.
# Returns 1 when nothing was missing.
install_quietly() {
	missing=$(missing_of "$@")
	[ -n "$missing" ] || return 1
	echo "deps: installing$missing (services not started)"
	export DEBIAN_FRONTEND=noninteractive
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ] && [ ! -L /usr/sbin/policy-rc.d ]; then
		policy=/usr/sbin/policy-rc.d
		trap 'rm -f "$policy"' EXIT
		printf '#!/bin/sh\n# tests/deps.sh: no service starts during its install\nexit 101\n' > "$policy"
		chmod 755 "$policy"
	fi
	apt-get update -qq
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
	if [ -n "$policy" ]; then
		rm -f "$policy"
		trap - EXIT
	fi
}

# docker.io (dockerd, containerd) for tests/e2e-runtimes.sh, which starts a
# private dockerd of its own: with no systemd the package's init script
# would start a host dockerd that writes iptables rules.  audispd-plugins
# (audisp-remote) for tests/audit-remote.sh: its postinst would restart
# auditd.
install_quietly docker.io containerd audispd-plugins || :

# The directory of tests/directory.sh: OpenLDAP's slapd and SSSD (and its
# sssctl, which hijack check asks), which the test starts itself (on
# loopback, in a mount namespace of its own with its own nsswitch.conf
# and /var/lib/sss).  Their packages would change
# the machine for every other test: libpam-sss's profile is disabled in
# the common-* PAM stacks, as an admin's choice that pam-auth-update
# keeps when a later package (libpam-hijack's, in tests/deb-e2e.sh)
# runs it again, and nsswitch.conf is put back as it was.
cp -p /etc/nsswitch.conf /etc/nsswitch.conf.hjdeps
if install_quietly slapd ldap-utils sssd-ldap sssd-tools; then
	cp /etc/nsswitch.conf.hjdeps /etc/nsswitch.conf
fi
rm -f /etc/nsswitch.conf.hjdeps
if [ -e /usr/share/pam-configs/sss ] &&
	grep -q pam_sss /etc/pam.d/common-account /etc/pam.d/common-session; then
	DEBIAN_FRONTEND=noninteractive pam-auth-update --disable sss
fi
