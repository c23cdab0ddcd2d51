// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell's privilege: whether it has any, and dropping it for good.
 *
 * The installed binary carries file capabilities (hijack-shell(8)); it
 * runs as the user's uid, never as root.  Every path that runs anything
 * of the user's or the container's first goes through hj_drop_caps()
 * and checks the result.
 */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shell.h"

bool privileged(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (geteuid() == 0)
		return true;
	if (syscall(SYS_capget, &h, d))
		return true; /* cannot tell: behave as if privileged */
	return d[0].permitted || d[1].permitted || d[0].effective ||
	       d[1].effective;
}
