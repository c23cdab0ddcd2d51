/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hijack.conf: which user goes into which container.  See hijack.conf(5).
 *
 * One parser for pam_hijack, hijack-shell, the unit tests and the fuzzer.
 * The configuration is a file and the drop-ins of the directory of its
 * name with ".d" (hijack.conf.d/NAME.conf, in byte order), read as one file
 * in that order: the first matching rule of any file wins, and one
 * broken or insecure file refuses the whole configuration.
 *
 * Every function returns 0 or a negative errno; on failure the
 * struct hj_conf_error (when given) says what failed and where, ready to
 * be logged as is: "/etc/security/hijack.conf:12: unknown option 'shel'".
 *   -EINVAL  a bad line, or a file that is no regular file
 *   -E2BIG   a line too long, or more than HJ_CONF_FILES_MAX drop-ins
 *   -EFBIG   a file above HJ_CONF_SIZE_MAX, or all of them together
 *   -EPERM   a file or the directory not root's, or group/world writable
 *   -ELOOP   a file or the directory is a symbolic link
 *   -ENOTDIR hijack.conf.d is not a directory
 *   -EAGAIN  a file grew while being read
 *   other    open/read errors (-ENOENT: no hijack.conf; no hijack.conf.d
 *            is fine), group lookups (hj_conf_resolve_user), -ENOMEM
 */
#ifndef HIJACK_CONF_H
#define HIJACK_CONF_H

#include <pwd.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "hijack.h"

#define HJ_CONF_DEFAULT SCONFDIR "/hijack.conf"
/* the drop-in directory of a configuration is its path with this */
#define HJ_CONF_DIR_SUFFIX ".d"

/*
 * Limits: 100 000 rules fit, a runaway file does not.  HJ_CONF_SIZE_MAX
 * holds for each file and for all of them together.
 */
#define HJ_CONF_SIZE_MAX (16 * 1024 * 1024)
#define HJ_CONF_FILES_MAX 1000
#define HJ_CONF_LINE_MAX 16384
#define HJ_CONF_NAME_MAX 256

enum hj_map_kind {
	HJ_MAP_NONE = 0, /* no rule matched */
	HJ_MAP_HOST, /* rule target '-' */
	HJ_MAP_CONTAINER,
};

enum hj_on_stopped {
	HJ_STOPPED_DENY = 0, /* stopped=deny (default) */
	HJ_STOPPED_HOST, /* stopped=host */
};

struct hj_conf_error {
	char file[256]; /* the name the file was loaded under */
	unsigned int line; /* 0: not about one line */
	char msg[256]; /* "FILE:LINE: problem", or "FILE: problem" */
	bool lookup; /* the user and group databases failed, not the file */
};

struct hj_mapping {
	enum hj_map_kind kind;
	unsigned int line; /* line of the matching rule ... */
	char file[4096]; /* ... in this file (the name it was read under) */
	/* expanded, normalised "[controller:]path", no leading '/' */
	char cgroup[HJ_CGROUP_PATH_MAX];
	char name[HJ_CONF_NAME_MAX]; /* name=, else last cgroup component */
	char shell[4096]; /* shell=, "" when unset */
	char cwd[4096]; /* cwd=, "" when unset */
	enum hj_on_stopped on_stopped;
};

/* One file's text, for hj_conf_parse_match(). */
struct hj_conf_text {
	const char *name; /* for messages and hj_mapping.file */
	const char *buf;
	size_t len;
};

/*
 * Match the user against the configuration @path (NULL: HJ_CONF_DEFAULT)
 * and its drop-ins @path.d/NAME.conf: every line of every file is checked,
 * the first matching rule is expanded into @m (kind HJ_MAP_NONE: none).
 * A syntax error anywhere wins over the matching rule's expansion error.
 */
int hj_conf_load_match(const char *path, const char *user, uid_t uid, gid_t gid,
		       const char *group, const char *const *groups,
		       struct hj_mapping *m, struct hj_conf_error *err);
/*
 * Check one file as hijack.conf or a drop-in is checked when it is read:
 * opened without following a link, a regular file of root's not
 * writable by group or others, within the size caps, every line valid.
 * 0, or the first problem in @err ("FILE:LINE: ...").  Nobody is matched.
 */
int hj_conf_check_file(const char *path, struct hj_conf_error *err);
/* The same over @n texts in memory, in that order (tests, fuzzer). */
int hj_conf_parse_match(const struct hj_conf_text *files, size_t n,
			const char *user, uid_t uid, gid_t gid,
			const char *group, const char *const *groups,
			struct hj_mapping *m, struct hj_conf_error *err);
/*
 * hj_conf_load_match() for @pw, with its groups from NSS, and a group
 * rule refused (not skipped) when the group database fails.
 */
int hj_conf_resolve_user(const char *path, const struct passwd *pw,
			 struct hj_mapping *m, struct hj_conf_error *err);
/*
 * hj_conf_resolve_user() in a child of its own that must answer within
 * @timeout_ms of its time asleep (struct hj_deadline): a directory that
 * does not answer (sssd waiting on an LDAP server, a stopped responder)
 * refuses the login with -ETIMEDOUT instead of holding it.  A child that
 * dies gives -EPIPE.  Both set err->lookup.
 */
#define HJ_LOOKUP_MS 15000
int hj_conf_resolve_user_by(const char *path, const struct passwd *pw,
			    struct hj_mapping *m, struct hj_conf_error *err,
			    int timeout_ms);

const char *hj_map_kind_name(enum hj_map_kind kind);

#endif /* HIJACK_CONF_H */
