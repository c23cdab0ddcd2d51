// SPDX-License-Identifier: GPL-2.0-only
/*
 * In-guest tests of item 3 of the v2 review of the series: cgroups.
 *
 *   cgroup-*-like-clone3   entering another cgroup2 cgroup takes what
 *                          clone3(CLONE_INTO_CGROUP) takes: write
 *                          permission on the destination's cgroup.procs
 *                          and on the common ancestor's, and with
 *                          nsdelegate both inside the caller's cgroup
 *                          namespace; hijack() must fail (or succeed)
 *                          with clone3()'s errno, by pid, pidfd and fd
 *   cgroup-fd-placement-*  the child lands in the cgroup the fd names,
 *                          on v2 and v1, while the task picked from it
 *                          keeps migrating between it and another
 *
 * Each of these but the controls failed on the series before the fix.
 * Runs as root in the guest (see hijack_test.c for the mounts).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>

#include "guest.h"

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* struct clone_args up to 'cgroup' (CLONE_ARGS_SIZE_VER2) */
struct clone_args_v2 {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack,
		stack_size, tls, set_tid, set_tid_size, cgroup;
};

#define DELEG CG_V2 "/hj-deleg"
#define MINE DELEG "/mine"
#define LOCKED DELEG "/locked"
#define NSD CG_V2 "/hj-nsd"
#define NSD_A NSD "/a"
#define NSD_B NSD "/b"

/* clone3(CLONE_INTO_CGROUP) into @cfd: 0 or the errno, as hijack_run(). */
static int clone3_into(int cfd)
{
	struct clone_args_v2 args = {
		.flags = CLONE_INTO_CGROUP,
		.exit_signal = SIGCHLD,
		.cgroup = cfd,
	};
	long pid = syscall(SYS_clone3, &args, sizeof(args));

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	waitpid(pid, NULL, 0);
	return 0;
}

/* The child's exit status: 0 if its cgroup2 cgroup is @arg. */
static int in_cgroup2(void *arg)
{
	char buf[4096], want[256];

	snprintf(want, sizeof(want), "0::%s\n", (const char *)arg);
	if (read_file("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return 2;
	return strstr(buf, want) ? 0 : 1;
}

static int chown_cgroup(const char *dir, uid_t uid)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	return chown(dir, uid, uid) | chown(path, uid, uid);
}

/* A task of @uid, ptrace-able by that uid, in the cgroup2 cgroup @dir. */
static pid_t task_in(const char *dir, uid_t uid)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (become(uid) < 0)
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || join_cgroup(dir, pid) < 0) {
		close(p[0]);
		reap(pid);
		return -1;
	}
	close(p[0]);
	return pid;
}

/*
 * What clone3(CLONE_INTO_CGROUP) and hijack() by pid, pidfd and cgroup fd
 * say, with the child's cgroup checked when hijack() succeeds: 100 + 1
 * for a child elsewhere.
 */
struct verdicts {
	int clone3, pid, pidfd, fd;
};

static int hijack_into(int which, unsigned long id, const char *cgroup)
{
	int status, err;

	err = hijack_run(which, id, in_cgroup2, (void *)cgroup, &status);
	if (!err && (!WIFEXITED(status) || WEXITSTATUS(status)))
		return 101;
	return err;
}

/*
 * Fork a caller that joins @from (as root), optionally enters a new cgroup
 * namespace and drops to @uid, then asks clone3() and hijack() to enter
 * @target, which lives in @to.
 */
