// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Unit tests of hijack/sshdconf.c: sshd_config lines split as sshd
 * splits them, Match criteria for a user, and the scan of Match blocks
 * across Include'd text.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sshdconf.h"

static const char *const groups[] = { "alice", "sftponly", "staff" };
static const struct sshdconf_user alice = { "alice", groups, 3 };

/* the words of LINE joined by '|', or "ERR" */
static const char *split(const char *line)
{
	static char out[1024];
	char *copy = strdup(line), *w[SSHDCONF_MAX_WORDS];
	size_t len = 0;
	int n, i;

	ck_assert_ptr_nonnull(copy);
	n = sshdconf_split(copy, w, SSHDCONF_MAX_WORDS);
	out[0] = '\0';
	if (n < 0)
		snprintf(out, sizeof(out), "ERR");
	for (i = 0; i < n; i++)
		len += snprintf(out + len, sizeof(out) - len, "%s%s",
				i ? "|" : "", w[i]);
	free(copy);
	return out;
}

START_TEST(split_like_sshd)
{
	ck_assert_str_eq(split("AllowTcpForwarding yes"),
			 "AllowTcpForwarding|yes");
	ck_assert_str_eq(split("  x11forwarding=YES  "), "x11forwarding|YES");
	ck_assert_str_eq(split("Key = value"), "Key|value");
	ck_assert_str_eq(split("Key\t=\tvalue"), "Key|value");
	ck_assert_str_eq(split("Subsystem sftp \"/usr/lib/a b\" -l INFO"),
			 "Subsystem|sftp|/usr/lib/a b|-l|INFO");
	ck_assert_str_eq(split("ForceCommand 'internal-sftp'  # sftp only"),
			 "ForceCommand|internal-sftp");
	ck_assert_str_eq(split("ChrootDirectory /srv/a\\ b"),
			 "ChrootDirectory|/srv/a b");
	ck_assert_str_eq(split("Match Address a#b"), "Match|Address|a#b");
	ck_assert_str_eq(split("# AllowTcpForwarding yes"), "");
	ck_assert_str_eq(split("   "), "");
	ck_assert_str_eq(split("Banner \"unterminated"), "ERR");
}
END_TEST

START_TEST(pattern_lists)
{
	ck_assert_int_eq(sshdconf_pattern_list("alice", "alice"), 1);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "bob,al*"), 1);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "al?ce"), 1);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "*,!alice"), -1);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "!bob"), 0);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "Alice"), 0);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "a*e*"), 1);
	ck_assert_int_eq(sshdconf_pattern_list("alice", "*b*"), 0);
	ck_assert_int_eq(sshdconf_pattern_list("alice", ""), 0);
	ck_assert_int_eq(sshdconf_pattern_list("a*", "a\\*"), 0);
}
END_TEST

static enum sshdconf_applies applies(const char *criteria)
{
	char line[1024], *w[SSHDCONF_MAX_WORDS];
	int n;

	snprintf(line, sizeof(line), "Match %s", criteria);
	n = sshdconf_split(line, w, SSHDCONF_MAX_WORDS);
	ck_assert_int_ge(n, 1);
	return sshdconf_match_applies(w + 1, n - 1, &alice);
}

START_TEST(match_criteria)
{
	ck_assert_int_eq(applies("User alice"), SSHDCONF_ALWAYS);
	ck_assert_int_eq(applies("user=al*"), SSHDCONF_ALWAYS);
	ck_assert_int_eq(applies("User = alice Group staff"), SSHDCONF_ALWAYS);
	ck_assert_int_eq(applies("all"), SSHDCONF_ALWAYS);
	ck_assert_int_eq(applies("All # everyone"), SSHDCONF_ALWAYS);
	ck_assert_int_eq(applies("User bob"), SSHDCONF_NEVER);
	ck_assert_int_eq(applies("User *,!alice Address 10.0.0.0/8"),
			 SSHDCONF_NEVER);
	ck_assert_int_eq(applies("Group wheel"), SSHDCONF_NEVER);
	ck_assert_int_eq(applies("Group *,!staff"), SSHDCONF_NEVER);
	ck_assert_int_eq(applies("Group sftponly"), SSHDCONF_ALWAYS);
	ck_assert_int_eq(applies("Address 10.0.0.0/8"), SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("User alice Host *.example.com"),
			 SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("LocalAddress 10.1.2.3"), SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("LocalPort 2222"), SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("RDomain *"), SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("Address 10.0.0.0/8 User bob"),
			 SSHDCONF_NEVER);
	/* what sshd refuses counts as applying */
	ck_assert_int_eq(applies("User"), SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("Bogus x"), SSHDCONF_MAYBE);
	ck_assert_int_eq(applies("User alice all"), SSHDCONF_MAYBE);
}
END_TEST

