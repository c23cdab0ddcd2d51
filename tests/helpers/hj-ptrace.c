// SPDX-License-Identifier: GPL-2.0-or-later
/* hj-ptrace PID: hold PID under ptrace (PTRACE_SEIZE) until killed. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc != 2)
		return 2;
	pid = atoi(argv[1]);
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL)) {
		perror("ptrace");
		return 1;
	}
	printf("seized %d\n", pid);
	fflush(stdout);
	for (;;)
		pause();
}
