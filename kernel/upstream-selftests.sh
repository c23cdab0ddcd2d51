#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run the upstream kselftests that cover the code the hijack() series
# touches (pidfd, clone3, nsfs, timens, cgroup) on the patched kernel and
# on an unpatched kernel of the same configuration, and compare.
#
# Usage: upstream-selftests.sh [--table] [--help]
#
#   --table   only print the comparison of the last run's guest logs
#
# The patched kernel is the normal one run-tests.sh built
# ($HIJACK_KERNEL_CACHE/build-normal); run-tests.sh --upstream (and
# --all) builds it first and then calls this script.  The unpatched
# kernel is built here, from the same linux-source-6.1 tarball and the
# same fragments minus CONFIG_HIJACK, in its own cache.  The tests are
# built once, statically, from the unpatched tree, and the same binaries
# run in both guests (busybox initramfs, cgroup2 only, -smp 2).
#
# Environment:
#   HIJACK_KERNEL_CACHE     the patched kernel's cache (/var/cache/hijack-kernel)
#   HIJACK_UNPATCHED_CACHE  this script's cache (/var/cache/hijack-kernel-unpatched)
#   HIJACK_KERNEL_JOBS      make -j value (default 2)
#   HIJACK_QEMU_TIMEOUT     seconds per boot (default 900)
#
# Prints "upstream: <test> <patched> <unpatched>" per test case and a
# summary line; exits non-zero if any result differs or a guest did not
# finish.

set -euo pipefail
export LC_ALL=C

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PCACHE=${HIJACK_KERNEL_CACHE:-/var/cache/hijack-kernel}
UCACHE=${HIJACK_UNPATCHED_CACHE:-/var/cache/hijack-kernel-unpatched}
JOBS=${HIJACK_KERNEL_JOBS:-2}
TARBALL=/usr/src/linux-source-6.1.tar.xz
TREE=$UCACHE/src/linux-source-6.1
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
	echo "upstream-selftests.sh: $*" >&2
}

# shellcheck source=SCRIPTDIR/kbuild.sh
. "$HERE/kbuild.sh"

table_only=0
case "${1:-}" in
-h | --help) sed -n '4,29p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
--table) table_only=1 ;;
'') ;;
*) die "unknown argument $1" ;;
esac
[ "$(id -u)" = 0 ] || die "must run as root"

# The fragments of the normal configuration, minus the option the
# unpatched tree does not have.
write_fragment() {
	grep -v '^CONFIG_HIJACK=' "$HERE/config/hijack.config"
}

build_unpatched() {
	local b=$UCACHE/build tar_id stamp

	tar_id=$(stat -c '%s %Y' "$TARBALL")
	if [ ! -f "$UCACHE/src/.tarball-id" ] ||
	   [ "$(cat "$UCACHE/src/.tarball-id")" != "$tar_id" ]; then
		log "unpacking $TARBALL (unpatched)"
		rm -rf "$UCACHE/src" "$b"
		mkdir -p "$UCACHE/src"
		tar -C "$UCACHE/src" -xf "$TARBALL"
		echo "$tar_id" >"$UCACHE/src/.tarball-id"
	fi
	write_fragment >"$UCACHE/unpatched.config"
	stamp=$( (echo "$tar_id"; cat "$UCACHE/unpatched.config") |
		sha256sum | cut -d' ' -f1)
	kbuild_bzimage "$TREE" "$b" unpatched "$JOBS" "$stamp" \
		"$UCACHE/unpatched.config"
}

# Same configuration: the two .config files may differ only in
# CONFIG_HIJACK.
compare_configs() {
	local d

	d=$(diff <(grep '^CONFIG_' "$UCACHE/build/.config" | sort) \
		<(grep '^CONFIG_' "$UCACHE/patched.config" | sort) |
		grep '^[<>]' | grep -v 'CONFIG_HIJACK=' || true)
	[ -z "$d" ] || die "configurations differ beyond CONFIG_HIJACK: $d"
}

