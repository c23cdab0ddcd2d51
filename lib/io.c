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

int hj_read_full_until(int fd, void *buf, size_t len, long long deadline)
{
	char *p = buf;

	while (len) {
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
		n = read(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
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

int hj_kill_reap(pid_t pid, int grace_ms)
{
	long long deadline = hj_now_ms() + grace_ms;
	struct timespec tick = { 0, 10 * 1000 * 1000 };
	int status;
	pid_t w;

	kill(pid, SIGKILL);
	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid || (w < 0 && errno != EINTR))
			return 0;
		if (hj_now_ms() >= deadline)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);
	}
}

/*
 * Reap @pid by @deadline: 0 with its wait status in @status, or
 * -ETIMEDOUT with it killed (a helper that reported and then sat stopped
 * by its user's SIGSTOP must not hold us).  Polled with a backoff from
 * 0.1 ms: the helpers exit right after they report.
 */
static int reap_until(pid_t pid, int *status, long long deadline)
{
	struct timespec tick = { 0, 100 * 1000 };
	pid_t w;

	for (;;) {
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return -errno;
		if (hj_now_ms() >= deadline) {
			hj_kill_reap(pid, HJ_KILL_GRACE_MS);
			return -ETIMEDOUT;
		}
		nanosleep(&tick, NULL);
		if (tick.tv_nsec < 10 * 1000 * 1000)
			tick.tv_nsec *= 2;
	}
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
	while (!r) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - hj_now_ms();
		ssize_t n;
		int pr;

		if (len + 1 >= size)
			r = -E2BIG;
		else if (left <= 0)
			r = -ETIMEDOUT;
		if (r)
			break;
		pr = poll(&pfd, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			r = pr ? -errno : -ETIMEDOUT;
			break;
		}
		n = read(fd, buf + len, size - 1 - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			r = -errno;
		else if (n == 0)
			break;
		else
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
