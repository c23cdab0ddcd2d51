// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Confinement: a process started in a container is made as confined as
 * the container's init, as lxc-attach (lxc_proc_get_context_info() and
 * lxc_attach_drop_privs() in lxc/lxc src/lxc/attach.c) and runc exec
 * (libcontainer/setns_init_linux.go) do.  Without it, a setuid program
 * planted by the container's root runs with the host's bounding set, no
 * no_new_privs and no seccomp filter.
 *
 * What the init has is read from the host's /proc while the target is
 * pinned: CapBnd, NoNewPrivs, Seccomp and its filters (copied with
 * PTRACE_SECCOMP_GET_FILTER, as CRIU does), and the LSM label.  It is
 * applied in the order runc uses: the bounding set, the LSM exec label
 * and, without no_new_privs, the filters while still privileged (loading
 * a filter without no_new_privs needs CAP_SYS_ADMIN); no_new_privs and
 * the filters under it last, right before exec.  Every /proc access goes
 * through a descriptor of the host's procfs opened and checked before
 * entering, never a path: a container's fake /proc must not receive the
 * LSM label (runc's CVE-2019-16884).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/magic.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

#ifndef SECCOMP_FILTER_FLAG_LOG
#define SECCOMP_FILTER_FLAG_LOG (1UL << 1)
#endif

#define GROUPS_MAX 65536

void hj_confinement_init(struct hj_confinement *c)
{
	memset(c, 0, sizeof(*c));
	c->procfd = -1;
}

void hj_confinement_free(struct hj_confinement *c)
{
	hj_filters_free(c);
	if (c->procfd >= 0)
		close(c->procfd);
	hj_confinement_init(c);
}

/* The host's procfs, checked to be one (not a bind mount of a file). */
static int open_proc(void)
{
	struct statfs sfs;
	int fd, r;

	fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (fstatfs(fd, &sfs)) {
		r = -errno;
		close(fd);
		return r;
	}
	if (sfs.f_type != PROC_SUPER_MAGIC) {
		close(fd);
		return -EMEDIUMTYPE; /* something else is mounted on /proc */
	}
	return fd;
}

static int read_at(int dirfd, const char *path, char *buf, size_t size,
		   size_t *len)
{
	int fd, r;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = hj_read_fd(fd, buf, size, len);
	close(fd);
	return r;
}

static int read_sec(int procfd, const char *path, struct hj_proc_sec *sec,
		    char *buf, size_t size)
{
	size_t len;
	int r;

	r = read_at(procfd, path, buf, size, &len);
	if (r)
		return r == -ENOENT ? -ESRCH : r;
	r = hj_parse_status_sec(buf, len, sec);
	if (!r && sec->seccomp && sec->seccomp_filters < 0)
		r = -EOPNOTSUPP; /* before 5.9: filters cannot be counted */
	return r;
}

/*
 * An LSM attribute as a label: up to the first NUL or newline, and
 * without AppArmor's " (enforce)" or " (complain)" mode.
 */
static void attr_label(char *buf, size_t len, bool apparmor)
{
	char *p;

	buf[strnlen(buf, len)] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (apparmor) {
		p = strrchr(buf, ' ');
		if (p && p[1] == '(' && buf[strlen(buf) - 1] == ')')
			*p = '\0';
	}
}

/*
 * Which LSM labels the init, and how.  AppArmor has its own attr
 * directory since 5.1 (attr/apparmor/current); before, and for SELinux,
 * attr/current.  The lsm list of securityfs tells them apart when it is
 * mounted; without it, a label in " (mode)" form is AppArmor's.
 * attr/current reads EINVAL when no LSM provides it.
 */
static int read_lsm(int procfd, pid_t pid, struct hj_confinement *c)
{
	char path[64], list[256];
	size_t len;
	bool aa = false, se = false;
	int fd, r;

	fd = open("/sys/kernel/security/lsm",
		  O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		r = hj_read_fd(fd, list, sizeof(list), &len);
		close(fd);
		if (!r) {
			aa = strstr(list, "apparmor") != NULL;
			se = strstr(list, "selinux") != NULL;
		}
	}
	snprintf(path, sizeof(path), "%d/attr/apparmor/current", (int)pid);
	r = read_at(procfd, path, c->label, sizeof(c->label), &len);
	if (!r && len) {
		aa = true;
	} else {
		snprintf(path, sizeof(path), "%d/attr/current", (int)pid);
		r = read_at(procfd, path, c->label, sizeof(c->label), &len);
		if (r == -EINVAL || r == -ENOENT || (!r && !len)) {
			c->label[0] = '\0';
			return 0; /* no LSM gives a label */
		}
		if (r)
			return r;
		if (!aa && !se)
			aa = len > 1 && c->label[len - 2] == ')';
	}
	attr_label(c->label, len, aa);
	snprintf(c->lsm, sizeof(c->lsm), "%s", aa ? "apparmor" : "selinux");
	/* an unconfined init: nothing to set, nothing to check */
	if (!strcmp(c->label, "unconfined") || !c->label[0]) {
		c->label[0] = '\0';
		c->lsm[0] = '\0';
	}
	return 0;
}

/*
 * A copy of the init's filters (hj_filters_copy(), bounded).  A
 * concurrent login may hold the init for its own copy: wait for it to let
 * go (hj_target_recheck() waits, and is -EBUSY for a tracer that stays),
 * then seize again.
 */
static int copy_filters(struct hj_target *t, struct hj_confinement *c)
{
	int r, tries;

	for (tries = 0;; tries++) {
		r = hj_filters_copy(t->pid, c);
		if (r != -EPERM || tries == 3)
			return r;
		r = hj_target_recheck(t);
		if (r)
			return r;
	}
}

/*
 * The caller's own confinement as the reference, for a process that
 * stays on the host (a '-' rule): hj_confine_verify() then proves it
 * gained nothing on the way.
 */
int hj_confinement_self(struct hj_confinement *c)
{
	struct hj_proc_sec self;
	char buf[4096];
	int r;

	hj_confinement_init(c);
	c->procfd = open_proc();
	if (c->procfd < 0) {
		r = c->procfd;
		c->procfd = -1;
		return r;
	}
	r = read_sec(c->procfd, "thread-self/status", &self, buf, sizeof(buf));
	if (r) {
		hj_confinement_free(c);
		return r;
	}
	c->capbnd = self.cap[HJ_CAP_BND];
	c->no_new_privs = self.no_new_privs;
	c->seccomp_mode = self.seccomp;
	c->self_filters = self.seccomp_filters > 0 ? self.seccomp_filters : 0;
	return 0;
}

/*
 * Read the init's confinement from the host's /proc, while @t is pinned
 * and before anything is entered.  Fills c->seccomp_mode even when it
 * refuses strict mode.  0; -EOPNOTSUPP (strict mode, or filters the
 * kernel will not copy); -EBUSY (traced); -EPERM; -ESRCH; -errno.
 */
int hj_confinement_read(struct hj_target *t, struct hj_confinement *c)
{
	return hj_confinement_read_flags(t, c, 0);
}

/*
 * With HJ_CONFINE_FILTER_NNP, filters that cannot be copied (the caller
 * lacks CAP_SYS_ADMIN, say) are replaced by no_new_privs, and
 * c->filter_fallback says so; strict mode is still refused.  Only for a
 * caller without privilege, whose session cannot gain more than its user
 * has whatever filter it runs under.
 */
int hj_confinement_read_flags(struct hj_target *t, struct hj_confinement *c,
			      unsigned int flags)
{
	struct hj_proc_sec init, self;
	char path[64], buf[4096];
	int r;

	hj_confinement_init(c);
	if (t->pidfd < 0)
		return -ESRCH;
	c->procfd = open_proc();
	if (c->procfd < 0) {
		r = c->procfd;
		c->procfd = -1;
		return r;
	}
	snprintf(path, sizeof(path), "%d/status", (int)t->pid);
	r = read_sec(c->procfd, path, &init, buf, sizeof(buf));
	if (!r)
		r = read_sec(c->procfd, "thread-self/status", &self, buf,
			     sizeof(buf));
	if (r)
		goto fail;
	c->capbnd = init.cap[HJ_CAP_BND];
	c->no_new_privs = init.no_new_privs;
	c->seccomp_mode = init.seccomp;
	c->self_filters = self.seccomp_filters > 0 ? self.seccomp_filters : 0;
	r = read_lsm(c->procfd, t->pid, c);
	if (r)
		goto fail;
	/* a traced init would show its tracer our stop, and is refused */
	r = hj_target_recheck(t);
	if (r)
		goto fail;
	if (c->seccomp_mode == SECCOMP_MODE_STRICT) {
		r = -EOPNOTSUPP;
		goto fail;
	}
	if (c->seccomp_mode == SECCOMP_MODE_FILTER) {
		r = -ENODATA;
		if (flags & (HJ_CONFINE_CACHED | HJ_CONFINE_STORE))
			r = hj_filters_load(
				t, (unsigned int)init.seccomp_filters, c);
		if (r == -ENODATA && !(flags & HJ_CONFINE_CACHED)) {
			r = copy_filters(t, c);
			/* read by pid: the pinned init's, before it is kept */
			if (!r)
				r = hj_target_recheck(t);
			if (!r && (flags & HJ_CONFINE_STORE))
				r = hj_filters_store(t, c);
		}
		if ((r == -EOPNOTSUPP || r == -EPERM) &&
		    (flags & HJ_CONFINE_FILTER_NNP)) {
			hj_filters_free(c);
			c->seccomp_mode = 0;
			c->no_new_privs = true;
			c->filter_fallback = true;
			r = 0;
		}
		if (r)
			goto fail;
		/* the init, read by pid again: still the pinned one */
		r = hj_target_recheck(t);
		if (r)
			goto fail;
	}
	/* without filters, nothing was read since the recheck above */
	return 0;
fail : {
	int mode = c->seccomp_mode;

	hj_confinement_free(c);
	c->seccomp_mode = mode;
}
	return r;
}

static int load_filters(const struct hj_confinement *c)
{
	unsigned int i;

	/* oldest first: index 0 is the newest */
	for (i = c->nfilters; i-- > 0;) {
		struct sock_fprog prog = {
			.len = c->filters[i].len,
			.filter = c->filters[i].insns,
		};

		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
			    c->filters[i].flags, &prog))
			return -errno;
	}
	return 0;
}

