// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack check for a recorded user: tlog-rec-session as the login shell, which
 * must run hijack-shell (its "shell" setting), else the session it
 * records is a host shell.  tlog tells its merged configuration with
 * --configuration (JSON, json-c's escaping: "\/" for "/"); tlog-rec-session
 * reads "shell" from its files and from TLOG_REC_SESSION_SHELL, never
 * from its command line (tlog's rec_session_conf_schema.m4: "file-env").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hijack.h"
#include "recording.h"

/* tlog-rec-session --configuration answers at once */
#define RECORDING_CHECK_MS 10000

bool recording_is_tlog(const char *login_shell)
{
	const char *base = strrchr(login_shell, '/');

	return !strcmp(base ? base + 1 : login_shell, "tlog-rec-session");
}

/* the JSON string after "key": in buf, unescaped into out */
static int json_string(const char *buf, const char *key, char *out, size_t n)
{
	char pat[64];
	const char *p;
	size_t i = 0;

	snprintf(pat, sizeof(pat), "\"%s\":", key);
	p = strstr(buf, pat);
	if (!p)
		return -ENOENT;
	p += strlen(pat);
	while (*p == ' ')
		p++;
	if (*p++ != '"')
		return -EINVAL;
	for (; *p && *p != '"'; p++) {
		if (*p == '\\') {
			p++;
			if (*p != '/' && *p != '\\' && *p != '"')
				return -EINVAL;
		}
		if (i + 1 >= n)
			return -ENAMETOOLONG;
		out[i++] = *p;
	}
	if (*p != '"')
		return -EINVAL;
	out[i] = '\0';
	return 0;
}

/*
 * Asks the login shell as the user would start it (the user's ids, no
 * supplementary groups), so root's --check never runs it with more.
 */
int recording_tlog_shell(const char *login_shell, uid_t uid, gid_t gid,
			 char *out, size_t n)
{
	char *argv[] = { (char *)login_shell, (char *)"--configuration", NULL };
	char *envp[] = { (char *)"LANG=C.UTF-8", NULL };
	char buf[16384];
	size_t len = 0;
	int pfd[2], status, r;
	struct stat st;
	pid_t pid;

	/* run it only if nobody but root and its owner could have changed it */
	if (stat(login_shell, &st))
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_mode & (S_IWGRP | S_IWOTH))
		return -EPERM;
	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return r;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(pfd[1], 1) < 0 ||
		    dup2(null, 2) < 0)
			_exit(127);
		if ((getuid() == 0 && setgroups(0, NULL)) ||
		    setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
			_exit(127);
		execve(login_shell, argv, envp);
		_exit(127);
	}
	close(pfd[1]);
	/* it runs as the user, who may stop it: a deadline */
	r = hj_child_output(pid, pfd[0], buf, sizeof(buf), RECORDING_CHECK_MS,
			    &len, &status);
	close(pfd[0]);
	if (r)
		return r;
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return -ENOEXEC;
	return json_string(buf, "shell", out, n);
}
