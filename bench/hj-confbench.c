/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hj-confbench FILE USER [N]: load hijack.conf (FILE, and FILE.d/NAME.conf)
 * and match USER, N times (default 1), as pam_hijack and hijack-shell do
 * at every login
 * (hj_conf_resolve_user: the whole file checked, matched while parsed):
 * the parse+match cost that bench/run puts beside `grep -c` over the same
 * bytes.  Prints the matching file:line and cgroup once, so the run can
 * check it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"

int main(int argc, char **argv)
{
	static const char *const no_groups[] = { NULL };
	struct hj_conf_error err = { .msg = "" };
	struct hj_mapping m;
	long i, n = argc > 3 ? atol(argv[3]) : 1;
	int e;

	if (argc < 3 || n < 1) {
		fprintf(stderr, "usage: hj-confbench FILE USER [N]\n");
		return 2;
	}
	for (i = 0; i < n; i++) {
		e = hj_conf_load_match(argv[1], argv[2], 65000, 65000, argv[2],
				       no_groups, &m, &err);
		if (e) {
			fprintf(stderr, "hj-confbench: %s: %s\n", err.msg,
				strerror(-e));
			return 1;
		}
	}
	printf("%s %s:%u %s\n", hj_map_kind_name(m.kind), m.file, m.line,
	       m.cgroup);
	return 0;
}
