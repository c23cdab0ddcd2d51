// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup hierarchies: which are mounted where, which cgroup a task is in,
 * and opening a cgroup directory without following anything a cgroup
 * owner could plant.  Works on pure v1, hybrid and pure v2 machines.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

/* Super options of a v1 mount that are not controllers. */
static bool generic_option(const char *opt, size_t len)
{
	static const char *const generic[] = { "rw", "ro", "noprefix",
					       "clone_children", "xattr",
					       "cpuset_v2_mode", "favordynmods",
					       "none" };
	size_t i;

	if (len >= 14 && !memcmp(opt, "release_agent=", 14))
		return true;
	for (i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (strlen(generic[i]) == len && !memcmp(opt, generic[i], len))
			return true;
	return false;
}

/* Keep only the controllers (and name=) of a v1 super option list. */
static int controllers_of(const char *opts, size_t len, char *out,
			  size_t size)
{
	const char *p = opts, *end = opts + len;
	size_t o = 0;

	while (p < end) {
		const char *comma = memchr(p, ',', end - p);
		size_t l;

		if (!comma)
			comma = end;
		l = comma - p;
		if (memchr(p, '\0', l))
			return -EINVAL;
		if (l && !generic_option(p, l)) {
			if (o + l + 2 > size)
				return -ENAMETOOLONG;
			if (o)
				out[o++] = ',';
			memcpy(out + o, p, l);
			o += l;
		}
		p = comma + 1;
	}
	out[o] = '\0';
	return o ? 0 : -EINVAL;
}

/* Both lists name the same set of controllers. */
bool hj_same_controllers(const char *a, size_t alen, const char *b)
{
	const char *p = a, *end = a + alen;
	size_t na = 0, nb = 1;

	if (!*b)
		return false;
	for (const char *q = b; *q; q++)
		nb += *q == ',';
	while (p < end) {
		const char *comma = memchr(p, ',', end - p);
		const char *s = b;
		size_t l;
		bool found = false;

		if (!comma)
			comma = end;
		l = comma - p;
		while (*s) {
			const char *c = strchr(s, ',');
			size_t sl = c ? (size_t)(c - s) : strlen(s);

			if (sl == l && !memcmp(s, p, l)) {
				found = true;
				break;
			}
			if (!c)
				break;
			s = c + 1;
		}
		if (!found)
			return false;
		na++;
		p = comma + 1;
	}
	return na == nb;
}

/* Undo the octal escapes of /proc/self/mountinfo, into a C string. */
static int unescape(const char *s, size_t len, char *out, size_t size)
{
	size_t i, o = 0;

	for (i = 0; i < len; i++) {
		char c = s[i];

		if (c == '\\' && i + 3 < len &&
		    s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' &&
		    s[i + 2] <= '7' && s[i + 3] >= '0' && s[i + 3] <= '7') {
			c = (s[i + 1] - '0') << 6 | (s[i + 2] - '0') << 3 |
			    (s[i + 3] - '0');
			i += 3;
		}
		if (c == '\0' || o + 1 >= size)
			return -EINVAL;
		out[o++] = c;
	}
	out[o] = '\0';
	return 0;
}

/* Split a line into space separated fields. */
static int split(const char *p, const char *end, const char **f, size_t *fl,
		 int max)
{
	int n = 0;

	while (p < end && n < max) {
		const char *s;

		while (p < end && *p == ' ')
			p++;
		if (p >= end)
			break;
		s = p;
		while (p < end && *p != ' ')
			p++;
		f[n] = s;
		fl[n] = p - s;
		n++;
	}
	return n;
}

/* Only the bytes in use: a whole struct is 8 KiB of fresh pages. */
static void copy_hierarchy(struct hj_hierarchy *to,
			   const struct hj_hierarchy *from)
{
	to->v2 = from->v2;
	memcpy(to->mnt, from->mnt, strlen(from->mnt) + 1);
	memcpy(to->root, from->root, strlen(from->root) + 1);
	memcpy(to->opts, from->opts, strlen(from->opts) + 1);
}

int hj_parse_mountinfo(const char *buf, size_t len, struct hj_hierarchy *h,
		       size_t max, size_t *n)
{
	const char *p = buf, *end = buf + len;

	*n = 0;
	if (!buf)
		return len ? -EINVAL : 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *f[32];
		size_t fl[32], i;
		struct hj_hierarchy cur;
		int nf, sep = -1;

		if (!eol)
			eol = end;
		nf = split(p, eol, f, fl, 32);
		p = eol + 1;
		for (i = 6; i < (size_t)nf; i++)
			if (fl[i] == 1 && f[i][0] == '-') {
				sep = i;
				break;
			}
		if (sep < 0 || sep + 3 >= nf)
			continue;
		/* no memset: 8 KiB a line; every string is written below */
		cur.v2 = false;
		cur.opts[0] = '\0';
		if (fl[sep + 1] == 7 && !memcmp(f[sep + 1], "cgroup2", 7))
			cur.v2 = true;
		else if (!(fl[sep + 1] == 6 && !memcmp(f[sep + 1], "cgroup", 6)))
			continue;
		if (unescape(f[3], fl[3], cur.root, sizeof(cur.root)) ||
		    unescape(f[4], fl[4], cur.mnt, sizeof(cur.mnt)))
			continue;
		if (!cur.v2 && controllers_of(f[sep + 3], fl[sep + 3], cur.opts,
					      sizeof(cur.opts)))
			continue;
		/* one entry a hierarchy; prefer a mount of its root */
		for (i = 0; i < *n; i++)
			if (h[i].v2 == cur.v2 &&
			    (cur.v2 || !strcmp(h[i].opts, cur.opts)))
				break;
		if (i < *n) {
			if (strcmp(h[i].root, "/") && !strcmp(cur.root, "/"))
				copy_hierarchy(&h[i], &cur);
			continue;
		}
		if (*n == max)
			return -E2BIG;
		copy_hierarchy(&h[(*n)++], &cur);
	}
	return 0;
}

