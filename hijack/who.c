// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack who: the live sessions of hijack-shell, from the host's /proc
 * alone (no daemon, no state file).  Root only, and without the shell's
 * file capabilities: root needs none of them to read /proc.
 *
 * A session is recognised by what the kernel reports, never by anything
 * the user or the container can write:
 *
 *   - the relay: a process on the host (its root directory and mount
 *     namespace are ours) whose /proc/PID/exe is the hijack-shell file or
 *     its waiter's, hijack-shell-wait (device and inode), or was the file
 *     at that path before it was replaced (a package upgrade: the kernel
 *     says "PATH (deleted)", and only root writes there), started as
 *     "hijack-shell --wait-for-child" under no_new_privs, as
 *     hijack-shell's exec_waiter() starts it;
 *   - its user: the relay's real uid (the kernel's credentials; no user
 *     can make a process that shows another user's uid);
 *   - the session: the relay's child (the kernel's list of children) in a
 *     pid namespace other than ours, and its cgroup as the host's
 *     /proc/PID/cgroup gives it;
 *   - the container: the name of the user's rule in hijack.conf, when the
 *     session's cgroup is the rule's cgroup or below it, "?" otherwise
 *     (the rule changed since the login);
 *   - since: the relay's start time (/proc/PID/stat) on the boot clock;
 *   - from: the peer of the TCP connection the relay's parent (sshd's
 *     session process) holds, from the kernel's socket table of the
 *     network namespace the socket lives in: that process's, or that of
 *     its nearest ancestor whose table lists it, as pam_hijack's session
 *     step moves sshd's session into the container's network after the
 *     listener accepted the connection; never SSH_CONNECTION: the relay runs
 *     with an empty environment, and the session's is its user's to
 *     change (any process inside may exec itself with another).
 *
 * Nothing of the session's own processes is read but their pid namespace
 * and cgroup: their command line, name and environment are the user's.
 * What a local user with a shell on the host can do is start a look-alike
 * relay of their own (the binary under no_new_privs, with a child in a
 * container they can enter themselves) under a parent holding any
 * connection: that row names that user, and a container the user really
 * is inside.  hijack(1) says so.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "conf.h"
#include "hijack.h"
#include "who.h"

#define WHO_SOCKETS_MAX 64

struct who_row {
	uid_t uid;
	char user[HJ_CONF_NAME_MAX];
	char container[HJ_CONF_NAME_MAX];
	char cgroup[HJ_CGROUP_PATH_MAX];
	char since[32];
	char from[INET6_ADDRSTRLEN + 16];
	pid_t relay, session;
};

/* a program a relay may run: hijack-shell, or its small waiter */
struct who_file {
	bool present;
	dev_t dev;
	ino_t ino;
	char deleted[PATH_MAX + 16]; /* "PATH (deleted)" */
};

struct who_ctx {
	struct who_file shell; /* hijack-shell's file */
	struct who_file waiter; /* hijack-shell-wait's (HJ_WAITER_PATH) */
	char pidns[64]; /* our pid namespace */
	char mntns[64]; /* our mount namespace */
	dev_t root_dev; /* our root directory: the host's */
	ino_t root_ino;
	time_t btime; /* boot time, /proc/stat */
	long hz;
};

static time_t boot_time(void)
{
	char line[256];
	long long bt = 0;
	FILE *f = fopen("/proc/stat", "re");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "btime %lld", &bt) == 1)
			break;
	fclose(f);
	return (time_t)bt;
}

/* argv[1] of /proc/PID/cmdline is HJ_RELAY_ARG */
static bool relay_cmdline(pid_t pid)
{
	char buf[256];
	size_t len, l0;
	int r = hj_proc_read(pid, "cmdline", buf, sizeof(buf), &len);

	size_t wl = strlen(HJ_RELAY_ARG);

	if (r == -EFBIG)
		len = sizeof(buf) - 1;
	else if (r)
		return false;
	l0 = strnlen(buf, len);
	return len > l0 + 1 + wl && !memcmp(buf + l0 + 1, HJ_RELAY_ARG, wl) &&
	       buf[l0 + 1 + wl] == '\0';
}

/* the only child of @pid, from the kernel's list; 0 when not exactly one */
static pid_t only_child(pid_t pid)
{
	char file[64], buf[128];
	long a, b;
	size_t len;
	int n;

	snprintf(file, sizeof(file), "task/%d/children", (int)pid);
	if (hj_proc_read(pid, file, buf, sizeof(buf), &len))
		return 0;
	n = sscanf(buf, "%ld %ld", &a, &b);
	return n == 1 && a > 0 && a <= INT_MAX ? (pid_t)a : 0;
}

