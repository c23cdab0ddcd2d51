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

static pid_t child_pid;
/* signals caught and not yet handled, a bit per signal number */
static volatile sig_atomic_t pending[_NSIG];

static const int relayed[] = { SIGINT,	SIGTERM,  SIGHUP,
			       SIGQUIT, SIGWINCH, SIGCHLD };
#define NRELAYED (sizeof(relayed) / sizeof(relayed[0]))

unsigned int tty_mask(void)
{
	unsigned int mask = 0;
	int fd;

	for (fd = 0; fd <= 2; fd++)
		if (isatty(fd))
			mask |= 1u << fd;
	return mask;
}

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

/* Block the relayed signals (none may be lost before the loop runs). */
void tty_block_signals(sigset_t *old)
{
	sigset_t block;
	size_t i;

	sigemptyset(&block);
	for (i = 0; i < NRELAYED; i++)
		sigaddset(&block, relayed[i]);
	sigprocmask(SIG_BLOCK, &block, old);
}

static void on_signal(int sig)
{
	pending[sig] = 1;
}

static int copy_once(int from, int to)
{
	char buf[16384];
	ssize_t r = read(from, buf, sizeof(buf));
	ssize_t off = 0;

	if (r < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -1;
	if (r == 0)
		return -1;
	while (off < r) {
		ssize_t w = write(to, buf + off, r - off);

		if (w < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return -1;
		}
		off += w;
	}
	return 1;
}

/*
 * Forward the signals caught since the last call (they are blocked
 * outside ppoll(), so none arrives meanwhile); 1 when SIGCHLD was among
 * them.
 */
static int forward_signals(int master)
{
	struct winsize ws;
	int chld = 0;
	size_t i;

	for (i = 0; i < NRELAYED; i++) {
		int sig = relayed[i];

		if (!pending[sig])
			continue;
		pending[sig] = 0;
		if (sig == SIGCHLD) {
			chld = 1;
		} else if (sig == SIGWINCH) {
			if (master >= 0 &&
			    !ioctl(STDIN_FILENO, TIOCGWINSZ, &ws))
				ioctl(master, TIOCSWINSZ, &ws);
		} else {
			kill(child_pid, sig);
		}
	}
	return chld;
}

/*
 * The child's status once it has ended (-1 while it runs).  Without a
 * pty of our own we stop when it stops and continue it when we are
 * continued, as a shell's foreground job does.
 */
static int reap(pid_t pid, bool follow_stops)
{
	int status;
	pid_t r;

	for (;;) {
		r = waitpid(pid, &status,
			    WNOHANG | (follow_stops ? WUNTRACED : 0));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return 0x100 * EXIT_FAILURE; /* gone: not ours */
		if (r == 0)
			return -1;
		if (!WIFSTOPPED(status))
			return status;
		kill(getpid(), SIGSTOP);
		kill(pid, SIGCONT);
	}
}

/*
 * The one waiting loop: until the child @pid has ended and the pty
 * @master (-1: none) has nothing more to say, relay the signals, the
 * pty's output to the terminal we replaced and our terminal input to the
 * pty.  Exits with the child's status, as a shell gives it.
 */
void __attribute__((noreturn)) tty_wait_session(pid_t pid, int master)
{
	unsigned int mask = tty_mask();
	int in = master >= 0 && (mask & 1) ? STDIN_FILENO : -1;
	int out = (mask & 1) || (mask & 2) || !(mask & 4) ? STDOUT_FILENO :
							    STDERR_FILENO;
	struct termios saved, raw;
	bool have_tty = in >= 0 && tcgetattr(in, &saved) == 0;
	struct sigaction sa;
	sigset_t block, open;
	int status = -1;
	size_t i;

	/*
	 * The relayed signals stay blocked but inside ppoll(): no fd of ours
	 * (a self-pipe) is needed, and none is lost or handled twice.
	 */
	child_pid = pid;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	sigemptyset(&block);
	for (i = 0; i < NRELAYED; i++) {
		sigaction(relayed[i], &sa, NULL);
		sigaddset(&block, relayed[i]);
	}
	sigprocmask(SIG_BLOCK, &block, &open);
	for (i = 0; i < NRELAYED; i++)
		sigdelset(&open, relayed[i]);
	if (have_tty) {
		raw = saved;
		cfmakeraw(&raw);
		tcsetattr(in, TCSADRAIN, &raw);
	}
	status = reap(pid, master < 0);
	while (master >= 0 || status < 0) {
		struct timespec drain = { 0, 100 * 1000 * 1000 };
		struct pollfd p[2] = {
			{ master, POLLIN, 0 },
			{ in, POLLIN, 0 },
		};
		int n = ppoll(p, 2, status < 0 ? NULL : &drain, &open);

		if (n < 0 && errno != EINTR)
			break;
		if (forward_signals(master) && status < 0)
			status = reap(pid, master < 0);
		if (n <= 0)
			p[0].revents = p[1].revents = 0;
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			if (copy_once(master, out) < 0) {
				close(master);
				master = -1;
			}
		} else if (master >= 0 && status >= 0 && n == 0) {
			/* the child is gone and nothing came for 100 ms */
			close(master);
			master = -1;
		}
		if ((p[1].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    copy_once(in, master) < 0)
			in = -1;
	}
	if (have_tty)
		tcsetattr(STDIN_FILENO, TCSADRAIN, &saved);
	while (status < 0) {
		if (waitpid(pid, &status, 0) < 0 && errno != EINTR)
			exit(EXIT_FAILURE);
	}
	exit(hj_exit_code(status));
}
