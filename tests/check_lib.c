// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of libhijack: parsers, target selection, flags, errors. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"
#include "audit.h"
#include "hijack.h"
#include "internal.h"

#define S(x) x, sizeof(x) - 1

START_TEST(status_parses_fields)
{
	static const char buf[] =
		"Name:\tsleep\nUmask:\t0022\nState:\tS (sleeping)\n"
		"Tgid:\t4242\nNgid:\t0\nPid:\t4243\nPPid:\t1\n"
		"TracerPid:\t17\nUid:\t1000\t1001\t1000\t1000\n"
		"NSpid:\t4243\t12\t1\n";
	struct hj_proc_status st;

	ck_assert_int_eq(hj_parse_status(S(buf), &st), 0);
	ck_assert_int_eq(st.state, 'S');
	ck_assert_int_eq(st.tgid, 4242);
	ck_assert_int_eq(st.tracer, 17);
	ck_assert_int_eq(st.ruid, 1000);
	ck_assert_int_eq(st.euid, 1001);
	ck_assert_int_eq(st.nspid_depth, 3);
	ck_assert_int_eq(st.nspid_last, 1);
}
END_TEST

/* hj_escape(): what a tool prints of a string from outside */
START_TEST(escape_controls)
{
	char out[HJ_ESCAPED_SIZE(16)], small[6];

	ck_assert_str_eq(hj_escape("web1/ok-_.:@", out, sizeof(out)),
			 "web1/ok-_.:@");
	ck_assert_str_eq(hj_escape("\r\033[2K", out, sizeof(out)),
			 "\\x0d\\x1b[2K");
	/* the escape's own backslash, DEL, and a UTF-8 C1 control (CSI) */
	ck_assert_str_eq(hj_escape("a\\b\177\xc2\x9b", out, sizeof(out)),
			 "a\\x5cb\\x7f\\xc2\\x9b");
	ck_assert_str_eq(hj_escape(NULL, out, sizeof(out)), "");
	/* cut at a whole escape: "ab" and no half of "\x1b" */
	ck_assert_str_eq(hj_escape("ab\033c", small, sizeof(small)), "ab");
	ck_assert_str_eq(hj_escape("abc\033", small, sizeof(small)), "abc");
	ck_assert_str_eq(hj_escape("a\033", small, sizeof(small)), "a\\x1b");
	ck_assert_str_eq(hj_escape("abcdefgh", small, sizeof(small)), "abcde");
	ck_assert_str_eq(hj_escape("x", out, 0), "");
}
END_TEST

/* mem.c: zeroed, aligned, writable to its end; an overflowing size fails */
START_TEST(large_tables)
{
	unsigned char *p = hj_large_calloc(3, 100000);
	size_t i;

	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq((uintptr_t)p % _Alignof(max_align_t), 0);
	for (i = 0; i < 300000; i++)
		ck_assert_uint_eq(p[i], 0);
	memset(p, 0xa5, 300000);
	errno = EBADF;
	hj_large_free(p);
	ck_assert_int_eq(errno, EBADF);
	hj_large_free(NULL);
	errno = 0;
	ck_assert_ptr_null(hj_large_calloc(SIZE_MAX / 2, 3));
	ck_assert_int_eq(errno, ENOMEM);
	errno = 0;
	ck_assert_ptr_null(hj_large_calloc(1, SIZE_MAX - 4));
	ck_assert_int_eq(errno, ENOMEM);
}
END_TEST

START_TEST(status_rejects_garbage)
{
	struct hj_proc_status st;

	ck_assert_int_eq(hj_parse_status(S("State:\tR\n"), &st), -EINVAL);
	ck_assert_int_eq(hj_parse_status(S("State:\tR\nTgid:\tx\n"), &st),
			 -EINVAL);
	ck_assert_int_eq(
		hj_parse_status(S("State:\tR\nTgid:\t99999999999\n"
				  "TracerPid:\t0\nUid:\t0\t0\nNSpid:\t1\n"),
				&st),
		-EINVAL);
	ck_assert_int_eq(
		hj_parse_status(S("State:\tR\nTgid:\t1\nTracerPid:\t0\n"
				  "Uid:\t0\t0\nNSpid:\t\n"),
				&st),
		-EINVAL);
	ck_assert_int_eq(hj_parse_status("", 0, &st), -EINVAL);
}
END_TEST

START_TEST(stat_starttime_after_odd_comm)
{
	static const char buf[] =
		"42 (a) b (c)) S 1 42 42 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 "
		"987654 1000 10\n";
	unsigned long long t;

	ck_assert_int_eq(hj_parse_stat_starttime(S(buf), &t), 0);
	ck_assert_uint_eq(t, 987654);
	ck_assert_int_eq(hj_parse_stat_starttime(S("42 (x) S 1 2"), &t),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_stat_starttime(S("no paren"), &t), -EINVAL);
}
END_TEST

