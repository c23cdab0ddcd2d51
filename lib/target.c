// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Target resolution: from a pid, a pidfd, or a cgroup membership file to
 * one task, pinned by a pidfd.
 *
 * In a cgroup the task a user means is the container's init.  Runtimes
 * put helpers (the unshare parent, conmon, a runc exec in progress) in the
 * same cgroup, often listed first, so "the first line" is not it:
 *
 *   1. the member that is pid 1 of a pid namespace below ours,
 *   2. else the first member whose pid namespace differs from ours,
 *   3. else the first live member (running or sleeping, as the seed did).
 *
 * After pinning, the choice is checked again (same start time, still
 * alive, still a member), so a pid reused in between is never entered.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/nsfs.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

#define MEMBERS_MAX 65536
#define MEMBERS_BUF (MEMBERS_MAX * 12)
#define PICK_RETRIES 3

void hj_target_init(struct hj_target *t)
{
	memset(t, 0, sizeof(*t));
	t->pidfd = -1;
}

void hj_target_release(struct hj_target *t)
{
	if (t->pidfd >= 0)
		close(t->pidfd);
	t->pidfd = -1;
	hj_large_free(t->cg);
	t->cg = NULL;
	t->checked = false;
}

const char *hj_pick_name(enum hj_pick pick)
{
	switch (pick) {
	case HJ_PICK_PID:
		return "named";
	case HJ_PICK_INIT:
		return "container init";
	case HJ_PICK_PIDNS:
		return "first task in another pid namespace";
	case HJ_PICK_FIRST:
		return "first live task";
	}
	return "?";
}

int hj_pidfd_open(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);

	return fd < 0 ? -errno : fd;
}

/* 0 while the pinned task exists (possibly as a zombie), else -ESRCH. */
int hj_pidfd_alive(int pidfd)
{
	if (syscall(SYS_pidfd_send_signal, pidfd, 0, NULL, 0) == 0)
		return 0;
	return errno == EPERM ? 0 : -errno;
}

static int read_status(pid_t pid, struct hj_proc_status *st)
{
	char buf[4096];
	size_t len;
	int r;

	r = hj_proc_read(pid, "status", buf, sizeof(buf), &len);
	if (r)
		return r == -ENOENT ? -ESRCH : r;
	return hj_parse_status(buf, len, st);
}

static int read_starttime(pid_t pid, unsigned long long *starttime)
{
	char buf[1024];
	size_t len;
	int r;

	r = hj_proc_read(pid, "stat", buf, sizeof(buf), &len);
	if (r)
		return r == -ENOENT ? -ESRCH : r;
	return hj_parse_stat_starttime(buf, len, starttime);
}

/*
 * Running or sleeping, as the seed's task_available(); not exiting.  A
 * tracing stop ('t') counts: a concurrent login copying the init's
 * seccomp filters holds it stopped for a moment, and the init is still
 * the container's (hj_target_recheck() then waits for the tracer to let
 * go, or answers -EBUSY).
 */
static bool live_state(char state)
{
	return state == 'R' || state == 'S' || state == 'D' || state == 't';
}

/* Depth of our own pid namespace, as NSpid counts it. */
static int my_pidns_depth(void)
{
	struct hj_proc_status st;
	int r = read_status(getpid(), &st);

	return r ? r : st.nspid_depth;
}

/*
 * @fd pins the process @pid: read its status and start time once, now
 * that the pid cannot be reused, and check it is a live process (and the
 * task whose start time we saw before pinning, when @want_start is given).
 */
static int pin_fd(pid_t pid, int fd, const unsigned long long *want_start,
		  struct hj_target *t)
{
	struct hj_proc_status st;
	unsigned long long start;
	int r;

	r = read_status(pid, &st);
	if (!r && (st.tgid != pid || !live_state(st.state)))
		r = -ESRCH;
	if (!r)
		r = read_starttime(pid, &start);
	if (!r && want_start && start != *want_start)
		r = -ESRCH;
	/* the reads were of the pinned task if it is still unreaped now */
	if (!r)
		r = hj_pidfd_alive(fd);
	if (r) {
		close(fd);
		return r;
	}
	t->pid = pid;
	t->pidfd = fd;
	t->starttime = start;
	t->traced = st.tracer != 0;
	return 0;
}

