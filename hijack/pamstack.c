// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The session stack of a PAM service, read as Linux-PAM reads it
 * (libpam/pam_handlers.c, pam_misc.c), and walked as
 * _pam_dispatch_aux() (libpam/pam_dispatch.c) walks it for
 * pam_open_session(), to find a successful session that pam_hijack's
 * step did not move into the container.  The walk over-approximates:
 * every module may return any value, "reset" in a substack may restore
 * any state; so a stack it calls safe is safe, and a way it reports may
 * need a module to answer as it never does (pam_permit failing).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pamstack.h"

/* libpam's action codes (pam_private.h) */
enum {
	ACT_IGNORE = 0,
	ACT_OK = -1,
	ACT_DONE = -2,
	ACT_BAD = -3,
	ACT_DIE = -4,
	ACT_RESET = -5,
	ACT_UNDEF = -6,
};

/* return values (security/_pam_types.h) the walk treats apart */
enum {
	V_SUCCESS = 0,
	V_PERM_DENIED = 6,
	V_NEW_AUTHTOK_REQD = 12,
	V_IGNORE = 25,
	V_ABORT = 26,
	V_INCOMPLETE = 31
};

/* the names pam.conf(5) gives them, in their order; then "default" */
static const char *const value_names[PAMSTACK_VALUES + 1] = {
	"success",
	"open_err",
	"symbol_err",
	"service_err",
	"system_err",
	"buf_err",
	"perm_denied",
	"auth_err",
	"cred_insufficient",
	"authinfo_unavail",
	"user_unknown",
	"maxtries",
	"new_authtok_reqd",
	"acct_expired",
	"session_err",
	"cred_unavail",
	"cred_expired",
	"cred_err",
	"no_module_data",
	"conv_err",
	"authtok_err",
	"authtok_recover_err",
	"authtok_lock_busy",
	"authtok_disable_aging",
	"try_again",
	"ignore",
	"abort",
	"authtok_expired",
	"module_unknown",
	"bad_item",
	"conv_again",
	"incomplete",
	"default",
};

static const char *const action_names[] = { "ignore", "ok",  "done",
					    "bad",    "die", "reset" };

enum want { WANT_ANY, WANT_SESSION };

static int load_file(struct pamstack *ps, const char *name, const char *from,
		     unsigned int from_line, enum want want, unsigned int depth,
		     unsigned int level);

static void set_bad(struct pamstack *ps, const char *file, unsigned int line,
		    const char *what)
{
	size_t size = sizeof(ps->bad);

	if (!ps->bad[0] && (size_t)snprintf(ps->bad, size, "%s:%u: %s", file,
					    line, what) >= size)
		memcpy(ps->bad + size - 4, "...", 4);
}

static void set_default(int *act, int a)
{
	for (int i = 0; i < PAMSTACK_VALUES; i++)
		if (act[i] == ACT_UNDEF)
			act[i] = a;
}

/*
 * "[value=action ...]" as _pam_parse_control() reads it.  A pair it
 * cannot read ends the parse; what is still unset is "bad", as libpam
 * sets it.  Returns false on such a pair.
 */
static bool parse_brackets(int *act, char *s)
{
	char *save, *pair;

	for (pair = strtok_r(s, " \t\n", &save); pair;
	     pair = strtok_r(NULL, " \t\n", &save)) {
		char *eq = strchr(pair, '='), *end;
		int v, a = ACT_UNDEF;
		unsigned long n;

		if (!eq)
			return false;
		*eq++ = '\0';
		for (v = 0; v <= PAMSTACK_VALUES; v++)
			if (!strcmp(pair, value_names[v]))
				break;
		if (v > PAMSTACK_VALUES)
			return false;
		for (size_t i = 0;
		     i < sizeof(action_names) / sizeof(*action_names); i++)
			if (!strcmp(eq, action_names[i]))
				a = -(int)i;
		if (a == ACT_UNDEF) {
			if (*eq < '1' || *eq > '9')
				return false;
			errno = 0;
			n = strtoul(eq, &end, 10);
			if (*end || errno || n > INT32_MAX)
				return false;
			a = (int)n;
		}
		if (v == PAMSTACK_VALUES)
			set_default(act, a);
		else
			act[v] = a;
	}
	return true;
}

