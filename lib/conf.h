/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hijack.conf: which user goes into which container.  See hijack.conf(5).
 *
 * One parser for pam_hijack, hijack-shell, the unit tests and the fuzzer.
 * Every function returns 0 or a negative errno; on failure the
 * struct hj_conf_error (when given) says what failed and where, ready to
 * be logged as is: "/etc/security/hijack.conf:12: unknown option 'shel'".
 */
#ifndef HIJACK_CONF_H
#define HIJACK_CONF_H

#include <pwd.h>
#include <stddef.h>
#include <sys/types.h>

#include "hijack.h"

#define HJ_CONF_DEFAULT SCONFDIR "/hijack.conf"

/* Limits of the file: 100 000 rules fit, a runaway file does not. */
#define HJ_CONF_SIZE_MAX (16 * 1024 * 1024)
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
};

struct hj_mapping {
	enum hj_map_kind kind;
	unsigned int line; /* line of the matching rule */
	/* expanded, normalised "[controller:]path", no leading '/' */
	char cgroup[HJ_CGROUP_PATH_MAX];
	char name[HJ_CONF_NAME_MAX]; /* name=, else last cgroup component */
	char shell[4096]; /* shell=, "" when unset */
	char cwd[4096]; /* cwd=, "" when unset */
	enum hj_on_stopped on_stopped;
};

struct hj_conf;

int hj_conf_load(const char *path, struct hj_conf **conf,
		 struct hj_conf_error *err);
int hj_conf_load_fd(int fd, const char *name, struct hj_conf **conf,
		    struct hj_conf_error *err);
int hj_conf_parse(const char *buf, size_t len, const char *name,
		  struct hj_conf **conf, struct hj_conf_error *err);
void hj_conf_free(struct hj_conf *conf);
size_t hj_conf_rule_count(const struct hj_conf *conf);

int hj_conf_match(const struct hj_conf *conf, const char *user, uid_t uid,
		  gid_t gid, const char *group, const char *const *groups,
		  struct hj_mapping *m, struct hj_conf_error *err);
/*
 * Load and match in one pass, as hj_conf_load() then hj_conf_match() would
 * (the same checks of every line, the same result and errors), without
 * keeping the rules: what every login does.
 */
int hj_conf_load_match(const char *path, const char *user, uid_t uid, gid_t gid,
		       const char *group, const char *const *groups,
		       struct hj_mapping *m, struct hj_conf_error *err);
int hj_conf_parse_match(const char *buf, size_t len, const char *name,
			const char *user, uid_t uid, gid_t gid,
			const char *group, const char *const *groups,
			struct hj_mapping *m, struct hj_conf_error *err);
int hj_conf_resolve_user(const char *path, const struct passwd *pw,
			 struct hj_mapping *m, struct hj_conf_error *err);

const char *hj_map_kind_name(enum hj_map_kind kind);

#endif /* HIJACK_CONF_H */
