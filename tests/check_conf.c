// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of the hijack.conf parser (lib/conf.c) and audit formatting. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "tap.h"
#include "conf.h"

static const char *const no_groups[] = { NULL };

/* One text as the file t.conf. */
static int match_text(const char *text, size_t len, const char *user, uid_t uid,
		      const char *group, const char *const *groups,
		      struct hj_mapping *m, struct hj_conf_error *err)
{
	struct hj_conf_text t = { "t.conf", text, len };

	return hj_conf_parse_match(&t, 1, user, uid, 100, group,
				   groups ? groups : no_groups, m, err);
}

/* The text is valid: checked, matching a user no rule names. */
static void parse_ok(const char *text)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m;
	int r;

	r = match_text(text, strlen(text), "nobody-here", 0, NULL, NULL, &m,
		       &err);
	ck_assert_msg(r == 0, "parse failed: %d %s", r, err.msg);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
}

/*
 * The same text split into two files at the end of line @k, "t.conf"
 * then "u.conf", gives the same answer as the one file: the first match
 * across files, the same error, at the line of the file it is in.
 */
static void same_split(const char *text, size_t len, size_t k, const char *user,
		       uid_t uid, const char *group, const char *const *groups,
		       int want, const struct hj_mapping *wm,
		       const struct hj_conf_error *werr)
{
	struct hj_conf_text t[2] = { { "t.conf", text, 0 },
				     { "u.conf", NULL, 0 } };
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m, w = *wm;
	unsigned int na = 0, wl = want ? werr->line : wm->line;
	char msg[sizeof(err.msg)];
	size_t i;
	int r;

	for (i = 0; i < len && na < k; i++)
		na += text[i] == '\n';
	if (na < k)
		return;
	t[0].len = i;
	t[1].buf = text + i;
	t[1].len = len - i;
	r = hj_conf_parse_match(t, 2, user, uid, 100, group,
				groups ? groups : no_groups, &m, &err);
	ck_assert_msg(r == want, "split at line %zu: %d, not %d (%s)", k, r,
		      want, err.msg);
	if (want) {
		/* "t.conf:L: what" of the one file */
		const char *what = strchr(werr->msg + 7, ':');

		if (wl > na)
			snprintf(msg, sizeof(msg), "u.conf:%u%s", wl - na,
				 what);
		else
			snprintf(msg, sizeof(msg), "%s", werr->msg);
		ck_assert_str_eq(err.msg, msg);
		ck_assert_uint_eq(err.line, wl > na ? wl - na : wl);
		return;
	}
	if (wm->kind != HJ_MAP_NONE && wl > na) {
		w.line = wl - na;
		strcpy(w.file, "u.conf");
	}
	ck_assert_msg(!memcmp(&m, &w, sizeof(m)),
		      "split at line %zu: the mapping differs (line %u of %s)",
		      k, m.line, m.file);
}

/* Match one user against a config text (also split over two files). */
static int match(const char *text, const char *user, uid_t uid,
		 const char *group, const char *const *groups,
		 struct hj_mapping *m, struct hj_conf_error *err)
{
	struct hj_conf_error e = { .msg = "" };
	size_t k, len = strlen(text);
	int r;

	if (!err)
		err = &e;
	r = match_text(text, len, user, uid, group, groups, m, err);
	for (k = 0; k < 6; k++)
		same_split(text, len, k, user, uid, group, groups, r, m, err);
	return r;
}

static void match_ok(const char *text, const char *user, uid_t uid,
		     const char *group, const char *const *groups,
		     struct hj_mapping *m)
{
	struct hj_conf_error err = { .msg = "" };
	int r = match(text, user, uid, group, groups, m, &err);

	ck_assert_msg(r == 0, "match failed: %d %s", r, err.msg);
}

START_TEST(test_empty)
{
	struct hj_mapping m;

	parse_ok("");
	match_ok("# only a comment\n\n   \t\n", "alice", 1000, "users", NULL,
		 &m);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
	ck_assert_uint_eq(m.line, 0);
}
END_TEST

