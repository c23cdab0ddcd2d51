// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A fresh environment for the session inside the container.  Nothing of
 * the caller's environment is kept but a few values sshd sets, each
 * checked against what it may look like (libvirt's virt-login-shell,
 * CVE-2013-4400, trusted the caller's environment).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shell.h"

#define ENV_MAX 16

/* Values passed through from the session, and the characters allowed. */
static const struct {
	const char *name;
	const char *charset;
	size_t max;
} passed[] = {
	{ "TERM", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_", 64 },
	{ "LANG", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-", 64 },
	{ "LC_ALL", "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@-", 64 },
	{ "SSH_CONNECTION", "0123456789abcdefABCDEF.:% ", 128 },
	{ "SSH_CLIENT", "0123456789abcdefABCDEF.:% ", 128 },
	{ "SSH_TTY", "abcdefghijklmnopqrstuvwxyz0123456789/", 64 },
};

bool env_value_ok(const char *name, const char *value)
{
	size_t i, len = strlen(value);

	for (i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		if (strcmp(passed[i].name, name))
			continue;
		return len > 0 && len <= passed[i].max &&
		       strspn(value, passed[i].charset) == len;
	}
	return false;
}

static int add(char **env, size_t *n, const char *name, const char *value)
{
	size_t len = strlen(name) + strlen(value) + 2;
	char *s;

	if (*n + 1 >= ENV_MAX)
		return -1;
	s = malloc(len);
	if (!s)
		return -1;
	snprintf(s, len, "%s=%s", name, value);
	env[(*n)++] = s;
	env[*n] = NULL;
	return 0;
}

char **shell_environ(const char *user, uid_t uid, const char *home,
		     const char *shell, const char *container, bool own_pty,
		     const char *agent)
{
	char **env = calloc(ENV_MAX, sizeof(*env));
	size_t n = 0, i;

	if (!env)
		return NULL;
	for (i = 0; i < sizeof(passed) / sizeof(passed[0]); i++) {
		const char *v = getenv(passed[i].name);

		/* the host's tty name means nothing inside our own pty */
		if (own_pty && !strcmp(passed[i].name, "SSH_TTY"))
			continue;
		if (v && env_value_ok(passed[i].name, v) &&
		    add(env, &n, passed[i].name, v))
			goto fail;
	}
	if (add(env, &n, "HOME", home) || add(env, &n, "USER", user) ||
	    add(env, &n, "LOGNAME", user) || add(env, &n, "SHELL", shell) ||
	    add(env, &n, "PATH",
		uid == 0 ? "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" :
			   "/usr/local/bin:/usr/bin:/bin") ||
	    (container && add(env, &n, "HIJACK_CONTAINER", container)) ||
	    (agent && add(env, &n, "SSH_AUTH_SOCK", agent)))
		goto fail;
	return env;
fail:
	for (i = 0; i < n; i++)
		free(env[i]);
	free(env);
	return NULL;
}