/* libpam's words for the controls, and anything else as brackets */
static bool parse_control(int *act, char *control)
{
	bool ok = true;

	for (int i = 0; i < PAMSTACK_VALUES; i++)
		act[i] = ACT_UNDEF;
	if (!strcasecmp(control, "required") ||
	    !strcasecmp(control, "requisite")) {
		act[V_SUCCESS] = act[V_NEW_AUTHTOK_REQD] = ACT_OK;
		act[V_IGNORE] = ACT_IGNORE;
		set_default(act, strcasecmp(control, "required") ? ACT_DIE :
								   ACT_BAD);
		return true;
	}
	if (!strcasecmp(control, "optional")) {
		act[V_SUCCESS] = act[V_NEW_AUTHTOK_REQD] = ACT_OK;
		set_default(act, ACT_IGNORE);
		return true;
	}
	if (!strcasecmp(control, "sufficient")) {
		act[V_SUCCESS] = act[V_NEW_AUTHTOK_REQD] = ACT_DONE;
		set_default(act, ACT_IGNORE);
		return true;
	}
	/* a misspelt word fails to parse as brackets: all "bad" */
	if (*control == '[')
		ok = parse_brackets(act, control + 1);
	else
		ok = false;
	set_default(act, ACT_BAD);
	return ok;
}

/*
 * The next word of *S as _pam_tokenize() splits: "[...]" is one word
 * up to the first ']' not escaped as "\]"; the returned word keeps its
 * '[' so the caller can tell brackets from a control word.
 */
static char *next_word(char **s)
{
	char *from = *s + strspn(*s, " \t\n"), *end, *to;

	if (!*from)
		return NULL;
	if (*from == '[') {
		for (to = end = from + 1; *end && *end != ']'; to++, end++) {
			if (*end == '\\' && end[1] == ']')
				end++;
			*to = *end;
		}
		if (*end)
			end++;
		*to = '\0';
	} else {
		end = from + strcspn(from, " \t\n");
		if (*end)
			*end++ = '\0';
	}
	*s = end;
	return from;
}

static bool is_hijack(const char *module)
{
	const char *base = strrchr(module, '/');

	return !strcmp(base ? base + 1 : module, "pam_hijack.so");
}

static struct pamstack_entry *add_entry(struct pamstack *ps,
					enum pamstack_kind kind,
					const char *file, unsigned int line,
					const char *text, unsigned int level)
{
	struct pamstack_entry *e;

	if (ps->n == PAMSTACK_MAX_ENTRIES) {
		errno = E2BIG;
		return NULL;
	}
	if (ps->n == ps->cap) {
		size_t cap = ps->cap ? 2 * ps->cap : 32;

		e = realloc(ps->e, cap * sizeof(*e));
		if (!e)
			return NULL;
		ps->e = e;
		ps->cap = cap;
	}
	e = &ps->e[ps->n];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->level = level;
	e->line = line;
	e->file = strdup(file);
	e->text = strdup(text);
	if (!e->file || !e->text) {
		free(e->file);
		free(e->text);
		errno = ENOMEM;
		return NULL;
	}
	for (int i = 0; i < PAMSTACK_VALUES; i++)
		e->act[i] = ACT_BAD;
	ps->n++;
	return e;
}

