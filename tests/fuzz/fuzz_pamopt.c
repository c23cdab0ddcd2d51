// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: pam_hijack's module arguments (hj_parse_options,
 * pam_hijack/options.c), as libpam hands them over: the input split at
 * NUL bytes into at most 64 arguments, each in its own allocation so that
 * ASan sees a read past one.  Checked: every pointer the parser keeps
 * points into the argument it came from, the last conf= and admin_group=
 * win, an absolute conf= alone is good, audit= is required unless the
 * last audit= says optional, and every argument that is not an option
 * is reported once.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "options.h"

#define CHECK(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

#define MAX_ARGS 64

struct seen {
	int errors;
	const char *const *argv;
	int argc;
};

static void bad(void *ctx, const char *what, const char *arg)
{
	struct seen *s = ctx;
	int i;

	CHECK(what && *what);
	for (i = 0; i < s->argc; i++)
		if (s->argv[i] == arg)
			break;
	CHECK(i < s->argc); /* the argument itself, not a copy */
	s->errors++;
}

/* delegate=BASE's rule, written again: components between single '/', none
 * empty, "." or "..", at least one */
static bool path_ok(const char *p)
{
	const char *start = p;

	for (;; p++) {
		if (*p == '/' || !*p) {
			size_t l = (size_t)(p - start);

			if (l == 0 || (l == 1 && start[0] == '.') ||
			    (l == 2 && start[0] == '.' && start[1] == '.'))
				return false;
			if (!*p)
				return true;
			start = p + 1;
		}
	}
}

static bool known(const char *a)
{
	return !strcmp(a, "debug") || !strcmp(a, "quiet") ||
	       !strncmp(a, "conf=", 5) ||
	       (!strncmp(a, "admin_group=", 12) && a[12]) ||
	       (!strncmp(a, "delegate=", 9) && path_ok(a + 9)) ||
	       !strcmp(a, "audit=required") || !strcmp(a, "audit=optional");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *argv[MAX_ARGS];
	const char *conf = NULL, *group = NULL, *delegate = NULL;
	enum hj_audit_policy audit = HJ_AUDIT_OPTIONAL;
	unsigned int ctrl = 0;
	struct options o;
	struct seen s = { 0, (const char *const *)argv, 0 };
	size_t off = 0;
	int i, unknown = 0;

	while (off < size && s.argc < MAX_ARGS) {
		const uint8_t *nul = memchr(data + off, '\0', size - off);
		size_t l = nul ? (size_t)(nul - data) - off : size - off;

		argv[s.argc] = malloc(l + 1);
		if (!argv[s.argc])
			break;
		memcpy(argv[s.argc], data + off, l);
		argv[s.argc][l] = '\0';
		s.argc++;
		off += l + 1;
	}

	/* the expected outcome, computed independently */
	for (i = 0; i < s.argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "debug"))
			ctrl |= CTRL_DEBUG;
		else if (!strcmp(a, "quiet"))
			ctrl |= CTRL_QUIET;
		else if (!strncmp(a, "conf=", 5))
			conf = a + 5;
		else if (!strncmp(a, "admin_group=", 12) && a[12])
			group = a + 12;
		else if (!strncmp(a, "delegate=", 9))
			delegate = path_ok(a + 9) ? a + 9 : NULL;
		else if (!strcmp(a, "audit=optional"))
			audit = HJ_AUDIT_OPTIONAL;
		else if (!strncmp(a, "audit=", 6))
			audit = HJ_AUDIT_REQUIRED;
		if (!known(a))
			unknown++;
	}

	memset(&o, 0xa5, sizeof(o));
	hj_parse_options(s.argc, (const char **)argv, &o, bad, &s);
	CHECK(o.ctrl == ctrl);
	if (conf)
		CHECK(o.conf == conf);
	else
		CHECK(!strcmp(o.conf, HJ_CONF_DEFAULT));
	CHECK(o.bad_conf == (conf && conf[0] != '/'));
	CHECK(o.admin_group == group);
	CHECK(!o.admin_group || o.admin_group[0]);
	CHECK(o.delegate == delegate);
	CHECK(o.audit == audit);
	CHECK(s.errors == unknown);

	/* no callback: the same result, nothing reported */
	hj_parse_options(s.argc, (const char **)argv, &o, NULL, NULL);
	CHECK(o.audit == audit && o.admin_group == group);

	for (i = 0; i < s.argc; i++)
		free(argv[i]);
	return 0;
}
