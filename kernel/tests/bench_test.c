// SPDX-License-Identifier: GPL-2.0-only
/*
 * Not a test suite: the loop, the fuzz and the benchmark of hijack() in
 * the guest, beside the kselftest (tools/testing/selftests/hijack, patch
 * 0006) that holds the tests.  In a root container (namespaces, a v1 pids
 * and a cgroup2 cgroup), as the guest's /init runs it:
 *
 *   loop-N-hijacks     HIJACK_LOOPS calls by pidfd and cgroup fd, each
 *                      must make a child
 *   random-arguments   2000 calls with random flags, kinds and ids: the
 *                      kernel survives them, every child is reaped
 *   BENCH lines        fork+exec, hijack+exec and setns+fork+exec (what
 *                      userspace does without hijack()), interleaved,
 *                      HIJACK_BENCH_ROUNDS rounds (200); with
 *                      HIJACK_BENCH=0 (a KASAN kernel) no times, the
 *                      rounds only checked
 *
 * Prints "PASS name" / "FAIL name: reason", and the BENCH lines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

/* A container: a host-side helper and the container's init. */
struct container {
	char cg_v1[128];
	char cg_v2[128];
	pid_t helper;	/* host pid namespace, first in the cgroups */
	pid_t init;	/* pid 1 of the container, host pid */
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Raw fork-like clone, so the child can be created in new namespaces. */
static pid_t clone_ns(unsigned long flags)
{
	return syscall(SYS_clone, flags | SIGCHLD, 0, NULL, NULL, 0);
}

static void container_init(const char *name, int wfd)
{
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	if (sethostname(name, strlen(name)) < 0)
		_exit(1);
	if (write(wfd, "r", 1) != 1)
		_exit(1);
	close(wfd);
	for (;;)
		pause();
}

/*
 * A root container as `unshare --fork --pid --mount --uts --ipc --net`
 * makes one from a shell in its own cgroups: the helper joins them first,
 * then forks the container's init and waits for it.
 */
static int container_start(struct container *c, const char *name)
{
	int p[2], q[2];
	char buf;

	snprintf(c->cg_v1, sizeof(c->cg_v1), CG_V1_PIDS "/%s", name);
	snprintf(c->cg_v2, sizeof(c->cg_v2), CG_V2 "/%s", name);
	mkdir(c->cg_v1, 0755);
	mkdir(c->cg_v2, 0755);
	if (pipe(p) < 0 || pipe(q) < 0)
		return -1;
	c->helper = fork();
	if (c->helper < 0)
		return -1;
	if (c->helper == 0) {
		pid_t init;

		close(p[0]);
		close(q[0]);
		if (join_cgroup(c->cg_v1, getpid()) < 0 ||
		    join_cgroup(c->cg_v2, getpid()) < 0)
			_exit(1);
		init = clone_ns(CLONE_NEWUTS | CLONE_NEWPID | CLONE_NEWIPC |
				CLONE_NEWNS | CLONE_NEWNET);
		if (init == 0) {
			close(q[1]);
			container_init(name, p[1]);
		}
		if (init < 0 || write(q[1], &init, sizeof(init)) < 0)
			_exit(1);
		close(p[1]);
		waitpid(init, NULL, 0);
		_exit(0);
	}
	close(p[1]);
	close(q[1]);
	if (read(q[0], &c->init, sizeof(c->init)) != sizeof(c->init) ||
	    read(p[0], &buf, 1) != 1)
		c->init = -1;
	close(p[0]);
	close(q[0]);
	return c->init > 0 ? 0 : -1;
}

static void container_stop(struct container *c)
{
	if (c->init > 0)
		kill(c->init, SIGKILL);
	if (c->helper > 0)
		waitpid(c->helper, NULL, 0);
	rmdir(c->cg_v1);
	rmdir(c->cg_v2);
}

/* Many calls, then random arguments: no failure, no crash. */
static void loop(struct container *c, int timed)
{
	const char *env = getenv("HIJACK_LOOPS");
	unsigned int loops = env ? atoi(env) : 1000;
	unsigned int seed = 42, i, bad = 0;
	int fd = syscall(SYS_pidfd_open, c->init, 0);
	int cfd = open(c->cg_v1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char name[64];
	double t0;

	t0 = now_us();
	for (i = 0; i < loops; i++) {
		long ret = hijack(SIGCHLD, i & 1 ? HIJACK_PIDFD : HIJACK_CGROUP,
				  i & 1 ? fd : cfd);

		if (ret == 0)
			_exit(0);
		if (ret < 0 || waitpid(ret, NULL, 0) != ret)
			bad++;
	}
	if (timed)
		printf("BENCH %u hijacks (pidfd/cgroup, no exec) in %.1f s\n",
		       loops, (now_us() - t0) / 1e6);
	snprintf(name, sizeof(name), "loop-%u-hijacks", loops);
	report(name, bad ? "%u failures" : NULL, bad);

	for (i = 0; i < 2000; i++) {
		unsigned long flags = rand_r(&seed);
		int which = rand_r(&seed) % 6 - 1;
		unsigned long id = rand_r(&seed) % 1200;
		long ret;

		if (rand_r(&seed) & 1)
			flags = SIGCHLD;
		if (rand_r(&seed) % 4 == 0)
			id = (unsigned long)rand_r(&seed) << 20;
		ret = hijack(flags, which, id);
		if (ret == 0)
			_exit(0);
		if (ret > 0)
			waitpid(ret, NULL, 0);
	}
	report("random-arguments", NULL);
	close(fd);
	close(cfd);
}

static void exec_true(void)
{
	char *const argv[] = { "true", NULL };

	execve("/bin/true", argv, environ);
	_exit(127);
}

/* The stock-kernel way: setns() on a pidfd, fork, join the cgroups. */
static void stock_enter(struct container *c, int pidfd)
{
	pid_t pid;

	if (setns(pidfd, CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
		  CLONE_NEWNET | CLONE_NEWPID) < 0)
		_exit(126);
	pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (pid != 0)
		_exit(pid < 0 ? 126 : 0);
	if (join_cgroup(c->cg_v1, 0) < 0 || join_cgroup(c->cg_v2, 0) < 0)
		_exit(125);
	exec_true();
}

/* Reap one child within 10 s; 0 if it exited 0. */
static int reaped(pid_t pid)
{
	int i, status;

	for (i = 0; i < 10000; i++) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w < 0)
			return -1;
		if (w > 0)
			return WIFEXITED(status) && !WEXITSTATUS(status) ?
			       0 : -1;
		usleep(1000);
	}
	return -1;
}