/*
 * Pin @pid (a process, not a thread) and check that it is the task whose
 * start time we saw: the pid cannot have been reused in between.
 */
static int pin(pid_t pid, unsigned long long starttime, struct hj_target *t)
{
	int fd = hj_pidfd_open(pid);

	if (fd < 0)
		return fd == -EINVAL ? -ESRCH : fd;
	return pin_fd(pid, fd, &starttime, t);
}

int hj_target_from_pid(pid_t pid, struct hj_target *t)
{
	struct hj_proc_status st;
	pid_t tid = pid;
	int fd, r;

	hj_target_init(t);
	if (pid <= 0)
		return -ESRCH;
	fd = hj_pidfd_open(pid);
	if (fd == -EINVAL) {
		/* a thread id names its thread group, as in the seed */
		r = read_status(tid, &st);
		if (r)
			return r;
		pid = st.tgid;
		fd = hj_pidfd_open(pid);
	}
	if (fd < 0)
		return fd == -EINVAL ? -ESRCH : fd;
	r = pin_fd(pid, fd, NULL, t);
	if (!r && tid != pid) {
		/* the thread is still one of the group we pinned */
		r = read_status(tid, &st);
		if (!r && st.tgid != pid)
			r = -ESRCH;
		if (r)
			hj_target_release(t);
	}
	if (r)
		return r;
	t->pick = HJ_PICK_PID;
	return 0;
}

int hj_target_from_pidfd(int pidfd, struct hj_target *t)
{
	struct hj_proc_status st;
	unsigned long long starttime;
	long long v;
	pid_t pid;
	int r;

	hj_target_init(t);
	/* the pid of a pidfd is in its fdinfo ("Pid: -1" once reaped) */
	r = hj_fdinfo_field(pidfd, "Pid", &v);
	if (r)
		return r == -ENOENT ? -EBADF : r;
	if (v <= 0 || v > INT_MAX)
		return -ESRCH;
	pid = (pid_t)v;
	r = read_status(pid, &st);
	if (!r)
		r = read_starttime(pid, &starttime);
	/* while the pidfd's task is not reaped, its pid is not reused */
	if (!r)
		r = hj_pidfd_alive(pidfd);
	if (!r && !live_state(st.state))
		r = -ESRCH;
	if (r)
		return r;
	t->pidfd = fcntl(pidfd, F_DUPFD_CLOEXEC, 3);
	if (t->pidfd < 0)
		return -errno;
	t->pid = pid;
	t->starttime = starttime;
	t->traced = st.tracer != 0;
	t->pick = HJ_PICK_PID;
	return 0;
}

/*
 * Read a whole membership file from offset 0 into a fresh buffer, sized
 * for what is there (a container lists a handful of tasks).
 */
static int read_members(int fd, char **out, size_t *len)
{
	size_t size = 4096, off = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t r;

		if (off == size - 1 || !buf) {
			char *n;

			if (buf) {
				if (size >= MEMBERS_BUF) {
					free(buf);
					return -E2BIG;
				}
				size = size * 2 < MEMBERS_BUF ? size * 2 :
								MEMBERS_BUF;
				/* the file may have changed: read it anew */
				off = 0;
			}
			n = realloc(buf, size);
			if (!n) {
				free(buf);
				return -ENOMEM;
			}
			buf = n;
		}
		r = pread(fd, buf + off, size - 1 - off, off);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			free(buf);
			return -errno;
		}
		if (r == 0)
			break;
		off += r;
	}
	buf[off] = '\0';
	*out = buf;
	*len = off;
	return 0;
}

static int member_list(int fd, pid_t **pids, size_t *n)
{
	char *buf = NULL;
	size_t len = 0, max = 1, i;
	int r;

	r = read_members(fd, &buf, &len);
	if (r)
		return r;
	for (i = 0; i < len; i++)
		max += buf[i] == '\n';
	if (max > MEMBERS_MAX)
		max = MEMBERS_MAX;
	*pids = malloc(max * sizeof(**pids));
	if (!*pids) {
		free(buf);
		return -ENOMEM;
	}
	r = hj_parse_pid_list(buf, len, *pids, max, n);
	free(buf);
	if (r) {
		free(*pids);
		*pids = NULL;
	}
	return r;
}

