#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the upstream kselftests that cover the code the hijack() series
# touches (pidfd, clone3, nsfs, timens, cgroup) on the patched kernel and
# on an unpatched kernel of the same configuration, and compare.
#
# Usage: upstream-selftests.sh [--table | --uptodate | --build] [--help]
#
#   (default)   boot both kernels, compare (both must have been built)
#   --table     only print the comparison of the last run's guest logs
#   --uptodate  exit 0 if the unpatched kernel and the tests are built
#   --build     build them; run-tests.sh calls this with the source tree
#               unpatched and its lock held
#
# The unpatched kernel is built from run-tests.sh's own source tree
# before the series is applied, in the normal configuration's build
# directory, with the same fragments minus CONFIG_HIJACK; its bzImage
# and .config are kept in $HIJACK_UNPATCHED_CACHE.  The patched normal
# build that follows in the same directory is then incremental: only
# what the series touches and what includes it is compiled again.  The
# tests are built once, statically, from the unpatched tree against its
# exported headers, and the same binaries run in both guests (busybox
# initramfs, cgroup2 only, -smp 2).  run-tests.sh --upstream (and --all)
# does all of this.
#
# Environment:
#   HIJACK_KERNEL_CACHE     run-tests.sh's cache (/var/cache/hijack-kernel)
#   HIJACK_UNPATCHED_CACHE  this script's (default: unpatched/ in it)
#   HIJACK_KERNEL_JOBS      make -j value (default 2)
#   HIJACK_QEMU_TIMEOUT     seconds per boot (default 900)
#
# Prints "upstream: <test> <patched> <unpatched>" per test case and a
# summary line; exits non-zero if any result differs on both boots (see
# compare()) or a guest did not finish.

set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# kbuild_bzimage(), kboot() and KVER; die() and log() come below
# shellcheck source=SCRIPTDIR/kbuild.sh
. "$HERE/kbuild.sh"
PCACHE=${HIJACK_KERNEL_CACHE:-/var/cache/hijack-kernel}
UCACHE=${HIJACK_UNPATCHED_CACHE:-$PCACHE/unpatched}
JOBS=${HIJACK_KERNEL_JOBS:-2}
TREE=$PCACHE/src/linux-source-$KVER
# shared with the patched normal kernel (run-tests.sh's build_kernel)
BUILD=$PCACHE/build-normal
# Shell tests need bash, which the busybox guest lacks:
# cgroup/test_stress.sh, cgroup/test_cpuset_prs.sh.
TARGETS="pidfd clone3 nsfs timens cgroup"
# Built but not run, on the guest's configuration (the normal one, which
# the other guest tests use):
#   cgroup/test_kill  waits for cgroup.events through inotify, which the
#                     configuration lacks (no CONFIG_INOTIFY_USER): it
#                     hangs until killed, on both kernels
#   cgroup/test_cpu   needs the cpu controller (no CONFIG_CGROUP_SCHED);
#                     without it test_cpucg_stats compares CPU times
#                     under TCG, and passed or failed from run to run
NOT_RUN="cgroup/test_kill cgroup/test_cpu"

die() {
	echo "upstream-selftests.sh: $*" >&2
	exit 2
}

log() {
	echo "upstream-selftests.sh: [$(date +%T)] $*" >&2
}

mode=run
case "${1:-}" in
-h | --help) sed -n '4,36p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--table) mode=table ;;
--uptodate) mode=uptodate ;;
--build) mode=build ;;
'') ;;
*) die "unknown argument $1" ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root"

# The fragments of the normal configuration, minus the option the
# unpatched tree does not have.
write_fragment() {
	grep -v '^CONFIG_HIJACK=' "$HERE/config/hijack.config"
}

# What the unpatched kernel and the tests are made of: the source
# tarball, the fragment, what is built and what is not run, and how.
unpatched_stamp() {
	(cat "$PCACHE/src/.tarball-id"; write_fragment
	echo "$TARGETS / $NOT_RUN"
	declare -f kbuild_bzimage build_unpatched build_selftests) |
		sha256sum | cut -d' ' -f1
}

uptodate() {
	[ -f "$PCACHE/src/.tarball-id" ] && [ -f "$UCACHE/.stamp" ] &&
	[ -f "$UCACHE/bzImage" ] && [ -f "$UCACHE/selftests/list" ] &&
	[ "$(cat "$UCACHE/.stamp")" = "$(unpatched_stamp)" ]
}

