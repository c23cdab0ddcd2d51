/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hijack-shell internals shared by its source files. */
#ifndef HIJACK_SHELL_H
#define HIJACK_SHELL_H

#include <stdbool.h>
#include <sys/types.h>

#define SHELL_PATH_MAX 4096

struct shell_account {
	char home[SHELL_PATH_MAX];
	char shell[SHELL_PATH_MAX];
};

/* account.c: run unprivileged only */
int shell_account(const char *user, const char *passwd_path,
		  struct shell_account *acct);
int parse_passwd_line(const char *line, size_t len, const char *user,
		      struct shell_account *acct);

/* environ.c */
bool env_value_ok(const char *name, const char *value);
char **shell_environ(const char *user, uid_t uid, const char *home,
		     const char *shell, const char *container, bool own_pty);

/* hijack-shell.c */
int drop_caps(void);

/* args.c: the command line as sshd and login(1) give it */
enum shell_action {
	SHELL_SESSION, /* interactive shell, or @command with -c */
	SHELL_CHECK, /* --check [USER] */
	SHELL_HELP,
	SHELL_VERSION,
	SHELL_WAIT, /* --wait-for-child PID FD: the re-executed parent */
	SHELL_USAGE, /* anything else: refused */
};

struct shell_args {
	enum shell_action action;
	bool login; /* argv[0] starts with '-' */
	const char *command; /* -c COMMAND, or NULL */
	const char *user; /* --check USER, or NULL */
	pid_t wait_pid; /* SHELL_WAIT: the child, > 0 */
	int wait_fd; /* SHELL_WAIT: the pty master > 2, or -1 */
};

/* argv[1] of the waiting parent after it re-executes itself */
#define SHELL_WAIT_ARG "--wait-for-child"

void shell_parse_args(int argc, char **argv, struct shell_args *a);

/* check.c */
int shell_check(const char *user, bool priv);

#endif /* HIJACK_SHELL_H */
