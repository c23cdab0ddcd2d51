// SPDX-License-Identifier: GPL-2.0-only
/*
 * In-guest stress test for hijack() on an SMP, preemptible guest: two
 * callers loop hijack() by pid, pidfd and cgroup while the targets exec,
 * exit (pids are reused), migrate between cgroups, get frozen and thawed,
 * and a cgroup is created and removed under them.  Every call must either
 * succeed with the child inside the targets' cgroups, or fail with ESRCH
 * (target gone or exiting, cgroup empty or removed).  The harness fails
 * the run on any kernel report (KASAN, lockdep, kmemleak in the debug
 * configuration).
 *
 * Prints "PASS name" / "FAIL name: reason" and INFO lines with counts.
 * HIJACK_STRESS_SECONDS sets the duration (default 15).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define CG	"/sys/fs/cgroup/unified"
#define ST	CG "/stress"

struct counts {
	long ok, esrch, other, outside, last_errno;
};

/* A target that execs itself over and over: same pid, new program. */
static void exec_loop(char *self)
{
	char *argv[] = { self, "exec-loop", NULL };

	usleep(500);
	execv("/proc/self/exe", argv);
	_exit(1);
}

/* Short-lived targets: their pids are freed and reused. */
static void spawn_loop(void)
{
	for (;;) {
		pid_t pid = fork();

		if (pid == 0) {
			usleep(rand() % 2000);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
	}
}

static void migrate_loop(pid_t a, pid_t b)
{
	for (unsigned int i = 0;; i++) {
		join_cgroup(i & 1 ? ST "/a" : ST "/b", a);
		join_cgroup(i & 2 ? ST "/a" : ST "/b", b);
		usleep(300);
	}
}

static void freeze_loop(void)
{
	for (;;) {
		write_file(ST "/b/cgroup.freeze", "1");
		usleep(2000);
		write_file(ST "/b/cgroup.freeze", "0");
		usleep(2000);
	}
}

/* A cgroup created, populated, emptied and removed, over and over. */
static void rmdir_loop(void)
{
	for (;;) {
		pid_t pid;

		mkdir(ST "/r", 0755);
		pid = fork();
		if (pid == 0) {
			if (join_cgroup(ST "/r", getpid()) < 0)
				_exit(1);
			usleep(1000);
			_exit(0);
		}
		if (pid > 0)
			waitpid(pid, NULL, 0);
		rmdir(ST "/r");
	}
}

/* In the hijacked child: inside /stress?  Raw fork: no stdio. */
static int child_inside(void)
{
	char cg[512];
	char *p;

	if (read_file("/proc/self/cgroup", cg, sizeof(cg)) < 0)
		return 2;
	p = strstr(cg, "0::/");
	return p && !strncmp(p, "0::/stress/", 11) ? 0 : 1;
}

static void hijack_loop(pid_t execer, int seconds, struct counts *c)
{
	int pidfd = syscall(SYS_pidfd_open, execer, 0);
	int afd = open(ST "/a", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int bfd = open(ST "/b/cgroup.procs", O_RDONLY | O_CLOEXEC);
	time_t end = time(NULL) + seconds;

	for (unsigned int i = 0; time(NULL) < end; i++) {
		int which = HIJACK_CGROUP, fd = -1, status;
		unsigned long id;
		long ret;

		switch (i % 5) {
		case 0:
			which = HIJACK_PID;
			id = execer;
			break;
		case 1:
			which = HIJACK_PIDFD;
			id = pidfd;
			break;
		case 2:
			id = afd;
			break;
		case 3:
			id = bfd;
			break;
		default:
			fd = open(ST "/r", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
			if (fd < 0)
				continue;
			id = fd;
			break;
		}
		ret = hijack(SIGCHLD, which, id);
		if (ret == 0)
			_exit(child_inside());
		if (fd >= 0)
			close(fd);
		if (ret > 0) {
			if (waitpid(ret, &status, 0) != ret || status)
				c->outside++;
			else
				c->ok++;
		} else if (errno == ESRCH) {
			c->esrch++;
		} else {
			c->other++;
			c->last_errno = errno;
		}
	}
	close(pidfd);
	close(afd);
	close(bfd);
}

int main(int argc, char **argv)
{
	const char *env = getenv("HIJACK_STRESS_SECONDS");
	int seconds = env ? atoi(env) : 15;
	pid_t execer, spawner, helpers[3], callers[2];
	struct counts *c, sum = { 0 };
	int i;

	if (argc > 1 && !strcmp(argv[1], "exec-loop"))
		exec_loop(argv[0]);

	if (hijack_init("stress-syscall-nr") < 0)
		return 1;

	/* cpuset and memory controllers on, so their fork hooks run too */
	write_file(CG "/cgroup.subtree_control", "+cpuset +memory");
	mkdir(ST, 0755);
	write_file(ST "/cgroup.subtree_control", "+cpuset +memory");
	mkdir(ST "/a", 0755);
	mkdir(ST "/b", 0755);
	write_file(ST "/a/cpuset.cpus", "0");
	write_file(ST "/b/cpuset.cpus", "1");

	c = mmap(NULL, 2 * sizeof(*c), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (c == MAP_FAILED) {
		report("stress-setup", "%m");
		return 1;
	}
	memset(c, 0, 2 * sizeof(*c));

	execer = fork();
	if (execer == 0)
		exec_loop(argv[0]);
	spawner = fork();
	if (spawner == 0)
		spawn_loop();
	join_cgroup(ST "/a", execer);
	join_cgroup(ST "/a", spawner);
	helpers[0] = fork();
	if (helpers[0] == 0)
		migrate_loop(execer, spawner);
	helpers[1] = fork();
	if (helpers[1] == 0)
		freeze_loop();
	helpers[2] = fork();
	if (helpers[2] == 0)
		rmdir_loop();

	for (i = 0; i < 2; i++) {
		callers[i] = fork();
		if (callers[i] == 0) {
			hijack_loop(execer, seconds, &c[i]);
			_exit(0);
		}
	}
	for (i = 0; i < 2; i++)
		waitpid(callers[i], NULL, 0);

	for (i = 0; i < 3; i++)
		reap(helpers[i]);
	write_file(ST "/b/cgroup.freeze", "0");
	reap(execer);
	reap(spawner);
	rmdir(ST "/r");
	rmdir(ST "/a");
	rmdir(ST "/b");
	rmdir(ST);
	write_file(CG "/cgroup.subtree_control", "-cpuset -memory");

	for (i = 0; i < 2; i++) {
		sum.ok += c[i].ok;
		sum.esrch += c[i].esrch;
		sum.other += c[i].other;
		sum.outside += c[i].outside;
		if (c[i].last_errno)
			sum.last_errno = c[i].last_errno;
	}
	printf("INFO stress %d s, 2 callers: %ld entered, %ld ESRCH, %ld other errors, %ld landed outside\n",
	       seconds, sum.ok, sum.esrch, sum.other, sum.outside);
	if (!sum.ok)
		report("stress-churn", "no hijack succeeded");
	else if (sum.other)
		report("stress-churn", "%ld unexpected errors, last %s",
		       sum.other, strerror(sum.last_errno));
	else if (sum.outside)
		report("stress-churn", "%ld children outside the targets' cgroups",
		       sum.outside);
	else
		report("stress-churn", NULL);

	printf("stress_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
