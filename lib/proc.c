// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Parsers for the few /proc and cgroup files the library reads.
 *
 * They take a buffer and its length (not a C string) so that the fuzzers
 * can hand them arbitrary bytes, NULs included.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

static int parse_ulong(const char *s, const char *end, unsigned long long max,
		       unsigned long long *out, const char **next)
{
	unsigned long long v = 0;
	const char *p = s;

	if (p >= end || *p < '0' || *p > '9')
		return -EINVAL;
	while (p < end && *p >= '0' && *p <= '9') {
		unsigned int d = *p - '0';

		/* d > max: max - d would wrap for a max under 9 */
		if (d > max || v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
		p++;
	}
	*out = v;
	if (next)
		*next = p;
	return 0;
}

static const char *skip_blank(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	return p;
}

static int status_field(const char *line, const char *end, const char *key,
			const char **value)
{
	size_t klen = strlen(key);

	if ((size_t)(end - line) < klen + 1 || memcmp(line, key, klen) ||
	    line[klen] != ':')
		return 0;
	*value = skip_blank(line + klen + 1, end);
	return 1;
}

/* Parse the fields we use out of /proc/PID/status. */
int hj_parse_status(const char *buf, size_t len, struct hj_proc_status *st)
{
	const char *p = buf, *end = buf + len;
	unsigned int seen = 0;

	memset(st, 0, sizeof(*st));
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *v;
		unsigned long long n;

		if (!eol)
			eol = end;
		if (status_field(p, eol, "State", &v)) {
			if (v >= eol)
				return -EINVAL;
			st->state = *v;
			seen |= 1;
		} else if (status_field(p, eol, "Tgid", &v)) {
			if (parse_ulong(v, eol, INT_MAX, &n, NULL))
				return -EINVAL;
			st->tgid = n;
			seen |= 2;
		} else if (status_field(p, eol, "TracerPid", &v)) {
			if (parse_ulong(v, eol, INT_MAX, &n, NULL))
				return -EINVAL;
			st->tracer = n;
			seen |= 4;
		} else if (status_field(p, eol, "NSpid", &v)) {
			int depth = 0;

			while (v < eol) {
				if (parse_ulong(v, eol, INT_MAX, &n, &v))
					return -EINVAL;
				st->nspid_last = n;
				depth++;
				v = skip_blank(v, eol);
			}
			if (!depth)
				return -EINVAL;
			st->nspid_depth = depth;
			seen |= 8;
		} else if (status_field(p, eol, "Uid", &v)) {
			unsigned long long e;

			if (parse_ulong(v, eol, UINT_MAX, &n, &v))
				return -EINVAL;
			v = skip_blank(v, eol);
			if (parse_ulong(v, eol, UINT_MAX, &e, NULL))
				return -EINVAL;
			st->ruid = n;
			st->euid = e;
			seen |= 16;
		}
		p = eol + 1;
	}
	return seen == 31 ? 0 : -EINVAL;
}

/*
 * Field 22 of /proc/PID/stat.  The command name (field 2) may contain
 * spaces and parentheses, so count from the last ')'.
 */
int hj_parse_stat_starttime(const char *buf, size_t len,
			    unsigned long long *starttime)
{
	const char *p = NULL, *end = buf + len;
	int field = 3;

	for (const char *q = buf; q < end; q++)
		if (*q == ')')
			p = q;
	if (!p)
		return -EINVAL;
	p = skip_blank(p + 1, end);
	while (field < 22) {
		while (p < end && *p != ' ')
			p++;
		p = skip_blank(p, end);
		if (p >= end)
			return -EINVAL;
		field++;
	}
	return parse_ulong(p, end, ULLONG_MAX, starttime, NULL);
}

/*
 * A cgroup membership file: one decimal id a line.  Duplicates are kept
 * out so that a thread group listed by its threads (v1 'tasks') is one
 * candidate.  Returns -E2BIG when more than @max distinct ids are listed.
 */