START_TEST(pid_list_dedupes_and_bounds)
{
	pid_t pids[4];
	size_t n;

	ck_assert_int_eq(
		hj_parse_pid_list(S("10\n11\n10\n\n12\n"), pids, 4, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(pids[0], 10);
	ck_assert_int_eq(pids[2], 12);
	ck_assert_int_eq(hj_parse_pid_list(S("1\n2\n3\n4\n5\n"), pids, 4, &n),
			 -E2BIG);
	ck_assert_int_eq(hj_parse_pid_list(S("1\n-2\n"), pids, 4, &n), -EINVAL);
	ck_assert_int_eq(hj_parse_pid_list(S("1 2\n"), pids, 4, &n), -EINVAL);
	ck_assert_int_eq(hj_parse_pid_list(S("0\n"), pids, 4, &n), -EINVAL);
	ck_assert_int_eq(hj_parse_pid_list("", 0, pids, 4, &n), 0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

/* uid_map as rootless podman --userns=keep-id shows it from the host */
START_TEST(id_map_both_ways)
{
	static const char map[] = "         0     100000       1000\n"
				  "      1000       1000          1\n"
				  "      1001     101000      64536\n";
	unsigned int id = 7;

	ck_assert_int_eq(hj_parse_id_map(S(map), 1000, false, &id), 0);
	ck_assert_uint_eq(id, 1000);
	ck_assert_int_eq(hj_parse_id_map(S(map), 100999, false, &id), 0);
	ck_assert_uint_eq(id, 999);
	ck_assert_int_eq(hj_parse_id_map(S(map), 0, true, &id), 0);
	ck_assert_uint_eq(id, 100000);
	ck_assert_int_eq(hj_parse_id_map(S(map), 1001, true, &id), 0);
	ck_assert_uint_eq(id, 101000);
	/* the host's root and ids past the ranges are unmapped */
	ck_assert_int_eq(hj_parse_id_map(S(map), 0, false, &id), -ENOENT);
	ck_assert_int_eq(hj_parse_id_map(S(map), 165536, false, &id), -ENOENT);
	ck_assert_int_eq(hj_parse_id_map(S(map), 65537, true, &id), -ENOENT);
	ck_assert_int_eq(hj_parse_id_map("", 0, 0, true, &id), -ENOENT);
	/* malformed: too few fields, an empty range, a range past 2^32 */
	ck_assert_int_eq(hj_parse_id_map(S("0 1000\n"), 0, true, &id), -EINVAL);
	ck_assert_int_eq(hj_parse_id_map(S("0 1000 0\n"), 0, true, &id),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_id_map(S("0 4294967295 2\n"), 0, true, &id),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_id_map(S("0 1 1 x\n"), 0, true, &id),
			 -EINVAL);
}
END_TEST

static const char hybrid_mountinfo[] =
	"25 30 0:23 / /sys rw - sysfs sysfs rw\n"
	"35 25 0:30 / /sys/fs/cgroup ro - tmpfs tmpfs ro,mode=755\n"
	"36 35 0:31 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw,nsdelegate\n"
	"37 35 0:32 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd\n"
	"38 35 0:33 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
	"39 35 0:34 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids\n"
	"40 35 0:34 /sub /mnt/pids\\040bind rw - cgroup cgroup rw,pids\n"
	"41 35 0:35 /lxc /mnt/mem rw shared:5 - cgroup cgroup rw,memory\n";

START_TEST(mountinfo_hybrid)
{
	struct hj_hierarchy h[8];
	size_t n;

	ck_assert_int_eq(hj_parse_mountinfo(S(hybrid_mountinfo), h, 8, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert(h[0].v2);
	ck_assert_str_eq(h[0].mnt, "/sys/fs/cgroup/unified");
	ck_assert_str_eq(h[1].opts, "name=systemd");
	ck_assert_str_eq(h[2].opts, "cpu,cpuacct");
	ck_assert_str_eq(h[3].mnt, "/sys/fs/cgroup/pids");
	ck_assert_str_eq(h[4].root, "/lxc");
}
END_TEST

/* a controller's v1 hierarchy, from the parsed mount table alone */
START_TEST(controller_hierarchy)
{
	static const char cpuset_too[] =
		"42 35 0:36 / /sys/fs/cgroup/cpuset rw - cgroup cgroup "
		"rw,cpuset,clone_children\n"
		"43 35 0:37 / /sys/fs/cgroup/net_cls,net_prio rw - cgroup "
		"cgroup rw,net_cls,net_prio\n";
	struct hj_hierarchy h[8];
	size_t n;

	ck_assert_int_eq(hj_parse_mountinfo(S(hybrid_mountinfo), h, 8, &n), 0);
	ck_assert_int_eq(hj_controller_hierarchy("cpu,cpuacct", h, n), 2);
	ck_assert_int_eq(hj_controller_hierarchy("cpuacct,cpu", h, n), 2);
	ck_assert_int_eq(hj_controller_hierarchy("cpu", h, n), 2);
	ck_assert_int_eq(hj_controller_hierarchy("cpuacct", h, n), 2);
	ck_assert_int_eq(hj_controller_hierarchy("name=systemd", h, n), 1);
	ck_assert_int_eq(hj_controller_hierarchy("pids", h, n), 3);
	ck_assert_int_eq(hj_controller_hierarchy("memory", h, n), 4);
	/* a prefix of a controller is not that controller */
	ck_assert_int_eq(hj_controller_hierarchy("cpuac", h, n), -ENOENT);
	ck_assert_int_eq(hj_controller_hierarchy("pid", h, n), -ENOENT);
	/* not mounted on v1; the v2 hierarchy is never a controller's */
	ck_assert_int_eq(hj_controller_hierarchy("blkio", h, n), -ENOENT);
	ck_assert_int_eq(hj_controller_hierarchy("nsdelegate", h, n), -ENOENT);
	ck_assert_int_eq(hj_controller_hierarchy("systemd", h, n), -ENOENT);
	/* the mount's generic options are not controllers */
	ck_assert_int_eq(hj_parse_mountinfo(S(cpuset_too), h, 8, &n), 0);
	ck_assert_int_eq(hj_controller_hierarchy("cpuset", h, n), 0);
	ck_assert_int_eq(hj_controller_hierarchy("clone_children", h, n),
			 -ENOENT);
	ck_assert_int_eq(hj_controller_hierarchy("rw", h, n), -ENOENT);
	ck_assert_int_eq(hj_controller_hierarchy("net_prio", h, n), 1);
	ck_assert_int_eq(hj_controller_hierarchy("net_prio,net_cls", h, n), 1);
	ck_assert_int_eq(hj_controller_hierarchy("net_prio,cpuset", h, n),
			 -ENOENT);
}
END_TEST

START_TEST(proc_cgroup_maps_to_hierarchies)
{
	static const char cg[] = "5:memory:/lxc/web1\n"
				 "4:pids:/ctr/web1\n"
				 "3:cpuacct,cpu:/ctr/web1\n"
				 "2:name=systemd:/\n"
				 "1:blkio:/unmounted\n"
				 "0::/ctr/web1\n";
	struct hj_hierarchy h[8];
	struct hj_membership m[8];
	size_t nh, n;

	ck_assert_int_eq(hj_parse_mountinfo(S(hybrid_mountinfo), h, 8, &nh), 0);
	ck_assert_int_eq(hj_parse_proc_cgroup(S(cg), h, nh, m, 8, &n), 0);
	ck_assert_uint_eq(n, 5);
	ck_assert_int_eq(m[0].hier, 4);
	ck_assert_str_eq(m[0].path, "web1"); /* mount root /lxc stripped */
	ck_assert_int_eq(m[1].hier, 3);
	ck_assert_str_eq(m[1].path, "ctr/web1");
	ck_assert_int_eq(m[2].hier, 2); /* same set, other order */
	ck_assert_str_eq(m[3].path, "");
	ck_assert(h[m[4].hier].v2);
	ck_assert_int_eq(hj_parse_proc_cgroup(S("garbage\n"), h, nh, m, 8, &n),
			 -EINVAL);
}
END_TEST

/* Fuzz findings: the buffer ends right after the second ':'. */
START_TEST(proc_cgroup_colon_at_end)
{
	struct hj_hierarchy h[8];
	struct hj_membership m[8];
	size_t nh, n;
	char *buf = malloc(4);

	ck_assert_int_eq(hj_parse_mountinfo(S(hybrid_mountinfo), h, 8, &nh), 0);
	/* exactly sized, not NUL-terminated: ASan sees a read past it */
	memcpy(buf, "1:x:", 4);
	ck_assert_int_eq(hj_parse_proc_cgroup(buf, 4, h, nh, m, 8, &n),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_proc_cgroup(S("0::\n0::/a\n"), h, nh, m, 8,
					      &n),
			 -EINVAL);
	free(buf);
}
END_TEST

/* A NUL inside the super options is not an (empty) controller list. */
START_TEST(mountinfo_nul_in_options)
{
	static const char mi[] = "30 27 0:14 / /c rw - cgroup cgroup rw,\0\0\n"
				 "31 27 0:15 / /d rw - cgroup cgroup rw,pids\n";
	struct hj_hierarchy h[8];
	size_t n;

	ck_assert_int_eq(hj_parse_mountinfo(S(mi), h, 8, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(h[0].opts, "pids");
}
END_TEST

START_TEST(cgroup_path_check)
{
	char big[HJ_CGROUP_PATH_MAX + 2];

	ck_assert_int_eq(hj_cgroup_path_check("ctr/web1"), 0);
	ck_assert_int_eq(hj_cgroup_path_check(""), 0);
	ck_assert_int_eq(hj_cgroup_path_check("ctr/../etc"), -EINVAL);
	ck_assert_int_eq(hj_cgroup_path_check(".."), -EINVAL);
	ck_assert_int_eq(hj_cgroup_path_check("ctr/./x"), -EINVAL);
	ck_assert_int_eq(hj_cgroup_path_check("ctr//x"), -EINVAL);
	ck_assert_int_eq(hj_cgroup_path_check("ctr/"), -EINVAL);
	ck_assert_int_eq(hj_cgroup_path_check("/abs"), -EINVAL);
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	ck_assert_int_eq(hj_cgroup_path_check(big), -ENAMETOOLONG);
}
END_TEST

START_TEST(clone_flags_validated)
{
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD), 0);
	ck_assert_int_eq(hj_check_clone_flags(0), 0);
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD |
					      0x00040000 /* SYSVSEM */),
			 -EINVAL);
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD | 0x00000100 /* VM */),
			 -EINVAL);
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD |
					      0x20000000 /* NEWPID */),
			 -EINVAL);
	ck_assert_int_eq(hj_check_clone_flags(0xff), -EINVAL);
}
END_TEST

START_TEST(not_a_cgroup_file_is_ebadf)
{
	struct hj_target t;
	int fd;

	fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hj_cgroup_is_member_file(fd), -EBADF);
	ck_assert_int_eq(hj_target_from_cgroup_fd(fd, &t), -EBADF);
	close(fd);
	ck_assert_int_eq(hj_target_from_cgroup_path("/etc/hostname", &t),
			 -EBADF);
	ck_assert_int_eq(hj_target_from_cgroup_path("/", &t), -EBADF);
	ck_assert_int_eq(t.pidfd, -1);
}
END_TEST

START_TEST(spec_refuses_escapes)
{
	struct hj_target t;

	ck_assert_int_eq(hj_target_from_cgroup_spec("../x", &t), -EINVAL);
	ck_assert_int_eq(hj_target_from_cgroup_spec("a//b", &t), -EINVAL);
	ck_assert_int_eq(hj_target_from_cgroup_spec(":x", &t), -EINVAL);
	ck_assert_int_eq(hj_target_from_cgroup_spec("nosuchctl:x", &t),
			 -ENOENT);
	ck_assert_int_eq(hj_target_from_cgroup_spec("hj-no-such-cgroup", &t),
			 -ENOENT);
}
END_TEST

/* The mounted hierarchies, on the heap (they are large). */
static struct hj_hierarchy *hierarchies(size_t *n)
{
	struct hj_hierarchy *h = calloc(HJ_MAX_HIERARCHIES, sizeof(*h));

	ck_assert_ptr_nonnull(h);
	ck_assert_int_eq(hj_cgroup_hierarchies(h, HJ_MAX_HIERARCHIES, n), 0);
	return h;
}

/* The first hierarchy of the version asked for where we may mkdir. */
static int writable_hierarchy(const struct hj_hierarchy *h, size_t nh, bool v2,
			      const char *name)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < nh; i++) {
		if (h[i].v2 != v2)
			continue;
		snprintf(path, sizeof(path), "%s/%s", h[i].mnt, name);
		if (mkdir(path, 0755) == 0 || errno == EEXIST)
			return i;
	}
	return -1;
}

static void rmdir_retry(const char *path)
{
	int i;

	/* a killed task leaves its cgroup once reaped, by whoever reaps it */
	for (i = 0; i < 500 && rmdir(path) && errno == EBUSY; i++)
		usleep(10000);
}

