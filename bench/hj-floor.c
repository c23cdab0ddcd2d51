// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hj-floor PID PROG [ARG...]: the least any entry on a stock kernel does,
 * and nothing else: pidfd_open(PID), one setns(pidfd, every namespace of
 * PID's that differs from ours), fork, execv(PROG), waitpid.  No access
 * check, no cgroup join, no confinement, no recheck that the pidfd still
 * names the task whose namespaces were compared: bench/run's physical
 * floor for `hijack pid` and `nsenter -a`, not a tool.
 *
 * Built static, like the command it runs in the bench (the container's
 * busybox), so that its own start-up is an exec without a dynamic loader.
 * Exit status: PROG's, or 125 when this program fails.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const struct {
	const char *name;
	int flag;
} ns[] = {
	{ "cgroup", CLONE_NEWCGROUP }, { "ipc", CLONE_NEWIPC },
	{ "mnt", CLONE_NEWNS },	       { "net", CLONE_NEWNET },
	{ "pid", CLONE_NEWPID },       { "time", CLONE_NEWTIME },
	{ "user", CLONE_NEWUSER },     { "uts", CLONE_NEWUTS },
};

int main(int argc, char **argv)
{
	char path[64];
	struct stat a, b;
	int pidfd, flags = 0, status;
	size_t i;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: hj-floor PID PROG [ARG...]\n");
		return 125;
	}
	pidfd = syscall(SYS_pidfd_open, atoi(argv[1]), 0);
	if (pidfd < 0) {
		perror("pidfd_open");
		return 125;
	}
	/* entering our own user namespace fails (EINVAL): only those that differ */
	for (i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		snprintf(path, sizeof(path), "/proc/%s/ns/%s", argv[1],
			 ns[i].name);
		if (stat(path, &a))
			continue; /* not in this kernel */
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i].name);
		if (stat(path, &b) || a.st_ino != b.st_ino ||
		    a.st_dev != b.st_dev)
			flags |= ns[i].flag;
	}
	if (flags && setns(pidfd, flags)) {
		perror("setns");
		return 125;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 125;
	}
	if (pid == 0) {
		execv(argv[2], argv + 2);
		perror("execv");
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 125;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
