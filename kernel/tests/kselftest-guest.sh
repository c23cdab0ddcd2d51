#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/testing/selftests/hijack (patch 0006), built statically from the
# patched tree as /bin/hijack_selftest: its TAP as the harness's
# PASS/FAIL lines, its full output kept in the log.  This guest's kernel
# has every feature a test may skip for, so a skip counts as a failure.
if [ ! -x /bin/hijack_selftest ]; then
	echo "FAIL kselftest-hijack: not built"
	exit 1
fi
/bin/hijack_selftest >/tmp/kselftest-hijack.tap 2>&1
rc=$?
sed 's/^/kselftest | /' /tmp/kselftest-hijack.tap
awk -v rc="$rc" '
$2 == "RUN" { name = $3; why = ""; next }
/^# [a-z_]+\.c:[0-9]+:/ && (why == "" || (why !~ /Expected/ && /Expected/)) {
	why = $0; sub(/^# [a-z_]+\.c:/, "line ", why)
}
/^ok [0-9]+ # SKIP/ {
	r = $0; sub(/^ok [0-9]+ # SKIP /, "", r)
	print "FAIL kselftest/" name ": skipped: " r; n++; next
}
/^ok [0-9]+ / { print "PASS kselftest/" $3; n++; next }
/^not ok [0-9]+ / { print "FAIL kselftest/" $4 ": " why; n++; next }
END { if (!n) print "FAIL kselftest-hijack: no results (status " rc ")" }
' /tmp/kselftest-hijack.tap
exit 0
