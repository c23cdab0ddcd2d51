# shellcheck shell=bash
# The real-host guest image, sourced by tests/realhost/run.sh: Debian 12
# with systemd as PID 1 and only cgroup2 mounted, pam_systemd in sshd's
# stack, AppArmor as Debian's kernel enables it, and the runtimes of
# RH_PKGS.  Built offline-capable with mmdebstrap's default mirror (about
# 200 s on 2 cores) and cached in RH_CACHE, keyed by the package list and
# this recipe; the guest boots it with snapshot=on, so a run never
# changes it.

RH_PKGS="systemd-sysv udev linux-image-amd64 openssh-server podman crun runc
docker.io systemd-container auditd apparmor dbus dbus-user-session uidmap
sudo busybox-static iproute2 rsync libcap2-bin lxc
tlog systemd-journal-remote python3-apt audispd-plugins"

# The root filesystem of the LXC container with systemd inside, built at
# image time (the guest has no network): Debian's own packages, as
# lxc-create's debian template would fetch them.
RH_LXC_PKGS="systemd-sysv hostname openssh-sftp-server rsync"

# Configuration of the tree, run by mmdebstrap as a customize hook with
# the tree's path as $1 (and RH_PUBKEY in the environment).
rh_customize() {
	local t=$1
	echo realhost >"$t/etc/hostname"
	printf '127.0.1.1\trealhost\n' >>"$t/etc/hosts"
	printf '/dev/vda / ext4 rw,relatime 0 1\n' >"$t/etc/fstab"
	# QEMU's user network: the guest is 10.0.2.15, static (no DHCP wait)
	mkdir -p "$t/etc/systemd/network"
	printf '[Match]\nName=en* eth*\n[Network]\nAddress=10.0.2.15/24\nGateway=10.0.2.2\nDNS=10.0.2.3\n' \
		>"$t/etc/systemd/network/10-qemu.network"
	chroot "$t" systemctl enable systemd-networkd >/dev/null 2>&1
	mkdir -p -m 700 "$t/root/.ssh"
	printf '%s\n' "$RH_PUBKEY" >"$t/root/.ssh/authorized_keys"
	# sshd answers as soon as it listens; no DNS lookups of the client
	mkdir -p "$t/etc/ssh/sshd_config.d"
	printf 'UseDNS no\n' >"$t/etc/ssh/sshd_config.d/00-realhost.conf"
	# no password prompts anywhere, and no console login to wait for
	chroot "$t" passwd -l root >/dev/null
	chroot "$t" systemctl mask serial-getty@ttyS0.service getty@tty1.service \
		apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
		fstrim.timer man-db.timer >/dev/null 2>&1
	# LXC: no lxcbr0 (the container has no network)
	chroot "$t" systemctl mask lxc-net.service >/dev/null 2>&1
	# host keys are made by the package's postinst: one image, one key set
	rm -f "$t"/var/cache/apt/archives/*.deb
}

# Build RH_IMG (and RH_KERNEL, RH_INITRD beside it) unless cached.
rh_image() {
	local tree=$RH_CACHE/tree.tmp
	[ -f "$RH_IMG" ] && [ -f "$RH_KERNEL" ] && [ -f "$RH_INITRD" ] && return 0
	rh_log "building the guest image (mmdebstrap, about 200 s): $RH_IMG"
	rm -rf "$tree" "$RH_IMG.tmp"
	# shellcheck disable=SC2086
	RH_PUBKEY=$(cat "$RH_CACHE/id_ed25519.pub") \
	mmdebstrap --variant=minbase --include="$(echo $RH_PKGS | tr ' ' ,)" \
		--customize-hook="$(declare -f rh_customize); RH_PUBKEY='$(cat "$RH_CACHE/id_ed25519.pub")' rh_customize \"\$1\"" \
		bookworm "$tree" >"$RH_CACHE/mmdebstrap.log" 2>&1 ||
		rh_die "mmdebstrap failed, see $RH_CACHE/mmdebstrap.log"
	# the LXC container's rootfs, systemd inside, from the same mirror
	mkdir -p "$tree/var/lib/lxc/weblxc"
	# shellcheck disable=SC2086
	mmdebstrap --variant=minbase --include="$(echo $RH_LXC_PKGS | tr ' ' ,)" \
		bookworm "$tree/var/lib/lxc/weblxc/rootfs" >>"$RH_CACHE/mmdebstrap.log" 2>&1 ||
		rh_die "mmdebstrap (the LXC rootfs) failed, see $RH_CACHE/mmdebstrap.log"
	cp "$tree"/boot/vmlinuz-* "$RH_KERNEL.tmp"
	cp "$tree"/boot/initrd.img-* "$RH_INITRD.tmp"
	mke2fs -q -t ext4 -d "$tree" "$RH_IMG.tmp" 8G ||
		rh_die "mke2fs -d failed"
	rm -rf "$tree"
	mv "$RH_KERNEL.tmp" "$RH_KERNEL"
	mv "$RH_INITRD.tmp" "$RH_INITRD"
	mv "$RH_IMG.tmp" "$RH_IMG"
}

# The cached files for this recipe: RH_IMG, RH_KERNEL, RH_INITRD, and
# the key the image trusts for root (RH_KEY, made once per cache).
rh_paths() {
	local key
	[ -f "$RH_CACHE/id_ed25519" ] ||
		ssh-keygen -q -t ed25519 -N '' -C hijack-realhost -f "$RH_CACHE/id_ed25519"
	RH_KEY=$RH_CACHE/id_ed25519
	key=$( (echo "$RH_PKGS $RH_LXC_PKGS"; declare -f rh_customize rh_image) | sha256sum | cut -c1-16)
	RH_IMG=$RH_CACHE/debian12-$key.img
	RH_KERNEL=$RH_CACHE/debian12-$key.vmlinuz
	RH_INITRD=$RH_CACHE/debian12-$key.initrd
}