static bool listed(const pid_t *pids, size_t n, pid_t pid)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/*
 * The directory of an open membership file, and its cgroup.procs for the
 * re-check.  The directory must be on the same cgroup filesystem.
 */
static int open_procs(int fd, bool is_dir, char *name, size_t size)
{
	char link[64], path[PATH_MAX];
	struct stat a, b;
	int dfd, pfd;
	ssize_t l;
	char *slash;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	l = readlink(link, path, sizeof(path) - 1);
	if (l < 0)
		return -errno;
	path[l] = '\0';
	if (!is_dir) {
		slash = strrchr(path, '/');
		if (!slash || slash == path)
			return -EBADF;
		*slash = '\0';
	}
	snprintf(name, size, "%s", path);
	if (is_dir) {
		dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	} else {
		dfd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (dfd >= 0 &&
		    (fstat(fd, &a) || fstat(dfd, &b) || a.st_dev != b.st_dev)) {
			close(dfd);
			return -EBADF;
		}
	}
	if (dfd < 0)
		return -errno;
	if (hj_cgroup_is_member_file(dfd)) {
		close(dfd);
		return -EBADF;
	}
	pfd = openat(dfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (pfd < 0)
		pfd = -errno;
	close(dfd);
	return pfd;
}

static int pick_once(int listfd, int procsfd, int mydepth, struct hj_target *t)
{
	pid_t *pids = NULL, *procs = NULL, best = 0;
	unsigned long long best_start = 0;
	enum hj_pick best_pick = HJ_PICK_FIRST + 1;
	size_t n, np, i;
	int r;

	r = member_list(listfd, &pids, &n);
	if (r)
		return r;
	for (i = 0; i < n && best_pick != HJ_PICK_INIT; i++) {
		struct hj_proc_status st;
		unsigned long long start;
		enum hj_pick pick;

		if (read_status(pids[i], &st) || !live_state(st.state))
			continue;
		if (st.nspid_depth > mydepth && st.nspid_last == 1)
			pick = HJ_PICK_INIT;
		else if (st.nspid_depth != mydepth)
			pick = HJ_PICK_PIDNS;
		else
			pick = HJ_PICK_FIRST;
		/* the start time only of a task that would be chosen */
		if (pick >= best_pick || read_starttime(st.tgid, &start))
			continue;
		best = st.tgid;
		best_start = start;
		best_pick = pick;
	}
	free(pids);
	if (!best)
		return -ESRCH;
	r = pin(best, best_start, t);
	if (r)
		return r;
	/* still a member now that it is pinned? */
	r = member_list(procsfd, &procs, &np);
	if (!r && !listed(procs, np, best))
		r = -EAGAIN;
	free(procs);
	if (r) {
		hj_target_release(t);
		return r;
	}
	t->pick = best_pick;
	return 0;
}

int hj_target_from_cgroup_fd(int fd, struct hj_target *t)
{
	struct stat st;
	int listfd, procsfd, mydepth, r = -ESRCH, tries;

	hj_target_init(t);
	r = hj_cgroup_is_member_file(fd);
	if (r)
		return r;
	if (fstat(fd, &st))
		return -errno;
	procsfd = open_procs(fd, S_ISDIR(st.st_mode), t->cgroup,
			     sizeof(t->cgroup));
	if (procsfd < 0)
		return procsfd;
	if (S_ISDIR(st.st_mode)) {
		listfd = procsfd;
	} else {
		char link[64];

		/* a fresh open description: the caller's offset is theirs */
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		listfd = open(link, O_RDONLY | O_CLOEXEC);
		if (listfd < 0) {
			r = -errno;
			close(procsfd);
			return r;
		}
		if (hj_cgroup_is_member_file(listfd)) {
			close(listfd);
			close(procsfd);
			return -EBADF;
		}
	}
	mydepth = my_pidns_depth();
	for (tries = 0; mydepth > 0 && tries < PICK_RETRIES; tries++) {
		r = pick_once(listfd, procsfd, mydepth, t);
		if (r != -EAGAIN && r != -ESRCH)
			break;
		if (r == -ESRCH && tries)
			break;
	}
	if (mydepth < 0)
		r = mydepth;
	if (r == -EAGAIN)
		r = -ESRCH;
	if (listfd != procsfd)
		close(listfd);
	close(procsfd);
	return r;
}

int hj_target_from_cgroup_path(const char *path, struct hj_target *t)
{
	int fd, r;

	hj_target_init(t);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return errno == ELOOP ? -EBADF : -errno;
	r = hj_target_from_cgroup_fd(fd, t);
	close(fd);
	return r;
}

/*
 * The pinned task read anew: alive, not a zombie, the same start time,
 * and its tracer in t->traced.  Every by-pid access made before this was
 * of the pinned task when the pidfd shows it still unreaped afterwards.
 */
static int recheck(struct hj_target *t)
{
	struct hj_proc_status st;
	unsigned long long start;
	int r;

	if (t->pidfd < 0)
		return -ESRCH;
	r = read_status(t->pid, &st);
	if (!r && !live_state(st.state))
		r = -ESRCH;
	if (!r)
		r = read_starttime(t->pid, &start);
	if (!r && start != t->starttime)
		r = -ESRCH;
	/* the /proc reads may have seen a new task; the pidfd decides */
	if (!r)
		r = hj_pidfd_alive(t->pidfd);
	if (!r)
		t->traced = st.tracer != 0;
	return r;
}

/* 0 while the pinned target is alive and not a zombie. */
int hj_target_alive(const struct hj_target *t)
{
	struct hj_target copy = *t;

	return recheck(&copy);
}

/*
 * The last check before entering: alive, the same task, not traced.  A
 * tracer that lets go within HJ_TRACED_WAIT_MS is waited for: a
 * concurrent login copying the init's seccomp filters holds it for a few
 * microseconds (hj_confinement_read()).  One that stays is -EBUSY.
 */
int hj_target_recheck(struct hj_target *t)
{
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	int r, waited;

	for (waited = 0;; waited += 2) {
		r = recheck(t);
		if (r || !t->traced)
			return r;
		if (waited >= HJ_TRACED_WAIT_MS)
			return -EBUSY;
		nanosleep(&pause, NULL);
	}
}

/* Opening /proc/PID/mem needs PTRACE_MODE_ATTACH_FSCREDS over PID. */
static int attach_allowed_by_proc_mem(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -EPERM;
	close(fd);
	return 0;
}

/*
 * The seed's checks, done with the kernel's own: process_vm_readv() needs
 * PTRACE_MODE_ATTACH_REALCREDS over the target (Yama included) and fails
 * with EPERM without it, EFAULT with it (nothing is mapped at 0).  Then we
 * learn its namespaces and cgroups (in *cg when asked for, NULL when no
 * cgroupfs is mounted) and refuse a frozen one (-EDEADLK: a task that
 * joined it would stop at once, and the login hang).  Each read is by
 * pid: the caller must end with hj_target_recheck(), which proves they
 * were all of the pinned task (and refuses a traced one).
 */
static int attach_allowed(const struct hj_target *t)
{
	char byte;
	struct iovec local = { &byte, 1 }, remote = { NULL, 1 };

	if (t->pidfd < 0)
		return -ESRCH;
	if (process_vm_readv(t->pid, &local, 1, &remote, 1, 0) >= 0 ||
	    errno != EFAULT) {
		/* no CROSS_MEMORY_ATTACH: /proc/PID/mem checks the same */
		if (errno == ENOSYS)
			return attach_allowed_by_proc_mem(t->pid);
		return errno == ESRCH ? -ESRCH : -EPERM;
	}
	return 0;
}

int hj_target_access(struct hj_target *t, struct hj_task_cgroups **cg)
{
	struct hj_task_cgroups *tc = NULL;
	int r;

	if (cg)
		*cg = NULL;
	r = attach_allowed(t);
	if (r)
		return r;
	r = hj_ns_differ(t->pid, &t->ns_differ);
	if (r)
		return r;
	r = hj_task_cgroups(t->pid, cg != NULL, &tc);
	if (r == -ENOENT)
		return 0; /* no cgroupfs mounted: nothing frozen, nothing to join */
	if (r)
		return r;
	if (hj_cgroup_frozen(tc)) {
		hj_large_free(tc);
		return -EDEADLK; /* not -EAGAIN: that is the clone's, at pids.max */
	}
	if (cg)
		*cg = tc;
	else
		hj_large_free(tc);
	return 0;
}

/*
 * The check, its namespaces and cgroups (ours too) kept in @t: hj_spawn()
 * moments later asks only what may have changed for the entry to go
 * wrong (hj_target_access_again()), instead of reading them all again.
 */
int hj_target_check_access(struct hj_target *t)
{
	struct hj_task_cgroups *cg = NULL;
	int r = hj_target_access(t, &cg);

	if (!r)
		r = hj_target_recheck(t);
	hj_large_free(t->cg);
	t->cg = r ? NULL : cg;
	t->checked = !r;
	if (r)
		hj_large_free(cg);
	return r;
}

/*
 * For hj_spawn() after hj_target_check_access() passed on the same pinned
 * target: our ptrace rights over it and its freezer, read again (the
 * kernel's answer to the first can change with either side's
 * credentials, the second with the container's state); its namespaces
 * and cgroups as that check read them a moment ago (the same race with
 * the task changing its own is there between any read and the setns()).
 * The caller rechecks the target last, as after hj_target_access().
 */
int hj_target_access_again(const struct hj_target *t)
{
	int r;

	if (!t->checked)
		return -EINVAL;
	r = attach_allowed(t);
	if (!r)
		r = hj_target_frozen_again(t);
	return r;
}

/*
 * Only the freezer, by the cgroup paths the check read: sys_hijack asks
 * the rest itself, under the target's exec_update_lock, but enters a
 * frozen target's cgroups (only a cgroup target passes over frozen tasks).
 */
int hj_target_frozen_again(const struct hj_target *t)
{
	if (!t->checked)
		return -EINVAL;
	return t->cg && hj_cgroup_frozen(t->cg) ? -EDEADLK : 0;
}

/*
 * The login path: the one container init anywhere in a cgroup's subtree.
 *
 * Runtimes rarely leave the init in the cgroup a rule names: crun puts it
 * in <scope>/container, systemd-nspawn in <scope>/payload, and systemd
 * running inside a container (LXC, nspawn, podman --systemd) moves itself
 * into init.scope.  So the whole subtree is searched, bounded in depth and
 * in the number of cgroups (past a bound: -E2BIG, never a guess).  On
 * cgroup2 a subtree whose cgroup.events says "populated 0" is skipped.
 *
 * Only a container init is ever accepted: pid 1 of a pid namespace below
 * the caller's, in a mount namespace other than the caller's.  Host
 * processes in the subtree (a runtime's helper, a process the user moved
 * into a delegated cgroup) are never the target.  An init nested in
 * another init's pid namespace (podman in LXC) belongs to the outer one;
 * two inits neither of which holds the other are two containers, and the
 * login is refused as ambiguous.
 */
#define SUBTREE_DEPTH_MAX 16
#define SUBTREE_CGROUPS_MAX 1024
#define SUBTREE_INITS_MAX 16

struct found_init {
	pid_t pid;
	int depth; /* NSpid depth */
	unsigned long long start;
	int dirfd; /* O_PATH, the cgroup it was listed in */
};

struct subtree {
	int mydepth;
	unsigned long long mnt_id; /* of the top: no other mount is crossed */
	bool v2;
	unsigned int ncgroups;
	bool populated; /* a live task was listed */
	size_t ninits;
	struct found_init inits[SUBTREE_INITS_MAX];
};

static void subtree_release(struct subtree *s)
{
	while (s->ninits)
		close(s->inits[--s->ninits].dirfd);
}

/* cgroup2: 0 when cgroup.events says "populated 0", else 1 (or unknown) */
static int v2_populated(int dirfd)
{
	char buf[256], *p;
	size_t len;
	int fd, r;

	fd = openat(dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 1 : -errno;
	r = hj_read_fd(fd, buf, sizeof(buf), &len);
	close(fd);
	if (r)
		return r;
	buf[len < sizeof(buf) ? len : sizeof(buf) - 1] = '\0';
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, "populated ", 10))
			return p[10] != '0';
	return 1;
}