/* one line, WANT the types it may add (include'd files: session only) */
static int add_line(struct pamstack *ps, const char *file, unsigned int lineno,
		    char *line, enum want want, unsigned int depth,
		    unsigned int level)
{
	char text[1024], what[1400], *s = line, *type, *control, *module;
	struct pamstack_entry *e;
	bool silent = false, session, was_bad;
	size_t len = 0;
	int r;

	/* the line for messages: its words joined by one space */
	for (char *p = line; *p && len + 1 < sizeof(text);) {
		size_t w = strcspn(p, " \t\n");

		if (w) {
			len += (size_t)snprintf(text + len, sizeof(text) - len,
						"%s%.*s", len ? " " : "",
						(int)w, p);
			len = len < sizeof(text) ? len : sizeof(text) - 1;
		}
		p += w;
		p += strspn(p, " \t\n");
	}
	text[len] = '\0';
	type = next_word(&s);
	if (!type)
		return 0;
	/* Debian's libpam: every line of the named file, in place */
	if (!strcmp(type, "@include")) {
		char *name = next_word(&s);

		if (!name) {
			set_bad(ps, file, lineno, "@include names no file");
			return 0;
		}
		was_bad = ps->bad[0] != '\0';
		r = load_file(ps, name, file, lineno, want, depth + 1, level);
		if (r == -ENOMEM || r == -E2BIG)
			return r;
		/* Debian's libpam then fails pam_start() itself */
		len = strlen(ps->bad);
		if (r && !was_bad && len + 40 < sizeof(ps->bad))
			snprintf(ps->bad + len, sizeof(ps->bad) - len,
				 " (libpam fails every login of the service)");
		return 0;
	}
	if (*type == '-') {
		silent = true;
		type++;
	}
	session = !strcasecmp(type, "session");
	if (!session && strcasecmp(type, "auth") &&
	    strcasecmp(type, "account") && strcasecmp(type, "password")) {
		snprintf(what, sizeof(what), "'%s': unknown module type '%s'",
			 text, type);
		set_bad(ps, file, lineno, what);
		/* libpam files it under the type being read, auth if any */
		if (want != WANT_SESSION)
			return 0;
		return add_entry(ps, PAMSTACK_BROKEN, file, lineno, text,
				 level) ?
			       0 :
			       -errno;
	}
	control = next_word(&s);
	module = control ? next_word(&s) : NULL;
	if (module && is_hijack(module))
		ps->found = true;
	if (!session)
		return 0;
	if (!control || !module) {
		snprintf(what, sizeof(what), "'%s': no %s", text,
			 control ? "module" : "control");
		set_bad(ps, file, lineno, what);
		return add_entry(ps, PAMSTACK_BROKEN, file, lineno, text,
				 level) ?
			       0 :
			       -errno;
	}
	if (!strcasecmp(control, "include") ||
	    !strcasecmp(control, "substack")) {
		bool sub = tolower((unsigned char)*control) == 's';
		size_t mark = ps->n;

		if (sub && !add_entry(ps, PAMSTACK_SUBSTACK, file, lineno, text,
				      level))
			return -errno;
		r = load_file(ps, module, file, lineno, WANT_SESSION, depth + 1,
			      level + sub);
		if (r == -ENOMEM || r == -E2BIG)
			return r;
		if (r == 0)
			return 0;
		/* libpam installs a failing handler in its place */
		while (ps->n > mark) {
			ps->n--;
			free(ps->e[ps->n].file);
			free(ps->e[ps->n].text);
		}
		return add_entry(ps, PAMSTACK_BROKEN, file, lineno, text,
				 level) ?
			       0 :
			       -errno;
	}
	e = add_entry(ps, PAMSTACK_MODULE, file, lineno, text, level);
	if (!e)
		return -errno;
	e->silent = silent;
	e->hijack = is_hijack(module);
	if (!parse_control(e->act, control)) {
		snprintf(what, sizeof(what),
			 "'%s': control '%s' is not one libpam reads (what it "
			 "cannot read is 'bad')",
			 text, control);
		set_bad(ps, file, lineno, what);
	}
	return 0;
}

int pamstack_add_line(struct pamstack *ps, const char *file,
		      unsigned int lineno, char *line, unsigned int depth,
		      unsigned int level)
{
	return add_line(ps, file, lineno, line, WANT_ANY, depth, level);
}

