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

static struct hj_conf *parse_ok(const char *text)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_conf *conf = NULL;
	int r;

	r = hj_conf_parse(text, strlen(text), "t.conf", &conf, &err);
	ck_assert_msg(r == 0, "parse failed: %d %s", r, err.msg);
	ck_assert_ptr_nonnull(conf);
	return conf;
}

/*
 * hj_conf_parse_match() (what a login does) gives what hj_conf_parse() +
 * hj_conf_match() give: the result, the mapping and the error message.
 */
static void same_as_parse_match(const char *text, size_t len, const char *user,
				uid_t uid, const char *group,
				const char *const *groups, int want,
				const struct hj_mapping *wm,
				const struct hj_conf_error *werr)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m;
	int r;

	r = hj_conf_parse_match(text, len, "t.conf", user, uid, 100, group,
				groups, &m, werr ? &err : NULL);
	ck_assert_int_eq(r, want);
	ck_assert_msg(!memcmp(&m, wm, sizeof(m)), "mapping differs for %s",
		      user ? user : "(null)");
	if (werr && r)
		ck_assert_str_eq(err.msg, werr->msg);
}

/* Match one user against a config text; returns hj_conf_match's result. */
static int match(const char *text, const char *user, uid_t uid,
		 const char *group, const char *const *groups,
		 struct hj_mapping *m, struct hj_conf_error *err)
{
	struct hj_conf *conf = parse_ok(text);
	int r;

	r = hj_conf_match(conf, user, uid, 100, group,
			  groups ? groups : no_groups, m, err);
	hj_conf_free(conf);
	same_as_parse_match(text, strlen(text), user, uid, group,
			    groups ? groups : no_groups, r, m, err);
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
	struct hj_conf *conf = parse_ok("");

	ck_assert_uint_eq(hj_conf_rule_count(conf), 0);
	hj_conf_free(conf);
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
	struct hj_conf *conf = parse_ok(text);

	ck_assert_uint_eq(hj_conf_rule_count(conf), 3);
	hj_conf_free(conf);
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
	struct hj_conf *conf = (struct hj_conf *)1;
	const char *text = bad_files[_i].text;
	int r;

	r = hj_conf_parse(text, strlen(text), "t.conf", &conf, &err);
	ck_assert_int_eq(r, -EINVAL);
	ck_assert_ptr_null(conf);
	ck_assert_str_eq(err.msg, bad_files[_i].msg);
	ck_assert_str_eq(err.file, "t.conf");
	/* matching while parsing refuses the file just the same */
	{
		struct hj_mapping none;

		memset(&none, 0, sizeof(none));
		same_as_parse_match(text, strlen(text), "alice", 1000, "g",
				    no_groups, -EINVAL, &none, &err);
	}
}
END_TEST

START_TEST(test_nul_byte)
{
	static const char text[] = "alice ctr/a\nbob ctr/\0b\n";
	struct hj_conf_error err;
	struct hj_conf *conf;

	ck_assert_int_eq(hj_conf_parse(text, sizeof(text) - 1, "t.conf", &conf,
				       &err),
			 -EINVAL);
	ck_assert_str_eq(err.msg, "t.conf:2: NUL byte");
	ck_assert_uint_eq(err.line, 2);
}
END_TEST

