// SPDX-License-Identifier: GPL-2.0-or-later
/* Namespaces: names, clone flags, and which of them differ from ours. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

static const struct {
	unsigned int bit;
	const char *name;
	int clone_flag;
} ns_table[HJ_NS_COUNT] = {
	{ HJ_NS_USER, "user", CLONE_NEWUSER },
	{ HJ_NS_MNT, "mnt", CLONE_NEWNS },
	{ HJ_NS_UTS, "uts", CLONE_NEWUTS },
	{ HJ_NS_IPC, "ipc", CLONE_NEWIPC },
	{ HJ_NS_NET, "net", CLONE_NEWNET },
	{ HJ_NS_PID, "pid", CLONE_NEWPID },
	{ HJ_NS_CGROUP, "cgroup", CLONE_NEWCGROUP },
	{ HJ_NS_TIME, "time", CLONE_NEWTIME },
};

const char *hj_ns_name(unsigned int bit)
{
	int i;

	for (i = 0; i < HJ_NS_COUNT; i++)
		if (ns_table[i].bit == bit)
			return ns_table[i].name;
	return "?";
}

int hj_ns_clone_flags(unsigned int mask)
{
	int i, flags = 0;

	for (i = 0; i < HJ_NS_COUNT; i++)
		if (mask & ns_table[i].bit)
			flags |= ns_table[i].clone_flag;
	return flags;
}

/*
 * Namespaces of @pid that differ from the caller's.  A kernel without a
 * namespace type (no time namespaces before 5.6) simply has nothing to
 * enter there.  Both ns directories are looked up once.
 */
int hj_ns_differ(pid_t pid, unsigned int *mask)
{
	char path[64];
	int mine, theirs, i, r = 0;

	*mask = 0;
	snprintf(path, sizeof(path), "/proc/%d/ns", (int)pid);
	mine = open("/proc/self/ns", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (mine < 0)
		return -errno;
	theirs = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (theirs < 0) {
		r = errno == EACCES ? -EPERM : -errno;
		close(mine);
		return r;
	}
	for (i = 0; i < HJ_NS_COUNT; i++) {
		struct stat a, b;

		if (fstatat(mine, ns_table[i].name, &a, 0)) {
			if (errno == ENOENT)
				continue;
			r = -errno;
			break;
		}
		if (fstatat(theirs, ns_table[i].name, &b, 0)) {
			r = errno == EACCES ? -EPERM : -errno;
			break;
		}
		if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
			*mask |= ns_table[i].bit;
	}
	close(theirs);
	close(mine);
	return r;
}
