// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The init's seccomp filters: the copy, bounded, and the root-only copy
 * kept per init.
 *
 * PTRACE_SECCOMP_GET_FILTER reads a tracee in a ptrace stop only, so a
 * copy stops the init.  Two rules bound that stop.  The copy runs in a
 * child of its own session (setsid(): nothing typed on a terminal stops
 * it) with a deadline: an init that never stops (parked in vfork(), a
 * killable sleep that PTRACE_INTERRUPT cannot end) costs a bounded wait,
 * and the child's exit lets it go (the kernel's exit_ptrace() clears the
 * pending interrupt).  The deadline counts the child's time asleep
 * (struct hj_deadline), so that a login storm that keeps the child off
 * the CPU does not pass for an init that never stops; an alarm() at
 * HJ_CHILD_WALL_MAX_MS ends the child even if we are gone.  And only a
 * process the logging-in user cannot signal copies: pam_hijack's session step, root in sshd's monitor,
 * copies once per init and keeps the copy in HJ_FILTERS_DIR, root's
 * only, named by the init's pid and start time; hijack-shell, which the
 * user may stop at any moment, only reads it there.  A copy is current
 * while the init's Seccomp_filters count is the one copied: a task's
 * filters are only ever added to.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

#define BLOB_MAGIC "HJSECCMP"

/* what goes through the pipe from the copying child, and into the file */
struct blob_head {
	char magic[8];
	uint32_t version;
	int32_t result; /* 0, or the copy's -errno */
	int64_t pid;
	uint64_t starttime;
	uint32_t nfilters;
	uint32_t reserved;
};

struct blob_filter {
	uint32_t flags;
	uint32_t len;
};

/* The kernel would not hand the filter out: refuse, do not go looser. */
static int copy_error(int e)
{
	switch (e) {
	case EINVAL: /* no such index, or not in filter mode any more */
	case EIO: /* no CONFIG_CHECKPOINT_RESTORE: unknown request */
	case EACCES: /* no CAP_SYS_ADMIN, or the caller is filtered */
	case EMEDIUMTYPE: /* no classic BPF kept for it */
		return -EOPNOTSUPP;
	}
	return -e;
}

void hj_filters_free(struct hj_confinement *c)
{
	unsigned int i;

	for (i = 0; i < c->nfilters; i++)
		free(c->filters[i].insns);
	free(c->filters);
	c->filters = NULL;
	c->nfilters = 0;
}

/*
 * ptrace's index 0 is the oldest filter (get_nth_filter() in
 * kernel/seccomp.c counts back from the newest), whatever ptrace(2)
 * says; ours is the newest, as the task's list runs.  Counted first, then
 * read: the init is stopped, it adds none meanwhile.
 */
static int get_filters(pid_t pid, struct hj_confinement *c)
{
	unsigned long i, n = 0;

	while (ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)n, NULL) > 0) {
		if (++n > HJ_SECCOMP_FILTERS_MAX)
			return -EOPNOTSUPP;
	}
	if (errno != ENOENT)
		return copy_error(errno);
	if (!n)
		return -EOPNOTSUPP;
	c->filters = calloc(n, sizeof(*c->filters));
	if (!c->filters)
		return -ENOMEM;
	c->nfilters = n; /* each freed by hj_filters_free(), NULL or not */
	for (i = 0; i < n; i++) {
		struct __ptrace_seccomp_metadata md = { .filter_off = i };
		struct hj_seccomp_filter *f = &c->filters[n - 1 - i];
		long len =
			ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)i, NULL);

		if (len < 0)
			return copy_error(errno);
		if (len == 0 || len > BPF_MAXINSNS)
			return -EOPNOTSUPP;
		f->insns = calloc(len, sizeof(*f->insns));
		if (!f->insns)
			return -ENOMEM;
		f->len = len;
		if (ptrace(PTRACE_SECCOMP_GET_FILTER, pid, (void *)i,
			   f->insns) != len)
			return -EAGAIN;
		if (ptrace(PTRACE_SECCOMP_GET_METADATA, pid, (void *)sizeof(md),
			   &md) < 0)
			return copy_error(errno);
		f->flags = md.flags & SECCOMP_FILTER_FLAG_LOG;
	}
	return 0;
}

/*
 * Seize, interrupt, wait for the stop, read, and always detach, handing
 * back a signal the stop took from it.  Only in the copying child: the
 * wait has no deadline of its own.
 */
