// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Start a child inside a pinned target: hj_spawn() works like fork(),
 * returning the child's pid in the caller and 0 in the child, which is by
 * then in the target's namespaces, cgroups, root and a working directory
 * inside it.  It keeps the caller's fds, credentials (unless a user
 * namespace is entered), controlling terminal and parent, as sys_hijack
 * does.
 *
 * Native backend: hijack() with a struct hijack_args naming the pidfd,
 * where the kernel carries the series in kernel/ (probed, see
 * hj_native_syscall_nr()).
 *
 * Stock backend, three steps so that the caller itself never changes:
 *
 *   caller --clone3(CLONE_INTO_CGROUP)--> I   (v2 cgroup joined atomically)
 *   I: writes "0" to the target's v1 'tasks' files, first thing
 *   I: setns(pidfd, differing namespaces); fchdir(root); chroot(".")
 *   I --clone(CLONE_PARENT)--> child          (in the target's pid ns,
 *                                              a child of the caller)
 *   I reports the child's pid and exits.
 *
 * Every fallible step happens before the child is reported: either the
 * caller gets a child fully inside, or an error and no child at all.
 *
 * I costs a process (~0.13 ms an entry, bench/results/profile-entry-
 * login.md) and stays.  The caller could instead set only its
 * pid_for_children (setns(pidfd, CLONE_NEWPID)), clone the child straight
 * into the container and restore its own; the child would enter the rest
 * itself.  But from its birth that child is a process of the container's
 * pid namespace while still in the host's mount namespace and root and
 * holding the caller's fds, and a container root that kept
 * CAP_SYS_PTRACE (any container without a user namespace of its own
 * unless the runtime drops it) may open /proc/PID/root and /proc/PID/fd
 * of even a non-dumpable process: the host's file system
 * (CVE-2016-9962's class).  I is never in the container's pid namespace,
 * and the child is born with the container's root already.
 *
 * Native backend, after hj_target_check_access(): the kernel asks ptrace
 * rights, liveness and a tracer itself under the target's
 * exec_update_lock, so the library asks only the freezer (the call enters
 * a frozen pid target's cgroups); without a user namespace or a working
 * directory to enter the child has nothing left that can fail, and does
 * not report.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/*
 * The kernel series (kernel/) gives hijack() 463, the first number free
 * in Linux 6.12's tables: x86_64's (common, so x32's with its bit),
 * i386's and the generic table of arm64, riscv, loongarch and the rest.
 * No released kernel has the call there, so the number alone proves
 * nothing: Linux 6.13 gave 463 to setxattrat().
 */
#if defined(__NR_hijack)
#define HJ_NR_HIJACK __NR_hijack
#elif defined(__x86_64__) && defined(__ILP32__)
#define HJ_NR_HIJACK (0x40000000 + 463) /* __X32_SYSCALL_BIT */
#elif defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
	defined(__riscv) || defined(__loongarch__)
#define HJ_NR_HIJACK 463
#endif

/* struct hijack_args of <linux/hijack.h>, which no distribution ships */
struct hj_hijack_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t exit_signal;
	uint32_t target_kind;
	int32_t target;
};

#define HJ_HIJACK_ARGS_SIZE_VER0 32
_Static_assert(sizeof(struct hj_hijack_args) == HJ_HIJACK_ARGS_SIZE_VER0,
	       "struct hijack_args is 32 bytes");

struct report {
	int err; /* 0 or a negative errno */
	pid_t pid; /* the child, in the caller's pid namespace */
};

int hj_check_clone_flags(unsigned long clone_flags)
{
	/* only an exit signal, as the seed allowed only the simplest cases */
	if (clone_flags & ~(unsigned long)CSIGNAL)
		return -EINVAL;
	if ((clone_flags & CSIGNAL) >= (unsigned long)_NSIG)
		return -EINVAL;
	return 0;
}

/*
 * Whether the kernel carries hijack(): the number in hand (-ENOSYS if
 * not).  Two calls that neither read memory nor create anything tell it
 * apart from what else may sit at the number: a size below the first
 * version is EINVAL, and one above a page is E2BIG, checked first, as
 * clone3() does.  A kernel without the call says ENOSYS to both;
 * setxattrat() on 6.13 and later, given these arguments, never says
 * E2BIG (its size is its sixth argument, 0 here).  Asked once per
 * process: the kernel does not change under it.
 */
#ifdef HJ_NR_HIJACK
int hj_native_syscall_nr(void)
{
	static int known; /* 0: not asked yet; else the answer */
	struct hj_hijack_args args = { 0 };
	int nr = -ENOSYS;
	long page;

	if (known)
		return known;
	page = sysconf(_SC_PAGESIZE);
	if (page > 0 &&
	    syscall(HJ_NR_HIJACK, NULL, (size_t)0, 0, 0, 0, 0) < 0 &&
	    errno == EINVAL &&
	    syscall(HJ_NR_HIJACK, &args, (size_t)page + 1, 0, 0, 0, 0) < 0 &&
	    errno == E2BIG)
		nr = HJ_NR_HIJACK;
	known = nr;
	return nr;
}
#else
int hj_native_syscall_nr(void)
{
	return -ENOSYS;
}
#endif

static void close_safe(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * What the stock backend prepares in the caller before any process is
 * created: every file it needs is opened from the host's /proc and
 * cgroupfs while the target is pinned.
 */
struct prep {
	int rootfd;
	int cwdfd;
	int v2fd; /* cgroup2 directory for CLONE_INTO_CGROUP */
	int v1fd[HJ_MAX_HIERARCHIES]; /* 'tasks' of v1 hierarchies */
	size_t nv1;
	unsigned int joined;
};

static void prep_release(struct prep *p)
{
	size_t i;

	close_safe(&p->rootfd);
	close_safe(&p->cwdfd);
	close_safe(&p->v2fd);
	for (i = 0; i < p->nv1; i++)
		close_safe(&p->v1fd[i]);
	p->nv1 = 0;
}

static int open_proc_dir(pid_t pid, const char *what)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, what);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * HJ_SPAWN_AS_OWNER: a cgroup is joined with privilege only when it is
 * delegated to the owner, i.e. the owner could move a process of theirs
 * into it (its directory and the membership file are theirs, as systemd's
 * Delegate= and chown make them): never a way into one they do not own.
 *
 * One more case on cgroup2 (@pid given): a cgroup the runtime created
 * from inside the owner's user namespace, as crun does for podman
 * --userns=keep-id (libpod-ID.scope is the owner's, its child "container"
 * belongs to root of the container, the owner's first subordinate uid).
 * It is theirs too when its parent is the owner's and its directory and
 * membership file belong to one uid the target's user namespace maps
 * (the namespace is the owner's, hj_userns.owned; its map is what
 * newuidmap granted them): the owner, as that uid, may write both.
 */
static int mapped_in(pid_t pid, uid_t uid)
{
	char path[64], buf[1024], *p, *end;
	unsigned long in, out, count;
	size_t len;
	int fd, r;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	r = hj_read_fd(fd, buf, sizeof(buf), &len);
	close(fd);
	/* a map too long to read is refused, never guessed at */
	if (r)
		return r == -EFBIG ? -EACCES : r;
	for (p = buf; *p; p = end) {
		if (sscanf(p, "%lu %lu %lu", &in, &out, &count) != 3)
			return -EACCES;
		if (uid >= out && uid - out < count)
			return 0;
		end = strchr(p, '\n');
		if (!end)
			break;
		end++;
	}
	return -EACCES;
}

static int owned_by(int dirfd, const char *file, uid_t owner, pid_t pid)
{
	struct stat st, f, up;
	int parent, r;

	if (fstatat(dirfd, "", &st, AT_EMPTY_PATH))
		return -errno;
	if (file && st.st_uid == owner &&
	    fstatat(dirfd, file, &st, AT_SYMLINK_NOFOLLOW))
		return -errno;
	if (st.st_uid == owner || !file || !pid)
		return st.st_uid == owner ? 0 : -EACCES;
	if (fstatat(dirfd, file, &f, AT_SYMLINK_NOFOLLOW))
		return -errno;
	/* never the host's root, whatever a map says */
	if (f.st_uid != st.st_uid || st.st_uid == 0)
		return -EACCES;
	parent = openat(dirfd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0)
		return -errno;
	r = fstatat(parent, "", &up, AT_EMPTY_PATH) ? -errno : 0;
	close(parent);
	if (r)
		return r;
	if (up.st_uid != owner || up.st_dev != st.st_dev)
		return -EACCES;
	return mapped_in(pid, st.st_uid);
}

/* Open the target's cgroups on hierarchies where it is not in ours. */
static int join_differing(const struct hj_task_cgroups *tc, pid_t pid,
			  const struct hj_spawn_opts *o, struct prep *p)
{
	size_t i, j;
	int r;

	for (i = 0; i < tc->nm; i++) {
		const struct hj_hierarchy *hi = &tc->h[tc->m[i].hier];
		int fd;

		for (j = 0; j < tc->nself; j++)
			if (tc->self[j].hier == tc->m[i].hier)
				break;
		if (j < tc->nself && !strcmp(tc->self[j].path, tc->m[i].path))
			continue;
		r = hj_cgroup_path_check(tc->m[i].path);
		if (r)
			return r;
		if (hi->v2) {
			fd = hj_cgroup_openat(hi, tc->m[i].path,
					      O_PATH | O_DIRECTORY);
			if (fd < 0)
				return fd;
			close_safe(&p->v2fd);
			p->v2fd = fd;
			r = o->flags & HJ_SPAWN_AS_OWNER ?
				    owned_by(fd, "cgroup.procs", o->owner,
					     pid) :
				    0;
		} else {
			fd = hj_cgroup_open_file(hi, tc->m[i].path, "tasks",
						 O_WRONLY);
			if (fd < 0)
				return fd;
			p->v1fd[p->nv1++] = fd;
			r = o->flags & HJ_SPAWN_AS_OWNER ?
				    owned_by(fd, NULL, o->owner, 0) :
				    0;
		}
		if (r)
			return r;
		p->joined++;
	}
	return 0;
}

/*
 * @cg: the target's and our cgroups as hj_target_access() read them (NULL
 * when no cgroupfs is mounted: nothing to join).
 */
static int prep_stock(struct hj_target *t, const struct hj_spawn_opts *o,
		      const struct hj_task_cgroups *cg, struct prep *p)
{
	int r;

	p->rootfd = open_proc_dir(t->pid, "root");
	if (p->rootfd < 0)
		return p->rootfd == -EACCES ? -EPERM : p->rootfd;
	if (!o->cwd) {
		p->cwdfd = open_proc_dir(t->pid, "cwd");
		if (p->cwdfd < 0)
			return p->cwdfd == -EACCES ? -EPERM : p->cwdfd;
	}
	if (cg) {
		r = join_differing(cg, t->pid, o, p);
		if (r)
			return r;
	}
	/* all of the above was read from the task the pidfd pins */
	return hj_target_recheck(t);
}

/* In the new process, after the namespaces: root, then a cwd inside. */
static int enter_fs(struct prep *p, const char *cwd)
{
	char buf[32];

	if (p->rootfd >= 0) {
		if (fchdir(p->rootfd) || chroot("."))
			return -errno;
	}
	if (cwd) {
		if (chdir("/") || chdir(cwd))
			return -errno;
		return 0;
	}
	if (p->cwdfd < 0 || fchdir(p->cwdfd))
		return chdir("/") ? -errno : 0;
	/*
	 * The target's cwd may lie outside its root (CVE-2024-21626 is the
	 * case of a leaked host directory): getcwd() then fails or starts
	 * with "(unreachable)", and we fall back to the root.
	 */
	if (!getcwd(buf, sizeof(buf)) && errno != ERANGE)
		return chdir("/") ? -errno : 0;
	if (buf[0] != '/' && chdir("/"))
		return -errno;
	return 0;
}

/*
 * HJ_SPAWN_AS_OWNER: no capability in any set, before any namespace is
 * entered, so that the kernel lets in only what the owner could enter.
 */
static int drop_all_caps(uid_t owner)
{
	if (geteuid() != owner)
		return -EACCES;
	return hj_drop_caps();
}

/* Entering a user namespace: become its root, as lxc-attach does. */
static int become_ns_root(void)
{
	if (setgroups(0, NULL) && errno != EPERM)
		return -errno;
	if (setresgid(0, 0, 0) || setresuid(0, 0, 0))
		return -errno;
	return 0;
}

/*
 * The intermediate process of the stock backend.  It exits; only the
 * grandchild it creates returns from here.
 */
static void stock_intermediate(struct hj_target *t,
			       const struct hj_spawn_opts *o, struct prep *p,
			       int reportfd)
{
	struct report rep = { 0, 0 };
	size_t i;
	long pid;

	/* nothing in the container may ptrace us (CVE-2016-9962) */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	/*
	 * v1: join before running anything else.  A single thread moving
	 * itself ("0" into 'tasks') needs no write lock on the global
	 * threadgroup rwsem, which costs an RCU grace period per login.
	 */
	for (i = 0; i < p->nv1; i++) {
		if (write(p->v1fd[i], "0", 1) != 1) {
			rep.err = -errno;
			goto out;
		}
	}
	if ((o->flags & HJ_SPAWN_AS_OWNER) &&
	    (rep.err = drop_all_caps(o->owner)))
		goto out;
	if (t->ns_differ && setns(t->pidfd, hj_ns_clone_flags(t->ns_differ))) {
		rep.err = errno == EINVAL ? -EPERM : -errno;
		goto out;
	}
	if ((t->ns_differ & HJ_NS_USER) && (rep.err = become_ns_root()))
		goto out;
	rep.err = enter_fs(p, o->cwd);
	if (rep.err)
		goto out;
	prep_release(p);
	pid = syscall(SYS_clone, CLONE_PARENT | (o->clone_flags & CSIGNAL),
		      NULL, NULL, NULL, 0);
	if (pid == 0)
		return; /* the grandchild, inside the target */
	if (pid < 0) {
		/* a pid namespace whose init has died refuses new tasks */
		rep.err = errno == ENOMEM ? -ESRCH : -errno;
		goto out;
	}
	rep.pid = pid;
out:
	hj_write_full(reportfd, &rep, sizeof(rep));
	_exit(rep.err ? 1 : 0);
}

static pid_t spawn_stock(struct hj_target *t, const struct hj_spawn_opts *o,
			 const struct hj_task_cgroups *cg,
			 struct hj_spawn_info *info)
{
	struct clone_args args = { 0 };
	struct prep p = { .rootfd = -1, .cwdfd = -1, .v2fd = -1 };
	struct report rep = { -EPIPE, 0 };
	int repp[2] = { -1, -1 };
	struct hj_deadline dl;
	pid_t ipid = -1;
	int r, status;

	r = prep_stock(t, o, cg, &p);
	if (r)
		goto out;
	if (pipe2(repp, O_CLOEXEC)) {
		r = -errno;
		goto out;
	}
	args.exit_signal = SIGCHLD;
	if (p.v2fd >= 0) {
		args.flags |= CLONE_INTO_CGROUP;
		args.cgroup = p.v2fd;
	}
	ipid = syscall(SYS_clone3, &args, sizeof(args));
	if (ipid < 0) {
		r = -errno;
		goto out;
	}
	if (ipid == 0) {
		close(repp[0]);
		stock_intermediate(t, o, &p, repp[1]);
		/* the grandchild returns here, inside the target */
		close(repp[1]);
		hj_target_release(t);
		return 0;
	}
	close_safe(&repp[1]);
	/*
	 * I's chdir() resolves a path in the container's file system, where
	 * a FUSE server may never answer: its report comes within a
	 * deadline, or I is killed and not waited for.
	 */
	hj_deadline_child(&dl, ipid, HJ_CHILD_REPORT_MS);
	r = hj_read_full_by(repp[0], &rep, sizeof(rep), &dl);
	if (r == -ETIMEDOUT)
		hj_kill_reap(ipid, HJ_KILL_GRACE_MS);
	else
		while (waitpid(ipid, &status, 0) < 0 && errno == EINTR)
			;
	if (!r)
		r = rep.err;
	if (!r) {
		info->backend = HJ_BACKEND_STOCK;
		info->ns_entered = t->ns_differ;
		info->cgroups_joined = p.joined;
	}
out:
	close_safe(&repp[0]);
	close_safe(&repp[1]);
	prep_release(&p);
	return r ? r : rep.pid;
}

static pid_t spawn_native(int nr, struct hj_target *t,
			  const struct hj_spawn_opts *o,
			  struct hj_spawn_info *info)
{
	struct report rep = { -EPIPE, 0 };
	struct prep none = { .rootfd = -1, .cwdfd = -1, .v2fd = -1 };
	struct hj_hijack_args args = { 0 };
	struct timespec pause = { 0, 2 * 1000 * 1000 };
	struct hj_deadline dl;
	int repp[2] = { -1, -1 }, status, r, waited;
	/* nothing that can fail in the child: it need not report */
	bool report = (t->ns_differ & HJ_NS_USER) || o->cwd;
	long pid;

	if (report && pipe2(repp, O_CLOEXEC))
		return -errno;
	args.exit_signal = o->clone_flags & CSIGNAL;
	args.target_kind = HJ_WHICH_PIDFD;
	args.target = t->pidfd;
	/*
	 * The kernel asks ptrace rights, liveness and a tracer itself, under
	 * the target's exec_update_lock: a tracer that lets go within
	 * HJ_TRACED_WAIT_MS is waited for, as hj_target_recheck() does.
	 */
	for (waited = 0;; waited += 2) {
		pid = syscall(nr, &args, sizeof(args));
		if (pid >= 0 || errno != EBUSY || waited >= HJ_TRACED_WAIT_MS)
			break;
		nanosleep(&pause, NULL);
	}
	if (pid < 0) {
		rep.err = -errno;
		if (report) {
			close(repp[0]);
			close(repp[1]);
		}
		return rep.err;
	}
	if (pid == 0) {
		prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
		if (!report) {
			hj_target_release(t);
			return 0;
		}
		close(repp[0]);
		rep.err = 0;
		if (t->ns_differ & HJ_NS_USER)
			rep.err = become_ns_root();
		/* root and cwd are the target's already */
		if (!rep.err && o->cwd)
			rep.err = enter_fs(&none, o->cwd);
		rep.pid = getpid();
		hj_write_full(repp[1], &rep, sizeof(rep));
		if (rep.err)
			_exit(127);
		close(repp[1]);
		hj_target_release(t);
		return 0;
	}
	if (!report)
		goto out;
	close(repp[1]);
	/* the child's chdir() may stall as I's does in spawn_stock() */
	hj_deadline_child(&dl, (pid_t)pid, HJ_CHILD_REPORT_MS);
	r = hj_read_full_by(repp[0], &rep, sizeof(rep), &dl);
	close(repp[0]);
	if (r == -ETIMEDOUT) {
		hj_kill_reap((pid_t)pid, HJ_KILL_GRACE_MS);
		return r;
	}
	if (r)
		rep.err = -EPIPE;
	if (rep.err) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		return rep.err;
	}
out:
	info->backend = HJ_BACKEND_NATIVE;
	info->ns_entered = t->ns_differ;
	info->cgroups_joined = 0;
	return pid;
}

pid_t hj_spawn(struct hj_target *t, const struct hj_spawn_opts *opts,
	       struct hj_spawn_info *info)
{
	struct hj_spawn_opts o = *opts;
	struct hj_task_cgroups *cg = NULL;
	struct hj_spawn_info dummy;
	int r, nr = -ENOSYS;
	pid_t pid;

	if (!info)
		info = &dummy;
	memset(info, 0, sizeof(*info));
	if (!o.clone_flags)
		o.clone_flags = SIGCHLD;
	r = hj_check_clone_flags(o.clone_flags);
	if (r)
		return r;
	if (o.flags & HJ_SPAWN_AS_OWNER) {
		/* sys_hijack would enter with the caller's privilege */
		if (o.backend == HJ_BACKEND_NATIVE)
			return -EINVAL;
		o.backend = HJ_BACKEND_STOCK;
	}
	if (o.backend != HJ_BACKEND_STOCK)
		nr = hj_native_syscall_nr();
	if (o.backend == HJ_BACKEND_NATIVE && nr < 0)
		return -ENOSYS;
	/*
	 * The target's cgroups and ours are read once, here, or were kept by
	 * hj_target_check_access() (the login path asks it first): then only
	 * what can change in between is asked again, and for sys_hijack only
	 * the freezer, as the call checks the rest itself.
	 */
	if (!t->checked)
		r = hj_target_access(t, &cg);
	else if (nr > 0)
		r = hj_target_frozen_again(t);
	else
		r = hj_target_access_again(t);
	if (r)
		return r;
	if (nr > 0) {
		/* what hj_target_access() read by pid was of the pinned task */
		pid = t->checked ? 0 : hj_target_recheck(t);
		if (!pid)
			pid = spawn_native(nr, t, &o, info);
		if (pid != -ENOSYS || o.backend == HJ_BACKEND_NATIVE)
			goto out;
		/* no sys_hijack after all: the stock backend's checks */
		if (t->checked) {
			pid = hj_target_access_again(t);
			if (pid)
				goto out;
		}
	}
	pid = spawn_stock(t, &o, cg ? cg : t->cg, info);
out:
	hj_large_free(cg);
	return pid;
}

int hj_spawn_check(struct hj_target *t, const struct hj_spawn_opts *opts)
{
	struct prep p = { .rootfd = -1, .cwdfd = -1, .v2fd = -1 };
	struct hj_task_cgroups *cg = NULL;
	int r;

	if (opts->backend == HJ_BACKEND_NATIVE &&
	    (opts->flags & HJ_SPAWN_AS_OWNER))
		return -EINVAL;
	r = hj_check_clone_flags(opts->clone_flags ?: SIGCHLD);
	if (!r)
		r = hj_target_access(t, &cg);
	if (!r)
		r = prep_stock(t, opts, cg, &p);
	prep_release(&p);
	hj_large_free(cg);
	return r;
}

int hj_wait(pid_t child, int *status)
{
	while (waitpid(child, status, 0) < 0) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

/*
 * Wait for a foreground child as a shell does: when it stops, stop with
 * it and continue it when we are continued; when it ends, *code is what
 * a shell would give for it.
 */
int hj_wait_foreground(pid_t child, int *code)
{
	int status;

	for (;;) {
		if (waitpid(child, &status, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (WIFSTOPPED(status)) {
			kill(getpid(), SIGSTOP);
			kill(child, SIGCONT);
			continue;
		}
		*code = hj_exit_code(status);
		return 0;
	}
}
