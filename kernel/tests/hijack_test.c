// SPDX-License-Identifier: GPL-2.0-only
/*
 * In-guest tests for the hijack() system call.
 *
 * Runs as root (pid 1's child) in a QEMU guest booted with the patched
 * kernel.  Builds real containers out of namespaces and cgroups (v1 and
 * v2), enters them with hijack() and checks what the child observes:
 * hostname, namespace inodes, cgroup membership, cwd, parent, uid.
 * Prints "PASS name" or "FAIL name: reason" per test and a count line.
 *
 * Cgroup mounts expected (made by the guest's /init):
 *   /sys/fs/cgroup/pids     cgroup v1, pids controller
 *   /sys/fs/cgroup/unified  cgroup v2
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define CG_V1	"/sys/fs/cgroup/pids"

/* What a hijacked child saw, sent back to the caller through a pipe. */
struct observed {
	int ok;
	int dumpable;
	pid_t pid;
	uid_t uid;
	char hostname[64];
	char cwd[128];
	char cgroup[512];
	ino_t ns[8];
};

static const char *const ns_names[] = {
	"uts", "ipc", "mnt", "pid", "net", "user", "cgroup", "time",
};
#define NR_NS (sizeof(ns_names) / sizeof(ns_names[0]))

/* A container: a host-side helper and the container's init. */
struct container {
	const char *name;
	char cg_v1[128];
	char cg_v2[128];
	pid_t helper;	/* host pid namespace, first in the cgroups */
	pid_t init;	/* pid 1 of the container, host pid */
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static ino_t ns_ino(pid_t pid, const char *ns)
{
	char path[64];
	struct stat st;

	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", pid, ns);
	else
		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns);
	if (stat(path, &st) < 0)
		return 0;
	return st.st_ino;
}

static char proc_state(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : '?';
}

static pid_t proc_ppid(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	if (!p)
		return -1;
	return atoi(p + 4);
}

/* Raw fork-like clone, so the child can be created in new namespaces. */
static pid_t clone_ns(unsigned long flags)
{
	return syscall(SYS_clone, flags | SIGCHLD, 0, NULL, NULL, 0);
}

/*
 * Only async-signal-safe calls from here on in a hijacked child: it is a
 * raw fork, libc knows nothing about it.
 */
static void child_observe(int wfd)
{
	struct observed o;
	unsigned int i;

	memset(&o, 0, sizeof(o));
	o.dumpable = prctl(PR_GET_DUMPABLE);
	o.pid = getpid();
	o.uid = getuid();
	gethostname(o.hostname, sizeof(o.hostname) - 1);
	if (!getcwd(o.cwd, sizeof(o.cwd)))
		o.cwd[0] = '\0';
	read_file("/proc/self/cgroup", o.cgroup, sizeof(o.cgroup));
	for (i = 0; i < NR_NS; i++)
		o.ns[i] = ns_ino(0, ns_names[i]);
	o.ok = 1;
	if (write(wfd, &o, sizeof(o)) != sizeof(o))
		_exit(2);
	_exit(0);
}

/*
 * hijack() and collect what the child observed.  Returns the errno on
 * failure, 0 with *o filled and *child set on success.
 */
static int hijack_observe(int which, unsigned long id, struct observed *o,
			  pid_t *child, pid_t *ppid)
{
	int p[2], status, err;
	long ret;

	memset(o, 0, sizeof(*o));
	if (pipe(p) < 0)
		return errno;
	ret = hijack(SIGCHLD, which, id);
	if (ret == 0) {
		close(p[0]);
		child_observe(p[1]);
	}
	err = errno;
	close(p[1]);
	if (ret < 0) {
		close(p[0]);
		return err;
	}
	*child = ret;
	if (read(p[0], o, sizeof(*o)) != sizeof(*o))
		o->ok = 0;
	/* Still our child (and a zombie now, so visible) before reaping. */
	*ppid = proc_ppid(ret);
	close(p[0]);
	if (waitpid(ret, &status, 0) != ret)
		o->ok = 0;
	return 0;
}

static void container_init(const char *name, const char *cwd, int wfd)
{
	mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mkdir(cwd, 0755);
	if (sethostname(name, strlen(name)) < 0 || chdir(cwd) < 0)
		_exit(1);
	if (write(wfd, "r", 1) != 1)
		_exit(1);
	close(wfd);
	for (;;)
		pause();
}