/* Write the exec label, AppArmor's own attr file first (5.1+). */
static int set_exec_label(const struct hj_confinement *c)
{
	char buf[HJ_LSM_LABEL_MAX + 8];
	bool aa = !strcmp(c->lsm, "apparmor");
	size_t len;
	int fd = -1;

	if (aa) {
		len = snprintf(buf, sizeof(buf), "exec %s", c->label);
		fd = openat(c->procfd, "thread-self/attr/apparmor/exec",
			    O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	} else {
		len = snprintf(buf, sizeof(buf), "%s", c->label);
	}
	if (fd < 0)
		fd = openat(c->procfd, "thread-self/attr/exec",
			    O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	return hj_write_close(fd, buf, len);
}

/*
 * In the new process, right after entering, still privileged
 * (CAP_SETPCAP for the bounding set, CAP_SYS_ADMIN for a filter without
 * no_new_privs, CAP_MAC_ADMIN-free LSM exec transitions).
 */
int hj_confine_early(const struct hj_confinement *c)
{
	struct hj_proc_sec self;
	unsigned long long drop;
	char buf[16384];
	int cap, r;

	if (c->procfd < 0)
		return -EBADF;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	/*
	 * Our bounding set from one read of our status, not a
	 * PR_CAPBSET_READ of every capability; then one call per capability
	 * the init lacks.  Read here, not when the confinement was: entering
	 * a user namespace resets the bounding set to the full one.
	 */
	r = read_sec(c->procfd, "thread-self/status", &self, buf, sizeof(buf));
	if (r)
		return r;
	drop = self.cap[HJ_CAP_BND] & ~c->capbnd;
	for (cap = 0; cap < 64; cap++)
		if ((drop & (1ULL << cap)) &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			return -errno;
	if (c->label[0]) {
		r = set_exec_label(c);
		if (r)
			return r;
	}
	if (c->seccomp_mode == SECCOMP_MODE_FILTER && !c->no_new_privs)
		return load_filters(c);
	return 0;
}

/* For a caller that stays root: no capability the init could not have. */
int hj_confine_caps(const struct hj_confinement *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int i;

	if (syscall(SYS_capget, &hdr, d))
		return -errno;
	for (i = 0; i < 2; i++) {
		unsigned int bnd = (unsigned int)(c->capbnd >> (32 * i));

		d[i].effective &= bnd;
		d[i].permitted &= bnd;
		d[i].inheritable = 0;
	}
	if (syscall(SYS_capset, &hdr, d))
		return -errno;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	return 0;
}

/* Right before exec, after the front end dropped its privileges. */
int hj_confine_late(const struct hj_confinement *c)
{
	if (!c->no_new_privs)
		return 0;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (c->seccomp_mode == SECCOMP_MODE_FILTER)
		return load_filters(c);
	return 0;
}

static bool same_groups(const char *line, size_t len, const gid_t *want,
			size_t nwant)
{
	gid_t *got;
	size_t n, i, j;
	bool same = true;

	got = hj_large_calloc(GROUPS_MAX, sizeof(*got));
	if (!got || hj_parse_groups(line, len, got, GROUPS_MAX, &n)) {
		hj_large_free(got);
		return false;
	}
	for (i = 0; i < n && same; i++) {
		for (j = 0; j < nwant && want[j] != got[i]; j++)
			;
		same = j < nwant;
	}
	for (j = 0; j < nwant && same; j++) {
		for (i = 0; i < n && got[i] != want[j]; i++)
			;
		same = i < n;
	}
	hj_large_free(got);
	return same;
}

static bool ids_are(const unsigned int ids[4], unsigned int want)
{
	return ids[0] == want && ids[1] == want && ids[2] == want &&
	       ids[3] == want;
}

static bool subset(unsigned long long a, unsigned long long b)
{
	return (a & ~b) == 0;
}

static int check_label(const struct hj_confinement *c)
{
	char buf[HJ_LSM_LABEL_MAX];
	bool aa = !strcmp(c->lsm, "apparmor");
	size_t len;
	int r = -ENOENT;

	if (aa)
		r = read_at(c->procfd, "thread-self/attr/apparmor/exec", buf,
			    sizeof(buf), &len);
	if (r == -ENOENT)
		r = read_at(c->procfd, "thread-self/attr/exec", buf,
			    sizeof(buf), &len);
	if (r)
		return r;
	attr_label(buf, len, aa);
	return strcmp(buf, c->label) ? -ENOTRECOVERABLE : 0;
}

/*
 * The postcondition, read through the host's /proc now (ids as seen in
 * the current user namespace): nothing looser than the init.  0;
 * -ENOTRECOVERABLE on any mismatch; -errno when it cannot be read.
 * The caller must not exec unless this returns 0.
 */
int hj_confine_verify(const struct hj_confinement *c,
		      const struct hj_creds *want)
{
	struct hj_proc_sec s;
	char buf[16384];
	unsigned long long bnd = c->capbnd;
	int r;

	if (c->procfd < 0)
		return -EBADF;
	r = read_sec(c->procfd, "thread-self/status", &s, buf, sizeof(buf));
	if (r)
		return r;
	if (!ids_are(s.uid, want->uid) || !ids_are(s.gid, want->gid))
		return -ENOTRECOVERABLE;
	if (want->groups &&
	    !same_groups(s.groups, s.groups_len, want->groups, want->ngroups))
		return -ENOTRECOVERABLE;
	if (!subset(s.cap[HJ_CAP_BND], bnd) || s.cap[HJ_CAP_AMB] ||
	    s.cap[HJ_CAP_INH])
		return -ENOTRECOVERABLE;
	if (want->check_caps_zero ? s.cap[HJ_CAP_PRM] || s.cap[HJ_CAP_EFF] :
				    !subset(s.cap[HJ_CAP_PRM], bnd) ||
					    !subset(s.cap[HJ_CAP_EFF], bnd))
		return -ENOTRECOVERABLE;
	if (s.no_new_privs < c->no_new_privs || s.seccomp < c->seccomp_mode)
		return -ENOTRECOVERABLE;
	if (s.seccomp_filters >= 0 &&
	    (unsigned int)s.seccomp_filters < c->self_filters + c->nfilters)
		return -ENOTRECOVERABLE;
	if (c->label[0]) {
		r = check_label(c);
		if (r)
			return r;
	}
	return 0;
}