/* Both ways of opening give the same answer. */
static void same_open(const struct hj_hierarchy *h, const char *rel, int flags,
		      int want)
{
	int a = hj_cgroup_openat(h, rel, flags);
	int b = hj_cgroup_openat_walk(h, rel, flags);
	struct stat sa, sb;

	if (want >= 0) {
		ck_assert_msg(a >= 0 && b >= 0, "%s/%s: openat2 %d, walk %d",
			      h->mnt, rel, a, b);
		ck_assert_int_eq(fstat(a, &sa), 0);
		ck_assert_int_eq(fstat(b, &sb), 0);
		ck_assert(sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
		ck_assert_int_ne(fcntl(b, F_GETFD) & FD_CLOEXEC, 0);
		close(a);
		close(b);
	} else {
		ck_assert_msg(a == want && b == want,
			      "%s/%s: want %d, openat2 %d, walk %d", h->mnt,
			      rel, want, a, b);
	}
}

/* Without openat2 (old kernels, valgrind) the walk is as strict. */
START_TEST(cgroup_walk_matches_openat2)
{
	struct hj_hierarchy *h;
	char base[64], rel[128], path[PATH_MAX + 128];
	size_t nh;
	int v2, idx[2], k, status;
	pid_t pid;

	h = hierarchies(&nh);
	snprintf(base, sizeof(base), "hj-walk-%d", (int)getpid());
	for (v2 = 0; v2 < 2; v2++) {
		idx[v2] = writable_hierarchy(h, nh, v2, base);
		if (idx[v2] < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/a", h[idx[v2]].mnt, base);
		ck_assert_int_eq(mkdir(path, 0755), 0);
		strcat(path, "/b");
		ck_assert_int_eq(mkdir(path, 0755), 0);
	}
	ck_assert_msg(idx[0] >= 0 || idx[1] >= 0, "no writable cgroup fs");
	for (k = 0; k < 2; k++) {
		const struct hj_hierarchy *hi;

		if (idx[k] < 0)
			continue;
		hi = &h[idx[k]];
		same_open(hi, "", O_PATH | O_DIRECTORY, 0);
		snprintf(rel, sizeof(rel), "%s/a/b", base);
		same_open(hi, rel, O_PATH | O_DIRECTORY, 0);
		snprintf(rel, sizeof(rel), "%s/a/cgroup.procs", base);
		same_open(hi, rel, O_RDONLY, 0);
		same_open(hi, rel, O_PATH | O_DIRECTORY, -ENOTDIR);
		snprintf(rel, sizeof(rel), "%s/a/cgroup.procs/x", base);
		same_open(hi, rel, O_PATH, -ENOTDIR);
		snprintf(rel, sizeof(rel), "%s/nope/b", base);
		same_open(hi, rel, O_PATH | O_DIRECTORY, -ENOENT);
		ck_assert_int_eq(hj_cgroup_openat_walk(hi, "../x", O_PATH),
				 -EINVAL);
		ck_assert_int_eq(hj_cgroup_openat_walk(hi, "/x", O_PATH),
				 -EINVAL);

		/* a mount on a cgroup directory is not crossed */
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			snprintf(path, sizeof(path), "%s/%s/a/b", hi->mnt,
				 base);
			if (unshare(CLONE_NEWNS) ||
			    mount("none", "/", "none", MS_REC | MS_PRIVATE,
				  NULL) ||
			    mount("hj", path, "tmpfs", 0, NULL))
				_exit(2);
			snprintf(rel, sizeof(rel), "%s/a/b", base);
			if (hj_cgroup_openat(hi, rel, O_PATH) != -EXDEV ||
			    hj_cgroup_openat_walk(hi, rel, O_PATH) != -EXDEV)
				_exit(1);
			snprintf(rel, sizeof(rel), "%s/a/b/c", base);
			strcat(path, "/c");
			if (mkdir(path, 0755))
				_exit(2);
			if (hj_cgroup_openat_walk(hi, rel, O_PATH) != -EXDEV)
				_exit(1);
			_exit(0);
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
			      "mount crossing: child status %d", status);
	}
	for (k = 0; k < 2; k++) {
		if (idx[k] < 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s/a/b", h[idx[k]].mnt, base);
		rmdir_retry(path);
		snprintf(path, sizeof(path), "%s/%s/a", h[idx[k]].mnt, base);
		rmdir_retry(path);
		snprintf(path, sizeof(path), "%s/%s", h[idx[k]].mnt, base);
		rmdir_retry(path);
	}
	free(h);
}
END_TEST

struct hier_thread {
	const struct hj_hierarchy *want;
	size_t nwant;
	int bad;
};

static void *hierarchies_loop(void *arg)
{
	struct hier_thread *ht = arg;
	struct hj_hierarchy *h = calloc(HJ_MAX_HIERARCHIES, sizeof(*h));
	size_t n, i;
	int k;

	for (k = 0; h && k < 200; k++) {
		if (hj_cgroup_hierarchies(h, HJ_MAX_HIERARCHIES, &n) ||
		    n != ht->nwant) {
			ht->bad++;
			continue;
		}
		for (i = 0; i < n; i++)
			if (strcmp(h[i].mnt, ht->want[i].mnt) ||
			    strcmp(h[i].opts, ht->want[i].opts))
				ht->bad++;
	}
	if (!h)
		ht->bad++;
	free(h);
	return NULL;
}

/* Threads of a PAM application may read the hierarchies at once. */
START_TEST(hierarchies_thread_safe)
{
	struct hier_thread ht[4];
	pthread_t th[4];
	struct hj_hierarchy *h;
	size_t nh;
	int i;

	h = hierarchies(&nh);
	for (i = 0; i < 4; i++) {
		ht[i] = (struct hier_thread){ h, nh, 0 };
		ck_assert_int_eq(pthread_create(&th[i], NULL, hierarchies_loop,
						&ht[i]),
				 0);
	}
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(pthread_join(th[i], NULL), 0);
		ck_assert_int_eq(ht[i].bad, 0);
	}
	free(h);
}
END_TEST

/*
 * In a mount namespace of its own, stack mounts on @dir until mountinfo
 * is over 256 KiB, then read the hierarchies: as many as @nh?
 */
static int big_mountinfo_child(const char *dir, size_t nh)
{
	struct hj_hierarchy *h = calloc(HJ_MAX_HIERARCHIES, sizeof(*h));
	char buf[65536];
	size_t total = 0, n;
	ssize_t l;
	int i, fd, r = 0;

	if (!h || unshare(CLONE_NEWNS) ||
	    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL))
		r = 2;
	for (i = 0; !r && i < 1200; i++)
		if (mount("hj", dir, "tmpfs", 0, "size=4k"))
			r = 2;
	fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	while (!r && fd >= 0 && (l = read(fd, buf, sizeof(buf))) > 0)
		total += l;
	if (fd >= 0)
		close(fd);
	if (!r && total <= 256 * 1024)
		r = 3;
	if (!r && (hj_cgroup_hierarchies(h, HJ_MAX_HIERARCHIES, &n) || n != nh))
		r = 1;
	free(h);
	return r;
}

/* A mountinfo larger than the old 256 KiB static buffer. */
START_TEST(hierarchies_large_mountinfo)
{
	char dir[PATH_MAX];
	struct hj_hierarchy *h;
	size_t nh, n;
	int status;
	pid_t pid;

	h = hierarchies(&nh);
	free(h);
	snprintf(dir, sizeof(dir), "/tmp/hj-mountinfo-%d-", (int)getpid());
	n = strlen(dir);
	memset(dir + n, 'x', 200);
	dir[n + 200] = '\0';
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(big_mountinfo_child(dir, nh));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	rmdir(dir);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "child status %d", status);
}
END_TEST

static pid_t start_sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	return pid;
}

START_TEST(pid_target_pins_and_sees_death)
{
	struct hj_target t;
	pid_t pid = start_sleeper();
	int status;

	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(t.pid, pid);
	ck_assert_int_ge(t.pidfd, 0);
	ck_assert_int_eq(hj_target_alive(&t), 0);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	/* the target exits between resolution and entry: a clean error */
	ck_assert_int_eq(hj_target_alive(&t), -ESRCH);
	ck_assert_int_eq(hj_spawn(&t, &(struct hj_spawn_opts){ 0 }, NULL),
			 -ESRCH);
	hj_target_release(&t);
	ck_assert_int_eq(t.pidfd, -1);
}
END_TEST

START_TEST(zombie_is_not_a_target)
{
	struct hj_target t;
	pid_t pid = fork();
	int status;

	if (pid == 0)
		_exit(0);
	/* wait until it is a zombie, without reaping it */
	waitid(P_PID, pid, NULL, WEXITED | WNOWAIT);
	ck_assert_int_eq(hj_target_from_pid(pid, &t), -ESRCH);
	waitpid(pid, &status, 0);
}
END_TEST

START_TEST(spawn_rejects_flags_before_anything)
{
	struct hj_target t;
	pid_t pid = start_sleeper();
	struct hj_spawn_opts o = { .clone_flags = SIGCHLD | 0x00040000 };
	int status;

	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(hj_spawn(&t, &o, NULL), -EINVAL);
	o.clone_flags = SIGCHLD;
	o.backend = HJ_BACKEND_STOCK;
	/* same namespaces: nothing to enter, still a child of ours */
	pid_t child = hj_spawn(&t, &o, NULL);

	if (child == 0)
		_exit(42);
	ck_assert_int_gt(child, 0);
	ck_assert_int_eq(hj_wait(child, &status), 0);
	ck_assert_int_eq(hj_exit_code(status), 42);
	hj_target_release(&t);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}
END_TEST

START_TEST(pidfd_target)
{
	struct hj_target t;
	pid_t pid = start_sleeper();
	int pidfd = hj_pidfd_open(pid), status;

	ck_assert_int_ge(pidfd, 0);
	ck_assert_int_eq(hj_target_from_pidfd(pidfd, &t), 0);
	ck_assert_int_eq(t.pid, pid);
	hj_target_release(&t);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ck_assert_int_eq(hj_target_from_pidfd(pidfd, &t), -ESRCH);
	close(pidfd);
	ck_assert_int_eq(hj_target_from_pidfd(0, &t), -EBADF);
}
END_TEST

/* Move @pid into the cgroup directory @dir. */
static void move_to(const char *dir, pid_t pid)
{
	char path[PATH_MAX + 32], buf[16];
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	ck_assert_int_eq(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
	close(fd);
}

/* The first child of @pid, waited for. */
static pid_t first_child(pid_t pid)
{
	char path[64], buf[64];
	int i, fd;
	ssize_t l;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/children", (int)pid,
		 (int)pid);
	for (i = 0; i < 200; i++) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ck_assert_int_ge(fd, 0);
		l = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (l > 0) {
			buf[l] = '\0';
			return atoi(buf);
		}
		usleep(10000);
	}
	ck_abort_msg("no child of %d", (int)pid);
	return -1;
}

/* start_container(): keep the host's root (unshare without a chroot) */
#define HOST_ROOT 0x1

