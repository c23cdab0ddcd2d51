// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * A cgroup of their own for a user's rootless containers, on a host
 * where systemd does not give one (user@.service with Delegate=yes does):
 * pam_hijack's delegate=BASE.  On every mounted hierarchy, v1 and v2:
 *
 *   BASE/            root's, not writable by anyone else (made 0755)
 *   BASE/USER/       the user's: the directory and its cgroup.procs,
 *                    tasks, cgroup.threads and cgroup.subtree_control,
 *                    the files cgroup delegation hands over (cgroups(7),
 *                    "Cgroups v2 delegation")
 *   BASE/USER/session  where the login session process moves, so that the
 *                    user may move their own processes into cgroups of
 *                    theirs: on cgroup2 that needs write access to the
 *                    common ancestor of both.
 *
 * An existing BASE/USER owned by anyone but root or the user, or a BASE
 * component anyone but root may write, is refused.  v1 cpuset cgroups
 * start without cpus or memory nodes: a new one gets its parent's, and
 * the user's gets cgroup.clone_children so theirs inherit them.  On
 * cgroup2 an empty cpuset.cpus means the parent's: nothing to fill.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

static int write_str(int dirfd, const char *file, const char *s, size_t len)
{
	int fd = openat(dirfd, file, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);

	return hj_write_close(fd, s, len);
}

/* v1 cpuset: a new cgroup gets its parent's cpus and memory nodes. */
static int cpuset_fill(int parent, int child)
{
	static const char *const files[] = { "cpuset.cpus", "cpuset.mems" };
	char buf[4096];
	size_t len, i;
	int fd, r;

	for (i = 0; i < 2; i++) {
		fd = openat(child, files[i], O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return errno == ENOENT ? 0 : -errno;
		r = hj_read_fd(fd, buf, sizeof(buf), &len);
		close(fd);
		if (r)
			return r;
		if (len && buf[0] != '\n')
			continue;
		fd = openat(parent, files[i],
			    O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return -errno;
		r = hj_read_fd(fd, buf, sizeof(buf), &len);
		close(fd);
		if (!r)
			r = write_str(child, files[i], buf, len);
		if (r)
			return r;
	}
	return 0;
}

/*
 * mkdir + open NAME below @dirfd, on the same filesystem; O_PATH fd, and
 * its stat in *@st.
 */
static int subdir(int dirfd, const char *name, bool v1, mode_t mode,
		  struct stat *st)
{
	struct stat a, b;
	bool made;
	int fd, r;

	made = mkdirat(dirfd, name, mode) == 0;
	if (!made && errno != EEXIST)
		return -errno;
	fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstat(dirfd, &a) || fstat(fd, &b)) {
		r = -errno;
		close(fd);
		return r;
	}
	if (a.st_dev != b.st_dev) {
		close(fd);
		return -EXDEV;
	}
	if (made && v1) {
		r = cpuset_fill(dirfd, fd);
		if (r) {
			close(fd);
			return r;
		}
	}
	*st = b;
	return fd;
}

static int delegate_one(const struct hj_hierarchy *h, const char *base,
			const char *user, uid_t uid, gid_t gid, pid_t pid)
{
	static const char *const files[] = { "cgroup.procs", "tasks",
					     "cgroup.threads",
					     "cgroup.subtree_control" };
	char rel[PATH_MAX], pidstr[16];
	const char *p = base;
	struct stat st;
	size_t i;
	int dfd, fd, r = 0;

	dfd = hj_cgroup_openat(h, "", O_PATH | O_DIRECTORY);
	if (dfd < 0)
		return dfd;
	/* BASE, one component at a time: root's, and only root's to write */
	while (*p) {
		size_t l = strcspn(p, "/");

		if (l >= sizeof(rel)) {
			r = -ENAMETOOLONG;
			goto out;
		}
		memcpy(rel, p, l);
		rel[l] = '\0';
		p += l + (p[l] == '/');
		fd = subdir(dfd, rel, !h->v2, 0755, &st);
		close(dfd);
		dfd = fd;
		if (dfd < 0)
			return dfd;
		if (st.st_uid != 0 || (st.st_mode & 022)) {
			r = -EPERM;
			goto out;
		}
	}
	fd = subdir(dfd, user, !h->v2, 0755, &st);
	close(dfd);
	dfd = fd;
	if (dfd < 0)
		return dfd;
	if (st.st_uid != 0 && st.st_uid != uid) {
		r = -EPERM;
		goto out;
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (fchownat(dfd, files[i], uid, gid, AT_SYMLINK_NOFOLLOW) &&
		    errno != ENOENT) {
			r = -errno;
			goto out;
		}
	if (fchownat(dfd, "", uid, gid, AT_EMPTY_PATH)) {
		r = -errno;
		goto out;
	}
	/* v1 cpuset: the user's own cgroups inherit cpus and memory nodes */
	if (!h->v2 &&
	    !faccessat(dfd, "cpuset.cpus", F_OK, AT_SYMLINK_NOFOLLOW)) {
		r = write_str(dfd, "cgroup.clone_children", "1", 1);
		if (r)
			goto out;
	}
	if (pid <= 0)
		goto out;
	fd = subdir(dfd, "session", !h->v2, 0755, &st);
	if (fd < 0) {
		r = fd;
		goto out;
	}
	close(dfd);
	dfd = fd;
	snprintf(pidstr, sizeof(pidstr), "%d", (int)pid);
	r = write_str(dfd, "cgroup.procs", pidstr, strlen(pidstr));
out:
	close(dfd);
	return r;
}

int hj_cgroup_delegate(const char *base, const char *user, uid_t uid, gid_t gid,
		       pid_t pid, char *where, size_t size)
{
	struct hj_hierarchy *h;
	char rel[PATH_MAX];
	size_t n, i;
	int r;

	if (where && size)
		where[0] = '\0';
	if (uid == 0)
		return -EINVAL;
	if (snprintf(rel, sizeof(rel), "%s/%s", base, user) >= (int)sizeof(rel))
		return -ENAMETOOLONG;
	r = hj_cgroup_path_check(rel);
	if (r || strchr(user, '/'))
		return r ? r : -EINVAL;
	h = hj_large_calloc(HJ_MAX_HIERARCHIES, sizeof(*h));
	if (!h)
		return -ENOMEM;
	r = hj_cgroup_hierarchies(h, HJ_MAX_HIERARCHIES, &n);
	for (i = 0; !r && i < n; i++) {
		r = delegate_one(&h[i], base, user, uid, gid, pid);
		if (r && where)
			snprintf(where, size, "%s/%s", h[i].mnt, rel);
	}
	hj_large_free(h);
	return r;
}
