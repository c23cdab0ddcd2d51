// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack.conf(5): parse the rules once, validate every template at load
 * time, expand them for one user at match time.
 *
 *	WHO  WHERE  [option=value ...]
 *
 * WHO is a user name, @group, a uid or uid range, or '*'; WHERE is
 * "[controller:]path" below the cgroup hierarchy roots or '-' (host).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conf.h"
#include "util.h"

#define MAX_FIELDS 16

enum who_kind {
	WHO_ANY,
	WHO_USER,
	WHO_GROUP,
	WHO_UID,
};

struct rule {
	unsigned int line;
	enum who_kind who;
	char *who_name; /* user or group name */
	uid_t uid_lo, uid_hi;
	enum hj_map_kind kind;
	char *controller; /* NULL: any hierarchy */
	char *path; /* template, no leading '/' */
	char *name, *shell, *cwd; /* templates, NULL when unset */
	enum hj_on_stopped on_stopped;
};

struct hj_conf {
	struct rule *rules;
	size_t n, cap;
	char *name;
};

/* Values the templates expand to; NULL when unknown. */
struct vars {
	const char *user;
	const char *uid;
	const char *group;
};

static const struct vars placeholder = { "u", "0", "g" };

__attribute__((format(printf, 5, 6))) static int fail(struct hj_conf_error *err,
						      const char *name,
						      unsigned int line, int r,
						      const char *fmt, ...)
{
	char what[200];
	va_list ap;

	if (!err)
		return r;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(err->file, sizeof(err->file), "%s", name);
	err->line = line;
	if (line)
		snprintf(err->msg, sizeof(err->msg), "%s:%u: %s", name, line,
			 what);
	else
		snprintf(err->msg, sizeof(err->msg), "%s: %s", name, what);
	return r;
}

/* A copy of untrusted text that is safe to put into a log line. */
static const char *printable(const char *s, char *buf, size_t size)
{
	size_t i;

	for (i = 0; s[i] && i + 1 < size; i++)
		buf[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* A user or group name as WHO may give it (the POSIX portable set). */
static bool valid_account_name(const char *s)
{
	size_t i, len = strlen(s);

	if (len == 0 || len >= HJ_CONF_NAME_MAX || s[0] == '-')
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
			continue;
		if (c == '$' && i == len - 1)
			continue;
		return false;
	}
	return true;
}

/* A name that may become (part of) one path component. */
static bool valid_component(const char *s)
{
	if (!*s || *s == '.')
		return false;
	for (; *s; s++)
		if (*s <= 0x20 || *s >= 0x7f || *s == '/' || *s == ':' ||
		    *s == '%')
			return false;
	return true;
}

static bool valid_container_name(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len >= HJ_CONF_NAME_MAX)
		return false;
	for (; *s; s++)
		if (*s <= 0x20 || *s >= 0x7f)
			return false;
	return true;
}

static bool valid_controller(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len >= 128)
		return false;
	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == ',' || s[i] == '='))
			return false;
	return true;
}

/* 0, or the offending character of an unknown "%x" (or '\0' at the end). */
static int check_template(const char *s, char *bad)
{
	for (; *s; s++) {
		if (*s != '%')
			continue;
		s++;
		if (*s == 'u' || *s == 'U' || *s == 'g' || *s == '%')
			continue;
		*bad = *s;
		return -EINVAL;
	}
	return 0;
}

/*
 * Expand a validated template.  -ENAMETOOLONG when it does not fit,
 * -EINVAL with *bad set to the template letter whose value is unusable.
 */
static int expand(const char *t, const struct vars *v, char *out, size_t size,
		  char *bad)
{
	size_t o = 0;

	for (; *t; t++) {
		const char *val = NULL;
		char c = *t;
		size_t l;

		if (c == '%') {
			c = *++t;
			if (c == 'u' || c == 'g') {
				val = c == 'u' ? v->user : v->group;
				if (!val || !valid_component(val)) {
					*bad = c;
					return -EINVAL;
				}
			} else if (c == 'U') {
				val = v->uid;
			} else if (c != '%') {
				*bad = c;
				return -EINVAL;
			}
		}
		if (!val) {
			if (o + 1 >= size)
				return -ENAMETOOLONG;
			out[o++] = c;
			continue;
		}
		l = strlen(val);
		if (o + l >= size)
			return -ENAMETOOLONG;
		memcpy(out + o, val, l);
		o += l;
	}
	out[o] = '\0';
	return 0;
}

