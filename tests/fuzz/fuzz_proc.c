// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the parsers of /proc/PID/status, /proc/PID/stat,
 * cgroup membership files, /proc/self/mountinfo, /proc/PID/cgroup, and
 * the security fields of /proc/PID/status with its Groups line.
 * The first byte picks the parser; the rest is the file.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hijack.h"
#include "internal.h"

#define CHECK(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

/*
 * A hybrid layout (Debian 11/12 without systemd.unified_cgroup_hierarchy):
 * v1 controllers under /sys/fs/cgroup/<controller>, cgroup2 at
 * /sys/fs/cgroup/unified; one v1 hierarchy mounted from a subdirectory.
 */
static const char hybrid[] =
	"24 30 0:22 / /sys ro - sysfs sysfs rw\n"
	"27 24 0:25 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
	"28 27 0:26 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate\n"
	"29 27 0:27 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	"30 27 0:28 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	"31 27 0:29 /sub /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
	"32 27 0:30 / /sys/fs/cgroup/freezer rw shared:1 - cgroup cgroup rw,freezer\n";

static struct hj_hierarchy fixed[HJ_MAX_HIERARCHIES];
static struct hj_hierarchy parsed[HJ_MAX_HIERARCHIES];
static size_t nfixed;
static struct hj_membership mem[HJ_MAX_HIERARCHIES];
static pid_t pids[1024];
static gid_t gids[64];

static void check_hierarchies(const struct hj_hierarchy *h, size_t n)
{
	size_t i;

	CHECK(n <= HJ_MAX_HIERARCHIES);
	for (i = 0; i < n; i++) {
		CHECK(memchr(h[i].mnt, '\0', sizeof(h[i].mnt)));
		CHECK(memchr(h[i].root, '\0', sizeof(h[i].root)));
		CHECK(memchr(h[i].opts, '\0', sizeof(h[i].opts)));
		CHECK(h[i].v2 || h[i].opts[0]);
	}
}

static void proc_cgroup(const char *buf, size_t len,
			const struct hj_hierarchy *h, size_t nh)
{
	size_t n, i;

	if (hj_parse_proc_cgroup(buf, len, h, nh, mem, HJ_MAX_HIERARCHIES, &n))
		return;
	CHECK(n <= HJ_MAX_HIERARCHIES);
	for (i = 0; i < n; i++) {
		CHECK(mem[i].hier >= 0 && (size_t)mem[i].hier < nh);
		CHECK(memchr(mem[i].path, '\0', sizeof(mem[i].path)));
		CHECK(mem[i].path[0] != '/');
	}
}

static void status_sec(const char *buf, size_t len)
{
	struct hj_proc_sec sec;
	size_t n, i;

	if (hj_parse_status_sec(buf, len, &sec))
		return;
	CHECK(sec.seccomp >= 0 && sec.seccomp <= 2);
	CHECK(sec.no_new_privs == 0 || sec.no_new_privs == 1);
	CHECK(sec.seccomp_filters >= -1);
	CHECK(sec.groups >= buf && sec.groups + sec.groups_len <= buf + len);
	if (hj_parse_groups(sec.groups, sec.groups_len, gids, 64, &n))
		return;
	CHECK(n <= 64);
	for (i = 0; i < n; i++)
		CHECK(memchr(sec.groups, '0' + gids[i] % 10, sec.groups_len));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data + 1, *nul;
	struct hj_proc_status st;
	unsigned long long start;
	size_t len, n, i, j;

	if (size < 1)
		return 0;
	len = size - 1;
	if (!nfixed && hj_parse_mountinfo(hybrid, sizeof(hybrid) - 1, fixed,
					  HJ_MAX_HIERARCHIES, &nfixed))
		abort();
	switch (data[0] % 7) {
	case 0:
		if (!hj_parse_status(buf, len, &st))
			CHECK(st.nspid_depth > 0 && st.tgid >= 0 &&
			      st.tracer >= 0 && st.nspid_last >= 0);
		break;
	case 1:
		hj_parse_stat_starttime(buf, len, &start);
		break;
	case 2:
		if (hj_parse_pid_list(buf, len, pids, 1024, &n))
			break;
		CHECK(n <= 1024);
		for (i = 0; i < n; i++) {
			CHECK(pids[i] > 0);
			for (j = 0; j < i; j++)
				CHECK(pids[i] != pids[j]);
		}
		break;
	case 3:
		if (!hj_parse_mountinfo(buf, len, parsed, HJ_MAX_HIERARCHIES,
					&n))
			check_hierarchies(parsed, n);
		break;
	case 4:
		proc_cgroup(buf, len, fixed, nfixed);
		break;
	case 5:
		/* mountinfo, a NUL, then /proc/PID/cgroup */
		nul = memchr(buf, '\0', len);
		if (!nul)
			break;
		if (hj_parse_mountinfo(buf, nul - buf, parsed,
				       HJ_MAX_HIERARCHIES, &n))
			break;
		check_hierarchies(parsed, n);
		proc_cgroup(nul + 1, len - (nul + 1 - buf), parsed, n);
		break;
	case 6:
		status_sec(buf, len);
		break;
	}
	return 0;
}
