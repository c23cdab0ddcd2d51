#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Build Debian's linux-source-6.12 (6.12 LTS) with the hijack() series in patches/,
# boot it under QEMU (TCG) with an initramfs of busybox and the tests in
# tests/*.c, and report the guest's results.
#
# Usage: run-tests.sh [--debug | --all | --mutants] [--upstream] [--build-only]
#                     [--help]
#
#   (default)  the normal configuration (tinyconfig + config/hijack.config)
#   --debug    the debug configuration (+ config/debug.config: KASAN,
#              lockdep, kmemleak); any kernel report fails the run
#   --upstream also upstream-selftests.sh: the upstream pidfd, clone3,
#              nsfs, timens and cgroup selftests on the normal kernel and
#              on an unpatched one, which must agree
#   --all      both configurations and --upstream
#   --mutants  the normal kernel with mutants/*.patch applied after the
#              series (bugs the review found, put back): exactly the
#              kselftests their "Expect-fail:" lines name must fail
#   --build-only  build the kernels (and the unpatched one and its
#              tests, with --upstream) and stop: no checkpatch, no guest.
#              tests/run starts this in the background, at idle
#              priority, while the other tests run; the run that boots
#              the guests then waits for its lock and finds them built.
#
# Environment:
#   HIJACK_KERNEL_CACHE   cache directory (default /var/cache/hijack-kernel)
#   HIJACK_KERNEL_DEBUG   1 = --debug
#   HIJACK_KERNEL_JOBS    make -j value (default 2)
#   HIJACK_QEMU_TIMEOUT   seconds per boot (default 1200, debug 2700: the
#                         guests may share the CPUs with tests/run's
#                         real-host guest)
#
# Prints one "PASS name" / "FAIL name: reason" line per guest test, then
# "kernel: N passed, N failed" (or "kernel-debug: ...").  Exits non-zero
# if any test failed or the guest did not finish.

set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# kbuild_bzimage(), kboot() and KVER; die() and log() come below
# shellcheck source=SCRIPTDIR/kbuild.sh
. "$HERE/kbuild.sh"
CACHE=${HIJACK_KERNEL_CACHE:-/var/cache/hijack-kernel}
JOBS=${HIJACK_KERNEL_JOBS:-2}
TARBALL=/usr/src/linux-source-$KVER.tar.xz
PKGS="qemu-system-x86 linux-source-$KVER busybox-static build-essential bc
flex bison libelf-dev libssl-dev cpio xz-utils gzip patch perl apparmor
gcc-multilib"
# The guest has no apparmor_parser: its policy is compiled on the host
# for this feature set, apparmor 3.0.8's default.  It is a subset of what
# the guest's /sys/kernel/security/apparmor/features shows (6.12 adds,
# among others, userns and io_uring mediation, which the profile does not
# use), so the guest loads the policy as is: the AppArmor tests of
# hijack-cli-guest.sh fail if it does not.
AA_FEATURES=/usr/share/apparmor-features/features

usage() {
	sed -n '4,37p' "$0" | sed 's/^# \{0,1\}//'
}

die() {
	echo "run-tests.sh: $*" >&2
	exit 2
}

log() {
	echo "run-tests.sh: [$(date +%T)] $*" >&2
}

modes=()
upstream=0
build_only=0
mutants=0
case "${HIJACK_KERNEL_DEBUG:-0}" in
1 | yes | true) modes=(debug) ;;
esac
while [ $# -gt 0 ]; do
	case "$1" in
	--debug) modes=(debug) ;;
	--all) modes=(normal debug); upstream=1 ;;
	--upstream) upstream=1 ;;
	--build-only) build_only=1 ;;
	--mutants) mutants=1 ;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