/*
 * The lines of F as _pam_line_assemble() gives them: "#" to the end of
 * the line is a comment, a backslash at the end joins the next line.
 */
static int read_lines(struct pamstack *ps, FILE *f, const char *path,
		      enum want want, unsigned int depth, unsigned int level)
{
	size_t cap = 0, len = 0, lcap = 256;
	char *buf = NULL, *line = malloc(lcap);
	unsigned int lineno = 0, first = 0;
	ssize_t got;
	int r = 0;

	if (!line)
		return -ENOMEM;
	line[0] = '\0';

	while ((got = getline(&buf, &cap, f)) >= 0) {
		char *hash;
		bool more;

		lineno++;
		if (!len)
			first = lineno;
		if (got && buf[got - 1] == '\n')
			buf[--got] = '\0';
		hash = strchr(buf, '#');
		if (hash) {
			*hash = '\0';
			got = hash - buf;
		}
		more = !hash && got && buf[got - 1] == '\\';
		if (more)
			buf[--got] = ' ';
		if (len + (size_t)got + 2 > lcap) {
			char *n = realloc(line, len + (size_t)got + 64);

			if (!n) {
				r = -ENOMEM;
				break;
			}
			line = n;
			lcap = len + (size_t)got + 64;
		}
		memcpy(line + len, buf, (size_t)got);
		len += (size_t)got;
		line[len] = '\0';
		if (more)
			continue;
		r = add_line(ps, path, first, line, want, depth, level);
		len = 0;
		if (r)
			break;
	}
	if (!r && len)
		r = add_line(ps, path, first, line, want, depth, level);
	free(buf);
	free(line);
	return r;
}

/* NAME as _pam_open_config_file() finds it */
static FILE *open_config(const struct pamstack *ps, const char *name,
			 char *path, size_t size)
{
	static const char *const dirs[] = { "/etc/pam.d", "/usr/lib/pam.d" };
	FILE *f;

	if (*name == '/' || ps->dir) {
		snprintf(path, size, "%s%s%s", *name == '/' ? "" : ps->dir,
			 *name == '/' ? "" : "/", name);
		return fopen(path, "re");
	}
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, size, "%s/%s", dirs[i], name);
		f = fopen(path, "re");
		if (f || errno != ENOENT)
			return f;
	}
	/* in neither: name the one an admin writes */
	snprintf(path, size, "%s/%s", dirs[0], name);
	errno = ENOENT;
	return NULL;
}

static int load_file(struct pamstack *ps, const char *name, const char *from,
		     unsigned int from_line, enum want want, unsigned int depth,
		     unsigned int level)
{
	char path[512], what[1200];
	FILE *f;
	int r;

	if (depth >= PAMSTACK_MAX_DEPTH || level >= PAMSTACK_MAX_DEPTH) {
		snprintf(what, sizeof(what),
			 "'%s' is included more than %d deep", name,
			 PAMSTACK_MAX_DEPTH);
		set_bad(ps, from, from_line, what);
		return -ELOOP;
	}
	if (++ps->files > PAMSTACK_MAX_FILES)
		return -E2BIG;
	f = open_config(ps, name, path, sizeof(path));
	if (!f) {
		r = -errno;
		snprintf(what, sizeof(what), "cannot read '%s': %s", path,
			 strerror(errno));
		set_bad(ps, from, from_line, what);
		return r;
	}
	r = read_lines(ps, f, path, want, depth, level);
	fclose(f);
	return r;
}

int pamstack_load(struct pamstack *ps, const char *dir, const char *service)
{
	FILE *f;
	int r;

	memset(ps, 0, sizeof(*ps));
	ps->dir = dir;
	f = open_config(ps, service, ps->path, sizeof(ps->path));
	if (!f)
		return -errno;
	r = read_lines(ps, f, ps->path, WANT_ANY, 0, 0);
	fclose(f);
	return r;
}

