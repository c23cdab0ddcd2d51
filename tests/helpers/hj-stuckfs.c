// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hj-stuckfs [-n MNTNS] DIR NAME...: mount at DIR (in the mount
 * namespace MNTNS, a /proc/PID/ns/mnt, when given) a FUSE file system (raw
 * /dev/fuse, no libfuse) holding regular files NAME... that anyone may
 * open and that never answer a read: a container's file stuck on a
 * FUSE server that its root controls.  A NAME given as @NAME is never
 * answered at all, not even its lookup: a path through it stalls
 * chdir() and open() alike.  Runs until killed (the mount goes with the
 * namespace, or the test unmounts DIR).  Prints "ready" once mounted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROOT_INO FUSE_ROOT_ID
#define BUF_SIZE (FUSE_MIN_READ_BUFFER + 4096)

static char **names;
static int nnames;

static void reply(int fd, uint64_t unique, int error, const void *out,
		  size_t len)
{
	struct fuse_out_header h = {
		.len = sizeof(h) + (error ? 0 : len),
		.error = error,
		.unique = unique,
	};
	char buf[sizeof(h) + 512];

	memcpy(buf, &h, sizeof(h));
	if (!error && len)
		memcpy(buf + sizeof(h), out, len);
	if (write(fd, buf, h.len) < 0 && errno != ENOENT)
		perror("hj-stuckfs: write");
}

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->nlink = 1;
	a->blksize = 4096;
	if (ino == ROOT_INO) {
		a->mode = S_IFDIR | 0755;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = 4096;
		a->blocks = 8;
	}
}

int main(int argc, char **argv)
{
	static char buf[BUF_SIZE];
	char opts[128];
	int fd;

	const char *ns = NULL;

	if (argc > 2 && !strcmp(argv[1], "-n")) {
		ns = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 3) {
		fprintf(stderr, "usage: hj-stuckfs [-n MNTNS] DIR NAME...\n");
		return 2;
	}
	names = argv + 2;
	nnames = argc - 2;
	/* the host's /dev/fuse: a container has none of its own */
	fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror("hj-stuckfs: /dev/fuse");
		return 1;
	}
	if (ns) {
		int nfd = open(ns, O_RDONLY | O_CLOEXEC);

		if (nfd < 0 || setns(nfd, CLONE_NEWNS)) {
			perror("hj-stuckfs: setns");
			return 1;
		}
		close(nfd);
	}
	snprintf(opts, sizeof(opts),
		 "fd=%d,rootmode=40755,user_id=0,group_id=0,allow_other", fd);
	if (mount("hj-stuckfs", argv[1], "fuse", MS_NOSUID | MS_NODEV, opts)) {
		perror("hj-stuckfs: mount");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		struct fuse_in_header *in = (struct fuse_in_header *)buf;
		void *arg = buf + sizeof(*in);

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < 0) /* ENODEV: unmounted */
			return errno == ENODEV ? 0 : 1;
		if ((size_t)n < sizeof(*in))
			continue;
		switch (in->opcode) {
		case FUSE_INIT: {
			struct fuse_init_in *ii = arg;
			struct fuse_init_out o = {
				.major = FUSE_KERNEL_VERSION,
				.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ?
						 ii->minor :
						 FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = ii->max_readahead,
				.max_write = 4096,
			};
			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_LOOKUP: {
			struct fuse_entry_out o;
			int i;

			for (i = 0; i < nnames; i++)
				if (names[i][0] == '@' &&
				    !strcmp(arg, names[i] + 1))
					break;
			if (in->nodeid == ROOT_INO && i < nnames)
				break; /* @NAME: never answered */
			for (i = 0; i < nnames; i++)
				if (!strcmp(arg, names[i]))
					break;
			if (in->nodeid != ROOT_INO || i == nnames) {
				reply(fd, in->unique, -ENOENT, NULL, 0);
				break;
			}
			memset(&o, 0, sizeof(o));
			o.nodeid = ROOT_INO + 1 + i;
			o.generation = 1;
			fill_attr(&o.attr, o.nodeid);
			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_GETATTR: {
			struct fuse_attr_out o;

			memset(&o, 0, sizeof(o));
			fill_attr(&o.attr, in->nodeid);
			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_OPEN:
		case FUSE_OPENDIR: {
			struct fuse_open_out o = { .fh = 1 };

			/* no page cache: every read reaches us */
			if (in->opcode == FUSE_OPEN)
				o.open_flags = FOPEN_DIRECT_IO;
			reply(fd, in->unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_READ:
			/* the point: never answered */
			break;
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
		case FUSE_INTERRUPT:
			break; /* no reply */
		case FUSE_RELEASE:
		case FUSE_RELEASEDIR:
		case FUSE_FLUSH:
			reply(fd, in->unique, 0, NULL, 0);
			break;
		case FUSE_DESTROY:
			reply(fd, in->unique, 0, NULL, 0);
			return 0;
		default:
			reply(fd, in->unique, -ENOSYS, NULL, 0);
		}
	}
}
