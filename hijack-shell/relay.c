// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session's waiting parent on the host: the one loop that waits for
 * the session, relays the pty and the signals and passes the exit status
 * on.  hijack-shell runs it when the small waiter (hijack-shell-wait,
 * wait.c) is not installed; the waiter runs it otherwise.  Both start it
 * through shell_waiter(), and it needs nothing of hijack-shell's
 * privilege or of its libraries but libc.  So is the forwarded agent's
 * relay, shell_agent_relay(), the waiting parent's other child.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
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

/*
 * hijack-shell HJ_RELAY_ARG PID MASTER-FD, as hijack-shell's
 * exec_waiter() starts it (its own binary, or hijack-shell-wait): only
 * with no_new_privs set (so never with capabilities gained by the exec),
 * it drops what it has, closes every fd but the session's stdio and the
 * pty master, and waits for PID, relaying MASTER-FD (-1: none) and the
 * signals.  Named hijack-shell, whichever binary runs it.
 */
void __attribute__((noreturn)) shell_waiter(pid_t pid, int master)
{
	int r;

	prctl(PR_SET_NAME, SHELL_PROG, 0, 0, 0);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		errx(2, "%s is internal", HJ_RELAY_ARG);
	r = hj_drop_caps();
	if (r)
		errx(EXIT_FAILURE, "cannot drop privileges: %s", strerror(-r));
	/* nothing else may stay open on the host */
	hj_close_from(3, master);
	if (master >= 0)
		fcntl(master, F_SETFD, FD_CLOEXEC);
	tty_wait_session(pid, master);
}

/*
 * The forwarded agent's relay (lib/agent-relay.c), as agent_relay_start()
 * starts it: under no_new_privs, with sshd's socket's directory at fd 4
 * and the listener inside at fd 3, killed with the waiting parent.
 */
void __attribute__((noreturn)) shell_agent_relay(const char *name)
{
	sigset_t none;
	int r;

	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	prctl(PR_SET_NAME, SHELL_PROG, 0, 0, 0);
	if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
		errx(2, "%s is internal", HJ_AGENT_ARG);
	/* kept across the exec, which gained nothing; armed again anyway */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	r = hj_drop_caps();
	if (r)
		errx(EXIT_FAILURE, "cannot drop privileges: %s", strerror(-r));
	hj_close_from(5, -1);
	/* the waiting parent blocked the relayed signals */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	r = hj_agent_relay(3, 4, name);
	errx(EXIT_FAILURE, "agent relay: %s", strerror(-r));
}
