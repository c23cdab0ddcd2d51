// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hj-confined: become a container init confined as runc/docker make one,
 * then exec a command or wait.
 *
 *	hj-confined [-n] [-f N] [-l] [-S] [--] [command...]
 *
 *   -n   set no_new_privs
 *   -f N install N seccomp filters; filter k (1..N) makes
 *        getpriority(1000 + k, 0) fail with errno 40 + k, and
 *        getpriority(1000, 0) too: there the newest filter's errno wins
 *        (40 + N), so a copy loaded in the wrong order shows; nothing
 *        else is filtered
 *   -l   install the last filter with SECCOMP_FILTER_FLAG_LOG
 *   -S   enter seccomp strict mode and block in read() (no command)
 *   -P F park in vfork() while the file F exists (no command): a
 *        killable sleep PTRACE_INTERRUPT cannot end; the vfork child
 *        sleeps until killed, then F is looked at again
 *
 * The bounding set is always cut to docker's default capabilities.
 *
 *	hj-confined probe K
 *
 * prints the errno of getpriority(1000 + K, 0) ("0" when it succeeds).
 *
 *	hj-confined as UID PROG [ARG...]    exec PROG as UID (no groups)
 *	hj-confined caps                    print "euid CapEff CapBnd"
 *	hj-confined dumpable                print PR_GET_DUMPABLE
 *	hj-confined -c WORD                 the same, as a login shell
 *	                                    (shell=): ssh host WORD
 *	hj-confined --wait-for-child        a look-alike of hijack-shell's
 *	                                    relay: no_new_privs, one child
 *	                                    that sleeps, wait for it
 *
 * for the planted-setuid attack: a setuid-root copy run by another user.
 * Static: it runs inside busybox containers.
 */
#define _GNU_SOURCE /* setresuid */
#include <errno.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <grp.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* docker/runc's default set (moby oci/caps/defaults.go) */
static const int keep[] = {
	CAP_CHOWN,   CAP_DAC_OVERRIDE, CAP_FSETID,	     CAP_FOWNER,
	CAP_MKNOD,   CAP_NET_RAW,      CAP_SETGID,	     CAP_SETUID,
	CAP_SETFCAP, CAP_SETPCAP,      CAP_NET_BIND_SERVICE, CAP_SYS_CHROOT,
	CAP_KILL,    CAP_AUDIT_WRITE,
};

static int filter(int k, unsigned int flags)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 0, 6),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getpriority, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000 + k, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 1000, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (40 + k)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
}

/* -P: a file-scope path, which vfork() cannot clobber as it could a local */
static const char *park_path;

static void __attribute__((noreturn, noinline)) park_loop(void)
{
	for (;;) {
		pid_t child;

		if (access(park_path, F_OK)) {
			usleep(20000);
			continue;
		}
		child = vfork();
		if (child == 0) {
			pause();
			_exit(0);
		}
		if (child > 0)
			waitpid(child, NULL, 0);
	}
}

static void __attribute__((noreturn)) park_in_vfork(const char *path)
{
	park_path = path;
	park_loop();
}

int main(int argc, char **argv)
{
	unsigned long long mask = 0;
	int nnp = 0, nfilters = 0, logflag = 0, strict = 0, c, cap;
	const char *park = NULL;
	size_t i;

	if (argc == 3 && !strcmp(argv[1], "-c")) {
		argc--;
		argv++;
	}
	if (argc == 2 && !strcmp(argv[1], "--wait-for-child")) {
		pid_t child;

		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
			perror("no_new_privs");
			return 1;
		}
		child = fork();
		if (child == 0) {
			pause();
			_exit(0);
		}
		if (child < 0) {
			perror("fork");
			return 1;
		}
		printf("%d\n", (int)child);
		fflush(stdout);
		waitpid(child, NULL, 0);
		return 0;
	}
	if (argc == 2 && !strcmp(argv[1], "dumpable")) {
		printf("%d\n", prctl(PR_GET_DUMPABLE, 0, 0, 0, 0));
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "probe")) {
		errno = 0;
		getpriority(1000 + atoi(argv[2]), 0);
		printf("%d\n", errno);
		return 0;
	}
	if (argc >= 4 && !strcmp(argv[1], "as")) {
		uid_t id = atoi(argv[2]);

		if (setgroups(0, NULL) || setresgid(id, id, id) ||
		    setresuid(id, id, id)) {
			perror("as");
			return 1;
		}
		execv(argv[3], argv + 3);
		perror(argv[3]);
		return 127;
	}
	if (argc == 2 && !strcmp(argv[1], "caps")) {
		char line[256], eff[32] = "", bnd[32] = "";
		FILE *f = fopen("/proc/self/status", "re");

		while (f && fgets(line, sizeof(line), f)) {
			sscanf(line, "CapEff: %31s", eff);
			sscanf(line, "CapBnd: %31s", bnd);
		}
		printf("%d %s %s\n", (int)geteuid(), eff, bnd);
		return 0;
	}
	while ((c = getopt(argc, argv, "+nf:lSP:")) != -1) {
		switch (c) {
		case 'n':
			nnp = 1;
			break;
		case 'f':
			nfilters = atoi(optarg);
			break;
		case 'l':
			logflag = 1;
			break;
		case 'S':
			strict = 1;
			break;
		case 'P':
			park = optarg;
			break;
		default:
			return 2;
		}
	}
	for (i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
		mask |= 1ULL << keep[i];
	for (cap = 0; cap < 64; cap++) {
		int r = prctl(PR_CAPBSET_READ, cap, 0, 0, 0);

		if (r < 0)
			break;
		if (r == 1 && !(mask & (1ULL << cap)) &&
		    prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)) {
			perror("PR_CAPBSET_DROP");
			return 1;
		}
	}
	if (nnp && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		perror("PR_SET_NO_NEW_PRIVS");
		return 1;
	}
	for (c = 1; c <= nfilters; c++) {
		if (filter(c, logflag && c == nfilters ?
				      SECCOMP_FILTER_FLAG_LOG :
				      0)) {
			perror("seccomp");
			return 1;
		}
	}
	if (strict) {
		int p[2];
		char b;

		if (pipe(p) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT)) {
			perror("strict");
			return 1;
		}
		/* the write end stays open: this blocks for good */
		for (;;)
			if (read(p[0], &b, 1) < 0 && errno != EINTR)
				syscall(SYS_exit, 1);
	}
	if (park)
		park_in_vfork(park);
	if (optind < argc) {
		execvp(argv[optind], argv + optind);
		perror(argv[optind]);
		return 127;
	}
	for (;;)
		pause();
}
