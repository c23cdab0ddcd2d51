// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hj_spawn() after hj_target_check_access(), as a login enters, with each
 * backend: what is asked again at the entry, and who asks it.  The stock
 * backend asks ptrace rights, liveness and a tracer itself; with
 * sys_hijack the kernel does, under the target's exec_update_lock, and
 * the library asks only the freezer (lib/spawn.c).  Either way:
 *
 *   - a child lands in the target, with a working directory given and
 *     without (the native child then has nothing to report);
 *   - a caller that lost its privilege since the check is refused, EPERM;
 *   - a tracer that lets go within HJ_TRACED_WAIT_MS is waited for, one
 *     that stays is EBUSY;
 *   - a frozen cgroup is EDEADLK, not a child that hangs.
 *
 *	hj-spawn-checks PID CGROUP2-DIR HOSTNAME
 *
 * PID: the container's init, in the cgroup2 cgroup CGROUP2-DIR, with
 * HOSTNAME.  Prints PASS/FAIL lines for the harness.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"

static const char *host;

static void result(const char *b, const char *name, int ok, const char *fmt,
		   ...) __attribute__((format(printf, 4, 5)));

static void result(const char *b, const char *name, int ok, const char *fmt,
		   ...)
{
	va_list ap;

	if (ok) {
		printf("PASS lib-%s-%s\n", b, name);
	} else {
		printf("FAIL lib-%s-%s: ", b, name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	fflush(stdout);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * One hj_spawn() with @backend: the child exits 0 when its hostname is
 * the container's; the parent returns the spawn's error, or the child's
 * exit status, and whether the backend asked for was used.
 */
static int spawn_one(struct hj_target *t, enum hj_backend backend,
		     const char *cwd, int *status)
{
	struct hj_spawn_opts o = { .clone_flags = SIGCHLD,
				   .backend = backend,
				   .cwd = cwd };
	struct hj_spawn_info info;
	char name[256] = "";
	pid_t pid;
	int st;

	pid = hj_spawn(t, &o, &info);
	if (pid == 0) {
		gethostname(name, sizeof(name) - 1);
		_exit(strcmp(name, host) ? 3 : 0);
	}
	if (pid < 0)
		return (int)pid;
	if (waitpid(pid, &st, 0) != pid)
		return -ECHILD;
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (info.backend != backend)
		*status = 100;
	return 0;
}

/* a tracer of @pid for @ms (-1: until killed), from when this returns */
static pid_t tracer(pid_t pid, int ms)
{
	int p[2];
	char c = 0;
	pid_t tr;

	if (pipe(p))
		return -1;
	tr = fork();
	if (tr == 0) {
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		close(p[0]);
		if (ptrace(PTRACE_SEIZE, pid, 0, 0))
			_exit(1);
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		if (ms < 0)
			for (;;)
				pause();
		nanosleep(&ts, NULL);
		/* the tracee is let go when its tracer exits */
		_exit(0);
	}
	close(p[1]);
	if (tr < 0 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return tr;
}

static int write_file(const char *dir, const char *file, const char *s)
{
	char path[512];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok ? 0 : -1;
}

/* cgroup.events says "frozen 1" (FREEZE set) or "frozen 0", within 10 s */
static int freeze(const char *dir, int on)
{
	char path[512], buf[512];
	int i;

	if (write_file(dir, "cgroup.freeze", on ? "1" : "0"))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.events", dir);
	for (i = 0; i < 1000; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = '\0';
			if (strstr(buf, on ? "frozen 1" : "frozen 0"))
				return 0;
		}
		usleep(10000);
	}
	return -1;
}

static void checks(pid_t pid, const char *cgdir, enum hj_backend backend)
{
	const char *b = backend == HJ_BACKEND_NATIVE ? "native" : "stock";
	struct hj_target t;
	double t0, ms;
	int r, st = -1, wst;
	pid_t tr, kid;

	r = hj_target_from_pid(pid, &t);
	if (!r)
		r = hj_target_check_access(&t);
	result(b, "checked", !r, "check: %d", r);
	if (r)
		return;

	r = spawn_one(&t, backend, NULL, &st);
	result(b, "checked-lands", !r && st == 0, "spawn %d, child status %d",
	       r, st);
	st = -1;
	r = spawn_one(&t, backend, "/", &st);
	result(b, "checked-cwd-lands", !r && st == 0,
	       "spawn %d, child status %d", r, st);

	/* the privilege is gone since the check: refused, no child */
	kid = fork();
	if (kid == 0) {
		if (setresuid(65534, 65534, 65534))
			_exit(2);
		st = -1;
		r = spawn_one(&t, backend, NULL, &st);
		_exit(r == -EPERM ? 0 : 1);
	}
	r = kid > 0 && waitpid(kid, &wst, 0) == kid && WIFEXITED(wst) ?
		    WEXITSTATUS(wst) :
		    -1;
	result(b, "checked-eperm-unprivileged", r == 0,
	       "the unprivileged caller's spawn was not EPERM (%d)", r);

	/* traced for 300 ms: waited for */
	tr = tracer(pid, 300);
	st = -1;
	t0 = now_ms();
	r = tr > 0 ? spawn_one(&t, backend, NULL, &st) : -ECHILD;
	ms = now_ms() - t0;
	if (tr > 0)
		waitpid(tr, NULL, 0);
	result(b, "checked-traced-briefly-waited", !r && st == 0,
	       "spawn %d, child status %d", r, st);
	result(b, "checked-traced-briefly-took-the-wait", ms >= 200,
	       "took %.0f ms", ms);

	/*
	 * A tracer that stays: EBUSY after HJ_TRACED_WAIT_MS asleep (the
	 * rechecks between the sleeps add to the wall time, more on a slow
	 * kernel: the tracer must outlast the wait, however long it takes)
	 */
	tr = tracer(pid, -1);
	t0 = now_ms();
	r = tr > 0 ? spawn_one(&t, backend, NULL, &st) : -ECHILD;
	ms = now_ms() - t0;
	if (tr > 0) {
		kill(tr, SIGKILL);
		waitpid(tr, NULL, 0);
	}
	result(b, "checked-traced-ebusy", r == -EBUSY, "spawn %d, want %d", r,
	       -EBUSY);
	result(b, "checked-traced-ebusy-after-the-wait",
	       ms >= HJ_TRACED_WAIT_MS, "after %.0f ms", ms);

	/* frozen: refused rather than a child that would hang */
	if (freeze(cgdir, 1)) {
		result(b, "checked-frozen", 0, "cannot freeze %s", cgdir);
	} else {
		r = spawn_one(&t, backend, NULL, &st);
		result(b, "checked-frozen-edeadlk", r == -EDEADLK,
		       "spawn %d, want %d", r, -EDEADLK);
	}
	freeze(cgdir, 0);
	st = -1;
	r = spawn_one(&t, backend, NULL, &st);
	result(b, "checked-thawed-lands", !r && st == 0,
	       "spawn %d, child status %d", r, st);
	hj_target_release(&t);
}

int main(int argc, char **argv)
{
	long pid;

	if (argc != 4 || (pid = strtol(argv[1], NULL, 10)) <= 0) {
		fprintf(stderr, "usage: hj-spawn-checks PID CGROUP2-DIR "
				"HOSTNAME\n");
		return 2;
	}
	host = argv[3];
	checks((pid_t)pid, argv[2], HJ_BACKEND_NATIVE);
	checks((pid_t)pid, argv[2], HJ_BACKEND_STOCK);
	return 0;
}