[ ${#modes[@]} -gt 0 ] || modes=(normal)
[ "$mutants" = 0 ] || { modes=(normal); upstream=0; }
# the upstream comparison runs on the normal kernel
[ "$upstream" = 0 ] || [[ " ${modes[*]} " == *" normal "* ]] ||
	modes=(normal "${modes[@]}")

[ "$(id -u)" = 0 ] || die "must run as root (apt-get, cache in $CACHE)"

install_packages() {
	local missing=() p

	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
}

# The code of the series, in order: the diffs without commit messages or
# the format-patch signature, so rewording a message rebuilds nothing.
series_hash() {
	local p

	for p in "$SERIES"/*.patch; do
		sed -n '/^diff --git /,$p' "$p" | sed '/^-- $/,$d'
	done | sha256sum | cut -d' ' -f1
}

# Snapshot the series once: applying and stamping must agree even if
# patches/ changes while we run.
snapshot_series() {
	SERIES=$CACHE/series
	rm -rf "$SERIES"
	mkdir -p "$SERIES"
	cp "$HERE"/patches/*.patch "$SERIES/"
	# the cover letter (0000) is mail, not a patch to apply
	rm -f "$SERIES"/0000-cover-letter.patch
	if [ "$mutants" = 1 ]; then
		local m
		for m in "$HERE"/mutants/*.patch; do
			cp "$m" "$SERIES/9999-mutant-$(basename "$m")"
		done
	fi
	SERIES_HASH=$(series_hash)
}

# Unpack the source once; it is then patched and unpatched in place, so
# that only the files the series touches get new mtimes and every build
# stays incremental.
unpack_source() {
	local src=$CACHE/src tar_id

	tar_id=$(stat -c '%s %Y' "$TARBALL")
	if [ ! -f "$src/.tarball-id" ] ||
	   [ "$(cat "$src/.tarball-id")" != "$tar_id" ]; then
		log "unpacking $TARBALL"
		rm -rf "$src"
		mkdir -p "$src"
		tar -C "$src" -xf "$TARBALL"
		echo "$tar_id" >"$src/.tarball-id"
	fi
}

# Reverse the applied patches, if any: the tree is the tarball's again.
revert_series() {
	local src=$CACHE/src tree=$CACHE/src/linux-source-$KVER p

	[ -d "$src/applied" ] || return 0
	log "reverting the applied series"
	for p in $(printf '%s\n' "$src"/applied/*.patch | sort -r); do
		if ! patch -d "$tree" -p1 -R -s -f <"$p" >/dev/null; then
			log "cannot revert $(basename "$p"), unpacking again"
			rm -rf "$src"
			unpack_source
			return
		fi
	done
	rm -rf "$src/applied" "$src/.series-hash"
}

# The files a set of patches touches, one per line.
touched_files() {
	sed -n 's|^+++ b/||p' "$@" | sort -u
}

# Apply the current series, unless it is applied already.  Replacing an
# applied series keeps the times of the files whose content it does not
# change: reverting and applying rewrites every file the series touches,
# and make would otherwise compile again all that includes them (the
# system call table, sched.h) for a change to one test or one comment.
# Only a series that is still applied is known to be what the build
# directories were last built from; after build_unpatched() reverted it
# there is nothing to keep.
apply_series() {
	local src=$CACHE/src tree=$CACHE/src/linux-source-$KVER p f
	local keep=$CACHE/kept-times

	if [ -f "$src/.series-hash" ] && [ -d "$src/applied" ] &&
	   [ "$(cat "$src/.series-hash")" = "$SERIES_HASH" ]; then
		return 0
	fi
	rm -rf "$keep"
	if [ -d "$src/applied" ]; then
		mkdir -p "$keep"
		touched_files "$src"/applied/*.patch | while read -r f; do
			[ -f "$tree/$f" ] || continue
			mkdir -p "$keep/$(dirname "$f")"
			cp -p "$tree/$f" "$keep/$f"
		done
	fi
	revert_series
	mkdir -p "$src/applied"
	for p in "$SERIES"/*.patch; do
		log "applying $(basename "$p")"
		patch -d "$tree" -p1 -s -N --fuzz=0 <"$p" ||
			die "$(basename "$p") does not apply"
		cp "$p" "$src/applied/"
	done
	if [ -d "$keep" ]; then
		touched_files "$SERIES"/*.patch | while read -r f; do
			if [ -f "$keep/$f" ] && cmp -s "$keep/$f" "$tree/$f"; then
				touch -r "$keep/$f" "$tree/$f"
			fi
		done
		rm -rf "$keep"
	fi
	echo "$SERIES_HASH" >"$src/.series-hash"
}

# The unpatched kernel of the upstream comparison, built first in the
# normal build directory from the unpatched tree, so that the patched
# normal build after it is incremental (upstream-selftests.sh --build).
build_unpatched() {
	local u=$HERE/upstream-selftests.sh

	HIJACK_KERNEL_LOCKED=1 HIJACK_KERNEL_CACHE=$CACHE "$u" --uptodate &&
		return 0
	revert_series
	HIJACK_KERNEL_LOCKED=1 HIJACK_KERNEL_CACHE=$CACHE "$u" --build ||
		die "cannot build the unpatched kernel"
}

# Configure and build bzImage for a mode, unless nothing changed.
build_kernel() {
	local mode=$1 tree=$CACHE/src/linux-source-$KVER
	local b=$CACHE/build-$mode frags stamp

	frags=("$HERE/config/hijack.config")
	[ "$mode" = debug ] && frags+=("$HERE/config/debug.config")
	# what the image is made of: the source tarball (a new linux-source
	# package is unpacked again, and make alone would not be asked), the
	# series, and the fragments
	stamp=$( (cat "$CACHE/src/.tarball-id"; echo "$SERIES_HASH"
		cat "${frags[@]}") | sha256sum | cut -d' ' -f1)
	kbuild_bzimage "$tree" "$b" "$mode" "$JOBS" "$stamp" "${frags[@]}"
}

# Every patch must be clean for scripts/checkpatch.pl --no-tree --strict.
run_checkpatch() {
	local tree=$CACHE/src/linux-source-$KVER p bad=0 n=0

	for p in "$SERIES"/*.patch; do
		n=$((n + 1))
		if ! perl "$tree/scripts/checkpatch.pl" --no-tree --strict -q \
			"$p" >"$CACHE/checkpatch.log" 2>&1; then
			bad=$((bad + 1))
			sed 's/^/checkpatch:   | /' "$CACHE/checkpatch.log"
		fi
	done
	echo "checkpatch: $((n - bad)) clean, $bad with problems"
	[ "$bad" -eq 0 ]
}

build_tests() {
	local out=$CACHE/tests t

	rm -rf "$out"
	mkdir -p "$out"
	for t in "$HERE"/tests/*.c; do
		gcc -static -O2 -Wall -Wextra -Werror -o "$out/$(basename "$t" .c)" \
			"$t" || die "cannot build $t"
	done
	# the project's own hijack command and library, to run the same
	# checks on the native backend and on the stock one in the guest
	mkdir -p "$CACHE/hijack-cli"
	printf '#define _GNU_SOURCE 1\n#define PACKAGE_VERSION "guest"\n#define SCONFDIR "/etc/security"\n#define SBINDIR "/usr/sbin"\n#define HJ_WAITER_PATH "/usr/libexec/hijack/hijack-shell-wait"\n' \
		>"$CACHE/hijack-cli/config.h"
	local lib=("$HERE"/../lib/{caps,cgroup,conf,confine,escape,filters,io,mem,ns,proc,spawn,strerror,target}.c)
	gcc -static -O2 -Wall -Wextra -Werror -I"$CACHE/hijack-cli" \
		-I"$HERE/../lib" -o "$CACHE/hijack-cli/hijack" \
		"$HERE"/../hijack/{args,hijack,who,login-check,sshdconf,recording,pamstack}.c "${lib[@]}" \
		-lpthread || die "cannot build the hijack command"
	# the library's two backends side by side (hj_spawn(), no command),
	# and what each asks again after a check (tests/lib/spawn_checks.c)
	local p
	for p in spawn_bench spawn_checks; do
		gcc -static -O2 -Wall -Wextra -Werror -I"$CACHE/hijack-cli" \
			-I"$HERE/../lib" -o "$CACHE/hijack-cli/hj-${p//_/-}" \
			"$HERE/tests/lib/$p.c" "${lib[@]}" \
			-lpthread || die "cannot build hj-${p//_/-}"
	done
	# a container init confined as docker makes one, and the AppArmor
	# profile the guest loads and starts one under
	gcc -static -O2 -Wall -Wextra -Werror -o "$CACHE/hijack-cli/hj-confined" \
		"$HERE/../tests/helpers/hj-confined.c" || die "cannot build hj-confined"
	apparmor_parser -Q -S -K -T --features-file "$AA_FEATURES" \
		"$HERE/tests/apparmor/hijack-test.profile" \
		>"$CACHE/hijack-cli/hijack-test.aa" ||
		die "cannot compile the AppArmor profile"
	cp "$HERE/tests/hijack-cli-guest.sh" "$out/zz-hijack-cli"
	chmod 755 "$out/zz-hijack-cli"
	build_kselftest
	build_man_example
}

# The example program of man/hijack.2, as the page prints it, built
# against the patched tree's headers (build_kselftest exported them):
# hijack-cli-guest.sh runs it, so what the page shows is tested.
build_man_example() {
	local src=$CACHE/hijack-cli/hijack-example.c

	sed -n '/^\.SH EXAMPLES/,/^\.SH SEE ALSO/{/^\.EX$/,/^\.EE$/p}' \
		"$HERE/../man/hijack.2" |
		sed '/^\.E[XE]$/d; s/^\\&$//; s/\\-/-/g; s/\\e/\\/g' |
		sed "s/\\\\\[aq\\]/'/g" >"$src"
	[ -s "$src" ] || die "no example program in man/hijack.2"
	gcc -static -O2 -Wall -Wextra -Werror \
		-isystem "$CACHE/kselftest-headers/usr/include" \
		-o "$CACHE/hijack-cli/hijack-example" "$src" ||
		die "cannot build man/hijack.2's example"
}

# tools/testing/selftests/hijack from the patched tree (patch 0006),
# static, against the headers the patched tree exports (struct
# hijack_args, __NR_hijack), installed with its run_kselftest.sh, which
# tests/kselftest-guest.sh runs in the guest.
build_kselftest() {
	local tree=$CACHE/src/linux-source-$KVER hdr=$CACHE/kselftest-headers
	local st=$tree/tools/testing/selftests

	rm -rf "$CACHE/kselftest" "$CACHE/kselftest32" "$hdr"
	[ -d "$st/hijack" ] || return 0
	mkdir -p "$hdr"
	make -C "$tree" O="$hdr" -s headers >/dev/null ||
		die "cannot export the patched tree's headers"
	# installed as kselftest installs it: run_kselftest.sh, its runner,
	# kselftest-list.txt and hijack/ (the program and its settings)
	install_kselftest kselftest gcc
	# and as an i386 program, which the normal kernel (IA32_EMULATION)
	# runs too: the same number, 463, through the compat entry, and a
	# test that assumes a 64-bit long fails to build or to pass
	install_kselftest kselftest32 "gcc -m32"
	cp "$HERE/tests/kselftest-guest.sh" "$CACHE/tests/kselftest-hijack"
	chmod 755 "$CACHE/tests/kselftest-hijack"
}

# install_kselftest NAME CC: tools/testing/selftests/hijack built with CC
# and installed in $CACHE/NAME (build_kselftest's tree and headers)
install_kselftest() {
	local log=$CACHE/$1-build.log

	make -s -C "$st" TARGETS=hijack O="$CACHE/$1-build" \
		INSTALL_PATH="$CACHE/$1" CC="$2" USERLDFLAGS=-static \
		USERCFLAGS=-Werror KHDR_INCLUDES="-isystem $hdr/usr/include" \
		install >"$log" 2>&1 ||
		die "cannot build $st/hijack with $2: $(tail -n 20 "$log")"
	[ -x "$CACHE/$1/hijack/hijack_test" ] ||
		die "no hijack_test in $CACHE/$1"
}

write_init() {
	local mode=$1 rounds=500 loops=3000 bench=1 cb="native stock"

	# Under TCG, KASAN and lockdep make each call about 7 times slower,
	# and a benchmark of a KASAN kernel measures KASAN.  The debug guest
	# runs no benchmark (HIJACK_BENCH=0), only what the benchmark
	# programs also test, a few rounds each, and not bench_test at all
	# (build_initramfs): its loop and its random arguments are what the
	# kselftest's cases do too (random_arguments makes 5000 calls, each
	# with the error it must get), and a leak or a lock inversion per
	# call shows in the first call (kmemleak and lockdep report it).
	# The normal guest keeps both, with 3000 calls in the loop (10000
	# took 51 s of its 3 minutes).
	# The hijack command's confinement checks with the stock backend
	# (HIJACK_CLI_CONFINE_BACKENDS) run only in the normal guest: they
	# test what the library copies from the init with calls the series
	# does not touch, and under KASAN they took 35 s of the debug
	# guest's 86 s of command checks.  The stock backend's entries
	# themselves (setns(2), which the series' nsproxy split serves too)
	# still run in both guests.
	[ "$mode" = debug ] && rounds=10 loops=300 bench=0 cb=native
	sed "s/@ROUNDS@/$rounds/; s/@LOOPS@/$loops/; s/@BENCH@/$bench/; s/@CB@/$cb/" <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t securityfs securityfs /sys/kernel/security
mount -t tmpfs cgroup /sys/fs/cgroup
mkdir -p /sys/fs/cgroup/pids /sys/fs/cgroup/unified
mount -t cgroup -o pids pids /sys/fs/cgroup/pids
mount -t cgroup2 cgroup2 /sys/fs/cgroup/unified
KMEMLEAK=/sys/kernel/debug/kmemleak
if [ -d /sys/kernel/debug ] && mount -t debugfs debugfs /sys/kernel/debug &&
   [ -e $KMEMLEAK ]; then
	# Forget boot-time objects: only leaks from the tests count.
	echo scan > $KMEMLEAK
	echo clear > $KMEMLEAK
else
	KMEMLEAK=
fi
export HIJACK_LOOPS=@LOOPS@
export HIJACK_STRESS_SECONDS=15
export HIJACK_BENCH_ROUNDS=@ROUNDS@
export HIJACK_BENCH=@BENCH@
export HIJACK_CLI_CONFINE_BACKENDS="@CB@"
echo HIJACK-GUEST-START
for t in /tests/*; do
	name=${t##*/}
	t0=$(cut -d. -f1 /proc/uptime)
	"$t"
	rc=$?
	case $rc in
	0 | 1) ;;
	*) echo "FAIL $name: exited with status $rc" ;;
	esac
	echo "TIME $name $(($(cut -d. -f1 /proc/uptime) - t0)) s"