# The tests, from the unpatched tree, against its exported headers.
build_selftests() {
	local out=$UCACHE/selftests t list stamp
	local st=$TREE/tools/testing/selftests

	# what the list is made of: the tree, what to build, what not to run
	stamp="$(cat "$UCACHE/build/.hijack-stamp") $TARGETS / $NOT_RUN"
	if [ -f "$out/.built" ] && [ "$(cat "$out/.built")" = "$stamp" ]; then
		return 0
	fi
	rm -rf "$out"
	mkdir -p "$out"
	make -C "$TREE" O="$UCACHE/build" -s headers >/dev/null
	# shellcheck disable=SC2016 # make, not the shell, expands it
	printf 'print-tests:\n\t@echo $(TEST_GEN_PROGS)\n' >"$UCACHE/print.mk"
	for t in $TARGETS; do
		log "building selftests/$t (static)"
		mkdir -p "$out/$t"
		if ! make -C "$st/$t" OUTPUT="$out/$t" CC="gcc -static" \
			KHDR_INCLUDES="-isystem $UCACHE/build/usr/include" \
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
	echo "$stamp" >"$out/.built"
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
echo UPSTREAM-GUEST-START
# Straight to the console: a tty keeps stdio line-buffered (through a
# pipe, forking tests print their buffered lines twice).
while read -r t p built; do
	[ -z "$built" ] || continue
	cd /selftests/$t
	echo "SELFTEST-BEGIN $t/$p"
	timeout 120 ./$p
	echo "SELFTEST-END $t/$p $?"
	cd /
done < /selftests/list
echo UPSTREAM-GUEST-DONE
reboot -f
EOF
}

build_initramfs() {
	local root=$UCACHE/initramfs

	rm -rf "$root"
	mkdir -p "$root/bin" "$root/selftests"
	cp /bin/busybox "$root/bin/busybox"
	cp -a "$UCACHE/selftests/." "$root/selftests/"
	rm -f "$root"/selftests/*.log
	write_init >"$root/init"
	chmod 755 "$root/init"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -9) \
		>"$UCACHE/initrd.cpio.gz"
}

boot() {
	local name=$1 kernel=$2 glog=$UCACHE/guest-$1.log rc=0 khz append

	append='console=ttyS0 panic=-1 rdinit=/init tsc=reliable'
	khz=$(awk -F: '/^cpu MHz/ { printf "%d", $2 * 1000; exit }' /proc/cpuinfo)
	[ -n "$khz" ] && [ "$khz" -gt 0 ] && append+=" tsc_early_khz=$khz"
	log "booting the $name kernel, log in $glog"
	SECONDS=0
	timeout "${HIJACK_QEMU_TIMEOUT:-900}" qemu-system-x86_64 \
		-accel tcg,thread=multi -cpu max -m 256M -smp 2 \
		-nographic -no-reboot -kernel "$kernel" \
		-initrd "$UCACHE/initrd.cpio.gz" -append "$append" \
		</dev/null | tr -d '\r' >"$glog" || rc=$?
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

# patched vs unpatched, side by side; non-zero if any differs
compare() {
	local p=$UCACHE/results-patched u=$UCACHE/results-unpatched

	results "$UCACHE/guest-patched.log" | sort -k1,1 >"$p"
	results "$UCACHE/guest-unpatched.log" | sort -k1,1 >"$u"
	join -a1 -a2 -e MISSING -o 0,1.2,2.2 "$p" "$u" |
	awk -v descs="$p" '
	BEGIN { while ((getline l < descs) > 0) { split(l, f, " ")
		d = l; sub(/^[^ ]+ [^ ]+ ?/, "", d); desc[f[1]] = d } }
	{ printf "upstream: %-40s %-8s %-8s %s%s\n", $1, $2, $3,
		$2 == $3 ? "" : "DIFFERS ", substr(desc[$1], 1, 60)
	  n++; if ($2 != $3) bad++; else same[$2]++ }
	END { printf "upstream: %d results, %d differ (same: %d pass, %d skip, %d fail)\n",
		n, bad, same["PASS"], same["SKIP"], n - bad - same["PASS"] - same["SKIP"]
	      exit bad > 0 }'
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
	if [ "$table_only" = 1 ]; then
		compare || status=1
		print_summary
		return "${status:-0}"
	fi
	[ -f "$PCACHE/build-normal/arch/x86/boot/bzImage" ] ||
		die "no patched kernel in $PCACHE: run run-tests.sh first"
	mkdir -p "$UCACHE"
	exec 8>"$UCACHE/.lock"
	flock 8
	build_unpatched
	# the patched kernel, copied under run-tests.sh's lock (already held
	# when run-tests.sh calls us)
	(
		[ -n "${HIJACK_KERNEL_LOCKED:-}" ] || flock 9
		cp "$PCACHE/build-normal/arch/x86/boot/bzImage" "$UCACHE/patched.bzImage"
		cp "$PCACHE/build-normal/.config" "$UCACHE/patched.config"
	) 9>>"$PCACHE/.lock"
	compare_configs
	build_selftests
	build_initramfs
	boot patched "$UCACHE/patched.bzImage"
	boot unpatched "$UCACHE/build/arch/x86/boot/bzImage"
	grep -E 'NOT-(BUILT|RUN)' "$UCACHE/selftests/list" |
		sed 's/^/upstream: /' || true
	local status=0
	compare || status=1
	print_summary
	return $status
}

main