START_TEST(test_user_rule)
{
	struct hj_mapping m;

	match_ok("alice ctr/web1\n", "alice", 1000, "users", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_CONTAINER);
	ck_assert_uint_eq(m.line, 1);
	ck_assert_str_eq(m.cgroup, "ctr/web1");
	ck_assert_str_eq(m.name, "web1");
	ck_assert_str_eq(m.shell, "");
	ck_assert_str_eq(m.cwd, "");
	ck_assert_int_eq(m.on_stopped, HJ_STOPPED_DENY);

	match_ok("alice ctr/web1\n", "bob", 1001, "users", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
}
END_TEST

START_TEST(test_host_rule)
{
	struct hj_mapping m;

	match_ok("alice -\n* ctr/all\n", "alice", 1000, "users", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_HOST);
	ck_assert_uint_eq(m.line, 1);
	ck_assert_str_eq(m.cgroup, "");
}
END_TEST

START_TEST(test_uid_rules)
{
	const char *text = "1000-1999 ctr/range\n"
			   "2500 ctr/single\n"
			   "0-4294967294 ctr/all\n";
	struct hj_mapping m;

	match_ok(text, "a", 1000, "g", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/range");
	match_ok(text, "a", 1999, "g", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/range");
	match_ok(text, "a", 2500, "g", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/single");
	ck_assert_uint_eq(m.line, 2);
	match_ok(text, "a", 2000, "g", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/all");
	ck_assert_uint_eq(m.line, 3);
}
END_TEST

START_TEST(test_star_and_root)
{
	struct hj_mapping m;

	match_ok("* ctr/all\n", "alice", 1000, "users", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_CONTAINER);
	/* '*' never catches root; a name, uid or group does */
	match_ok("* ctr/all\n", "root", 0, "root", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
	match_ok("root ctr/r\n", "root", 0, "root", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_CONTAINER);
	match_ok("0 ctr/r\n", "root", 0, "root", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_CONTAINER);
}
END_TEST

START_TEST(test_groups)
{
	const char *const sup[] = { "users", "devs", "audio", NULL };
	const char *text = "@admins -\n@devs ctr/dev\n@users ctr/users\n";
	struct hj_mapping m;

	/* supplementary group */
	match_ok(text, "alice", 1000, "users", sup, &m);
	ck_assert_str_eq(m.cgroup, "ctr/dev");
	ck_assert_uint_eq(m.line, 2);
	/* primary group only, even if the list lacks it */
	match_ok(text, "bob", 1001, "admins", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_HOST);
	match_ok(text, "carol", 1002, "staff", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
}
END_TEST

START_TEST(test_first_match)
{
	const char *text = "# users\n"
			   "alice ctr/first\n"
			   "@users ctr/second\n"
			   "alice ctr/third\n"
			   "* -\n";
	const char *const grp[] = { "users", NULL };
	struct hj_mapping m;

	match_ok(text, "alice", 1000, "users", grp, &m);
	ck_assert_str_eq(m.cgroup, "ctr/first");
	ck_assert_uint_eq(m.line, 2);
	match_ok(text, "bob", 1001, "users", grp, &m);
	ck_assert_str_eq(m.cgroup, "ctr/second");
	match_ok(text, "eve", 1002, "other", NULL, &m);
	ck_assert_int_eq(m.kind, HJ_MAP_HOST);
	ck_assert_uint_eq(m.line, 5);
}
END_TEST

START_TEST(test_templates)
{
	const char *text = "* /ctr/%g/%u-%U name=c-%u shell=/bin/%u "
			   "cwd=/home/%u%%x\n";
	struct hj_mapping m;

	match_ok(text, "alice", 1000, "users", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/users/alice-1000");
	ck_assert_str_eq(m.name, "c-alice");
	ck_assert_str_eq(m.shell, "/bin/alice");
	ck_assert_str_eq(m.cwd, "/home/alice%x");
}
END_TEST

START_TEST(test_controller)
{
	struct hj_mapping m;

	match_ok("alice cpu,cpuacct:/lxc/%u\n", "alice", 1000, "users", NULL,
		 &m);
	ck_assert_str_eq(m.cgroup, "cpu,cpuacct:lxc/alice");
	ck_assert_str_eq(m.name, "alice");
	match_ok("alice name=systemd:lxc/a\n", "alice", 1000, "users", NULL,
		 &m);
	ck_assert_str_eq(m.cgroup, "name=systemd:lxc/a");
}
END_TEST

START_TEST(test_options)
{
	struct hj_mapping m;

	match_ok("alice ctr/w stopped=host name=web shell=/bin/zsh cwd=/srv\n",
		 "alice", 1000, "users", NULL, &m);
	ck_assert_int_eq(m.on_stopped, HJ_STOPPED_HOST);
	ck_assert_str_eq(m.name, "web");
	ck_assert_str_eq(m.shell, "/bin/zsh");
	ck_assert_str_eq(m.cwd, "/srv");
	match_ok("alice ctr/w stopped=deny\n", "alice", 1000, "users", NULL,
		 &m);
	ck_assert_int_eq(m.on_stopped, HJ_STOPPED_DENY);
}
END_TEST

START_TEST(test_comments_crlf)
{
	const char *text = "\r\n# comment\r\n"
			   "alice\tctr/a#b   # trailing comment\r\n"
			   "  bob  ctr/b\t#x\n"
			   "carol ctr/c"; /* no final newline */
	struct hj_mapping m;

	match_ok(text, "alice", 1000, "users", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/a#b");
	ck_assert_uint_eq(m.line, 3);
	match_ok(text, "bob", 1000, "users", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/b");
	match_ok(text, "carol", 1000, "users", NULL, &m);
	ck_assert_uint_eq(m.line, 5);
}
END_TEST

/* Every load-time error names the file, the line and the problem. */
static const struct {
	const char *text;
	const char *msg;
} bad_files[] = {
	{ "alice ctr/a\nalice ctr/a shel=/bin/sh\n",
	  "t.conf:2: unknown option 'shel'" },
	{ "alice ctr/a shell=/bin/sh shell=/bin/zsh\n",
	  "t.conf:1: duplicate option 'shell'" },
	{ "alice ctr/a stopped=host stopped=deny\n",
	  "t.conf:1: duplicate option 'stopped'" },
	{ "alice ctr/a stopped=maybe\n",
	  "t.conf:1: stopped= must be 'deny' or 'host', not 'maybe'" },
	{ "alice ctr/a shell=bin/sh\n",
	  "t.conf:1: shell= needs an absolute path, not 'bin/sh'" },
	{ "alice ctr/a cwd=\n", "t.conf:1: option 'cwd' needs a value" },
	{ "alice ctr/a shell\n",
	  "t.conf:1: expected option=value, got 'shell'" },
	{ "alice - shell=/bin/sh\n",
	  "t.conf:1: option 'shell' needs a container, not '-'" },
	{ "\n\nalice\n", "t.conf:3: missing cgroup or '-' after 'alice'" },
	{ "alice ctr/%x\n", "t.conf:1: unknown template '%x' in 'ctr/%x'" },
	{ "alice ctr/a%\n",
	  "t.conf:1: incomplete template '%' at the end of 'ctr/a%'" },
	{ "alice ctr/a cwd=/%Z\n", "t.conf:1: unknown template '%Z' in '/%Z'" },
	{ "alice ctr/../x\n",
	  "t.conf:1: cgroup path 'ctr/../x' has an empty, '.' or '..' component" },
	{ "alice ctr/./x\n",
	  "t.conf:1: cgroup path 'ctr/./x' has an empty, '.' or '..' component" },
	{ "alice ctr//x\n",
	  "t.conf:1: cgroup path 'ctr//x' has an empty, '.' or '..' component" },
	{ "alice ctr/x/\n",
	  "t.conf:1: cgroup path 'ctr/x/' has an empty, '.' or '..' component" },
	{ "alice //ctr\n",
	  "t.conf:1: cgroup path '//ctr' has an empty, '.' or '..' component" },
	{ "alice /\n", "t.conf:1: cgroup path '/' is a hierarchy root" },
	{ "alice cpu:\n", "t.conf:1: cgroup path 'cpu:' is a hierarchy root" },
	{ "alice Cpu:x\n", "t.conf:1: bad controller in cgroup 'Cpu:x'" },
	{ "alice :x\n", "t.conf:1: bad controller in cgroup ':x'" },
	{ "alice cpu:a:b\n", "t.conf:1: cgroup path 'cpu:a:b' contains ':'" },
	{ "al/ice ctr/a\n", "t.conf:1: bad user name 'al/ice'" },
	{ "@ ctr/a\n", "t.conf:1: bad group name ''" },
	{ "1000-x ctr/a\n", "t.conf:1: bad uid or uid range '1000-x'" },
	{ "2000-1000 ctr/a\n",
	  "t.conf:1: empty uid range '2000-1000' (2000 > 1000)" },
	{ "4294967295 ctr/a\n", "t.conf:1: bad uid or uid range '4294967295'" },
	{ "alice ctr/a name=bad\x01name\n",
	  "t.conf:1: control character 0x01" },
	{ "alice ctr/a a b c d e f g h i j k l m n o\n",
	  "t.conf:1: too many fields (limit 16)" },
};

START_TEST(test_errors)
{
	struct hj_conf_error err = { .msg = "" };
	const char *text = bad_files[_i].text;
	struct hj_mapping m, none;

	memset(&m, 0xff, sizeof(m));
	memset(&none, 0, sizeof(none));
	/* whoever logs in, alice of the first rule too */
	ck_assert_int_eq(match(text, "alice", 1000, "g", NULL, &m, &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg, bad_files[_i].msg);
	ck_assert_str_eq(err.file, "t.conf");
	ck_assert_msg(!memcmp(&m, &none, sizeof(m)), "a mapping is left");
	ck_assert_int_eq(match(text, "nobody", 0, NULL, NULL, &m, &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg, bad_files[_i].msg);
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "alice ctr/a\nbob ctr/\0b\n";
	struct hj_conf_error err;
	struct hj_mapping m;

	ck_assert_int_eq(match_text(text, sizeof(text) - 1, "alice", 1000, "g",
				    NULL, &m, &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg, "t.conf:2: NUL byte");
	ck_assert_uint_eq(err.line, 2);
}
END_TEST

START_TEST(test_huge_line)
{
	size_t len = HJ_CONF_LINE_MAX + 100;
	struct hj_conf_error err;
	struct hj_mapping m;
	char *text = malloc(len + 20);

	ck_assert_ptr_nonnull(text);
	strcpy(text, "# ok\nalice ctr/");
	memset(text + strlen(text), 'a', len);
	text[len] = '\0';
	ck_assert_int_eq(match_text(text, len, "alice", 1000, "g", NULL, &m,
				    &err),
			 -E2BIG);
	ck_assert_str_eq(err.msg,
			 "t.conf:2: line too long (limit 16384 bytes)");
	/* a long component fails as a path, not as a line */
	text[5 + 6 + 4 + 300] = '\0';
	ck_assert_int_eq(match(text, "alice", 1000, "g", NULL, &m, &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "t.conf:2: cgroup path"), "%s", err.msg);
	free(text);
}
END_TEST

START_TEST(test_expansion_errors)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m;

	/* names that would inject a path component, or ':' */
	ck_assert_int_eq(match("\n* ctr/%u\n", "../x", 1000, "g", NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_str_eq(
		err.msg,
		"t.conf:2: cgroup: %u: '../x' cannot be used in a path");
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
	ck_assert_int_eq(match("* ctr/%u\n", ".hidden", 1000, "g", NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_int_eq(match("* ctr/%g\n", "alice", 1000, "a/b", NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_int_eq(match("* ctr/%g\n", "alice", 1000, "cpu:x", NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_int_eq(match("* ctr/%g\n", "alice", 1000, NULL, NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg,
			 "t.conf:1: cgroup: %g: the primary group has no name");
	ck_assert_int_eq(match("* ctr/a shell=/%u\n", "a b", 1000, "g", NULL,
			       &m, &err),
			 -EINVAL);
	/* fuzz finding: a caller without a user name (uid only), %u */
	ck_assert_int_eq(match("1000 ctr/%u\n", NULL, 1000, "g", NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg, "t.conf:1: cgroup: %u: the user has no name");
	ck_assert_int_eq(match("* ctr/a name=%u\n", NULL, 1000, "g", NULL, &m,
			       &err),
			 -EINVAL);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
	/* a rule that is not reached does not fail */
	match_ok("bob ctr/%g\nalice ctr/a\n", "alice", 1000, NULL, NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/a");
}
END_TEST

START_TEST(test_overlong_expansion)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m;
	char *text = malloc(HJ_CGROUP_PATH_MAX + 64);
	char user[200];
	size_t i;

	ck_assert_ptr_nonnull(text);
	strcpy(text, "* c");
	for (i = 0; i < 30; i++)
		strcat(text, "/%u");
	strcat(text, "\n");
	memset(user, 'u', sizeof(user) - 1);
	user[sizeof(user) - 1] = '\0';
	ck_assert_int_eq(match(text, user, 1000, "g", NULL, &m, &err), -EINVAL);
	ck_assert_str_eq(err.msg,
			 "t.conf:1: cgroup is too long after expansion");
	free(text);
}
END_TEST

/*
 * Lines the tokenizer's byte classes decide at once (a user name of name
 * bytes only, a path without ':' or '%'), and their near misses: each is
 * refused with its message, or maps exactly the users it names (what the
 * validator made of them before it used the classes, the former second
 * validator's differential test).  "user=cgroup" of each user it maps.
 */
static const struct {
	const char *line, *msg, *maps;
} simple_lines[] = {
	{ "bob ctr/a\n", "", "bob=ctr/a" },
	{ "bob /ctr/a\n", "", "bob=ctr/a" },
	{ "bob\tctr/a\t \n", "", "bob=ctr/a" },
	{ " bob ctr/a\n", "", "bob=ctr/a" },
	{ "bob ctr/a x=y\n", "t.conf:1: unknown option 'x'", "" },
	{ "bob ctr/a # c\n", "", "bob=ctr/a" },
	{ "bob ctr//a\n",
	  "t.conf:1: cgroup path 'ctr//a' has an empty, '.' or '..' component",
	  "" },
	{ "bob ctr/a/\n",
	  "t.conf:1: cgroup path 'ctr/a/' has an empty, '.' or '..' component",
	  "" },
	{ "bob /\n", "t.conf:1: cgroup path '/' is a hierarchy root", "" },
	{ "bob //\n",
	  "t.conf:1: cgroup path '//' has an empty, '.' or '..' component",
	  "" },
	{ "bob -\n", "", "bob=-" },
	{ "bob -x\n", "", "bob=-x" },
	{ "bob -/x\n", "", "bob=-/x" },
	{ "-bob ctr/a\n", "t.conf:1: bad user name '-bob'", "" },
	{ "1000 ctr/a\n", "",
	  "bob=ctr/a -bob=ctr/a bob$=ctr/a bob.=ctr/a b$ob=ctr/a alice=ctr/a b.ob=ctr/a _b=ctr/a b-b$=ctr/a" },
	{ "bob ctr/./a\n",
	  "t.conf:1: cgroup path 'ctr/./a' has an empty, '.' or '..' component",
	  "" },
	{ "bob ctr/../a\n",
	  "t.conf:1: cgroup path 'ctr/../a' has an empty, '.' or '..' component",
	  "" },
	{ "bob ./a\n",
	  "t.conf:1: cgroup path './a' has an empty, '.' or '..' component",
	  "" },
	{ "bob ctr/.a\n", "", "bob=ctr/.a" },
	{ "bob ctr/..a\n", "", "bob=ctr/..a" },
	{ "bob$ ctr/a\n", "", "bob$=ctr/a" },
	{ "b$ob ctr/a\n", "t.conf:1: bad user name 'b$ob'", "" },
	{ "bob. ctr/a\n", "", "bob.=ctr/a" },
	{ "bob ctr:a\n", "", "bob=ctr:a" },
	{ "bob ctr/%u\n", "", "bob=ctr/bob" },
	{ "bob ctr/a\r\n", "", "bob=ctr/a" },
	{ "bob ctr/a\rb\n", "t.conf:1: control character 0x0d", "" },
	{ "bob\n", "t.conf:1: missing cgroup or '-' after 'bob'", "" },
	{ "bob ctr/a b/c\n", "t.conf:1: expected option=value, got 'b/c'", "" },
	{ "@bob ctr/a\n", "", "" },
	{ "* ctr/a\n", "",
	  "bob=ctr/a -bob=ctr/a bob$=ctr/a bob.=ctr/a b$ob=ctr/a alice=ctr/a b.ob=ctr/a _b=ctr/a b-b$=ctr/a" },
	{ "bob ctr/a\x80"
	  "\n",
	  "", "bob=ctr/a\x80" },
	{ "b\x80"
	  " ctr/a\n",
	  "t.conf:1: bad user name 'b\x80"
	  "'",
	  "" },
	{ "cpu:ctr/a ctr/b\n", "t.conf:1: bad user name 'cpu:ctr/a'", "" },
	{ "bob cpu:ctr/a\n", "", "bob=cpu:ctr/a" },
	{ "bob cpu:ctr:a\n", "t.conf:1: cgroup path 'cpu:ctr:a' contains ':'",
	  "" },
	{ "bob ctr/%u:x\n", "t.conf:1: bad controller in cgroup 'ctr/%u:x'",
	  "" },
	{ "bob ctr/%x\n", "t.conf:1: unknown template '%x' in 'ctr/%x'", "" },
	{ "bob. ctr/%u\n", "", "bob.=ctr/bob." },
	{ "b.ob ctr/a%%b\n", "", "b.ob=ctr/a%b" },
	{ "bob ctr/a%\n",
	  "t.conf:1: incomplete template '%' at the end of 'ctr/a%'", "" },
	{ "_b ctr/a\n", "", "_b=ctr/a" },
	{ "b-b$ ctr/a\n", "", "b-b$=ctr/a" },
	{ "b$$ ctr/a\n", "t.conf:1: bad user name 'b$$'", "" },
};

static const char *const simple_users[] = { "bob",  "-bob", "bob$",
					    "bob.", "b$ob", "alice",
					    "b.ob", "_b",   "b-b$" };

START_TEST(test_simple_lines)
{
	const char *t = simple_lines[_i].line;
	size_t j;

	for (j = 0; j < sizeof(simple_users) / sizeof(simple_users[0]); j++) {
		struct hj_conf_error err = { .msg = "" };
		const char *u = simple_users[j], *at;
		char got[HJ_CGROUP_PATH_MAX + 300];
		struct hj_mapping m;
		int r;

		r = match(t, u, 1000, "g", NULL, &m, &err);
		if (simple_lines[_i].msg[0]) {
			ck_assert_int_eq(r, -EINVAL);
			ck_assert_str_eq(err.msg, simple_lines[_i].msg);
			continue;
		}
		ck_assert_msg(r == 0, "%s: %s", u, err.msg);
		/* this user's "user=cgroup" in the list, if any */
		snprintf(got, sizeof(got), " %s=%s", u,
			 m.kind == HJ_MAP_HOST ? "-" : m.cgroup);
		for (at = simple_lines[_i].maps; (at = strstr(at, got + 1));
		     at++)
			if (at == simple_lines[_i].maps || at[-1] == ' ')
				break;
		if (m.kind != HJ_MAP_NONE) {
			ck_assert_msg(at && (!at[strlen(got + 1)] ||
					     at[strlen(got + 1)] == ' '),
				      "%s: mapped to %s, not as '%s'", u,
				      m.cgroup, simple_lines[_i].maps);
			ck_assert_uint_eq(m.line, 1);
		} else {
			snprintf(got, sizeof(got), "%s=", u);
			for (at = simple_lines[_i].maps; (at = strstr(at, got));
			     at++)
				if (at == simple_lines[_i].maps ||
				    at[-1] == ' ')
					break;
			ck_assert_msg(!at, "%s: not mapped, but '%s'", u,
				      simple_lines[_i].maps);
		}
	}
}
END_TEST

/* Names and paths at their length limits, around the byte-class checks. */
START_TEST(test_long_fields)
{
	struct hj_conf_error err = { .msg = "" };
	char *text = malloc(8192), user[300];
	struct hj_mapping m;
	size_t j;

	ck_assert_ptr_nonnull(text);
	/* a component of NAME_MAX bytes, then one more */
	strcpy(text, "bob ctr/");
	memset(text + 8, 'c', 255);
	strcpy(text + 8 + 255, "\n");
	match_ok(text, "bob", 1000, "g", NULL, &m);
	ck_assert_uint_eq(strlen(m.cgroup), 4 + 255);
	text[8 + 255] = 'c';
	strcpy(text + 8 + 256, "\n");
	ck_assert_int_eq(match(text, "bob", 1000, "g", NULL, &m, &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "t.conf:1: cgroup path 'ctr/ccc"), "%s",
		      err.msg);
	/* a path of 4095 bytes, then of 4096 */
	strcpy(text, "bob ");
	for (j = 0; j < 4096; j++)
		text[4 + j] = j % 100 == 99 ? '/' : 'p';
	strcpy(text + 4 + 4095, "\n");
	match_ok(text, "bob", 1000, "g", NULL, &m);
	ck_assert_uint_eq(strlen(m.cgroup), 4095);
	text[4 + 4095] = 'p';
	strcpy(text + 4 + 4096, "\n");
	ck_assert_int_eq(match(text, "bob", 1000, "g", NULL, &m, &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "' is too long"), "%s", err.msg);
	/* a user name of 255 bytes, then of 256 */
	memset(user, 'u', 255);
	user[255] = '\0';
	snprintf(text, 8192, "%s ctr/a\n", user);
	match_ok(text, user, 1000, "g", NULL, &m);
	ck_assert_str_eq(m.cgroup, "ctr/a");
	snprintf(text, 8192, "%su ctr/a\n", user);
	ck_assert_int_eq(match(text, user, 1000, "g", NULL, &m, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, "t.conf:1: bad user name 'uuu"), "%s",
		      err.msg);
	free(text);
}
END_TEST

START_TEST(test_many_rules)
{
	size_t n = 100000, i, len = 0;
	char *text = malloc(n * 40);
	struct hj_mapping m;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < n; i++)
		len += sprintf(text + len, "user%zu ctr/c%zu\n", i, i);
	ck_assert_int_eq(
		match_text(text, len, "user99999", 5, "g", NULL, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "ctr/c99999");
	ck_assert_uint_eq(m.line, 100000);
	ck_assert_str_eq(m.file, "t.conf");
	free(text);
}
END_TEST

/*
 * The shipped hijack.conf and the example files parse, and so does every
 * example rule in them ("#rule"; "# text", "#<tab>text" and "#" are prose).
 */
static const struct {
	const char *path;
	unsigned int rules;
} shipped[] = {
	{ ABS_TOP_SRCDIR "/conf/hijack.conf", 5 },
	{ ABS_TOP_SRCDIR "/conf/examples/runtimes.conf", 13 },
};

START_TEST(test_shipped_example)
{
	FILE *f = fopen(shipped[_i].path, "re");
	char line[512], *text = calloc(1, 1 << 16);
	unsigned int rules = 0;
	size_t len = 0;

	ck_assert_msg(f != NULL, "%s: %s", shipped[_i].path, strerror(errno));
	ck_assert_ptr_nonnull(text);
	while (fgets(line, sizeof(line), f)) {
		const char *l = line[0] == '#' && line[1] != ' ' &&
						line[1] != '\t' &&
						line[1] != '\n' ?
					line + 1 :
					line;

		ck_assert_msg(strchr(line, '\n'), "%s: line too long",
			      shipped[_i].path);
		len += snprintf(text + len, (1 << 16) - len, "%s", l);
		/* a line that is not blank or a comment is a rule, or refused */
		l += strspn(l, " \t\r\n");
		rules += *l && *l != '#';
	}
	fclose(f);
	ck_assert_uint_eq(rules, shipped[_i].rules);
	parse_ok(text);
	free(text);
}
END_TEST

/* The example rules for the runtimes map as their comments say. */
START_TEST(test_runtime_examples)
{
	FILE *f = fopen(shipped[1].path, "re");
	char line[512], *text = calloc(1, 1 << 16);
	const char *const groups[] = { "rootless", NULL };
	const char *const devs[] = { "devs", NULL };
	struct hj_mapping m;
	size_t len = 0;

	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(text);
	while (fgets(line, sizeof(line), f))
		len += snprintf(text + len, (1 << 16) - len, "%s",
				line[0] == '#' && line[1] != ' ' &&
						line[1] != '\t' &&
						line[1] != '\n' ?
					line + 1 :
					line);
	fclose(f);
	parse_ok(text);
	ck_assert_int_eq(
		match_text(text, len, "bob", 1001, "bob", NULL, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "lxc.payload.web2");
	ck_assert_str_eq(m.name, "web2");
	ck_assert_int_eq(
		match_text(text, len, "zoe", 1002, "zoe", devs, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "ctr/zoe");
	ck_assert_str_eq(m.name, "dev-zoe");
	ck_assert_int_eq(
		match_text(text, len, "erin", 1003, "erin", NULL, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "cpuset:lxc.payload.web5");
	ck_assert_int_eq(
		match_text(text, len, "uma", 1004, "uma", groups, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "user.slice/user-1004.slice/"
				   "user@1004.service/user.slice/libpod-"
				   "0123456789abcdef0123456789abcdef"
				   "0123456789abcdef0123456789abcdef.scope");
	free(text);
}
END_TEST

/*
 * Mutated configs never crash the parser, whatever it accepts maps every
 * user, hostile names included, to a cgroup below the roots, a file it
 * refuses is refused to every user alike, and split over two files it
 * gives the same answers.
 */
START_TEST(test_mutations)
{
	static const char base[] =
		"# base\n@devs /ctr/%g/%u-%U name=c-%u shell=/bin/%u cwd=/h/%u\n"
		"1000-1999 cpu,cpuacct:lxc/%u stopped=host\r\n"
		"alice - # host\n* ctr/all\n";
	static const char alphabet[] = "%/:#\n\r\0 =.-@*uUg\t\x80";
	static const char *const users[] = { "alice", "..",  "a/b", ".x",
					     "c:d",   "e f", "bob" };
	const char *const groups[] = { "devs", "..", NULL };
	unsigned int seed = 12345, i, j;
	char text[sizeof(base)];

	for (i = 0; i < 20000; i++) {
		struct hj_conf_error e0 = { .msg = "" };
		size_t len = sizeof(base) - 1, k;
		struct hj_mapping m0;
		int r0;

		memcpy(text, base, sizeof(base));
		for (j = 0; j < 1 + i % 4; j++) {
			seed = seed * 1103515245 + 12345;
			text[(seed >> 8) % len] =
				seed & 0x10 ? (char)(seed >> 20) :
					      alphabet[(seed >> 20) %
						       (sizeof(alphabet) - 1)];
		}
		if (seed & 0x40000000)
			len = (seed >> 4) % len;
		/* a user no rule of the base maps, whose names expand well */
		r0 = match_text(text, len, "root", 0, "root", NULL, &m0, &e0);
		for (j = 0; j < sizeof(users) / sizeof(users[0]); j++) {
			struct hj_conf_error err = { .msg = "" };
			struct hj_mapping m;
			const char *path;
			int r;

			r = match_text(text, len, users[j], j * 500,
				       j % 2 ? users[j] : "g", groups, &m,
				       &err);
			if (r0) {
				ck_assert_int_eq(r, r0);
				ck_assert_str_eq(err.msg, e0.msg);
			}
			for (k = i % 5; k < 6; k += 2)
				same_split(text, len, k, users[j], j * 500,
					   j % 2 ? users[j] : "g", groups, r,
					   &m, &err);
			if (r || m.kind != HJ_MAP_CONTAINER)
				continue;
			path = strchr(m.cgroup, ':');
			path = path ? path + 1 : m.cgroup;
			ck_assert_msg(
				*path && *path != '/' && !strstr(path, "..") &&
					!strstr(path, "//") &&
					!strchr(path, ':') &&
					path[strlen(path) - 1] != '/',
				"bad cgroup '%s' for '%s'", m.cgroup, users[j]);
		}
	}
}
END_TEST

/* ---- files: the checks of hj_conf_load_match() ---- */

static char tmpdir[] = "/tmp/hjt-conf-XXXXXX";

static void setup_dir(void)
{
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown_dir(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(tmpdir, "/tmp/hjt-conf-XXXXXX");
}

static void write_file(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	ck_assert_int_eq(fchmod(fd, mode), 0);
	close(fd);
}

/* Check the configuration @path (and @path.d): no rule names "nobody-x". */
static int load(const char *path, struct hj_conf_error *err)
{
	struct hj_mapping m;
	int r;

	memset(&m, 0xff, sizeof(m));
	r = hj_conf_load_match(path, "nobody-x", 0, 0, NULL, no_groups, &m,
			       err);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
	return r;
}

START_TEST(test_load_ok)
{
	struct hj_conf_error err = { .msg = "" };
	char path[64];

	snprintf(path, sizeof(path), "%s/hijack.conf", tmpdir);
	write_file(path, "alice ctr/a\n", 0644);
	ck_assert_int_eq(load(path, &err), 0);
	chmod(path, 0600);
	ck_assert_int_eq(load(path, &err), 0);
	write_file(path, "alice ctr/a bogus=1\n", 0644);
	ck_assert_int_eq(load(path, &err), -EINVAL);
	ck_assert_uint_eq(err.line, 1);
	ck_assert_str_eq(err.file, path);
	ck_assert_msg(strstr(err.msg, "/hijack.conf:1: unknown option 'bogus'"),
		      "%s", err.msg);
}
END_TEST

START_TEST(test_load_insecure)
{
	struct hj_conf_error err = { .msg = "" };
	char path[64], link[64], fifo[64];

	snprintf(path, sizeof(path), "%s/hijack.conf", tmpdir);
	write_file(path, "alice ctr/a\n", 0664);
	ck_assert_int_eq(load(path, &err), -EPERM);
	ck_assert_msg(strstr(err.msg,
			     "writable by group or others (mode 0664)"),
		      "%s", err.msg);
	chmod(path, 0646);
	ck_assert_int_eq(load(path, &err), -EPERM);

	chmod(path, 0644);
	ck_assert_int_eq(chown(path, 1000, 0), 0);
	ck_assert_int_eq(load(path, &err), -EPERM);
	ck_assert_msg(strstr(err.msg, "owned by uid 1000, not root"), "%s",
		      err.msg);
	ck_assert_uint_eq(err.line, 0);
	ck_assert_int_eq(chown(path, 0, 0), 0);

	snprintf(link, sizeof(link), "%s/link.conf", tmpdir);
	ck_assert_int_eq(symlink(path, link), 0);
	ck_assert_int_eq(load(link, &err), -ELOOP);
	ck_assert_msg(strstr(err.msg, "link.conf: is a symbolic link"), "%s",
		      err.msg);

	ck_assert_int_eq(load(tmpdir, &err), -EINVAL);
	ck_assert_msg(strstr(err.msg, ": not a regular file"), "%s", err.msg);

	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ck_assert_int_eq(load(fifo, &err), -EINVAL);

	snprintf(path, sizeof(path), "%s/missing.conf", tmpdir);
	ck_assert_int_eq(load(path, &err), -ENOENT);
	ck_assert_msg(strstr(err.msg,
			     "missing.conf: cannot open: No such file"),
		      "%s", err.msg);
}
END_TEST

START_TEST(test_load_too_large)
{
	struct hj_conf_error err = { .msg = "" };
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/big.conf", tmpdir);
	write_file(path, "", 0644);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_int_eq(ftruncate(fd, HJ_CONF_SIZE_MAX + 1), 0);
	close(fd);
	ck_assert_int_eq(load(path, &err), -EFBIG);
	ck_assert_msg(strstr(err.msg, "too large"), "%s", err.msg);
}
END_TEST

/*
 * hj_conf_load_match() reads a file in chunks: lines across the chunk
 * boundaries, a last line without newline, a line of the maximal length
 * (with its CR) and the errors of an overlong line all come out as the
 * same text in memory gives them (hj_conf_parse_match(), one buffer).
 */
static void load_match_same(const char *path, const char *text, size_t len,
			    const char *user, unsigned int want_line)
{
	struct hj_conf_error e1 = { .msg = "" }, e2 = { .msg = "" };
	struct hj_conf_text t = { path, text, len };
	struct hj_mapping m1, m2;
	int r1, r2;

	r1 = hj_conf_parse_match(&t, 1, user, 1000, 100, "g", no_groups, &m1,
				 &e1);
	r2 = hj_conf_load_match(path, user, 1000, 100, "g", no_groups, &m2,
				&e2);
	ck_assert_int_eq(r2, r1);
	ck_assert_str_eq(e2.msg, e1.msg);
	ck_assert_msg(!memcmp(&m1, &m2, sizeof(m1)), "mapping differs");
	ck_assert_uint_eq(r2 ? e2.line : m2.line, want_line);
}

START_TEST(test_load_match_chunks)
{
	size_t n = 30000, i, len = 0,
	       cap = n * 60 + 3 * HJ_CONF_LINE_MAX + 100000;
	char *text = malloc(cap + 1), path[64];
	size_t cstart;

	ck_assert_ptr_nonnull(text);
	snprintf(path, sizeof(path), "%s/big.conf", tmpdir);
	/* lines of every length from 12 to 52 bytes, CRLF now and then */
	for (i = 1; i < n; i++)
		len += sprintf(text + len, "u%zu ctr/%.*s%s\n", i,
			       (int)(1 + i % 40),
			       "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
			       i % 7 ? "" : "\r");
	/* a comment of the maximal length, with its CR */
	cstart = len;
	text[len++] = '#';
	memset(text + len, 'c', HJ_CONF_LINE_MAX - 1);
	len += HJ_CONF_LINE_MAX - 1;
	len += sprintf(text + len, "\r\nlast ctr/last");
	text[len] = '\0';
	write_file(path, text, 0644);
	load_match_same(path, text, len, "last", n + 1);
	load_match_same(path, text, len, "u29999", n - 1);
	load_match_same(path, text, len, "u1", 1);
	load_match_same(path, text, len, "nobody", 0);

	/* a line far too long: refused at its line */
	len = cstart;
	text[len++] = '#';
	memset(text + len, 'c', HJ_CONF_LINE_MAX + 100000);
	len += HJ_CONF_LINE_MAX + 100000;
	len += sprintf(text + len, "\nlast ctr/last");
	write_file(path, text, 0644);
	load_match_same(path, text, len, "last", n);
	/* a NUL byte 100 KiB into it: the NUL is what is reported */
	text[cstart + HJ_CONF_LINE_MAX + 90000] = '\0';
	{
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
		close(fd);
	}
	load_match_same(path, text, len, "last", n);
	{
		struct hj_conf_error err = { .msg = "" };
		struct hj_mapping m;

		hj_conf_load_match(path, "last", 1, 1, "g", no_groups, &m,
				   &err);
		ck_assert_msg(strstr(err.msg, "NUL byte"), "%s", err.msg);
	}
	load_match_same(path, text, len, "last", n);
	free(text);
}
END_TEST

START_TEST(test_resolve_user)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m;
	struct passwd pw = { .pw_name = "root", .pw_uid = 0, .pw_gid = 0 };
	char path[64];

	snprintf(path, sizeof(path), "%s/r.conf", tmpdir);
	/* root's primary group "root" is matched by name */
	write_file(path, "* ctr/all\n@root ctr/%g/%u-%U\n", 0644);
	ck_assert_int_eq(hj_conf_resolve_user(path, &pw, &m, &err), 0);
	ck_assert_int_eq(m.kind, HJ_MAP_CONTAINER);
	ck_assert_str_eq(m.cgroup, "ctr/root/root-0");
	ck_assert_uint_eq(m.line, 2);
	write_file(path, "* ctr/all\nroot ctr/%x\n", 0644);
	ck_assert_int_eq(hj_conf_resolve_user(path, &pw, &m, &err), -EINVAL);
	ck_assert_int_eq(m.kind, HJ_MAP_NONE);
	ck_assert_uint_eq(err.line, 2);
}
END_TEST

/* ---- hijack.conf.d: drop-ins ---- */

static char conf_path[64], dropin_dir[64];

static void setup_dropins(void)
{
	setup_dir();
	snprintf(conf_path, sizeof(conf_path), "%s/hijack.conf", tmpdir);
	snprintf(dropin_dir, sizeof(dropin_dir), "%s/hijack.conf.d", tmpdir);
	write_file(conf_path, "# main\nalice ctr/main\n", 0644);
	ck_assert_int_eq(mkdir(dropin_dir, 0755), 0);
}

static void dropin(const char *name, const char *text, mode_t mode)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dropin_dir, name);
	write_file(path, text, mode);
}

/* The user's rule: its file (below tmpdir) and line, "" when none. */
static int lookup(const char *user, const char *group, char *where, size_t size,
		  struct hj_conf_error *err)
{
	struct hj_mapping m;
	int r;

	r = hj_conf_load_match(conf_path, user, 1000, 100, group, no_groups, &m,
			       err);
	if (r || m.kind == HJ_MAP_NONE)
		snprintf(where, size, "%s", "");
	else
		snprintf(where, size, "%s:%u %s", m.file + strlen(tmpdir) + 1,
			 m.line, m.kind == HJ_MAP_HOST ? "-" : m.cgroup);
	return r;
}

static void maps_to(const char *user, const char *want)
{
	struct hj_conf_error err = { .msg = "" };
	char where[HJ_CGROUP_PATH_MAX + 4200];

	ck_assert_msg(lookup(user, "g", where, sizeof(where), &err) == 0,
		      "%s: %s", user, err.msg);
	ck_assert_str_eq(where, want);
}

/* hijack.conf first, then hijack.conf.d/NAME.conf in byte order. */
START_TEST(test_dropin_order)
{
	dropin("20-b.conf", "bob ctr/b20\ncarol ctr/c\n", 0644);
	dropin("10-a.conf", "# Ansible\nbob ctr/a10\nalice ctr/a\n", 0600);
	dropin("9.conf", "carol ctr/nine\ndave -\nerin ctr/e%%u\n", 0444);
	dropin("Z.conf", "erin ctr/upper\n", 0644);
	maps_to("alice", "hijack.conf:2 ctr/main");
	maps_to("bob", "hijack.conf.d/10-a.conf:2 ctr/a10");
	maps_to("carol", "hijack.conf.d/20-b.conf:2 ctr/c");
	maps_to("dave", "hijack.conf.d/9.conf:2 -");
	/* byte order, as strcmp: "10-" before "9" before "Z" */
	maps_to("erin", "hijack.conf.d/9.conf:3 ctr/e%u");
	maps_to("frank", "");
	/* an empty directory, an empty drop-in */
	dropin("30-empty.conf", "", 0644);
	maps_to("frank", "");
}
END_TEST

/* What package managers, editors and Ansible leave behind is not read. */
START_TEST(test_dropin_skipped)
{
	static const char *const skipped[] = {
		"README",
		"50-x.conf~",
		".50-x.conf",
		".conf",
		"50-x.conf.dpkg-old",
		"50-x.conf.dpkg-dist",
		"50-x.conf.bak",
		"50-x.conf.rpmnew",
		".50-x.conf.swp",
		"#50-x.conf#",
		"50-x.CONF",
		"50-x.conf.d",
		".ansible_tmp8x2k50-x.conf",
	};
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(skipped) / sizeof(skipped[0]); i++)
		/* each would fail the configuration if it were read */
		dropin(skipped[i], "dave ctr/skipped bogus=1\n", 0666);
	/* nor is a symbolic link or a directory of another name */
	snprintf(path, sizeof(path), "%s/link", dropin_dir);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	snprintf(path, sizeof(path), "%s/sub", dropin_dir);
	ck_assert_int_eq(mkdir(path, 0777), 0);
	/* "#x.conf#" ends in '#'; "x.conf" with a '#' first is read */
	dropin("#50-y.conf", "dave ctr/hash\n", 0644);
	maps_to("dave", "hijack.conf.d/#50-y.conf:1 ctr/hash");
	maps_to("alice", "hijack.conf:2 ctr/main");
}
END_TEST

/*
 * One broken or insecure drop-in refuses the whole configuration, for
 * every user, with the file (and line) that is wrong.
 */
static void refused(int want, const char *what)
{
	struct hj_conf_error err = { .msg = "" };
	char where[HJ_CGROUP_PATH_MAX + 4200];

	ck_assert_int_eq(lookup("alice", "g", where, sizeof(where), &err),
			 want);
	ck_assert_str_eq(where, "");
	ck_assert_msg(strstr(err.msg, what), "'%s' has no '%s'", err.msg, what);
	ck_assert_int_eq(lookup("nobody", "g", where, sizeof(where), &err),
			 want);
}

START_TEST(test_dropin_refused)
{
	char path[128], path2[128];

	dropin("10-ok.conf", "bob ctr/b\n", 0644);
	dropin("20-bad.conf", "# x\n\ncarol ctr/c shel=/bin/sh\n", 0644);
	refused(-EINVAL, "/hijack.conf.d/20-bad.conf:3: unknown option 'shel'");

	dropin("20-bad.conf", "carol ctr/c\n", 0664);
	refused(-EPERM, "/hijack.conf.d/20-bad.conf: writable by group or "
			"others (mode 0664)");
	dropin("20-bad.conf", "carol ctr/c\n", 0646);
	refused(-EPERM, "20-bad.conf: writable by group or others");
	snprintf(path, sizeof(path), "%s/20-bad.conf", dropin_dir);
	ck_assert_int_eq(chmod(path, 0644), 0);
	ck_assert_int_eq(chown(path, 1000, 0), 0);
	refused(-EPERM, "/hijack.conf.d/20-bad.conf: owned by uid 1000, not "
			"root");
	ck_assert_int_eq(unlink(path), 0);

	/* a symbolic link, even to a good file */
	snprintf(path2, sizeof(path2), "%s/10-ok.conf", dropin_dir);
	ck_assert_int_eq(symlink(path2, path), 0);
	refused(-ELOOP, "/hijack.conf.d/20-bad.conf: is a symbolic link");
	ck_assert_int_eq(unlink(path), 0);
	/* not a regular file */
	ck_assert_int_eq(mkdir(path, 0755), 0);
	refused(-EINVAL, "/hijack.conf.d/20-bad.conf: not a regular file");
	ck_assert_int_eq(rmdir(path), 0);
	ck_assert_int_eq(mkfifo(path, 0644), 0);
	refused(-EINVAL, "/hijack.conf.d/20-bad.conf: not a regular file");
	ck_assert_int_eq(unlink(path), 0);
	maps_to("bob", "hijack.conf.d/10-ok.conf:1 ctr/b");

	/* the directory: root's, not writable by others, no link */
	ck_assert_int_eq(chmod(dropin_dir, 0775), 0);
	refused(-EPERM, "/hijack.conf.d: writable by group or others");
	ck_assert_int_eq(chmod(dropin_dir, 0757), 0);
	refused(-EPERM, "/hijack.conf.d: writable by group or others");
	ck_assert_int_eq(chmod(dropin_dir, 0755), 0);
	ck_assert_int_eq(chown(dropin_dir, 1000, 1000), 0);
	refused(-EPERM, "/hijack.conf.d: owned by uid 1000, not root");
	ck_assert_int_eq(chown(dropin_dir, 0, 0), 0);
	snprintf(path, sizeof(path), "%s/real.d", tmpdir);
	ck_assert_int_eq(rename(dropin_dir, path), 0);
	ck_assert_int_eq(symlink(path, dropin_dir), 0);
	refused(-ELOOP, "/hijack.conf.d: is a symbolic link");
	ck_assert_int_eq(unlink(dropin_dir), 0);
	write_file(dropin_dir, "bob ctr/b\n", 0644);
	refused(-ENOTDIR, "/hijack.conf.d: not a directory");
	ck_assert_int_eq(unlink(dropin_dir), 0);
	/* no directory is fine; no hijack.conf is not, drop-ins or not */
	maps_to("alice", "hijack.conf:2 ctr/main");
	ck_assert_int_eq(rename(path, dropin_dir), 0);
	ck_assert_int_eq(unlink(conf_path), 0);
	refused(-ENOENT, "/hijack.conf: cannot open");
}
END_TEST

/*
 * A syntax error in a later file wins over the expansion error of the
 * rule that matched in an earlier one, as within one file.
 */
START_TEST(test_dropin_whole)
{
	struct hj_conf_error err = { .msg = "" };
	char where[HJ_CGROUP_PATH_MAX + 4200];

	write_file(conf_path, "alice ctr/%g\n", 0644);
	ck_assert_int_eq(lookup("alice", NULL, where, sizeof(where), &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "/hijack.conf:1: cgroup: %g:"), "%s",
		      err.msg);
	dropin("50-x.conf", "bob ctr/b\nbob\n", 0644);
	ck_assert_int_eq(lookup("alice", NULL, where, sizeof(where), &err),
			 -EINVAL);
	ck_assert_msg(strstr(err.msg, "/hijack.conf.d/50-x.conf:2: missing "
				      "cgroup"),
		      "%s", err.msg);
	ck_assert_uint_eq(err.line, 2);
	ck_assert_msg(strstr(err.file, "/hijack.conf.d/50-x.conf"), "%s",
		      err.file);
}
END_TEST

/* Caps: HJ_CONF_FILES_MAX drop-ins, HJ_CONF_SIZE_MAX bytes in all. */
START_TEST(test_dropin_caps)
{
	char name[32], *big = malloc(HJ_CONF_SIZE_MAX / 2 + 1), path[128];
	int i, fd;

	ck_assert_ptr_nonnull(big);
	for (i = 0; i < HJ_CONF_FILES_MAX; i++) {
		snprintf(name, sizeof(name), "%04d.conf", i);
		dropin(name, i == 999 ? "zed ctr/z\n" : "", 0644);
	}
	maps_to("zed", "hijack.conf.d/0999.conf:1 ctr/z");
	dropin("1000.conf", "", 0644);
	refused(-E2BIG, "/hijack.conf.d: too many files (limit 1000)");
	for (i = 0; i <= HJ_CONF_FILES_MAX; i++) {
		snprintf(path, sizeof(path), "%s/%04d.conf", dropin_dir, i);
		ck_assert_int_eq(unlink(path), 0);
	}
	/* half the cap of comments, twice: too much together */
	memset(big, '#', HJ_CONF_SIZE_MAX / 2);
	for (i = 1000; i < HJ_CONF_SIZE_MAX / 2; i += 1000)
		big[i] = '\n';
	big[HJ_CONF_SIZE_MAX / 2] = '\0';
	write_file(conf_path, big, 0644);
	dropin("a.conf", big, 0644);
	maps_to("alice", "");
	dropin("b.conf", "", 0644);
	snprintf(path, sizeof(path), "%s/b.conf", dropin_dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1), 0);
	close(fd);
	refused(-EFBIG, "/hijack.conf.d/b.conf: the configuration is too "
			"large with this file");
	free(big);
}
END_TEST

/* hj_conf_resolve_user reads the drop-ins, group rules included. */
START_TEST(test_dropin_resolve_user)
{
	struct hj_conf_error err = { .msg = "" };
	struct passwd pw = { .pw_name = "root", .pw_uid = 0, .pw_gid = 0 };
	struct hj_mapping m;

	dropin("50-ops.conf", "* ctr/all\n@root ctr/ops/%u\n", 0644);
	ck_assert_int_eq(hj_conf_resolve_user(conf_path, &pw, &m, &err), 0);
	ck_assert_int_eq(m.kind, HJ_MAP_CONTAINER);
	ck_assert_str_eq(m.cgroup, "ctr/ops/root");
	ck_assert_uint_eq(m.line, 2);
	ck_assert_msg(strstr(m.file, "/hijack.conf.d/50-ops.conf"), "%s",
		      m.file);
}
END_TEST

/* ---- audit message formatting ---- */

START_TEST(test_audit_format)
{
	struct hj_mapping m = { .kind = HJ_MAP_CONTAINER };
	char buf[512];

	strcpy(m.name, "web1");
	strcpy(m.cgroup, "ctr/web1");
	ck_assert_int_eq(hj_audit_format(buf, sizeof(buf), "start", &m, "alice",
					 1000, 4242, "login"),
			 0);
	ck_assert_str_eq(buf, "virt=hijack op=start vm=\"web1\" vm-pid=4242 "
			      "user=\"alice\" uid=1000 cgroup=\"ctr/web1\" "
			      "reason=\"login\"");
	/* a value with a space or a quote is hex encoded */
	strcpy(m.name, "a b");
	ck_assert_int_eq(hj_audit_format(buf, sizeof(buf), "deny", &m, "x\"y",
					 5, 0, NULL),
			 0);
	ck_assert_str_eq(buf, "virt=hijack op=deny vm=612062 vm-pid=-1 "
			      "user=782279 uid=5 cgroup=\"ctr/web1\" reason=?");
	/* no mapping (broken config) */
	ck_assert_int_eq(hj_audit_format(buf, sizeof(buf), "deny", NULL, "bob",
					 7, -1, "config"),
			 0);
	ck_assert_str_eq(buf, "virt=hijack op=deny vm=? vm-pid=-1 user=\"bob\" "
			      "uid=7 cgroup=? reason=\"config\"");
	ck_assert_int_eq(hj_audit_format(buf, sizeof(buf), "a b", &m, "x", 1, 1,
					 NULL),
			 -EINVAL);
	ck_assert_int_eq(hj_audit_format(buf, 20, "start", &m, "x", 1, 1, NULL),
			 -ENAMETOOLONG);
}
END_TEST

static Suite *conf_suite(bool root)
{
	Suite *s = suite_create("conf");
	TCase *tc = tcase_create("parse");
	TCase *tf = tcase_create("files");
	TCase *td = tcase_create("drop-ins");
	TCase *ta = tcase_create("audit");

	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_user_rule);
	tcase_add_test(tc, test_host_rule);
	tcase_add_test(tc, test_uid_rules);
	tcase_add_test(tc, test_star_and_root);
	tcase_add_test(tc, test_groups);
	tcase_add_test(tc, test_first_match);
	tcase_add_test(tc, test_templates);
	tcase_add_test(tc, test_controller);
	tcase_add_test(tc, test_options);
	tcase_add_test(tc, test_comments_crlf);
	tcase_add_loop_test(tc, test_errors, 0,
			    sizeof(bad_files) / sizeof(bad_files[0]));
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_huge_line);
	tcase_add_test(tc, test_expansion_errors);
	tcase_add_test(tc, test_overlong_expansion);
	tcase_add_loop_test(tc, test_simple_lines, 0,
			    sizeof(simple_lines) / sizeof(simple_lines[0]));
	tcase_add_test(tc, test_long_fields);
	tcase_add_test(tc, test_many_rules);
	tcase_add_loop_test(tc, test_shipped_example, 0,
			    sizeof(shipped) / sizeof(shipped[0]));
	tcase_add_test(tc, test_runtime_examples);
	tcase_add_test(tc, test_mutations);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tf, setup_dir, teardown_dir);
	/* the package build runs these beside the rest of the suite's load */
	tcase_set_timeout(tf, 30);
	/* root-owned files */
	tap_add_if(s, tf, "files", root, "needs root", test_load_ok,
		   test_load_insecure, test_load_too_large,
		   test_load_match_chunks, test_resolve_user);

	tcase_add_checked_fixture(td, setup_dropins, teardown_dir);
	tcase_set_timeout(td, 30);
	tap_add_if(s, td, "drop-ins", root, "needs root", test_dropin_order,
		   test_dropin_skipped, test_dropin_refused, test_dropin_whole,
		   test_dropin_caps, test_dropin_resolve_user);

	tcase_add_test(ta, test_audit_format);
	suite_add_tcase(s, ta);
	return s;
}

int main(void)
{
	bool root = geteuid() == 0;
	SRunner *sr = srunner_create(conf_suite(root));
	int failed;

	failed = tap_run(sr, CK_ENV);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
