/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hijack(1)'s command line, parsed apart from main() so it can be fuzzed. */
#ifndef HIJACK_ARGS_H
#define HIJACK_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hijack.h"

enum hijack_action {
	HIJACK_RUN,
	HIJACK_WHO,
	HIJACK_CHECK,
	HIJACK_CHECK_CONF,
	HIJACK_HELP,
	HIJACK_VERSION
};
enum hijack_kind { HIJACK_PID, HIJACK_CGROUP };

struct hijack_args {
	enum hijack_action action;
	enum hj_backend backend;
	const char *cwd; /* -w, or NULL */
	bool verbose;
	bool no_confine; /* --no-confine: keep the caller's confinement */
	const char *shell; /* --shell: who's and check's hijack-shell, or NULL */
	const char *user; /* HIJACK_CHECK: the user */
	char **files; /* HIJACK_CHECK_CONF: the files, NULL-terminated */
	enum hijack_kind kind;
	const char *id; /* the pid or cgroup argument as given */
	pid_t pid; /* HIJACK_PID: the parsed pid, > 0 */
	char **cmd; /* the command, NULL-terminated; may be empty */
};

/*
 * Parse argv (NULL-terminated, argc entries).  0 with @a filled in, or
 * -EINVAL with a one-line reason in @err.  Prints nothing.
 */
int hijack_parse_args(int argc, char **argv, struct hijack_args *a, char *err,
		      size_t errlen);

#endif