/* the target of the namespace link @path, "pid:[4026531836]" */
static int ns_file_link(const char *path, char *out, size_t size)
{
	ssize_t l = readlink(path, out, size - 1);

	if (l < 0)
		return -errno;
	out[l] = '\0';
	return 0;
}

static int ns_link(pid_t pid, char *out, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	return ns_file_link(path, out, size);
}

/*
 * Whether "[controller:]path" @spec is @line's cgroup or above it (line:
 * "ID:CONTROLLERS:/PATH" of /proc/PID/cgroup, no newline).
 */
static bool cgroup_line_under(const char *line, const char *spec)
{
	const char *c1 = strchr(line, ':'), *c2, *path, *colon, *sp = spec;
	size_t sl;

	if (!c1 || !(c2 = strchr(c1 + 1, ':')))
		return false;
	colon = strchr(spec, ':');
	if (colon) {
		size_t cl = colon - spec;
		const char *p = c1 + 1;
		bool found = false;

		while (p < c2) {
			const char *e = memchr(p, ',', c2 - p);

			if (!e)
				e = c2;
			if ((size_t)(e - p) == cl && !memcmp(p, spec, cl))
				found = true;
			p = e + 1;
		}
		if (!found)
			return false;
		sp = colon + 1;
	}
	path = c2 + 1;
	while (*path == '/')
		path++;
	while (*sp == '/')
		sp++;
	sl = strlen(sp);
	if (sl == 0)
		return true;
	return !strncmp(path, sp, sl) && (path[sl] == '\0' || path[sl] == '/');
}

/*
 * The session's cgroup for display (the cgroup2 line, else the first),
 * and whether the rule's cgroup @spec holds it on some hierarchy.
 */
static bool session_cgroup(pid_t pid, const char *spec, char *out, size_t size)
{
	char *buf = malloc(16384), *line, *save = NULL;
	bool under = false;
	size_t len;

	snprintf(out, size, "?");
	if (!buf)
		return false;
	if (hj_proc_read(pid, "cgroup", buf, 16384, &len)) {
		free(buf);
		return false;
	}
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		const char *c1 = strchr(line, ':'), *c2;

		if (!c1 || !(c2 = strchr(c1 + 1, ':')))
			continue;
		if (!strncmp(line, "0::", 3) || !strcmp(out, "?"))
			snprintf(out, size, "%s", c2 + 1);
		if (spec && cgroup_line_under(line, spec))
			under = true;
	}
	free(buf);
	return under;
}

/* "ADDR:PORT" of /proc/net/tcp{,6}: the kernel's words in host order */
static int tcp_addr(const char *hex, unsigned int port, bool v6, char *out,
		    size_t size)
{
	char a[INET6_ADDRSTRLEN];
	unsigned char bytes[16];
	size_t i;

	if (strlen(hex) != (v6 ? 32 : 8))
		return -EINVAL;
	for (i = 0; i < (v6 ? 4 : 1); i++) {
		char word[9];
		uint32_t w;

		memcpy(word, hex + 8 * i, 8);
		word[8] = '\0';
		w = (uint32_t)strtoul(word, NULL, 16);
		memcpy(bytes + 4 * i, &w, 4);
	}
	if (!inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, a, sizeof(a)))
		return -errno;
	snprintf(out, size, v6 ? "[%s]:%u" : "%s:%u", a, port);
	return 0;
}

/* @pid's parent, 0 when unknown */
static pid_t parent_of(pid_t pid)
{
	char buf[4096];
	const char *p;
	size_t len;

	if (hj_proc_read(pid, "status", buf, sizeof(buf), &len))
		return 0;
	p = strstr(buf, "\nPPid:");
	return p ? (pid_t)strtol(p + 6, NULL, 10) : 0;
}

/* the peer of the established connection among @inos in @pid's tables */
static bool tcp_lookup(pid_t pid, const unsigned long *inos, size_t n,
		       char *out, size_t size)
{
	static const char *const tables[] = { "net/tcp", "net/tcp6" };
	size_t t, i;

	for (t = 0; t < 2; t++) {
		char path[64], line[512], rem[40];
		unsigned int port, st;
		unsigned long ino;
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid,
			 tables[t]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line,
				   " %*s %*s %39[0-9A-Fa-f]:%x %x %*s %*s %*s "
				   "%*u %*u %lu",
				   rem, &port, &st, &ino) != 4 ||
			    st != 1 /* TCP_ESTABLISHED */)
				continue;
			for (i = 0; i < n; i++)
				if (inos[i] == ino &&
				    !tcp_addr(rem, port, t == 1, out, size)) {
					fclose(f);
					return true;
				}
		}
		fclose(f);
	}
	return false;
}