/*
 * /proc/self/mountinfo into a fresh heap buffer (callers may be threads
 * of a PAM application), grown while the file does not fit.
 */
/* mapped (mem.c): a host with many mounts needs more than 128 KiB */
#define MOUNTINFO_START (64 * 1024)
#define MOUNTINFO_MAX (64 * 1024 * 1024)

static int read_mountinfo(char **bufp, size_t *len)
{
	size_t size;
	int r = -EFBIG;

	for (size = MOUNTINFO_START; size <= MOUNTINFO_MAX && r == -EFBIG;
	     size *= 2) {
		char *buf = hj_large_calloc(1, size);
		int fd;

		if (!buf)
			return -ENOMEM;
		fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			r = -errno;
			hj_large_free(buf);
			return r;
		}
		r = hj_read_fd(fd, buf, size, len);
		close(fd);
		if (!r) {
			*bufp = buf;
			return 0;
		}
		hj_large_free(buf);
	}
	return r;
}

int hj_cgroup_hierarchies(struct hj_hierarchy *h, size_t max, size_t *n)
{
	char *buf = NULL;
	size_t len = 0;
	int r;

	r = read_mountinfo(&buf, &len);
	if (r)
		return r;
	r = hj_parse_mountinfo(buf, len, h, max, n);
	hj_large_free(buf);
	if (r)
		return r;
	return *n ? 0 : -ENOENT;
}

/*
 * Map the lines of /proc/PID/cgroup ("id:controllers:/path") onto the
 * mounted hierarchies.  Hierarchies that are not mounted are skipped: a
 * task cannot be moved on them anyway.
 */
int hj_parse_proc_cgroup(const char *buf, size_t len,
			 const struct hj_hierarchy *h, size_t nh,
			 struct hj_membership *m, size_t max, size_t *n)
{
	const char *p = buf, *end = buf + len;

	*n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *c1, *c2, *path;
		size_t i, plen, rlen;

		if (!eol)
			eol = end;
		c1 = memchr(p, ':', eol - p);
		c2 = c1 ? memchr(c1 + 1, ':', eol - c1 - 1) : NULL;
		if (!c2 || c2 + 1 == eol || c2[1] != '/')
			return -EINVAL;
		path = c2 + 1;
		plen = eol - path;
		for (i = 0; i < nh; i++) {
			if (c2 == c1 + 1 ?
				    h[i].v2 :
				    !h[i].v2 && hj_same_controllers(c1 + 1,
								    c2 - c1 - 1,
								    h[i].opts))
				break;
		}
		p = eol + 1;
		if (i == nh)
			continue;
		/* strip the mount's root; a cgroup outside it is unreachable */
		rlen = strlen(h[i].root);
		if (rlen == 1)
			rlen = 0;
		if (plen < rlen || memcmp(path, h[i].root, rlen) ||
		    (plen > rlen && path[rlen] != '/'))
			continue;
		path += rlen;
		plen -= rlen;
		while (plen && *path == '/') {
			path++;
			plen--;
		}
		if (*n == max)
			return -E2BIG;
		if (plen >= sizeof(m[*n].path) || memchr(path, '\0', plen))
			return -ENAMETOOLONG;
		m[*n].hier = i;
		memcpy(m[*n].path, path, plen);
		m[*n].path[plen] = '\0';
		(*n)++;
	}
	return 0;
}

/*
 * A relative cgroup path as hijack.conf and /proc/PID/cgroup give it:
 * no "..", no ".", no empty component, bounded.
 */
