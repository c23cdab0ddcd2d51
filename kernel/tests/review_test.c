// SPDX-License-Identifier: GPL-2.0-only
/*
 * In-guest tests for what the v2 review of hijack() found:
 * each test here failed on the v1 series and passes on v2.
 *
 *   untraced-child-race        a tracer seizing the caller mid-call with
 *                              PTRACE_O_TRACEFORK never gets the child
 *   esrch-dying-pidns          a target whose pid namespace is dying
 *   timens-vdso-*              the child reads the target's clocks through
 *                              the vDSO, not the caller's
 *   threaded-caller-*          a multi-threaded caller may enter a user or
 *                              time namespace (setns()'s rules are for
 *                              current, which hijack() does not move)
 *   chroot-*                   entering a chrooted target's root needs
 *                              CAP_SYS_CHROOT over its user namespace
 *
 * Runs as root in the guest (see hijack_test.c for the mounts).  Prints
 * "PASS name" / "FAIL name: reason".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

#define CG_FREEZER	"/sys/fs/cgroup/freezer"
#define TIMENS_OFFSET	86400

static pid_t clone_ns(unsigned long flags)
{
	return syscall(SYS_clone, flags | SIGCHLD, 0, NULL, NULL, 0);
}

/*
 * Item 5.  The caller loops hijack() on a cgroup of many tasks (a long
 * lookup); a tracer keeps seizing it with PTRACE_O_TRACEFORK and letting
 * go.  The "not traced" check at entry passes, the tracer attaches during
 * the lookup: without CLONE_UNTRACED it gets a fork event and the child,
 * which sits in the target's context under a tracer that was never
 * checked against it.
 */
#define RACE_TASKS	200
#define RACE_SECONDS	6

static void test_untraced_child(void)
{
	pid_t tasks[RACE_TASKS], caller;
	int i, cfd, status, attached = 0, events = 0, children = 0;
	time_t end;
	char dir[] = CG_V2 "/race";

	mkdir(dir, 0755);
	for (i = 0; i < RACE_TASKS; i++) {
		tasks[i] = sleeper();
		join_cgroup(dir, tasks[i]);
	}
	cfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	caller = fork();
	if (caller == 0) {
		time_t stop = time(NULL) + RACE_SECONDS;
		int ok = 0;

		/*
		 * While traced every call is refused (EBUSY); on one slow
		 * CPU the tracer can hold it the whole time: go on, up to
		 * RACE_SECONDS more, until one call got through.
		 */
		while (time(NULL) < stop ||
		       (!ok && time(NULL) < stop + RACE_SECONDS)) {
			if (hijack_run(HIJACK_CGROUP, cfd, NULL, NULL, NULL) == 0)
				ok++;
		}
		_exit(ok > 0 ? 0 : 1);
	}

	end = time(NULL) + 2 * RACE_SECONDS + 30;
	for (;;) {
		pid_t w;

		if (time(NULL) > end)
			break;
		if (ptrace(PTRACE_SEIZE, caller, 0, PTRACE_O_TRACEFORK) < 0) {
			if (waitpid(caller, &status, WNOHANG) == caller)
				break;
			continue;
		}
		attached++;
		/*
		 * Stay attached a while before stopping it: an interrupt
		 * makes a fork in progress restart, closing the window.
		 */
		for (w = 0, i = 0; i < 3 && !w; i++) {
			w = waitpid(caller, &status, __WALL | WNOHANG);
			if (!w)
				usleep(100);
		}
		if (!w) {
			ptrace(PTRACE_INTERRUPT, caller, 0, 0);
			w = waitpid(caller, &status, __WALL);
		}
		if (w != caller || WIFEXITED(status) || WIFSIGNALED(status))
			break;
		if (status >> 16 == PTRACE_EVENT_FORK) {
			unsigned long child = 0;

			events++;
			ptrace(PTRACE_GETEVENTMSG, caller, 0, &child);
			if (child && waitpid(child, NULL, __WALL) == (pid_t)child) {
				children++;
				ptrace(PTRACE_DETACH, child, 0, 0);
			}
		}
		if (ptrace(PTRACE_DETACH, caller, 0, 0) < 0) {
			/* stopped in the fork event, the interrupt pending */
			ptrace(PTRACE_INTERRUPT, caller, 0, 0);
			waitpid(caller, &status, __WALL);
			ptrace(PTRACE_DETACH, caller, 0, 0);
		}
		/* untraced a moment: the caller's calls can get through */
		usleep(200);
	}
	if (waitpid(caller, &status, WNOHANG) == 0) {
		reap(caller);
		status = -1;
	}
	close(cfd);
	for (i = 0; i < RACE_TASKS; i++)
		reap(tasks[i]);
	rmdir(dir);

	printf("INFO untraced-child-race: %d attaches, %d fork events, %d children traced\n",
	       attached, events, children);
	if (status != 0)
		report("untraced-child-race", "caller: no hijack succeeded (status %#x)",
		       status);
	else if (!attached)
		report("untraced-child-race", "tracer never attached");
	else if (events || children)
		report("untraced-child-race",
		       "%d fork events, %d children attached to the tracer",
		       events, children);
	else
		report("untraced-child-race", NULL);
}