int hj_parse_pid_list(const char *buf, size_t len, pid_t *pids, size_t max,
		      size_t *n)
{
	const char *p = buf, *end = buf + len;

	*n = 0;
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		unsigned long long v;
		const char *after;
		size_t i;

		if (!eol)
			eol = end;
		if (eol == p) {
			p++;
			continue;
		}
		if (parse_ulong(p, eol, INT_MAX, &v, &after) || after != eol ||
		    v == 0)
			return -EINVAL;
		for (i = 0; i < *n; i++)
			if (pids[i] == (pid_t)v)
				break;
		if (i == *n) {
			if (*n == max)
				return -E2BIG;
			pids[(*n)++] = v;
		}
		p = eol + 1;
	}
	return 0;
}

/*
 * /proc/PID/uid_map or gid_map, read from outside the namespace: lines of
 * "INSIDE OUTSIDE COUNT", OUTSIDE in the reader's user namespace
 * (user_namespaces(7)).  *to is what @id is known by on the other side:
 * inside for an outside @id, outside when @inside.  0, or -ENOENT when @id
 * is not mapped; -EINVAL when a line is malformed.
 */
int hj_parse_id_map(const char *buf, size_t len, unsigned int id, bool inside,
		    unsigned int *to)
{
	const char *p = buf, *end = buf + len;
	int r = -ENOENT;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		unsigned long long v[3], from;
		int i;

		if (!eol)
			eol = end;
		for (i = 0; i < 3; i++) {
			p = skip_blank(p, eol);
			if (parse_ulong(p, eol, UINT_MAX, &v[i], &p))
				return -EINVAL;
		}
		if (skip_blank(p, eol) != eol || v[2] == 0 ||
		    v[0] + v[2] - 1 > UINT_MAX || v[1] + v[2] - 1 > UINT_MAX)
			return -EINVAL;
		from = inside ? v[0] : v[1];
		if (r && id >= from && id - from < v[2]) {
			*to = (inside ? v[1] : v[0]) + (id - from);
			r = 0;
		}
		p = eol + 1;
	}
	return r;
}

int hj_write_close(int fd, const void *buf, size_t len)
{
	ssize_t w;

	if (fd < 0)
		return -errno;
	w = write(fd, buf, len);
	if (w < 0) {
		w = -errno;
		close(fd);
		return w;
	}
	close(fd);
	return (size_t)w == len ? 0 : -EIO;
}

int hj_read_fd(int fd, char *buf, size_t size, size_t *len)
{
	size_t off = 0;

	if (size == 0)
		return -EINVAL;
	for (;;) {
		ssize_t r = read(fd, buf + off, size - 1 - off);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			break;
		off += r;
		if (off == size - 1)
			return -EFBIG;
	}
	buf[off] = '\0';
	*len = off;
	return 0;
}

/* Read /proc/PID/FILE from the host's /proc (never the container's). */
/*
 * The number after "KEY:" in /proc/self/fdinfo/FD: a pidfd's "Pid" (-1
 * once reaped), any fd's "mnt_id".  0; -ENOENT when FD is not open or has
 * no such line; -errno.
 */
int hj_fdinfo_field(int fd, const char *key, long long *value)
{
	char path[64], want[32], buf[4096], *p;
	size_t len, kl;
	int ifd, r;

	kl = (size_t)snprintf(want, sizeof(want), "\n%s:", key);
	if (kl >= sizeof(want))
		return -EINVAL;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	ifd = open(path, O_RDONLY | O_CLOEXEC);
	if (ifd < 0)
		return -errno;
	r = hj_read_fd(ifd, buf, sizeof(buf), &len);
	close(ifd);
	if (r)
		return r;
	/* the first line ("pos:") is never a key asked for */
	p = strstr(buf, want);
	if (!p)
		return -ENOENT;
	*value = strtoll(p + kl, NULL, 10);
	return 0;
}

int hj_proc_read(pid_t pid, const char *file, char *buf, size_t size,
		 size_t *len)
{
	char path[64];
	int fd, r;

	if (snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, file) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = hj_read_fd(fd, buf, size, len);
	close(fd);
	return r;
}

static int parse_hex64(const char *s, const char *end, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *p = s;

	if (p >= end)
		return -EINVAL;
	while (p < end && *p != ' ' && *p != '\t') {
		unsigned int d;

		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			return -EINVAL;
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | d;
		p++;
	}
	*out = v;
	return 0;
}