static int note_init(struct subtree *s, int dirfd, pid_t pid, int depth)
{
	unsigned long long start;
	size_t i;
	int r;

	for (i = 0; i < s->ninits; i++)
		if (s->inits[i].pid == pid)
			return 0; /* listed twice while it moved */
	if (s->ninits == SUBTREE_INITS_MAX)
		return -E2BIG;
	r = read_starttime(pid, &start);
	if (r)
		return r == -ESRCH ? 0 : r;
	s->inits[s->ninits].dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	if (s->inits[s->ninits].dirfd < 0)
		return -errno;
	s->inits[s->ninits].pid = pid;
	s->inits[s->ninits].depth = depth;
	s->inits[s->ninits].start = start;
	s->ninits++;
	return 0;
}

/* The members of one cgroup: note each container init, and any task. */
static int scan_members(struct subtree *s, int dirfd)
{
	pid_t *pids = NULL;
	size_t n = 0, i;
	int fd, r;

	fd = openat(dirfd, "cgroup.procs", O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = member_list(fd, &pids, &n);
	close(fd);
	if (r)
		return r;
	for (i = 0; !r && i < n; i++) {
		struct hj_proc_status st = { 0 };

		if (read_status(pids[i], &st) || !live_state(st.state))
			continue;
		s->populated = true;
		if (st.nspid_depth > s->mydepth && st.nspid_last == 1)
			r = note_init(s, dirfd, st.tgid, st.nspid_depth);
	}
	free(pids);
	return r;
}

static int scan_subtree(struct subtree *s, int dirfd, int depth)
{
	struct dirent *de;
	long long mnt;
	DIR *d;
	int fd, r;

	if (++s->ncgroups > SUBTREE_CGROUPS_MAX)
		return -E2BIG;
	/* a bind mount inside cgroupfs is not followed */
	r = hj_fdinfo_field(dirfd, "mnt_id", &mnt);
	if (r)
		return r;
	if ((unsigned long long)mnt != s->mnt_id)
		return -EXDEV;
	if (s->v2) {
		r = v2_populated(dirfd);
		if (r <= 0)
			return r;
	}
	r = scan_members(s, dirfd);
	if (r)
		return r;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -ENOMEM;
	}
	while (!r && (errno = 0, de = readdir(d))) {
		int child;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if (depth + 1 > SUBTREE_DEPTH_MAX) {
			r = -E2BIG;
			break;
		}
		child = openat(dirfd, de->d_name,
			       O_PATH | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		if (child < 0) {
			/* removed while we read: nothing of it to enter */
			if (errno != ENOENT)
				r = -errno;
			continue;
		}
		r = scan_subtree(s, child, depth + 1);
		close(child);
	}
	if (!r && errno)
		r = -errno;
	closedir(d);
	return r;
}

/* Is the pid namespace of @in below (or equal to) that of @outer? */
static int pidns_holds(const struct found_init *outer,
		       const struct found_init *in)
{
	char path[64];
	struct stat a, b;
	int fd, up, r = 0, i;

	if (in->depth <= outer->depth)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)outer->pid);
	if (stat(path, &a))
		return errno == ENOENT ? -ESRCH : -errno;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)in->pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	for (i = in->depth; i > outer->depth; i--) {
		up = ioctl(fd, NS_GET_PARENT);
		if (up < 0) {
			r = -errno;
			break;
		}
		close(fd);
		fd = up;
	}
	if (!r && fstat(fd, &b))
		r = -errno;
	close(fd);
	if (r)
		return r;
	return a.st_ino == b.st_ino && a.st_dev == b.st_dev;
}

