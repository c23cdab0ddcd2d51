// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The forwarded ssh agent, inside the container.
 *
 * sshd listens for the forwarded agent on a unix socket in a directory
 * of the user's on the host (session.c, auth_input_request_forwarding():
 * /tmp/ssh-XXXXXXXXXX/agent.PID in OpenSSH 9), out of reach of a session
 * in the container's mount namespace.  The session gets a socket of its
 * own inside, in a directory only its uid can enter, and a relay on the
 * host joins each connection to it with one to sshd's socket:
 *
 * - hj_agent_source(), privileged, before anything is entered: the path
 *   sshd put in SSH_AUTH_SOCK is trusted only as far as the kernel says
 *   the socket bound there is one that sshd's session process (@holder)
 *   listens on, in a directory of the user's that nobody else may enter;
 *   the directory is kept open (O_PATH), never looked up by name again.
 * - hj_agent_listen(), in the session's child, inside, as the session:
 *   a fresh directory (mode 0700) and the socket in it.
 * - hj_agent_relay(), on the host, without privilege: each connection
 *   from a peer with the session's own uid (SO_PEERCRED, in the host's
 *   ids: not container root, not another user) is joined to one to
 *   sshd's socket, made through the open directory (agent-relay.c, apart
 *   so that the small program that runs it, hijack-shell-wait, links
 *   libc and nothing of the rest).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "hijack.h"
#include "internal.h"

/* __SO_ACCEPTCON in /proc/net/unix's Flags: a listening socket */
#define UNIX_FLAG_LISTENING 0x10000
#define AGENT_BACKLOG 16
/* sshd's session process holds a handful of sockets */
#define AGENT_HOLDER_SOCKETS 256

/* Does @pid hold socket inode @ino among its fds? */
static bool holds_socket(pid_t pid, unsigned long ino)
{
	unsigned long inos[AGENT_HOLDER_SOCKETS];
	size_t n = hj_proc_sockets(pid, inos, AGENT_HOLDER_SOCKETS), i;

	for (i = 0; i < n; i++)
		if (inos[i] == ino)
			return true;
	return false;
}

/*
 * Is @path the address of a socket @holder listens on?  The table of
 * @holder's network namespace lists every unix socket bound there with
 * the address it was bound to: a process of the container may bind the
 * same string in its own file system, so the inode must be @holder's.
 */
static int listened_by(pid_t holder, const char *path)
{
	char table[64], line[512];
	int r = -EPERM;
	FILE *f;

	snprintf(table, sizeof(table), "/proc/%d/net/unix", (int)holder);
	f = fopen(table, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	while (r && fgets(line, sizeof(line), f)) {
		unsigned long flags, ino;
		char *p, *nl;
		int off = 0;

		if (sscanf(line, "%*s %*s %*s %lx %*s %*s %lu %n", &flags, &ino,
			   &off) != 2 ||
		    !off || !(flags & UNIX_FLAG_LISTENING))
			continue;
		p = line + off;
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		if (!strcmp(p, path) && holds_socket(holder, ino))
			r = 0;
	}
	fclose(f);
	return r;
}

int hj_agent_source(const char *path, uid_t uid, pid_t holder, int *dirfd,
		    char *name, size_t size)
{
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	char dir[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *slash;
	struct stat st;
	int fd, r;

	*dirfd = -1;
	slash = strrchr(path, '/');
	if (path[0] != '/' || !slash || slash == path || !slash[1] ||
	    strlen(path) >= sizeof(dir) || strlen(slash + 1) >= size ||
	    strstr(path, "/../") || strstr(path, "/./"))
		return -EINVAL;
	r = listened_by(holder, path);
	if (r)
		return r;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	fd = (int)syscall(SYS_openat2, AT_FDCWD, dir, &how, sizeof(how));
	if (fd < 0)
		return -errno;
	/* the user's, and only the user's to enter */
	if (fstat(fd, &st) || st.st_uid != uid || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	if (fstatat(fd, slash + 1, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISSOCK(st.st_mode) || st.st_uid != uid) {
		close(fd);
		return -EPERM;
	}
	strcpy(name, slash + 1);
	*dirfd = fd;
	return 0;
}

int hj_agent_listen(const char *tmpdir, char *path, size_t size, int *fd)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)];
	int s;

	*fd = -1;
	if (snprintf(dir, sizeof(dir), "%s/hijack-agent-XXXXXX", tmpdir) >=
	    (int)sizeof(dir))
		return -ENAMETOOLONG;
	if (!mkdtemp(dir))
		return -errno;
	if (snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/agent", dir) >=
		    (int)sizeof(sa.sun_path) ||
	    strlen(sa.sun_path) >= size) {
		rmdir(dir);
		return -ENAMETOOLONG;
	}
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(s, AGENT_BACKLOG)) {
		int e = errno;

		if (s >= 0)
			close(s);
		unlink(sa.sun_path);
		rmdir(dir);
		return -e;
	}
	strcpy(path, sa.sun_path);
	*fd = s;
	return 0;
}