/*
 * Start a root container like `unshare --fork --pid --mount --uts --ipc`
 * run from a shell in its own cgroup: the helper joins the cgroups first,
 * then forks the container's init in new namespaces and waits for it.
 */
static int container_start(struct container *c, const char *name)
{
	int p[2], q[2];
	char buf;

	c->name = name;
	snprintf(c->cg_v1, sizeof(c->cg_v1), CG_V1 "/%s", name);
	snprintf(c->cg_v2, sizeof(c->cg_v2), CG_V2 "/%s", name);
	mkdir(c->cg_v1, 0755);
	mkdir(c->cg_v2, 0755);
	if (pipe(p) < 0 || pipe(q) < 0)
		return -1;

	c->helper = fork();
	if (c->helper < 0)
		return -1;
	if (c->helper == 0) {
		pid_t init;
		char dir[64];

		close(p[0]);
		close(q[0]);
		if (join_cgroup(c->cg_v1, getpid()) < 0 ||
		    join_cgroup(c->cg_v2, getpid()) < 0)
			_exit(1);
		snprintf(dir, sizeof(dir), "/tmp/%s-cwd", name);
		init = clone_ns(CLONE_NEWUTS | CLONE_NEWPID | CLONE_NEWIPC |
				CLONE_NEWNS | CLONE_NEWNET);
		if (init == 0) {
			close(q[1]);
			container_init(name, dir, p[1]);
		}
		if (init < 0 || write(q[1], &init, sizeof(init)) < 0)
			_exit(1);
		close(p[1]);
		waitpid(init, NULL, 0);
		_exit(0);
	}
	close(p[1]);
	close(q[1]);
	if (read(q[0], &c->init, sizeof(c->init)) != sizeof(c->init) ||
	    read(p[0], &buf, 1) != 1) {
		close(p[0]);
		close(q[0]);
		return -1;
	}
	close(p[0]);
	close(q[0]);
	return 0;
}

static void container_stop(struct container *c)
{
	if (c->init > 0)
		kill(c->init, SIGKILL);
	if (c->helper > 0)
		waitpid(c->helper, NULL, 0);
	rmdir(c->cg_v1);
	rmdir(c->cg_v2);
}

/* Compare what a hijacked child saw with the container's init. */
static void check_landed(const char *name, struct container *c, int err,
			 struct observed *o, pid_t child, pid_t ppid)
{
	char path[64], cg[512], want_cwd[64];
	unsigned int i;

	if (err) {
		report(name, "hijack: %s", strerror(err));
		return;
	}
	if (!o->ok) {
		report(name, "child did not report back");
		return;
	}
	if (strcmp(o->hostname, c->name)) {
		report(name, "hostname '%s', want '%s'", o->hostname, c->name);
		return;
	}
	for (i = 0; i < NR_NS; i++) {
		ino_t want = ns_ino(c->init, ns_names[i]);

		if (o->ns[i] != want) {
			report(name, "%s ns %lu, target's %lu", ns_names[i],
			       (unsigned long)o->ns[i], (unsigned long)want);
			return;
		}
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", c->init);
	if (read_file(path, cg, sizeof(cg)) < 0 || strcmp(cg, o->cgroup)) {
		report(name, "cgroup '%s', target's '%s'", o->cgroup, cg);
		return;
	}
	if (!strstr(o->cgroup, c->name)) {
		report(name, "not in cgroup %s: '%s'", c->name, o->cgroup);
		return;
	}
	snprintf(want_cwd, sizeof(want_cwd), "/tmp/%s-cwd", c->name);
	if (strcmp(o->cwd, want_cwd)) {
		report(name, "cwd '%s', want '%s'", o->cwd, want_cwd);
		return;
	}
	if (o->pid <= 1 || o->pid == child) {
		report(name, "pid %d inside, %d outside: not in the pid ns",
		       o->pid, child);
		return;
	}
	if (ppid != getpid()) {
		report(name, "parent %d, want caller %d", ppid, getpid());
		return;
	}
	if (o->dumpable != 0) {
		report(name, "child is dumpable (%d) inside the container",
		       o->dumpable);
		return;
	}
	if (proc_state(c->init) == 'T') {
		report(name, "target left stopped");
		return;
	}
	report(name, NULL);
}

static void test_landing(struct container *c)
{
	const char *files[][2] = {
		{ "hijack-cgroup-v1-tasks", CG_V1 "/%s/tasks" },
		{ "hijack-cgroup-v1-procs", CG_V1 "/%s/cgroup.procs" },
		{ "hijack-cgroup-v1-dir", CG_V1 "/%s" },
		{ "hijack-cgroup-v2-procs", CG_V2 "/%s/cgroup.procs" },
		{ "hijack-cgroup-v2-dir", CG_V2 "/%s" },
	};
	struct observed o;
	pid_t child = 0, ppid = 0;
	unsigned int i;
	int err, fd;

	err = hijack_observe(HIJACK_PID, c->init, &o, &child, &ppid);
	check_landed("hijack-pid", c, err, &o, child, ppid);

	fd = syscall(SYS_pidfd_open, c->init, 0);
	err = hijack_observe(HIJACK_PIDFD, fd, &o, &child, &ppid);
	check_landed("hijack-pidfd", c, err, &o, child, ppid);
	close(fd);

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[256];

		snprintf(path, sizeof(path), files[i][1], c->name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			report(files[i][0], "open %s: %m", path);
			continue;
		}
		err = hijack_observe(HIJACK_CGROUP, fd, &o, &child, &ppid);
		check_landed(files[i][0], c, err, &o, child, ppid);
		close(fd);
	}