static int compare(const char *from, const char *to, pid_t target, uid_t uid,
		   int cgroupns, struct verdicts *v)
{
	int p[2], status;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		struct verdicts r = { -1, -1, -1, -1 };
		int cfd, pidfd;

		close(p[0]);
		if (join_cgroup(from, getpid()) < 0)
			_exit(1);
		cfd = open(to, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		pidfd = syscall(SYS_pidfd_open, target, 0);
		if (cfd < 0 || pidfd < 0)
			_exit(1);
		if (cgroupns && unshare(CLONE_NEWCGROUP) < 0)
			_exit(1);
		if (uid && become(uid) < 0)
			_exit(1);
		r.clone3 = clone3_into(cfd);
		r.pid = hijack_into(HIJACK_PID, target, to + strlen(CG_V2));
		r.pidfd = hijack_into(HIJACK_PIDFD, pidfd, to + strlen(CG_V2));
		r.fd = hijack_into(HIJACK_CGROUP, cfd, to + strlen(CG_V2));
		_exit(write(p[1], &r, sizeof(r)) == sizeof(r) ? 0 : 1);
	}
	close(p[1]);
	status = pid > 0 && read(p[0], v, sizeof(*v)) == sizeof(*v) ? 0 : -1;
	close(p[0]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return status;
}

static const char *err_name(int err)
{
	return err == 101 ? "child in another cgroup" :
	       err	  ? strerror(err) :
			    "success";
}

static void check(const char *name, int rc, const struct verdicts *v, int want)
{
	if (rc < 0) {
		report(name, "setup: %m");
		return;
	}
	if (v->clone3 != want) {
		/* the oracle itself is not what the test assumes */
		report(name, "clone3 said %s, expected %s", err_name(v->clone3),
		       err_name(want));
		return;
	}
	if (v->pid != want || v->pidfd != want || v->fd != want)
		report(name, "clone3 %s; hijack by pid %s, pidfd %s, fd %s",
		       err_name(v->clone3), err_name(v->pid),
		       err_name(v->pidfd), err_name(v->fd));
	else
		report(name, NULL);
}

/*
 * v2 delegation.  A uid 1000 caller in a cgroup it owns, a uid 1000 target
 * (which it may ptrace) in a sibling.  Writing the target cgroup's
 * cgroup.procs takes write permission on it and on the common ancestor's.
 */
static void test_delegation(void)
{
	struct verdicts v;
	pid_t target;
	int rc;

	mkdir(DELEG, 0755);
	mkdir(MINE, 0755);
	mkdir(LOCKED, 0755);
	chown_cgroup(DELEG, 0);
	chown_cgroup(LOCKED, 0);
	chown_cgroup(MINE, UNPRIV_UID);
	target = task_in(LOCKED, UNPRIV_UID);
	if (target < 0) {
		report("cgroup-delegation-setup", "%m");
		return;
	}

	rc = compare(MINE, LOCKED, target, UNPRIV_UID, 0, &v);
	check("cgroup-eacces-like-clone3", rc, &v, EACCES);

	chown_cgroup(LOCKED, UNPRIV_UID);
	rc = compare(MINE, LOCKED, target, UNPRIV_UID, 0, &v);
	check("cgroup-ancestor-eacces-like-clone3", rc, &v, EACCES);

	/* control: a subtree delegated to uid 1000 as a whole */
	chown_cgroup(DELEG, UNPRIV_UID);
	rc = compare(MINE, LOCKED, target, UNPRIV_UID, 0, &v);
	check("cgroup-delegated-like-clone3", rc, &v, 0);

	reap(target);
	rmdir(LOCKED);
	rmdir(MINE);
	rmdir(DELEG);
}

static int remount_v2(const char *opts)
{
	return mount(NULL, CG_V2, NULL, MS_REMOUNT, opts);
}

/*
 * nsdelegate.  A root caller in a cgroup namespace rooted at NSD_A may
 * not move anything to NSD_B, outside it, when cgroup namespaces are
 * delegation boundaries (ENOENT); without nsdelegate it may.
 */
static void test_nsdelegate(void)
{
	struct verdicts v;
	pid_t target;
	int rc;

	mkdir(NSD, 0755);
	mkdir(NSD_A, 0755);
	mkdir(NSD_B, 0755);
	target = task_in(NSD_B, 0);
	if (target < 0) {
		report("cgroup-nsdelegate-setup", "%m");
		return;
	}
	if (remount_v2("nsdelegate") < 0) {
		report("cgroup-nsdelegate-like-clone3", "remount: %m");
	} else {
		rc = compare(NSD_A, NSD_B, target, 0, 1, &v);
		check("cgroup-nsdelegate-like-clone3", rc, &v, ENOENT);
		remount_v2("");
	}
	/* control: the same without nsdelegate */
	rc = compare(NSD_A, NSD_B, target, 0, 1, &v);
	check("cgroup-no-nsdelegate-like-clone3", rc, &v, 0);

	reap(target);
	rmdir(NSD_B);
	rmdir(NSD_A);
	rmdir(NSD);
}

/*
 * The child's cgroup on the hierarchy of /proc/self/cgroup line @key
 * ("0::" or ":pids:") must be @arg.
 */
struct placement {
	const char *key, *path;
};

static int placed(void *arg)
{
	const struct placement *pl = arg;
	char buf[4096], *line, *path;

	if (read_file("/proc/self/cgroup", buf, sizeof(buf)) < 0)
		return 2;
	line = strstr(buf, pl->key);
	if (!line)
		return 2;
	path = line + strlen(pl->key);
	return !strncmp(path, pl->path, strlen(pl->path)) &&
			       path[strlen(pl->path)] == '\n' ?
		       0 :
		       1;
}

/*
 * The task picked from cgroup A keeps migrating between A and B.  The
 * child must land in A, the cgroup the fd names: before the fix it
 * followed the task when it moved between the pick and the fork.
 */
static void test_placement(const char *name, const char *root, const char *key)
{
	char a[128], b[128];
	struct placement pl = { key, "/hj-mig-a" };
	int cfd, seconds, ok = 0, wrong = 0, esrch = 0, other = 0, status;
	pid_t task, mover;
	time_t end;

	snprintf(a, sizeof(a), "%s/hj-mig-a", root);
	snprintf(b, sizeof(b), "%s/hj-mig-b", root);
	mkdir(a, 0755);
	mkdir(b, 0755);
	task = sleeper();
	if (task < 0 || join_cgroup(a, task) < 0) {
		report(name, "setup: %m");
		reap(task);
		return;
	}
	mover = fork();
	if (mover == 0) {
		for (;;) {
			join_cgroup(b, task);
			join_cgroup(a, task);
		}
	}
	cfd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	seconds = getenv("HIJACK_CGROUP_RACE_SECONDS") ?
			  atoi(getenv("HIJACK_CGROUP_RACE_SECONDS")) :
			  5;
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		int err = hijack_run(HIJACK_CGROUP, cfd, placed, &pl, &status);

		if (err == ESRCH)
			esrch++;
		else if (err)
			other++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
		else
			wrong++;
	}
	reap(mover);
	reap(task);
	close(cfd);
	rmdir(a);
	rmdir(b);

	if (wrong || other || !ok)
		report(name, "%d in A, %d elsewhere, %d ESRCH, %d other errors",
		       ok, wrong, esrch, other);
	else
		report(name, NULL);
	printf("INFO %s: %d in A, %d ESRCH\n", name, ok, esrch);
}

int main(void)
{
	if (hijack_init("cgroup-syscall-nr") < 0)
		return 1;
	test_delegation();
	test_nsdelegate();
	test_placement("cgroup-fd-placement-v2", CG_V2, "0::");
	test_placement("cgroup-fd-placement-v1", CG_V1_PIDS, ":pids:");

	printf("cgroup_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