# In the normal build directory, from the unpatched tree.  kbuild's own
# per-option dependencies (fixdep) keep the patched build that follows
# from recompiling what neither the series nor CONFIG_HIJACK touches.
build_unpatched() {
	local stamp st_pid

	[ -n "${HIJACK_KERNEL_LOCKED:-}" ] ||
		die "--build is run-tests.sh's: it holds the lock and unpatches the tree"
	[ ! -e "$PCACHE/src/applied" ] || die "the source tree is patched"
	mkdir -p "$UCACHE"
	rm -f "$UCACHE/.stamp"
	stamp=$(unpatched_stamp)
	write_fragment >"$UCACHE/unpatched.config"
	# the tests read the same unpatched tree: built beside the kernel,
	# on what its serial steps leave of the CPUs
	build_selftests >"$UCACHE/selftests.out" 2>&1 &
	st_pid=$!
	kbuild_bzimage "$TREE" "$BUILD" unpatched "$JOBS" "unpatched-$stamp" \
		"$UCACHE/unpatched.config"
	cp "$BUILD/arch/x86/boot/bzImage" "$UCACHE/bzImage"
	cp "$BUILD/.config" "$UCACHE/config"
	wait "$st_pid" || die "cannot build the selftests: $(tail -n 5 "$UCACHE/selftests.out")"
	cat "$UCACHE/selftests.out" >&2
	echo "$stamp" >"$UCACHE/.stamp"
}

# Same configuration: the two .config files may differ only in
# CONFIG_HIJACK and HAVE_ARCH_HIJACK, which the series adds.
compare_configs() {
	local d

	d=$(diff <(grep '^CONFIG_' "$UCACHE/config" | sort) \
		<(grep '^CONFIG_' "$UCACHE/patched.config" | sort) |
		grep '^[<>]' | grep -v 'CONFIG_HIJACK=\|CONFIG_HAVE_ARCH_HIJACK=' || true)
	[ -z "$d" ] || die "configurations differ beyond CONFIG_HIJACK: $d"
}

# The tests, from the unpatched tree, against its exported headers.
build_selftests() {
	local out=$UCACHE/selftests t list
	local st=$TREE/tools/testing/selftests hdr=$UCACHE/headers

	rm -rf "$out" "$hdr" "$UCACHE/headers-build"
	mkdir -p "$out"
	# a build directory of their own: the kernel's builds beside them
	make -C "$TREE" O="$UCACHE/headers-build" -s headers >/dev/null
	cp -a "$UCACHE/headers-build/usr/include" "$hdr"
	rm -rf "$UCACHE/headers-build"
	# shellcheck disable=SC2016 # make, not the shell, expands it
	printf 'print-tests:\n\t@echo $(TEST_GEN_PROGS)\n' >"$UCACHE/print.mk"
	for t in $TARGETS; do
		log "building selftests/$t (static)"
		mkdir -p "$out/$t"
		if ! make -C "$st/$t" OUTPUT="$out/$t" CC="gcc -static" \
			KHDR_INCLUDES="-isystem $hdr" \
			>"$out/$t.log" 2>&1; then
			# keep what built; what did not is reported as missing
			log "selftests/$t: some programs did not build, see $out/$t.log"
		fi
		list=$(make -s -C "$st/$t" -f Makefile -f "$UCACHE/print.mk" \
			OUTPUT="$out/$t" print-tests)
		for p in $list; do
			if [[ " $NOT_RUN " == *" $t/${p##*/} "* ]]; then
				echo "$t ${p##*/} NOT-RUN"
			elif [ -x "$p" ]; then
				echo "$t ${p##*/}"
			else
				echo "$t ${p##*/} NOT-BUILT"
			fi
		done
	done >"$out/list"
}

write_init() {
	cat <<'EOF'
#!/bin/busybox sh
/bin/busybox mkdir -p /proc /sys /dev /tmp /sbin /usr/bin /usr/sbin
/bin/busybox --install -s
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
# cgroup2 alone, where the cgroup tests look for it (/proc/mounts)
mount -t cgroup2 cgroup2 /sys/fs/cgroup
echo "+memory +cpuset +pids" > /sys/fs/cgroup/cgroup.subtree_control
# pidfd_test's recycled-pid case forks until a pid comes round again:
# 2 x 32768 forks by default, 90 of its 128 s under TCG, close to the
# 120 s timeout when the host is busy.  With pid_max 2048 it recycles
# the same way after 2048, on both kernels alike (clone3_set_tid reads
# pid_max; cgroup/test_kmem's kernel_stacks case needs room for 1000
# threads).
echo 2048 > /proc/sys/kernel/pid_max
echo UPSTREAM-GUEST-START
# Straight to the console: a tty keeps stdio line-buffered (through a
# pipe, forking tests print their buffered lines twice).
while read -r t p built; do
	[ -z "$built" ] || continue
	cd /selftests/$t
	echo "SELFTEST-BEGIN $t/$p"
	t0=$(cut -d. -f1 /proc/uptime)
	# pidfd_poll_test forks and polls 10000 times unless told (81 to 96 s
	# of a guest's 150 under TCG): 2000 times, on both kernels alike
	case $t/$p in
	pidfd/pidfd_poll_test) timeout 120 ./$p 2000 ;;
	*) timeout 120 ./$p ;;
	esac
	rc=$?
	# the status, and the seconds it took (where a guest's time goes)
	echo "SELFTEST-END $t/$p $rc $(($(cut -d. -f1 /proc/uptime) - t0))"
	cd /