	/* O_PATH cgroup directory, as CLONE_INTO_CGROUP accepts. */
	{
		char path[256];

		snprintf(path, sizeof(path), CG_V2 "/%s", c->name);
		fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
		err = hijack_observe(HIJACK_CGROUP, fd, &o, &child, &ppid);
		check_landed("hijack-cgroup-v2-opath", c, err, &o, child,
			     ppid);
		close(fd);
	}

	if (proc_state(c->init) == 'T')
		report("target-not-stopped", "state T after hijacks");
	else if (proc_state(c->init) == '?')
		report("target-not-stopped", "target gone");
	else
		report("target-not-stopped", NULL);
}

static void expect_errno(const char *name, long ret, int err, int want)
{
	if (ret == 0)
		_exit(0);	/* an unexpected child */
	if (ret > 0) {
		waitpid(ret, NULL, 0);
		report(name, "succeeded, want %s", strerror(want));
	} else if (err != want) {
		report(name, "%s, want %s", strerror(err), strerror(want));
	} else {
		report(name, NULL);
	}
}

#define EXPECT(name, want, flags, which, id) do {			\
		long r_ = hijack(flags, which, id);			\
		expect_errno(name, r_, errno, want);			\
	} while (0)

/* Run @fn in a child as uid/gid UNPRIV_UID; its exit status is an errno. */
static int as_user(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(UNPRIV_UID) < 0 ||
		    setuid(UNPRIV_UID) < 0)
			_exit(100);
		prctl(PR_SET_DUMPABLE, 1);
		_exit(fn(arg));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 101;
	return WEXITSTATUS(status);
}

static int hijack_errno(int which, unsigned long id)
{
	long ret = hijack(SIGCHLD, which, id);

	if (ret == 0)
		_exit(0);
	if (ret > 0) {
		waitpid(ret, NULL, 0);
		return 0;
	}
	return errno;
}

static int unpriv_hijack_pid(void *arg)
{
	return hijack_errno(HIJACK_PID, *(pid_t *)arg);
}

static int unpriv_hijack_own(void *arg)
{
	int status, err;
	pid_t pid;

	(void)arg;
	pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	err = hijack_errno(HIJACK_PID, pid);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return err;
}

/*
 * A uid 1000 process that root put in a new UTS namespace (owned by the
 * initial user namespace) and made dumpable again: uid 1000 may ptrace it
 * but, as for setns(), lacks CAP_SYS_ADMIN over its UTS namespace.
 */
static pid_t user_task(int new_uts)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (new_uts && (unshare(CLONE_NEWUTS) < 0 ||
				sethostname("rootuts", 7) < 0))
			_exit(1);
		if (setgroups(0, NULL) < 0 || setgid(UNPRIV_UID) < 0 ||
		    setuid(UNPRIV_UID) < 0)
			_exit(1);
		prctl(PR_SET_DUMPABLE, 1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	return pid;
}

