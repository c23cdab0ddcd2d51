// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack.conf(5) and hijack.conf.d/NAME.conf: one validator (parse_line), one
 * pass over every line of every file, the first matching rule expanded
 * for the user as it is read; no rule is kept.
 *
 *	WHO  WHERE  [option=value ...]
 *
 * WHO is a user name, @group, a uid or uid range, or '*'; WHERE is
 * "[controller:]path" below the cgroup hierarchy roots or '-' (host).
 */
#include "config.h"

#include <errno.h>
#include <dirent.h>
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
#include "internal.h"

#define MAX_FIELDS 16

enum who_kind {
	WHO_ANY,
	WHO_USER,
	WHO_GROUP,
	WHO_UID,
};

/* One rule; its strings point into the line being parsed. */
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

/*
 * Byte classes of the tokenizer, one lookup a byte: every line of a big
 * file is checked, so this is the inner loop of every login.
 */
enum {
	C_NUL = 1, /* ends the line buffer */
	C_CTRL = 2, /* refused anywhere in a line */
	C_SEP = 4, /* separates fields */
	C_NAME = 8, /* may be in a user or group name */
	C_SLASH = 16,
	C_COLON = 32,
	C_PCT = 64,
};

static const unsigned char byte_class[256] = {
	[0] = C_NUL,	 [0x01 ... 0x08] = C_CTRL,
	['\t'] = C_SEP,	 [0x0a ... 0x1f] = C_CTRL,
	[' '] = C_SEP,	 ['-'] = C_NAME,
	['.'] = C_NAME,	 ['%'] = C_PCT,
	['/'] = C_SLASH, ['0' ... '9'] = C_NAME,
	[':'] = C_COLON, ['A' ... 'Z'] = C_NAME,
	['_'] = C_NAME,	 ['a' ... 'z'] = C_NAME,
	[0x7f] = C_CTRL,
};

#define CLASS(c) byte_class[(unsigned char)(c)]

/*
 * A field of a line, NUL-terminated, with what the tokenizer saw of its
 * bytes: the classes all of them have, and those any of them has.  The
 * validator asks these instead of scanning the field again.
 */
struct field {
	char *s;
	size_t len;
	unsigned char all, any;
};

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
	size_t i = 0;

	if (!s[0] || s[0] == '-')
		return false;
	while (CLASS(s[i]) & C_NAME)
		i++;
	/* '$' only at the end (Samba machine accounts) */
	if (s[i] == '$' && !s[i + 1])
		i++;
	return !s[i] && i < HJ_CONF_NAME_MAX;
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

/*
 * An expanded cgroup path: relative, normalised, not the root, no ':'
 * (not looked for unless @colon: it may have one).
 */
