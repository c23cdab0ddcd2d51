// SPDX-License-Identifier: GPL-2.0-or-later
/* Unit tests of libhijack: parsers, target selection, flags, errors. */
#include "config.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hijack.h"
#include "util.h"

#define S(x) x, sizeof(x) - 1

START_TEST(status_parses_fields)
{
	static const char buf[] = "Name:\tsleep\nUmask:\t0022\nState:\tS (sleeping)\n"
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

START_TEST(status_rejects_garbage)
{
	struct hj_proc_status st;

	ck_assert_int_eq(hj_parse_status(S("State:\tR\n"), &st), -EINVAL);
	ck_assert_int_eq(hj_parse_status(S("State:\tR\nTgid:\tx\n"), &st),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_status(S("State:\tR\nTgid:\t99999999999\n"
					   "TracerPid:\t0\nUid:\t0\t0\nNSpid:\t1\n"),
					 &st),
			 -EINVAL);
	ck_assert_int_eq(hj_parse_status(S("State:\tR\nTgid:\t1\nTracerPid:\t0\n"
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

	ck_assert_int_eq(hj_parse_pid_list(S("10\n11\n10\n\n12\n"), pids, 4, &n),
			 0);
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
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD | 0x00040000 /* SYSVSEM */),
			 -EINVAL);
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD | 0x00000100 /* VM */),
			 -EINVAL);
	ck_assert_int_eq(hj_check_clone_flags(SIGCHLD | 0x20000000 /* NEWPID */),
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

START_TEST(exit_codes)
{
	ck_assert_int_eq(hj_exit_code(7 << 8), 7);
	ck_assert_int_eq(hj_exit_code(SIGKILL), 128 + SIGKILL);
}
END_TEST

static Suite *lib_suite(void)
{
	Suite *s = suite_create("libhijack");
	TCase *parse = tcase_create("parsers");
	TCase *target = tcase_create("targets");

	tcase_add_test(parse, status_parses_fields);
	tcase_add_test(parse, status_rejects_garbage);
	tcase_add_test(parse, stat_starttime_after_odd_comm);
	tcase_add_test(parse, pid_list_dedupes_and_bounds);
	tcase_add_test(parse, mountinfo_hybrid);
	tcase_add_test(parse, proc_cgroup_maps_to_hierarchies);
	tcase_add_test(parse, proc_cgroup_colon_at_end);
	tcase_add_test(parse, mountinfo_nul_in_options);
	tcase_add_test(parse, cgroup_path_check);
	tcase_add_test(parse, clone_flags_validated);
	tcase_add_test(parse, exit_codes);
	suite_add_tcase(s, parse);
	tcase_add_test(target, not_a_cgroup_file_is_ebadf);
	tcase_add_test(target, spec_refuses_escapes);
	tcase_add_test(target, pid_target_pins_and_sees_death);
	tcase_add_test(target, zombie_is_not_a_target);
	tcase_add_test(target, spawn_rejects_flags_before_anything);
	tcase_add_test(target, pidfd_target);
	suite_add_tcase(s, target);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(lib_suite());
	int failed;

	srunner_set_tap(sr, "/dev/stdout");
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