/*
 * A container as runtimes make one: a helper that unshares @flags (pid
 * namespace at least) and stays on the host, and its child, pid 1 of the
 * new pid namespace, with a root of its own (chroot to /tmp) unless
 * HOST_ROOT.  With @nest the init starts a container of its own
 * (a nested pid namespace).  Returns the init; the helper in *helper.
 */
static pid_t start_container(int flags, bool nest, pid_t *helper)
{
	bool host_root = flags & HOST_ROOT;
	pid_t pid, init = 0;
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t c;
		int q[2];
		char x;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(flags & ~HOST_ROOT))
			_exit(1);
		if ((flags & CLONE_NEWNS) &&
		    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
			_exit(1);
		if (pipe(q))
			_exit(1);
		c = fork();
		if (c == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (!host_root && chroot("/tmp"))
				_exit(1);
			/* ready: the root is its own */
			if (write(q[1], "x", 1) != 1)
				_exit(1);
			if (nest && !unshare(CLONE_NEWPID) && fork() == 0)
				pause();
			pause();
			_exit(0);
		}
		if (c < 0 || read(q[0], &x, 1) != 1 ||
		    write(p[1], &c, sizeof(c)) != sizeof(c))
			_exit(1);
		waitpid(c, NULL, 0);
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &init, sizeof(init)), sizeof(init));
	close(p[0]);
	*helper = pid;
	if (nest)
		first_child(init);
	return init;
}

/* The helper reaps the init, then exits: both gone on return. */
static void stop(pid_t helper, pid_t init)
{
	int i;

	kill(init, SIGKILL);
	waitpid(helper, NULL, 0);
	for (i = 0; i < 500 && !kill(init, 0); i++)
		usleep(10000);
}

/*
 * The login path on one hierarchy: the init anywhere in the subtree (as
 * in crun's <scope>/container or systemd's init.scope), host processes
 * never, two containers refused, only a missing cgroup is "stopped".
 */
static void tree_case(bool v2)
{
	char name[64], dir[PATH_MAX + 64], sub[PATH_MAX + 96],
		sub2[PATH_MAX + 96], deep[PATH_MAX + 128];
	struct hj_hierarchy *h;
	struct hj_target t;
	pid_t host, helper, init, helper2, init2, inner;
	size_t nh;
	int i;

	h = hierarchies(&nh);
	snprintf(name, sizeof(name), "hj-tree-%d-%d", (int)getpid(), v2);
	i = writable_hierarchy(h, nh, v2, name);
	if (i < 0) {
		free(h);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/%s", h[i].mnt, name);
	snprintf(sub, sizeof(sub), "%s/init.scope", dir);
	snprintf(sub2, sizeof(sub2), "%s/other", dir);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(mkdir(sub2, 0755), 0);
	if (!v2) {
		/* a spec without controller must find the v1 directory */
		char v2dir[PATH_MAX + 64];
		size_t j;

		for (j = 0; j < nh; j++) {
			snprintf(v2dir, sizeof(v2dir), "%s/%s", h[j].mnt, name);
			ck_assert(!h[j].v2 || access(v2dir, F_OK));
		}
	}

	/* an existing, empty cgroup: not running, but not "stopped" */
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ESRCH);

	/* a host process alone in the cgroup is no container */
	host = start_sleeper();
	move_to(dir, host);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -EXDEV);
	ck_assert_int_eq(t.pidfd, -1);

	/* the init in a child cgroup, a host process in the top one */
	init = start_container(CLONE_NEWPID | CLONE_NEWNS, false, &helper);
	move_to(sub, init);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), 0);
	ck_assert_int_eq(t.pid, init);
	ck_assert_int_eq(t.pick, HJ_PICK_INIT);
	ck_assert_str_eq(t.cgroup, sub);
	ck_assert(t.ns_differ & HJ_NS_MNT);
	ck_assert(t.ns_differ & HJ_NS_PID);
	hj_target_release(&t);
	/* a leading '/' is the same cgroup */
	snprintf(deep, sizeof(deep), "/%s", name);
	ck_assert_int_eq(hj_target_from_cgroup_spec(deep, &t), 0);
	ck_assert_int_eq(t.pid, init);
	hj_target_release(&t);

	/* a second container in the subtree: which one? refused */
	init2 = start_container(CLONE_NEWPID | CLONE_NEWNS, false, &helper2);
	move_to(sub2, init2);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ENOTUNIQ);
	ck_assert_int_eq(t.pidfd, -1);
	stop(helper2, init2);

	/* mount and pid namespaces of its own, but the host's root */
	init2 = start_container(CLONE_NEWPID | CLONE_NEWNS | HOST_ROOT, false,
				&helper2);
	move_to(sub2, init2);
	stop(helper, init);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -EXDEV);
	ck_assert_int_eq(t.pidfd, -1);
	init = start_container(CLONE_NEWPID | CLONE_NEWNS, false, &helper);
	move_to(sub, init);
	stop(helper2, init2);

	/* a pid namespace without a mount namespace of its own: the host */
	init2 = start_container(CLONE_NEWPID, false, &helper2);
	stop(helper, init);
	move_to(sub2, init2);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -EXDEV);
	stop(helper2, init2);

	/* a container nested in the container is the container's own */
	init = start_container(CLONE_NEWPID | CLONE_NEWNS, true, &helper);
	inner = first_child(init);
	move_to(sub, init);
	snprintf(deep, sizeof(deep), "%s/inner", sub2);
	ck_assert_int_eq(mkdir(deep, 0755), 0);
	move_to(deep, inner);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), 0);
	ck_assert_int_eq(t.pid, init);
	hj_target_release(&t);
	stop(helper, init);

	/* the container gone, the host process left: still no host */
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -EXDEV);
	kill(host, SIGKILL);
	waitpid(host, NULL, 0);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ESRCH);
	rmdir_retry(deep);
	rmdir_retry(sub2);
	rmdir_retry(sub);
	rmdir_retry(dir);
	/* only a cgroup that does not exist is a stopped container */
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ENOENT);
	free(h);
}

/* Write @val to the file @name of the cgroup directory @dir. */
static void cg_write(const char *dir, const char *name, const char *val)
{
	char path[PATH_MAX + 64];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	ck_assert_int_eq(write(fd, val, strlen(val)), (ssize_t)strlen(val));
	close(fd);
}

/* A spawn that must fail: a child that got in would say so and exit. */
static pid_t spawn_once(struct hj_target *t)
{
	struct hj_spawn_opts o = { 0 };
	pid_t pid = hj_spawn(t, &o, NULL);

	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pid;
}

/*
 * hj_container_state() and hj_spawn() on a real container: enterable;
 * at pids.max the clone's -EAGAIN; frozen -EDEADLK, a code of its own, so
 * no front end can tell a user at pids.max that the container is frozen.
 */
START_TEST(state_pids_max_and_frozen)
{
	char name[64], dirs[HJ_MAX_HIERARCHIES][PATH_MAX + 64], cur[32];
	int pids = -1, freeze = -1;
	struct hj_hierarchy *h;
	struct hj_target t;
	pid_t helper, init;
	size_t nh, i;
	ssize_t l;
	int fd;

	h = hierarchies(&nh);
	snprintf(name, sizeof(name), "hj-state-%d", (int)getpid());
	init = start_container(CLONE_NEWPID | CLONE_NEWNS, false, &helper);
	for (i = 0; i < nh; i++) {
		char f[PATH_MAX + 96];

		dirs[i][0] = '\0';
		/* the v2 hierarchy and v1 pids: cpuset, say, needs more */
		if (!h[i].v2 && !strstr(h[i].opts, "pids"))
			continue;
		snprintf(dirs[i], sizeof(dirs[i]), "%s/%s", h[i].mnt, name);
		if (mkdir(dirs[i], 0755)) {
			dirs[i][0] = '\0';
			continue;
		}
		move_to(dirs[i], init);
		snprintf(f, sizeof(f), "%.4096s/pids.max", dirs[i]);
		if (pids < 0 && !access(f, F_OK))
			pids = i;
		snprintf(f, sizeof(f), "%.4096s/cgroup.freeze", dirs[i]);
		if (freeze < 0 && h[i].v2 && !access(f, F_OK))
			freeze = i;
	}
	ck_assert_int_eq(hj_container_state(name, &t), 0);
	ck_assert_int_eq(t.pid, init);
	ck_assert_int_ge(t.pidfd, 0);
	/* the check's reads are kept for hj_spawn(), which asks the rest */
	ck_assert(t.checked);
	ck_assert_ptr_nonnull(t.cg);

	if (pids >= 0) {
		char f[PATH_MAX + 96];

		snprintf(f, sizeof(f), "%s/pids.current", dirs[pids]);
		fd = open(f, O_RDONLY | O_CLOEXEC);
		ck_assert_int_ge(fd, 0);
		l = read(fd, cur, sizeof(cur) - 1);
		close(fd);
		ck_assert_int_gt(l, 0);
		cur[l] = '\0';
		cg_write(dirs[pids], "pids.max", cur);
		/* enterable as far as anything can tell before the clone */
		ck_assert_int_eq(hj_target_check_access(&t), 0);
		ck_assert_int_eq(spawn_once(&t), -EAGAIN);
		ck_assert(strstr(hj_strerror(-EAGAIN), "pids.max"));
		ck_assert(!strstr(hj_strerror(-EAGAIN), "frozen"));
		cg_write(dirs[pids], "pids.max", "max");
		ck_assert_int_gt(spawn_once(&t), 0);
	}
	if (freeze >= 0) {
		cg_write(dirs[freeze], "cgroup.freeze", "1");
		usleep(200000);
		ck_assert_int_eq(spawn_once(&t), -EDEADLK);
		hj_target_release(&t);
		ck_assert_int_eq(hj_container_state(name, &t), -EDEADLK);
		/* the init refused is still named, for the log; not pinned */
		ck_assert_int_eq(t.pid, init);
		ck_assert_int_eq(t.pidfd, -1);
		ck_assert(!t.checked);
		ck_assert_ptr_null(t.cg);
		ck_assert(strstr(hj_strerror(-EDEADLK), "frozen"));
		cg_write(dirs[freeze], "cgroup.freeze", "0");
		ck_assert_int_eq(hj_container_state(name, &t), 0);
	}
	hj_target_release(&t);
	stop(helper, init);
	for (i = 0; i < nh; i++)
		if (dirs[i][0])
			rmdir_retry(dirs[i]);
	free(h);
	if (pids < 0)
		fprintf(stderr, "# no pids controller: pids.max not tried\n");
	if (freeze < 0)
		fprintf(stderr, "# no cgroup.freeze: frozen not tried\n");
}
END_TEST

