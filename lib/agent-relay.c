// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The forwarded agent's relay on the host (see agent.c): run by
 * hijack-shell-wait without privilege, and so apart from the rest of the
 * agent code, using nothing but libc.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "hijack.h"

/* Copy both ways between @a and @b until both have ended. */
static void splice_both(int a, int b)
{
	struct pollfd p[2] = { { a, POLLIN, 0 }, { b, POLLIN, 0 } };
	char buf[16384];
	int open = 2;

	while (open) {
		int i;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !p[i].revents)
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0 ||
			    hj_write_full(p[1 - i].fd, buf, (size_t)n)) {
				/* this way is over: say so to the other end */
				shutdown(p[1 - i].fd, SHUT_WR);
				p[i].fd = -1;
				open--;
			}
		}
	}
}

/* One connection: its peer must be the session's uid. */
static void relay_one(int c, int dirfd, const char *name, uid_t uid)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int up;

	if (getsockopt(c, SOL_SOCKET, SO_PEERCRED, &cred, &len) ||
	    cred.uid != uid)
		return;
	/* through the directory opened and checked at the start */
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "/proc/self/fd/%d/%s",
		     dirfd, name) >= (int)sizeof(sa.sun_path))
		return;
	up = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (up < 0)
		return;
	if (!connect(up, (struct sockaddr *)&sa, sizeof(sa)))
		splice_both(c, up);
	close(up);
}

int hj_agent_relay(int lfd, int dirfd, const char *name)
{
	struct ucred self;
	socklen_t len = sizeof(self);
	struct sigaction sa = { .sa_handler = SIG_IGN,
				.sa_flags = SA_NOCLDWAIT };

	/*
	 * A listening socket's peer credentials are its listener's: the
	 * session's child, inside, as the session's uid (in our ids).
	 */
	if (getsockopt(lfd, SOL_SOCKET, SO_PEERCRED, &self, &len))
		return -errno;
	/* each connection's process is reaped by the kernel */
	if (sigaction(SIGCHLD, &sa, NULL))
		return -errno;
	for (;;) {
		int c = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		pid_t pid, me = getpid();

		if (c < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return -errno;
		}
		pid = fork();
		if (pid == 0) {
			/* never outlives the relay, which ends with the session */
			if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) ||
			    getppid() != me)
				_exit(0);
			close(lfd);
			relay_one(c, dirfd, name, self.uid);
			_exit(0);
		}
		close(c);
	}
}
