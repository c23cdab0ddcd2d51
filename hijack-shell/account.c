// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The user's home and shell inside the container, from the container's
 * own /etc/passwd.  This runs after every privilege is dropped, inside the
 * container's root: the file is the container's and is parsed as untrusted
 * text, never through NSS (CVE-2019-14271 loaded a container's NSS module
 * into a privileged process).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shell.h"

#define PASSWD_MAX (4 * 1024 * 1024)

static bool path_ok(const char *p, size_t len)
{
	size_t i;

	if (len == 0 || len >= SHELL_PATH_MAX || p[0] != '/')
		return false;
	for (i = 0; i < len; i++)
		if ((unsigned char)p[i] < 0x20 || p[i] == 0x7f)
			return false;
	return true;
}

/* name:passwd:uid:gid:gecos:home:shell */
int parse_passwd_line(const char *line, size_t len, const char *user,
		      struct shell_account *acct)
{
	const char *f[7], *end = line + len, *p = line;
	size_t fl[7];
	int n = 0;

	while (n < 7) {
		const char *c = memchr(p, ':', end - p);

		if (n == 6)
			c = end;
		if (!c)
			return -EINVAL;
		f[n] = p;
		fl[n] = c - p;
		n++;
		p = c + 1;
	}
	if (fl[0] != strlen(user) || memcmp(f[0], user, fl[0]))
		return -ENOENT;
	if (path_ok(f[5], fl[5])) {
		memcpy(acct->home, f[5], fl[5]);
		acct->home[fl[5]] = '\0';
	}
	if (path_ok(f[6], fl[6])) {
		memcpy(acct->shell, f[6], fl[6]);
		acct->shell[fl[6]] = '\0';
	}
	return 0;
}

int shell_account(const char *user, const char *passwd_path,
		  struct shell_account *acct)
{
	char *buf, *p, *end;
	ssize_t r;
	size_t len = 0;
	int fd;

	strcpy(acct->home, "/");
	strcpy(acct->shell, "/bin/sh");
	if (!passwd_path) {
		/* on the host: the host's home; never ourselves as shell */
		struct passwd *pw = getpwnam(user);

		if (pw && pw->pw_dir && path_ok(pw->pw_dir, strlen(pw->pw_dir)))
			snprintf(acct->home, sizeof(acct->home), "%s",
				 pw->pw_dir);
		return 0;
	}
	fd = open(passwd_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY |
				       O_NONBLOCK);
	if (fd < 0)
		return 0; /* no passwd inside: the defaults */
	buf = malloc(PASSWD_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < PASSWD_MAX &&
	       (r = read(fd, buf + len, PASSWD_MAX - len)) > 0)
		len += r;
	close(fd);
	end = buf + len;
	for (p = buf; p < end;) {
		char *eol = memchr(p, '\n', end - p);

		if (!eol)
			eol = end;
		if (parse_passwd_line(p, eol - p, user, acct) == 0)
			break;
		p = eol + 1;
	}
	free(buf);
	return 0;
}