/* An expanded cgroup path: relative, normalised, not the root, no ':'. */
static int check_cgroup_path(const char *path, const char **why)
{
	int r;

	if (!*path) {
		*why = "is a hierarchy root";
		return -EINVAL;
	}
	if (strchr(path, ':')) {
		*why = "contains ':'";
		return -EINVAL;
	}
	r = hj_cgroup_path_check(path);
	if (r == -ENAMETOOLONG)
		*why = "is too long";
	else if (r)
		*why = "has an empty, '.' or '..' component";
	return r;
}

static int parse_uid(const char *s, size_t len, uid_t *uid)
{
	unsigned long long v = 0;
	size_t i;

	if (len == 0 || len > 10)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (s[i] - '0');
	}
	/* (uid_t)-1 is "no uid" to the kernel */
	if (v >= (uid_t)-1)
		return -ERANGE;
	*uid = v;
	return 0;
}

static void rule_free(struct rule *r)
{
	free(r->who_name);
	free(r->controller);
	free(r->path);
	free(r->name);
	free(r->shell);
	free(r->cwd);
}

void hj_conf_free(struct hj_conf *conf)
{
	size_t i;

	if (!conf)
		return;
	for (i = 0; i < conf->n; i++)
		rule_free(&conf->rules[i]);
	free(conf->rules);
	free(conf->name);
	free(conf);
}

size_t hj_conf_rule_count(const struct hj_conf *conf)
{
	return conf->n;
}

const char *hj_map_kind_name(enum hj_map_kind kind)
{
	switch (kind) {
	case HJ_MAP_NONE:
		return "none";
	case HJ_MAP_HOST:
		return "host";
	case HJ_MAP_CONTAINER:
		return "container";
	}
	return "?";
}

struct parser {
	const char *name;
	unsigned int line;
	struct hj_conf_error *err;
};

#define PFAIL(p, r, ...) fail((p)->err, (p)->name, (p)->line, r, __VA_ARGS__)

static int template_error(struct parser *p, char bad, const char *in)
{
	if (!bad)
		return PFAIL(p, -EINVAL,
			     "incomplete template '%%' at the end of '%.64s'",
			     in);
	if (bad > 0x20 && bad < 0x7f)
		return PFAIL(p, -EINVAL, "unknown template '%%%c' in '%.64s'",
			     bad, in);
	return PFAIL(p, -EINVAL, "unknown template in '%.64s'", in);
}

static int parse_who(struct parser *p, const char *tok, struct rule *r)
{
	const char *dash;

	if (!strcmp(tok, "*")) {
		r->who = WHO_ANY;
		return 0;
	}
	if (tok[0] == '@') {
		if (!valid_account_name(tok + 1))
			return PFAIL(p, -EINVAL, "bad group name '%.64s'",
				     tok + 1);
		r->who = WHO_GROUP;
		r->who_name = strdup(tok + 1);
		return r->who_name ? 0 : -ENOMEM;
	}
	if (tok[0] >= '0' && tok[0] <= '9') {
		size_t len = strlen(tok);
		int e;

		r->who = WHO_UID;
		dash = strchr(tok, '-');
		if (!dash) {
			e = parse_uid(tok, len, &r->uid_lo);
			r->uid_hi = r->uid_lo;
		} else {
			e = parse_uid(tok, dash - tok, &r->uid_lo);
			if (!e)
				e = parse_uid(dash + 1, len - (dash + 1 - tok),
					      &r->uid_hi);
		}
		if (e)
			return PFAIL(p, -EINVAL, "bad uid or uid range '%.64s'",
				     tok);
		if (r->uid_lo > r->uid_hi)
			return PFAIL(p, -EINVAL,
				     "empty uid range '%.64s' (%u > %u)", tok,
				     r->uid_lo, r->uid_hi);
		return 0;
	}
	if (!valid_account_name(tok))
		return PFAIL(p, -EINVAL, "bad user name '%.64s'", tok);
	r->who = WHO_USER;
	r->who_name = strdup(tok);
	return r->who_name ? 0 : -ENOMEM;
}