int hj_cgroup_path_check(const char *path)
{
	const char *p = path, *comp = path;
	int r = 0;

	/* one pass; the length decides first, as the caller's limit */
	for (;; p++) {
		size_t l;

		p = strchrnul(p, '/');
		l = p - comp;
		if (l == 0 || (l == 1 && comp[0] == '.') ||
		    (l == 2 && comp[0] == '.' && comp[1] == '.') ||
		    l > NAME_MAX)
			r = -EINVAL;
		if (!*p)
			break;
		comp = p + 1;
	}
	if (p - path >= HJ_CGROUP_PATH_MAX)
		return -ENAMETOOLONG;
	return p == path ? 0 : r;
}

static unsigned long cgroup_magic(const struct hj_hierarchy *h)
{
	return h->v2 ? CGROUP2_SUPER_MAGIC : CGROUP_SUPER_MAGIC;
}

/* The mount an fd is on, by its id (statx, else fdinfo before 5.8). */
static int mount_id(int fd, unsigned long long *id)
{
	struct statx stx;
	long long v;
	int r;

	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID,
		  &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID)) {
		*id = stx.stx_mnt_id;
		return 0;
	}
	r = hj_fdinfo_field(fd, "mnt_id", &v);
	if (r)
		return r == -ENOENT ? -ENOTSUP : r;
	*id = (unsigned long long)v;
	return 0;
}

/* @fd is on the cgroup fs of @magic, in the mount @mnt_id, not a link. */
static int same_mount(int fd, unsigned long magic, unsigned long long mnt_id)
{
	unsigned long long id = 0;
	struct statfs sfs;
	struct stat st;
	int r;

	if (fstatfs(fd, &sfs) || fstat(fd, &st))
		return -errno;
	if (S_ISLNK(st.st_mode))
		return -ELOOP;
	if ((unsigned long)sfs.f_type != magic)
		return -EXDEV;
	r = mount_id(fd, &id);
	if (r)
		return r;
	return id == mnt_id ? 0 : -EXDEV;
}

/*
 * openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_XDEV) done
 * by hand, for kernels before 5.6 and for valgrind: one component at a
 * time with O_NOFOLLOW, each checked to be on the same cgroup mount.
 * @rel has passed hj_cgroup_path_check(): no "..", ".", "" or leading '/'.
 */
static int walk_beneath(int mfd, unsigned long magic, const char *rel,
			int flags)
{
	char name[NAME_MAX + 1];
	unsigned long long mnt_id = 0;
	int dfd, fd, r;

	r = mount_id(mfd, &mnt_id);
	if (r)
		return r;
	dfd = fcntl(mfd, F_DUPFD_CLOEXEC, 0);
	if (dfd < 0)
		return -errno;
	for (;;) {
		const char *slash = strchr(rel, '/');
		size_t l = slash ? (size_t)(slash - rel) : strlen(rel);
		bool last = !slash;

		if (l > NAME_MAX) {
			close(dfd);
			return -ENAMETOOLONG;
		}
		memcpy(name, l ? rel : ".", l ? l : 1);
		name[l ? l : 1] = '\0';
		fd = openat(dfd, name,
			    (last ? flags : O_PATH | O_DIRECTORY) | O_CLOEXEC |
				    O_NOFOLLOW);
		r = fd < 0 ? -errno : same_mount(fd, magic, mnt_id);
		close(dfd);
		if (r) {
			if (fd >= 0)
				close(fd);
			return r;
		}
		if (last)
			return fd;
		dfd = fd;
		rel = slash + 1;
	}
}