/*
 * hj_strerror(): words for every code hijack.h documents, the same for
 * -errno and errno; anything else is strerror()'s.
 */
START_TEST(strerror_words)
{
	static const int own[] = {
		EPERM,	EBUSY,	    ESRCH,	 EBADF,		  ENOENT,
		EXDEV,	ENOTUNIQ,   E2BIG,	 EDEADLK,	  EAGAIN,
		ENOSYS, EOPNOTSUPP, EMEDIUMTYPE, ENOTRECOVERABLE,
	};
	static const int other[] = { ENOMEM, EINVAL, EACCES, ENAMETOOLONG,
				     EIO,    0,	     99999 };
	char theirs[256];
	size_t i, j;

	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
		const char *w = hj_strerror(-own[i]);

		ck_assert_ptr_nonnull(w);
		ck_assert_msg(*w && strcmp(w, strerror(own[i])),
			      "errno %d has no words of its own", own[i]);
		ck_assert_str_eq(hj_strerror(own[i]), w);
		for (j = 0; j < i; j++)
			ck_assert_str_ne(w, hj_strerror(-own[j]));
	}
	for (i = 0; i < sizeof(other) / sizeof(other[0]); i++) {
		snprintf(theirs, sizeof(theirs), "%s", strerror(other[i]));
		ck_assert_str_eq(hj_strerror(-other[i]), theirs);
	}
	/* the words the front ends' tests read */
	ck_assert_str_eq(hj_strerror(-ESRCH), "no running task");
	ck_assert_str_eq(hj_strerror(-ENOENT), "no such cgroup");
	ck_assert(strstr(hj_strerror(-EDEADLK), "frozen"));
	ck_assert(strstr(hj_strerror(-EAGAIN), "pids.max"));
}
END_TEST

START_TEST(spec_tree_v2)
{
	tree_case(true);
}
END_TEST

START_TEST(spec_tree_v1)
{
	tree_case(false);
}
END_TEST

/* A subtree deeper than the search's bound is refused, not half read. */
START_TEST(spec_tree_bounded)
{
	char name[64], dir[PATH_MAX + 512];
	struct hj_hierarchy *h;
	struct hj_target t;
	pid_t helper, init;
	size_t nh, len;
	int i, d;

	h = hierarchies(&nh);
	snprintf(name, sizeof(name), "hj-deep-%d", (int)getpid());
	i = writable_hierarchy(h, nh, true, name);
	if (i < 0)
		i = writable_hierarchy(h, nh, false, name);
	ck_assert_int_ge(i, 0);
	snprintf(dir, sizeof(dir), "%s/%s", h[i].mnt, name);
	for (d = 0; d < 20; d++) {
		len = strlen(dir);
		snprintf(dir + len, sizeof(dir) - len, "/d");
		ck_assert_int_eq(mkdir(dir, 0755), 0);
	}
	/* deepest: cgroup2 skips the subtrees that are not populated */
	init = start_container(CLONE_NEWPID | CLONE_NEWNS, false, &helper);
	move_to(dir, init);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -E2BIG);
	ck_assert_int_eq(t.pidfd, -1);
	stop(helper, init);
	for (d = 0; d <= 20; d++) {
		rmdir_retry(dir);
		*strrchr(dir, '/') = '\0';
	}
	free(h);
}
END_TEST

/*
 * A cgroup that exists on cgroup2 but holds its tasks on a v1 hierarchy
 * (hybrid machines, v1-only runtimes): the spec falls back to v1.
 */
START_TEST(spec_falls_back_to_v1)
{
	char name[64], v1dir[PATH_MAX + 64], v2dir[PATH_MAX + 64];
	char procs[PATH_MAX + 96], pidstr[16];
	struct hj_hierarchy *h;
	struct hj_target t;
	size_t nh;
	int i1, i2, fd, status;
	pid_t pid, helper;

	h = hierarchies(&nh);
	snprintf(name, sizeof(name), "hj-fallback-%d", (int)getpid());
	i2 = writable_hierarchy(h, nh, true, name);
	i1 = writable_hierarchy(h, nh, false, name);
	if (i1 < 0 || i2 < 0) {
		/* pure v1 or pure v2: nothing to fall back between */
		free(h);
		return;
	}
	snprintf(v2dir, sizeof(v2dir), "%s/%s", h[i2].mnt, name);
	snprintf(v1dir, sizeof(v1dir), "%s/%s", h[i1].mnt, name);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ESRCH);

	pid = start_container(CLONE_NEWPID | CLONE_NEWNS, false, &helper);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", v1dir);
	fd = open(procs, O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	snprintf(pidstr, sizeof(pidstr), "%d\n", (int)pid);
	ck_assert_int_eq(write(fd, pidstr, strlen(pidstr)),
			 (ssize_t)strlen(pidstr));
	close(fd);

	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), 0);
	ck_assert_int_eq(t.pid, pid);
	ck_assert_str_eq(t.cgroup, v1dir);
	hj_target_release(&t);
	/* a leading '/' is the same cgroup */
	snprintf(procs, sizeof(procs), "/%s", name);
	ck_assert_int_eq(hj_target_from_cgroup_spec(procs, &t), 0);
	ck_assert_int_eq(t.pid, pid);
	hj_target_release(&t);

	stop(helper, pid);
	(void)status;
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ESRCH);
	ck_assert_int_eq(t.pidfd, -1);
	rmdir_retry(v1dir);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ESRCH);
	rmdir_retry(v2dir);
	ck_assert_int_eq(hj_target_from_cgroup_spec(name, &t), -ENOENT);
	free(h);
}
END_TEST

/*
 * hj_ns_enter_net(): the pinned init's network namespace and no other
 * one; a target that died is -ESRCH and leaves the caller's network as
 * it was.
 */
START_TEST(net_entered_by_pinned_init)
{
	struct stat net0, mnt0, theirs, now;
	unsigned long long ino = 0;
	struct hj_target t;
	pid_t helper, init;
	char path[64];
	int home;

	home = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(home, 0);
	ck_assert_int_eq(stat("/proc/self/ns/net", &net0), 0);
	ck_assert_int_eq(stat("/proc/self/ns/mnt", &mnt0), 0);
	init = start_container(CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWNET, false,
			       &helper);
	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)init);
	ck_assert_int_eq(stat(path, &theirs), 0);
	ck_assert(theirs.st_ino != net0.st_ino);
	ck_assert_int_eq(hj_target_from_pid(init, &t), 0);
	ck_assert_int_eq(hj_ns_enter_net(&t, &ino), 0);
	ck_assert_int_eq(stat("/proc/self/ns/net", &now), 0);
	ck_assert(now.st_ino == theirs.st_ino && now.st_dev == theirs.st_dev);
	ck_assert(ino == (unsigned long long)theirs.st_ino);
	ck_assert_int_eq(stat("/proc/self/ns/mnt", &now), 0);
	ck_assert(now.st_ino == mnt0.st_ino);
	ck_assert_int_eq(setns(home, CLONE_NEWNET), 0);

	/* dead: its namespace is not entered, ours stays */
	stop(helper, init);
	ino = 0;
	ck_assert_int_eq(hj_ns_enter_net(&t, &ino), -ESRCH);
	ck_assert(ino == 0);
	ck_assert_int_eq(stat("/proc/self/ns/net", &now), 0);
	ck_assert(now.st_ino == net0.st_ino);
	hj_target_release(&t);
	close(home);
}
END_TEST

/* A child that unshares @first, then @then, and waits; killed with us. */
static pid_t unshared(int first, int then)
{
	int p[2];
	pid_t pid;
	char x;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (unshare(first) || (then && unshare(then)) ||
		    write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &x, 1), 1);
	close(p[0]);
	return pid;
}

/*
 * hj_ns_net_in_userns(): a network namespace made with the user
 * namespace (as rootless runtimes make them) is the user namespace's
 * owner's to enter; one made before it, by root, is not (-EPERM).
 */
START_TEST(net_in_userns)
{
	static const struct {
		int first, then, want;
	} cases[] = {
		{ CLONE_NEWUSER | CLONE_NEWNET, 0, 0 },
		{ CLONE_NEWUSER, CLONE_NEWNET, 0 },
		{ CLONE_NEWNET, CLONE_NEWUSER, -EPERM },
		{ CLONE_NEWNET, 0, 0 },
	};
	struct hj_target t;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid_t pid = unshared(cases[i].first, cases[i].then);

		ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
		ck_assert_msg(hj_ns_net_in_userns(&t) == cases[i].want,
			      "case %zu: %d", i, hj_ns_net_in_userns(&t));
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		ck_assert_int_eq(hj_ns_net_in_userns(&t), -ESRCH);
		hj_target_release(&t);
	}
}
END_TEST

/* A socket listening at @dir/@name; its fd. */
static int listen_at(const char *dir, const char *name, char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", dir, name);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	if (path)
		strcpy(path, sa.sun_path);
	return fd;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return -errno;
	}
	return fd;
}

