// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack(1) - run a program inside the namespaces and cgroups of another
 * process, named by pid or by a cgroup it belongs to.
 *
 * The command of Serge Hallyn's sys_hijack v7 patch, grown up:
 *
 *	hijack pid <pid> [command...]
 *	hijack cgroup <tasks-file|cgroup.procs|cgroup-dir> [command...]
 *
 * and root's tools for hijack-shell's logins: "hijack who" lists the
 * sessions, "hijack check USER" checks a user's next login, and
 * "hijack check-conf FILE" checks a file before it is installed.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "args.h"
#include "conf.h"
#include "login-check.h"
#include "hijack.h"
#include "who.h"

static pid_t child_pid;

static void __attribute__((noreturn)) usage(void)
{
	FILE *out = stdout;

	fputs("Usage:\n"
	      " hijack [options] pid <pid> [--] [<command> [<arg>...]]\n"
	      " hijack [options] cgroup <tasks|cgroup.procs|cgroup-dir> [--] [<command> [<arg>...]]\n"
	      " hijack [--shell <path>] who\n"
	      " hijack [--shell <path>] check <user>\n"
	      " hijack check-conf <file>...\n"
	      "\n"
	      "Run a program inside the namespaces, cgroups and root directory of\n"
	      "another process, as confined as it is (bounding set, no_new_privs,\n"
	      "seccomp filters, LSM label).  Given a cgroup, the container's init\n"
	      "is chosen.\n"
	      "\n"
	      "Options:\n"
	      " -b, --backend <name>  auto, native (sys_hijack) or stock (setns)\n"
	      " -w, --wd <dir>        working directory inside the target\n"
	      " -v, --verbose         say which task, namespaces and cgroups\n"
	      "     --shell <path>    who, check: the hijack-shell of the logins\n"
	      "                       (default " HIJACK_SHELL_PATH ")\n"
	      "     --no-confine      keep the caller's bounding set, seccomp and LSM\n"
	      "                       label instead of taking the target's (debugging)\n"
	      " -h, --help            display this help\n"
	      " -V, --version         display version\n"
	      "\n"
	      "The default command is /bin/sh.  The exit status is the command's,\n"
	      "or 128 + the signal that killed it.\n"
	      "\n"
	      "'hijack who' lists the live ssh sessions of hijack-shell, and\n"
	      "'hijack check' checks a user's next ssh login (root only), and\n"
	      "'hijack check-conf' checks files of hijack.conf's syntax before they\n"
	      "are installed.\n",
	      out);
	exit(EXIT_SUCCESS);
}

/* " (the library's words)" after strerror's, or "" when it has none */
static const char *why(int e)
{
	static char buf[128];
	const char *w = hj_strerror(e);

	if (!strcmp(w, strerror(e)))
		return "";
	snprintf(buf, sizeof(buf), " (%s)", w);
	return buf;
}

/* The target's confinement, read before anything is entered. */
static void read_confinement(struct hj_target *t, struct hj_confinement *c)
{
	int r = hj_confinement_read(t, c);

	if (!r)
		return;
	if (r == -EOPNOTSUPP && c->seccomp_mode == 1)
		errx(EXIT_FAILURE,
		     "cannot enter pid %d: it is in seccomp strict mode, "
		     "which no new process can be given",
		     (int)t->pid);
	if (r == -EOPNOTSUPP)
		errx(EXIT_FAILURE,
		     "cannot copy the seccomp filter of pid %d: %s (the "
		     "kernel hands it out only to CAP_SYS_ADMIN, unfiltered, "
		     "with CONFIG_CHECKPOINT_RESTORE)",
		     (int)t->pid, strerror(-r));
	if (r == -ETIMEDOUT)
		errx(EXIT_FAILURE,
		     "cannot copy the seccomp filter of pid %d: it did not "
		     "stop within %d ms (a sleep a ptrace stop cannot "
		     "interrupt, such as vfork()); it was let go",
		     (int)t->pid, HJ_FILTER_COPY_MS);
	/* not why(): its words are about entering, this is reading /proc */
	errx(EXIT_FAILURE, "cannot read the confinement of pid %d: %s%s",
	     (int)t->pid, strerror(-r),
	     r == -EBUSY  ? " (the target is being traced)" :
	     r == -EINVAL ? " (cannot parse /proc/PID/status)" :
			    "");
}

/*
 * In the child, before exec: the target's bounding set, LSM label,
 * no_new_privs and seccomp filters; our capabilities cut to its bounding
 * set; then the checked postcondition.  Never exec looser than it.
 */
static void confine(const struct hj_confinement *c, pid_t target)
{
	struct hj_creds want = { .uid = getuid(), .gid = getgid() };
	const char *step = "apply the bounding set, LSM label or filters";
	int r;

	r = hj_confine_early(c);
	if (!r) {
		step = "reduce the capabilities";
		r = hj_confine_caps(c);
	}
	if (!r) {
		step = "set no_new_privs or load the filters";
		r = hj_confine_late(c);
	}
	if (!r) {
		step = "verify the confinement";
		r = hj_confine_verify(c, &want);
	}
	if (r)
		errx(126, "cannot confine the command as pid %d is: %s: %s%s",
		     (int)target, step, strerror(-r),
		     r == -ENOTRECOVERABLE ? " (looser than the target)" : "");
}

