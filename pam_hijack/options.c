// SPDX-License-Identifier: GPL-2.0-or-later
/* pam_hijack's module arguments (see options.h and pam_hijack(8)). */
#include "config.h"

#include <stdbool.h>
#include <string.h>

#include "conf.h"
#include "options.h"

/* relative, no empty, "." or ".." component: stays below the mount */
static bool cgroup_path_ok(const char *p)
{
	if (!*p)
		return false;
	while (*p) {
		size_t l = strcspn(p, "/");

		if (l == 0 || (l == 1 && p[0] == '.') ||
		    (l == 2 && p[0] == '.' && p[1] == '.'))
			return false;
		p += l;
		if (*p == '/' && !*++p)
			return false;
	}
	return true;
}

void hj_parse_options(int argc, const char **argv, struct options *o,
		      hj_option_error_fn bad, void *ctx)
{
	int i;

	memset(o, 0, sizeof(*o));
	o->conf = HJ_CONF_DEFAULT;
	o->audit = HJ_AUDIT_OPTIONAL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!a)
			continue;
		if (!strcmp(a, "debug")) {
			o->ctrl |= CTRL_DEBUG;
		} else if (!strcmp(a, "quiet")) {
			o->ctrl |= CTRL_QUIET;
		} else if (!strncmp(a, "conf=", 5)) {
			o->conf = a + 5;
			o->bad_conf = a[5] != '/';
		} else if (!strncmp(a, "admin_group=", 12) && a[12]) {
			o->admin_group = a + 12;
		} else if (!strncmp(a, "delegate=", 9)) {
			/* a cgroup path below each hierarchy's root */
			o->delegate = a + 9;
			if (!cgroup_path_ok(o->delegate)) {
				o->delegate = NULL;
				if (bad)
					bad(ctx, "bad cgroup path (ignored)",
					    a);
			}
		} else if (!strcmp(a, "audit=required")) {
			o->audit = HJ_AUDIT_REQUIRED;
		} else if (!strcmp(a, "audit=optional")) {
			o->audit = HJ_AUDIT_OPTIONAL;
		} else if (!strncmp(a, "audit=", 6)) {
			o->audit = HJ_AUDIT_REQUIRED;
			if (bad)
				bad(ctx, "bad value (taken as audit=required)",
				    a);
		} else if (bad) {
			bad(ctx, "unknown option", a);
		}
	}
}
