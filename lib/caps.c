// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Giving up every capability, apart from the rest of the confinement code
 * (confine.c) so that a program that needs only this, hijack-shell's
 * small waiter, links only this.
 */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hijack.h"

/*
 * Drop every capability for good: no effective, permitted, inheritable or
 * ambient capability survives (read back, not assumed), and an exec of a
 * non-setuid file as a non-root uid cannot gain any back.
 */
int hj_drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	/* EINVAL: a kernel without ambient capabilities (before 4.3) */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) &&
	    errno != EINVAL)
		return -errno;
	if (syscall(SYS_capset, &h, d) || syscall(SYS_capget, &h, d))
		return -errno;
	if (d[0].effective || d[0].permitted || d[0].inheritable ||
	    d[1].effective || d[1].permitted || d[1].inheritable)
		return -EPERM;
	return 0;
}
