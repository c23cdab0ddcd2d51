// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A target's user namespace as a login of a host user sees it: whose it
 * is, and which ids the user has inside (a rootless container is one its
 * user owns).  Read from the host's /proc while the target is pinned.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/nsfs.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

/*
 * The user namespace @ns is in, walked up to the one right below ours
 * (NS_GET_PARENT).  The kernel gives an unprivileged euid every
 * capability in a user namespace exactly when that namespace, or one of
 * its ancestors, is a child of the caller's and owned by the euid
 * (cap_capable() in security/commoncap.c): the owner of that one child
 * is what decides.  0 with *top open (the caller closes it); -EXDEV when
 * @ns is not below ours.
 */
static int userns_top(int ns, const struct stat *mine, int *top)
{
	int cur = dup(ns), depth;

	if (cur < 0)
		return -errno;
	/* the kernel nests user namespaces at most 32 deep */
	for (depth = 0; depth < 33; depth++) {
		struct stat st;
		int parent = ioctl(cur, NS_GET_PARENT);

		if (parent < 0) {
			int e = errno;

			close(cur);
			/* EPERM: the parent is outside our own namespace */
			return e == EPERM ? -EXDEV : -e;
		}
		if (fstat(parent, &st)) {
			int e = errno;

			close(parent);
			close(cur);
			return -e;
		}
		if (st.st_ino == mine->st_ino && st.st_dev == mine->st_dev) {
			close(parent);
			*top = cur;
			return 0;
		}
		close(cur);
		cur = parent;
	}
	close(cur);
	return -ELOOP;
}

/*
 * What @id (a host id; an id inside when @inside) is mapped to across
 * @pid's user namespace (@file: uid_map or gid_map).
 */
static int mapped_id(pid_t pid, const char *file, unsigned int id, bool inside,
		     bool *mapped, unsigned int *to)
{
	char buf[4096];
	size_t len;
	int r = hj_proc_read(pid, file, buf, sizeof(buf), &len);

	if (r)
		return r == -EACCES ? -EPERM : r;
	r = hj_parse_id_map(buf, len, id, inside, to);
	*mapped = r == 0;
	return r == -ENOENT ? 0 : r;
}

/* "deny" in /proc/PID/setgroups (user_namespaces(7)) */
static int setgroups_denied(pid_t pid, bool *denied)
{
	char buf[16];
	size_t len;
	int r = hj_proc_read(pid, "setgroups", buf, sizeof(buf), &len);

	if (r)
		return r == -EACCES ? -EPERM : r;
	*denied = len >= 4 && !memcmp(buf, "deny", 4);
	return 0;
}

int hj_userns_of(struct hj_target *t, uid_t uid, gid_t gid, struct hj_userns *u)
{
	char path[64];
	struct stat mine;
	unsigned int root;
	int ns = -1, top = -1, r;

	memset(u, 0, sizeof(*u));
	u->owner = (uid_t)-1;
	if (t->pidfd < 0)
		return -ESRCH;
	if (!(t->ns_differ & HJ_NS_USER))
		return 0;
	u->own_ns = true;
	if (stat("/proc/self/ns/user", &mine))
		return -errno;
	snprintf(path, sizeof(path), "/proc/%d/ns/user", (int)t->pid);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	if (ns < 0)
		return errno == EACCES ? -EPERM : -errno;
	r = userns_top(ns, &mine, &top);
	if (r == -EXDEV) {
		r = 0; /* not below ours: owned by nobody we know */
		goto out;
	}
	if (r)
		goto out;
	if (ioctl(top, NS_GET_OWNER_UID, &u->owner)) {
		r = -errno;
		goto out;
	}
	u->owned = u->owner == uid;
	r = mapped_id(t->pid, "uid_map", uid, false, &u->uid_mapped, &u->uid);
	if (!r)
		r = mapped_id(t->pid, "gid_map", gid, false, &u->gid_mapped,
			      &u->gid);
	if (!r)
		r = mapped_id(t->pid, "uid_map", 0, true, &u->root_mapped,
			      &root);
	if (!r && u->root_mapped)
		r = mapped_id(t->pid, "gid_map", 0, true, &u->root_mapped,
			      &root);
	if (!r)
		r = setgroups_denied(t->pid, &u->setgroups_denied);
	if (r)
		goto out;
	/* all of the above was read from the task the pidfd pins */
	r = hj_target_recheck(t);
out:
	if (top >= 0)
		close(top);
	close(ns);
	return r;
}
