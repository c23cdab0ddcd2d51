// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: hijack.conf parser, rule matching and template
 * expansion.  Whatever the file says, a mapping to a container must name
 * a normalised relative cgroup path below the hierarchy roots.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "hijack.h"
#include "util.h"

#define CHECK(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

struct who {
	const char *user;
	uid_t uid;
	gid_t gid;
	const char *group;
	const char *const *groups;
};

static const char *const alice_groups[] = { "devs", "web", "sudo", NULL };
static const char *const evil_groups[] = { "..", "a/b", "%u", "", NULL };
static char long_name[HJ_CONF_NAME_MAX + 8];

static const struct who whos[] = {
	{ "alice", 1000, 1000, "alice", alice_groups },
	{ "root", 0, 0, "root", NULL },
	{ "bob", 60000, 100, NULL, NULL },
	{ "..", 1001, 1001, ".", evil_groups },
	{ "a/b", 4294967294u, 65534, "x:y", evil_groups },
	{ long_name, 2000, 2000, long_name, NULL },
	{ NULL, 3000, 3000, NULL, NULL },
};

static void check_string(const char *s, size_t size)
{
	CHECK(memchr(s, '\0', size));
}

static void check_mapping(const struct hj_mapping *m)
{
	const char *colon, *path;

	check_string(m->cgroup, sizeof(m->cgroup));
	check_string(m->name, sizeof(m->name));
	check_string(m->shell, sizeof(m->shell));
	check_string(m->cwd, sizeof(m->cwd));
	if (m->kind != HJ_MAP_CONTAINER) {
		CHECK(!m->cgroup[0]);
		return;
	}
	colon = strchr(m->cgroup, ':');
	path = colon ? colon + 1 : m->cgroup;
	CHECK(!strchr(path, ':'));
	CHECK(*path && *path != '/');
	CHECK(hj_cgroup_path_check(path) == 0);
	CHECK(m->name[0]);
	CHECK(!m->shell[0] || m->shell[0] == '/');
	CHECK(!m->cwd[0] || m->cwd[0] == '/');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hj_conf_error err;
	struct hj_mapping m;
	struct hj_conf *conf;
	size_t i;
	int r;

	if (!long_name[0])
		memset(long_name, 'l', sizeof(long_name) - 1);
	memset(&err, 0, sizeof(err));
	r = hj_conf_parse((const char *)data, size, "fuzz.conf", &conf, &err);
	if (r) {
		struct hj_conf_error err2;
		struct hj_mapping m2;

		CHECK(r < 0 && !conf);
		check_string(err.msg, sizeof(err.msg));
		CHECK(err.msg[0]);
		/* matching while parsing refuses it with the same message */
		memset(&err2, 0, sizeof(err2));
		CHECK(hj_conf_parse_match((const char *)data, size, "fuzz.conf",
					  whos[0].user, whos[0].uid,
					  whos[0].gid, whos[0].group,
					  whos[0].groups, &m2, &err2) == r);
		CHECK(!strcmp(err.msg, err2.msg));
		return 0;
	}
	for (i = 0; i < sizeof(whos) / sizeof(whos[0]); i++) {
		const struct who *w = &whos[i];
		struct hj_conf_error err2;
		struct hj_mapping m2;
		int r2;

		memset(&err, 0, sizeof(err));
		r = hj_conf_match(conf, w->user, w->uid, w->gid, w->group,
				  w->groups, &m, &err);
		/* what a login does gives the same answer */
		memset(&err2, 0, sizeof(err2));
		r2 = hj_conf_parse_match((const char *)data, size, "fuzz.conf",
					 w->user, w->uid, w->gid, w->group,
					 w->groups, &m2, &err2);
		CHECK(r2 == r && !memcmp(&m, &m2, sizeof(m)));
		CHECK(!r || !strcmp(err.msg, err2.msg));
		if (r) {
			CHECK(r < 0 && m.kind == HJ_MAP_NONE);
			check_string(err.msg, sizeof(err.msg));
			continue;
		}
		check_mapping(&m);
	}
	hj_conf_free(conf);
	return 0;
}