/* Exactly four decimal ids: real, effective, saved, filesystem. */
static int parse_ids(const char *v, const char *end, unsigned int ids[4])
{
	unsigned long long n;
	int i;

	for (i = 0; i < 4; i++) {
		if (parse_ulong(v, end, UINT_MAX, &n, &v))
			return -EINVAL;
		ids[i] = n;
		v = skip_blank(v, end);
	}
	return v == end ? 0 : -EINVAL;
}

/*
 * The credentials and confinement in /proc/PID/status: ids, capability
 * sets, NoNewPrivs, Seccomp and Seccomp_filters.  Every field is
 * required but Seccomp_filters (kernels before 5.9: -1), and the Groups
 * line is handed back as it is, for hj_parse_groups().
 */
int hj_parse_status_sec(const char *buf, size_t len, struct hj_proc_sec *sec)
{
	static const char *const caps[] = { "CapInh", "CapPrm", "CapEff",
					    "CapBnd", "CapAmb" };
	const char *p = buf, *end = buf + len;
	unsigned int seen = 0, i;

	memset(sec, 0, sizeof(*sec));
	sec->seccomp_filters = -1;
	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		const char *v;
		unsigned long long n;

		if (!eol)
			eol = end;
		for (i = 0; i < 5; i++)
			if (status_field(p, eol, caps[i], &v))
				break;
		if (i < 5) {
			if (parse_hex64(v, eol, &sec->cap[i]))
				return -EINVAL;
			seen |= 1u << i;
		} else if (status_field(p, eol, "Uid", &v)) {
			if (parse_ids(v, eol, sec->uid))
				return -EINVAL;
			seen |= 1u << 5;
		} else if (status_field(p, eol, "Gid", &v)) {
			if (parse_ids(v, eol, sec->gid))
				return -EINVAL;
			seen |= 1u << 6;
		} else if (status_field(p, eol, "Groups", &v)) {
			sec->groups = v;
			sec->groups_len = eol - v;
			seen |= 1u << 7;
		} else if (status_field(p, eol, "NoNewPrivs", &v)) {
			if (parse_ulong(v, eol, 1, &n, NULL))
				return -EINVAL;
			sec->no_new_privs = n;
			seen |= 1u << 8;
		} else if (status_field(p, eol, "Seccomp", &v)) {
			if (parse_ulong(v, eol, 2, &n, NULL))
				return -EINVAL;
			sec->seccomp = n;
			seen |= 1u << 9;
		} else if (status_field(p, eol, "Seccomp_filters", &v)) {
			if (parse_ulong(v, eol, INT_MAX, &n, NULL))
				return -EINVAL;
			sec->seccomp_filters = n;
		}
		p = eol + 1;
	}
	/*
	 * The Seccomp line is there only with CONFIG_SECCOMP (fs/proc/
	 * array.c); without it no task can be filtered: mode 0.
	 */
	return (seen | 1u << 9) == 0x3ff ? 0 : -EINVAL;
}

/* The Groups line: decimal gids separated by blanks, possibly none. */
int hj_parse_groups(const char *buf, size_t len, gid_t *gids, size_t max,
		    size_t *n)
{
	const char *p = skip_blank(buf, buf + len), *end = buf + len;
	unsigned long long v;

	*n = 0;
	while (p < end) {
		if (parse_ulong(p, end, UINT_MAX, &v, &p))
			return -EINVAL;
		if (*n == max)
			return -E2BIG;
		gids[(*n)++] = v;
		p = skip_blank(p, end);
	}
	return 0;
}

/*
 * The inodes of @pid's sockets (its fds that link to "socket:[N]"), at
 * most @max of them; 0 when none or the fds cannot be read.
 */
size_t hj_proc_sockets(pid_t pid, unsigned long *inos, size_t max)
{
	char path[64], link[64], *end;
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		char fd[336];
		ssize_t l;

		if (de->d_name[0] == '.')
			continue;
		snprintf(fd, sizeof(fd), "%s/%s", path, de->d_name);
		l = readlink(fd, link, sizeof(link) - 1);
		if (l < 0)
			continue;
		link[l] = '\0';
		if (strncmp(link, "socket:[", 8))
			continue;
		inos[n] = strtoul(link + 8, &end, 10);
		if (*end == ']')
			n++;
	}
	closedir(d);
	return n;
}
