// SPDX-License-Identifier: GPL-2.0-or-later
/* hj-tiocsti TEXT: push TEXT into the input of the terminal on fd 0. */
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>

int main(int argc, char **argv)
{
	size_t i;

	if (argc != 2)
		return 2;
	for (i = 0; i < strlen(argv[1]); i++) {
		if (ioctl(0, TIOCSTI, &argv[1][i])) {
			perror("TIOCSTI");
			return 1;
		}
	}
	return 0;
}
