# A container's AppArmor profile for the guest tests: it allows what
# busybox, unshare and hj-confined do, and is observable only as the
# label /proc/PID/attr/current shows.  Compiled on the host
# (run-tests.sh), loaded in the guest through securityfs's .load.
abi <abi/3.0>,

profile hijack-test flags=(attach_disconnected) {
  file,
  capability,
  network,
  mount,
  umount,
  pivot_root,
  signal,
  ptrace,
  change_profile,
}