static int parse_where(struct parser *p, const char *tok, struct rule *r)
{
	const char *colon = strchr(tok, ':'), *path = tok, *why = NULL;
	char buf[HJ_CGROUP_PATH_MAX], bad = 0;
	int e;

	if (!strcmp(tok, "-")) {
		r->kind = HJ_MAP_HOST;
		return 0;
	}
	r->kind = HJ_MAP_CONTAINER;
	if (colon) {
		if (!valid_controller(tok, colon - tok))
			return PFAIL(p, -EINVAL,
				     "bad controller in cgroup '%.64s'", tok);
		r->controller = strndup(tok, colon - tok);
		if (!r->controller)
			return -ENOMEM;
		path = colon + 1;
	}
	if (*path == '/')
		path++;
	if (check_template(path, &bad))
		return template_error(p, bad, tok);
	e = expand(path, &placeholder, buf, sizeof(buf), &bad);
	if (!e)
		e = check_cgroup_path(buf, &why);
	else
		why = "is too long";
	if (e)
		return PFAIL(p, -EINVAL, "cgroup path '%.64s' %s", tok, why);
	r->path = strdup(path);
	return r->path ? 0 : -ENOMEM;
}

static int set_option(struct parser *p, const char *key, char **slot,
		      const char *val)
{
	char bad = 0;

	if (*slot)
		return PFAIL(p, -EINVAL, "duplicate option '%s'", key);
	if (check_template(val, &bad))
		return template_error(p, bad, val);
	*slot = strdup(val);
	return *slot ? 0 : -ENOMEM;
}

static int parse_option(struct parser *p, const char *tok, struct rule *r,
			bool *seen_stopped)
{
	const char *eq = strchr(tok, '=');
	char key[32], buf[HJ_CGROUP_PATH_MAX], bad;
	const char *val;

	if (!eq || eq == tok)
		return PFAIL(p, -EINVAL, "expected option=value, got '%.64s'",
			     tok);
	if ((size_t)(eq - tok) >= sizeof(key))
		return PFAIL(p, -EINVAL, "unknown option '%.31s'", tok);
	memcpy(key, tok, eq - tok);
	key[eq - tok] = '\0';
	val = eq + 1;
	if (strcmp(key, "shell") && strcmp(key, "cwd") &&
	    strcmp(key, "stopped") && strcmp(key, "name"))
		return PFAIL(p, -EINVAL, "unknown option '%s'", key);
	if (r->kind == HJ_MAP_HOST)
		return PFAIL(p, -EINVAL,
			     "option '%s' needs a container, not '-'", key);
	if (!*val)
		return PFAIL(p, -EINVAL, "option '%s' needs a value", key);

	if (!strcmp(key, "stopped")) {
		if (*seen_stopped)
			return PFAIL(p, -EINVAL, "duplicate option '%s'", key);
		*seen_stopped = true;
		if (!strcmp(val, "deny"))
			r->on_stopped = HJ_STOPPED_DENY;
		else if (!strcmp(val, "host"))
			r->on_stopped = HJ_STOPPED_HOST;
		else
			return PFAIL(
				p, -EINVAL,
				"stopped= must be 'deny' or 'host', not '%.64s'",
				val);
		return 0;
	}
	if (!strcmp(key, "name")) {
		int e = set_option(p, key, &r->name, val);

		if (e)
			return e;
		if (expand(val, &placeholder, buf, HJ_CONF_NAME_MAX, &bad) ||
		    !valid_container_name(buf))
			return PFAIL(p, -EINVAL, "bad container name '%.64s'",
				     val);
		return 0;
	}
	if (*val != '/')
		return PFAIL(p, -EINVAL,
			     "%s= needs an absolute path, not '%.64s'", key,
			     val);
	return set_option(p, key, !strcmp(key, "shell") ? &r->shell : &r->cwd,
			  val);
}

/* Split a line into fields; a field starting with '#' starts a comment. */
static int split(struct parser *p, char *s, char **f, int *nf)
{
	*nf = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '#')
			return 0;
		if (*nf == MAX_FIELDS)
			return PFAIL(p, -EINVAL, "too many fields (limit %d)",
				     MAX_FIELDS);
		f[(*nf)++] = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
		if (*s)
			*s++ = '\0';
	}
}

