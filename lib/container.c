// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The login path's one question, asked by pam_hijack's account step,
 * hijack-shell and its --check alike: may a login enter the container
 * that a hijack.conf cgroup spec names, now?
 */
#include "config.h"

#include "hijack.h"

int hj_container_state(const char *spec, struct hj_target *t)
{
	int r;

	r = hj_target_from_cgroup_spec(spec, t);
	if (r) {
		hj_target_release(t);
		t->pid = 0;
		return r;
	}
	/* ptrace rights, not traced, not frozen; t->pid stays, for the log */
	r = hj_target_check_access(t);
	if (r)
		hj_target_release(t);
	return r;
}