/*
 * hj_agent_source(): SSH_AUTH_SOCK is trusted only for a socket the
 * holder listens on, bound at that very path, in a directory of the
 * user's that nobody else may enter.
 */
START_TEST(agent_source_is_the_holders)
{
	char dir[] = "/tmp/hj-agent-XXXXXX", path[108], name[64], p[160];
	char link[] = "/tmp/hj-agent-link-XXXXXX";
	int lfd, fd = -1;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	lfd = listen_at(dir, "agent.1", path);
	ck_assert_int_eq(
		hj_agent_source(path, 0, getpid(), &fd, name, sizeof(name)), 0);
	ck_assert_str_eq(name, "agent.1");
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* held by another process: the check runner holds nothing here */
	ck_assert_int_eq(hj_agent_source(path, 0, getppid(), &fd, name,
					 sizeof(name)),
			 -EPERM);
	ck_assert_int_eq(fd, -1);
	/* another user's directory */
	ck_assert_int_eq(hj_agent_source(path, 1, getpid(), &fd, name,
					 sizeof(name)),
			 -EPERM);
	/* a directory others may enter */
	ck_assert_int_eq(chmod(dir, 0711), 0);
	ck_assert_int_eq(hj_agent_source(path, 0, getpid(), &fd, name,
					 sizeof(name)),
			 -EPERM);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	/* the same socket by another path: a symbolic link */
	ck_assert_ptr_nonnull(mktemp(link));
	ck_assert_int_eq(symlink(dir, link), 0);
	snprintf(p, sizeof(p), "%s/agent.1", link);
	ck_assert_int_eq(hj_agent_source(p, 0, getpid(), &fd, name,
					 sizeof(name)),
			 -EPERM);
	unlink(link);
	/* nothing bound there; not a path at all */
	snprintf(p, sizeof(p), "%s/agent.2", dir);
	ck_assert_int_eq(hj_agent_source(p, 0, getpid(), &fd, name,
					 sizeof(name)),
			 -EPERM);
	ck_assert_int_eq(hj_agent_source("agent.1", 0, getpid(), &fd, name,
					 sizeof(name)),
			 -EINVAL);
	snprintf(p, sizeof(p), "%s/../%s/agent.1", dir, dir + 5);
	ck_assert_int_eq(hj_agent_source(p, 0, getpid(), &fd, name,
					 sizeof(name)),
			 -EINVAL);
	close(lfd);
	unlink(path);
	rmdir(dir);
}
END_TEST

/*
 * hj_agent_listen() and hj_agent_relay(): a connection from the
 * listener's uid reaches the socket in the directory, both ways; one
 * from another uid is hung up on and reaches nothing.
 */
START_TEST(agent_relay_answers_the_listeners_uid)
{
	char up_dir[] = "/tmp/hj-agent-up-XXXXXX", path[108], buf[8];
	struct pollfd pfd;
	int up, lfd, dirfd, c, a, status;
	pid_t relay, other;

	ck_assert_ptr_nonnull(mkdtemp(up_dir));
	up = listen_at(up_dir, "agent.7", NULL);
	ck_assert_int_eq(hj_agent_listen("/tmp", path, sizeof(path), &lfd), 0);
	ck_assert(!strncmp(path, "/tmp/hijack-agent-", 18));
	dirfd = open(up_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ge(dirfd, 0);
	relay = fork();
	ck_assert_int_ge(relay, 0);
	if (relay == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		_exit(-hj_agent_relay(lfd, dirfd, "agent.7"));
	}
	/* ours: through to the socket in the directory, and back */
	c = connect_to(path);
	ck_assert_int_ge(c, 0);
	ck_assert_int_eq(write(c, "ping", 4), 4);
	a = accept4(up, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(read(a, buf, sizeof(buf)), 4);
	ck_assert(!memcmp(buf, "ping", 4));
	ck_assert_int_eq(write(a, "pong", 4), 4);
	ck_assert_int_eq(read(c, buf, sizeof(buf)), 4);
	ck_assert(!memcmp(buf, "pong", 4));
	close(a);
	ck_assert_int_eq(read(c, buf, sizeof(buf)), 0);
	close(c);

	/* uid 1, let into the directory: hung up on, nothing upstream */
	ck_assert_int_eq(chmod(path, 0777), 0);
	*strrchr(path, '/') = '\0';
	ck_assert_int_eq(chmod(path, 0755), 0);
	strcat(path, "/agent");
	other = fork();
	ck_assert_int_ge(other, 0);
	if (other == 0) {
		signal(SIGPIPE, SIG_IGN);
		if (setresgid(1, 1, 1) || setresuid(1, 1, 1))
			_exit(10);
		c = connect_to(path);
		if (c < 0)
			_exit(11);
		(void)!write(c, "ping", 4);
		/* end of file, or reset with our request unread */
		_exit(read(c, buf, sizeof(buf)) <= 0 ? 0 : 12);
	}
	ck_assert_int_eq(waitpid(other, &status, 0), other);
	ck_assert_int_eq(WEXITSTATUS(status), 0);
	pfd.fd = up;
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 200), 0);

	kill(relay, SIGKILL);
	waitpid(relay, NULL, 0);
	close(lfd);
	close(dirfd);
	close(up);
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
	snprintf(path, sizeof(path), "%s/agent.7", up_dir);
	unlink(path);
	rmdir(up_dir);
}
END_TEST

/* /proc/self/fdinfo fields: the mount id agrees with statx's */
START_TEST(fdinfo_fields)
{
	struct statx stx;
	long long v = 0;
	int fd = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(hj_fdinfo_field(fd, "mnt_id", &v), 0);
	if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &stx) == 0 &&
	    (stx.stx_mask & STATX_MNT_ID))
		ck_assert_int_eq(v, (long long)stx.stx_mnt_id);
	ck_assert_int_gt(v, 0);
	/* no such line in a non-pidfd's fdinfo; no fdinfo for a closed fd */
	ck_assert_int_eq(hj_fdinfo_field(fd, "Pid", &v), -ENOENT);
	close(fd);
	ck_assert_int_eq(hj_fdinfo_field(fd, "mnt_id", &v), -ENOENT);
}
END_TEST

/* the security fields of /proc/PID/status */
START_TEST(status_sec_parses_fields)
{
	static const char buf[] =
		"Name:\tsleep\nUid:\t0\t1\t2\t3\nGid:\t4\t5\t6\t7\n"
		"Groups:\t10 20 \nCapInh:\t0000000000000000\n"
		"CapPrm:\t000001ffffffffff\nCapEff:\t00000000a80425fb\n"
		"CapBnd:\t00000000a80425fb\nCapAmb:\t0000000000000001\n"
		"NoNewPrivs:\t1\nSeccomp:\t2\nSeccomp_filters:\t3\n";
	struct hj_proc_sec sec;
	gid_t g[4];
	size_t n;

	ck_assert_int_eq(hj_parse_status_sec(S(buf), &sec), 0);
	ck_assert_uint_eq(sec.uid[0], 0);
	ck_assert_uint_eq(sec.uid[3], 3);
	ck_assert_uint_eq(sec.gid[1], 5);
	ck_assert_uint_eq(sec.cap[HJ_CAP_PRM], 0x1ffffffffffULL);
	ck_assert_uint_eq(sec.cap[HJ_CAP_BND], 0xa80425fbULL);
	ck_assert_uint_eq(sec.cap[HJ_CAP_AMB], 1);
	ck_assert_int_eq(sec.no_new_privs, 1);
	ck_assert_int_eq(sec.seccomp, 2);
	ck_assert_int_eq(sec.seccomp_filters, 3);
	ck_assert_int_eq(hj_parse_groups(sec.groups, sec.groups_len, g, 4, &n),
			 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(g[1], 20);
	ck_assert_int_eq(hj_parse_groups(sec.groups, sec.groups_len, g, 1, &n),
			 -E2BIG);
	ck_assert_int_eq(hj_parse_groups(S("1 x"), g, 4, &n), -EINVAL);
	ck_assert_int_eq(hj_parse_groups("", 0, g, 4, &n), 0);
	ck_assert_uint_eq(n, 0);
	/* a missing field, three ids, a bad hex digit */
	ck_assert_int_eq(hj_parse_status_sec(S("Uid:\t0\t0\t0\t0\n"), &sec),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_status_sec(buf, strstr(buf, "Seccomp_") - buf,
					     &sec),
			 0);
	ck_assert_int_eq(sec.seccomp_filters, -1);
	/* a kernel without CONFIG_SECCOMP has no Seccomp line: mode 0 */
	ck_assert_int_eq(hj_parse_status_sec(buf, strstr(buf, "Seccomp:") - buf,
					     &sec),
			 0);
	ck_assert_int_eq(sec.seccomp, 0);
	ck_assert_int_eq(sec.no_new_privs, 1);
	/* a mode beyond 2 (found by fuzz_proc: a bound under 9 wrapped) */
	{
		char bad[sizeof(buf)];
		char *m;

		memcpy(bad, buf, sizeof(buf));
		m = strstr(bad, "Seccomp:\t2");
		m[strlen("Seccomp:\t")] = '3';
		ck_assert_int_eq(hj_parse_status_sec(bad, sizeof(buf) - 1,
						     &sec),
				 -EINVAL);
	}
}
END_TEST

/* docker's default bounding set, as tests/helpers/hj-confined sets it */
#define DOCKER_CAPBND 0xa80425fbULL

/* Start hj-confined with @args and wait until it is confined. */
static pid_t start_confined(const char *const *args, int mode)
{
	const char *top = getenv("top_builddir");
	char path[PATH_MAX], buf[4096];
	struct hj_proc_sec sec;
	const char *argv[8];
	size_t len, i;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/tests/helpers/hj-confined",
		 top ? top : ".");
	argv[0] = path;
	for (i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execv(path, (char *const *)argv);
		_exit(127);
	}
	for (i = 0; i < 200; i++) {
		if (!hj_proc_read(pid, "status", buf, sizeof(buf), &len) &&
		    !hj_parse_status_sec(buf, len, &sec) &&
		    sec.cap[HJ_CAP_BND] == DOCKER_CAPBND && sec.seccomp == mode)
			return pid;
		usleep(10000);
	}
	ck_abort_msg("hj-confined did not start");
	return -1;
}

