/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hijack check: a user's next login, the container's side and the host's */
#ifndef HIJACK_CHECK_H
#define HIJACK_CHECK_H

/*
 * Print the check of @user's next ssh login, the container's side from
 * the hijack-shell at @shell; 0 when safely routed (or unmapped), 1 when
 * not.  Root only.
 */
int hijack_check(const char *shell, const char *user);

#endif