static int seize_and_read(pid_t pid, struct hj_confinement *c)
{
	int status, sig = 0, r, w;

	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL))
		return errno == EPERM ? -EPERM : -errno;
	if (ptrace(PTRACE_INTERRUPT, pid, NULL, NULL)) {
		r = -errno;
		goto detach;
	}
	do
		w = waitpid(pid, &status, __WALL);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		r = -errno;
		goto detach;
	}
	if (!WIFSTOPPED(status)) {
		r = -ESRCH; /* it exited */
		goto detach;
	}
	/* a signal-delivery-stop: the signal goes back on detach */
	if ((status >> 16) == 0)
		sig = WSTOPSIG(status);
	r = get_filters(pid, c);
detach:
	if (ptrace(PTRACE_DETACH, pid, NULL, (void *)(long)sig) && !r &&
	    errno != ESRCH)
		r = -errno;
	return r;
}

static int write_blob(int fd, int result, pid_t pid,
		      unsigned long long starttime,
		      const struct hj_confinement *c)
{
	struct blob_head h;
	unsigned int i;
	int r;

	memset(&h, 0, sizeof(h));
	memcpy(h.magic, BLOB_MAGIC, sizeof(h.magic));
	h.version = 1;
	h.result = result;
	h.pid = pid;
	h.starttime = starttime;
	h.nfilters = result ? 0 : c->nfilters;
	r = hj_write_full(fd, &h, sizeof(h));
	for (i = 0; !r && i < h.nfilters; i++) {
		struct blob_filter f = { (uint32_t)c->filters[i].flags,
					 c->filters[i].len };

		r = hj_write_full(fd, &f, sizeof(f));
		if (!r)
			r = hj_write_full(fd, c->filters[i].insns,
					  f.len * sizeof(struct sock_filter));
	}
	return r;
}

/* The @n filters of a blob into @c, all or none. */
static int read_filters(int fd, const struct hj_deadline *d, unsigned int n,
			struct hj_confinement *c)
{
	struct hj_seccomp_filter *fs = calloc(n, sizeof(*fs));
	unsigned int i;
	int r = 0;

	if (!fs)
		return -ENOMEM;
	for (i = 0; !r && i < n; i++) {
		struct blob_filter bf;

		r = hj_read_full_by(fd, &bf, sizeof(bf), d);
		if (r)
			break;
		if (!bf.len || bf.len > BPF_MAXINSNS ||
		    (bf.flags & ~(uint32_t)SECCOMP_FILTER_FLAG_LOG)) {
			r = -EINVAL;
			break;
		}
		fs[i].insns = calloc(bf.len, sizeof(*fs[i].insns));
		if (!fs[i].insns) {
			r = -ENOMEM;
			break;
		}
		fs[i].len = (unsigned short)bf.len;
		fs[i].flags = bf.flags;
		r = hj_read_full_by(fd, fs[i].insns,
				    bf.len * sizeof(*fs[i].insns), d);
	}
	c->filters = fs;
	c->nfilters = n; /* each freed by hj_filters_free(), NULL or not */
	if (r)
		hj_filters_free(c);
	return r;
}

/*
 * A blob into @c's filters, its head in @h; bounded by @d as the copy is
 * (NULL: a file, no deadline).  On failure @c holds none.
 */
static int read_blob(int fd, const struct hj_deadline *d, struct blob_head *h,
		     struct hj_confinement *c)
{
	int r;

	r = hj_read_full_by(fd, h, sizeof(*h), d);
	if (r)
		return r;
	if (memcmp(h->magic, BLOB_MAGIC, sizeof(h->magic)) || h->version != 1 ||
	    h->nfilters > HJ_SECCOMP_FILTERS_MAX)
		return -EINVAL;
	if (h->result)
		return h->result < 0 ? h->result : -EINVAL;
	if (!h->nfilters)
		return -EINVAL;
	return read_filters(fd, d, h->nfilters, c);
}