static void stop_confined(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
}

/*
 * The target's state letter and tracer, from /proc, once it is asleep
 * again (right after a detach it may run for a moment; stopped, it
 * would stay 't').
 */
static char state_of(pid_t pid, pid_t *tracer)
{
	struct hj_proc_status st;
	char buf[4096];
	size_t len;
	int i;

	for (i = 0; i < 100; i++) {
		ck_assert_int_eq(
			hj_proc_read(pid, "status", buf, sizeof(buf), &len), 0);
		ck_assert_int_eq(hj_parse_status(buf, len, &st), 0);
		if (st.state == 'S')
			break;
		usleep(10000);
	}
	*tracer = st.tracer;
	return st.state;
}

/*
 * In a child: confine as a root caller does (hijack(1)), then the
 * getpriority() errnos the filters give, or a step that failed.
 */
enum {
	STEP_EARLY = 1,
	STEP_CAPS,
	STEP_LATE,
	STEP_VERIFY,
	STEP_FILTER1,
	STEP_FILTER2,
	STEP_ORDER,
	STEP_HOST
};
static int confined_child(const struct hj_confinement *c, bool late,
			  int nfilters)
{
	struct hj_creds want = { .uid = 0, .gid = 0 };
	int k;

	if (hj_confine_early(c))
		return STEP_EARLY;
	if (hj_confine_caps(c))
		return STEP_CAPS;
	if (late && hj_confine_late(c))
		return STEP_LATE;
	if (hj_confine_verify(c, &want))
		return STEP_VERIFY;
	for (k = 1; k <= nfilters; k++) {
		errno = 0;
		getpriority(1000 + k, 0);
		if (errno != 40 + k)
			return STEP_FILTER1 + k - 1;
	}
	/* the newest filter answers first, if they were loaded in order */
	errno = 0;
	getpriority(1000, 0);
	if (nfilters && errno != 40 + nfilters)
		return STEP_ORDER;
	/* nothing else is filtered */
	errno = 0;
	if (getpriority(PRIO_PROCESS, 0) == -1 && errno)
		return STEP_HOST;
	return 0;
}

static int run_confined(const struct hj_confinement *c, bool late, int nfilters)
{
	int status;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(confined_child(c, late, nfilters));
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status), "child status %d", status);
	return WEXITSTATUS(status);
}

/* An init with no_new_privs and two filters, the newest with LOG. */
START_TEST(confinement_read_and_applied)
{
	static const char *const args[] = { "-n", "-f", "2", "-l", NULL };
	struct hj_confinement c;
	struct hj_target t;
	pid_t pid = start_confined(args, 2), tracer;

	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(hj_confinement_read(&t, &c), 0);
	ck_assert_uint_eq(c.capbnd, DOCKER_CAPBND);
	ck_assert(c.no_new_privs);
	ck_assert_int_eq(c.seccomp_mode, 2);
	ck_assert_uint_eq(c.nfilters, 2);
	ck_assert_uint_eq(c.self_filters, 0);
	ck_assert_uint_eq(c.filters[0].flags, SECCOMP_FILTER_FLAG_LOG);
	ck_assert_uint_eq(c.filters[1].flags, 0);
	ck_assert_uint_eq(c.filters[0].len, 9);
	ck_assert_int_ge(c.procfd, 0);
	/* detached, running on: not stopped, not traced */
	ck_assert_int_eq(state_of(pid, &tracer), 'S');
	ck_assert_int_eq(tracer, 0);

	ck_assert_int_eq(run_confined(&c, true, 2), 0);
	/* without the late step, no_new_privs and the filters are missing */
	ck_assert_int_eq(run_confined(&c, false, 2), STEP_VERIFY);
	hj_confinement_free(&c);
	ck_assert_int_eq(c.procfd, -1);
	hj_target_release(&t);
	stop_confined(pid);
}
END_TEST

/* Without no_new_privs the filter is loaded early, while privileged. */
START_TEST(confinement_filter_without_nnp)
{
	static const char *const args[] = { "-f", "1", NULL };
	struct hj_confinement c;
	struct hj_target t;
	pid_t pid = start_confined(args, 2);

	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(hj_confinement_read(&t, &c), 0);
	ck_assert(!c.no_new_privs);
	ck_assert_uint_eq(c.nfilters, 1);
	ck_assert_int_eq(run_confined(&c, false, 1), 0);
	hj_confinement_free(&c);
	hj_target_release(&t);
	stop_confined(pid);
}
END_TEST

/* Strict mode cannot be given to a process that must exec: refused. */
START_TEST(confinement_strict_refused)
{
	static const char *const args[] = { "-S", NULL };
	struct hj_confinement c;
	struct hj_target t;
	pid_t pid = start_confined(args, 1), tracer;

	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(hj_confinement_read(&t, &c), -EOPNOTSUPP);
	ck_assert_int_eq(c.seccomp_mode, 1);
	ck_assert_int_eq(c.procfd, -1);
	ck_assert_int_eq(state_of(pid, &tracer), 'S');
	hj_target_release(&t);
	stop_confined(pid);
}
END_TEST

/* A traced init is the seed's -EBUSY, and is left as its tracer has it. */
START_TEST(confinement_traced_is_busy)
{
	static const char *const args[] = { "-n", "-f", "1", NULL };
	struct hj_confinement c;
	struct hj_target t;
	pid_t pid = start_confined(args, 2), tracer;

	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(ptrace(PTRACE_SEIZE, pid, NULL, NULL), 0);
	ck_assert_int_eq(hj_confinement_read(&t, &c), -EBUSY);
	ck_assert_int_eq(state_of(pid, &tracer), 'S');
	ck_assert_int_eq(tracer, getpid());
	hj_target_release(&t);
	stop_confined(pid);
}
END_TEST

/* An unconfined target: nothing to copy, and the caller passes verify. */
START_TEST(confinement_of_unconfined)
{
	struct hj_confinement c;
	struct hj_target t;
	pid_t pid = start_sleeper();

	ck_assert_int_eq(hj_target_from_pid(pid, &t), 0);
	ck_assert_int_eq(hj_confinement_read(&t, &c), 0);
	ck_assert_int_eq(c.seccomp_mode, 0);
	ck_assert_uint_eq(c.nfilters, 0);
	ck_assert_int_eq(run_confined(&c, true, 0), 0);
	hj_confinement_free(&c);
	hj_target_release(&t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}
END_TEST

/*
 * The bounding set is cut after one read of our status, not probed
 * capability by capability: in a child where PR_CAPBSET_READ fails (a
 * filter answers EIO), the init's set is still applied exactly.  With
 * @userns, the child enters a new user namespace after the confinement
 * was read, which gives it the full bounding set again: what it had
 * dropped before (CAP_SYS_TIME, which the init lacks too) must go again.
 */
static int confine_without_capbset_read(pid_t init, bool userns)
{
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_CAPBSET_READ, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EIO),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(insns) / sizeof(insns[0]), insns };
	struct hj_creds want = { .uid = 0, .gid = 0 };
	struct hj_confinement c;
	struct hj_target t;
	struct hj_proc_sec sec;
	char buf[4096];
	size_t len;

	if (prctl(PR_CAPBSET_DROP, CAP_SYS_TIME, 0, 0, 0))
		return 10;
	if (hj_target_from_pid(init, &t) || hj_confinement_read(&t, &c))
		return 11;
	if (c.capbnd != DOCKER_CAPBND || (c.capbnd & (1ULL << CAP_SYS_TIME)))
		return 12;
	if (userns && unshare(CLONE_NEWUSER))
		return 13;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return 1;
	if (prctl(PR_CAPBSET_READ, 0, 0, 0, 0) != -1 || errno != EIO)
		return 2;
	if (hj_confine_early(&c))
		return 3;
	/* unmapped in a new user namespace, our ids read as the overflow id */
	if (!userns && (hj_confine_caps(&c) || hj_confine_verify(&c, &want)))
		return 4;
	if (hj_proc_read(getpid(), "status", buf, sizeof(buf), &len) ||
	    hj_parse_status_sec(buf, len, &sec))
		return 5;
	return sec.cap[HJ_CAP_BND] == DOCKER_CAPBND ? 0 : 6;
}

START_TEST(confinement_caps_cut_without_probing)
{
	static const char *const args[] = { NULL };
	pid_t pid = start_confined(args, 0), child;
	int status, userns;

	for (userns = 0; userns <= 1; userns++) {
		child = fork();
		ck_assert_int_ge(child, 0);
		if (child == 0)
			_exit(confine_without_capbset_read(pid, userns));
		ck_assert_int_eq(waitpid(child, &status, 0), child);
		ck_assert_msg(WIFEXITED(status), "child status %d", status);
		ck_assert_msg(WEXITSTATUS(status) == 0, "userns %d: step %d",
			      userns, WEXITSTATUS(status));
	}
	stop_confined(pid);
}
END_TEST

START_TEST(exit_codes)
{
	ck_assert_int_eq(hj_exit_code(7 << 8), 7);
	ck_assert_int_eq(hj_exit_code(SIGKILL), 128 + SIGKILL);
}
END_TEST

