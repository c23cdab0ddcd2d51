// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Large scratch tables, mapped and unmapped rather than taken from the
 * caller's heap.
 *
 * This library runs inside other programs: pam_hijack inside sshd's
 * monitor, which forks the session's process after the account and
 * session steps.  glibc serves a malloc() above its mmap threshold (128
 * KiB at start) with mmap(), and when such a block is freed it raises the
 * threshold to that block's size, and the heap's trim threshold to twice
 * that (the "dynamic mmap threshold", mallopt(3) M_MMAP_THRESHOLD).  The
 * hierarchy table (32 mount points and roots of PATH_MAX each, 270 KiB)
 * and a task's cgroups (532 KiB) did that: after them both steps' tables
 * came from the heap, which then kept them, and so did the forked session
 * process, about 500 KiB of every mapped session's sshd.  A table taken
 * with hj_large_calloc() is given back to the kernel by hj_large_free()
 * and leaves the caller's allocator as it found it.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

/* the mapping's length, before the table, keeping max_align_t alignment */
#define HEAD _Alignof(max_align_t)

/* zeroed memory for NMEMB elements of SIZE bytes, or NULL with errno set */
void *hj_large_calloc(size_t nmemb, size_t size)
{
	size_t len;
	char *p;

	if (__builtin_mul_overflow(nmemb, size, &len) ||
	    __builtin_add_overflow(len, HEAD, &len)) {
		errno = ENOMEM;
		return NULL;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	memcpy(p, &len, sizeof(len));
	return p + HEAD;
}

/* give back what hj_large_calloc() returned; NULL is a no-op; keeps errno */
void hj_large_free(void *table)
{
	int saved = errno;
	char *p = table;
	size_t len;

	if (!p)
		return;
	p -= HEAD;
	memcpy(&len, p, sizeof(len));
	munmap(p, len);
	errno = saved;
}
