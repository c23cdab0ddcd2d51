// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole reads and writes over pipes, and the parent's side of a child
 * that reports a fixed-size result: what hj_spawn(), the seccomp filter
 * copy and the front ends' unprivileged helpers all need.  A wait on
 * something a container or a user controls has a deadline here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"

long long hj_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int hj_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (w == 0)
			return -EPIPE;
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/*
 * The time @pid has spent running or waiting to run, in ms
 * (/proc/PID/schedstat: its run time and run-queue delay; the delay
 * includes the time a cgroup's CPU quota throttled it), or -1 without it
 * (a kernel without CONFIG_SCHED_INFO, a child already reaped).
 */
static long long cpu_ms(pid_t pid)
{
	unsigned long long run, delay;
	char path[64], buf[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if (sscanf(buf, "%llu %llu", &run, &delay) != 2)
		return -1;
	return (long long)((run + delay) / 1000000);
}

void hj_deadline_wall(struct hj_deadline *d, long long deadline)
{
	d->start = hj_now_ms();
	d->limit_ms = deadline < 0 ? -1 : deadline - d->start;
	d->child = 0;
	d->cpu0 = 0;
}

void hj_deadline_child(struct hj_deadline *d, pid_t child, int limit_ms)
{
	d->start = hj_now_ms();
	d->limit_ms = limit_ms;
	d->child = child;
	d->cpu0 = limit_ms < 0 ? -1 : cpu_ms(child);
}

long long hj_deadline_left(const struct hj_deadline *d)
{
	long long wall = hj_now_ms() - d->start, waited = wall, cpu, left;

	if (d->limit_ms < 0)
		return LLONG_MAX;
	if (d->child <= 0)
		return d->limit_ms - wall;
	cpu = cpu_ms(d->child);
	if (d->cpu0 >= 0 && cpu >= d->cpu0)
		waited = wall - (cpu - d->cpu0);
	left = d->limit_ms - waited;
	return left < HJ_CHILD_WALL_MAX_MS - wall ? left :
						    HJ_CHILD_WALL_MAX_MS - wall;
}

/*
 * A child's deadline is looked at again every HJ_CHILD_TICK_MS: the
 * child's clock does not run while we sleep.
 */
#define HJ_CHILD_TICK_MS 50

int hj_wait_readable(int fd, const struct hj_deadline *d)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		long long left = -1;
		int pr;

		if (d && d->limit_ms >= 0) {
			left = hj_deadline_left(d);
			if (left <= 0)
				return -ETIMEDOUT;
			if (d->child > 0 && left > HJ_CHILD_TICK_MS)
				left = HJ_CHILD_TICK_MS;
		}
		pr = poll(&pfd, 1, (int)left);
		if (pr > 0)
			return 0;
		if (pr < 0 && errno != EINTR)
			return -errno;
	}
}

/*
 * One read(2) of at most @len bytes once @fd is readable by @d's deadline
 * (NULL: none): the count, 0 at end of file, -ETIMEDOUT or -errno.
 */
static ssize_t read_some_by(int fd, void *buf, size_t len,
			    const struct hj_deadline *d)
{
	for (;;) {
		ssize_t n;

		if (d && d->limit_ms >= 0) {
			int r = hj_wait_readable(fd, d);

			if (r)
				return r;
		}
		n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : n;
	}
}

int hj_read_full_by(int fd, void *buf, size_t len, const struct hj_deadline *d)
{
	char *p = buf;

	while (len) {
		ssize_t n = read_some_by(fd, p, len, d);

		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EPIPE; /* short: the writer is gone */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int hj_read_full_until(int fd, void *buf, size_t len, long long deadline)
{
	struct hj_deadline d;

	hj_deadline_wall(&d, deadline);
	return hj_read_full_by(fd, buf, len, &d);
}

int hj_read_full(int fd, void *buf, size_t len)
{
	return hj_read_full_by(fd, buf, len, NULL);
}

/* fds [lo, hi]; a loop where close_range(2) is missing (before 5.9) */
static void close_span(unsigned int lo, unsigned int hi)
{
	if (lo > hi || syscall(SYS_close_range, lo, hi, 0) == 0)
		return;
	for (; lo <= hi && lo < 65536; lo++)
		close((int)lo);
}

void hj_close_from(int from, int keep)
{
	if (keep < from) {
		close_span((unsigned int)from, ~0U);
		return;
	}
	if (keep > from)
		close_span((unsigned int)from, (unsigned int)keep - 1);
	close_span((unsigned int)keep + 1, ~0U);
}

/*
 * Wait for @pid by @d's deadline: 0 with its wait status in @status,
 * -ETIMEDOUT, or -errno.  Polled with a backoff from 0.1 ms to 10 ms: the
 * children waited for here exit at once, or were just killed.
 */
static int wait_by(pid_t pid, int *status, const struct hj_deadline *d)
{
	struct timespec tick = { 0, 100 * 1000 };
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (hj_deadline_left(d) <= 0)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);
		if (tick.tv_nsec < 10 * 1000 * 1000)
			tick.tv_nsec *= 2;
	}
}

int hj_kill_reap(pid_t pid, int grace_ms)
{
	struct hj_deadline d;
	int status;

	kill(pid, SIGKILL);
	hj_deadline_wall(&d, hj_now_ms() + grace_ms);
	if (wait_by(pid, &status, &d) == -ETIMEDOUT)
		return -ETIMEDOUT;
	return 0;
}

/*
 * Reap @pid by @d's deadline, else kill it: a helper that reported and
 * then sat stopped by its user's SIGSTOP must not hold us.
 */
static int reap_by(pid_t pid, int *status, const struct hj_deadline *d)
{
	int r = wait_by(pid, status, d);

	if (r == -ETIMEDOUT)
		hj_kill_reap(pid, HJ_KILL_GRACE_MS);
	return r;
}

int hj_child_report(pid_t pid, int fd, void *rep, size_t size, int timeout_ms)
{
	struct hj_deadline d;
	int r, w, status = 0;

	hj_deadline_child(&d, pid, timeout_ms);
	r = hj_read_full_by(fd, rep, size, &d);
	if (r == -ETIMEDOUT) {
		/* late, or stuck on something of the container's: it goes */
		hj_kill_reap(pid, HJ_KILL_GRACE_MS);
		return r;
	}
	w = reap_by(pid, &status, &d);
	if (w == -ETIMEDOUT)
		return w;
	if (r || w || !WIFEXITED(status) || WEXITSTATUS(status))
		return -EPIPE;
	return 0;
}

int hj_child_output(pid_t pid, int fd, char *buf, size_t size, int timeout_ms,
		    size_t *lenp, int *status)
{
	struct hj_deadline d;
	size_t len = 0;
	int r = 0;

	hj_deadline_child(&d, pid, timeout_ms);
	*status = 0;
	for (;;) {
		ssize_t n;

		if (len + 1 >= size) {
			r = -E2BIG;
			break;
		}
		n = read_some_by(fd, buf + len, size - 1 - len, &d);
		if (n <= 0) {
			r = (int)n;
			break;
		}
		len += (size_t)n;
	}
	if (size)
		buf[len] = '\0';
	*lenp = len;
	if (r) {
		hj_kill_reap(pid, HJ_KILL_GRACE_MS);
		return r;
	}
	return reap_by(pid, status, &d);
}

/* Exit code a shell would give: the status, or 128 + the signal. */
int hj_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
