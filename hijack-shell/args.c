// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell's command line.  sshd runs a login shell as "-NAME" with
 * no arguments, and "NAME -c COMMAND" for `ssh host command`, scp, rsync
 * and subsystems; nothing else is accepted, so no option can change what
 * a privileged login does.  No getopt: "-c" must be the first and only
 * option, and its argument is passed on untouched, whatever it starts with.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hijack.h"
#include "shell.h"

/* a decimal number in [min, max], digits only (an optional '-' for -1) */
static int number(const char *s, long min, long max, long *v)
{
	char *end;

	if (!((s[0] >= '0' && s[0] <= '9') || (s[0] == '-' && s[1] == '1')))
		return -EINVAL;
	errno = 0;
	*v = strtol(s, &end, 10);
	return errno || *end || *v < min || *v > max ? -EINVAL : 0;
}

void shell_parse_args(int argc, char **argv, struct shell_args *a)
{
	long pid, fd;

	memset(a, 0, sizeof(*a));
	a->action = SHELL_USAGE;
	if (argc < 1 || !argv[0])
		return;
	a->login = argv[0][0] == '-';
	if (argc == 1) {
		a->action = SHELL_SESSION;
	} else if (argc == 3 && !strcmp(argv[1], "-c")) {
		a->action = SHELL_SESSION;
		a->command = argv[2];
	} else if (argc == 2 && !strcmp(argv[1], "--help")) {
		a->action = SHELL_HELP;
	} else if (argc == 2 && !strcmp(argv[1], "--version")) {
		a->action = SHELL_VERSION;
	} else if (argc == 4 && !strcmp(argv[1], HJ_RELAY_ARG)) {
		/* fds 0-2 are the session's; the master is another one */
		if (number(argv[2], 1, INT32_MAX, &pid) ||
		    number(argv[3], -1, INT32_MAX, &fd) || (fd >= 0 && fd <= 2))
			return;
		a->action = SHELL_WAIT;
		a->wait_pid = (pid_t)pid;
		a->wait_fd = (int)fd;
	} else if (argc == 3 && !strcmp(argv[1], HJ_AGENT_ARG)) {
		/* a file name as sshd makes them ("agent.PID") */
		if (!argv[2][0] || argv[2][0] == '.' ||
		    strspn(argv[2],
			   "abcdefghijklmnopqrstuvwxyz"
			   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
			    strlen(argv[2]))
			return;
		a->action = SHELL_AGENT;
		a->agent = argv[2];
	} else if ((argc == 2 || argc == 3) && !strcmp(argv[1], "--check")) {
		a->action = SHELL_CHECK;
		a->user = argc == 3 ? argv[2] : NULL;
		if (a->user && !a->user[0])
			a->action = SHELL_USAGE;
	}
}
