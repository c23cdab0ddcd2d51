#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/testing/selftests/hijack (patch 0006), built statically from the
# patched tree and installed as kselftest installs it, in /kselftest (and
# its i386 build in /kselftest32, in the normal guest): run_kselftest.sh
# runs it, and its TAP becomes the harness's PASS/FAIL lines, the full
# output kept in the log.  This guest's kernel has every feature a test
# may skip for, so a skip counts as a failure.
if [ ! -x /kselftest/run_kselftest.sh ]; then
	echo "FAIL kselftest: not installed"
	exit 1
fi
# Its CAP_SYS_CHROOT tests run their positive controls under Yama's
# ptrace_scope 1 when the kernel has Yama, and only log it when not: this
# guest's kernel must have it.
[ -e /proc/sys/kernel/yama/ptrace_scope ] ||
	echo "FAIL kselftest-yama: no Yama in the guest kernel"

# The runner writes to /dev/stdout, udev's symlink on a normal system;
# devtmpfs has none, and the lines would go to a file of that name.
for f in stdin:0 stdout:1 stderr:2; do
	[ -e /dev/${f%:*} ] || ln -s /proc/self/fd/${f#*:} /dev/${f%:*}
done

# run DIR LABEL: DIR's run_kselftest.sh, its output in the log, one
# PASS/FAIL line a test of the program's own TAP (the runner's lines
# carry it behind "# ", its own result line is "ok 1 selftests: ...")
run() {
	# appending: the runner reopens /dev/stdout (4>>"$logfile") for
	# the program's lines, which would overwrite ours at the same offset
	: >/tmp/$2.out
	"$1/run_kselftest.sh" >>/tmp/$2.out 2>&1
	rc=$?
	sed "s/^/$2 | /" /tmp/$2.out
	sed -n 's/^# //p' /tmp/$2.out | awk -v rc="$rc" -v l="$2" '
	$2 == "RUN" { name = $3; why = ""; next }
	/^# [a-z_]+\.c:[0-9]+:/ && (why == "" || (why !~ /Expected/ && /Expected/)) {
		why = $0; sub(/^# [a-z_]+\.c:/, "line ", why)
	}
	/^ok [0-9]+ # SKIP/ {
		r = $0; sub(/^ok [0-9]+ # SKIP /, "", r)
		print "FAIL " l "/" name ": skipped: " r; n++; next
	}
	/^ok [0-9]+ / { print "PASS " l "/" $3; n++; next }
	/^not ok [0-9]+ / { print "FAIL " l "/" $4 ": " why; n++; next }
	END { if (!n) print "FAIL " l ": no results (status " rc ")" }
	'
	grep -q '^ok 1 selftests: hijack: hijack_test' /tmp/$2.out ||
		echo "FAIL $2-runner: $(grep '^not ok' /tmp/$2.out | head -n 1) (status $rc)"
}

# timed DIR LABEL: run, and how long it took (the harness shows TIME lines)
timed() {
	t0=$(cut -d. -f1 /proc/uptime)
	run "$1" "$2"
	echo "TIME $2 $(($(cut -d. -f1 /proc/uptime) - t0)) s"
}

timed /kselftest kselftest
# The same tests built with gcc -m32, in the normal guest (its kernel has
# IA32_EMULATION): the call through the i386 entry, number 463 there too.
[ ! -d /kselftest32 ] || timed /kselftest32 kselftest32
exit 0
