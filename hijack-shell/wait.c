// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell-wait: the session's waiting parent, which hijack-shell
 * execs once the session runs ("hijack-shell --wait-for-child PID FD",
 * under no_new_privs), and the forwarded agent's relay, which it starts
 * beside it ("hijack-shell --agent-relay NAME").  hijack-shell's own
 * binary can do both as well; this one links libc alone, so that each
 * session's processes on the host keep less memory of their own (no
 * libaudit or libcap-ng relocated and initialised in them).  No
 * capabilities, nothing but the arguments read: see shell_waiter().
 */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>

#include "hijack.h"
#include "shell.h"

int main(int argc, char **argv)
{
	struct shell_args args;

	/*
	 * First, as in hijack-shell: an exec that gains nothing leaves a
	 * process dumpable, and nothing of the user's may ptrace a process
	 * on the host.
	 */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	shell_parse_args(argc, argv, &args);
	if (args.action == SHELL_AGENT)
		shell_agent_relay(args.agent);
	if (args.action != SHELL_WAIT)
		errx(2,
		     "usage: %s %s PID FD | %s NAME (started by hijack-shell "
		     "only)",
		     SHELL_PROG, HJ_RELAY_ARG, HJ_AGENT_ARG);
	shell_waiter(args.wait_pid, args.wait_fd);
}
