// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of hijack/recording.c: which login shell is tlog's
 * recorder, and the shell it would run, read from what a stand-in for
 * tlog-rec-session prints for --configuration (json-c's escaping).
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recording.h"

static char dir[] = "/tmp/hj-recording.XXXXXX";

/* a program at DIR/tlog-rec-session that prints OUT and exits STATUS */
static const char *fake(const char *out, int status, mode_t mode)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/tlog-rec-session", dir);
	unlink(path);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f,
		"#!/bin/sh\n[ \"$1\" = --configuration ] || exit 9\n"
		"cat <<'EOF'\n%s\nEOF\nexit %d\n",
		out, status);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
	return path;
}

static int shell_of(const char *path, char *out, size_t n)
{
	return recording_tlog_shell(path, getuid(), getgid(), out, n);
}

START_TEST(is_tlog)
{
	ck_assert(recording_is_tlog("/usr/bin/tlog-rec-session"));
	ck_assert(recording_is_tlog("tlog-rec-session"));
	ck_assert(!recording_is_tlog("/usr/sbin/hijack-shell"));
	ck_assert(!recording_is_tlog("/usr/bin/tlog-rec"));
	ck_assert(!recording_is_tlog("/usr/bin/tlog-rec-session.sh"));
}
END_TEST

START_TEST(shell_setting)
{
	char out[256];

	ck_assert_int_eq(shell_of(fake("{\n  \"shell\":\"\\/usr\\/sbin\\/"
				       "hijack-shell\",\n  \"notice\":\"\"\n}",
				       0, 0755),
				  out, sizeof(out)),
			 0);
	ck_assert_str_eq(out, "/usr/sbin/hijack-shell");
	/* a space after the colon, an escaped quote in the path */
	ck_assert_int_eq(shell_of(fake("{\"shell\": \"/a\\\"b\"}", 0, 0755),
				  out, sizeof(out)),
			 0);
	ck_assert_str_eq(out, "/a\"b");
}
END_TEST

START_TEST(refusals)
{
	char out[64], small[8];

	ck_assert_int_eq(shell_of(fake("{\"notice\":\"\"}", 0, 0755), out,
				  sizeof(out)),
			 -ENOENT);
	ck_assert_int_eq(
		shell_of(fake("{\"shell\":\"/bin\\u0000sh\"}", 0, 0755), out,
			 sizeof(out)),
		-EINVAL);
	ck_assert_int_eq(shell_of(fake("{\"shell\":\"/bin/sh", 0, 0755), out,
				  sizeof(out)),
			 -EINVAL);
	ck_assert_int_eq(shell_of(fake("{\"shell\":/bin/sh}", 0, 0755), out,
				  sizeof(out)),
			 -EINVAL);
	ck_assert_int_eq(shell_of(fake("{\"shell\":\"/usr/sbin/hijack-shell\""
				       "}",
				       0, 0755),
				  small, sizeof(small)),
			 -ENAMETOOLONG);
	/* tlog failed: its output is not its configuration */
	ck_assert_int_eq(shell_of(fake("{\"shell\":\"/bin/sh\"}", 1, 0755), out,
				  sizeof(out)),
			 -ENOEXEC);
	/* a recorder others may have replaced is never run */
	ck_assert_int_eq(shell_of(fake("{\"shell\":\"/bin/sh\"}", 0, 0775), out,
				  sizeof(out)),
			 -EPERM);
	ck_assert_int_eq(shell_of(fake("{\"shell\":\"/bin/sh\"}", 0, 0757), out,
				  sizeof(out)),
			 -EPERM);
	ck_assert_int_eq(shell_of("/nonexistent/tlog-rec-session", out,
				  sizeof(out)),
			 -ENOENT);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("recording");
	TCase *tc = tcase_create("recording");
	SRunner *sr;
	char path[256];
	int failed;

	if (!mkdtemp(dir))
		return 99;
	tcase_add_test(tc, is_tlog);
	tcase_add_test(tc, shell_setting);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_set_tap(sr, "/dev/stdout");
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	snprintf(path, sizeof(path), "%s/tlog-rec-session", dir);
	unlink(path);
	rmdir(dir);
	return failed ? 1 : 0;
}
