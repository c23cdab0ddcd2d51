/* SPDX-License-Identifier: GPL-2.0-or-later */
/* hijack check for a recorded user: tlog-rec-session as the login shell */
#ifndef HIJACK_RECORDING_H
#define HIJACK_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

bool recording_is_tlog(const char *login_shell);
/*
 * The "shell" tlog-rec-session at @login_shell would run for @uid/@gid
 * (its --configuration, read as that user), into @out: 0 or -errno.
 */
int recording_tlog_shell(const char *login_shell, uid_t uid, gid_t gid,
			 char *out, size_t n);

#endif