void pamstack_free(struct pamstack *ps)
{
	for (size_t i = 0; i < ps->n; i++) {
		free(ps->e[i].file);
		free(ps->e[i].text);
	}
	free(ps->e);
	ps->e = NULL;
	ps->n = ps->cap = 0;
}

/*
 * The walk.  A state is a place in the chain, libpam's impression so far
 * (undecided, positive with success, positive with a failure, negative),
 * and whether pam_hijack's step failed on the way; each keeps the first
 * line to blame that reached it.
 */
enum { IMP_UNDEF, IMP_OK, IMP_FAIL, IMP_NEG, IMPS };

struct walk {
	const struct pamstack *ps;
	const size_t *hj; /* hj[i]: pam_hijack entries before i */
	unsigned char *seen;
	long *culprit;
	unsigned char *why;
	size_t *queue, head, tail;
};

static size_t state(size_t pos, int imp, int failed)
{
	return (pos * IMPS + (size_t)imp) * 2 + (size_t)failed;
}

static void push(struct walk *w, size_t pos, int imp, int failed, long culprit,
		 enum pamstack_why why)
{
	size_t s = state(pos, imp, failed);

	if (w->seen[s])
		return;
	w->seen[s] = 1;
	w->culprit[s] = culprit;
	w->why[s] = (unsigned char)why;
	w->queue[w->tail++] = s;
}

/* does (from, to] hold a pam_hijack entry? */
static bool skips_step(const struct walk *w, size_t from, size_t to)
{
	return w->hj[to + 1] > w->hj[from + 1];
}

/* libpam's "decision made": past the rest of POS's substack */
static size_t level_end(const struct pamstack *ps, size_t pos)
{
	unsigned int level = ps->e[pos].level;

	while (pos + 1 < ps->n && ps->e[pos + 1].level >= level)
		pos++;
	return pos;
}

/* a jump over N modules, a substack counting as one; -1 past the end */
static long jump_end(const struct pamstack *ps, size_t pos, int n)
{
	unsigned int level = ps->e[pos].level;

	while (pos + 1 < ps->n && ps->e[pos + 1].level >= level && n > 0) {
		do
			pos++;
		while (pos + 1 < ps->n && ps->e[pos + 1].level > level);
		n--;
	}
	return n ? -1 : (long)pos;
}

static void step(struct walk *w, size_t pos, int imp, int failed, long culprit,
		 enum pamstack_why why, int value)
{
	const struct pamstack_entry *e = &w->ps->e[pos];
	int a = e->act[value], nimp = imp;
	size_t next = pos + 1;

	if (e->hijack) {
		/* it moved the session: this way is safe */
		if (value == V_SUCCESS)
			return;
		/* only for a user it does not map */
		if (value == V_IGNORE)
			return;
		/* a failure that does not fail the stack */
		if (a != ACT_BAD && a != ACT_DIE && culprit < 0) {
			culprit = (long)pos;
			why = PAMSTACK_NOT_REQUIRED;
		}
		failed = 1;
	}
	switch (a) {
	case ACT_RESET:
		if (culprit < 0) {
			culprit = (long)pos;
			why = PAMSTACK_RESETS;
		}
		/* a substack's reset restores its start, which we do not
		 * keep: any impression */
		if (e->level) {
			for (int i = 0; i < IMPS; i++)
				push(w, next, i, failed, culprit, why);
			return;
		}
		nimp = IMP_UNDEF;
		break;
	case ACT_OK:
	case ACT_DONE:
		if (imp == IMP_UNDEF || imp == IMP_OK)
			nimp = value == V_SUCCESS ? IMP_OK : IMP_FAIL;
		if (a == ACT_DONE && nimp != IMP_UNDEF && nimp != IMP_NEG) {
			size_t end = level_end(w->ps, pos);

			if (culprit < 0 && !failed && skips_step(w, pos, end)) {
				culprit = (long)pos;
				why = PAMSTACK_ENDS_BEFORE;
			}
			next = end + 1;
		}
		break;
	case ACT_BAD:
	case ACT_DIE:
		nimp = IMP_NEG;
		/* PAM_FAIL_NOW_ON builds end the stack on PAM_ABORT */
		if (a == ACT_DIE || value == V_ABORT) {
			size_t end = level_end(w->ps, pos);

			push(w, end + 1, nimp, failed, culprit, why);
			if (a == ACT_DIE)
				return;
		}
		break;
	case ACT_IGNORE:
		break;
	default: {
		long end = a > 0 ? jump_end(w->ps, pos, a) : -1;

		if (end < 0) {
			/* "bad jump in stack" */
			nimp = IMP_NEG;
			next = level_end(w->ps, pos) + 1;
		} else {
			if (culprit < 0 && !failed &&
			    skips_step(w, pos, (size_t)end)) {
				culprit = (long)pos;
				why = PAMSTACK_JUMPS_OVER;
			}
			next = (size_t)end + 1;
		}
	}
	}
	push(w, next, nimp, failed, culprit, why);
}