START_TEST(test_huge_line)
{
	size_t len = HJ_CONF_LINE_MAX + 100;
	struct hj_conf_error err;
	struct hj_conf *conf;
	char *text = malloc(len + 20);

	ck_assert_ptr_nonnull(text);
	strcpy(text, "# ok\nalice ctr/");
	memset(text + strlen(text), 'a', len);
	text[len] = '\0';
	ck_assert_int_eq(hj_conf_parse(text, len, "t.conf", &conf, &err),
			 -E2BIG);
	ck_assert_str_eq(err.msg,
			 "t.conf:2: line too long (limit 16384 bytes)");
	/* a long component fails as a path, not as a line */
	text[5 + 6 + 4 + 300] = '\0';
	ck_assert_int_eq(hj_conf_parse(text, strlen(text), "t.conf", &conf,
				       &err),
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
 * Lines that look like the common "user path" rule, which matching
 * recognises in one pass, and their near misses: every one is accepted
 * or refused, mapped or not, exactly as by hj_conf_parse() + match.
 */
START_TEST(test_simple_lines)
{
	static const char *const lines[] = {
		"bob ctr/a\n",	 "bob /ctr/a\n",    "bob\tctr/a\t \n",
		" bob ctr/a\n",	 "bob ctr/a x=y\n", "bob ctr/a # c\n",
		"bob ctr//a\n",	 "bob ctr/a/\n",    "bob /\n",
		"bob //\n",	 "bob -\n",	    "bob -x\n",
		"bob -/x\n",	 "-bob ctr/a\n",    "1000 ctr/a\n",
		"bob ctr/./a\n", "bob ctr/../a\n",  "bob ./a\n",
		"bob ctr/.a\n",	 "bob ctr/..a\n",   "bob$ ctr/a\n",
		"b$ob ctr/a\n",	 "bob. ctr/a\n",    "bob ctr:a\n",
		"bob ctr/%u\n",	 "bob ctr/a\r\n",   "bob ctr/a\rb\n",
		"bob\n",	 "bob ctr/a b/c\n", "@bob ctr/a\n",
		"* ctr/a\n",	 "bob ctr/a\x80\n", "b\x80 ctr/a\n",
	};
	static const char *const users[] = { "bob",  "-bob", "bob$",
					     "bob.", "b$ob", "alice" };
	char *text = malloc(8192);
	size_t i, j;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < sizeof(lines) / sizeof(lines[0]) + 4; i++) {
		const char *t = text;

		if (i < sizeof(lines) / sizeof(lines[0])) {
			t = lines[i];
		} else if (i == sizeof(lines) / sizeof(lines[0])) {
			/* a component of NAME_MAX bytes, then one more */
			strcpy(text, "bob ctr/");
			memset(text + 8, 'c', 255);
			strcpy(text + 8 + 255, "\n");
		} else if (i == sizeof(lines) / sizeof(lines[0]) + 1) {
			strcpy(text, "bob ctr/");
			memset(text + 8, 'c', 256);
			strcpy(text + 8 + 256, "\n");
		} else {
			/* a path of 4095 and of 4096 bytes; a 255-byte name */
			size_t n = i == sizeof(lines) / sizeof(lines[0]) + 2 ?
					   4095 :
					   4096;

			strcpy(text, "bob ");
			for (j = 0; j < n; j++)
				text[4 + j] = j % 100 == 99 ? '/' : 'p';
			strcpy(text + 4 + n, "\n");
		}
		for (j = 0; j < sizeof(users) / sizeof(users[0]); j++) {
			struct hj_conf_error err = { .msg = "" };
			struct hj_mapping m;
			struct hj_conf *conf;
			int r;

			r = hj_conf_parse(t, strlen(t), "t.conf", &conf, &err);
			if (!r) {
				r = hj_conf_match(conf, users[j], 1000, 100,
						  "g", no_groups, &m, &err);
				hj_conf_free(conf);
			} else {
				memset(&m, 0, sizeof(m));
			}
			same_as_parse_match(t, strlen(t), users[j], 1000, "g",
					    no_groups, r, &m, &err);
		}
	}
	free(text);
}
END_TEST

START_TEST(test_many_rules)
{
	size_t n = 100000, i, len = 0;
	char *text = malloc(n * 40);
	struct hj_mapping m;
	struct hj_conf *conf;

	ck_assert_ptr_nonnull(text);
	for (i = 0; i < n; i++)
		len += sprintf(text + len, "user%zu ctr/c%zu\n", i, i);
	conf = parse_ok(text);
	ck_assert_uint_eq(hj_conf_rule_count(conf), n);
	ck_assert_int_eq(hj_conf_match(conf, "user99999", 5, 5, "g", no_groups,
				       &m, NULL),
			 0);
	ck_assert_str_eq(m.cgroup, "ctr/c99999");
	ck_assert_uint_eq(m.line, 100000);
	hj_conf_free(conf);
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
	struct hj_conf *conf;
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
	}
	fclose(f);
	conf = parse_ok(text);
	ck_assert_uint_eq(hj_conf_rule_count(conf), shipped[_i].rules);
	hj_conf_free(conf);
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
	struct hj_conf *conf;
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
	conf = parse_ok(text);
	ck_assert_int_eq(hj_conf_match(conf, "bob", 1001, 1001, "bob",
				       no_groups, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "lxc.payload.web2");
	ck_assert_str_eq(m.name, "web2");
	ck_assert_int_eq(hj_conf_match(conf, "zoe", 1002, 1002, "zoe", devs,
				       &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "ctr/zoe");
	ck_assert_str_eq(m.name, "dev-zoe");
	ck_assert_int_eq(hj_conf_match(conf, "erin", 1003, 1003, "erin",
				       no_groups, &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "cpuset:lxc.payload.web5");
	ck_assert_int_eq(hj_conf_match(conf, "uma", 1004, 1004, "uma", groups,
				       &m, NULL), 0);
	ck_assert_str_eq(m.cgroup, "user.slice/user-1004.slice/"
				   "user@1004.service/user.slice/libpod-"
				   "0123456789abcdef0123456789abcdef"
				   "0123456789abcdef0123456789abcdef.scope");
	hj_conf_free(conf);
	free(text);
}
END_TEST

/*
 * Mutated configs never crash the parser, and whatever it accepts maps
 * every user, hostile names included, to a cgroup below the roots.
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
		struct hj_conf *conf;
		size_t len = sizeof(base) - 1;

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
		if (hj_conf_parse(text, len, "m", &conf, NULL)) {
			struct hj_mapping none;

			/* refused the same way while matching */
			memset(&none, 0, sizeof(none));
			ck_assert_int_ne(hj_conf_parse_match(
						 text, len, "m", "alice", 1, 1,
						 "g", groups, &none, NULL),
					 0);
			continue;
		}
		for (j = 0; j < sizeof(users) / sizeof(users[0]); j++) {
			struct hj_mapping m;
			const char *path;
			int r;

			r = hj_conf_match(conf, users[j], j * 500, 100,
					  j % 2 ? users[j] : "g", groups, &m,
					  NULL);
			same_as_parse_match(text, len, users[j], j * 500,
					    j % 2 ? users[j] : "g", groups, r,
					    &m, NULL);
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
		hj_conf_free(conf);
	}
}
END_TEST

/* ---- files: the checks of hj_conf_load() ---- */

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

static int load(const char *path, struct hj_conf_error *err)
{
	struct hj_conf *conf;
	int r = hj_conf_load(path, &conf, err);

	if (!r)
		hj_conf_free(conf);
	else
		ck_assert_ptr_null(conf);
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

START_TEST(test_load_fd)
{
	struct hj_conf_error err = { .msg = "" };
	struct hj_conf *conf;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "%s/fd.conf", tmpdir);
	write_file(path, "a -\nb -\n", 0644);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hj_conf_load_fd(fd, "fd.conf", &conf, &err), 0);
	ck_assert_uint_eq(hj_conf_rule_count(conf), 2);
	hj_conf_free(conf);
	close(fd);
}
END_TEST