/*
 * The peer of an established TCP connection among @pid's sockets.  A
 * socket is listed in the table of the network namespace it was made in,
 * which is the listener's: @pid may have moved to another since (sshd's
 * session process, moved by pam_hijack), so the tables of @pid's
 * ancestors are read too, nearest first, the host's init excepted.
 */
#define WHO_ANCESTORS_MAX 4
static bool tcp_peer(pid_t pid, char *out, size_t size)
{
	unsigned long inos[WHO_SOCKETS_MAX];
	size_t n = hj_proc_sockets(pid, inos, WHO_SOCKETS_MAX);
	int depth;

	for (depth = 0; n && pid > 1 && depth < WHO_ANCESTORS_MAX; depth++) {
		if (tcp_lookup(pid, inos, n, out, size))
			return true;
		pid = parent_of(pid);
	}
	return false;
}

/*
 * @pid runs on the host as the host sees it: its root directory is ours
 * and its mount namespace too.  A container's process, however it names
 * its files, has neither: /proc/PID/exe of a process that pivot_root'ed
 * reads relative to the container's root, so a copy of any program at
 * this program's path inside it reads like ours.
 */
static bool on_host(pid_t pid, const struct who_ctx *ctx)
{
	char path[64], ns[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	if (stat(path, &st) || st.st_dev != ctx->root_dev ||
	    st.st_ino != ctx->root_ino)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", (int)pid);
	return ns_file_link(path, ns, sizeof(ns)) == 0 &&
	       !strcmp(ns, ctx->mntns);
}

/*
 * hijack-shell or its waiter, as the host sees it: the same file, or one
 * replaced since (an upgrade) at its path.  The path alone is taken only
 * from a process on the host (on_host()).
 */
static bool is_file(const struct stat *st, const char *link,
		    const struct who_file *f)
{
	if (!f->present)
		return false;
	if (st && st->st_dev == f->dev && st->st_ino == f->ino)
		return true;
	return link && !strcmp(link, f->deleted);
}

static bool same_file(pid_t pid, const struct who_ctx *ctx)
{
	char path[64], link[PATH_MAX + 16];
	struct stat st, *stp = &st;
	ssize_t l;

	if (!on_host(pid, ctx))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	if (stat(path, &st))
		stp = NULL;
	if (is_file(stp, NULL, &ctx->shell) || is_file(stp, NULL, &ctx->waiter))
		return true;
	l = readlink(path, link, sizeof(link) - 1);
	if (l < 0)
		return false;
	link[l] = '\0';
	return is_file(NULL, link, &ctx->shell) ||
	       is_file(NULL, link, &ctx->waiter);
}

/* 0 with @row filled when @pid is a session's relay */
static int relay(pid_t pid, const struct who_ctx *ctx, struct who_row *row)
{
	struct hj_conf_error cerr = { .msg = "" };
	char buf[4096], ns[64];
	struct hj_proc_status st;
	unsigned long long start, start2;
	struct hj_mapping m;
	struct passwd *pw;
	pid_t ppid;
	size_t len;
	time_t t;

	if (!same_file(pid, ctx) || !relay_cmdline(pid))
		return -ENOENT;
	if (hj_proc_read(pid, "stat", buf, sizeof(buf), &len) ||
	    hj_parse_stat_starttime(buf, len, &start))
		return -ENOENT;
	if (hj_proc_read(pid, "status", buf, sizeof(buf), &len) ||
	    hj_parse_status(buf, len, &st))
		return -ENOENT;
	if (!strstr(buf, "\nNoNewPrivs:\t1\n"))
		return -ENOENT;
	ppid = parent_of(pid);
	/* its parent, sshd's session process, is on the host too */
	if (ppid <= 0 || !on_host(ppid, ctx))
		return -ENOENT;
	memset(row, 0, sizeof(*row));
	row->relay = pid;
	row->uid = st.ruid;
	row->session = only_child(pid);
	if (row->session <= 0 || ns_link(row->session, ns, sizeof(ns)) ||
	    !strcmp(ns, ctx->pidns))
		return -ENOENT;
	pw = getpwuid(row->uid);
	if (pw && strlen(pw->pw_name) < sizeof(row->user))
		strcpy(row->user, pw->pw_name);
	else
		snprintf(row->user, sizeof(row->user), "%u",
			 (unsigned int)row->uid);
	/* the rule as it is now: "?" when it no longer holds the session */
	if (!pw ||
	    hj_conf_resolve_user_by(HJ_CONF_DEFAULT, pw, &m, &cerr,
				    HJ_LOOKUP_MS) ||
	    m.kind != HJ_MAP_CONTAINER)
		m.cgroup[0] = '\0';
	if (session_cgroup(row->session, m.cgroup[0] ? m.cgroup : NULL,
			   row->cgroup, sizeof(row->cgroup)))
		snprintf(row->container, sizeof(row->container), "%s", m.name);
	else
		snprintf(row->container, sizeof(row->container), "?");
	t = ctx->btime + (time_t)(start / (unsigned long long)ctx->hz);
	strftime(row->since, sizeof(row->since), "%Y-%m-%dT%H:%M:%S",
		 localtime(&t));
	if (ppid <= 0 || !tcp_peer(ppid, row->from, sizeof(row->from)))
		snprintf(row->from, sizeof(row->from), "-");
	/* the same relay, still: its start time did not change meanwhile */
	if (hj_proc_read(pid, "stat", buf, sizeof(buf), &len) ||
	    hj_parse_stat_starttime(buf, len, &start2) || start2 != start)
		return -ENOENT;
	return 0;
}

/* one row, each string escaped: a cgroup's name is its creator's */
static void print_row(const struct who_row *row)
{
	char user[HJ_ESCAPED_SIZE(sizeof(row->user))];
	char container[HJ_ESCAPED_SIZE(sizeof(row->container))];
	char cgroup[HJ_ESCAPED_SIZE(sizeof(row->cgroup))];

	printf("%s %s %s %s %d %d %s\n",
	       hj_escape(row->user, user, sizeof(user)),
	       hj_escape(row->container, container, sizeof(container)),
	       row->since, row->from, (int)row->relay, (int)row->session,
	       hj_escape(row->cgroup, cgroup, sizeof(cgroup)));
}

/*
 * The program at @path, and what the kernel calls it once replaced;
 * @required: hijack-shell (a missing waiter only means that every
 * session's relay is hijack-shell itself)
 */
static void find_file(const char *name, const char *path, bool required,
		      struct who_file *f)
{
	char real[PATH_MAX];
	struct stat st;

	memset(f, 0, sizeof(*f));
	if (!realpath(path, real) || stat(real, &st)) {
		if (!required && errno == ENOENT)
			return;
		err(1, "cannot find %s at %s", name, path);
	}
	if (!S_ISREG(st.st_mode))
		errx(1, "%s: not a regular file", path);
	f->present = true;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	snprintf(f->deleted, sizeof(f->deleted), "%s (deleted)", real);
}

int hijack_who(const char *shell)
{
	struct who_ctx ctx;
	struct who_row row;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (getuid() != 0 || geteuid() != 0)
		errx(1, "only root may list the sessions");
	find_file("hijack-shell", shell, true, &ctx.shell);
	find_file("hijack-shell-wait", HJ_WAITER_PATH, false, &ctx.waiter);
	if (ns_link(getpid(), ctx.pidns, sizeof(ctx.pidns)))
		err(1, "cannot read our pid namespace");
	if (ns_file_link("/proc/self/ns/mnt", ctx.mntns, sizeof(ctx.mntns)))
		err(1, "cannot read our mount namespace");
	if (stat("/proc/self/root", &st))
		err(1, "cannot find our root directory");
	ctx.root_dev = st.st_dev;
	ctx.root_ino = st.st_ino;
	ctx.btime = boot_time();
	ctx.hz = sysconf(_SC_CLK_TCK);
	if (!ctx.btime || ctx.hz <= 0)
		errx(1, "cannot read the boot time from /proc/stat");
	d = opendir("/proc");
	if (!d)
		err(1, "cannot read /proc");
	printf("USER CONTAINER SINCE FROM RELAY SESSION CGROUP\n");
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (!isdigit((unsigned char)de->d_name[0]) || *end ||
		    pid <= 0 || pid > INT_MAX || pid == getpid())
			continue;
		if (relay((pid_t)pid, &ctx, &row))
			continue;
		print_row(&row);
	}
	closedir(d);
	return 0;
}
