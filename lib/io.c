// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Whole reads and writes over pipes, and the parent's side of a child
 * that reports a fixed-size result: what hj_spawn(), the seccomp filter
 * copy and the front ends' unprivileged helpers all need.  A wait on
 * something a container or a user controls has a deadline here.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
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
 * One read(2) of at most @len bytes once @fd is readable by @deadline (-1:
 * none): the count, 0 at end of file, -ETIMEDOUT or -errno.
 */
static ssize_t read_some_until(int fd, void *buf, size_t len,
			       long long deadline)
{
	for (;;) {
		ssize_t n;

		if (deadline >= 0) {
			struct pollfd pfd = { .fd = fd, .events = POLLIN };
			long long left = deadline - hj_now_ms();
			int pr;

			if (left <= 0)
				return -ETIMEDOUT;
			pr = poll(&pfd, 1, (int)left);
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr < 0)
				return -errno;
			if (pr == 0)
				return -ETIMEDOUT;
		}
		n = read(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		return n < 0 ? -errno : n;
	}
}

int hj_read_full_until(int fd, void *buf, size_t len, long long deadline)
{
	char *p = buf;

	while (len) {
		ssize_t n = read_some_until(fd, p, len, deadline);

		if (n < 0)
			return (int)n;
		if (n == 0)
			return -EPIPE; /* short: the writer is gone */
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int hj_read_full(int fd, void *buf, size_t len)
{
	return hj_read_full_until(fd, buf, len, -1);
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
 * Wait for @pid until @deadline: 0 with its wait status in @status,
 * -ETIMEDOUT, or -errno.  Polled with a backoff from 0.1 ms to 10 ms: the
 * children waited for here exit at once, or were just killed.
 */
static int wait_until(pid_t pid, int *status, long long deadline)
{
	struct timespec tick = { 0, 100 * 1000 };
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (hj_now_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);
		if (tick.tv_nsec < 10 * 1000 * 1000)
			tick.tv_nsec *= 2;
	}
}

int hj_kill_reap(pid_t pid, int grace_ms)
{
	int status;

	kill(pid, SIGKILL);
	if (wait_until(pid, &status, hj_now_ms() + grace_ms) == -ETIMEDOUT)
		return -ETIMEDOUT;
	return 0;
}

/*
 * Reap @pid by @deadline, else kill it: a helper that reported and then
 * sat stopped by its user's SIGSTOP must not hold us.
 */
static int reap_until(pid_t pid, int *status, long long deadline)
{
	int r = wait_until(pid, status, deadline);

	if (r == -ETIMEDOUT)
		hj_kill_reap(pid, HJ_KILL_GRACE_MS);
	return r;
}

int hj_child_report(pid_t pid, int fd, void *rep, size_t size, int timeout_ms)
{
	long long deadline = hj_now_ms() + timeout_ms;
	int r, w, status = 0;

	r = hj_read_full_until(fd, rep, size, deadline);
	if (r == -ETIMEDOUT) {
		/* late, or stuck on something of the container's: it goes */
		hj_kill_reap(pid, HJ_KILL_GRACE_MS);
		return r;
	}
	w = reap_until(pid, &status, deadline);
	if (w == -ETIMEDOUT)
		return w;
	if (r || w || !WIFEXITED(status) || WEXITSTATUS(status))
		return -EPIPE;
	return 0;
}

int hj_child_output(pid_t pid, int fd, char *buf, size_t size, int timeout_ms,
		    size_t *lenp, int *status)
{
	long long deadline = hj_now_ms() + timeout_ms;
	size_t len = 0;
	int r = 0;

	*status = 0;
	for (;;) {
		ssize_t n;

		if (len + 1 >= size) {
			r = -E2BIG;
			break;
		}
		n = read_some_until(fd, buf + len, size - 1 - len, deadline);
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
	return reap_until(pid, status, deadline);
}
