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
 *      pty of its own whenever fds 0-2 include a terminal: the child
 *      allocates it from the container's devpts and hands the master
 *      back, or the host allocates one when the container has no devpts
 *      (tty.c);
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "audit.h"
#include "conf.h"
#include "hijack.h"
#include "shell.h"

#define PROG SHELL_PROG

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
	struct hj_userns ns; /* the target's user namespace, as ours */
	bool own; /* ... which the user owns: entered unprivileged */
	uid_t uid; /* the ids the session gets, in the container */
	gid_t gid;
	bool priv; /* file capabilities (or root) at start */
	bool login; /* started as "-hijack-shell" */
	const char *command; /* -c COMMAND, or NULL */
	bool host; /* the rule keeps the user on the host */
	const char *no_sftp; /* sftp-server missing: why, told to the client */
	unsigned int ttys; /* which of fds 0-2 are terminals */
	int sock[2]; /* the pty's socketpair: host side, child side; or -1 */
	int master; /* the pty's master on the host side, or -1 */
	/* the forwarded agent: socketpair (host side, child side), sshd's
	 * socket's directory and name, the listener inside; or -1 */
	int agent_sock[2];
	int agent_dir;
	int agent_lfd;
	char agent_name[64];
};

static void __attribute__((noreturn)) usage(int status)
{
	FILE *out = status ? stderr : stdout;

	fputs("Usage:\n"
	      " -hijack-shell                 (as a login shell)\n"
	      " hijack-shell [-c <command>]\n"
	      " hijack-shell --check [<user>]\n"
	      "\n"
	      "Run the user's shell or command inside the container that\n" SCONFDIR
	      "/hijack.conf maps them to.  Root lists the sessions with\n"
	      "'hijack who'.\n",
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
 * A failure after the container was found running: when its init has
 * exited since, that is the reason to give (a restart), not the errno of
 * whatever read of it came first.
 */
static void refuse_if_stopped(const struct session *s)
{
	if (hj_target_alive(&s->t))
		refuse(s, "not-running",
		       "container %s stopped while this login entered it "
		       "(cgroup %s, pid %d exited)",
		       s->m.name, s->m.cgroup, (int)s->t.pid);
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
	/* the environment's: printed escaped (hj_escape()) */
	char esc[4 * 256 + 1];

	if (user && strcmp(user, s->u.name))
		refuse(s, "mismatch",
		       "pam_hijack mapped this login for user %s, but uid %u "
		       "is %s here: refusing (accounts sharing a uid)",
		       hj_escape(user, esc, sizeof(esc)),
		       (unsigned int)s->u.uid, s->u.name);
	if (cgroup &&
	    (s->m.kind != HJ_MAP_CONTAINER || strcmp(cgroup, s->m.cgroup)))
		refuse(s, "mismatch",
		       "pam_hijack mapped this login to cgroup %s, but %s maps "
		       "%s to %s: refusing",
		       hj_escape(cgroup, esc, sizeof(esc)), HJ_CONF_DEFAULT,
		       s->u.name,
		       s->m.kind == HJ_MAP_CONTAINER ? s->m.cgroup :
		       s->m.kind == HJ_MAP_HOST	     ? "the host" :
						       "nothing");
}

/*
 * The init's confinement, which the session will get.  Its seccomp
 * filters come from root's copy (pam_hijack's session step makes it):
 * this process is the user's to stop at any moment, and must never hold
 * the init in the ptrace stop a copy takes.  Run without its file
 * capabilities (by hand, say), no_new_privs stands in for the filters,
 * as the session can gain no more than its user has anyway.
 */
static void read_confinement(struct session *s)
{
	int r = hj_confinement_read_flags(&s->t, &s->conf,
					  s->priv ? HJ_CONFINE_CACHED :
						    HJ_CONFINE_FILTER_NNP);

	if (r)
		refuse_if_stopped(s);
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
	if (r == -ENODATA)
		refuse(s, "confinement",
		       "cannot enter container %s (pid %d): %s; log in "
		       "through a PAM service with pam_hijack's session step",
		       s->m.name, (int)s->t.pid, hj_strerror(r));
	if (r)
		refuse(s, "confinement",
		       "cannot read the confinement of container %s (pid %d): "
		       "%s",
		       s->m.name, (int)s->t.pid, strerror(-r));
}

/*
 * Who the session is inside.  Without a user namespace of its own, the
 * user's host ids.  In a user namespace the user owns (a rootless
 * container), the ids the user's own are mapped to there (podman
 * --userns=keep-id maps them to themselves, plain rootless podman to 0),
 * else the namespace's root: the user is all-powerful there anyway, and
 * everything is entered without privilege (hj_spawn()'s
 * HJ_SPAWN_AS_OWNER).  In one the user does not own (an admin's), the
 * same numbers as on the host, as without one.
 */
static void resolve_ids(struct session *s)
{
	int r = hj_userns_of(&s->t, s->u.uid, s->u.gid, &s->ns);

	if (r) {
		refuse_if_stopped(s);
		refuse(s, "target",
		       "cannot read the user namespace of container %s (pid "
		       "%d): %s",
		       s->m.name, (int)s->t.pid, hj_strerror(r));
	}
	s->uid = s->u.uid;
	s->gid = s->u.gid;
	/* the session gets the container's groups, never the host's */
	if (s->ns.setgroups_denied)
		refuse(s, "userns",
		       "cannot enter container %s (pid %d): its user "
		       "namespace denies setgroups, so the session could not "
		       "drop the host's groups",
		       s->m.name, (int)s->t.pid);
	/* root has every privilege already: never the owner's path */
	s->own = s->ns.owned && s->u.uid != 0;
	if (!s->own)
		return;
	if (!s->ns.root_mapped)
		refuse(s, "userns",
		       "cannot enter container %s (pid %d): its user "
		       "namespace maps no root",
		       s->m.name, (int)s->t.pid);
	s->uid = s->ns.uid_mapped ? s->ns.uid : 0;
	s->gid = s->ns.uid_mapped && s->ns.gid_mapped ? s->ns.gid : 0;
}

/* Steps 2 and 4's terminal: everything is known before entering. */
static void resolve(struct session *s)
{
	struct hj_conf_error cerr = { .msg = "" };
	int r;

	r = lookup_user(&s->u);
	if (r)
		errx(EXIT_FAILURE, "cannot look up uid %u: %s",
		     (unsigned int)getuid(), strerror(-r));
	r = hj_conf_resolve_user_by(HJ_CONF_DEFAULT, &s->u.pw, &s->m, &cerr,
				    HJ_LOOKUP_MS);
	if (r)
		refuse(s, cerr.lookup ? "directory" : "config", "%s",
		       cerr.msg[0] ? cerr.msg : strerror(-r));
	if (s->m.kind == HJ_MAP_NONE)
		refuse(s, "unmapped",
		       "no container is configured for user %s in %s or "
		       "%s" HJ_CONF_DIR_SUFFIX "/",
		       s->u.name, HJ_CONF_DEFAULT, HJ_CONF_DEFAULT);
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
		refuse(s, hj_audit_reason(r, "target"),
		       "cannot enter container %s (cgroup %s): %s", s->m.name,
		       s->m.cgroup, hj_strerror(r));
	resolve_ids(s);
	read_confinement(s);
	s->ttys = tty_mask();
	if (s->ttys &&
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, s->sock))
		refuse(s, "pty", "cannot allocate a terminal: %s",
		       strerror(errno));
}

/*
 * In the child, still privileged, inside the container: the session's
 * pty from the container's devpts, the master handed to the host side;
 * or, when the container has none, the slave of the host's pty that the
 * host side sends back.  Returns the slave (-1: no terminal).
 */
static int child_pty(const struct session *s, uid_t uid)
{
	int master, slave, cause, e = 0, r;

	if (!s->ttys)
		return -1;
	close(s->sock[0]);
	cause = tty_container_pty(&master, &slave);
	if (!cause) {
		tty_copy_settings(slave);
		/* the user's, as sshd and lxc-attach leave it; best effort */
		if (fchown(slave, uid, -1) == 0)
			(void)!fchmod(slave, 0600);
		r = tty_send(s->sock[1], TTY_OWN, master);
		close(master);
	} else {
		r = tty_send(s->sock[1], cause, -1);
		if (!r)
			r = tty_recv(s->sock[1], &e, &slave, 0, -1);
		if (!r && (e || slave < 0))
			r = e ? e : -EPROTO;
	}
	if (r) {
		errno = -r;
		err(126, "cannot set up the terminal");
	}
	close(s->sock[1]);
	return slave;
}

/*
 * On the host side, still privileged: take the master the child sends,
 * or, when the container has no devpts of its own, allocate the pty from
 * the host's devpts, say so, and send the child its slave.  A child that
 * does not answer in time (a FUSE /dev/pts can stall it) is killed and
 * the login refused.
 */
static void host_pty(struct session *s, pid_t pid)
{
	int cause = 0, slave, r;
	char why[64];

	close(s->sock[1]);
	s->sock[1] = -1;
	r = tty_recv(s->sock[0], &cause, &s->master, pid, TTY_ANSWER_MS);
	if (!r && !cause && s->master < 0)
		r = -EPROTO;
	if (r) {
		hj_kill_reap(pid, HJ_KILL_GRACE_MS);
		refuse(s, "pty",
		       "cannot set up the terminal in container %s: %s",
		       s->m.name,
		       r == -ETIMEDOUT ? "its /dev/pts did not answer" :
					 strerror(-r));
	}
	if (cause) {
		snprintf(why, sizeof(why), "host-pty:%s",
			 tty_cause_name(cause));
		audit(s, "pty", s->t.pid, why, true);
		warnx("container %s has no devpts of its own at /dev/pts (%s): "
		      "this session's terminal is a pty of the host, which "
		      "tty(1) cannot name inside",
		      s->m.name, tty_cause_name(cause));
		r = tty_open_pty(&s->master, &slave);
		tty_send(s->sock[0], r, r ? -1 : slave);
		if (r) {
			/* it gave up on its own; it is not waited for */
			hj_kill_reap(pid, HJ_KILL_GRACE_MS);
			refuse(s, "pty", "cannot allocate a terminal: %s",
			       strerror(-r));
		}
		close(slave);
	}
	close(s->sock[0]);
	s->sock[0] = -1;
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
	struct shell_ids ids = { .owner = s->own ? s->u.uid : 0,
				 .uid = s->uid,
				 .gid = s->gid,
				 .groups = s->priv || s->own };
	struct shell_probe p;

	if (shell_probe(&s->t, s->u.name, &ids, prog, &p) || !p.sftp)
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
 * The forwarded agent (hijack-shell(8), The agent), still privileged and
 * before anything is entered: sshd's socket, if SSH_AUTH_SOCK names one
 * our parent (sshd's session process) listens on, in a directory of the
 * user's only.  Anything else is not passed in, with a warning: the
 * login goes on without an agent, as with AllowAgentForwarding no.
 */
static void agent_source(struct session *s)
{
	const char *path = getenv("SSH_AUTH_SOCK");
	int r;

	if (!path)
		return;
	r = hj_agent_source(path, s->u.uid, getppid(), &s->agent_dir,
			    s->agent_name, sizeof(s->agent_name));
	if (!r && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
			     s->agent_sock))
		r = -errno;
	if (!r)
		return;
	if (s->agent_dir >= 0)
		close(s->agent_dir);
	s->agent_dir = -1;
	warnx("the forwarded agent is not passed into container %s: %s",
	      s->m.name,
	      r == -EPERM ? "SSH_AUTH_SOCK is not sshd's socket" :
			    strerror(-r));
}

/*
 * In the child, as the session, inside: the agent's socket in a new
 * directory of the session's in /tmp, its listener sent to the host
 * side.  Returns the path for SSH_AUTH_SOCK, or NULL.
 */
static const char *agent_listen(const struct session *s, char *path,
				size_t size)
{
	int fd = -1, r, sent;

	if (s->agent_sock[1] < 0)
		return NULL;
	close(s->agent_sock[0]);
	r = hj_agent_listen("/tmp", path, size, &fd);
	sent = tty_send(s->agent_sock[1], r, fd);
	if (sent)
		r = sent;
	if (fd >= 0)
		close(fd);
	close(s->agent_sock[1]);
	if (!r)
		return path;
	warnx("no forwarded agent in container %s: %s", s->m.name,
	      strerror(-r));
	return NULL;
}

/* On the host side: the listener from the child, if it comes in time. */
static void agent_take(struct session *s, pid_t pid)
{
	int code = 0, r;

	if (s->agent_sock[0] < 0)
		return;
	close(s->agent_sock[1]);
	r = tty_recv(s->agent_sock[0], &code, &s->agent_lfd, pid,
		     TTY_ANSWER_MS);
	close(s->agent_sock[0]);
	s->agent_sock[0] = s->agent_sock[1] = -1;
	if (!r && !code && s->agent_lfd >= 0)
		return;
	if (s->agent_lfd >= 0)
		close(s->agent_lfd);
	s->agent_lfd = -1;
}

/*
 * The relay: the small waiter program (or hijack-shell again, when that
 * is not installed, as exec_waiter() does), without privilege and with
 * no new privileges, holding sshd's socket's directory (fd 4) and the
 * listener inside (fd 3), nothing else; our child, killed when the
 * waiting parent (this process, re-executed) ends with the session.
 */
static void agent_relay_start(struct session *s)
{
	static char *const envp[] = { NULL };
	char *argv[] = { (char *)PROG, (char *)HJ_AGENT_ARG, s->agent_name,
			 NULL };
	pid_t parent = getpid(), pid;

	if (s->agent_lfd < 0)
		return;
	pid = fork();
	if (pid == 0) {
		/* above 4 first: dup2() onto itself would keep O_CLOEXEC */
		int lfd = fcntl(s->agent_lfd, F_DUPFD_CLOEXEC, 5);
		int dir = fcntl(s->agent_dir, F_DUPFD_CLOEXEC, 5);

		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
		    getppid() != parent ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || lfd < 0 ||
		    dir < 0 || dup2(lfd, 3) != 3 || dup2(dir, 4) != 4)
			_exit(1);
		hj_close_from(5, -1);
		execve(HJ_WAITER_PATH, argv, envp);
		execve("/proc/self/exe", argv, envp);
		_exit(1);
	}
	if (pid < 0)
		warnx("no forwarded agent in container %s: %s", s->m.name,
		      strerror(errno));
	close(s->agent_lfd);
	close(s->agent_dir);
	s->agent_lfd = s->agent_dir = -1;
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
	char **env, *argv[4], arg0[SHELL_PATH_MAX + 1], agent[108];
	const char *shell, *base;
	/* privileged, or root of the user's own user namespace */
	bool setgroups_ok = !s->host && (s->priv || s->own);
	uid_t uid = s->host ? s->u.uid : s->uid;
	gid_t gid = s->host ? s->u.gid : s->gid;
	bool root_inside;
	int slave, r;

	slave = child_pty(s, uid);
	r = tty_attach_child(slave, s->ttys);
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
		r = hj_drop_caps() ?: shell_account(s->u.name, NULL, acct);
	else
		r = shell_account_unprivileged(s->u.name, gid, acct);
	if (r == -E2BIG)
		errx(126, "%s is in more than %d groups in the container",
		     s->u.name, SHELL_GROUPS_MAX);
	if (r)
		errx(126, "cannot read the account of %s%s: %s", s->u.name,
		     s->host ? "" : " in the container", strerror(-r));
	/* the container's groups for the user, never the host's */
	if (setgroups_ok && setgroups(acct->ngroups, acct->groups))
		err(126, "cannot set the groups of %s", s->u.name);
	if (setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		err(126, "cannot set the ids of %s", s->u.name);
	/*
	 * Root inside is given the bounding set again by the exec.  Holding
	 * it (and no more) now means the exec gains nothing: the kernel then
	 * leaves the shell dumpable like any process of the container
	 * (commit_creds()), and under the init's no_new_privs it keeps what
	 * the init has instead of nothing (cap_bprm_creds_from_file()).
	 */
	root_inside = !s->host && uid == 0;
	r = root_inside ? hj_confine_caps(&s->conf) : hj_drop_caps();
	if (r) {
		errno = -r;
		err(126, "cannot drop privileges");
	}
	/* unprivileged (or the container's root) from here on */
	if (s->m.cwd[0]) {
		if (chdir(s->m.cwd))
			err(126, "cannot change to %s", s->m.cwd);
	} else if (chdir(acct->home)) {
		(void)!chdir("/");
	}
	shell = s->m.shell[0] ? s->m.shell : acct->shell;
	env = shell_environ(s->u.name, s->u.uid, acct->home, shell,
			    s->m.name[0] ? s->m.name : NULL, slave >= 0,
			    s->host ? NULL :
				      agent_listen(s, agent, sizeof(agent)));
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
	if (setgroups_ok) {
		want.groups = acct->groups;
		want.ngroups = acct->ngroups;
	}
	want.check_caps_zero = !root_inside;
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
 * execs the small waiter, hijack-shell-wait (libc alone, installed beside
 * the package's other programs at HJ_WAITER_PATH), or when that is not
 * installed (a copy from the build tree) its own binary, the host's
 * either way: it never entered anything.  With no new privileges, so no
 * file capabilities are granted again, an empty environment, so nothing
 * of the user's reaches the dynamic linker, and the relayed signals
 * still blocked, so none is lost.  Only returns if both fail; then the
 * waiting goes on here.
 */
static void exec_waiter(pid_t pid, int master)
{
	static char *const envp[] = { NULL };
	char pidstr[16], fdstr[16];
	char *argv[] = { (char *)PROG, (char *)HJ_RELAY_ARG, pidstr, fdstr,
			 NULL };

	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	snprintf(fdstr, sizeof(fdstr), "%d", master);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return;
	if (master >= 0 && fcntl(master, F_SETFD, 0))
		return;
	execve(HJ_WAITER_PATH, argv, envp);
	execve("/proc/self/exe", argv, envp);
	if (master >= 0)
		fcntl(master, F_SETFD, FD_CLOEXEC);
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
	s->master = s->sock[0] = s->sock[1] = -1;
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
		shell_waiter(args.wait_pid, args.wait_fd);
	if (args.action == SHELL_AGENT)
		shell_agent_relay(args.agent);
	hj_close_from(3, -1);
	memset(&s, 0, sizeof(s));
	hj_target_init(&s.t);
	hj_confinement_init(&s.conf);
	s.master = s.sock[0] = s.sock[1] = -1;
	s.agent_sock[0] = s.agent_sock[1] = s.agent_dir = s.agent_lfd = -1;
	s.priv = privileged();
	switch (args.action) {
	case SHELL_SESSION:
		break;
	case SHELL_CHECK:
		return shell_check(args.user, s.priv);
	case SHELL_HELP:
		usage(EXIT_SUCCESS);
	case SHELL_VERSION:
		printf(PROG " %s\n", PACKAGE_VERSION);
		return EXIT_SUCCESS;
	case SHELL_WAIT: /* shell_waiter() does not return */
	case SHELL_AGENT: /* nor shell_agent_relay() */
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
	agent_source(&s);

	if (s.own) {
		opts.flags |= HJ_SPAWN_AS_OWNER;
		opts.owner = s.u.uid;
	}
	tty_block_signals(&old);
	/* recorded as root, before any user namespace is entered */
	if (!s.no_sftp)
		audit(&s, "start", s.t.pid, "entry", true);
	pid = hj_spawn(&s.t, &opts, NULL);
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		child(&s);
	}
	if (pid < 0)
		refuse_if_stopped(&s);
	/* the clone's EAGAIN: pids.max (hj_strerror() says so) */
	if (pid == -EAGAIN)
		refuse(&s, "pids",
		       "container %s cannot start another process (cgroup %s: "
		       "%s): try again later",
		       s.m.name, s.m.cgroup, hj_strerror(pid));
	if (pid == -EACCES && s.own && s.priv)
		refuse(&s, "cgroup",
		       "cannot enter container %s (cgroup %s, pid %d): its "
		       "cgroup %s is not delegated to %s (not owned by uid %u)",
		       s.m.name, s.m.cgroup, (int)s.t.pid, s.t.cgroup, s.u.name,
		       (unsigned int)s.u.uid);
	/* setns() without privilege: the kernel's own answer */
	if (pid == -EPERM && s.own)
		refuse(&s, "enter",
		       "cannot enter container %s (cgroup %s, pid %d): one of "
		       "its namespaces is not %s's to enter",
		       s.m.name, s.m.cgroup, (int)s.t.pid, s.u.name);
	if (pid == -EDEADLK)
		refuse(&s, "frozen",
		       "container %s is frozen (cgroup %s): try again later",
		       s.m.name, s.m.cgroup);
	if (pid < 0)
		refuse(&s, "enter",
		       "cannot enter container %s (cgroup %s, pid %d): %s",
		       s.m.name, s.m.cgroup, (int)s.t.pid, hj_strerror(pid));
	if (s.ttys)
		host_pty(&s, pid);
	agent_take(&s, pid);
	hj_target_release(&s.t);
	hj_confinement_free(&s.conf);
	/* the waiting parent needs no privilege either */
	r = hj_drop_caps();
	if (r) {
		kill(pid, SIGKILL);
		errx(EXIT_FAILURE, "cannot drop privileges: %s", strerror(-r));
	}
	agent_relay_start(&s);
	exec_waiter(pid, s.master);
	tty_wait_session(pid, s.master);
}
