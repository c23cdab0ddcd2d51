// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: hijack.conf parser, rule matching and template
 * expansion.  Whatever the file says, a mapping to a container must name
 * a normalised relative cgroup path below the hierarchy roots.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conf.h"
#include "hijack.h"
#include "internal.h"

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

/*
 * The input is one or more files: "\f\n" separates them (a form feed is
 * refused in a line anyway, so nothing else is lost).  Parsed as those
 * files and as one file of them joined by "\n", the answers must agree:
 * the same result, the same rule and error, at the line of the file it
 * is in.  The same single parser reads both (hj_conf_parse_match), as it
 * reads hijack.conf and hijack.conf.d for pam_hijack and hijack-shell.
 */
#define MAX_FILES 8

static const char *const names[MAX_FILES] = { "f0", "f1", "f2", "f3",
					      "f4", "f5", "f6", "f7" };

/* The file of line @line of the joined text, and its line there. */
static unsigned int locate(const unsigned int *first, size_t n,
			   unsigned int line, size_t *file)
{
	size_t i = n - 1;

	while (i && line < first[i])
		i--;
	*file = i;
	return line - first[i] + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hj_conf_text t[MAX_FILES], one;
	unsigned int first[MAX_FILES];
	const char *s = (const char *)data, *end = s + size;
	char *joined;
	size_t n = 0, i, f;

	if (!long_name[0])
		memset(long_name, 'l', sizeof(long_name) - 1);
	joined = malloc(size + 1);
	CHECK(joined);
	memcpy(joined, data, size);
	/* split at "\f\n"; the joined text has "\n" there instead */
	first[0] = 1;
	for (;;) {
		const char *sep = NULL, *q;
		unsigned int nl = 0;

		for (q = s; q + 1 < end; q++)
			if (q[0] == '\f' && q[1] == '\n' && n + 1 < MAX_FILES) {
				sep = q;
				break;
			}
		t[n].name = names[n];
		t[n].buf = s;
		t[n].len = (sep ? sep : end) - s;
		if (!sep) {
			n++;
			break;
		}
		joined[sep - (const char *)data] = '\n';
		for (q = s; q < sep; q++)
			nl += *q == '\n';
		first[n + 1] = first[n] + nl + 1;
		n++;
		s = sep + 2;
	}
	/* joined: the same bytes with each "\f" of a separator dropped */
	{
		size_t o = 0, k;

		for (k = 0; k < size; k++)
			if (!(data[k] == '\f' && joined[k] == '\n'))
				joined[o++] = joined[k];
		one.name = "one";
		one.buf = joined;
		one.len = o;
	}

	for (i = 0; i < sizeof(whos) / sizeof(whos[0]); i++) {
		const struct who *w = &whos[i];
		struct hj_conf_error e1, e2;
		struct hj_mapping m1, m2;
		char want[sizeof(e1.msg)];
		unsigned int l;
		int r1, r2;

		memset(&e1, 0, sizeof(e1));
		memset(&e2, 0, sizeof(e2));
		r1 = hj_conf_parse_match(t, n, w->user, w->uid, w->gid,
					 w->group, w->groups, &m1, &e1);
		r2 = hj_conf_parse_match(&one, 1, w->user, w->uid, w->gid,
					 w->group, w->groups, &m2, &e2);
		CHECK(r1 == r2);
		if (r1) {
			CHECK(r1 < 0 && m1.kind == HJ_MAP_NONE);
			CHECK(m2.kind == HJ_MAP_NONE);
			check_string(e1.msg, sizeof(e1.msg));
			CHECK(e1.msg[0]);
			/* "one:L: what" is "fF:L': what" */
			CHECK(e2.line > 0);
			l = locate(first, n, e2.line, &f);
			CHECK(e1.line == l && !strcmp(e1.file, names[f]));
			snprintf(want, sizeof(want), "%s:%u%s", names[f], l,
				 strchr(e2.msg + 4, ':'));
			CHECK(!strncmp(e1.msg, want, sizeof(e1.msg) - 1));
			continue;
		}
		check_mapping(&m1);
		if (m1.kind == HJ_MAP_NONE) {
			CHECK(m2.kind == HJ_MAP_NONE && !m1.line &&
			      !m1.file[0]);
			continue;
		}
		l = locate(first, n, m2.line, &f);
		CHECK(m1.line == l && !strcmp(m1.file, names[f]));
		CHECK(!strcmp(m2.file, "one"));
		m2.line = m1.line;
		strcpy(m2.file, m1.file);
		CHECK(!memcmp(&m1, &m2, sizeof(m1)));
	}
	free(joined);
	return 0;
}
