// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell(8) - a login shell that lands the user inside the
 * container hijack.conf maps them to.
 *
 * sshd runs it as "-hijack-shell" for an interactive login and as
 * "hijack-shell -c 'command'" for ssh host cmd, scp, rsync and an external
 * sftp-server.  It may carry file capabilities (see the man page); then,
 * in this order, it:
 *
 *   1. makes itself non-dumpable and closes every fd above 2;
 *   2. resolves the user (real uid, host passwd), the rule (hijack.conf,
 *      never the environment) and the target (cgroup -> pinned task);
 *   3. writes its audit record, before any namespace is entered;
 *   4. starts the child inside through libhijack, with a fresh pty when
 *      the session has a terminal, so nothing in the container can push
 *      input into a terminal outside (TIOCSTI);
 *   5. in the child: drops every capability, checks that they are gone,
 *      reads the container's /etc/passwd unprivileged, builds a fresh
 *      environment and execs the user's shell;
 *   6. in the parent: drops every capability, re-executes itself as a
 *      small waiter (nothing of the login's libraries, NSS modules and
 *      buffers stays mapped for the session), relays the terminal and
 *      signals, and exits with the child's status.
 *
 * A mapped user never lands on the host: every failure above exits
 * non-zero before anything runs.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "audit.h"
#include "conf.h"
#include "hijack.h"
#include "shell.h"

#define PROG "hijack-shell"

static pid_t child_pid;
static int sig_pipe[2] = { -1, -1 };

/* Who logs in: from the real uid and the host's passwd, nothing else. */
struct user {
	uid_t uid;
	gid_t gid;
	char name[HJ_CONF_NAME_MAX];
	struct passwd pw;
};

static void __attribute__((noreturn)) usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fputs("Usage:\n"
	      " -hijack-shell                 (as a login shell)\n"
	      " hijack-shell [-c <command>]\n"
	      " hijack-shell --check [<user>]\n"
	      "\n"
	      "Run the user's shell or command inside the container that\n"
	      SCONFDIR "/hijack.conf maps them to.\n",
	      out);
	exit(status);
}

static void close_fds_above_2(void)
{
	if (syscall(SYS_close_range, 3, ~0U, 0) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++)
		close(fd);
}

static bool privileged(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &h, d))
		return true; /* cannot tell: behave as if privileged */
	return d[0].permitted || d[1].permitted || d[0].effective ||
	       d[1].effective;
}

/*
 * Drop every capability for good: no effective, permitted, inheritable or
 * ambient capability survives, and an exec of a non-setuid file as a
 * non-root uid cannot gain any back.  Checked, not assumed.
 */
int drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capset, &h, d))
		return -errno;
	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (d[0].effective || d[1].effective || d[0].permitted ||
	    d[1].permitted || d[0].inheritable || d[1].inheritable)
		return -EPERM;
	return 0;
}

static int lookup_user(struct user *u)
{
	struct passwd *pw;

	u->uid = getuid();
	errno = 0;
	pw = getpwuid(u->uid);
	if (!pw)
		return errno ? -errno : -ENOENT;
	if (strlen(pw->pw_name) >= sizeof(u->name))
		return -ENAMETOOLONG;
	strcpy(u->name, pw->pw_name);
	u->gid = pw->pw_gid;
	u->pw = *pw;
	u->pw.pw_name = u->name;
	u->pw.pw_passwd = (char *)"x";
	u->pw.pw_gecos = (char *)"";
	u->pw.pw_dir = (char *)"/";
	u->pw.pw_shell = (char *)"";
	return 0;
}

static void audit(bool priv, const char *op, const struct hj_mapping *m,
		  const struct user *u, pid_t pid, const char *reason,
		  bool success)
{
	struct hj_audit_origin origin = { NULL, NULL, NULL };
	char addr[64];
	const char *conn = getenv("SSH_CONNECTION");
	int r;

	if (!priv)
		return; /* the kernel takes audit records from root only */
	if (conn && env_value_ok("SSH_CONNECTION", conn)) {
		size_t l = strcspn(conn, " ");

		if (l < sizeof(addr)) {
			memcpy(addr, conn, l);
			addr[l] = '\0';
			origin.addr = addr;
		}
	}
	r = hj_audit_entry_from(op, m, u->name, u->uid, pid, reason, success,
				&origin);
	if (r && !hj_audit_unsupported(r))
		warnx("cannot write audit record: %s", strerror(-r));
}

static void __attribute__((noreturn))
refuse(bool priv, const struct hj_mapping *m, const struct user *u,
       const char *reason, const char *fmt, ...)
{
	va_list ap;

	audit(priv, "deny", m, u, -1, reason, false);
	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(EXIT_FAILURE);
}