static int parse_line(struct parser *p, char *line, struct hj_conf *conf)
{
	struct rule r = { .line = p->line };
	bool seen_stopped = false;
	char *f[MAX_FIELDS];
	int nf, i, e;

	for (i = 0; line[i]; i++)
		if ((line[i] > 0 && line[i] < 0x20 && line[i] != '\t') ||
		    line[i] == 0x7f)
			return PFAIL(p, -EINVAL, "control character 0x%02x",
				     line[i]);
	e = split(p, line, f, &nf);
	if (e || nf == 0)
		return e;
	if (nf == 1)
		return PFAIL(p, -EINVAL, "missing cgroup or '-' after '%.64s'",
			     f[0]);
	e = parse_who(p, f[0], &r);
	if (!e)
		e = parse_where(p, f[1], &r);
	for (i = 2; !e && i < nf; i++)
		e = parse_option(p, f[i], &r, &seen_stopped);
	if (!e && conf->n == conf->cap) {
		size_t cap = conf->cap ? conf->cap * 2 : 16;
		struct rule *n = realloc(conf->rules, cap * sizeof(*n));

		if (n) {
			conf->rules = n;
			conf->cap = cap;
		} else {
			e = -ENOMEM;
		}
	}
	if (e) {
		rule_free(&r);
		if (e == -ENOMEM)
			return PFAIL(p, e, "out of memory");
		return e;
	}
	conf->rules[conf->n++] = r;
	return 0;
}

int hj_conf_parse(const char *buf, size_t len, const char *name,
		  struct hj_conf **confp, struct hj_conf_error *err)
{
	struct parser p = { .name = name ? name : "hijack.conf", .err = err };
	const char *s = buf, *end = buf + len;
	struct hj_conf *conf;
	char *line;
	int e = 0;

	*confp = NULL;
	conf = calloc(1, sizeof(*conf));
	line = malloc(HJ_CONF_LINE_MAX + 1);
	if (conf)
		conf->name = strdup(p.name);
	if (!conf || !line || !conf->name) {
		e = fail(err, p.name, 0, -ENOMEM, "out of memory");
		goto out_free;
	}
	while (s < end) {
		const char *eol = memchr(s, '\n', end - s);
		size_t l = (eol ? eol : end) - s;

		p.line++;
		if (memchr(s, '\0', l)) {
			e = PFAIL(&p, -EINVAL, "NUL byte");
			goto out_free;
		}
		if (l && s[l - 1] == '\r')
			l--;
		if (l > HJ_CONF_LINE_MAX) {
			e = PFAIL(&p, -E2BIG, "line too long (limit %d bytes)",
				  HJ_CONF_LINE_MAX);
			goto out_free;
		}
		memcpy(line, s, l);
		line[l] = '\0';
		e = parse_line(&p, line, conf);
		if (e)
			goto out_free;
		s = eol ? eol + 1 : end;
	}
	free(line);
	*confp = conf;
	return 0;

out_free:
	free(line);
	hj_conf_free(conf);
	return e;
}

int hj_conf_load_fd(int fd, const char *name, struct hj_conf **conf,
		    struct hj_conf_error *err)
{
	struct stat st;
	size_t len = 0;
	char *buf;
	int e;

