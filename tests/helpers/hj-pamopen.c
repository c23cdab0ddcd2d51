// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hj-pamopen SERVICE USER CONFDIR: what libpam's pam_open_session() does
 * with the service's stack in CONFDIR (pam_start_confdir), for
 * tests/check_pamstack.c.  Prints "open", "failed" or "unusable"
 * (pam_start itself failed); exit status 0, 1 on a usage error.  A
 * program of its own so that valgrind, which runs the unit test, does
 * not follow libpam into the modules' failures.
 */
#include <security/pam_appl.h>
#include <stdio.h>

static int noconv(int n, const struct pam_message **msg,
		  struct pam_response **resp, void *data)
{
	(void)n;
	(void)msg;
	(void)resp;
	(void)data;
	return PAM_CONV_ERR;
}

int main(int argc, char **argv)
{
	struct pam_conv conv = { noconv, NULL };
	pam_handle_t *pamh = NULL;
	int r;

	if (argc != 4) {
		fprintf(stderr, "usage: hj-pamopen SERVICE USER CONFDIR\n");
		return 1;
	}
	if (pam_start_confdir(argv[1], argv[2], &conv, argv[3], &pamh) !=
	    PAM_SUCCESS) {
		puts("unusable");
		return 0;
	}
	r = pam_open_session(pamh, PAM_SILENT);
	pam_end(pamh, r);
	puts(r == PAM_SUCCESS ? "open" : "failed");
	return 0;
}
