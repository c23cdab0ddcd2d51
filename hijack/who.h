/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hijack who: the live sessions of hijack-shell (who.c) */
#ifndef HIJACK_WHO_H
#define HIJACK_WHO_H

/* The default hijack-shell whose sessions are listed */
#define HIJACK_SHELL_PATH SBINDIR "/hijack-shell"

/*
 * Print a header and one row per live session of the hijack-shell at
 * @shell; exits with a message when it cannot look.  Root only.
 */
int hijack_who(const char *shell);

#endif
