// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: the command lines of hijack (hijack_parse_args,
 * getopt_long underneath) and hijack-shell (shell_parse_args).  The input
 * is split at NUL bytes into argv[0..].  Whatever it holds, a parse either
 * fails with a reason or gives a result that points into argv and names
 * exactly one target; hijack-shell never takes options past "-c".
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "shell.h"

#define MAXARGS 32

#define CHECK(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static bool in_argv(char **argv, int argc, const char *p)
{
	for (int i = 0; i < argc; i++)
		if (argv[i] == p)
			return true;
	return false;
}

/* inside one of the arguments ("-wDIR", "--wd=DIR" or "DIR") */
static bool into_argv(char **argv, int argc, const char *p)
{
	for (int i = 0; i < argc; i++)
		if (p >= argv[i] && p < argv[i] + strlen(argv[i]))
			return true;
	return false;
}

static void check_hijack(int argc, char **argv)
{
	struct hijack_args a;
	char err[256];
	int r, i;

	r = hijack_parse_args(argc, argv, &a, err, sizeof(err));
	CHECK(r == 0 || r == -EINVAL);
	CHECK(memchr(err, '\0', sizeof(err)));
	if (r) {
		CHECK(err[0]);
		return;
	}
	if (a.action == HIJACK_WHO || a.action == HIJACK_CHECK) {
		/* "who" or "check USER", --shell an absolute path if any */
		if (a.action == HIJACK_WHO)
			CHECK(!strcmp(argv[argc - 1], "who") && !a.user);
		else
			CHECK(!strcmp(argv[argc - 2], "check") &&
			      a.user == argv[argc - 1] && a.user[0]);
		CHECK(!a.shell ||
		      (into_argv(argv, argc, a.shell) && a.shell[0] == '/'));
		CHECK(!a.cwd && !a.verbose && !a.no_confine);
		return;
	}
	if (a.action != HIJACK_RUN)
		return;
	CHECK(!a.shell);
	CHECK(a.backend == HJ_BACKEND_AUTO || a.backend == HJ_BACKEND_NATIVE ||
	      a.backend == HJ_BACKEND_STOCK);
	CHECK(in_argv(argv, argc, a.id));
	CHECK(!a.cwd || into_argv(argv, argc, a.cwd));
	if (a.kind == HIJACK_PID)
		CHECK(a.pid > 0 && a.id[0] >= '0' && a.id[0] <= '9');
	else
		CHECK(a.kind == HIJACK_CGROUP && a.id[0]);
	/* the command is a tail of argv, NULL-terminated */
	CHECK(a.cmd > argv && a.cmd <= argv + argc);
	for (i = 0; a.cmd[i]; i++)
		CHECK(a.cmd + i < argv + argc);
	CHECK(a.cmd + i == argv + argc);
}

static void check_shell(int argc, char **argv)
{
	struct shell_args a;

	shell_parse_args(argc, argv, &a);
	switch (a.action) {
	case SHELL_SESSION:
		CHECK(argc == 1 || (argc == 3 && a.command == argv[2]));
		CHECK(a.login == (argv[0][0] == '-'));
		CHECK(!a.user);
		break;
	case SHELL_CHECK:
		CHECK(argc == 2 || argc == 3);
		CHECK(!a.command &&
		      (!a.user || (a.user == argv[2] && a.user[0])));
		break;
	case SHELL_WAIT:
		CHECK(argc == 4 && !strcmp(argv[1], HJ_RELAY_ARG));
		CHECK(a.wait_pid > 0 && (a.wait_fd == -1 || a.wait_fd > 2));
		CHECK(!a.command && !a.user);
		break;
	case SHELL_AGENT:
		/* a plain file name, as sshd makes them */
		CHECK(argc == 3 && !strcmp(argv[1], HJ_AGENT_ARG));
		CHECK(a.agent == argv[2] && a.agent[0] && a.agent[0] != '.' &&
		      !strchr(a.agent, '/'));
		CHECK(!a.command && !a.user);
		break;
	case SHELL_HELP:
	case SHELL_VERSION:
		CHECK(argc == 2 && !a.command && !a.user);
		break;
	case SHELL_USAGE:
		CHECK(!a.command);
		break;
	default:
		CHECK(0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf, *argv[MAXARGS + 1], *p, *end;
	int argc = 0;

	/* a copy with a NUL after the last argument; getopt may permute */
	buf = malloc(size + 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (p = buf, end = buf + size; p <= end && argc < MAXARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	check_hijack(argc, argv);
	check_shell(argc, argv);
	free(buf);
	return 0;
}