/*
 * Item 6.  X is frozen (cgroup v1 freezer: SIGKILL does not thaw it) in a
 * pid namespace whose init then dies: the namespace takes no new pids but
 * X is alive.  hijack(X) must say ESRCH (the target's context is going
 * away), not alloc_pid()'s ENOMEM.
 */
static long proc_flags(pid_t pid)
{
	char path[64], buf[512], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	/* ") S ppid pgrp session tty tpgid flags": flags is the 7th field */
	for (i = 0; p && i < 7; i++)
		p = strchr(p + 1, ' ');
	return p ? atol(p + 1) : -1;
}

static void test_dying_pidns(void)
{
	char dir[] = CG_FREEZER "/dying", path[128], state[32], buf[16];
	int p[2], i, err = -1;
	pid_t init, x = 0;

	mkdir(CG_FREEZER, 0755);
	if (mount("freezer", CG_FREEZER, "cgroup", 0, "freezer") < 0 &&
	    errno != EBUSY) {
		report("esrch-dying-pidns", "mount freezer: %m");
		return;
	}
	mkdir(dir, 0755);
	if (pipe(p) < 0)
		return;
	init = clone_ns(CLONE_NEWPID);
	if (init == 0) {
		pid_t c = fork();

		if (c == 0) {
			for (;;)
				pause();
		}
		/* the host pid of c, as seen from outside */
		if (write(p[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		for (;;)
			pause();
	}
	/* the init only knows c as 2; find its host pid through its children */
	close(p[1]);
	if (read(p[0], buf, sizeof(pid_t)) == sizeof(pid_t)) {
		char kids[64];

		snprintf(path, sizeof(path), "/proc/%d/task/%d/children", init,
			 init);
		for (i = 0; i < 100 && !x; i++) {
			if (read_file(path, kids, sizeof(kids)) == 0)
				x = atoi(kids);
			if (!x)
				usleep(10000);
		}
	}
	close(p[0]);
	if (!x) {
		report("esrch-dying-pidns", "no child in the container");
		reap(init);
		return;
	}
	snprintf(path, sizeof(path), "%s/freezer.state", dir);
	join_cgroup(dir, x);
	write_file(path, "FROZEN");
	for (i = 0; i < 200; i++) {
		if (read_file(path, state, sizeof(state)) == 0 &&
		    !strncmp(state, "FROZEN", 6))
			break;
		usleep(10000);
	}
	kill(init, SIGKILL);
	/* init is exiting: wait until it sits in zap_pid_ns_processes() */
	for (i = 0; i < 200; i++) {
		long f = proc_flags(init);

		if (f < 0 || (f & 0x4 /* PF_EXITING */))
			break;
		usleep(10000);
	}
	usleep(200000);
	if (proc_flags(x) >= 0 && !(proc_flags(x) & 0x4))
		err = hijack_run(HIJACK_PID, x, NULL, NULL, NULL);

	write_file(path, "THAWED");
	waitpid(init, NULL, 0);
	rmdir(dir);
	umount(CG_FREEZER);

	if (err < 0)
		report("esrch-dying-pidns", "setup: frozen task not alive");
	else
		report("esrch-dying-pidns",
		       err == ESRCH ? NULL : "got %s, want ESRCH",
		       err ? strerror(err) : "success");
}

/*
 * Item 1.  A target in a time namespace with monotonic and boottime
 * offsets of +1 day, and in a cgroup namespace.  The child must read the
 * target's clocks both through the vDSO (libc's clock_gettime) and the
 * system call, and see its cgroup as the namespace root.
 */
struct timens_target {
	pid_t pid;
	char cgroup[256];	/* /proc/self/cgroup as the target sees it */
};

static int timens_target_start(struct timens_target *t)
{
	char dir[] = CG_V2 "/timens";
	int p[2];
	pid_t helper;

	memset(t, 0, sizeof(*t));
	mkdir(dir, 0755);
	if (pipe(p) < 0)
		return -1;
	helper = fork();
	if (helper == 0) {
		char offs[64];
		pid_t pid;

		close(p[0]);
		snprintf(offs, sizeof(offs), "monotonic %d 0\nboottime %d 0\n",
			 TIMENS_OFFSET, TIMENS_OFFSET);
		if (join_cgroup(dir, getpid()) < 0 ||
		    unshare(CLONE_NEWTIME) < 0 ||
		    write_file("/proc/self/timens_offsets", offs) < 0)
			_exit(1);
		pid = clone_ns(CLONE_NEWCGROUP);
		if (pid == 0) {
			char cg[256];

			memset(cg, 0, sizeof(cg));
			read_file("/proc/self/cgroup", cg, sizeof(cg));
			if (write(p[1], cg, sizeof(cg)) != sizeof(cg))
				_exit(1);
			for (;;)
				pause();
		}
		_exit(pid < 0);
	}
	close(p[1]);
	waitpid(helper, NULL, 0);
	if (read(p[0], t->cgroup, sizeof(t->cgroup)) != sizeof(t->cgroup)) {
		close(p[0]);
		return -1;
	}
	close(p[0]);
	/* the target was reparented to us, a child subreaper */
	{
		char path[64], pids[32];

		snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
		if (read_file(path, pids, sizeof(pids)) < 0)
			return -1;
		t->pid = atoi(pids);
	}
	return t->pid > 0 ? 0 : -1;
}

static void timens_target_stop(struct timens_target *t)
{
	reap(t->pid);
	rmdir(CG_V2 "/timens");
}

static double ts_s(const struct timespec *ts)
{
	return ts->tv_sec + ts->tv_nsec / 1e9;
}

/* In the child: 0 if the clocks and the cgroup are the target's. */
struct timens_want {
	double mono;	/* the caller's CLOCK_MONOTONIC just before hijack */
	const char *cgroup;
};

static int timens_child(void *arg)
{
	const struct timens_want *w = arg;
	struct timespec vd, sc, vb, sb;
	char cg[256];

	clock_gettime(CLOCK_MONOTONIC, &vd);	/* vDSO */
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &sc);
	clock_gettime(CLOCK_BOOTTIME, &vb);
	syscall(SYS_clock_gettime, CLOCK_BOOTTIME, &sb);
	if (ts_s(&sc) - w->mono < TIMENS_OFFSET - 30 ||
	    ts_s(&sc) - w->mono > TIMENS_OFFSET + 30)
		return 10;	/* the system call: not the target's namespace */
	if (ts_s(&vd) - ts_s(&sc) > 30 || ts_s(&sc) - ts_s(&vd) > 30)
		return 11;	/* the vDSO: another namespace's vvar page */
	if (ts_s(&vb) - ts_s(&sb) > 30 || ts_s(&sb) - ts_s(&vb) > 30)
		return 12;
	memset(cg, 0, sizeof(cg));
	read_file("/proc/self/cgroup", cg, sizeof(cg));
	if (strcmp(cg, w->cgroup))
		return 13;
	return 0;
}

static const char *const timens_why[] = {
	[10] = "syscall CLOCK_MONOTONIC lacks the target's offset",
	[11] = "vDSO CLOCK_MONOTONIC differs from the system call's",
	[12] = "vDSO CLOCK_BOOTTIME differs from the system call's",
	[13] = "/proc/self/cgroup differs from the target's",
};

static void timens_check(const char *name, struct timens_target *t, int which,
			 unsigned long id)
{
	struct timens_want w = { .cgroup = t->cgroup };
	struct timespec ts;
	int err, status = 0, code;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.mono = ts_s(&ts);
	err = hijack_run(which, id, timens_child, &w, &status);
	code = WIFEXITED(status) ? WEXITSTATUS(status) : 99;
	if (err)
		report(name, "hijack: %s", strerror(err));
	else if (code)
		report(name, "%s", code < 14 && timens_why[code] ?
		       timens_why[code] : "child died");
	else
		report(name, NULL);
}

static int vdso_uses_tsc(void)
{
	char cs[32];

	return read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
			 cs, sizeof(cs)) == 0 && !strncmp(cs, "tsc", 3);
}

static void test_timens(struct timens_target *t)
{
	char path[128];
	int fd;

	/* with jiffies the vDSO falls back to the system call: no test */
	if (!vdso_uses_tsc()) {
		report("timens-vdso-clocksource",
		       "clocksource is not tsc, the vDSO is not exercised");
		return;
	}
	report("timens-vdso-clocksource", NULL);
	timens_check("timens-vdso-by-pid", t, HIJACK_PID, t->pid);
	snprintf(path, sizeof(path), "%s/cgroup.procs", CG_V2 "/timens");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	timens_check("timens-vdso-by-cgroup", t, HIJACK_CGROUP, fd);
	close(fd);
}

/*
 * Item 4.  setns()'s install ops refuse a caller that shares its thread
 * group or fs_struct when entering a user namespace (EINVAL) and a
 * multi-threaded caller when entering a time namespace (EUSERS): those
 * protect current, which is left alone here.
 */
static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static int start_thread(void)
{
	pthread_t th;

	return pthread_create(&th, NULL, idle_thread, NULL);
}

static void test_threaded_timens(struct timens_target *t)
{
	int status, err;
	pid_t pid;

	pid = fork();
	if (pid == 0) {
		if (start_thread())
			_exit(100);
		_exit(hijack_run(HIJACK_PID, t->pid, NULL, NULL, NULL));
	}
	waitpid(pid, &status, 0);
	err = WIFEXITED(status) ? WEXITSTATUS(status) : 101;
	report("threaded-caller-timens",
	       err ? "%s" : NULL, err < 100 ? strerror(err) : "setup");
}

/* uid 1000, two threads, enters its own rootless container. */
static int threaded_userns(void)
{
	char path[64], map[32], c;
	int p[2], err;
	pid_t init;

	if (setgroups(0, NULL) < 0 || setgid(UNPRIV_UID) < 0 ||
	    setuid(UNPRIV_UID) < 0)
		return 100;
	prctl(PR_SET_DUMPABLE, 1);
	if (pipe(p) < 0)
		return 100;
	init = clone_ns(CLONE_NEWUSER | CLONE_NEWUTS | CLONE_NEWPID);
	if (init == 0) {
		close(p[1]);
		if (read(p[0], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	if (init < 0)
		return 100;
	close(p[0]);
	snprintf(path, sizeof(path), "/proc/%d/setgroups", init);
	write_file(path, "deny");
	snprintf(map, sizeof(map), "0 %d 1", UNPRIV_UID);
	snprintf(path, sizeof(path), "/proc/%d/uid_map", init);
	err = write_file(path, map);
	snprintf(path, sizeof(path), "/proc/%d/gid_map", init);
	err |= write_file(path, map);
	if (write(p[1], "r", 1) != 1 || err || start_thread()) {
		reap(init);
		return 100;
	}
	err = hijack_run(HIJACK_PID, init, NULL, NULL, NULL);
	reap(init);
	return err;
}

static void test_threaded_userns(void)
{
	int status, err;
	pid_t pid;

	pid = fork();
	if (pid == 0)
		_exit(threaded_userns());
	waitpid(pid, &status, 0);
	err = WIFEXITED(status) ? WEXITSTATUS(status) : 101;
	report("threaded-caller-userns",
	       err ? "%s" : NULL, err < 100 ? strerror(err) : "setup");
}

/*
 * Item 2.  A uid 1000 task that root chrooted into /tmp/jail: uid 1000
 * may ptrace it, but may not chroot, so it may not take its root either
 * (its no_new_privs, seccomp and LSM label stay the caller's).  Root may.
 */
static pid_t chrooted_task(void)
{
	int p[2];
	pid_t pid;
	char c;

	mkdir("/tmp/jail", 0755);
	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		if (chroot("/tmp/jail") < 0 || chdir("/") < 0 ||
		    setgroups(0, NULL) < 0 || setgid(UNPRIV_UID) < 0 ||
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
		reap(pid);
		return -1;
	}
	close(p[0]);
	return pid;
}

static int in_jail(void *arg)
{
	struct stat root, jail = *(struct stat *)arg;

	if (stat("/", &root) < 0)
		return 2;
	return root.st_ino == jail.st_ino && root.st_dev == jail.st_dev ? 0 : 1;
}

static void test_chroot(void)
{
	struct stat jail;
	int status = 0, err;
	pid_t x, pid;

	x = chrooted_task();
	if (x < 0 || stat("/tmp/jail", &jail) < 0) {
		report("chroot-setup", "%m");
		return;
	}
	err = hijack_run(HIJACK_PID, x, in_jail, &jail, &status);
	report("chroot-root-caller-enters",
	       err ? "%s" : (!WIFEXITED(status) || WEXITSTATUS(status)) ?
	       "child not in the target's root" : NULL, strerror(err));

	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(UNPRIV_UID) < 0 ||
		    setuid(UNPRIV_UID) < 0)
			_exit(100);
		_exit(hijack_run(HIJACK_PID, x, in_jail, &jail, NULL));
	}
	waitpid(pid, &status, 0);
	err = WIFEXITED(status) ? WEXITSTATUS(status) : 101;
	report("chroot-eperm-without-cap-sys-chroot",
	       err == EPERM ? NULL : "got %s, want EPERM",
	       err ? strerror(err) : "success");
	reap(x);
}

int main(void)
{
	struct timens_target t;

	if (hijack_init("review-syscall-nr") < 0)
		return 1;
	/* orphans started here (the time namespace target) come back to us */
	prctl(PR_SET_CHILD_SUBREAPER, 1);

	test_untraced_child();
	test_dying_pidns();
	if (timens_target_start(&t) < 0) {
		report("timens-setup", "%m");
	} else {
		test_timens(&t);
		test_threaded_timens(&t);
		timens_target_stop(&t);
	}
	test_threaded_userns();
	test_chroot();

	printf("review_test: %d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