void pamstack_check(const struct pamstack *ps, struct pamstack_verdict *v)
{
	size_t n = ps->n, states = (n + 1) * IMPS * 2;
	struct walk w = { .ps = ps };
	size_t *hj;

	v->why = PAMSTACK_SAFE;
	v->culprit = v->step = v->after = -1;
	for (size_t i = 0; i < n; i++) {
		if (ps->e[i].hijack && ps->e[i].kind == PAMSTACK_MODULE &&
		    (v->step < 0 ||
		     (ps->e[v->step].silent && !ps->e[i].silent)))
			v->step = (long)i;
	}
	for (size_t i = v->step >= 0 ? (size_t)v->step + 1 : n; i < n; i++)
		if (ps->e[i].kind == PAMSTACK_MODULE) {
			v->after = (long)i;
			break;
		}
	/* without the step, a stack that cannot open a session at all
	 * is no safer: say so, not what the walk would find */
	if (v->step < 0) {
		v->why = PAMSTACK_NO_STEP;
		return;
	}
	hj = calloc(n + 2, sizeof(*hj));
	w.hj = hj;
	w.seen = calloc(states, 1);
	w.culprit = calloc(states, sizeof(*w.culprit));
	w.why = calloc(states, 1);
	w.queue = calloc(states, sizeof(*w.queue));
	if (!hj || !w.seen || !w.culprit || !w.why || !w.queue) {
		/* no answer is no proof: say it can be skipped */
		v->why = PAMSTACK_SKIPPED;
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		hj[i + 1] = hj[i] + (ps->e[i].hijack ? 1 : 0);
	push(&w, 0, IMP_UNDEF, 0, -1, PAMSTACK_SAFE);
	while (w.head < w.tail) {
		size_t s = w.queue[w.head++], pos = s / 2 / IMPS;
		int imp = (int)(s / 2 % IMPS), failed = (int)(s % 2);
		long culprit = w.culprit[s];
		enum pamstack_why why = w.why[s];
		const struct pamstack_entry *e;

		if (pos == n) {
			if (imp != IMP_OK)
				continue;
			v->culprit = culprit;
			v->why = culprit >= 0 ? why :
				 v->step < 0  ? PAMSTACK_NO_STEP :
						PAMSTACK_SKIPPED;
			goto out;
		}
		e = &ps->e[pos];
		if (e->kind == PAMSTACK_SUBSTACK) {
			push(&w, pos + 1, imp, failed, culprit, why);
			continue;
		}
		if (e->kind == PAMSTACK_BROKEN) {
			step(&w, pos, imp, failed, culprit, why, V_PERM_DENIED);
			continue;
		}
		/* "-session" without its module gives PAM_MODULE_UNKNOWN,
		 * one of these */
		for (int value = 0; value < V_INCOMPLETE; value++)
			step(&w, pos, imp, failed, culprit, why, value);
	}
out:
	free(hj);
	free(w.seen);
	free(w.culprit);
	free(w.why);
	free(w.queue);
}