	*conf = NULL;
	if (!name)
		name = "hijack.conf";
	if (fstat(fd, &st))
		return fail(err, name, 0, -errno, "cannot stat: %s",
			    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(err, name, 0, -EINVAL, "not a regular file");
	if (st.st_uid != 0)
		return fail(err, name, 0, -EPERM, "owned by uid %u, not root",
			    (unsigned int)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail(err, name, 0, -EPERM,
			    "writable by group or others (mode %04o)",
			    (unsigned int)(st.st_mode & 07777));
	if (st.st_size > HJ_CONF_SIZE_MAX)
		return fail(err, name, 0, -EFBIG,
			    "too large (%lld bytes, limit %d)",
			    (long long)st.st_size, HJ_CONF_SIZE_MAX);
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return fail(err, name, 0, -ENOMEM, "out of memory");
	/* read what is there now, and notice a file that grew meanwhile */
	for (;;) {
		ssize_t r = pread(fd, buf + len, st.st_size + 1 - len, len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = fail(err, name, 0, -errno, "cannot read: %s",
				 strerror(errno));
			goto out_free;
		}
		if (r == 0)
			break;
		len += r;
		if (len > (size_t)st.st_size) {
			e = fail(err, name, 0, -EAGAIN,
				 "changed while being read");
			goto out_free;
		}
	}
	e = hj_conf_parse(buf, len, name, conf, err);
out_free:
	free(buf);
	return e;
}

int hj_conf_load(const char *path, struct hj_conf **conf,
		 struct hj_conf_error *err)
{
	int fd, e;

	*conf = NULL;
	if (!path)
		path = HJ_CONF_DEFAULT;
	/* O_NONBLOCK: a FIFO planted here must not hang the login */
	fd = open(path,
		  O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		e = -errno;
		if (e == -ELOOP)
			return fail(err, path, 0, e, "is a symbolic link");
		return fail(err, path, 0, e, "cannot open: %s", strerror(-e));
	}
	e = hj_conf_load_fd(fd, path, conf, err);
	close(fd);
	return e;
}

static bool rule_matches(const struct rule *r, const char *user, uid_t uid,
			 const char *group, const char *const *groups)
{
	switch (r->who) {
	case WHO_ANY:
		/* root is only ever mapped by name, uid or group */
		return uid != 0;
	case WHO_USER:
		return user && !strcmp(user, r->who_name);
	case WHO_UID:
		return uid >= r->uid_lo && uid <= r->uid_hi;
	case WHO_GROUP:
		if (group && !strcmp(group, r->who_name))
			return true;
		for (; groups && *groups; groups++)
			if (!strcmp(*groups, r->who_name))
				return true;
		return false;
	}
	return false;
}

static int expand_err(const struct hj_conf *conf, const struct rule *r,
		      const char *what, const struct vars *v, int e, char bad,
		      struct hj_conf_error *err)
{
	char tmp[64];

	if (e == -ENAMETOOLONG)
		return fail(err, conf->name, r->line, -EINVAL,
			    "%s is too long after expansion", what);
	if (bad == 'g' && !v->group)
		return fail(err, conf->name, r->line, -EINVAL,
			    "%s: %%g: the primary group has no name", what);
	if (bad == 'u' && !v->user)
		return fail(err, conf->name, r->line, -EINVAL,
			    "%s: %%u: the user has no name", what);
	return fail(err, conf->name, r->line, -EINVAL,
		    "%s: %%%c: '%s' cannot be used in a path", what, bad,
		    printable(bad == 'u' ? v->user : v->group, tmp,
			      sizeof(tmp)));
}

static int fill_mapping(const struct hj_conf *conf, const struct rule *r,
			const struct vars *v, struct hj_mapping *m,
			struct hj_conf_error *err)
{
	char path[HJ_CGROUP_PATH_MAX], tmp[64], bad = 0;
	const char *why, *last;
	int e;

	m->kind = r->kind;
	m->line = r->line;
	m->on_stopped = r->on_stopped;
	if (r->kind != HJ_MAP_CONTAINER)
		return 0;

	e = expand(r->path, v, path, sizeof(path), &bad);
	if (e)
		return expand_err(conf, r, "cgroup", v, e, bad, err);
	if (check_cgroup_path(path, &why))
		return fail(err, conf->name, r->line, -EINVAL,
			    "cgroup '%s' %s after expansion",
			    printable(path, tmp, sizeof(tmp)), why);
	if (snprintf(m->cgroup, sizeof(m->cgroup), "%s%s%s",
		     r->controller ? r->controller : "",
		     r->controller ? ":" : "", path) >= (int)sizeof(m->cgroup))
		return fail(err, conf->name, r->line, -EINVAL,
			    "cgroup is too long after expansion");

	if (r->name) {
		e = expand(r->name, v, m->name, sizeof(m->name), &bad);
		if (e)
			return expand_err(conf, r, "name=", v, e, bad, err);
		if (!valid_container_name(m->name))
			return fail(err, conf->name, r->line, -EINVAL,
				    "bad container name '%s' after expansion",
				    printable(m->name, tmp, sizeof(tmp)));
	} else {
		/* a component: at most NAME_MAX bytes (hj_cgroup_path_check) */
		last = strrchr(path, '/');
		last = last ? last + 1 : path;
		if (strlen(last) >= sizeof(m->name))
			return fail(err, conf->name, r->line, -EINVAL,
				    "container name is too long");
		strcpy(m->name, last);
	}
	if (r->shell) {
		e = expand(r->shell, v, m->shell, sizeof(m->shell), &bad);
		if (e)
			return expand_err(conf, r, "shell=", v, e, bad, err);
	}
	if (r->cwd) {
		e = expand(r->cwd, v, m->cwd, sizeof(m->cwd), &bad);
		if (e)
			return expand_err(conf, r, "cwd=", v, e, bad, err);
	}
	return 0;
}

int hj_conf_match(const struct hj_conf *conf, const char *user, uid_t uid,
		  gid_t gid, const char *group, const char *const *groups,
		  struct hj_mapping *m, struct hj_conf_error *err)
{
	char uidstr[16];
	struct vars v = { user, uidstr, group };
	size_t i;
	int e;

	memset(m, 0, sizeof(*m));
	snprintf(uidstr, sizeof(uidstr), "%u", (unsigned int)uid);
	for (i = 0; i < conf->n; i++) {
		if (!rule_matches(&conf->rules[i], user, uid, group, groups))
			continue;
		e = fill_mapping(conf, &conf->rules[i], &v, m, err);
		if (e) {
			memset(m, 0, sizeof(*m));
			return e;
		}
		return 0;
	}
	return 0;
}

/* getgrgid_r with a buffer that grows; the name in *name, malloc'd. */
static int group_name(gid_t gid, char **name)
{
	size_t size = 4096;
	struct group gr, *res;
	char *buf = NULL;
	int e;

	*name = NULL;
	for (;;) {
		char *n = realloc(buf, size);

		if (!n) {
			free(buf);
			return -ENOMEM;
		}
		buf = n;
		e = getgrgid_r(gid, &gr, buf, size, &res);
		if (e != ERANGE || size >= 1024 * 1024)
			break;
		size *= 2;
	}
	if (!e && res) {
		*name = strdup(gr.gr_name);
		e = *name ? 0 : ENOMEM;
	} else if (!e) {
		e = ENOENT;
	}
	free(buf);
	return -e;
}

static void free_names(char **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int hj_conf_resolve_user(const char *path, const struct passwd *pw,
			 struct hj_mapping *m, struct hj_conf_error *err)
{
	struct hj_conf *conf;
	char *group = NULL, **names = NULL;
	gid_t *gids = NULL;
	int ngroups = 64, n = 0, i, e;

	memset(m, 0, sizeof(*m));
	if (!pw || !pw->pw_name)
		return -EINVAL;
	e = hj_conf_load(path, &conf, err);
	if (e)
		return e;

	/* a group without a name only fails a rule that needs %g */
	e = group_name(pw->pw_gid, &group);
	if (e == -ENOMEM)
		goto out_nomem;
	for (;;) {
		gid_t *g = realloc(gids, ngroups * sizeof(*g));
		int want = ngroups;

		if (!g)
			goto out_nomem;
		gids = g;
		if (getgrouplist(pw->pw_name, pw->pw_gid, gids, &want) >= 0) {
			ngroups = want;
			break;
		}
		if (want <= ngroups || want > 65536) {
			e = fail(err, pw->pw_name, 0, -EINVAL,
				 "cannot list the groups");
			goto out_free;
		}
		ngroups = want;
	}
	names = calloc(ngroups + 1, sizeof(*names));
	if (!names)
		goto out_nomem;
	for (i = 0; i < ngroups; i++) {
		e = group_name(gids[i], &names[n]);
		if (e == -ENOMEM)
			goto out_nomem;
		if (!e)
			n++;
	}
	e = hj_conf_match(conf, pw->pw_name, pw->pw_uid, pw->pw_gid, group,
			  (const char *const *)names, m, err);
	goto out_free;

out_nomem:
	e = fail(err, conf->name, 0, -ENOMEM, "out of memory");
out_free:
	free_names(names, n);
	free(gids);
	free(group);
	hj_conf_free(conf);
	return e;
}
