// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of hijack/pamstack.c against the real libpam: each stack is
 * written to a directory of its own, read by pamstack_load() and judged
 * by pamstack_check(), and then run by libpam (pam_start_confdir,
 * pam_open_session) for every answer its modules can give.  The modules
 * are pam_exec.so under other names: pam_hijack.so stands for
 * pam_hijack's session step, pam_x1.so and pam_x2.so for any other
 * module, each exiting with the status the run gives it and noting that
 * it ran.  A stack judged safe must never open a session in which
 * "pam_hijack" did not run and succeed; a stack judged unsafe must open
 * one for some answers; and the line blamed must be the one expected.
 * Included files are named by absolute paths: Debian 12's libpam looks
 * up relative ones in /etc/pam.d even under pam_start_confdir().
 */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pamstack.h"

struct stack_case {
	const char *name;
	/* [0] is the service "svc"; "@HJ", "@X1", "@X2" are modules with
	 * their arguments, "@DIR" the directory */
	const char *files[3][2];
	enum pamstack_why why;
	const char *culprit; /* "FILE:LINE" of the line blamed, or NULL */
	bool no_hijack_module; /* pam_hijack.so is missing */
	const char *bad; /* what pamstack_load() says of a line, or NULL */
	bool unusable; /* libpam refuses the service: no session at all,
			* whatever the (over-approximating) verdict */
};

/* Debian 12's common-session, its modules standing in for their kind */
#define COMMON_SESSION                        \
	"session [default=1] pam_permit.so\n" \
	"session requisite pam_deny.so\n"     \
	"session required pam_permit.so\n"    \
	"session required @X1\n"              \
	"session optional @X2\n"