static void on_signal(int sig)
{
	int saved = errno;
	unsigned char s = sig;

	if (sig_pipe[1] >= 0)
		(void)!write(sig_pipe[1], &s, 1);
	else if (child_pid > 0 && sig != SIGCHLD && sig != SIGWINCH)
		kill(child_pid, sig);
	errno = saved;
}

static const int relayed[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGWINCH,
			       SIGCHLD };
#define NRELAYED (sizeof(relayed) / sizeof(relayed[0]))

static void set_handlers(void)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < NRELAYED; i++)
		sigaction(relayed[i], &sa, NULL);
}

static int wait_status(pid_t pid, int options)
{
	int status;
	pid_t r;

	while ((r = waitpid(pid, &status, options)) < 0 && errno == EINTR)
		;
	if (r <= 0)
		return -1;
	return status;
}

static int __attribute__((noreturn)) wait_plain(pid_t pid)
{
	int code, r = hj_wait_foreground(pid, &code);

	if (r) {
		errno = -r;
		err(EXIT_FAILURE, "waitpid failed");
	}
	exit(code);
}

static int copy_once(int from, int to)
{
	char buf[16384];
	ssize_t r = read(from, buf, sizeof(buf));
	ssize_t off = 0;

	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (r == 0)
		return -1;
	while (off < r) {
		ssize_t w = write(to, buf + off, r - off);

		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		off += w;
	}
	return 1;
}

/*
 * Relay between the session's terminal and the container's pty until
 * the child is gone; window size changes follow.
 */
static int __attribute__((noreturn)) relay_pty(pid_t pid, int master)
{
	struct termios saved, raw;
	bool have_tty = tcgetattr(STDIN_FILENO, &saved) == 0;
	bool in_open = true, master_open = true;
	int status = -1;

	if (have_tty) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(STDIN_FILENO, TCSADRAIN, &raw);
	}
	while (master_open || status < 0) {
		struct pollfd p[3] = {
			{ sig_pipe[0], POLLIN, 0 },
			{ master, master_open ? POLLIN : 0, 0 },
			{ STDIN_FILENO, in_open ? POLLIN : 0, 0 },
		};

		if (poll(p, 3, status < 0 ? -1 : 100) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[0].revents & POLLIN) {
			unsigned char s;

			while (read(sig_pipe[0], &s, 1) == 1) {
				struct winsize ws;

				if (s == SIGWINCH) {
					if (!ioctl(STDIN_FILENO, TIOCGWINSZ,
						   &ws))
						ioctl(master, TIOCSWINSZ, &ws);
				} else if (s != SIGCHLD) {
					kill(pid, s);
				}
			}
		}
		if (status < 0)
			status = wait_status(pid, WNOHANG);
		if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (copy_once(master, STDOUT_FILENO) < 0)
				master_open = false;
		} else if (status >= 0) {
			/* child gone and nothing more to read */
			master_open = false;
		}
		if (p[2].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (copy_once(STDIN_FILENO, master) < 0)
				in_open = false;
		}
	}
	if (have_tty)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
	if (status < 0)
		status = wait_status(pid, 0);
	exit(status < 0 ? EXIT_FAILURE : hj_exit_code(status));
}

/* A pty from the host's devpts; the slave becomes the child's terminal. */
static int open_pty(int *master, int *slave)
{
	struct termios t;
	struct winsize ws;
	char name[64];
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -errno;
	if (grantpt(m) || unlockpt(m) || ptsname_r(m, name, sizeof(name))) {
		close(m);
		return -errno;
	}
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	if (s < 0) {
		close(m);
		return -errno;
	}
	if (!tcgetattr(STDIN_FILENO, &t))
		tcsetattr(s, TCSANOW, &t);
	if (!ioctl(STDIN_FILENO, TIOCGWINSZ, &ws))
		ioctl(s, TIOCSWINSZ, &ws);
	*master = m;
	*slave = s;
	return 0;
}

/*
 * own_userns: an unprivileged hijack-shell entered a user namespace.  The
 * kernel let it only into one its own uid owns (a rootless container), so
 * being root in there is being the user on the host.
 */
