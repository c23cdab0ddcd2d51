/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libhijack's internal API: what its files share with each other and with
 * its unit tests and fuzzers.  The front ends use hijack.h, conf.h and
 * audit.h only.
 */
#ifndef HIJACK_INTERNAL_H
#define HIJACK_INTERNAL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hijack.h"

#ifndef CGROUP_SUPER_MAGIC
#define CGROUP_SUPER_MAGIC 0x27e0eb
#endif
#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define HJ_MAX_HIERARCHIES 32

/* One mounted cgroup hierarchy, from /proc/self/mountinfo. */
struct hj_hierarchy {
	bool v2;
	char mnt[PATH_MAX];	/* where it is mounted */
	char root[PATH_MAX];	/* which cgroup is mounted there */
	char opts[256];		/* v1 super options: "cpu,cpuacct", "name=x" */
};

/* A cgroup a task is in, on one hierarchy. */
struct hj_membership {
	int hier;		/* index into the hierarchy table */
	char path[PATH_MAX];	/* relative to the mount, no leading '/' */
};

/*
 * A task's cgroups on the mounted hierarchies, and the caller's when
 * asked for: ~660 KiB of address space on the heap, of which only the
 * pages in use are ever touched.
 */
struct hj_task_cgroups {
	struct hj_hierarchy h[HJ_MAX_HIERARCHIES];
	struct hj_membership m[HJ_MAX_HIERARCHIES];
	struct hj_membership self[HJ_MAX_HIERARCHIES];
	size_t nh, nm, nself;
};

/* The security fields of /proc/PID/status (hj_parse_status_sec()). */
enum { HJ_CAP_INH, HJ_CAP_PRM, HJ_CAP_EFF, HJ_CAP_BND, HJ_CAP_AMB };
struct hj_proc_sec {
	unsigned long long cap[5];	/* HJ_CAP_* */
	unsigned int uid[4], gid[4];	/* real, effective, saved, fs */
	const char *groups;		/* the Groups line's value, in buf */
	size_t groups_len;
	int no_new_privs;
	int seccomp;			/* 0, 1 strict, 2 filter */
	int seccomp_filters;		/* -1: not shown (before 5.9) */
};

int hj_parse_status_sec(const char *buf, size_t len, struct hj_proc_sec *sec);
int hj_parse_groups(const char *buf, size_t len, gid_t *gids, size_t max,
		    size_t *n);
int hj_read_fd(int fd, char *buf, size_t size, size_t *len);

/* filters.c: the init's seccomp filters, copied (bounded) and kept */
int hj_filters_copy(pid_t pid, struct hj_confinement *c);
int hj_filters_load(const struct hj_target *t, unsigned int count,
		    struct hj_confinement *c);
int hj_filters_store(const struct hj_target *t,
		     const struct hj_confinement *c);
void hj_filters_free(struct hj_confinement *c);
/*
 * One write of @len bytes to the kernel file @fd opened (a proc or cgroup
 * attribute takes it whole or not at all), then close: 0, -EIO when it
 * took less, -errno (of the open when @fd < 0).
 */
int hj_write_close(int fd, const void *buf, size_t len);
int hj_fdinfo_field(int fd, const char *key, long long *value);
/*
 * Tables of hundreds of KiB (the hierarchy table, a task's cgroups), kept
 * out of the heap of the program the library runs in (mem.c).
 */
void *hj_large_calloc(size_t nmemb, size_t size);
void hj_large_free(void *table);
/* freed with hj_large_free() */
int hj_task_cgroups(pid_t pid, bool self, struct hj_task_cgroups **out);
int hj_cgroup_frozen(const struct hj_task_cgroups *tc);
int hj_cgroup_hierarchies(struct hj_hierarchy *h, size_t max, size_t *n);
int hj_parse_mountinfo(const char *buf, size_t len, struct hj_hierarchy *h,
		       size_t max, size_t *n);
int hj_parse_proc_cgroup(const char *buf, size_t len,
			 const struct hj_hierarchy *h, size_t nh,
			 struct hj_membership *m, size_t max, size_t *n);
int hj_cgroup_openat(const struct hj_hierarchy *h, const char *rel, int flags);
int hj_cgroup_open_file(const struct hj_hierarchy *h, const char *rel,
			const char *file, int flags);
int hj_cgroup_openat_walk(const struct hj_hierarchy *h, const char *rel,
			  int flags);
int hj_cgroup_path_check(const char *path);
bool hj_same_controllers(const char *a, size_t alen, const char *b);
int hj_controller_hierarchy(const char *controller,
			    const struct hj_hierarchy *h, size_t nh);
int hj_pidfd_open(pid_t pid);
int hj_pidfd_alive(int pidfd);
int hj_target_access(struct hj_target *t, struct hj_task_cgroups **cg);
int hj_target_access_again(const struct hj_target *t);
int hj_target_frozen_again(const struct hj_target *t);
int hj_target_recheck(struct hj_target *t);
int hj_target_from_cgroup_tree(int dirfd, struct hj_target *t);

#endif /* HIJACK_INTERNAL_H */
