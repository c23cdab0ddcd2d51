/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the guest programs (bench_test.c, stress_test.c) share: results,
 * the system call, files and cgroups.  run-tests.sh builds each on its
 * own (gcc -static), so everything here is static inline.
 */
#ifndef HIJACK_GUEST_H
#define HIJACK_GUEST_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define HIJACK_PID 1
#define HIJACK_CGROUP 2
#define HIJACK_PIDFD 3

/* The series' number (x86_64 and i386 alike) and its argument structure. */
#define HIJACK_NR 463
struct hijack_args {
	uint64_t flags;
	uint64_t pidfd;
	uint64_t exit_signal;
	uint32_t target_kind;
	int32_t target;
};

#define CG_V1_PIDS "/sys/fs/cgroup/pids"
#define CG_V2 "/sys/fs/cgroup/unified"

static long hijack_nr = -1;
static int passed, failed;

static inline void report(const char *name, const char *fmt, ...)
{
	va_list ap;

	if (!fmt) {
		printf("PASS %s\n", name);
		passed++;
	} else {
		printf("FAIL %s: ", name);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
		failed++;
	}
	fflush(stdout);
}

/* The exit signal and the clone flags in one word, as clone() takes them. */
static inline long hijack(unsigned long flags, int which, long id)
{
	struct hijack_args args = {
		.flags = flags & ~0xffUL,
		.exit_signal = flags & 0xff,
		.target_kind = which,
		.target = id,
	};

	return syscall(hijack_nr, &args, sizeof(args));
}

/*
 * Whether the kernel has hijack() at HIJACK_NR: a structure too small is
 * EINVAL, and one larger than a page E2BIG, checked first.  (Without the
 * series: ENOSYS on 6.12, setxattrat() from 6.13 on.)
 */
static inline int hijack_probe(void)
{
	struct hijack_args args = { 0 };

	if (syscall(HIJACK_NR, NULL, 0UL, 0, 0, 0, 0) >= 0 || errno != EINVAL)
		return -1;
	if (syscall(HIJACK_NR, &args, 4097UL, 0, 0, 0, 0) >= 0 ||
	    errno != E2BIG)
		return -1;
	hijack_nr = HIJACK_NR;
	return 0;
}

static inline int read_file(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

static inline int write_file(const char *path, const char *s)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* Find the call (hijack_probe()); -1, reported as @name, if absent. */
static inline int hijack_init(const char *name)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (hijack_probe() < 0) {
		report(name, "no hijack() at %d: %m", HIJACK_NR);
		return -1;
	}
	return 0;
}

static inline int join_cgroup(const char *dir, pid_t pid)
{
	char path[256], buf[32];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	snprintf(buf, sizeof(buf), "%d", pid);
	return write_file(path, buf);
}

static inline void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
	}
}

#endif /* HIJACK_GUEST_H */