static void forward(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NFORWARDED (sizeof(forwarded) / sizeof(forwarded[0]))

static void __attribute__((noreturn)) run(char **argv)
{
	static char *const sh[] = { "/bin/sh", NULL };
	char *const *cmd = argv[0] ? argv : sh;

	execvp(cmd[0], cmd);
	err(errno == ENOENT ? 127 : 126, "failed to execute %s", cmd[0]);
}

/* Wait for the child, stopping with it (job control), and pass it on. */
static int __attribute__((noreturn)) wait_child(pid_t pid)
{
	int code, r = hj_wait_foreground(pid, &code);

	if (r) {
		errno = -r;
		err(EXIT_FAILURE, "waitpid failed");
	}
	exit(code);
}

static void verbose_target(const char *what, const struct hj_target *t)
{
	fprintf(stderr, "hijack: %s: pid %d (%s)", what, (int)t->pid,
		hj_pick_name(t->pick));
	if (t->cgroup[0])
		fprintf(stderr, " in %s", t->cgroup);
	fputc('\n', stderr);
}

/*
 * One line (under 200 bytes), written at once: the child is already
 * running and printing on the same terminal.
 */
static void verbose_spawn(pid_t pid, const struct hj_spawn_info *info)
{
	char line[256];
	unsigned int bit;
	int o;

	o = snprintf(line, sizeof(line),
		     "hijack: child %d via %s backend; namespaces entered:",
		     (int)pid,
		     info->backend == HJ_BACKEND_NATIVE ? "native sys_hijack" :
							  "stock setns");
	if (!info->ns_entered)
		o += snprintf(line + o, sizeof(line) - o, " none");
	for (bit = 1; bit < (1u << HJ_NS_COUNT); bit <<= 1)
		if (info->ns_entered & bit)
			o += snprintf(line + o, sizeof(line) - o, " %s",
				      hj_ns_name(bit));
	snprintf(line + o, sizeof(line) - o, "; cgroups joined: %u\n",
		 info->cgroups_joined);
	fputs(line, stderr);
}

/*
 * check-conf: each file as it would be read as hijack.conf or a drop-in
 * (for Ansible's validate=, visudo -c's job).  Each file gets one line:
 * "FILE: ok" on stdout, or what is wrong and where on stderr.
 */
static int check_conf(char *const *files)
{
	struct hj_conf_error ce;
	int status = EXIT_SUCCESS;

	for (; *files; files++) {
		memset(&ce, 0, sizeof(ce));
		if (hj_conf_check_file(*files, &ce)) {
			warnx("%s", ce.msg);
			status = EXIT_FAILURE;
		} else {
			printf("%s: ok\n", *files);
		}
	}
	if (fflush(stdout) == EOF)
		err(EXIT_FAILURE, "write error");
	return status;
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "pid", "cgroup" };
	struct hj_spawn_opts opts = { .clone_flags = SIGCHLD };
	struct hj_spawn_info info;
	struct hj_confinement conf;
	struct hijack_args a;
	struct hj_target t;
	struct sigaction sa;
	sigset_t block, old;
	const char *mode, *id;
	char msg[256];
	size_t i;
	pid_t pid;
	int r;

	if (hijack_parse_args(argc, argv, &a, msg, sizeof(msg))) {
		warnx("%s", msg);
		fprintf(stderr, "Try 'hijack --help' for more information.\n");
		return EXIT_FAILURE;
	}
	if (a.action == HIJACK_HELP)
		usage();
	if (a.action == HIJACK_VERSION) {
		printf("hijack %s\n", PACKAGE_VERSION);
		return EXIT_SUCCESS;
	}
	if (a.action == HIJACK_WHO)
		return hijack_who(a.shell ? a.shell : HIJACK_SHELL_PATH);
	if (a.action == HIJACK_CHECK_CONF)
		return check_conf(a.files);
	if (a.action == HIJACK_CHECK)
		return hijack_check(a.shell ? a.shell : HIJACK_SHELL_PATH,
				    a.user);
	opts.backend = a.backend;
	opts.cwd = a.cwd;
	mode = kinds[a.kind];
	id = a.id;

	if (a.kind == HIJACK_PID) {
		r = hj_target_from_pid(a.pid, &t);
		if (r)
			errx(EXIT_FAILURE, "cannot find pid %s: %s%s", id,
			     strerror(-r), why(-r));
	} else {
		r = hj_target_from_cgroup_path(id, &t);
		if (r)
			errx(EXIT_FAILURE, "cannot resolve cgroup %s: %s%s", id,
			     strerror(-r), why(-r));
	}
	if (a.verbose)
		verbose_target(mode, &t);
	hj_confinement_init(&conf);
	if (!a.no_confine)
		read_confinement(&t, &conf);

	/* forward job-control and termination signals to the child */
	sigemptyset(&block);
	for (i = 0; i < NFORWARDED; i++)
		sigaddset(&block, forwarded[i]);
	sigprocmask(SIG_BLOCK, &block, &old);

	pid = hj_spawn(&t, &opts, &info);
	if (pid == 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (!a.no_confine)
			confine(&conf, t.pid);
		run(a.cmd);
	}
	if (pid < 0)
		errx(EXIT_FAILURE, "cannot enter %s %s (pid %d): %s%s", mode,
		     id, (int)t.pid, strerror(-pid), why(-pid));
	hj_target_release(&t);
	hj_confinement_free(&conf);
	child_pid = pid;
	if (a.verbose)
		verbose_spawn(pid, &info);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < NFORWARDED; i++)
		sigaction(forwarded[i], &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	wait_child(pid);
}
