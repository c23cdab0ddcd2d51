// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The library's words for its error codes (see hijack.h): a static
 * table, nothing logged.  Apart from the rest so that the static hijack
 * of the kernel harness links it without libaudit.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "hijack.h"

/* Words that read after "cannot enter X: ", one per code of hijack.h. */
static const struct {
	int err;
	const char *words;
} words[] = {
	{ EPERM, "no ptrace rights over the target" },
	{ EBUSY, "the target is being traced" },
	{ ESRCH, "no running task" },
	{ EBADF, "not a cgroup tasks, cgroup.procs file or cgroup directory" },
	{ ENOENT, "no such cgroup" },
	{ EXDEV, "the cgroup holds no container, only host processes" },
	{ ENOTUNIQ, "the cgroup holds more than one container" },
	{ E2BIG, "the cgroup's subtree is too large to search" },
	{ EDEADLK, "the container's cgroup is frozen" },
	{ EAGAIN, "no more processes: the cgroup's pids.max or a process "
		  "limit is reached" },
	{ ENOSYS, "the kernel does not provide sys_hijack" },
	{ EOPNOTSUPP, "the init's confinement cannot be copied" },
	{ EMEDIUMTYPE, "/proc is not the host's procfs" },
	{ ETIMEDOUT, "the container's init did not stop for the copy of its "
		     "seccomp filters" },
	{ ENODATA, "no copy of the init's seccomp filters from a login's PAM "
		   "session (pam_hijack)" },
	{ ENOTRECOVERABLE, "the process would be less confined than the "
			   "target" },
};

const char *hj_strerror(int err)
{
	size_t i;

	if (err < 0)
		err = -err;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (words[i].err == err)
			return words[i].words;
	return strerror(err);
}
