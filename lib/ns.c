// SPDX-License-Identifier: GPL-2.0-or-later
/* Namespaces: names, clone flags, and which of them differ from ours. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

#include <linux/nsfs.h>

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

/*
 * Move the caller into @t's network namespace, and into no other.  This
 * is pam_hijack's session step: sshd runs it in the privileged process of
 * a connection, which only then forks the child that serves the
 * connection's channels, so every forwarded connect() and every remote
 * listener of the login starts in the container's network.
 *
 * The namespace is opened by the pid and is the target's only if the
 * pidfd says the pinned task lived after the open: a pid is not reused
 * while its task lives.  0 once /proc/self/ns/net is that namespace, with
 * its inode in *ino (when not NULL); -ESRCH when the target died.
 */
int hj_ns_enter_net(const struct hj_target *t, unsigned long long *ino)
{
	struct stat want, now;
	char path[64];
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = fstat(fd, &want) ? -errno : hj_target_alive(t);
	if (!r && setns(fd, CLONE_NEWNET))
		r = -errno;
	close(fd);
	if (r)
		return r;
	if (stat("/proc/self/ns/net", &now))
		return -errno;
	if (now.st_dev != want.st_dev || now.st_ino != want.st_ino)
		return -EIO;
	if (ino)
		*ino = (unsigned long long)want.st_ino;
	return 0;
}

/* user namespaces nest at most 32 deep (kernel/user_namespace.c) */
#define USERNS_DEPTH_MAX 33

/*
 * Whether the owner of @t's user namespace could enter @t's network
 * namespace without privilege: only when the network namespace's owning
 * user namespace is @t's or one below it (setns() wants CAP_SYS_ADMIN
 * there, which the root of @t's user namespace holds in it and in its
 * descendants, and nowhere else).  pam_hijack asks before it moves a
 * rootless container's login into the network by privilege: a network
 * root made for the container (unshare --net, then the user's own
 * namespaces inside) is not one the user may enter, and hijack-shell
 * would not enter it either.
 *
 * 0 when it is, -EPERM when it is not, -ESRCH when the target died,
 * -errno otherwise.
 */
int hj_ns_net_in_userns(const struct hj_target *t)
{
	struct stat user, st;
	int ufd, fd, up, depth, r;
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)t->pid);
	ufd = open(path, O_RDONLY | O_CLOEXEC);
	if (ufd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)t->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	r = fd < 0 ? (errno == ENOENT ? -ESRCH : -errno) : 0;
	if (!r && fstat(ufd, &user))
		r = -errno;
	close(ufd);
	if (!r)
		r = hj_target_alive(t);
	if (r) {
		if (fd >= 0)
			close(fd);
		return r;
	}
	up = ioctl(fd, NS_GET_USERNS);
	r = up < 0 ? -errno : -EPERM;
	close(fd);
	for (depth = 0; up >= 0 && depth < USERNS_DEPTH_MAX; depth++) {
		if (fstat(up, &st)) {
			r = -errno;
			break;
		}
		if (st.st_dev == user.st_dev && st.st_ino == user.st_ino) {
			r = 0;
			break;
		}
		/* EPERM above the host's user namespace: not below @t's */
		fd = ioctl(up, NS_GET_PARENT);
		if (fd < 0 && errno != EPERM)
			r = -errno;
		close(up);
		up = fd;
	}
	if (up >= 0)
		close(up);
	return r;
}
