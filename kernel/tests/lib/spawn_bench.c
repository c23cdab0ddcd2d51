// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The library's two backends side by side in the guest: hj_spawn() with
 * HJ_BACKEND_NATIVE (sys_hijack) against HJ_BACKEND_STOCK (setns on the
 * target's namespaces, clone3 into its cgroup2 cgroup, the v1 joins), with
 * plain fork() as the floor.  The target is resolved and checked once, as
 * a login does (hj_target_check_access()); each round then creates one
 * child each way, in a rotating order, and reaps it.  The child either
 * _exit()s at once ("entry": what the backend costs) or execs /bin/true
 * ("entry+exec": the same command, as `hijack -b` runs it).  Not a test:
 * under TCG on a shared host only the ratios mean anything.
 *
 *	hj-spawn-bench PID [ROUNDS]
 *
 * prints two BENCH lines per variant (none with HIJACK_BENCH=0) and
 * exits 1 if a backend failed or another backend than the one asked for
 * was used.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hijack.h"

enum way { FORK, NATIVE, STOCK, NWAYS };

static const char *const names[NWAYS] = { "fork", "native", "stock" };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* one child by @way; its time from before the fork to after the reap */
static int one(struct hj_target *t, enum way way, int exec, double *sum)
{
	struct hj_spawn_opts o = {
		.clone_flags = SIGCHLD,
		.backend = way == NATIVE ? HJ_BACKEND_NATIVE : HJ_BACKEND_STOCK,
	};
	struct hj_spawn_info info;
	double t0 = now();
	int st;
	pid_t pid;

	if (way == FORK) {
		pid = fork();
		if (pid < 0)
			pid = -errno;
	} else {
		pid = hj_spawn(t, &o, &info);
	}
	if (pid == 0) {
		if (exec)
			execl("/bin/true", "true", (char *)NULL);
		_exit(exec ? 127 : 0);
	}
	if (pid < 0) {
		fprintf(stderr, "hj-spawn-bench: %s: %s\n", names[way],
			strerror((int)-pid));
		return -1;
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "hj-spawn-bench: %s: child failed\n",
			names[way]);
		return -1;
	}
	*sum += now() - t0;
	if (way != FORK && info.backend != o.backend) {
		fprintf(stderr,
			"hj-spawn-bench: %s: another backend was used\n",
			names[way]);
		return -1;
	}
	return 0;
}

/* HIJACK_BENCH=0 (the debug guest): the children are checked, no times */
static int quiet;

static int variant(struct hj_target *t, int rounds, int exec)
{
	const char *what = exec ? "entry+exec" : "entry";
	double sum[NWAYS] = { 0 }, us[NWAYS], over = 0;
	int r, i;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < NWAYS; i++)
			if (one(t, (enum way)((r + i) % NWAYS), exec,
				&sum[(r + i) % NWAYS]))
				return -1;
	if (quiet)
		return 0;
	for (i = 0; i < NWAYS; i++)
		us[i] = sum[i] * 1e6 / rounds;
	if (us[STOCK] > us[FORK])
		over = (us[NATIVE] - us[FORK]) / (us[STOCK] - us[FORK]);
	printf("BENCH lib %s, mean of %d: fork %.0f us, hj_spawn native %.0f us, stock %.0f us\n",
	       what, rounds, us[FORK], us[NATIVE], us[STOCK]);
	printf("BENCH lib %s: native/stock = %.2f, over fork: native/stock = %.2f\n",
	       what, us[NATIVE] / us[STOCK], over);
	fflush(stdout);
	return 0;
}

int main(int argc, char **argv)
{
	struct hj_target t;
	int rounds, r;
	char *end;
	long pid;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: hj-spawn-bench PID [ROUNDS]\n");
		return 2;
	}
	pid = strtol(argv[1], &end, 10);
	rounds = argc == 3 ? atoi(argv[2]) : 200;
	quiet = getenv("HIJACK_BENCH") && !strcmp(getenv("HIJACK_BENCH"), "0");
	if (*end || pid <= 0 || rounds <= 0) {
		fprintf(stderr, "hj-spawn-bench: bad arguments\n");
		return 2;
	}
	r = hj_target_from_pid((pid_t)pid, &t);
	if (!r)
		r = hj_target_check_access(&t);
	if (r) {
		fprintf(stderr, "hj-spawn-bench: pid %ld: %s\n", pid,
			strerror(-r));
		return 1;
	}
	r = variant(&t, rounds, 0) || variant(&t, rounds, 1);
	hj_target_release(&t);
	return r ? 1 : 0;
}