static void test_setns_rules(struct container *c)
{
	pid_t plain, uts, pid;
	int err, pidfd, status;

	plain = user_task(0);
	uts = user_task(1);
	err = as_user(unpriv_hijack_pid, &plain);
	report("setns-rules-control",
	       err == 0 ? NULL : "got %s, want success", strerror(err));
	err = as_user(unpriv_hijack_pid, &uts);
	report("eperm-no-cap-over-target-uts-ns",
	       err == EPERM ? NULL : "got %s, want EPERM", strerror(err));
	kill(plain, SIGKILL);
	kill(uts, SIGKILL);
	waitpid(plain, NULL, 0);
	waitpid(uts, NULL, 0);

	/* From a sibling pid namespace: not at or below the caller's. */
	pidfd = syscall(SYS_pidfd_open, c->init, 0);
	pid = clone_ns(CLONE_NEWPID);
	if (pid == 0)
		_exit(hijack_errno(HIJACK_PIDFD, pidfd));
	waitpid(pid, &status, 0);
	close(pidfd);
	err = WIFEXITED(status) ? WEXITSTATUS(status) : 101;
	report("einval-pidns-not-below-caller",
	       err == EINVAL ? NULL : "got %s, want EINVAL", strerror(err));
}

static void test_errors(struct container *c)
{
	char path[256];
	pid_t pid;
	int fd, err, status;

	EXPECT("einval-sysvsem", EINVAL, CLONE_SYSVSEM | SIGCHLD, HIJACK_PID,
	       c->init);
	EXPECT("einval-vm", EINVAL, CLONE_VM | SIGCHLD, HIJACK_PID, c->init);
	EXPECT("einval-newpid", EINVAL, CLONE_NEWPID | SIGCHLD, HIJACK_PID,
	       c->init);
	EXPECT("einval-bad-signal", EINVAL, 200, HIJACK_PID, c->init);
	EXPECT("einval-which", EINVAL, SIGCHLD, 7, c->init);
	EXPECT("einval-which-zero", EINVAL, SIGCHLD, 0, c->init);
	EXPECT("esrch-no-such-pid", ESRCH, SIGCHLD, HIJACK_PID, 4000000);

	fd = open("/init", O_RDONLY | O_CLOEXEC);
	EXPECT("ebadf-regular-file", EBADF, SIGCHLD, HIJACK_CGROUP, fd);
	EXPECT("ebadf-pidfd-regular-file", EBADF, SIGCHLD, HIJACK_PIDFD, fd);
	close(fd);
	fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT("ebadf-non-cgroup-dir", EBADF, SIGCHLD, HIJACK_CGROUP, fd);
	close(fd);
	snprintf(path, sizeof(path), "%s/pids.max", c->cg_v1);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	EXPECT("ebadf-cgroup-other-file", EBADF, SIGCHLD, HIJACK_CGROUP, fd);
	close(fd);
	EXPECT("ebadf-closed-fd", EBADF, SIGCHLD, HIJACK_CGROUP, 999);

	mkdir(CG_V1 "/empty", 0755);
	mkdir(CG_V2 "/empty", 0755);
	fd = open(CG_V1 "/empty/tasks", O_RDONLY | O_CLOEXEC);
	EXPECT("esrch-empty-cgroup-v1", ESRCH, SIGCHLD, HIJACK_CGROUP, fd);
	close(fd);
	fd = open(CG_V2 "/empty", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	EXPECT("esrch-empty-cgroup-v2", ESRCH, SIGCHLD, HIJACK_CGROUP, fd);
	close(fd);

	/* A cgroup whose only member is a zombie has no live task. */
	pid = fork();
	if (pid == 0) {
		join_cgroup(CG_V2 "/empty", getpid());
		_exit(0);
	}
	usleep(200000);
	fd = open(CG_V2 "/empty/cgroup.procs", O_RDONLY | O_CLOEXEC);
	EXPECT("esrch-zombie-only-cgroup", ESRCH, SIGCHLD, HIJACK_CGROUP, fd);
	close(fd);
	waitpid(pid, NULL, 0);
	rmdir(CG_V1 "/empty");
	rmdir(CG_V2 "/empty");

	/* An unprivileged user against a root task. */
	err = as_user(unpriv_hijack_pid, &c->init);
	report("eperm-unprivileged-vs-root",
	       err == EPERM ? NULL : "got %s, want EPERM", strerror(err));

	/* ... which may still hijack its own processes. */
	err = as_user(unpriv_hijack_own, NULL);
	report("unprivileged-own-process",
	       err == 0 ? NULL : "got %s, want success", strerror(err));

	/* A traced caller. */
	pid = fork();
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(100);
		_exit(hijack_errno(HIJACK_PID, c->init));
	}
	waitpid(pid, &status, 0);
	err = WIFEXITED(status) ? WEXITSTATUS(status) : 101;
	report("eperm-traced-caller",
	       err == EPERM ? NULL : "got %s, want EPERM", strerror(err));

	/* A traced target. */
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		for (;;)
			pause();
	}
	usleep(100000);
	EXPECT("ebusy-traced-target", EBUSY, SIGCHLD, HIJACK_PID, pid);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	/* Kernel threads are never targets. */
	EXPECT("eperm-kthread", EPERM, SIGCHLD, HIJACK_PID, 2);
}