static const struct stack_case cases[] = {
	{ "required",
	  { { "svc", "session required pam_permit.so\n"
		     "session required @HJ\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "requisite by path",
	  { { "svc", "session requisite @HJ\n"
		     "session optional @X1\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "Debian's common-session, then pam_hijack",
	  { { "svc", "@include @DIR/common-session\n"
		     "session required @HJ\n"
		     "session optional @X1\n" },
	    { "common-session", COMMON_SESSION } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "the same through 'session include'",
	  { { "svc", "session include @DIR/common-session\n"
		     "session required @HJ\n" },
	    { "common-session", COMMON_SESSION } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "optional",
	  { { "svc", "session required @X1\n"
		     "session optional @HJ\n" } },
	  PAMSTACK_NOT_REQUIRED,
	  "svc:2",
	  false,
	  NULL,
	  false },
	{ "sufficient",
	  { { "svc", "session required pam_permit.so\n"
		     "session sufficient @HJ\n"
		     "session required @X1\n" } },
	  PAMSTACK_NOT_REQUIRED,
	  "svc:2",
	  false,
	  NULL,
	  false },
	{ "brackets that ignore a failure",
	  { { "svc", "session required @X1\n"
		     "session [success=ok default=ignore] @HJ\n" } },
	  PAMSTACK_NOT_REQUIRED,
	  "svc:2",
	  false,
	  NULL,
	  false },
	{ "brackets as strict as required",
	  { { "svc", "session required @X1\n"
		     "session [success=ok new_authtok_reqd=ok ignore=ignore "
		     "default=bad] @HJ\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "a failure that jumps",
	  { { "svc", "session [success=ok default=1] @HJ\n"
		     "session required pam_deny.so\n"
		     "session required @X1\n" } },
	  PAMSTACK_NOT_REQUIRED,
	  "svc:1",
	  false,
	  NULL,
	  false },
	/* "-" only keeps libpam from logging that the module is missing:
	 * it still fails the line (PAM_MODULE_UNKNOWN) */
	{ "-session, the module missing",
	  { { "svc", "session required @X1\n"
		     "-session required @HJ\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  true,
	  NULL,
	  false },
	{ "-session optional",
	  { { "svc", "session required @X1\n"
		     "-session optional @HJ\n" } },
	  PAMSTACK_NOT_REQUIRED,
	  "svc:2",
	  false,
	  NULL,
	  false },
	{ "no session step",
	  { { "svc", "account required @HJ\n"
		     "session required @X1\n" } },
	  PAMSTACK_NO_STEP,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "sufficient before it",
	  { { "svc", "session sufficient @X1\n"
		     "session required @HJ\n" } },
	  PAMSTACK_ENDS_BEFORE,
	  "svc:1",
	  false,
	  NULL,
	  false },
	{ "sufficient after it",
	  { { "svc", "session required @HJ\n"
		     "session sufficient @X1\n"
		     "session required @X2\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "done in an @include'd file",
	  { { "svc", "session required @X2\n"
		     "@include @DIR/early\n"
		     "session required @HJ\n" },
	    { "early", "session optional pam_permit.so\n"
		       "session [success=done default=ignore] @X1\n" } },
	  PAMSTACK_ENDS_BEFORE,
	  "early:2",
	  false,
	  NULL,
	  false },
	{ "a jump over it",
	  { { "svc", "session [success=1 default=ignore] @X1\n"
		     "session required @HJ\n"
		     "session required @X2\n" } },
	  PAMSTACK_JUMPS_OVER,
	  "svc:1",
	  false,
	  NULL,
	  false },
	{ "a jump out of an @include'd file",
	  { { "svc", "@include @DIR/early\n"
		     "session required @HJ\n"
		     "session required pam_permit.so\n" },
	    { "early", "session required @X2\n"
		       "session [success=1 default=ignore] @X1\n" } },
	  PAMSTACK_JUMPS_OVER,
	  "early:2",
	  false,
	  NULL,
	  false },
	{ "a jump out of a 'session include'd file",
	  { { "svc", "session include @DIR/early\n"
		     "session required @HJ\n"
		     "session required pam_permit.so\n" },
	    { "early", "session required @X2\n"
		       "session [success=1 default=ignore] @X1\n" } },
	  PAMSTACK_JUMPS_OVER,
	  "early:2",
	  false,
	  NULL,
	  false },
	{ "a jump past the end fails",
	  { { "svc", "session [success=3 default=ignore] @X1\n"
		     "session required @HJ\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "reset after it failed",
	  { { "svc", "session required @HJ\n"
		     "session [default=reset] @X1\n"
		     "session required @X2\n" } },
	  PAMSTACK_RESETS,
	  "svc:2",
	  false,
	  NULL,
	  false },
	{ "done in a substack ends the substack only",
	  { { "svc", "session substack @DIR/sub\n"
		     "session required @HJ\n" },
	    { "sub", "session required @X2\n"
		     "session sufficient @X1\n"
		     "session required pam_deny.so\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "a jump over a substack that holds it",
	  { { "svc", "session [success=1 default=ignore] @X1\n"
		     "session substack @DIR/sub\n"
		     "session required @X2\n" },
	    { "sub", "session required pam_permit.so\n"
		     "session required @HJ\n" } },
	  PAMSTACK_JUMPS_OVER,
	  "svc:1",
	  false,
	  NULL,
	  false },
	{ "reset in the substack that holds it",
	  { { "svc", "session required pam_permit.so\n"
		     "session substack @DIR/sub\n" },
	    { "sub", "session required @HJ\n"
		     "session [default=reset] @X1\n"
		     "session required @X2\n" } },
	  PAMSTACK_RESETS,
	  "sub:2",
	  false,
	  NULL,
	  false },
	{ "die in a substack before it",
	  { { "svc", "session required pam_permit.so\n"
		     "session substack @DIR/sub\n"
		     "session required @X2\n" },
	    { "sub", "session requisite @X1\n"
		     "session required @HJ\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
	{ "an unreadable include fails the stack",
	  { { "svc", "session include @DIR/nonexistent\n"
		     "session sufficient @X1\n"
		     "session required @HJ\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  "svc:1: cannot read '@DIR/nonexistent': "
	  "No such file or directory",
	  false },
	/* Debian's libpam fails pam_start() for it: nothing opens */
	{ "an unreadable @include fails the service",
	  { { "svc", "session sufficient @X1\n"
		     "@include @DIR/nonexistent\n"
		     "session required @HJ\n" } },
	  PAMSTACK_ENDS_BEFORE,
	  "svc:1",
	  false,
	  "svc:2: cannot read "
	  "'@DIR/nonexistent': No such file or directory (libpam fails every "
	  "login of the service)",
	  true },
	{ "a misspelt control is 'bad'",
	  { { "svc", "session required @HJ\n"
		     "session requried @X1\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  "svc:2: 'session requried @X1': control 'requried' is not one "
	  "libpam reads (what it cannot read is 'bad')",
	  false },
	{ "comments and continuations",
	  { { "svc", "# session sufficient @X1\n"
		     "session required \\\n"
		     "  @HJ # sufficient\n"
		     "session sufficient @X1\n" } },
	  PAMSTACK_SAFE,
	  NULL,
	  false,
	  NULL,
	  false },
};

static char dir[64];

/* TEXT with @HJ, @X1, @X2 and @DIR replaced */
static char *expand(const char *text)
{
	static const char *const keys[] = { "@HJ", "@X1", "@X2", "@DIR" };
	char mod[3][256];
	const char *vals[4] = { mod[0], mod[1], mod[2], dir };
	size_t size = strlen(text) * 4 + 1024, len = 0;
	char *out = malloc(size);

	ck_assert_ptr_nonnull(out);
	snprintf(mod[0], sizeof(mod[0]),
		 "%s/pam_hijack.so quiet /bin/sh %s/x.sh hj", dir, dir);
	snprintf(mod[1], sizeof(mod[1]),
		 "%s/pam_x1.so quiet /bin/sh %s/x.sh x1", dir, dir);
	snprintf(mod[2], sizeof(mod[2]),
		 "%s/pam_x2.so quiet /bin/sh %s/x.sh x2", dir, dir);
	while (*text) {
		size_t k;

		for (k = 0; k < 4; k++)
			if (!strncmp(text, keys[k], strlen(keys[k])))
				break;
		if (k < 4) {
			len += (size_t)snprintf(out + len, size - len, "%s",
						vals[k]);
			text += strlen(keys[k]);
		} else {
			out[len++] = *text++;
		}
		ck_assert_uint_lt(len, size - 1);
	}
	out[len] = '\0';
	return out;
}

static void put(const char *name, const char *text)
{
	char path[128], *x = expand(text);
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	fputs(x, f);
	ck_assert_int_eq(fclose(f), 0);
	free(x);
}

/*
 * libpam opens a session of "svc" with the modules answering as RCS
 * says (bit 0 pam_hijack, 1 x1, 2 x2: set is a failure).  Returns
 * whether it opened one in which pam_hijack did not run and succeed.
 */
static bool escapes(unsigned int rcs, bool *hj_ran, bool unusable)
{
	static const char *const who[] = { "hj", "x1", "x2" };
	char path[128], ran[256] = "", cmd[256], answer[16];
	ssize_t len;
	FILE *f;
	int fd;

	for (int i = 0; i < 3; i++) {
		char name[16];

		snprintf(name, sizeof(name), "%s.rc", who[i]);
		put(name, rcs & (1u << i) ? "1\n" : "0\n");
	}
	snprintf(path, sizeof(path), "%s/ran", dir);
	unlink(path);
	snprintf(cmd, sizeof(cmd), "%s/tests/helpers/hj-pamopen svc root %s",
		 ABS_TOP_BUILDDIR, dir);
	f = popen(cmd, "re");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(answer, sizeof(answer), f));
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_int_eq(!strcmp(answer, "unusable\n"), unusable);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		len = read(fd, ran, sizeof(ran) - 1);
		ran[len > 0 ? len : 0] = '\0';
		close(fd);
	}
	if (strstr(ran, "hj\n"))
		*hj_ran = true;
	return !strcmp(answer, "open\n") && (!strstr(ran, "hj\n") || (rcs & 1));
}

START_TEST(stack)
{
	const struct stack_case *c = &cases[_i];
	struct pamstack_verdict v;
	struct pamstack ps;
	char path[256], *want;
	bool escaped = false, hj_ran = false;

	snprintf(dir, sizeof(dir), "/tmp/hj-pamstack-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	put("x.sh", "echo \"$1\" >> @DIR/ran\nexit \"$(cat @DIR/$1.rc)\"\n");
	for (int i = 0; i < 3; i++) {
		char name[32];

		snprintf(name, sizeof(name), "pam_%s.so",
			 i ? i == 1 ? "x1" : "x2" : "hijack");
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		if (i || !c->no_hijack_module)
			ck_assert_int_eq(symlink(PAM_SYSTEM_MODULES
						 "/pam_exec.so",
						 path),
					 0);
	}
	for (int i = 0; i < 3 && c->files[i][0]; i++)
		put(c->files[i][0], c->files[i][1]);

	ck_assert_int_eq(pamstack_load(&ps, dir, "svc"), 0);
	pamstack_check(&ps, &v);
	ck_assert_msg(v.why == c->why, "%s: judged %d, expected %d", c->name,
		      v.why, c->why);
	if (c->culprit) {
		ck_assert_int_ge(v.culprit, 0);
		snprintf(path, sizeof(path), "%s/%s", dir, c->culprit);
		*strrchr(path, ':') = '\0';
		ck_assert_str_eq(ps.e[v.culprit].file, path);
		ck_assert_uint_eq(ps.e[v.culprit].line,
				  strtoul(strrchr(c->culprit, ':') + 1, NULL,
					  10));
	} else {
		ck_assert_int_eq(v.culprit, -1);
	}
	if (c->bad) {
		char *b = expand(c->bad);

		want = malloc(strlen(b) + 128);
		ck_assert_ptr_nonnull(want);
		sprintf(want, "%s/%s", dir, b);
		ck_assert_str_eq(ps.bad, want);
		free(want);
		free(b);
	} else {
		ck_assert_str_eq(ps.bad, "");
	}
	ck_assert(ps.found || c->why == PAMSTACK_NO_STEP);

	/* what libpam does, for every answer of the modules */
	for (unsigned int rcs = 0; rcs < 8; rcs++)
		if (escapes(rcs, &hj_ran, c->unusable))
			escaped = true;
	/* libpam read the stack: its stand-in for pam_hijack ran */
	ck_assert_msg(hj_ran || c->no_hijack_module || c->unusable ||
			      c->why == PAMSTACK_NO_STEP,
		      "%s: libpam never ran pam_hijack", c->name);
	ck_assert_msg(escaped == (c->why != PAMSTACK_SAFE && !c->unusable),
		      "%s: libpam %s a session without pam_hijack's step",
		      c->name, escaped ? "opened" : "never opened");
	pamstack_free(&ps);

	want = malloc(strlen(dir) + 16);
	ck_assert_ptr_nonnull(want);
	sprintf(want, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(want), 0);
	free(want);
}
END_TEST

/* the walk is bounded: a long stack of jumps and substacks */
START_TEST(bounded)
{
	struct pamstack_verdict v;
	struct pamstack ps = { 0 };
	char line[64];

	for (unsigned int i = 0; i < PAMSTACK_MAX_ENTRIES; i++) {
		snprintf(line, sizeof(line),
			 i % 2 ? "session [success=ok default=%u] pam_%s.so" :
				 "session [success=%u default=reset] pam_%s.so",
			 i % 7 + 1, i == 500 ? "hijack" : "x");
		ck_assert_int_eq(
			pamstack_add_line(&ps, "f", i + 1, line, 0, i % 3), 0);
	}
	snprintf(line, sizeof(line), "session required pam_permit.so");
	ck_assert_int_eq(pamstack_add_line(&ps, "f", 9999, line, 0, 0), -E2BIG);
	pamstack_check(&ps, &v);
	ck_assert_int_ne(v.why, PAMSTACK_SAFE);
	ck_assert_int_eq(v.step, 500);
	pamstack_free(&ps);
}
END_TEST

/* includes that fan out: bounded in files read, not only in depth */
START_TEST(fan_out)
{
	char tmpl[] = "/tmp/hj-pamstack-XXXXXX", path[64];
	struct pamstack ps;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/svc", tmpl);
	f = fopen(path, "we");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 10; i++)
		fprintf(f, "@include %s\n", path);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(pamstack_load(&ps, tmpl, "svc"), -E2BIG);
	ck_assert_uint_eq(ps.files, PAMSTACK_MAX_FILES + 1);
	pamstack_free(&ps);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(rmdir(tmpl), 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("pamstack");
	TCase *tc = tcase_create("pamstack");
	SRunner *sr;
	int failed;

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, stack, 0, sizeof(cases) / sizeof(*cases));
	tcase_add_test(tc, bounded);
	tcase_add_test(tc, fan_out);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "/dev/stdout");
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
