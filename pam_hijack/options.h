/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pam_hijack's module arguments, parsed without a PAM handle so that a
 * fuzzer can drive the parser (tests/fuzz/fuzz_pamopt.c).  Internal to
 * the module: only pam_sm_* leave the shared object.
 */
#ifndef PAM_HIJACK_OPTIONS_H
#define PAM_HIJACK_OPTIONS_H

#include <stdbool.h>

#define CTRL_DEBUG 0x1
#define CTRL_QUIET 0x2
#define CTRL_SILENT 0x4 /* PAM_SILENT: tell the user nothing */

/* What a VIRT_CONTROL record that cannot be written does to the login. */
enum hj_audit_policy {
	HJ_AUDIT_OPTIONAL = 0, /* log it, let the login go on */
	HJ_AUDIT_REQUIRED, /* refuse the login */
};

struct options {
	unsigned int ctrl;
	const char *conf; /* points into argv, or HJ_CONF_DEFAULT */
	const char *admin_group; /* points into argv, or NULL; never "" */
	const char *delegate; /* delegate=BASE: a cgroup path, or NULL */
	enum hj_audit_policy audit;
	bool bad_conf; /* conf= was not an absolute path */
};

/*
 * Called once for every argument that is not understood: what is wrong
 * ("unknown option", "bad value") and the argument itself.
 */
typedef void (*hj_option_error_fn)(void *ctx, const char *what,
				   const char *arg);

/*
 * Fill *o from argv; later arguments override earlier ones.  An audit=
 * value other than required or optional counts as required: a typo must
 * not turn auditing off.  NULL entries in argv are skipped.
 */
void hj_parse_options(int argc, const char **argv, struct options *o,
		      hj_option_error_fn bad, void *ctx);

#endif /* PAM_HIJACK_OPTIONS_H */