static int open_mount(const struct hj_hierarchy *h)
{
	struct statfs sfs;
	int mfd;

	mfd = open(h->mnt, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (mfd < 0)
		return -errno;
	if (fstatfs(mfd, &sfs) ||
	    (unsigned long)sfs.f_type != cgroup_magic(h)) {
		close(mfd);
		return -EBADF;
	}
	return mfd;
}

/* Open a cgroup below a hierarchy's mount: no symlinks, no other fs. */
int hj_cgroup_openat(const struct hj_hierarchy *h, const char *rel, int flags)
{
	struct open_how how = {
		.flags = flags | O_CLOEXEC | O_NOFOLLOW,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
			   RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV,
	};
	int mfd, fd;

	mfd = open_mount(h);
	if (mfd < 0)
		return mfd;
	fd = syscall(SYS_openat2, mfd, *rel ? rel : ".", &how, sizeof(how));
	fd = fd < 0 ? -errno : fd;
	if (fd == -ENOSYS) {
		fd = hj_cgroup_path_check(rel);
		if (!fd)
			fd = walk_beneath(mfd, cgroup_magic(h), rel, flags);
	}
	close(mfd);
	return fd;
}

/* The fallback of hj_cgroup_openat() alone, for the tests. */
int hj_cgroup_openat_walk(const struct hj_hierarchy *h, const char *rel,
			  int flags)
{
	int mfd, fd;

	fd = hj_cgroup_path_check(rel);
	if (fd)
		return fd;
	mfd = open_mount(h);
	if (mfd < 0)
		return mfd;
	fd = walk_beneath(mfd, cgroup_magic(h), rel, flags);
	close(mfd);
	return fd;
}

/*
 * Is @fd a cgroup membership file ("tasks" on v1, "cgroup.procs" on v1
 * and v2) or a cgroup directory?  Decided by the filesystem magic and the
 * name the kernel has for the open file, not by a path string.
 */
int hj_cgroup_is_member_file(int fd)
{
	char link[64], name[PATH_MAX];
	struct statfs sfs;
	struct stat st;
	const char *base;
	ssize_t l;

	if (fstatfs(fd, &sfs) || fstat(fd, &st))
		return -EBADF;
	if (sfs.f_type != CGROUP_SUPER_MAGIC &&
	    sfs.f_type != CGROUP2_SUPER_MAGIC)
		return -EBADF;
	if (S_ISDIR(st.st_mode))
		return 0;
	if (!S_ISREG(st.st_mode))
		return -EBADF;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	l = readlink(link, name, sizeof(name) - 1);
	if (l < 0)
		return -EBADF;
	name[l] = '\0';
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (!strcmp(base, "cgroup.procs"))
		return 0;
	if (!strcmp(base, "tasks") && sfs.f_type == CGROUP_SUPER_MAGIC)
		return 0;
	return -EBADF;
}

/* /proc/PID/cgroup mapped onto the hierarchies. */
static int read_memberships(pid_t pid, struct hj_task_cgroups *tc,
			    struct hj_membership *m, size_t *n)
{
	char buf[8192];
	size_t len;
	int r;

	r = hj_proc_read(pid, "cgroup", buf, sizeof(buf), &len);
	if (r == -ENOENT)
		return -ESRCH; /* the task, not the cgroupfs, is gone */
	if (r)
		return r;
	return hj_parse_proc_cgroup(buf, len, tc->h, tc->nh, m,
				    HJ_MAX_HIERARCHIES, n);
}

/*
 * The cgroups of @pid on every mounted hierarchy, read from the host's
 * /proc, and with @self the caller's as well (in ->self): the hierarchy
 * table is read once for both.  -ENOENT when no cgroup filesystem is
 * mounted.
 */
int hj_task_cgroups(pid_t pid, bool self, struct hj_task_cgroups **out)
{
	struct hj_task_cgroups *tc = hj_large_calloc(1, sizeof(*tc));
	int r;

	if (!tc)
		return -ENOMEM;
	r = hj_cgroup_hierarchies(tc->h, HJ_MAX_HIERARCHIES, &tc->nh);
	if (!r)
		r = read_memberships(pid, tc, tc->m, &tc->nm);
	if (!r && self)
		r = read_memberships(getpid(), tc, tc->self, &tc->nself);
	if (r) {
		hj_large_free(tc);
		return r;
	}
	*out = tc;
	return 0;
}

/* Open FILE of the cgroup @rel on @h, beneath its mount, in one lookup. */
int hj_cgroup_open_file(const struct hj_hierarchy *h, const char *rel,
			const char *file, int flags)
{
	char path[PATH_MAX + 32];

	if (snprintf(path, sizeof(path), "%s%s%s", rel, *rel ? "/" : "",
		     file) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return hj_cgroup_openat(h, path, flags);
}

/*
 * Is the task of @tc in a frozen cgroup (cgroup2 cgroup.events "frozen 1",
 * or a v1 freezer that is not THAWED)?  A task joining it would stop at
 * once, and a login would hang instead of failing: 1 frozen, 0 not.
 */
int hj_cgroup_frozen(const struct hj_task_cgroups *tc)
{
	size_t i;
	int frozen = 0;

	for (i = 0; i < tc->nm && !frozen; i++) {
		const struct hj_hierarchy *h = &tc->h[tc->m[i].hier];
		char buf[256];
		size_t len;
		int fd;

		if (!h->v2 && !strstr(h->opts, "freezer"))
			continue;
		fd = hj_cgroup_open_file(
			h, tc->m[i].path,
			h->v2 ? "cgroup.events" : "freezer.state", O_RDONLY);
		if (fd < 0)
			continue;
		if (!hj_read_fd(fd, buf, sizeof(buf), &len))
			frozen = h->v2 ? strstr(buf, "frozen 1") != NULL :
					 strstr(buf, "FROZEN") ||
						 strstr(buf, "FREEZING");
		close(fd);
	}
	return frozen;
}