/*
 * A rootless container: uid 1000 creates user, uts, pid, ipc and mount
 * namespaces with itself mapped to root, and a second uid 1000 process
 * enters it.  Returns 0 or a small failure code.
 */
static int userns_container(void *arg)
{
	int p[2], status, code = 0;
	struct observed o;
	pid_t init, child;
	char buf;

	(void)arg;
	if (pipe(p) < 0)
		return 1;
	init = clone_ns(CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWPID |
			CLONE_NEWIPC | CLONE_NEWNS);
	if (init < 0)
		return 2;
	if (init == 0) {
		close(p[0]);
		/* wait until the parent wrote the id maps */
		usleep(200000);
		if (sethostname("userctr", 7) < 0 || chdir("/tmp") < 0)
			_exit(1);
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	{
		char path[64], map[32];

		snprintf(path, sizeof(path), "/proc/%d/setgroups", init);
		write_file(path, "deny");
		snprintf(map, sizeof(map), "0 %d 1", UNPRIV_UID);
		snprintf(path, sizeof(path), "/proc/%d/uid_map", init);
		if (write_file(path, map) < 0)
			code = 3;
		snprintf(path, sizeof(path), "/proc/%d/gid_map", init);
		if (write_file(path, map) < 0)
			code = 3;
	}
	if (read(p[0], &buf, 1) != 1)
		code = 4;

	/* Enter it from a fresh process of the same user. */
	if (!code) {
		child = fork();
		if (child == 0) {
			pid_t hc, ppid;
			int err = hijack_observe(HIJACK_PID, init, &o, &hc,
						 &ppid);
			int i;

			if (err)
				_exit(err > 100 ? 99 : err);
			if (!o.ok || strcmp(o.hostname, "userctr"))
				_exit(5);
			if (o.uid != 0)
				_exit(6);
			for (i = 0; i < (int)NR_NS; i++)
				if (o.ns[i] != ns_ino(init, ns_names[i]))
					_exit(10 + i);
			_exit(0);
		}
		waitpid(child, &status, 0);
		code = WIFEXITED(status) ? WEXITSTATUS(status) : 98;
	}
	kill(init, SIGKILL);
	waitpid(init, NULL, 0);
	close(p[0]);
	return code;
}

static void test_userns(void)
{
	int code = as_user(userns_container, NULL);

	if (code == 0)
		report("userns-container-by-owner", NULL);
	else
		report("userns-container-by-owner", "failure code %d (%s)",
		       code, code < 100 ? strerror(code) : "setup");
}

/* The init of a container is chosen over its host-side helper. */
static void test_choice(struct container *c)
{
	char path[256];
	struct observed o;
	pid_t child, ppid;
	int fd, err;

	snprintf(path, sizeof(path), "%s/cgroup.procs", c->cg_v2);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = hijack_observe(HIJACK_CGROUP, fd, &o, &child, &ppid);
	close(fd);
	if (err)
		report("cgroup-picks-container-init", "%s", strerror(err));
	else if (o.ns[3] != ns_ino(c->init, "pid") ||
		 o.ns[3] == ns_ino(c->helper, "pid"))
		report("cgroup-picks-container-init", "landed in helper's ns");
	else
		report("cgroup-picks-container-init", NULL);
}

/* Many hijacks and random arguments: no crash, nothing left behind. */
static void test_stress(struct container *c)
{
	const char *env = getenv("HIJACK_LOOPS");
	unsigned int loops = env ? atoi(env) : 1000;
	unsigned int seed = 42, i, bad = 0;
	char name[64];
	double t0;
	int fd = syscall(SYS_pidfd_open, c->init, 0);
	int cfd = open(c->cg_v1, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	t0 = now_us();
	for (i = 0; i < loops; i++) {
		long ret = hijack(SIGCHLD, i & 1 ? HIJACK_PIDFD : HIJACK_CGROUP,
				  i & 1 ? fd : cfd);

		if (ret == 0)
			_exit(0);
		if (ret < 0 || waitpid(ret, NULL, 0) != ret)
			bad++;
	}
	printf("BENCH %u hijacks (pidfd/cgroup, no exec) in %.1f s\n", loops,
	       (now_us() - t0) / 1e6);
	snprintf(name, sizeof(name), "loop-%u-hijacks", loops);
	report(name, bad ? "%u failures" : NULL, bad);

	for (i = 0; i < 2000; i++) {
		unsigned long flags = rand_r(&seed);
		int which = rand_r(&seed) % 6 - 1;
		unsigned long id = rand_r(&seed) % 1200;
		long ret;

		if (rand_r(&seed) & 1)
			flags = SIGCHLD;
		if (rand_r(&seed) % 4 == 0)
			id = (unsigned long)rand_r(&seed) << 20;
		ret = hijack(flags, which, id);
		if (ret == 0)
			_exit(0);
		if (ret > 0)
			waitpid(ret, NULL, 0);
	}
	report("random-arguments", NULL);
	close(fd);
	close(cfd);
}

static void exec_true(void)
{
	char *const argv[] = { "true", NULL };

	execve("/bin/true", argv, environ);
	_exit(127);
}

/* The stock-kernel way: setns() on a pidfd, fork, join the cgroups. */
static void stock_enter(struct container *c, int pidfd)
{
	pid_t pid;

	if (setns(pidfd, CLONE_NEWNS | CLONE_NEWUTS | CLONE_NEWIPC |
		  CLONE_NEWNET | CLONE_NEWPID) < 0)
		_exit(126);
	pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, NULL, NULL, 0);
	if (pid != 0)
		_exit(pid < 0 ? 126 : 0);
	if (join_cgroup(c->cg_v1, 0) < 0 || join_cgroup(c->cg_v2, 0) < 0)
		_exit(125);
	exec_true();
}

/*
 * Side by side: plain fork+exec, hijack+exec, and setns+fork+cgroup
 * join+exec (what userspace must do without hijack).  The three are
 * interleaved, so a busy host skews them alike, and averaged over many
 * rounds, since the guest's clock may tick coarsely (jiffies under TCG).
 * Not a pass/fail test; under TCG only the ratios mean something.
 */
static void bench(struct container *c)
{
	const char *env = getenv("HIJACK_BENCH_ROUNDS");
	int i, rounds = env ? atoi(env) : 200;
	int pidfd = syscall(SYS_pidfd_open, c->init, 0);
	double t0, plain = 0, native = 0, stock = 0;
	pid_t pid;

	for (i = 0; i < rounds; i++) {
		t0 = now_us();
		pid = fork();
		if (pid == 0)
			exec_true();
		waitpid(pid, NULL, 0);
		plain += now_us() - t0;

		t0 = now_us();
		pid = hijack(SIGCHLD, HIJACK_PIDFD, pidfd);
		if (pid == 0)
			exec_true();
		waitpid(pid, NULL, 0);
		native += now_us() - t0;

		t0 = now_us();
		pid = fork();
		if (pid == 0)
			stock_enter(c, pidfd);
		/* the intermediate, then the grandchild reparented to us */
		waitpid(-1, NULL, 0);
		waitpid(-1, NULL, 0);
		stock += now_us() - t0;
	}
	close(pidfd);

	printf("BENCH mean of %d: fork+exec %.0f us, hijack+exec %.0f us, setns+fork+exec %.0f us\n",
	       rounds, plain / rounds, native / rounds, stock / rounds);
	printf("BENCH hijack/fork = %.2f, hijack/setns = %.2f\n",
	       native / plain, native / stock);
}

int main(void)
{
	struct container c;

	if (hijack_init("syscall-nr") < 0) {
		printf("hijack_test: %d passed, %d failed\n", passed, failed);
		return 1;
	}
	report("syscall-nr", NULL);

	memset(&c, 0, sizeof(c));
	if (container_start(&c, "web1") < 0) {
		report("container-setup", "%m");
	} else {
		test_landing(&c);
		test_choice(&c);
		test_errors(&c);
		test_setns_rules(&c);
		test_userns();
		test_stress(&c);
		if (!getenv("HIJACK_BENCH") || atoi(getenv("HIJACK_BENCH")))
			bench(&c);
		container_stop(&c);
	}

	printf("hijack_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
