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
		     const char *shell, const char *container, bool own_pty,
		     const char *agent);

/* caps.c */
bool privileged(void);

/* tty.c */
/* why a session's pty is not the container's own (0: it is) */
enum tty_cause {
	TTY_OWN = 0,
	TTY_NO_PTS, /* no /dev/pts directory (or a symlink) */
	TTY_NOT_DEVPTS, /* /dev/pts is not a devpts: tmpfs, FUSE, ... */
	TTY_NO_PTMX, /* its ptmx cannot be opened (pty max reached, ...) */
	TTY_NOT_PTY, /* what it opened is not a pty master */
};
/* how long the host side waits for the child's pty */
#define TTY_ANSWER_MS 10000
unsigned int tty_mask(void);
void tty_copy_settings(int slave);
int tty_open_pty(int *master, int *slave);
const char *tty_cause_name(int cause);
int tty_container_pty(int *master, int *peer);
int tty_send(int sock, int code, int fd);
int tty_recv(int sock, int *code, int *fd, pid_t child, int timeout_ms);
int tty_attach_child(int slave, unsigned int mask);
void tty_block_signals(sigset_t *old);
void __attribute__((noreturn)) tty_wait_session(pid_t pid, int master);

/*
 * relay.c: the session's waiting parent, in hijack-shell or in the small
 * waiter (wait.c), which hijack-shell execs from HJ_WAITER_PATH
 */
#define SHELL_PROG "hijack-shell"
void __attribute__((noreturn)) shell_waiter(pid_t pid, int master);
/* hijack-shell --agent-relay NAME (relay.c), as agent_relay_start() runs it */
void __attribute__((noreturn)) shell_agent_relay(const char *name);

/* args.c: the command line as sshd and login(1) give it */
enum shell_action {
	SHELL_SESSION, /* interactive shell, or @command with -c */
	SHELL_CHECK, /* --check [USER] */
	SHELL_HELP,
	SHELL_VERSION,
	SHELL_WAIT, /* --wait-for-child PID FD: the re-executed parent */
	SHELL_AGENT, /* --agent-relay NAME: the agent's relay, fds 3 and 4 */
	SHELL_USAGE, /* anything else: refused */
};

struct shell_args {
	enum shell_action action;
	bool login; /* argv[0] starts with '-' */
	const char *command; /* -c COMMAND, or NULL */
	const char *user; /* --check USER, or NULL */
	pid_t wait_pid; /* SHELL_WAIT: the child, > 0 */
	int wait_fd; /* SHELL_WAIT: the pty master > 2, or -1 */
	const char *agent; /* SHELL_AGENT: the name of sshd's socket */
};

void shell_parse_args(int argc, char **argv, struct shell_args *a);

/* check.c */
int shell_check(const char *user, bool priv);

/* probe.c: what file transfer needs, looked at inside as the session */
struct shell_probe {
	int sftp; /* 0: the program is there and executable, else -errno */
	bool passwd; /* the session's uid is in the container's /etc/passwd */
	bool rsync, scp; /* in the session's PATH */
};
bool shell_sftp_program(const char *command, char *out, size_t size);
bool shell_is_sftp(const char *command, char *program, size_t size);
struct hj_target;
void __attribute__((noreturn)) shell_sftp_refuse(const char *msg);
/*
 * Who the look runs as, decided as the session's: @owner nonzero enters
 * the user's own user namespace without privilege (HJ_SPAWN_AS_OWNER);
 * @uid and @gid are the ids inside; @groups: set the container's groups.
 */
struct shell_ids {
	uid_t owner;
	uid_t uid;
	gid_t gid;
	bool groups;
};
int shell_probe(struct hj_target *t, const char *user,
		const struct shell_ids *ids, const char *sftp,
		struct shell_probe *p);

#endif /* HIJACK_SHELL_H */
