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
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hijack.h"
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

/* A whole text file of the container, bounded; NULL when absent. */
static int read_text(const char *path, char **out, size_t *outlen)
{
	struct stat st;
	size_t len = 0;
	ssize_t r;
	char *buf;
	int fd;

	*out = NULL;
	*outlen = 0;
	fd = open(path,
		  O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return 0; /* none inside: the defaults */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	buf = malloc(PASSWD_MAX + 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (len < PASSWD_MAX &&
	       (r = read(fd, buf + len, PASSWD_MAX - len)) > 0)
		len += r;
	close(fd);
	*out = buf;
	*outlen = len;
	return 0;
}

int shell_account(const char *user, const char *passwd_path,
		  struct shell_account *acct)
{
	char *buf, *p, *end;
	size_t len;
	int r;

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
	r = read_text(passwd_path, &buf, &len);
	if (r || !buf)
		return r;
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

/*
 * name:passwd:gid:member,member: 1 with *gid set when @user is a member,
 * 0 when not, -EINVAL for a line that is no group entry.
 */
int parse_group_line(const char *line, size_t len, const char *user, gid_t *gid)
{
	const char *end = line + len, *p = line, *f[4];
	size_t fl[4], ul = strlen(user);
	unsigned long long v = 0;
	int n;

	for (n = 0; n < 4; n++) {
		const char *c = n == 3 ? end : memchr(p, ':', end - p);

		if (!c)
			return -EINVAL;
		f[n] = p;
		fl[n] = c - p;
		p = c + 1;
	}
	if (fl[2] == 0 || fl[2] > 10)
		return -EINVAL;
	for (p = f[2]; p < f[2] + fl[2]; p++) {
		if (*p < '0' || *p > '9')
			return -EINVAL;
		v = v * 10 + (*p - '0');
	}
	/* (gid_t)-1 means "unchanged" to setgroups' neighbours */
	if (v >= 0xffffffffULL)
		return -EINVAL;
	for (p = f[3]; p < f[3] + fl[3];) {
		const char *c = memchr(p, ',', f[3] + fl[3] - p);
		size_t ml;

		if (!c)
			c = f[3] + fl[3];
		ml = c - p;
		if (ul && ml == ul && !memcmp(p, user, ul)) {
			*gid = (gid_t)v;
			return 1;
		}
		p = c + 1;
	}
	return 0;
}

/*
 * The groups initgroups(@user, @gid) would give inside: @gid first, then
 * every group of the container's /etc/group that lists @user.  -E2BIG
 * past SHELL_GROUPS_MAX.
 */
int shell_groups(const char *user, gid_t gid, const char *group_path,
		 struct shell_account *acct)
{
	char *buf, *p, *end;
	size_t len, i;
	int r = 0;

	acct->ngroups = 1;
	acct->groups[0] = gid;
	r = read_text(group_path, &buf, &len);
	if (r || !buf)
		return r;
	end = buf + len;
	for (p = buf; p < end && !r;) {
		char *eol = memchr(p, '\n', end - p);
		gid_t g;

		if (!eol)
			eol = end;
		if (parse_group_line(p, eol - p, user, &g) == 1) {
			for (i = 0; i < acct->ngroups; i++)
				if (acct->groups[i] == g)
					break;
			if (i == acct->ngroups && i == SHELL_GROUPS_MAX)
				r = -E2BIG;
			else if (i == acct->ngroups)
				acct->groups[acct->ngroups++] = g;
		}
		p = eol + 1;
	}
	free(buf);
	return r;
}

struct account_report {
	int err;
	struct shell_account acct;
};

/*
 * The account inside the container (we are in its mount namespace and
 * root), read by a child of ours that has dropped every capability and
 * set no_new_privs first: the container's files are parsed by a process
 * with exactly the user's rights, and only the fixed-size result comes
 * back to the caller, which may still hold privileges.
 */
int shell_account_unprivileged(const char *user, gid_t gid,
			       struct shell_account *acct)
{
	struct account_report *rep;
	int p[2], r;
	pid_t pid;

	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC)) {
		free(rep);
		return -errno;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		goto out;
	}
	if (pid == 0) {
		/*
		 * Nothing of the session's (its stdio above all) may stay
		 * open in a child that a stuck read can keep alive.
		 */
		hj_close_from(0, p[1]);
		rep->err = hj_drop_caps();
		if (!rep->err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			rep->err = -errno;
		if (!rep->err)
			rep->err =
				shell_account(user, "/etc/passwd", &rep->acct);
		if (!rep->err)
			rep->err = shell_groups(user, gid, "/etc/group",
						&rep->acct);
		_exit(write(p[1], rep, sizeof(*rep)) == sizeof(*rep) ? 0 : 1);
	}
	close(p[1]);
	p[1] = -1;
	/* a FIFO or a stuck FUSE file at the container's /etc/passwd */
	r = hj_child_report(pid, p[0], rep, sizeof(*rep), HJ_CHILD_REPORT_MS);
	if (!r)
		r = rep->err;
	/* what came back is checked as if the container had written it */
	if (!r &&
	    (rep->acct.ngroups < 1 || rep->acct.ngroups > SHELL_GROUPS_MAX ||
	     rep->acct.groups[0] != gid ||
	     !memchr(rep->acct.home, '\0', SHELL_PATH_MAX) ||
	     !memchr(rep->acct.shell, '\0', SHELL_PATH_MAX) ||
	     rep->acct.home[0] != '/' || rep->acct.shell[0] != '/'))
		r = -EPROTO;
	if (!r)
		*acct = rep->acct;
out:
	close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
	free(rep);
	return r;
}
