// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: what hijack-shell reads from the container and the
 * session, the container's /etc/passwd and /etc/group (parse_passwd_line
 * and parse_group_line, line by line as shell_account() and
 * shell_groups() do) and the variables it passes on
 * (env_value_ok).  A home or shell taken from the file must be an
 * absolute path without control characters.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

#define CHECK(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static const char *const users[] = { "alice", "root", "", "a:b", "x" };
static const char *const names[] = { "TERM",	   "LANG",
				     "LC_ALL",	   "SSH_CONNECTION",
				     "SSH_CLIENT", "SSH_TTY",
				     "LD_PRELOAD", "HIJACK_CONTAINER" };

static void check_path(const char *p, const char *dflt)
{
	size_t i, len;

	CHECK(memchr(p, '\0', SHELL_PATH_MAX));
	if (!strcmp(p, dflt))
		return;
	len = strlen(p);
	CHECK(len > 0 && p[0] == '/');
	for (i = 0; i < len; i++)
		CHECK((unsigned char)p[i] >= 0x20 && p[i] != 0x7f);
}

static void passwd(const char *buf, size_t len, const char *user)
{
	static struct shell_account acct;
	const char *p = buf, *end = buf + len;

	strcpy(acct.home, "/");
	strcpy(acct.shell, "/bin/sh");
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);

		if (!eol)
			eol = end;
		if (parse_passwd_line(p, eol - p, user, &acct) == 0)
			break;
		p = eol + 1;
	}
	check_path(acct.home, "/");
	check_path(acct.shell, "/bin/sh");
}

/* the container's /etc/group, line by line as shell_groups() reads it */
static void group(const char *buf, size_t len, const char *user)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		gid_t gid = 12345;
		int r;

		if (!eol)
			eol = end;
		r = parse_group_line(p, eol - p, user, &gid);
		CHECK(r == 1 || r == 0 || r == -EINVAL);
		/* a member: the gid is never (gid_t)-1, and the name is there */
		if (r == 1) {
			CHECK(gid != (gid_t)-1);
			CHECK(*user && memmem(p, eol - p, user, strlen(user)));
		}
		p = eol + 1;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;
	char value[512];
	size_t i, l;

	for (i = 0; i < sizeof(users) / sizeof(users[0]); i++) {
		passwd(buf, size, users[i]);
		group(buf, size, users[i]);
	}

	/* the input as one value of each variable */
	l = size < sizeof(value) - 1 ? size : sizeof(value) - 1;
	memcpy(value, buf, l);
	value[l] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!env_value_ok(names[i], value))
			continue;
		CHECK(value[0] && !strpbrk(value, "\n\r\t=;$`\\\"'"));
		CHECK(strncmp(names[i], "LD_", 3) &&
		      strcmp(names[i], "HIJACK_CONTAINER"));
	}
	return 0;
}