static void __attribute__((noreturn))
child(const struct user *u, const struct hj_mapping *m, bool login,
      const char *command, int slave, bool host, bool own_userns)
{
	struct shell_account acct;
	char **env, *argv[4], arg0[SHELL_PATH_MAX + 1];
	const char *shell, *base;
	int r;

	if (slave >= 0) {
		if (setsid() < 0 || ioctl(slave, TIOCSCTTY, 0) ||
		    dup2(slave, 0) < 0 || dup2(slave, 1) < 0 ||
		    dup2(slave, 2) < 0)
			err(126, "cannot set up the terminal");
		if (slave > 2)
			close(slave);
	}
	/* nothing privileged from here on: the container is untrusted */
	r = drop_caps();
	if (r) {
		errno = -r;
		err(126, "cannot drop privileges");
	}
	if (geteuid() == 0 && u->uid != 0 && !host && !own_userns)
		errx(126, "still root after dropping privileges");
	r = shell_account(u->name, host ? NULL : "/etc/passwd", &acct);
	if (r)
		errx(126, "cannot read the account of %s: %s", u->name,
		     strerror(-r));
	shell = m->shell[0] ? m->shell : acct.shell;
	if (!m->cwd[0] && chdir(acct.home))
		(void)!chdir("/");
	env = shell_environ(u->name, u->uid, acct.home, shell,
			    m->name[0] ? m->name : NULL, slave >= 0);
	if (!env)
		errx(126, "cannot build the environment");
	base = strrchr(shell, '/');
	base = base ? base + 1 : shell;
	snprintf(arg0, sizeof(arg0), "%s%s", login ? "-" : "", base);
	argv[0] = arg0;
	if (command) {
		argv[1] = (char *)"-c";
		argv[2] = (char *)command;
		argv[3] = NULL;
	} else {
		argv[1] = NULL;
	}
	execve(shell, argv, env);
	err(errno == ENOENT ? 127 : 126, "failed to execute %s", shell);
}

/* The rule says "stay on the host" (or stopped=host): no entry at all. */
static void __attribute__((noreturn))
run_on_host(const struct user *u, const struct hj_mapping *m, bool login,
	    const char *command, bool priv)
{
	audit(priv, "host", m, u, -1, NULL, true);
	child(u, m, login, command, -1, true, false);
}

/*
 * The waiting parent sheds its memory for the session's lifetime: it
 * execs its own binary (the host's: it never entered anything) with no
 * new privileges, so the file capabilities are not granted again, an
 * empty environment, so nothing of the user's reaches the dynamic
 * linker, and the relayed signals still blocked, so none is lost.  Only
 * returns if that fails; then the waiting goes on here.
 */
static void exec_waiter(pid_t pid, int master)
{
	static char *const envp[] = { NULL };
	char pidstr[16], fdstr[16];
	char *argv[] = { (char *)PROG, (char *)SHELL_WAIT_ARG, pidstr, fdstr,
			 NULL };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(fdstr, sizeof(fdstr), "%d", master);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return;
	if (master >= 0 && fcntl(master, F_SETFD, 0))
		return;
	execve("/proc/self/exe", argv, envp);
	if (master >= 0)
		fcntl(master, F_SETFD, FD_CLOEXEC);
}

/*
 * hijack-shell --wait-for-child PID MASTER-FD, as exec_waiter() starts
 * it: only with no_new_privs set (so never with capabilities), it waits
 * for PID, relaying MASTER-FD (-1: none) and the signals.
 */
static int __attribute__((noreturn)) waiter(pid_t pid, int master)
{
	sigset_t block;
	size_t i;
	int r;

	prctl(PR_SET_NAME, PROG, 0, 0, 0);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		errx(2, "%s is internal", SHELL_WAIT_ARG);
	r = drop_caps();
	if (r)
		errx(EXIT_FAILURE, "cannot drop privileges: %s", strerror(-r));
	/* nothing else may stay open on the host */
	if (master < 0) {
		close_fds_above_2();
	} else {
		if (master > 3)
			syscall(SYS_close_range, 3, master - 1, 0);
		syscall(SYS_close_range, master + 1, ~0U, 0);
		fcntl(master, F_SETFD, FD_CLOEXEC);
	}
	child_pid = pid;
	if (master >= 0 && pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK)) {
		kill(pid, SIGHUP);
		err(EXIT_FAILURE, "pipe");
	}
	set_handlers();
	sigemptyset(&block);
	for (i = 0; i < NRELAYED; i++)
		sigaddset(&block, relayed[i]);
	sigprocmask(SIG_UNBLOCK, &block, NULL);
	if (master >= 0)
		relay_pty(pid, master);
	wait_plain(pid);
}