done < /selftests/list
echo UPSTREAM-GUEST-DONE
reboot -f
EOF
}

# build_initramfs [LIST]: the guest runs the programs of LIST (default:
# all of selftests/list)
build_initramfs() {
	local root=$UCACHE/initramfs

	rm -rf "$root"
	mkdir -p "$root/bin" "$root/selftests"
	cp /bin/busybox "$root/bin/busybox"
	cp -a "$UCACHE/selftests/." "$root/selftests/"
	rm -f "$root"/selftests/*.log
	[ -z "${1:-}" ] || cp "$1" "$root/selftests/list"
	write_init >"$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) \
		>"$UCACHE/initrd.cpio.gz"
}

boot() { # NAME KERNEL: log in guest-NAME.log
	local name=$1 kernel=$2 glog=$UCACHE/guest-$1.log rc=0

	log "booting the $name kernel, log in $glog"
	SECONDS=0
	kboot "${HIJACK_QEMU_TIMEOUT:-900}" "$kernel" "$UCACHE/initrd.cpio.gz" \
		>"$glog" || rc=$?
	log "$name guest: ${SECONDS}s (qemu status $rc)"
	echo "upstream: $name guest ran ${SECONDS}s"
	grep -q '^UPSTREAM-GUEST-DONE' "$glog" ||
		{ log "the $name guest did not finish"; return 1; }
}

# One line per result: "prog#N status description", and "prog#exit".
results() {
	awk '
	/^SELFTEST-BEGIN / { prog = $2; n = 0; next }
	/^SELFTEST-END / {
		st = $3 == 0 ? "PASS" : $3 == 4 ? "SKIP" : $3 == 124 || $3 == 143 ? "TIMEOUT" : "FAIL(" $3 ")"
		print $2 "#exit " st; prog = ""; next
	}
	prog != "" && /^(not )?ok [0-9]+/ {
		st = /^not ok/ ? "FAIL" : /# *SKIP/ ? "SKIP" : /# *XFAIL/ ? "XFAIL" : "PASS"
		line = $0; sub(/^(not )?ok [0-9]+ */, "", line); sub(/ *#.*/, "", line)
		num = /^not/ ? $3 : $2
		key = prog "#" num
		if (seen[key]++) key = key "." seen[key]
		print key " " st " " line
	}' "$1"
}

# table P U: "result patched unpatched description" for each result of
# the guest logs guest-P.log and guest-U.log, into results-P and -U too
table() {
	local p=$UCACHE/results-$1 u=$UCACHE/results-$2

	results "$UCACHE/guest-$1.log" | sort -k1,1 >"$p"
	results "$UCACHE/guest-$2.log" | sort -k1,1 >"$u"
	join -a1 -a2 -e MISSING -o 0,1.2,2.2 "$p" "$u" |
	awk -v descs="$p" '
	BEGIN { while ((getline l < descs) > 0) { split(l, f, " ")
		d = l; sub(/^[^ ]+ [^ ]+ ?/, "", d); desc[f[1]] = d } }
	{ print $1, $2, $3, substr(desc[$1], 1, 60) }'
}