/* the reason of a deny record, one table for the module and the shell */
START_TEST(audit_reasons)
{
	ck_assert_str_eq(hj_audit_reason(-ENOENT, "x"), "not-running");
	ck_assert_str_eq(hj_audit_reason(-ESRCH, "x"), "not-running");
	ck_assert_str_eq(hj_audit_reason(-EXDEV, "x"), "not-a-container");
	ck_assert_str_eq(hj_audit_reason(-ENOTUNIQ, "x"), "ambiguous");
	ck_assert_str_eq(hj_audit_reason(-EDEADLK, "x"), "frozen");
	ck_assert_str_eq(hj_audit_reason(-EBUSY, "x"), "traced");
	ck_assert_str_eq(hj_audit_reason(-ETIMEDOUT, "x"), "timeout");
	ck_assert_str_eq(hj_audit_reason(-EPERM, "target"), "target");
	ck_assert_str_eq(hj_audit_reason(-EIO, "confinement"), "confinement");
}
END_TEST

/* a child of ours that writes @what to @fd (if any), then does @then */
enum child_then { THEN_EXIT0, THEN_EXIT3, THEN_STOP, THEN_SLEEP };

/*
 * Keep a CPU busy for @ms of wall time, sharing it with a second spinner
 * on the same CPU: half of that time running, half waiting to run.
 */
static void spin_shared(long long ms)
{
	long long end = hj_now_ms() + ms;
	int cpu = sched_getcpu();
	cpu_set_t one;
	pid_t hog;

	CPU_ZERO(&one);
	CPU_SET(cpu < 0 ? 0 : cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
	hog = fork();
	if (hog == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(0);
		for (;;)
			;
	}
	while (hj_now_ms() < end)
		;
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
}

static pid_t helper_child(int p[2], const char *what, size_t n,
			  enum child_then then)
{
	pid_t pid;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		if (n && hj_write_full(p[1], what, n))
			_exit(9);
		if (then == THEN_STOP || then == THEN_SLEEP)
			close(p[1]);
		if (then == THEN_STOP)
			raise(SIGSTOP);
		if (then == THEN_SLEEP)
			pause();
		_exit(then == THEN_EXIT3 ? 3 : 0);
	}
	close(p[1]);
	return pid;
}

/* @pid was reaped: no such child any more */
static bool reaped(pid_t pid)
{
	return waitpid(pid, NULL, WNOHANG) < 0 && errno == ECHILD;
}

START_TEST(child_report_bounded)
{
	char rep[4] = "", big[64];
	long long t0;
	pid_t pid;
	int p[2];

	pid = helper_child(p, "abcd", 4, THEN_EXIT0);
	ck_assert_int_eq(hj_child_report(pid, p[0], rep, 4, 5000), 0);
	ck_assert_int_eq(memcmp(rep, "abcd", 4), 0);
	ck_assert(reaped(pid));
	close(p[0]);

	pid = helper_child(p, "abcd", 4, THEN_EXIT3);
	ck_assert_int_eq(hj_child_report(pid, p[0], rep, 4, 5000), -EPIPE);
	ck_assert(reaped(pid));
	close(p[0]);

	pid = helper_child(p, "ab", 2, THEN_EXIT0);
	ck_assert_int_eq(hj_child_report(pid, p[0], rep, 4, 5000), -EPIPE);
	ck_assert(reaped(pid));
	close(p[0]);

	/* silent: killed at the deadline */
	pid = helper_child(p, "", 0, THEN_SLEEP);
	t0 = hj_now_ms();
	ck_assert_int_eq(hj_child_report(pid, p[0], rep, 4, 300), -ETIMEDOUT);
	ck_assert_int_lt(hj_now_ms() - t0, 300 + HJ_KILL_GRACE_MS + 500);
	ck_assert(reaped(pid));
	close(p[0]);

	/* reported, then stopped (its user's SIGSTOP): not waited for */
	pid = helper_child(p, "abcd", 4, THEN_STOP);
	t0 = hj_now_ms();
	ck_assert_int_eq(hj_child_report(pid, p[0], rep, 4, 300), -ETIMEDOUT);
	ck_assert_int_lt(hj_now_ms() - t0, 300 + HJ_KILL_GRACE_MS + 500);
	ck_assert(reaped(pid));
	close(p[0]);

	/* hj_child_output: all of it, the status, NUL-terminated */
	{
		size_t len = 99;
		int st = -1, r;

		pid = helper_child(p, "hello", 5, THEN_EXIT3);
		r = hj_child_output(pid, p[0], big, sizeof(big), 5000, &len,
				    &st);
		ck_assert_int_eq(r, 0);
		ck_assert_uint_eq(len, 5);
		ck_assert_str_eq(big, "hello");
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 3);
		ck_assert(reaped(pid));
		close(p[0]);

		pid = helper_child(p, "0123456789", 10, THEN_SLEEP);
		r = hj_child_output(pid, p[0], big, 8, 5000, &len, &st);
		ck_assert_int_eq(r, -E2BIG);
		ck_assert_uint_eq(len, 7);
		ck_assert_str_eq(big, "0123456");
		ck_assert(reaped(pid));
		close(p[0]);

		/* closed its end, then stopped: the deadline still holds */
		pid = helper_child(p, "x", 1, THEN_STOP);
		t0 = hj_now_ms();
		r = hj_child_output(pid, p[0], big, sizeof(big), 300, &len,
				    &st);
		ck_assert_int_eq(r, -ETIMEDOUT);
		ck_assert_int_lt(hj_now_ms() - t0, 1800);
		ck_assert_str_eq(big, "x");
		ck_assert(reaped(pid));
		close(p[0]);
	}
}
END_TEST

/*
 * Busy for 900 ms before it reports, with a 300 ms deadline: the deadline
 * counts the child's time asleep, and a child running or waiting for a
 * CPU (a loaded machine) is not asleep.
 */
START_TEST(child_report_busy_not_late)
{
	char rep[4] = "";
	long long t0;
	pid_t pid;
	int p[2];

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		close(p[0]);
		spin_shared(900);
		_exit(hj_write_full(p[1], "spun", 4) ? 9 : 0);
	}
	close(p[1]);
	t0 = hj_now_ms();
	ck_assert_int_eq(hj_child_report(pid, p[0], rep, 4, 300), 0);
	ck_assert_int_ge(hj_now_ms() - t0, 800);
	ck_assert_int_eq(memcmp(rep, "spun", 4), 0);
	ck_assert(reaped(pid));
	close(p[0]);
}
END_TEST

static Suite *lib_suite(bool root)
{
	Suite *s = suite_create("libhijack");
	TCase *parse = tcase_create("parsers");
	TCase *cgroup = tcase_create("cgroups");
	TCase *rcgroup = tcase_create("root-cgroups");
	TCase *target = tcase_create("targets");
	TCase *rtarget = tcase_create("root-targets");

	tcase_add_test(parse, status_parses_fields);
	tcase_add_test(parse, status_rejects_garbage);
	tcase_add_test(parse, large_tables);
	tcase_add_test(parse, stat_starttime_after_odd_comm);
	tcase_add_test(parse, pid_list_dedupes_and_bounds);
	tcase_add_test(parse, id_map_both_ways);
	tcase_add_test(parse, mountinfo_hybrid);
	tcase_add_test(parse, controller_hierarchy);
	tcase_add_test(parse, proc_cgroup_maps_to_hierarchies);
	tcase_add_test(parse, proc_cgroup_colon_at_end);
	tcase_add_test(parse, mountinfo_nul_in_options);
	tcase_add_test(parse, cgroup_path_check);
	tcase_add_test(parse, clone_flags_validated);
	tcase_add_test(parse, exit_codes);
	tcase_add_test(parse, audit_reasons);
	tcase_add_test(parse, fdinfo_fields);
	tcase_add_test(parse, status_sec_parses_fields);
	tcase_add_test(parse, strerror_words);
	tcase_add_test(parse, escape_controls);
	tcase_add_test(parse, child_report_bounded);
	tcase_add_test(parse, child_report_busy_not_late);
	suite_add_tcase(s, parse);
	tcase_add_test(cgroup, not_a_cgroup_file_is_ebadf);
	tcase_add_test(cgroup, spec_refuses_escapes);
	tcase_add_test(cgroup, hierarchies_thread_safe);
	suite_add_tcase(s, cgroup);
	/* they write cgroups, mount and clone new namespaces */
	tap_add_if(s, rcgroup, "root-cgroups", root, "needs root",
		   cgroup_walk_matches_openat2, hierarchies_large_mountinfo);
	/* valgrind 3.19 has no pidfd_open: tests/valgrind.sh leaves these */
	tcase_set_tags(target, "pidfd");
	tcase_add_test(target, pid_target_pins_and_sees_death);
	tcase_add_test(target, zombie_is_not_a_target);
	tcase_add_test(target, pidfd_target);
	suite_add_tcase(s, target);
	tcase_set_tags(rtarget, "pidfd");
	tap_add_if(s, rtarget, "root-targets", root, "needs root",
		   spawn_rejects_flags_before_anything,
		   confinement_read_and_applied, confinement_filter_without_nnp,
		   confinement_strict_refused, confinement_traced_is_busy,
		   confinement_of_unconfined,
		   confinement_caps_cut_without_probing, spec_falls_back_to_v1,
		   spec_tree_v2, spec_tree_v1, spec_tree_bounded,
		   state_pids_max_and_frozen, net_entered_by_pinned_init,
		   net_in_userns, agent_source_is_the_holders,
		   agent_relay_answers_the_listeners_uid);
	return s;
}

int main(void)
{
	bool root = geteuid() == 0;
	SRunner *sr = srunner_create(lib_suite(root));
	int failed;

	failed = tap_run(sr, CK_NORMAL);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