int main(int argc, char **argv)
{
	struct hj_conf_error cerr = { { 0 }, 0, { 0 } };
	struct hj_spawn_opts opts = { .clone_flags = SIGCHLD };
	struct shell_args args;
	struct hj_mapping m;
	struct hj_target t;
	struct user u;
	const char *command = NULL, *env;
	bool login, priv;
	int r, master = -1, slave = -1;
	sigset_t block, old;
	size_t i;
	pid_t pid;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	shell_parse_args(argc, argv, &args);
	if (args.action == SHELL_WAIT)
		waiter(args.wait_pid, args.wait_fd);
	close_fds_above_2();
	priv = privileged();
	switch (args.action) {
	case SHELL_SESSION:
		break;
	case SHELL_CHECK:
		return shell_check(args.user, priv);
	case SHELL_HELP:
		usage(EXIT_SUCCESS);
	case SHELL_VERSION:
		printf(PROG " %s\n", PACKAGE_VERSION);
		return EXIT_SUCCESS;
	case SHELL_WAIT: /* waiter() does not return */
	case SHELL_USAGE:
		usage(2);
	}
	login = args.login;
	command = args.command;

	memset(&m, 0, sizeof(m));
	r = lookup_user(&u);
	if (r)
		errx(EXIT_FAILURE, "cannot look up uid %u: %s",
		     (unsigned int)getuid(), strerror(-r));

	r = hj_conf_resolve_user(HJ_CONF_DEFAULT, &u.pw, &m, &cerr);
	if (r)
		refuse(priv, NULL, &u, "config", "%s",
		       cerr.msg[0] ? cerr.msg : strerror(-r));
	if (m.kind == HJ_MAP_NONE)
		refuse(priv, NULL, &u, "unmapped",
		       "no container is configured for user %s in %s", u.name,
		       HJ_CONF_DEFAULT);
	if (m.kind == HJ_MAP_HOST)
		run_on_host(&u, &m, login, command, priv);

	/* what pam_hijack exported is a consistency check, never a grant */
	env = getenv("HIJACK_CGROUP");
	if (env && strcmp(env, m.cgroup))
		warnx("ignoring HIJACK_CGROUP=%s: %s maps %s to %s", env,
		      HJ_CONF_DEFAULT, u.name, m.cgroup);

	r = hj_target_from_cgroup_spec(m.cgroup, &t);
	if (r == -ESRCH || r == -ENOENT) {
		if (m.on_stopped == HJ_STOPPED_HOST)
			run_on_host(&u, &m, login, command, priv);
		refuse(priv, &m, &u, "not-running",
		       "container %s is not running (cgroup %s)", m.name,
		       m.cgroup);
	}
	if (r)
		refuse(priv, &m, &u, "target",
		       "cannot enter container %s (cgroup %s): %s", m.name,
		       m.cgroup, strerror(-r));

	if (isatty(STDIN_FILENO)) {
		r = open_pty(&master, &slave);
		if (r)
			refuse(priv, &m, &u, "pty",
			       "cannot allocate a terminal: %s", strerror(-r));
	}
	if (pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK))
		err(EXIT_FAILURE, "pipe");

	sigemptyset(&block);
	for (i = 0; i < NRELAYED; i++)
		sigaddset(&block, relayed[i]);
	sigprocmask(SIG_BLOCK, &block, &old);

	/* recorded as root, before any user namespace is entered */
	audit(priv, "start", &m, &u, t.pid, "entry", true);
	opts.cwd = m.cwd[0] ? m.cwd : "/";
	pid = hj_spawn(&t, &opts, NULL);
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		close(sig_pipe[0]);
		close(sig_pipe[1]);
		if (master >= 0)
			close(master);
		child(&u, &m, login, command, slave, false,
		      !priv && (t.ns_differ & HJ_NS_USER));
	}
	/* the clone fails with EAGAIN too, at the cgroup's pids.max */
	if (pid == -EAGAIN && hj_target_check_access(&t) != -EAGAIN)
		refuse(priv, &m, &u, "pids",
		       "container %s cannot start another process (cgroup %s: "
		       "pids.max or a process limit reached): try again later",
		       m.name, m.cgroup);
	if (pid == -EAGAIN)
		refuse(priv, &m, &u, "frozen",
		       "container %s is frozen (cgroup %s): try again later",
		       m.name, m.cgroup);
	if (pid < 0)
		refuse(priv, &m, &u, "enter",
		       "cannot enter container %s (cgroup %s, pid %d): %s",
		       m.name, m.cgroup, (int)t.pid, strerror(-pid));
	hj_target_release(&t);
	child_pid = pid;
	if (slave >= 0)
		close(slave);
	/* the waiting parent needs no privilege either */
	r = drop_caps();
	if (r) {
		kill(pid, SIGKILL);
		errx(EXIT_FAILURE, "cannot drop privileges: %s", strerror(-r));
	}
	exec_waiter(pid, master);
	set_handlers();
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (master >= 0)
		relay_pty(pid, master);
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	sig_pipe[1] = -1;
	wait_plain(pid);
}