/* The one outermost init, or -ENOTUNIQ. */
static int outermost(const struct subtree *s, size_t *which)
{
	size_t i, j, found = 0;
	int r;

	for (i = 0; i < s->ninits; i++) {
		bool nested = false;

		for (j = 0; j < s->ninits && !nested; j++) {
			if (i == j)
				continue;
			r = pidns_holds(&s->inits[j], &s->inits[i]);
			if (r < 0)
				return r;
			nested = r;
		}
		if (nested)
			continue;
		if (found++)
			return -ENOTUNIQ;
		*which = i;
	}
	return found ? 0 : -ESRCH;
}

/*
 * A container has a root directory of its own.  An init in mount and pid
 * namespaces of its own whose root is still ours (`unshare --mount
 * --pid` without pivot_root or chroot leaves it so) would hand the
 * session the host's files: -EXDEV, no container.  The magic link is
 * only stat()ed, nothing beneath it is looked up.
 */
static int root_of_its_own(pid_t pid)
{
	struct stat theirs, ours;
	char path[32];

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (stat(path, &theirs) || stat("/", &ours))
		return -errno;
	if (theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino)
		return -EXDEV;
	return 0;
}

static int login_pick_once(int topfd, bool v2, int mydepth, struct hj_target *t)
{
	struct subtree *s;
	struct found_init *in;
	pid_t *procs = NULL;
	size_t which = 0, np;
	long long mnt;
	int r, fd;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->mydepth = mydepth;
	s->v2 = v2;
	r = hj_fdinfo_field(topfd, "mnt_id", &mnt);
	if (!r) {
		s->mnt_id = (unsigned long long)mnt;
		r = scan_subtree(s, topfd, 0);
	}
	if (!r && !s->populated)
		r = -ESRCH;
	else if (!r && !s->ninits)
		r = -EXDEV; /* live tasks, none of them a container's init */
	if (!r)
		r = outermost(s, &which);
	if (r)
		goto out;
	in = &s->inits[which];
	r = pin(in->pid, in->start, t);
	if (r)
		goto out;
	/* not a container unless both mount and pid namespaces differ */
	r = hj_ns_differ(t->pid, &t->ns_differ);
	if (!r &&
	    (t->ns_differ & (HJ_NS_MNT | HJ_NS_PID)) != (HJ_NS_MNT | HJ_NS_PID))
		r = -EXDEV;
	if (!r)
		r = root_of_its_own(t->pid);
	/* still a member of the cgroup it was found in, now it is pinned? */
	if (!r) {
		fd = openat(in->dirfd, "cgroup.procs",
			    O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
		r = fd < 0 ? -errno : member_list(fd, &procs, &np);
		if (fd >= 0)
			close(fd);
		if (!r && !listed(procs, np, t->pid))
			r = -EAGAIN;
		free(procs);
	}
	if (!r)
		r = hj_pidfd_alive(t->pidfd);
	if (!r) {
		char link[64];
		ssize_t l;

		snprintf(link, sizeof(link), "/proc/self/fd/%d", in->dirfd);
		l = readlink(link, t->cgroup, sizeof(t->cgroup) - 1);
		t->cgroup[l > 0 ? l : 0] = '\0';
		t->pick = HJ_PICK_INIT;
	} else {
		hj_target_release(t);
	}
out:
	subtree_release(s);
	free(s);
	return r;
}

/*
 * The container init in the subtree of the cgroup directory @dirfd (an
 * O_PATH fd on a cgroup hierarchy).  0 with @t pinned, -ESRCH when the
 * subtree holds no live task, -EXDEV when it holds live tasks but no
 * container, -ENOTUNIQ when it holds two containers, -E2BIG past the
 * bounds.
 */
int hj_target_from_cgroup_tree(int dirfd, struct hj_target *t)
{
	struct statfs sfs;
	int mydepth, tries, r = -ESRCH;

	hj_target_init(t);
	if (fstatfs(dirfd, &sfs))
		return -errno;
	if (sfs.f_type != CGROUP2_SUPER_MAGIC &&
	    sfs.f_type != CGROUP_SUPER_MAGIC)
		return -EBADF;
	mydepth = my_pidns_depth();
	if (mydepth < 0)
		return mydepth;
	for (tries = 0; tries < PICK_RETRIES; tries++) {
		r = login_pick_once(dirfd, sfs.f_type == CGROUP2_SUPER_MAGIC,
				    mydepth, t);
		/* the init died or moved between the scan and the pin */
		if (r != -EAGAIN && !(r == -ESRCH && !tries))
			break;
	}
	return r == -EAGAIN ? -ESRCH : r;
}
