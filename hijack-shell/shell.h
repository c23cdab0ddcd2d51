/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hijack-shell internals shared by its source files. */
#ifndef HIJACK_SHELL_H
#define HIJACK_SHELL_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#define SHELL_PATH_MAX 4096

/* more supplementary groups than this inside a container: refused */
#define SHELL_GROUPS_MAX 1024

struct shell_account {
	char home[SHELL_PATH_MAX];
	char shell[SHELL_PATH_MAX];
	size_t ngroups; /* the primary group first */
	gid_t groups[SHELL_GROUPS_MAX];
};

/* account.c: the parsers and readers run unprivileged only */
int shell_account(const char *user, const char *passwd_path,
		  struct shell_account *acct);
int shell_groups(const char *user, gid_t gid, const char *group_path,
		 struct shell_account *acct);
int parse_passwd_line(const char *line, size_t len, const char *user,
		      struct shell_account *acct);
int parse_group_line(const char *line, size_t len, const char *user,
		     gid_t *gid);
int shell_account_unprivileged(const char *user, gid_t gid,
			       struct shell_account *acct);

/* environ.c */
bool env_value_ok(const char *name, const char *value);
char **shell_environ(const char *user, uid_t uid, const char *home,
		     const char *shell, const char *container, bool own_pty);

/* caps.c */
void close_fds_above_2(void);
bool privileged(void);
int drop_caps(void);

/* tty.c */
unsigned int tty_mask(void);
int tty_open_pty(int *master, int *slave);
int tty_attach_child(int slave, unsigned int mask);
void tty_block_signals(sigset_t *old);
void __attribute__((noreturn)) tty_wait_session(pid_t pid, int master);

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

/* recording.c: tlog-rec-session as the login shell */
bool recording_is_tlog(const char *login_shell);
int recording_tlog_shell(const char *login_shell, uid_t uid, gid_t gid,
			 char *out, size_t n);

#endif /* HIJACK_SHELL_H */