done
if [ -n "$KMEMLEAK" ]; then
	sleep 1
	echo scan > $KMEMLEAK
	echo scan > $KMEMLEAK
	# A debugfs file's size is 0 whatever it holds: read it.  Objects
	# that start_kernel() allocated are boot's, not the tests' (when the
	# guest had ACPI, its caches from acpi_ut_create_caches() were
	# reported after a while, though the scan at boot did not see them):
	# shown as "boot-time object", not counted.  Any other object fails.
	cat $KMEMLEAK | awk '
		function flush() {
			if (rec == "")
				return
			if (rec ~ /start_kernel/)
				sub(/^unreferenced object/, "boot-time object", rec)
			else
				n++
			printf "%s", rec
		}
		/^unreferenced object/ { flush(); rec = "" }
		{ rec = rec $0 "\n" }
		END { flush(); print n + 0 > "/tmp/leaks" }'
	if [ "$(cat /tmp/leaks)" != 0 ]; then
		echo "FAIL kmemleak: $(cat /tmp/leaks) unreferenced objects after the tests"
	else
		echo "PASS kmemleak"
	fi
fi
echo HIJACK-GUEST-DONE
reboot -f
EOF
}

build_initramfs() {
	local mode=$1
	local root=$CACHE/initramfs-$mode

	rm -rf "$root"
	mkdir -p "$root/bin" "$root/tests"
	cp /bin/busybox "$root/bin/busybox"
	cp "$CACHE"/tests/* "$root/tests/"
	# the loop, fuzz and benchmark program: not under KASAN (write_init)
	[ "$mode" = normal ] || rm -f "$root/tests/bench_test"
	cp "$CACHE/hijack-cli/hijack" "$CACHE/hijack-cli/hj-confined" \
		"$CACHE/hijack-cli/hj-spawn-bench" "$CACHE/hijack-cli/hj-spawn-checks" \
		"$CACHE/hijack-cli/hijack-example" "$root/bin/"
	cp -a "$CACHE/kselftest" "$root/kselftest"
	[ "$mode" != normal ] || cp -a "$CACHE/kselftest32" "$root/kselftest32"
	# kselftest's runner calls "/usr/bin/timeout --foreground", which
	# busybox's timeout lacks (the option is about a terminal's job
	# control; the guest's tests have no terminal): a wrapper drops it
	mkdir -p "$root/usr/bin"
	printf '#!/bin/busybox sh\n[ "$1" = --foreground ] && shift\nexec /bin/busybox timeout "$@"\n' \
		>"$root/usr/bin/timeout"
	chmod 755 "$root/usr/bin/timeout"
	mkdir -p "$root/etc/apparmor"
	cp "$CACHE/hijack-cli/hijack-test.aa" "$root/etc/apparmor/"
	write_init "$mode" >"$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) \
		>"$CACHE/initrd-$mode.cpio.gz"
}

# Boot, show the results, print the summary; returns non-zero on failure.
run_guest() {
	local mode=$1
	local b=$CACHE/build-$mode label=kernel timeout rc=0
	local glog=$CACHE/guest-$mode.log pass fail reports

	[ "$mode" = debug ] && label=kernel-debug
	timeout=${HIJACK_QEMU_TIMEOUT:-1200}
	[ "$mode" = debug ] && timeout=${HIJACK_QEMU_TIMEOUT:-2700}

	log "booting ($mode), timeout ${timeout}s, log in $glog"
	kboot "$timeout" "$b/arch/x86/boot/bzImage" \
		"$CACHE/initrd-$mode.cpio.gz" >"$glog" || rc=$?

	grep -E '^(PASS|FAIL|BENCH|TIME) ' "$glog" | sed "s/^/$label: /" || true

	pass=$(grep -c '^PASS ' "$glog" || true)
	fail=$(grep -c '^FAIL ' "$glog" || true)

	if ! grep -q '^HIJACK-GUEST-DONE' "$glog"; then
		echo "$label: FAIL guest: did not finish (qemu status $rc)"
		tail -n 30 "$glog" | sed "s/^/$label:   | /"
		fail=$((fail + 1))
	fi

	# Any kernel report is a failure, in both configurations.
	reports=$(grep -E 'BUG:|WARNING:|KASAN|Oops|general protection|Kernel panic|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|lockdep|unreferenced object|DEBUG_LOCKS_WARN_ON|INFO: task .* blocked' "$glog" |
		grep -v 'lockdep is turned off\|^lockdep:\|RCU lockdep checking is enabled' || true)
	if [ -n "$reports" ]; then
		echo "$label: FAIL kernel-log: $(echo "$reports" | wc -l) report line(s):"
		echo "$reports" | head -n 20 | sed "s/^/$label:   | /"
		fail=$((fail + 1))
	fi
	[ "$pass" -gt 0 ] || fail=$((fail + 1))

	echo "$label: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

main() {
	local mode status=0

	install_packages
	[ -f "$TARBALL" ] || die "$TARBALL missing"
	ls "$HERE"/patches/*.patch >/dev/null 2>&1 || die "no patches"
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.lock"
	flock 9

	snapshot_series
	unpack_source
	# a build that dies leaves nothing of ours running
	trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
	# checkpatch reads only the patches (and its script, which the
	# series does not touch): beside the builds, on the CPU their serial
	# parts (configuring, linking, compressing) leave idle; not for
	# mutants, which are bugs, not patches to send
	local cp_pid=""
	if [ "$build_only" = 0 ] && [ "$mutants" = 0 ]; then
		run_checkpatch >"$CACHE/checkpatch.out" 2>&1 &
		cp_pid=$!
	fi
	[ "$upstream" = 0 ] || build_unpatched
	apply_series
	if [ "$build_only" = 1 ]; then
		for mode in "${modes[@]}"; do
			build_kernel "$mode"
		done
		return 0
	fi
	# the test programs need the patched tree only to read it: built
	# beside the kernels too, and waited for before the first initramfs
	build_tests >"$CACHE/build-tests.out" 2>&1 &
	local bt_pid=$! bt_rc=0
	for mode in "${modes[@]}"; do
		build_kernel "$mode"
		if [ -n "$bt_pid" ]; then
			wait "$bt_pid" || bt_rc=$?
			bt_pid=""
			cat "$CACHE/build-tests.out" >&2
			[ "$bt_rc" = 0 ] || die "building the guest's tests failed"
		fi
		build_initramfs "$mode"
	done
	if [ -n "$cp_pid" ]; then
		wait "$cp_pid" || status=1
		cat "$CACHE/checkpatch.out"
	fi
	# Under TCG a guest keeps about one host CPU busy (its tests are
	# mostly one process at a time; the builds before keep both busy):
	# the debug guest runs beside the normal one, which the upstream
	# comparison follows (its two guests side by side).  Each report is
	# shown whole, in that order.
	local pids=() names=() i
	for mode in "${modes[@]}"; do
		if [ "$mode" = normal ] && [ "$upstream" = 1 ]; then
			normal_then_upstream >"$CACHE/report-$mode" 2>&1 &
		else
			run_guest "$mode" >"$CACHE/report-$mode" 2>&1 &
		fi
		pids+=($!) names+=("$mode")
	done
	if [ "$upstream" = 1 ] && [[ " ${modes[*]} " != *" normal "* ]]; then
		run_upstream >"$CACHE/report-upstream" 2>&1 &
		pids+=($!) names+=(upstream)
	fi
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || status=1
		cat "$CACHE/report-${names[$i]}"
	done
	if [ "$mutants" = 1 ]; then
		judge_mutants "$CACHE/report-normal" || return 1
		return 0
	fi
	return $status
}

# judge_mutants REPORT: in each pass of the kselftest (the 64-bit one,
# and the i386 one in the normal guest), the tests that failed on the
# mutated kernel must be exactly those the mutants' "Expect-fail:" lines
# name, and nothing else may have failed (the guest finished, no kernel
# report)
judge_mutants() {
	local want got pass other bad=0

	want=$(sed -n 's/^Expect-fail: *//p' "$HERE"/mutants/*.patch | sort -u)
	echo "mutants: expected to fail: $(tr '\n' ' ' <<<"$want")"
	for pass in kselftest kselftest32; do
		grep -q "^kernel: [A-Z]* $pass/" "$1" || continue
		got=$(sed -n "s|^kernel: FAIL $pass/hijack\.\([a-z0-9_]*\):.*|\1|p" "$1" | sort -u)
		echo "mutants: $pass failed: $(tr '\n' ' ' <<<"$got")"
		[ "$want" = "$got" ] || bad=1
	done
	other=$(grep '^kernel: FAIL ' "$1" |
		grep -Ev '^kernel: FAIL kselftest(32)?(/hijack\.|-runner: )' || true)
	if [ "$bad" = 0 ] && [ -z "$other" ] && [ -n "$want" ]; then
		echo "mutants: 1 passed, 0 failed"
		return 0
	fi
	[ -z "$other" ] || echo "mutants: other failures: $other"
	echo "mutants: 0 passed, 1 failed"
	return 1
}

normal_then_upstream() {
	local rc=0

	run_guest normal || rc=1
	run_upstream || rc=1
	return $rc
}

run_upstream() {
	# we hold the cache's lock: it must not wait for it
	HIJACK_KERNEL_LOCKED=1 HIJACK_KERNEL_CACHE=$CACHE \
		"$HERE/upstream-selftests.sh"
}

main
exit $?
