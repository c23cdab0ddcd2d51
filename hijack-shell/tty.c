// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell's terminal and waiting: the session's own pty, and the
 * one loop that waits for the session, relays the pty and the signals,
 * and passes the exit status on.
 *
 * A session never gets a terminal of the host.  Whenever any of fds 0-2
 * is a terminal, those fds are replaced in the child by a fresh pty, and
 * the child is the leader of a new session whose controlling terminal is
 * that pty: TIOCSTI from inside pushes input into its own pty, never into
 * the terminal outside.  Without a terminal the child still starts a new
 * session, so it has no controlling terminal at all.
 *
 * The pty comes from the container's own devpts, as lxc-attach allocates
 * it since 2020 (lxc/lxc issue #1620, PR #3505), so that tty(1) and
 * ttyname() name it inside: the child, already in the container's mount
 * namespace and root, opens /dev/pts without following any link, checks
 * that it is a devpts (fstatfs), opens its ptmx without crossing into
 * anything mounted on top, checks that this is a pty master (TIOCGPTN)
 * and takes the peer with TIOCGPTPEER, never by a path the container
 * could swap.  The master goes to the host side over a socketpair; the
 * host keeps only the master, for the relay.  When the container offers
 * no devpts (or anything else at /dev/pts: a tmpfs, a FUSE fake) the
 * host side allocates a pty from the host's devpts instead, as before,
 * and says so (hijack-shell(8), "The terminal").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"
#include "shell.h"

/* The settings and size of the terminal we replace, onto @slave. */
void tty_copy_settings(int slave)
{
	struct termios t;
	struct winsize ws;
	int fd;

	for (fd = 0; fd <= 2; fd++) {
		if (tcgetattr(fd, &t))
			continue;
		tcsetattr(slave, TCSANOW, &t);
		if (!ioctl(fd, TIOCGWINSZ, &ws))
			ioctl(slave, TIOCSWINSZ, &ws);
		break;
	}
}

/* A pty from the host's devpts; the slave becomes the child's terminal. */
int tty_open_pty(int *master, int *slave)
{
	char name[64];
	int m, s;

	m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (m < 0)
		return -errno;
	if (grantpt(m) || unlockpt(m) || ptsname_r(m, name, sizeof(name))) {
		close(m);
		return -errno;
	}
	s = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NOFOLLOW);
	if (s < 0) {
		close(m);
		return -errno;
	}
	tty_copy_settings(s);
	*master = m;
	*slave = s;
	return 0;
}

const char *tty_cause_name(int cause)
{
	switch (cause) {
	case TTY_OWN:
		return "own";
	case TTY_NO_PTS:
		return "no-pts";
	case TTY_NOT_DEVPTS:
		return "not-devpts";
	case TTY_NO_PTMX:
		return "no-ptmx";
	case TTY_NOT_PTY:
		return "not-a-pty";
	}
	return "protocol";
}

static int openat2_fd(int dirfd, const char *path, unsigned long long flags,
		      unsigned long long resolve)
{
	struct open_how how = { .flags = flags, .resolve = resolve };
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

static bool on_devpts(int fd)
{
	struct statfs st;

	return fstatfs(fd, &st) == 0 && st.f_type == DEVPTS_SUPER_MAGIC;
}

/*
 * In the child, inside the container's mount namespace and root and
 * still privileged: a pty of the container's devpts at /dev/pts.  0 with
 * *@master and *@peer open, or a TTY_* cause (why not).  Nothing here follows a symlink or crosses a
 * mount below /dev/pts, and nothing is opened by a name the container
 * chose after the checks.
 */
int tty_container_pty(int *master, int *peer)
{
	int dir, m = -1, p, n, unlock = 0, cause;

	dir = openat2_fd(AT_FDCWD, "/dev/pts",
			 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
			 RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS);
	if (dir < 0)
		return TTY_NO_PTS;
	/* the kernel sets f_type; a FUSE or tmpfs fake cannot claim it */
	cause = TTY_NOT_DEVPTS;
	if (!on_devpts(dir))
		goto fail;
	cause = TTY_NO_PTMX;
	m = openat2_fd(dir, "ptmx", O_RDWR | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC,
		       RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_SYMLINKS |
			       RESOLVE_NO_MAGICLINKS);
	if (m < 0)
		goto fail;
	cause = TTY_NOT_PTY;
	if (!on_devpts(m) || ioctl(m, TIOCGPTN, &n) ||
	    ioctl(m, TIOCSPTLCK, &unlock))
		goto fail;
	p = ioctl(m, TIOCGPTPEER, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (p < 0)
		goto fail;
	close(dir);
	*master = m;
	*peer = p;
	return 0;
fail:
	if (m >= 0)
		close(m);
	close(dir);
	return cause;
}

/*
 * One message on the socketpair between the child and the host side: a
 * code, and with it one fd (or none, @fd -1).
 */
int tty_send(int sock, int code, int fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { &code, sizeof(code) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *h;

	if (fd >= 0) {
		memset(&c, 0, sizeof(c));
		msg.msg_control = c.buf;
		msg.msg_controllen = sizeof(c.buf);
		h = CMSG_FIRSTHDR(&msg);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(h), &fd, sizeof(int));
	}
	while (sendmsg(sock, &msg, MSG_NOSIGNAL) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

/*
 * The other end of tty_send(), waiting at most @timeout_ms (-1: for
 * ever) of the time @child, who answers, spends asleep (struct
 * hj_deadline).  *@fd is -1 when none came; anything but one message
 * with at most one fd is -EPROTO, nothing within the time -ETIMEDOUT.
 */
int tty_recv(int sock, int *code, int *fd, pid_t child, int timeout_ms)
{
	struct hj_deadline d;
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} c;
	struct iovec iov = { code, sizeof(*code) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = c.buf,
			      .msg_controllen = sizeof(c.buf) };
	struct cmsghdr *h;
	ssize_t r;
	int n;

	*fd = -1;
	hj_deadline_child(&d, child, timeout_ms);
	n = hj_wait_readable(sock, &d);
	if (n)
		return n;
	do
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	h = CMSG_FIRSTHDR(&msg);
	if (h && h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
	    h->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(h), sizeof(int));
	else if (h)
		return -EPROTO;
	if (r != sizeof(*code) || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -EPROTO;
	}
	return 0;
}

/*
 * In the child: a new session, and the pty's slave (when there is one)
 * as its controlling terminal in place of the terminal fds of @mask; a
 * terminal on stdin means an interactive session: all three.  A session
 * leader already (a host login, run in sshd's session itself, where
 * setsid() fails with EPERM) keeps its session.
 */
int tty_attach_child(int slave, unsigned int mask)
{
	int fd;

	if (setsid() < 0 && getsid(0) != getpid())
		return -errno;
	if (slave < 0)
		return 0;
	if (ioctl(slave, TIOCSCTTY, 0))
		return -errno;
	if (mask & 1)
		mask = 7;
	for (fd = 0; fd <= 2; fd++)
		if ((mask & (1u << fd)) && dup2(slave, fd) < 0)
			return -errno;
	if (slave > 2)
		close(slave);
	return 0;
}
