/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A PAM service's session stack as Linux-PAM runs it, and whether a
 * session can open without pam_hijack's session step having succeeded.
 *
 * pamstack_load() reads the service file and inlines what it includes
 * ("@include FILE", "session include FILE", "session substack FILE")
 * into one list of session lines with their substack depth, as
 * libpam's _pam_parse_conf_file() builds its handler chain.
 * pamstack_check() then follows every way _pam_dispatch_aux() can walk
 * that chain, for every value each module may return, and reports a
 * way to a successful pam_open_session() on which pam_hijack's step
 * did not run or failed: a "sufficient" or "done" that ends the stack
 * before it, a jump over it, a "reset" that forgets its failure, or a
 * control under which its failure does not fail the stack.
 */
#ifndef HIJACK_PAMSTACK_H
#define HIJACK_PAMSTACK_H

#include <stdbool.h>
#include <stddef.h>

/* Linux-PAM's PAM_SUBSTACK_MAX_LEVEL, which bounds includes too */
#define PAMSTACK_MAX_DEPTH 16
/* more session lines than any real stack; past it, pamstack_load fails */
#define PAMSTACK_MAX_ENTRIES 1024
/* files read for one service, includes counted: past it, -E2BIG */
#define PAMSTACK_MAX_FILES 4096
/* the return values a control names (pam.conf(5)), PAM_SUCCESS is 0 */
#define PAMSTACK_VALUES 32

enum pamstack_kind {
	PAMSTACK_MODULE, /* a session module line */
	PAMSTACK_SUBSTACK, /* "session substack FILE": its lines follow */
	PAMSTACK_BROKEN, /* a line libpam installs to fail (bad type,
			  * unreadable include, no module) */
};

struct pamstack_entry {
	enum pamstack_kind kind;
	unsigned int level; /* substack depth */
	bool hijack; /* the module is pam_hijack.so */
	bool silent; /* "-session": skipped when the module is missing */
	/* libpam's actions: 0 ignore, -1 ok, -2 done, -3 bad, -4 die,
	 * -5 reset, N > 0 jump over N modules; one per return value */
	int act[PAMSTACK_VALUES];
	char *file;
	unsigned int line;
	char *text; /* the line as written, whitespace squeezed */
};

struct pamstack {
	struct pamstack_entry *e;
	size_t n, cap;
	bool found; /* a line of any type names pam_hijack.so */
	const char *dir; /* where relative names are looked up, or NULL */
	unsigned int files; /* read so far */
	char path[512]; /* the service's file */
	/* the first line libpam would not read as written */
	char bad[768];
};

enum pamstack_why {
	PAMSTACK_SAFE, /* every successful session ran pam_hijack's step */
	PAMSTACK_NO_STEP, /* no session line runs pam_hijack */
	PAMSTACK_NOT_REQUIRED, /* its control lets its failure pass */
	PAMSTACK_ENDS_BEFORE, /* "sufficient"/"done" ends the stack first */
	PAMSTACK_JUMPS_OVER, /* "[...=N]" jumps over it */
	PAMSTACK_RESETS, /* "[...=reset]" forgets its failure */
	PAMSTACK_SKIPPED, /* some other way (reported without a line) */
};

struct pamstack_verdict {
	enum pamstack_why why;
	long culprit; /* the entry to blame, or -1 */
	long step; /* the first pam_hijack session entry, or -1 */
	long after; /* the first session module after it, or -1 */
};

/*
 * Read SERVICE's stack: DIR/SERVICE when DIR is set (pam_start_confdir),
 * else /etc/pam.d/SERVICE, then /usr/lib/pam.d/SERVICE, as libpam looks.
 * Returns 0, -ENOENT when the service has no file, -ENOMEM or -E2BIG.
 * Lines libpam would fail on are entries of kind PAMSTACK_BROKEN, the
 * first of them described in ps->bad.
 */
int pamstack_load(struct pamstack *ps, const char *dir, const char *service);
/* one line of FILE (comments and continuations already removed) */
int pamstack_add_line(struct pamstack *ps, const char *file,
		      unsigned int lineno, char *line, unsigned int depth,
		      unsigned int level);
void pamstack_check(const struct pamstack *ps, struct pamstack_verdict *v);
void pamstack_free(struct pamstack *ps);

#endif /* HIJACK_PAMSTACK_H */