# Patched vs unpatched, side by side; non-zero if any differs.  A result
# that differs is run again, its program alone in a second boot of each
# kernel, and counts only if it differs again: some upstream tests pass
# or fail from run to run under TCG on a loaded host (cgroup/test_kmem's
# memcg_deletion compares per-CPU batched statistics with a fixed
# margin).  Both runs are printed.
compare() { # [--no-boot: the last run's second boots, if any]
	local t=$UCACHE/table again=$UCACHE/table-again list=$UCACHE/list-again

	table patched unpatched >"$t"
	awk '{ printf "upstream: %-40s %-8s %-8s %s%s\n", $1, $2, $3,
		$2 == $3 ? "" : "DIFFERS ", $4 }' "$t"
	if [ "${1:-}" = --no-boot ]; then
		[ -f "$again" ] || : >"$again"
		show "$t" "$again"
		return
	fi
	: >"$again"
	awk '$2 != $3 { sub(/#.*/, "", $1); print $1 }' "$t" | sort -u |
	while read -r prog; do
		grep -E "^${prog%%/*} ${prog#*/}\$" "$UCACHE/selftests/list" ||
			true
	done >"$list"
	# a differing program that is not in the list is not run again, and
	# its difference counts
	if [ -s "$list" ]; then
		log "again, alone: $(cut -d' ' -f1,2 "$list" | tr ' \n' '/ ')"
		build_initramfs "$list"
		if boot patched-again "$UCACHE/patched.bzImage" &&
		   boot unpatched-again "$UCACHE/bzImage"; then
			table patched-again unpatched-again >"$again"
		fi
		build_initramfs
	fi
	show "$t" "$again"
}

# show TABLE AGAIN: the verdict, a difference counting when it came again
show() {
	awk -v again="$2" '
	BEGIN { while ((getline l < again) > 0) { split(l, f, " ")
		a[f[1]] = f[2] " " f[3]; ad[f[1]] = f[2] != f[3] } }
	{ n++
	  if ($2 == $3) { same[$2]++; next }
	  if (($1 in a) && !ad[$1]) {
		printf "upstream: %-40s %-8s %-8s not again (%s)\n", $1, $2, $3, a[$1]
		once++; next
	  }
	  printf "upstream: %-40s %-8s %-8s DIFFERS AGAIN (%s)\n", $1, $2, $3,
		($1 in a) ? a[$1] : "not run again"
	  bad++ }
	END { printf "upstream: %d results, %d differ (same: %d pass, %d skip, %d fail; not again: %d)\n",
		n, bad, same["PASS"], same["SKIP"], n - bad - once - same["PASS"] - same["SKIP"], once
	      exit bad > 0 }' "$1"
}

# Per program: passed/skipped/failed cases and the exit status, both kernels.
summary() {
	awk '{ split($1, a, "#"); p = a[1]
		if (a[2] == "exit") { ex[p] = $2 } else { c[p, $2]++ }
		seen[p] = 1 }
	END { for (p in seen)
		printf "%s %d/%d/%d %s\n", p, c[p, "PASS"], c[p, "SKIP"],
			c[p, "FAIL"] + c[p, "XFAIL"], ex[p] }' "$1" | sort
}

print_summary() {
	echo "upstream: program                              patched (pass/skip/fail exit)  unpatched"
	join <(summary "$UCACHE/results-patched") <(summary "$UCACHE/results-unpatched") |
	awk '{ printf "upstream: %-40s %-8s %-8s %-8s %-8s\n", $1, $2, $3, $4, $5 }'
}

main() {
	case $mode in
	table)
		compare --no-boot || status=1
		print_summary
		return "${status:-0}" ;;
	uptodate)
		uptodate
		return ;;
	build)
		uptodate || build_unpatched
		return ;;
	esac
	uptodate ||
		die "no unpatched kernel in $UCACHE: run run-tests.sh --upstream"
	[ -f "$BUILD/arch/x86/boot/bzImage" ] ||
		die "no patched kernel in $PCACHE: run run-tests.sh first"
	mkdir -p "$UCACHE"
	exec 8>"$UCACHE/.lock"
	flock 8
	# the patched kernel, copied under run-tests.sh's lock (already held
	# when run-tests.sh calls us)
	(
		[ -n "${HIJACK_KERNEL_LOCKED:-}" ] || flock 9
		cp "$BUILD/arch/x86/boot/bzImage" "$UCACHE/patched.bzImage"
		cp "$BUILD/.config" "$UCACHE/patched.config"
	) 9>>"$PCACHE/.lock"
	compare_configs
	build_initramfs
	# side by side: a guest keeps about one of the host's CPUs busy
	local pp up brc=0
	boot patched "$UCACHE/patched.bzImage" &
	pp=$!
	boot unpatched "$UCACHE/bzImage" &
	up=$!
	wait "$pp" || brc=1
	wait "$up" || brc=1
	[ "$brc" = 0 ] || return 1
	grep -E 'NOT-(BUILT|RUN)' "$UCACHE/selftests/list" |
		sed 's/^/upstream: /' || true
	local status=0
	compare || status=1
	print_summary
	return $status
}

main