/* the findings of a scan, one "file:line keyword value" per line */
static char found[4096];
static const char *incl_text;

static void record(struct sshdconf_scan *sc, const struct sshdconf_finding *f)
{
	size_t len = strlen(found);

	(void)sc;
	snprintf(found + len, sizeof(found) - len, "%s:%u [%s] %s %s\n",
		 f->file, f->line, f->match, f->keyword, f->value);
}

static void fake_include(struct sshdconf_scan *sc, const char *file,
			 unsigned int line, const char *pattern)
{
	(void)file;
	(void)line;
	ck_assert_str_eq(pattern, "/etc/ssh/sshd_config.d/*.conf");
	sshdconf_scan_text(sc, "inc", incl_text, strlen(incl_text));
}

static const char *scan(const char *text, const char *incl)
{
	struct sshdconf_scan sc;

	sshdconf_scan_init(&sc, &alice);
	sc.report = record;
	sc.include = fake_include;
	incl_text = incl ? incl : "";
	found[0] = '\0';
	sshdconf_scan_text(&sc, "main", text, strlen(text));
	return found;
}

START_TEST(scan_blocks)
{
	/* the global section is sshd -T's business */
	ck_assert_str_eq(scan("AllowTcpForwarding yes\n", NULL), "");
	ck_assert_str_eq(
		scan("Match Address 10.0.0.0/8\n"
		     "  AllowTcpForwarding yes\n"
		     "  AllowTcpForwarding no\n",
		     NULL),
		"main:2 [Address 10.0.0.0/8] AllowTcpForwarding yes\n");
	ck_assert_str_eq(scan("Match User bob\n"
			      "X11Forwarding yes\n"
			      "Match Group staff Host x\n"
			      "x11forwarding no\n"
			      "PermitTunnel=ethernet\n"
			      "ForceCommand none\n"
			      "ChrootDirectory %h\n"
			      "Subsystem s internal-sftp\n",
			      NULL),
			 "main:5 [Group staff Host x] PermitTunnel ethernet\n"
			 "main:7 [Group staff Host x] ChrootDirectory %h\n"
			 "main:8 [Group staff Host x] Subsystem s "
			 "internal-sftp\n");
	/* a block that always applies settles the keyword */
	ck_assert_str_eq(scan("Match User alice\n"
			      "PermitTunnel no\n"
			      "Match all\n"
			      "PermitTunnel yes\n"
			      "X11Forwarding yes\n",
			      NULL),
			 "main:5 [all] X11Forwarding yes\n");
	/* ... a block that may apply does not */
	ck_assert_str_eq(scan("Match Address 1.2.3.4\n"
			      "PermitTunnel no\n"
			      "Match all\n"
			      "PermitTunnel yes\n",
			      NULL),
			 "main:4 [all] PermitTunnel yes\n");
}
END_TEST

START_TEST(scan_includes)
{
	/* an Include'd file's block ends with it */
	ck_assert_str_eq(scan("Include sshd_config.d/*.conf\n"
			      "X11Forwarding yes\n",
			      "Match all\nPermitTunnel yes\n"),
			 "inc:2 [all] PermitTunnel yes\n");
	/* its first lines are in the including block */
	ck_assert_str_eq(scan("Match LocalPort 22\n"
			      "Include /etc/ssh/sshd_config.d/*.conf\n"
			      "X11Forwarding yes\n",
			      "PermitTunnel yes\nMatch User bob\n"
			      "AllowTcpForwarding yes\n"),
			 "inc:1 [LocalPort 22] PermitTunnel yes\n"
			 "main:3 [LocalPort 22] X11Forwarding yes\n");
	/* an Include in a block that cannot apply is never read */
	ck_assert_str_eq(scan("Match User bob\n"
			      "Include /nonexistent/*\n",
			      "Match all\nPermitTunnel yes\n"),
			 "");
}
END_TEST

int main(void)
{
	Suite *s = suite_create("sshdconf");
	TCase *tc = tcase_create("sshdconf");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, split_like_sshd);
	tcase_add_test(tc, pattern_lists);
	tcase_add_test(tc, match_criteria);
	tcase_add_test(tc, scan_blocks);
	tcase_add_test(tc, scan_includes);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_tap(sr, "/dev/stdout");
	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