/*
 * hj_conf_load_match() reads a file in chunks: lines across the chunk
 * boundaries, a last line without newline, a line of the maximal length
 * (with its CR) and the errors of an overlong line all come out as
 * hj_conf_load() + hj_conf_match() give them.
 */
static void load_match_same(const char *path, const char *user,
			    unsigned int want_line)
{
	struct hj_conf_error e1 = { .msg = "" }, e2 = { .msg = "" };
	struct hj_mapping m1, m2;
	struct hj_conf *conf;
	int r1, r2;

	r1 = hj_conf_load(path, &conf, &e1);
	if (!r1) {
		r1 = hj_conf_match(conf, user, 1000, 100, "g", no_groups, &m1,
				   &e1);
		hj_conf_free(conf);
	} else {
		memset(&m1, 0, sizeof(m1));
	}
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
	load_match_same(path, "last", n + 1);
	load_match_same(path, "u29999", n - 1);
	load_match_same(path, "u1", 1);
	load_match_same(path, "nobody", 0);

	/* a line far too long: refused at its line */
	len = cstart;
	text[len++] = '#';
	memset(text + len, 'c', HJ_CONF_LINE_MAX + 100000);
	len += HJ_CONF_LINE_MAX + 100000;
	len += sprintf(text + len, "\nlast ctr/last");
	write_file(path, text, 0644);
	load_match_same(path, "last", n);
	/* a NUL byte 100 KiB into it: the NUL is what is reported */
	text[cstart + HJ_CONF_LINE_MAX + 90000] = '\0';
	{
		int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
		close(fd);
	}
	load_match_same(path, "last", n);
	{
		struct hj_conf_error err = { .msg = "" };
		struct hj_mapping m;

		hj_conf_load_match(path, "last", 1, 1, "g", no_groups, &m,
				   &err);
		ck_assert_msg(strstr(err.msg, "NUL byte"), "%s", err.msg);
	}
	load_match_same(path, "last", n);
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
	tcase_add_test(tc, test_simple_lines);
	tcase_add_test(tc, test_many_rules);
	tcase_add_loop_test(tc, test_shipped_example, 0,
			    sizeof(shipped) / sizeof(shipped[0]));
	tcase_add_test(tc, test_runtime_examples);
	tcase_add_test(tc, test_mutations);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tf, setup_dir, teardown_dir);
	/* root-owned files */
	tap_add_if(s, tf, "files", root, "needs root", test_load_ok,
		   test_load_insecure, test_load_too_large, test_load_fd,
		   test_load_match_chunks, test_resolve_user);

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