static int check_cgroup_path(const char *path, bool colon, const char **why)
{
	int r;

	if (!*path) {
		*why = "is a hierarchy root";
		return -EINVAL;
	}
	if (colon && strchr(path, ':')) {
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

/*
 * The user a file is matched against while it is parsed (not a rule's
 * who field, the pattern it is matched with).
 */
struct login_user {
	const char *user;
	uid_t uid;
	const char *group;
	const char *const *groups;
	/*
	 * Set by hj_conf_resolve_user(): is the user in this group, asked
	 * of NSS for each group rule up to the match (1, 0 or -errno), so
	 * that a failing group database refuses instead of skipping a rule.
	 */
	int (*in_group)(void *ctx, const char *group);
	void *ctx;
	struct vars v;
	char uidstr[16];
};

struct parser {
	const char *name; /* of the file being read */
	unsigned int line; /* in that file */
	struct hj_conf_error *err;
	char *buf; /* the current line, HJ_CONF_LINE_MAX + 1 bytes */
	char *chunk; /* parse_fd()'s read buffer, NULL until a file is read */
	size_t total; /* bytes of the files read so far */
	/* the first rule matching @who (NULL: nobody) is expanded into @m */
	const struct login_user *who;
	struct hj_mapping *m;
	bool matched;
	int match_err; /* its expansion failed: reported if the file is valid */
	struct hj_conf_error match_errinfo;
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

static int parse_who(struct parser *p, const struct field *f, struct rule *r)
{
	const char *dash, *tok = f->s;
	bool valid;

	if (tok[0] == '*' && !tok[1]) {
		r->who = WHO_ANY;
		return 0;
	}
	if (tok[0] == '@') {
		if (!valid_account_name(tok + 1))
			return PFAIL(p, -EINVAL, "bad group name '%.64s'",
				     tok + 1);
		r->who = WHO_GROUP;
		r->who_name = (char *)tok + 1;
		return 0;
	}
	if (tok[0] >= '0' && tok[0] <= '9') {
		size_t len = f->len;
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
	/* name bytes only: what valid_account_name() would find, at once */
	if (f->all & C_NAME)
		valid = tok[0] != '-' && f->len < HJ_CONF_NAME_MAX;
	else
		valid = valid_account_name(tok);
	if (!valid)
		return PFAIL(p, -EINVAL, "bad user name '%.64s'", tok);
	r->who = WHO_USER;
	r->who_name = (char *)tok;
	return 0;
}

static int parse_where(struct parser *p, const struct field *f, struct rule *r)
{
	char *tok = f->s;
	const char *colon = f->any & C_COLON ? strchr(tok, ':') : NULL;
	const char *path = tok, *why = NULL;
	char buf[HJ_CGROUP_PATH_MAX], bad = 0;
	int e;

	if (f->len == 1 && tok[0] == '-') {
		r->kind = HJ_MAP_HOST;
		return 0;
	}
	r->kind = HJ_MAP_CONTAINER;
	if (colon) {
		if (!valid_controller(tok, colon - tok))
			return PFAIL(p, -EINVAL,
				     "bad controller in cgroup '%.64s'", tok);
		path = colon + 1;
	}
	if (*path == '/')
		path++;
	if (!(f->any & C_PCT)) {
		/* nothing to expand: check the path itself, as expand() would */
		e = f->len - (path - tok) >= sizeof(buf) ?
			    -ENAMETOOLONG :
			    check_cgroup_path(path, colon, &why);
		if (e == -ENAMETOOLONG)
			why = "is too long";
	} else {
		if (check_template(path, &bad))
			return template_error(p, bad, tok);
		e = expand(path, &placeholder, buf, sizeof(buf), &bad);
		if (!e)
			e = check_cgroup_path(buf, true, &why);
		else
			why = "is too long";
	}
	if (e)
		return PFAIL(p, -EINVAL, "cgroup path '%.64s' %s", tok, why);
	/* valid: split "controller:path" in place */
	if (colon) {
		*(char *)colon = '\0';
		r->controller = tok;
	}
	r->path = (char *)path;
	return 0;
}

static int set_option(struct parser *p, const char *key, char **slot,
		      const char *val)
{
	char bad = 0;

	if (*slot)
		return PFAIL(p, -EINVAL, "duplicate option '%s'", key);
	if (check_template(val, &bad))
		return template_error(p, bad, val);
	*slot = (char *)val;
	return 0;
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

/* The fields of one line into @r (borrowing them); r->line 0: no rule. */
static int parse_line(struct parser *p, struct field *f, int nf, struct rule *r)
{
	bool seen_stopped = false;
	int i, e;

	memset(r, 0, sizeof(*r));
	if (nf == 0)
		return 0;
	if (nf == 1)
		return PFAIL(p, -EINVAL, "missing cgroup or '-' after '%.64s'",
			     f[0].s);
	e = parse_who(p, &f[0], r);
	if (!e)
		e = parse_where(p, &f[1], r);
	for (i = 2; !e && i < nf; i++)
		e = parse_option(p, f[i].s, r, &seen_stopped);
	if (!e)
		r->line = p->line;
	return e;
}

static bool rule_matches(const struct rule *r, const char *user, uid_t uid,
			 const char *group, const char *const *groups);
static int fill_mapping(const char *name, const struct rule *r,
			const struct vars *v, struct hj_mapping *m,
			struct hj_conf_error *err);

/*
 * Match while parsing: the first rule that matches is expanded at once,
 * from the line still in the buffer; the rest of the file is still
 * checked, and a syntax error anywhere wins over an expansion error.
 */
static void match_rule(struct parser *p, const struct rule *r)
{
	const struct login_user *w = p->who;

	int e;

	if (p->matched || !w)
		return;
	if (r->who == WHO_GROUP && w->in_group)
		e = w->in_group(w->ctx, r->who_name);
	else
		e = rule_matches(r, w->user, w->uid, w->group, w->groups);
	if (!e)
		return;
	p->matched = true;
	if (e < 0) {
		/* not knowing whether the rule applies, no later one may */
		p->match_err = fail(p->err ? &p->match_errinfo : NULL, p->name,
				    r->line, e, "cannot look up group %s: %s",
				    r->who_name,
				    e == -ENOENT ?
					    "no group database knows it "
					    "(or its directory is down)" :
					    strerror(-e));
		p->match_errinfo.lookup = true;
		return;
	}
	p->match_err = fill_mapping(p->name, r, &w->v, p->m,
				    p->err ? &p->match_errinfo : NULL);
}

/*
 * What is left of a line after a comment starts (or a field too many): it
 * must still be free of NUL bytes, then of control bytes.
 */
static int rest_of_line(struct parser *p, const char *q, const char *end)
{
	if (memchr(q, '\0', end - q))
		return PFAIL(p, -EINVAL, "NUL byte");
	for (; q < end; q++)
		if (CLASS(*q) & C_CTRL)
			return PFAIL(p, -EINVAL, "control character 0x%02x",
				     (unsigned char)*q);
	return 0;
}

/* One line of the file, @l bytes at @s without its newline. */
static int handle_line(struct parser *p, const char *s, size_t l)
{
	char *q = p->buf, *end;
	struct field f[MAX_FIELDS];
	struct rule r;
	int nf = 0, e;

	p->line++;
	if (l && s[l - 1] == '\r')
		l--;
	if (l > HJ_CONF_LINE_MAX) {
		if (memchr(s, '\0', l))
			return PFAIL(p, -EINVAL, "NUL byte");
		return PFAIL(p, -E2BIG, "line too long (limit %d bytes)",
			     HJ_CONF_LINE_MAX);
	}
	memcpy(q, s, l);
	end = q + l;
	*end = '\0';
	/*
	 * Split it into NUL-terminated fields (a field starting with '#'
	 * starts a comment) in one pass, one table lookup a byte, which also
	 * notes the classes of each field's bytes for the validator.
	 * Anywhere in the line a NUL byte is reported first, then a control
	 * byte, then too many fields.
	 */
	for (;;) {
		while (CLASS(*q) & C_SEP)
			q++;
		if (q == end)
			break;
		if ((CLASS(*q) & (C_NUL | C_CTRL)) || *q == '#') {
			e = rest_of_line(p, q, end);
			if (e)
				return e;
			break;
		}
		if (nf == MAX_FIELDS) {
			e = rest_of_line(p, q, end);
			return e ? e :
				   PFAIL(p, -EINVAL,
					 "too many fields (limit %d)",
					 MAX_FIELDS);
		}
		{
			unsigned char all = 0xff, any = 0, c;

			f[nf].s = q;
			while (!((c = CLASS(*q)) & (C_SEP | C_NUL | C_CTRL))) {
				all &= c;
				any |= c;
				q++;
			}
			f[nf].len = q - f[nf].s;
			f[nf].all = all;
			f[nf].any = any;
			nf++;
		}
		if (CLASS(*q) & C_SEP) {
			*q++ = '\0';
			continue;
		}
		if (q == end)
			break;
		return rest_of_line(p, q, end);
	}
	e = parse_line(p, f, nf, &r);
	if (!e && r.line)
		match_rule(p, &r);
	return e;
}

/* Every line of an in-memory file. */
static int parse_mem(struct parser *p, const char *buf, size_t len)
{
	const char *s = buf, *end = buf + len;
	int e;

	while (s < end) {
		const char *eol = memchr(s, '\n', end - s);

		e = handle_line(p, s, (eol ? eol : end) - s);
		if (e)
			return e;
		s = eol ? eol + 1 : end;
	}
	return 0;
}

/*
 * Every line of a file of @size bytes, read from offset 0 in chunks into
 * one buffer (a line never needs more than HJ_CONF_LINE_MAX + 2 bytes of
 * it): a big file is neither copied whole nor kept.  A file that grows
 * while being read is refused, as one that is larger than it said.
 */
#define CHUNK (64 * 1024)
#define CHUNK_BUF (CHUNK + HJ_CONF_LINE_MAX + 2)

static int parse_fd(struct parser *p, int fd, size_t size)
{
	size_t have = 0, total = 0;
	bool overlong = false;
	char *buf;
	int e = 0;

	if (!p->chunk)
		p->chunk = malloc(CHUNK_BUF);
	buf = p->chunk;
	if (!buf)
		return fail(p->err, p->name, 0, -ENOMEM, "out of memory");
	for (;;) {
		const char *s = buf, *end, *eol;
		ssize_t r = pread(fd, buf + have, CHUNK_BUF - have, total);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = fail(p->err, p->name, 0, -errno, "cannot read: %s",
				 strerror(errno));
			break;
		}
		total += r;
		if (total > size) {
			e = fail(p->err, p->name, 0, -EAGAIN,
				 "changed while being read");
			break;
		}
		end = buf + have + r;
		if (overlong) {
			/* the rest of a line too long to keep: NUL or length */
			const char *nul = memchr(buf, '\0', end - buf);

			eol = memchr(buf, '\n', end - buf);
			if (nul && (!eol || nul < eol))
				e = PFAIL(p, -EINVAL, "NUL byte");
			else if (eol || r == 0)
				e = PFAIL(p, -E2BIG,
					  "line too long (limit %d bytes)",
					  HJ_CONF_LINE_MAX);
			if (e)
				break;
			have = 0;
			continue;
		}
		while (s < end && (eol = memchr(s, '\n', end - s))) {
			e = handle_line(p, s, eol - s);
			if (e)
				goto out;
			s = eol + 1;
		}
		if (r == 0) {
			/* the last line, without a newline */
			if (s < end)
				e = handle_line(p, s, end - s);
			break;
		}
		have = end - s;
		if (have > HJ_CONF_LINE_MAX + 1) {
			/* too long for any line, unless a NUL byte comes first */
			p->line++;
			if (memchr(s, '\0', have)) {
				e = PFAIL(p, -EINVAL, "NUL byte");
				break;
			}
			overlong = true;
			have = 0;
			continue;
		}
		memmove(buf, s, have);
	}
out:
	return e;
}

/*
 * A parser that matches @w (NULL: nobody, the files are only checked, and
 * @m may be NULL) and expands its rule into @m.
 */
static int parser_init(struct parser *p, const struct login_user *w,
		       struct hj_mapping *m, struct hj_conf_error *err)
{
	memset(p, 0, sizeof(*p));
	if (m)
		memset(m, 0, sizeof(*m));
	p->name = "hijack.conf";
	p->err = err;
	p->who = w;
	p->m = m;
	/* zeroed: gcc's -fanalyzer loses track of a line copied in */
	p->buf = calloc(1, HJ_CONF_LINE_MAX + 1);
	if (!p->buf)
		return fail(err, p->name, 0, -ENOMEM, "out of memory");
	return 0;
}

/*
 * The end of a parse: the error @e of a file, else the expansion error of
 * the matching rule (a broken file anywhere wins over it), else 0.
 */
static int parser_done(struct parser *p, int e)
{
	free(p->buf);
	free(p->chunk);
	if (!e && p->match_err) {
		e = p->match_err;
		if (p->err)
			*p->err = p->match_errinfo;
	}
	if (e && p->m)
		memset(p->m, 0, sizeof(*p->m));
	return e;
}

/* The next file: its name for messages and rules, its lines from 1. */
static void parser_file(struct parser *p, const char *name)
{
	p->name = name ? name : "hijack.conf";
	p->line = 0;
}

static void who_init(struct login_user *w, const char *user, uid_t uid,
		     const char *group, const char *const *groups)
{
	w->user = user;
	w->uid = uid;
	w->group = group;
	w->groups = groups;
	w->in_group = NULL;
	w->ctx = NULL;
	snprintf(w->uidstr, sizeof(w->uidstr), "%u", (unsigned int)uid);
	w->v.user = user;
	w->v.uid = w->uidstr;
	w->v.group = group;
}

int hj_conf_parse_match(const struct hj_conf_text *files, size_t n,
			const char *user, uid_t uid, gid_t gid,
			const char *group, const char *const *groups,
			struct hj_mapping *m, struct hj_conf_error *err)
{
	struct parser p;
	struct login_user w;
	size_t i;
	int e;

	(void)gid;
	who_init(&w, user, uid, group, groups);
	e = parser_init(&p, &w, m, err);
	if (e)
		return e;
	for (i = 0; !e && i < n; i++) {
		parser_file(&p, files[i].name);
		e = parse_mem(&p, files[i].buf, files[i].len);
	}
	return parser_done(&p, e);
}

/*
 * The checks of an opened file of the configuration: a regular file,
 * root's, not writable by group or others, within the size caps (of the
 * file, and of all files together).
 */
static int check_file(struct parser *p, int fd, size_t *size)
{
	struct stat st;

	if (fstat(fd, &st))
		return fail(p->err, p->name, 0, -errno, "cannot stat: %s",
			    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(p->err, p->name, 0, -EINVAL, "not a regular file");
	if (st.st_uid != 0)
		return fail(p->err, p->name, 0, -EPERM,
			    "owned by uid %u, not root",
			    (unsigned int)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail(p->err, p->name, 0, -EPERM,
			    "writable by group or others (mode %04o)",
			    (unsigned int)(st.st_mode & 07777));
	if (st.st_size > HJ_CONF_SIZE_MAX)
		return fail(p->err, p->name, 0, -EFBIG,
			    "too large (%lld bytes, limit %d)",
			    (long long)st.st_size, HJ_CONF_SIZE_MAX);
	if (p->total + st.st_size > HJ_CONF_SIZE_MAX)
		return fail(p->err, p->name, 0, -EFBIG,
			    "the configuration is too large with this file "
			    "(limit %d bytes in all)",
			    HJ_CONF_SIZE_MAX);
	p->total += st.st_size;
	*size = st.st_size;
	return 0;
}

/* Open (no symbolic link, no FIFO that blocks), check and read a file. */
static int read_file(struct parser *p, int dirfd, const char *path,
		     const char *name)
{
	size_t size = 0;
	int fd, e;

	parser_file(p, name);
	/* O_NONBLOCK: a FIFO planted here must not hang the login */
	fd = openat(dirfd, path,
		    O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		e = -errno;
		if (e == -ELOOP)
			return fail(p->err, p->name, 0, e,
				    "is a symbolic link");
		return fail(p->err, p->name, 0, e, "cannot open: %s",
			    strerror(-e));
	}
	e = check_file(p, fd, &size);
	if (!e)
		e = parse_fd(p, fd, size);
	close(fd);
	return e;
}

/*
 * Is @name a drop-in to read?  As systemd's and pam_limits' conf.d and
 * sudoers.d skip what package managers and editors leave behind: only
 * "*.conf", and no dotfile (".x.conf" of an editor or of Ansible's
 * atomic write, "x.conf~", "x.conf.dpkg-old", "x.conf.rpmnew", ".#x.conf"
 * are all skipped).
 */
static bool is_dropin(const char *name)
{
	size_t l = strlen(name);

	return name[0] != '.' && l > 5 && !strcmp(name + l - 5, ".conf");
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The names of the drop-ins of the directory @dfd, in *names (malloc'd,
 * sorted in byte order, as the C locale sorts).  @dir for messages.
 */
static int list_dropins(struct parser *p, int dfd, const char *dir,
			char ***names, size_t *n)
{
	size_t cap = 0;
	struct dirent *d;
	char **v = NULL;
	DIR *dp;
	int fd, e = 0;

	*names = NULL;
	*n = 0;
	fd = fcntl(dfd, F_DUPFD_CLOEXEC, 3);
	if (fd < 0 || !(dp = fdopendir(fd))) {
		e = -errno;
		if (fd >= 0)
			close(fd);
		return fail(p->err, dir, 0, e, "cannot read: %s", strerror(-e));
	}
	for (;;) {
		errno = 0;
		d = readdir(dp);
		if (!d) {
			if (errno)
				e = fail(p->err, dir, 0, -errno,
					 "cannot read: %s", strerror(errno));
			break;
		}
		if (!is_dropin(d->d_name))
			continue;
		if (*n == HJ_CONF_FILES_MAX) {
			e = fail(p->err, dir, 0, -E2BIG,
				 "too many files (limit %d)",
				 HJ_CONF_FILES_MAX);
			break;
		}
		if (*n == cap) {
			char **nv = realloc(v, (cap = cap ? cap * 2 : 16) *
						       sizeof(*v));

			if (!nv) {
				e = -ENOMEM;
				break;
			}
			v = nv;
		}
		v[*n] = strdup(d->d_name);
		if (!v[*n]) {
			e = -ENOMEM;
			break;
		}
		(*n)++;
	}
	closedir(dp);
	if (e == -ENOMEM)
		fail(p->err, dir, 0, e, "out of memory");
	if (!e && *n)
		qsort(v, *n, sizeof(*v), cmp_names);
	*names = v;
	return e;
}

/*
 * The drop-in directory @dir: none is fine; one that is there is held
 * to what the files are (root's, not writable by group or others, not a
 * symbolic link), then its drop-ins are read in order.
 */
static int read_dropins(struct parser *p, const char *dir)
{
	char **names = NULL, *path = NULL;
	size_t n = 0, i, dl = strlen(dir);
	struct stat st;
	int dfd, e;

	/*
	 * Not O_DIRECTORY, which reports a symbolic link as ENOTDIR; with
	 * O_NONBLOCK, as a file, so that a FIFO here does not hang.
	 */
	dfd = open(dir,
		   O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (dfd < 0) {
		e = -errno;
		if (e == -ENOENT)
			return 0;
		if (e == -ELOOP)
			return fail(p->err, dir, 0, e, "is a symbolic link");
		return fail(p->err, dir, 0, e, "cannot open: %s", strerror(-e));
	}
	if (fstat(dfd, &st))
		e = fail(p->err, dir, 0, -errno, "cannot stat: %s",
			 strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		e = fail(p->err, dir, 0, -ENOTDIR, "not a directory");
	else if (st.st_uid != 0)
		e = fail(p->err, dir, 0, -EPERM, "owned by uid %u, not root",
			 (unsigned int)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		e = fail(p->err, dir, 0, -EPERM,
			 "writable by group or others (mode %04o)",
			 (unsigned int)(st.st_mode & 07777));
	else
		e = list_dropins(p, dfd, dir, &names, &n);
	if (!e && n) {
		path = malloc(dl + 1 + NAME_MAX + 1);
		if (!path)
			e = fail(p->err, dir, 0, -ENOMEM, "out of memory");
	}
	for (i = 0; !e && i < n; i++) {
		/* the name it is reported under, "DIR/NAME" */
		snprintf(path, dl + 1 + NAME_MAX + 1, "%s/%s", dir, names[i]);
		e = read_file(p, dfd, names[i], path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(path);
	close(dfd);
	return e;
}

/* @path, then the drop-ins of @path.d, matched for @w (NULL: nobody). */
static int load_match(const char *path, const struct login_user *w,
		      struct hj_mapping *m, struct hj_conf_error *err)
{
	struct parser p;
	char *dir;
	int e;

	if (!path)
		path = HJ_CONF_DEFAULT;
	e = parser_init(&p, w, m, err);
	if (e)
		return e;
	e = read_file(&p, AT_FDCWD, path, path);
	if (!e) {
		dir = malloc(strlen(path) + sizeof(HJ_CONF_DIR_SUFFIX));
		if (!dir)
			return parser_done(&p, fail(err, path, 0, -ENOMEM,
						    "out of memory"));
		strcpy(dir, path);
		strcat(dir, HJ_CONF_DIR_SUFFIX);
		e = read_dropins(&p, dir);
		free(dir);
	}
	return parser_done(&p, e);
}

int hj_conf_check_file(const char *path, struct hj_conf_error *err)
{
	struct parser p;
	int e;

	e = parser_init(&p, NULL, NULL, err);
	if (e)
		return e;
	return parser_done(&p, read_file(&p, AT_FDCWD, path, path));
}

int hj_conf_load_match(const char *path, const char *user, uid_t uid, gid_t gid,
		       const char *group, const char *const *groups,
		       struct hj_mapping *m, struct hj_conf_error *err)
{
	struct login_user w;

	(void)gid;
	who_init(&w, user, uid, group, groups);
	return load_match(path, &w, m, err);
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

static int expand_err(const char *name, const struct rule *r, const char *what,
		      const struct vars *v, int e, char bad,
		      struct hj_conf_error *err)
{
	char tmp[64];

	if (e == -ENAMETOOLONG)
		return fail(err, name, r->line, -EINVAL,
			    "%s is too long after expansion", what);
	if (bad == 'g' && !v->group)
		return fail(err, name, r->line, -EINVAL,
			    "%s: %%g: the primary group has no name", what);
	if (bad == 'u' && !v->user)
		return fail(err, name, r->line, -EINVAL,
			    "%s: %%u: the user has no name", what);
	return fail(err, name, r->line, -EINVAL,
		    "%s: %%%c: '%s' cannot be used in a path", what, bad,
		    printable(bad == 'u' ? v->user : v->group, tmp,
			      sizeof(tmp)));
}

static int fill_mapping(const char *name, const struct rule *r,
			const struct vars *v, struct hj_mapping *m,
			struct hj_conf_error *err)
{
	char path[HJ_CGROUP_PATH_MAX], tmp[64], bad = 0;
	const char *why, *last;
	int e;

	m->kind = r->kind;
	m->line = r->line;
	snprintf(m->file, sizeof(m->file), "%s", name);
	m->on_stopped = r->on_stopped;
	if (r->kind != HJ_MAP_CONTAINER)
		return 0;

	e = expand(r->path, v, path, sizeof(path), &bad);
	if (e)
		return expand_err(name, r, "cgroup", v, e, bad, err);
	if (check_cgroup_path(path, true, &why))
		return fail(err, name, r->line, -EINVAL,
			    "cgroup '%s' %s after expansion",
			    printable(path, tmp, sizeof(tmp)), why);
	if (snprintf(m->cgroup, sizeof(m->cgroup), "%s%s%s",
		     r->controller ? r->controller : "",
		     r->controller ? ":" : "", path) >= (int)sizeof(m->cgroup))
		return fail(err, name, r->line, -EINVAL,
			    "cgroup is too long after expansion");

	if (r->name) {
		e = expand(r->name, v, m->name, sizeof(m->name), &bad);
		if (e)
			return expand_err(name, r, "name=", v, e, bad, err);
		if (!valid_container_name(m->name))
			return fail(err, name, r->line, -EINVAL,
				    "bad container name '%s' after expansion",
				    printable(m->name, tmp, sizeof(tmp)));
	} else {
		/* a component: at most NAME_MAX bytes (hj_cgroup_path_check) */
		last = strrchr(path, '/');
		last = last ? last + 1 : path;
		if (strlen(last) >= sizeof(m->name))
			return fail(err, name, r->line, -EINVAL,
				    "container name is too long");
		strcpy(m->name, last);
	}
	if (r->shell) {
		e = expand(r->shell, v, m->shell, sizeof(m->shell), &bad);
		if (e)
			return expand_err(name, r, "shell=", v, e, bad, err);
	}
	if (r->cwd) {
		e = expand(r->cwd, v, m->cwd, sizeof(m->cwd), &bad);
		if (e)
			return expand_err(name, r, "cwd=", v, e, bad, err);
	}
	return 0;
}

/*
 * getgrnam_r(@name), or getgrgid_r(@gid) when @name is NULL, with a
 * buffer that grows (*buf, malloc'd, the caller frees it even on error).
 * 0 with *res set (NULL: no such group), or the positive errno.
 */
static int group_lookup(const char *name, gid_t gid, struct group *gr,
			char **buf, struct group **res)
{
	size_t size = 4096;
	int e;

	*buf = NULL;
	*res = NULL;
	for (;;) {
		char *n = realloc(*buf, size);

		if (!n)
			return ENOMEM;
		*buf = n;
		errno = 0;
		e = name ? getgrnam_r(name, gr, *buf, size, res) :
			   getgrgid_r(gid, gr, *buf, size, res);
		if (e != ERANGE || size >= 1024 * 1024)
			return e;
		size *= 2;
	}
}

/* The name of group @gid in *name, malloc'd. */
static int group_name(gid_t gid, char **name)
{
	struct group gr, *res;
	char *buf;
	int e;

	*name = NULL;
	e = group_lookup(NULL, gid, &gr, &buf, &res);
	if (!e && res) {
		*name = strdup(gr.gr_name);
		e = *name ? 0 : ENOMEM;
	} else if (!e) {
		e = ENOENT;
	}
	free(buf);
	return -e;
}

/*
 * What in_group() needs: the user, and the gids getgrouplist() gives,
 * asked only when a group rule is reached (most logins match a user rule
 * or none, and enumerating every group source is the costly part).
 */
struct member_of {
	const struct passwd *pw;
	gid_t *gids;
	int ngids;
	int err; /* 1: not asked yet, 0: asked, -errno: it failed */
};

static int list_groups(struct member_of *mo)
{
	int ngroups = 64;

	for (;;) {
		gid_t *g = realloc(mo->gids, ngroups * sizeof(*g));
		int want = ngroups;

		if (!g)
			return -ENOMEM;
		mo->gids = g;
		if (getgrouplist(mo->pw->pw_name, mo->pw->pw_gid, mo->gids,
				 &want) >= 0) {
			mo->ngids = want;
			return 0;
		}
		if (want <= ngroups || want > 65536)
			return -EINVAL;
		ngroups = want;
	}
}

/*
 * Is the user in @name?  Asked of the group database by name, so that its
 * failure is seen: getgrouplist() skips a source that fails and answers
 * with the groups of the others.  Not a member unless the group exists
 * and has the user's primary gid, one of getgrouplist()'s, or lists the
 * user.  1, 0, or -errno when the group cannot be looked up (an LDAP or
 * sssd timeout), which refuses the login.  A group no database knows is
 * -ENOENT too: a directory that is down says just that (sssd offline
 * with nothing cached answers "not found", libnss_sss without sssd fails
 * with ENOENT, and glibc reports a module it cannot load the same way),
 * and a rule that would then be skipped sends its users to the rules
 * after it, or to none.
 */
static int in_group(void *ctx, const char *name)
{
	struct member_of *mo = ctx;
	struct group gr, *res;
	char *buf, **mem;
	int e, i;

	if (mo->err > 0)
		mo->err = list_groups(mo);
	if (mo->err)
		return mo->err;
	e = group_lookup(name, 0, &gr, &buf, &res);
	if (!e && !res)
		e = ENOENT;
	if (e) {
		free(buf);
		return -e;
	}
	e = gr.gr_gid == mo->pw->pw_gid;
	for (i = 0; !e && i < mo->ngids; i++)
		e = gr.gr_gid == mo->gids[i];
	for (mem = gr.gr_mem; !e && mem && *mem; mem++)
		e = !strcmp(*mem, mo->pw->pw_name);
	free(buf);
	return e;
}

int hj_conf_resolve_user(const char *path, const struct passwd *pw,
			 struct hj_mapping *m, struct hj_conf_error *err)
{
	struct member_of mo = { .pw = pw, .err = 1 };
	struct login_user w;
	char *group = NULL;
	int e;

	memset(m, 0, sizeof(*m));
	if (!pw || !pw->pw_name)
		return -EINVAL;
	if (!path)
		path = HJ_CONF_DEFAULT;

	/* a group without a name only fails a rule that needs %g */
	if (group_name(pw->pw_gid, &group) == -ENOMEM) {
		e = fail(err, path, 0, -ENOMEM, "out of memory");
		goto out_free;
	}
	who_init(&w, pw->pw_name, pw->pw_uid, group, NULL);
	w.in_group = in_group;
	w.ctx = &mo;
	e = load_match(path, &w, m, err);
out_free:
	free(mo.gids);
	free(group);
	return e;
}

struct resolve_report {
	int r;
	struct hj_mapping m;
	struct hj_conf_error err;
};

int hj_conf_resolve_user_by(const char *path, const struct passwd *pw,
			    struct hj_mapping *m, struct hj_conf_error *err,
			    int timeout_ms)
{
	struct resolve_report *rep;
	int p[2], r;
	pid_t pid;

	memset(m, 0, sizeof(*m));
	if (!pw || !pw->pw_name)
		return -EINVAL;
	if (!path)
		path = HJ_CONF_DEFAULT;
	rep = calloc(1, sizeof(*rep));
	if (!rep)
		return fail(err, path, 0, -ENOMEM, "out of memory");
	if (pipe2(p, O_CLOEXEC)) {
		r = -errno;
		free(rep);
		return fail(err, path, 0, r, "pipe: %s", strerror(-r));
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(p[0]);
		close(p[1]);
		free(rep);
		return fail(err, path, 0, r, "fork: %s", strerror(-r));
	}
	if (pid == 0) {
		close(p[0]);
		rep->r = hj_conf_resolve_user(path, pw, &rep->m, &rep->err);
		_exit(hj_write_full(p[1], rep, sizeof(*rep)) ? 1 : 0);
	}
	close(p[1]);
	r = hj_child_report(pid, p[0], rep, sizeof(*rep), timeout_ms);
	close(p[0]);
	if (r) {
		if (r == -ETIMEDOUT)
			fail(err, path, 0, r,
			     "the user and group databases did not answer for "
			     "%s within %d s",
			     pw->pw_name, timeout_ms / 1000);
		else
			fail(err, path, 0, r,
			     "the lookup of %s's groups ended without an "
			     "answer",
			     pw->pw_name);
		if (err)
			err->lookup = true;
	} else {
		/* our own child's answer, made as the caller would have */
		*m = rep->m;
		if (err)
			*err = rep->err;
		r = rep->r;
	}
	free(rep);
	return r;
}
