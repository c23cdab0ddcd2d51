# shellcheck shell=bash
# Sourced by run-tests.sh and upstream-selftests.sh, which define die()
# and log(): configure a tinyconfig kernel from fragments and build its
# bzImage, the same way for the patched and the unpatched tree, and
# boot a kernel with an initramfs the same way for every guest.
#
#	kbuild_bzimage TREE BUILD-DIR LABEL JOBS STAMP FRAGMENT...
#
# STAMP names what the image is made of; a build whose stamp matches and
# that has its bzImage is kept as it is.
#
# Every option the fragments ask for must survive olddefconfig: =y,
# strings and numbers as written, =n and "is not set" as not set.  The
# last fragment to set an option wins, as in merge_config.sh.
# The kernel the series is for: Debian's linux-source-$KVER package.
KVER=6.12

kbuild_bzimage() {
	local tree=$1 b=$2 label=$3 jobs=$4 stamp=$5 opt u s
	shift 5

	if [ -f "$b/.hijack-stamp" ] && [ -f "$b/arch/x86/boot/bzImage" ] &&
	   [ "$(cat "$b/.hijack-stamp")" = "$stamp" ]; then
		log "kernel ($label) is up to date"
		return 0
	fi
	mkdir -p "$b"
	rm -f "$b/.hijack-stamp"
	log "configuring ($label)"
	make -C "$tree" O="$b" -s tinyconfig >/dev/null
	(cd "$tree" && scripts/kconfig/merge_config.sh -m -O "$b" \
		"$b/.config" "$@" >/dev/null)
	make -C "$tree" O="$b" -s olddefconfig >/dev/null
	sed -nE 's/^(CONFIG_[A-Z0-9_]+)=n$/# \1 is not set/p
		/^CONFIG_[A-Z0-9_]+=[^n]/p; /^# CONFIG_[A-Z0-9_]+ is not set$/p' \
		"$@" | tac | awk '{ o = $1 == "#" ? $2 : $0
			sub(/=.*/, "", o) } !seen[o]++' |
	while read -r opt; do
		grep -qxF -- "$opt" "$b/.config" ||
			die "'$opt' did not stick in the $label configuration"
	done

	log "building bzImage ($label), make -j$jobs"
	local TIMEFORMAT='%0R %0U %0S' t
	if ! t=$({ time make -C "$tree" O="$b" -j"$jobs" bzImage \
			>"$b/build.log" 2>&1; } 2>&1); then
		tail -n 40 "$b/build.log" >&2
		die "kernel build ($label) failed, see $b/build.log"
	fi
	# where a run's time goes: each build's wall clock, its CPU time,
	# and how many objects it compiled
	read -r t u s <<<"$t"
	log "built bzImage ($label): $(grep -c '^  CC ' "$b/build.log") objects compiled, ${t}s wall, $((u + s))s cpu"
	echo "$stamp" >"$b/.hijack-stamp"
}

# kboot TIMEOUT KERNEL INITRD: boot KERNEL under QEMU (TCG) with INITRD
# as its initramfs, its /init as the first process, and print the serial
# console without carriage returns.  Returns qemu's status (124 when
# TIMEOUT seconds ran out), the guest powering off by reboot -f.
#
# The machine is QEMU's microvm with ACPI off: a serial port and no
# other device, and firmware (qboot) whose MP table lists every CPU, so
# that the kernel needs neither ACPI nor a PC's devices (config/).  Two
# vCPUs, one host thread each (multi-threaded TCG), so races really
# interleave.  reboot=t: a triple fault, the one reset such a machine
# has; with -no-reboot, qemu then exits.
#
# tsc=reliable makes the TSC the clocksource, which the vDSO reads
# directly (jiffies would send every vDSO clock_gettime() to the system
# call, and hide time namespace bugs).  Under TCG the guest's TSC runs
# at the host's rate; calibrating it against the PIT fails on a loaded
# host, and then the kernel marks the TSC unstable and the vDSO tests
# lose their clocksource, so tsc_early_khz gives it the rate.  (Before
# the rate was given, the debug kernel on two vCPUs once had not reached
# the tests after 7 min; with it, it reaches them about 10 s into the
# boot.)
#
# la57=off: no 5-level paging.  Linux 6.1's identify_cpu() zeroes
# boot_cpu_data's capabilities and fills them again with interrupts on
# (arch_cpu_finalize_init(), before the alternatives are applied); an
# interrupt in that window makes pgtable_l5_enabled() false for a moment,
# and KASAN, whose KASAN_SHADOW_START follows it, then reports any
# direct-map access of the handler as a "wild-memory-access" (seen once:
# rcu_is_watching() from irqentry_enter() under cpu_detect()).  A false
# report, and nothing the tests need.
kboot() {
	local timeout=$1 kernel=$2 initrd=$3 khz
	local append='console=ttyS0 panic=-1 rdinit=/init tsc=reliable reboot=t'

	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	[ -n "$khz" ] && [ "$khz" -gt 0 ] && append+=" tsc_early_khz=$khz"
	timeout "$timeout" qemu-system-x86_64 -M microvm,acpi=off \
		-accel tcg,thread=multi -cpu max,la57=off -m 256M -smp 2 \
		-nographic -no-reboot -kernel "$kernel" -initrd "$initrd" \
		-append "$append" </dev/null | tr -d '\r'
}
