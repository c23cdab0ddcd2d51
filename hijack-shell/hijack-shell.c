// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell(8) - a login shell that lands the user inside the
 * container hijack.conf maps them to.
 *
 * sshd runs it as "-hijack-shell" for an interactive login and as
 * "hijack-shell -c 'command'" for ssh host cmd, scp, rsync and an external
 * sftp-server.  It may carry file capabilities (see the man page).  The
 * privileged path runs in one fixed order, as OpenSSH's do_child does:
 *
 *   1. main(): non-dumpable, every fd above 2 closed;
 *   2. resolve(): the user (real uid, host passwd), the rule (hijack.conf,
 *      never the environment), the target (cgroup -> pinned container
 *      init) and the init's confinement, all before anything is entered;
 *   3. the audit record, as root on the host;
 *   4. hj_spawn(): a child inside the container, in a new session, with a
 *      pty of our own whenever fds 0-2 include a terminal (caps.c, tty.c);
 *   5. child(): as confined as the container's init (bounding set, LSM
 *      label, seccomp, no_new_privs), the container's groups for the
 *      user, every capability dropped, then the cwd, the environment, and
 *      a checked postcondition right before exec;
 *   6. the parent drops every capability and re-executes itself as a
 *      small waiter (tty.c's one waiting loop) that passes the status on.
 *
 * A mapped user never lands on the host: every failure above exits
 * non-zero before anything of the user's runs.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "audit.h"
#include "conf.h"
#include "hijack.h"
#include "shell.h"

#define PROG "hijack-shell"

/* Who logs in: from the real uid and the host's passwd, nothing else. */
struct user {
	uid_t uid;
	gid_t gid;
	char name[HJ_CONF_NAME_MAX];
	struct passwd pw;
};

/* Everything a session is, resolved before anything is entered. */
struct session {
	struct user u;
	struct hj_mapping m;
	struct hj_target t;
	struct hj_confinement conf; /* the init's, or ours on the host */
	bool priv; /* file capabilities (or root) at start */
	bool login; /* started as "-hijack-shell" */
	const char *command; /* -c COMMAND, or NULL */
	bool host; /* the rule keeps the user on the host */
	const char *no_sftp; /* sftp-server missing: why, told to the client */
	unsigned int ttys; /* which of fds 0-2 are terminals */
	int master, slave; /* our pty, or -1 */
};

static void __attribute__((noreturn)) usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fputs("Usage:\n"
	      " -hijack-shell                 (as a login shell)\n"
	      " hijack-shell [-c <command>]\n"
	      " hijack-shell --check [<user>]\n"
	      " hijack-shell --who\n"
	      "\n"
	      "Run the user's shell or command inside the container that\n" SCONFDIR
	      "/hijack.conf maps them to.\n",
	      out);
	exit(status);
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

/*
 * The VIRT_CONTROL record.  Nothing in it comes from the environment (a
 * user running hijack-shell by hand sets any variable), and a caller no
 * rule maps gets none: only root may write records, and they must not
 * be a way for any local user to flood the audit log.
 */
static void audit(const struct session *s, const char *op, pid_t pid,
		  const char *reason, bool success)
{
	const struct hj_mapping *m = s->m.kind ? &s->m : NULL;
	int r;

	if (!s->priv || !m)
		return; /* the kernel takes audit records from root only */
	r = hj_audit_entry(op, m, s->u.name, s->u.uid, pid, reason, success);
	if (r && !hj_audit_unsupported(r))
		warnx("cannot write audit record: %s", strerror(-r));
}

static void __attribute__((noreturn, format(printf, 3, 4)))
refuse(const struct session *s, const char *reason, const char *fmt, ...)
{
	va_list ap;

	audit(s, "deny", -1, reason, false);
	va_start(ap, fmt);
	fprintf(stderr, PROG ": ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(EXIT_FAILURE);
}

/*
 * pam_hijack exports what it mapped the login to.  That is never a grant,
 * but it is a check: two accounts may share a uid, and then the PAM user
 * (by name) and ours (by uid) can differ.  Any difference refuses.
 */
static void check_pam_mapping(const struct session *s)
{
	const char *user = getenv("HIJACK_USER");
	const char *cgroup = getenv("HIJACK_CGROUP");

	if (user && strcmp(user, s->u.name))
		refuse(s, "mismatch",
		       "pam_hijack mapped this login for user %s, but uid %u "
		       "is %s here: refusing (accounts sharing a uid)",
		       user, (unsigned int)s->u.uid, s->u.name);
	if (cgroup &&
	    (s->m.kind != HJ_MAP_CONTAINER || strcmp(cgroup, s->m.cgroup)))
		refuse(s, "mismatch",
		       "pam_hijack mapped this login to cgroup %s, but %s maps "
		       "%s to %s: refusing",
		       cgroup, HJ_CONF_DEFAULT, s->u.name,
		       s->m.kind == HJ_MAP_CONTAINER ? s->m.cgroup :
		       s->m.kind == HJ_MAP_HOST	     ? "the host" :
						       "nothing");
}

/*
 * The init's confinement, which the session will get.  Without privilege
 * (a capability-free copy for a rootless container) a seccomp filter
 * cannot be copied: no_new_privs stands in, as the session can gain no
 * more than its user has anyway.
 */
static void read_confinement(struct session *s)
{
	int r = hj_confinement_read_flags(&s->t, &s->conf,
					  s->priv ? 0 : HJ_CONFINE_FILTER_NNP);

	if (r == -EOPNOTSUPP && s->conf.seccomp_mode == 1)
		refuse(s, "confinement",
		       "cannot enter container %s (pid %d): its init runs in "
		       "seccomp strict mode",
		       s->m.name, (int)s->t.pid);
	if (r == -EOPNOTSUPP)
		refuse(s, "confinement",
		       "cannot enter container %s (pid %d): the kernel does "
		       "not hand out its init's seccomp filter, and a session "
		       "less confined than the init is refused",
		       s->m.name, (int)s->t.pid);
	if (r == -EBUSY)
		refuse(s, "traced",
		       "cannot enter container %s (pid %d): its init is being "
		       "traced",
		       s->m.name, (int)s->t.pid);
	if (r)
		refuse(s, "confinement",
		       "cannot read the confinement of container %s (pid %d): "
		       "%s",
		       s->m.name, (int)s->t.pid, strerror(-r));
}

/* The audit record's reason for a refusal of hj_container_state(). */
static const char *reason(int r)
{
	switch (r) {
	case -EXDEV:
		return "not-a-container";
	case -ENOTUNIQ:
		return "ambiguous";
	case -EDEADLK:
		return "frozen";
	case -EBUSY:
		return "traced";
	}
	return "target";
}

/* Steps 2 and 4's terminal: everything is known before entering. */
static void resolve(struct session *s)
{
	struct hj_conf_error cerr = { { 0 }, 0, { 0 } };
	int r;

	r = lookup_user(&s->u);
	if (r)
		errx(EXIT_FAILURE, "cannot look up uid %u: %s",
		     (unsigned int)getuid(), strerror(-r));
	r = hj_conf_resolve_user(HJ_CONF_DEFAULT, &s->u.pw, &s->m, &cerr);
	if (r)
		refuse(s, "config", "%s",
		       cerr.msg[0] ? cerr.msg : strerror(-r));
	if (s->m.kind == HJ_MAP_NONE)
		refuse(s, "unmapped",
		       "no container is configured for user %s in %s",
		       s->u.name, HJ_CONF_DEFAULT);
	check_pam_mapping(s);
	if (s->m.kind == HJ_MAP_HOST) {
		s->host = true;
		return;
	}
	r = hj_container_state(s->m.cgroup, &s->t);
	/* only a cgroup that is gone is a stopped container */
	if (r == -ENOENT && s->m.on_stopped == HJ_STOPPED_HOST) {
		s->host = true;
		return;
	}
	if (r == -ENOENT || r == -ESRCH)
		refuse(s, "not-running",
		       "container %s is not running (cgroup %s%s)", s->m.name,
		       s->m.cgroup, r == -ENOENT ? " is gone" : " is empty");
	if (r)
		refuse(s, reason(r),
		       "cannot enter container %s (cgroup %s): %s", s->m.name,
		       s->m.cgroup, hj_strerror(r));
	read_confinement(s);
	s->ttys = tty_mask();
	if (s->ttys) {
		r = tty_open_pty(&s->master, &s->slave);
		if (r)
			refuse(s, "pty", "cannot allocate a terminal: %s",
			       strerror(-r));
	}
}

/*
 * The sftp subsystem (which scp uses too since OpenSSH 9) needs its
 * program inside the container.  A child inside looks, as the user
 * (probe.c), before anything of the session starts: when the program is
 * missing, the audit record is a refusal that says so, and so is the
 * line on stderr.  sshd throws a subsystem's stderr away, though, so
 * the session then answers the client in its own protocol with that line
 * (shell_sftp_refuse(), in place of the exec: no program of the user's
 * or the container's runs).  When the look itself fails, the login goes
 * on and fails or not on its own.  Returns the line, or NULL.
 */
static const char *check_sftp(struct session *s, const char *prog)
{
	static char line[SHELL_PATH_MAX + 512];
	struct shell_probe p;

	if (shell_probe(&s->t, s->u.name, s->u.uid, s->u.gid, s->priv, prog,
			&p) ||
	    !p.sftp)
		return NULL;
	if (p.sftp == -ENOENT || p.sftp == -ENOTDIR)
		snprintf(line, sizeof(line),
			 "scp and sftp will fail: %s is not in %s", prog,
			 s->m.name);
	else
		snprintf(line, sizeof(line),
			 "scp and sftp will fail: %s cannot be executed in %s: "
			 "%s",
			 prog, s->m.name, strerror(-p.sftp));
	audit(s, "deny", -1, "no-sftp-server", false);
	fprintf(stderr, PROG ": %s\n", line);
	return line;
}

/*
 * Step 5, in the child: inside the container (or on the host for a '-'
 * rule), in this order and each step checked; nothing of the container's
 * is read while privileged.
 */
static void __attribute__((noreturn)) child(const struct session *s)
{
	struct hj_creds want = { 0 };
	struct shell_account *acct;
	char **env, *argv[4], arg0[SHELL_PATH_MAX + 1];
	const char *shell, *base;
	/*
	 * Unprivileged, the kernel let us into a user namespace only if the
	 * user owns it (a rootless container): its root is the user.
	 */
	bool own_userns = !s->priv && (s->t.ns_differ & HJ_NS_USER);
	uid_t uid = own_userns ? 0 : s->u.uid;
	gid_t gid = own_userns ? 0 : s->u.gid;
	int r;

	r = tty_attach_child(s->slave, s->ttys);
	if (r) {
		errno = -r;
		err(126, "cannot set up the terminal");
	}
	/* the init's bounding set, LSM label, and filters loaded early */
	if (!s->host && (r = hj_confine_early(&s->conf))) {
		errno = -r;
		err(126, "cannot confine the session as container %s's init",
		    s->m.name);
	}
	acct = calloc(1, sizeof(*acct));
	if (!acct)
		errx(126, "out of memory");
	if (s->host)
		r = drop_caps() ?: shell_account(s->u.name, NULL, acct);
	else
		r = shell_account_unprivileged(s->u.name, s->u.gid, acct);
	if (r == -E2BIG)
		errx(126, "%s is in more than %d groups in the container",
		     s->u.name, SHELL_GROUPS_MAX);
	if (r)
		errx(126, "cannot read the account of %s%s: %s", s->u.name,
		     s->host ? "" : " in the container", strerror(-r));
	/* the container's groups for the user, never the host's */
	if (!s->host && s->priv && setgroups(acct->ngroups, acct->groups))
		err(126, "cannot set the groups of %s", s->u.name);
	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		err(126, "cannot set the ids of %s", s->u.name);
	r = drop_caps();
	if (r) {
		errno = -r;
		err(126, "cannot drop privileges");
	}
	/* unprivileged from here on */
	if (s->m.cwd[0]) {
		if (chdir(s->m.cwd))
			err(126, "cannot change to %s", s->m.cwd);
	} else if (chdir(acct->home)) {
		(void)!chdir("/");
	}
	shell = s->m.shell[0] ? s->m.shell : acct->shell;
	env = shell_environ(s->u.name, s->u.uid, acct->home, shell,
			    s->m.name[0] ? s->m.name : NULL, s->slave >= 0);
	if (!env)
		errx(126, "cannot build the environment");
	base = strrchr(shell, '/');
	base = base ? base + 1 : shell;
	snprintf(arg0, sizeof(arg0), "%s%s", s->login ? "-" : "", base);
	argv[0] = arg0;
	if (s->command) {
		argv[1] = (char *)"-c";
		argv[2] = (char *)s->command;
		argv[3] = NULL;
	} else {
		argv[1] = NULL;
	}
	if (!s->host && (r = hj_confine_late(&s->conf))) {
		errno = -r;
		err(126, "cannot confine the session as container %s's init",
		    s->m.name);
	}
	/* the postcondition, checked through the host's /proc */
	want.uid = uid;
	want.gid = gid;
	if (!s->host && s->priv) {
		want.groups = acct->groups;
		want.ngroups = acct->ngroups;
	}
	want.check_caps_zero = true;
	r = hj_confine_verify(&s->conf, &want);
	if (r == -ENOTRECOVERABLE)
		errx(126, "refusing to run: the session is not confined as %s",
		     s->host ? "this program was" : "the container's init is");
	if (r) {
		errno = -r;
		err(126, "cannot check the session's confinement");
	}
	if (s->no_sftp)
		shell_sftp_refuse(s->no_sftp);
	execve(shell, argv, env);
	err(errno == ENOENT ? 127 : 126, "failed to execute %s", shell);
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
	tty_wait_session(pid, master);
}

/* The rule says "stay on the host" (or stopped=host): no entry at all. */
static void __attribute__((noreturn)) run_on_host(struct session *s)
{
	int r = hj_confinement_self(&s->conf);

	if (r) {
		errno = -r;
		err(EXIT_FAILURE, "cannot read our own confinement");
	}
	audit(s, "host", -1, NULL, true);
	s->master = s->slave = -1;
	s->ttys = 0;
	child(s);
}

int main(int argc, char **argv)
{
	struct hj_spawn_opts opts = { .clone_flags = SIGCHLD, .cwd = "/" };
	char prog[SHELL_PATH_MAX];
	struct shell_args args;
	struct session s;
	sigset_t old;
	pid_t pid;
	int r;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	shell_parse_args(argc, argv, &args);
	if (args.action == SHELL_WAIT)
		waiter(args.wait_pid, args.wait_fd);
	close_fds_above_2();
	memset(&s, 0, sizeof(s));
	hj_target_init(&s.t);
	hj_confinement_init(&s.conf);
	s.master = s.slave = -1;
	s.priv = privileged();
	switch (args.action) {
	case SHELL_SESSION:
		break;
	case SHELL_CHECK:
		return shell_check(args.user, s.priv);
	case SHELL_WHO:
		return shell_who();
	case SHELL_HELP:
		usage(EXIT_SUCCESS);
	case SHELL_VERSION:
		printf(PROG " %s\n", PACKAGE_VERSION);
		return EXIT_SUCCESS;
	case SHELL_WAIT: /* waiter() does not return */
	case SHELL_USAGE:
		usage(2);
	}
	s.login = args.login;
	s.command = args.command;

	resolve(&s);
	if (s.host)
		run_on_host(&s);
	if (shell_is_sftp(s.command, prog, sizeof(prog)))
		s.no_sftp = check_sftp(&s, prog);

	tty_block_signals(&old);
	/* recorded as root, before any user namespace is entered */
	if (!s.no_sftp)
		audit(&s, "start", s.t.pid, "entry", true);
	pid = hj_spawn(&s.t, &opts, NULL);
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (s.master >= 0)
			close(s.master);
		child(&s);
	}
	/* the clone's EAGAIN: pids.max (hj_strerror() says so) */
	if (pid == -EAGAIN)
		refuse(&s, "pids",
		       "container %s cannot start another process (cgroup %s: "
		       "%s): try again later",
		       s.m.name, s.m.cgroup, hj_strerror(pid));
	if (pid == -EDEADLK)
		refuse(&s, "frozen",
		       "container %s is frozen (cgroup %s): try again later",
		       s.m.name, s.m.cgroup);
	if (pid < 0)
		refuse(&s, "enter",
		       "cannot enter container %s (cgroup %s, pid %d): %s",
		       s.m.name, s.m.cgroup, (int)s.t.pid, hj_strerror(pid));
	hj_target_release(&s.t);
	hj_confinement_free(&s.conf);
	if (s.slave >= 0)
		close(s.slave);
	/* the waiting parent needs no privilege either */
	r = drop_caps();
	if (r) {
		kill(pid, SIGKILL);
		errx(EXIT_FAILURE, "cannot drop privileges: %s", strerror(-r));
	}
	exec_waiter(pid, s.master);
	tty_wait_session(pid, s.master);
}