/*
 * Side by side: plain fork+exec, hijack+exec, and setns+fork+cgroup
 * join+exec (what userspace must do without hijack).  The three are
 * interleaved, so a busy host skews them alike, and averaged over many
 * rounds, since the guest's clock may tick coarsely (jiffies under TCG).
 * Under TCG only the ratios mean something.  Every child must exit 0.
 */
static void bench(struct container *c, int timed)
{
	const char *env = getenv("HIJACK_BENCH_ROUNDS");
	int i, bad = 0, rounds = env ? atoi(env) : 200;
	int pidfd = syscall(SYS_pidfd_open, c->init, 0);
	double t0, plain = 0, native = 0, stock = 0;
	pid_t pid;

	if (rounds < 1)
		rounds = 1;
	for (i = 0; i < rounds; i++) {
		t0 = now_us();
		pid = fork();
		if (pid == 0)
			exec_true();
		bad += reaped(pid) < 0;
		plain += now_us() - t0;

		t0 = now_us();
		pid = hijack(SIGCHLD, HIJACK_PIDFD, pidfd);
		if (pid == 0)
			exec_true();
		bad += pid < 0 || reaped(pid) < 0;
		native += now_us() - t0;

		t0 = now_us();
		pid = fork();
		if (pid == 0)
			stock_enter(c, pidfd);
		/* the intermediate, then the grandchild reparented to us */
		bad += reaped(pid) < 0;
		bad += reaped(-1) < 0;
		stock += now_us() - t0;
	}
	close(pidfd);
	report("bench-rounds", bad ? "%d of %d rounds' children failed" : NULL,
	       bad, rounds);
	if (!timed)
		return;
	printf("BENCH mean of %d: fork+exec %.0f us, hijack+exec %.0f us, setns+fork+exec %.0f us\n",
	       rounds, plain / rounds, native / rounds, stock / rounds);
	printf("BENCH hijack/fork = %.2f, hijack/setns = %.2f\n",
	       native / plain, native / stock);
}

int main(void)
{
	const char *env = getenv("HIJACK_BENCH");
	int timed = !env || atoi(env);
	struct container c;

	if (hijack_init("bench-syscall-nr") < 0)
		return 1;
	memset(&c, 0, sizeof(c));
	if (container_start(&c, "bench") < 0) {
		report("bench-setup", "%m");
	} else {
		loop(&c, timed);
		bench(&c, timed);
	}
	container_stop(&c);
	printf("bench_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