/* The copying child: its own session, a deadline, the result down @wfd. */
static __attribute__((noreturn)) void copy_child(int wfd, pid_t pid)
{
	struct hj_confinement c;
	sigset_t alrm;
	int r;

	memset(&c, 0, sizeof(c));
	setsid();
	signal(SIGALRM, SIG_DFL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sigprocmask(SIG_UNBLOCK, &alrm, NULL);
	alarm(HJ_CHILD_WALL_MAX_MS / 1000);
	r = seize_and_read(pid, &c);
	/* detached: the init runs again before a byte is written */
	write_blob(wfd, r, pid, 0, &c);
	_exit(0);
}

int hj_filters_copy(pid_t pid, struct hj_confinement *c)
{
	struct hj_deadline d;
	struct blob_head h;
	int p[2], r, status = 0, w;
	pid_t child;

	if (pipe2(p, O_CLOEXEC))
		return -errno;
	child = fork();
	if (child < 0) {
		r = -errno;
		close(p[0]);
		close(p[1]);
		return r;
	}
	if (child == 0) {
		close(p[0]);
		copy_child(p[1], pid);
	}
	close(p[1]);
	hj_deadline_child(&d, child, HJ_FILTER_COPY_MS);
	r = read_blob(p[0], &d, &h, c);
	close(p[0]);
	if (r)
		kill(child, SIGKILL); /* its exit lets the init go */
	do
		w = waitpid(child, &status, 0);
	while (w < 0 && errno == EINTR);
	/* killed by its own alarm(): the init never stopped, nor did we */
	if (r == -EPIPE && w == child && WIFSIGNALED(status) &&
	    WTERMSIG(status) == SIGALRM)
		r = -ETIMEDOUT;
	if (r)
		hj_filters_free(c);
	return r;
}

/*
 * HJ_FILTERS_DIR, opened component by component without following a
 * link, each a directory of root's that nobody else may write; created
 * (0700) when @create.
 */
static int open_dir(bool create)
{
	static const char *const parts[] = { HJ_FILTERS_DIR_PARTS };
	struct stat st;
	size_t i;
	int fd, next;

	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		if (create && i > 0 && mkdirat(fd, parts[i], 0700) &&
		    errno != EEXIST) {
			next = -errno;
			close(fd);
			return next;
		}
		next = openat(fd, parts[i],
			      O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		if (next < 0)
			return errno == ENOENT ? -ENODATA : -errno;
		fd = next;
		if (fstat(fd, &st)) {
			next = -errno;
			close(fd);
			return next;
		}
		if (st.st_uid != 0 || (st.st_mode & 022)) {
			close(fd);
			return -EPERM;
		}
	}
	return fd;
}

static void file_name(char *buf, size_t size, pid_t pid,
		      unsigned long long starttime)
{
	snprintf(buf, size, "%d-%llu", (int)pid, starttime);
}

int hj_filters_load(const struct hj_target *t, unsigned int count,
		    struct hj_confinement *c)
{
	char name[64];
	struct blob_head h;
	struct stat st;
	int dir, fd, r;

	dir = open_dir(false);
	if (dir < 0)
		return dir;
	file_name(name, sizeof(name), t->pid, t->starttime);
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	r = fd < 0 ? -errno : 0;
	close(dir);
	if (r)
		return r == -ENOENT ? -ENODATA : r;
	if (fstat(fd, &st)) {
		r = -errno;
	} else if (!S_ISREG(st.st_mode) || st.st_uid != 0 ||
		   (st.st_mode & 077) || st.st_nlink != 1) {
		r = -EPERM;
	} else {
		r = read_blob(fd, NULL, &h, c);
		if (!r && (h.pid != t->pid || h.starttime != t->starttime ||
			   h.nfilters != count))
			r = -ENODATA; /* another init's, or filters since */
		else if (r == -EPIPE || r == -EINVAL)
			r = -ENODATA; /* not a whole copy: make another */
	}
	close(fd);
	if (r)
		hj_filters_free(c);
	return r;
}

/* Remove the copies of inits that are gone; a bounded look. */
static void prune(int dir)
{
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	unsigned int seen = 0;
	struct dirent *de;
	DIR *d;

	if (fd < 0)
		return;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) && seen++ < 4096) {
		unsigned long long start, now;
		char buf[1024], *end;
		size_t len;
		long pid;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end != '-' || pid <= 0)
			continue;
		start = strtoull(end + 1, &end, 10);
		if (*end)
			continue;
		if (!hj_proc_read((pid_t)pid, "stat", buf, sizeof(buf), &len) &&
		    !hj_parse_stat_starttime(buf, len, &now) && now == start)
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
}

int hj_filters_store(const struct hj_target *t, const struct hj_confinement *c)
{
	char name[64], tmp[96];
	int dir, fd, r, real;

	dir = open_dir(true);
	if (dir < 0)
		return dir == -ENODATA ? -ENOENT : dir;
	/* O_PATH cannot create: the same directory, opened to write in */
	real = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	close(dir);
	if (real < 0)
		return -errno;
	prune(real);
	file_name(name, sizeof(name), t->pid, t->starttime);
	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	fd = openat(real, tmp,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		r = -errno;
		close(real);
		return r;
	}
	r = write_blob(fd, 0, t->pid, t->starttime, c);
	if (close(fd) && !r)
		r = -errno;
	if (!r && renameat(real, tmp, real, name))
		r = -errno;
	if (r)
		unlinkat(real, tmp, 0);
	close(real);
	return r;
}
