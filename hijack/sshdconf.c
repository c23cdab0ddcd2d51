// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sshd_config's Match blocks for hijack-shell --check.  `sshd -T -C`
 * evaluates the configuration for one connection; a Match Address,
 * Host, LocalAddress, LocalPort or RDomain block applies to others.  So
 * this reads the files as sshd does (OpenSSH 9.2 servconf.c:
 * process_server_config_line_depth, match_cfg_line; misc.c: strdelim,
 * argv_split; match.c: match_pattern_list) and names every setting, in
 * a block that can select the user, that lets the user reach the host.
 *
 * What sshd does and this follows:
 *  - keywords and Match criteria are case-insensitive; "Key=value" and
 *    "Key value" are the same; '"' and '\'' quote; a word starting with
 *    '#' ends the line;
 *  - a Match block runs to the next Match or to the end of the file it
 *    is in: an Include'd file's blocks end with that file, and its lines
 *    before its first Match belong to the block the Include is in;
 *  - Include takes glob patterns, relative ones under /etc/ssh; an
 *    Include inside a block that cannot apply is never applied;
 *  - the criteria on a Match line are ANDed; User and Group pattern lists
 *    are case-sensitive, '*' '?' wildcards, '!' negates and wins;
 *  - in the blocks that apply, the first value of a keyword wins (so a
 *    block that always applies to the user settles that keyword for the
 *    blocks after it), except Subsystem, which adds (Match accepts it
 *    since OpenSSH 9.5).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sshdconf.h"

#define WHITESPACE " \t\r\n"
#define MAX_FILE (4 << 20)

int sshdconf_split(char *line, char **words, int max)
{
	size_t len = strlen(line);
	char *p = line, *w;
	int n = 0, quote;

	/* sshd strips trailing whitespace and form feeds */
	while (len > 0 && strchr(WHITESPACE "\f", line[len - 1]))
		line[--len] = '\0';
	/* the keyword (strdelim): ends at whitespace, '"' or one '=' */
	p += strspn(p, WHITESPACE);
	if (!*p || *p == '#' || max < 1)
		return 0;
	words[n++] = p;
	p += strcspn(p, WHITESPACE "=\"");
	if (*p == '"')
		return -1; /* sshd reads no sane keyword out of that either */
	if (*p) {
		bool eq = *p == '=';

		*p++ = '\0';
		p += strspn(p, WHITESPACE);
		if (!eq && *p == '=')
			p += 1 + strspn(p + 1, WHITESPACE);
	}
	/* the arguments (argv_split with terminate_on_comment) */
	while (*p && n < max) {
		if (*p == ' ' || *p == '\t') {
			p++;
			continue;
		}
		if (*p == '#')
			break;
		quote = 0;
		w = words[n++] = p;
		for (; *p; p++) {
			if (*p == '\\' &&
			    (p[1] == '\'' || p[1] == '"' || p[1] == '\\' ||
			     (!quote && p[1] == ' '))) {
				*w++ = *++p;
			} else if (!quote && (*p == ' ' || *p == '\t')) {
				break;
			} else if (!quote && (*p == '"' || *p == '\'')) {
				quote = *p;
			} else if (quote && *p == quote) {
				quote = 0;
			} else {
				*w++ = *p;
			}
		}
		if (quote)
			return -1;
		if (*p)
			p++; /* past the blank that ended the word */
		*w = '\0';
	}
	return n;
}

/* match.c match_pattern(): '*' any run, '?' any one character */
static bool pattern_match(const char *s, const char *p, size_t plen)
{
	size_t si = 0, pi = 0, star = SIZE_MAX, mark = 0, slen = strlen(s);

	while (si < slen) {
		if (pi < plen && p[pi] == '*') {
			star = pi++;
			mark = si;
		} else if (pi < plen && (p[pi] == '?' || p[pi] == s[si])) {
			pi++;
			si++;
		} else if (star != SIZE_MAX) {
			pi = star + 1;
			si = ++mark;
		} else {
			return false;
		}
	}
	while (pi < plen && p[pi] == '*')
		pi++;
	return pi == plen;
}

int sshdconf_pattern_list(const char *s, const char *list)
{
	int found = 0;

	while (*list) {
		size_t len = strcspn(list, ",");
		bool neg = *list == '!';
		const char *p = list + neg;
		size_t plen = len - neg;

		/* match.c gives up on a list with a subpattern this long */
		if (len >= 1023)
			return 0;
		if (pattern_match(s, p, plen)) {
			if (neg)
				return -1;
			found = 1;
		}
		list += len;
		if (*list == ',')
			list++;
	}
	return found;
}

/* groupaccess.c ga_match_pattern_list(): a negated match wins */
static bool group_match(const struct sshdconf_user *u, const char *list)
{
	bool found = false;
	size_t i;

	for (i = 0; i < u->ngroups; i++)
		switch (sshdconf_pattern_list(u->groups[i], list)) {
		case -1:
			return false;
		case 1:
			found = true;
		}
	return found;
}

enum sshdconf_applies sshdconf_match_applies(char **words, int n,
					     const struct sshdconf_user *u)
{
	enum sshdconf_applies r = SSHDCONF_ALWAYS;
	const char *crit[2 * SSHDCONF_MAX_WORDS];
	int i, nc = 0;

	/* strdelim splits "User=alice" and "User = alice" too */
	for (i = 0; i < n; i++) {
		char *w = words[i], *eq;

		while ((eq = strchr(w, '=')) && nc < 2 * SSHDCONF_MAX_WORDS) {
			if (eq > w) {
				*eq = '\0';
				crit[nc++] = w;
			}
			w = eq + 1;
		}
		if (*w && nc < 2 * SSHDCONF_MAX_WORDS)
			crit[nc++] = w;
	}
	/* sshd refuses what is not handled here: assume it applies */
	if (nc == 0 || crit[0][0] == '#')
		return SSHDCONF_MAYBE;
	for (i = 0; i < nc && crit[i][0] != '#'; i += 2) {
		const char *attr = crit[i], *arg;

		if (!strcasecmp(attr, "all"))
			return i == 0 && (nc == 1 || crit[1][0] == '#') ?
				       SSHDCONF_ALWAYS :
				       SSHDCONF_MAYBE;
		if (i + 1 >= nc || crit[i + 1][0] == '#')
			return SSHDCONF_MAYBE;
		arg = crit[i + 1];
		if (!strcasecmp(attr, "user")) {
			if (sshdconf_pattern_list(u->name, arg) != 1)
				return SSHDCONF_NEVER;
		} else if (!strcasecmp(attr, "group")) {
			if (!group_match(u, arg))
				return SSHDCONF_NEVER;
		} else {
			/* Host, Address, LocalAddress, LocalPort, RDomain */
			r = SSHDCONF_MAYBE;
		}
	}
	return r;
}

enum risk { FORWARDING, COMMAND, CHROOT, SUBSYSTEM };

static const struct risky {
	const char *name;
	enum risk risk;
} risky[] = {
	{ "AllowTcpForwarding", FORWARDING },
	{ "X11Forwarding", FORWARDING },
	{ "AllowStreamLocalForwarding", FORWARDING },
	{ "PermitTunnel", FORWARDING },
	{ "ForceCommand", COMMAND },
	{ "ChrootDirectory", CHROOT },
	{ "Subsystem", SUBSYSTEM },
};

static int risky_index(const char *keyword)
{
	size_t i;

	for (i = 0; i < sizeof(risky) / sizeof(risky[0]); i++)
		if (!strcasecmp(keyword, risky[i].name))
			return (int)i;
	return -1;
}

const char *sshdconf_risky(const char *keyword, char **args, int nargs,
			   const char **canonical)
{
	int i = risky_index(keyword), a;

	if (canonical)
		*canonical = i < 0 ? NULL : risky[i].name;
	if (i < 0 || nargs < 1)
		return NULL;
	switch (risky[i].risk) {
	case FORWARDING:
		/* "no" is the only value of these that forwards nothing */
		if (!strcasecmp(args[0], "no"))
			return NULL;
		return "forwarding is done by sshd on the host, outside the "
		       "container";
	case COMMAND:
		if (!strcasecmp(args[0], "none"))
			return NULL;
		/* session.c IS_INTERNAL_SFTP: sshd serves it itself */
		if (!strcmp(args[0], "internal-sftp"))
			return "bypasses the login shell: sftp lands on the "
			       "host";
		return "runs through the shell but replaces the user's "
		       "command";
	case CHROOT:
		if (!strcasecmp(args[0], "none"))
			return NULL;
		return "hides the login shell";
	case SUBSYSTEM:
		for (a = 0; a < nargs; a++)
			if (strstr(args[a], "internal-sftp"))
				return "bypasses the login shell: sftp lands "
				       "on the host; use an external "
				       "sftp-server";
		return NULL;
	}
	return NULL;
}

void sshdconf_scan_init(struct sshdconf_scan *sc, const struct sshdconf_user *u)
{
	memset(sc, 0, sizeof(*sc));
	sc->user = u;
}

static void join(char *out, size_t size, char **words, int n)
{
	size_t len = 0;
	int i;

	out[0] = '\0';
	for (i = 0; i < n && len < size; i++)
		len += snprintf(out + len, size - len, "%s%s", i ? " " : "",
				words[i]);
}

static void include(struct sshdconf_scan *sc, const char *file,
		    unsigned int lineno, char **args, int nargs)
{
	struct sshdconf_block saved = sc->block;
	char pattern[4096];
	int i;

	for (i = 0; i < nargs && sc->include; i++) {
		if (args[i][0] == '/' || args[i][0] == '~')
			snprintf(pattern, sizeof(pattern), "%s", args[i]);
		else
			snprintf(pattern, sizeof(pattern), "%s/%s",
				 SSHDCONF_DIR, args[i]);
		sc->depth++;
		sc->include(sc, file, lineno, pattern);
		sc->depth--;
		/* an Include'd file does not change the including one's block */
		sc->block = saved;
	}
}

void sshdconf_scan_line(struct sshdconf_scan *sc, const char *file,
			unsigned int lineno, const char *line)
{
	char *copy = strdup(line), *words[SSHDCONF_MAX_WORDS], value[1024];
	struct sshdconf_finding f;
	const char *why, *name;
	unsigned int bit;
	int n, i;

	if (!copy)
		return;
	n = sshdconf_split(copy, words, SSHDCONF_MAX_WORDS);
	if (n <= 0)
		goto out;
	if (!strcasecmp(words[0], "match")) {
		sc->block.in_match = true;
		sc->block.seen = 0;
		join(sc->block.match, sizeof(sc->block.match), words + 1,
		     n - 1);
		sc->block.applies =
			sshdconf_match_applies(words + 1, n - 1, sc->user);
		goto out;
	}
	if (sc->block.in_match && sc->block.applies == SSHDCONF_NEVER)
		goto out;
	if (!strcasecmp(words[0], "include")) {
		include(sc, file, lineno, words + 1, n - 1);
		goto out;
	}
	/* the global section is what sshd -T shows */
	if (!sc->block.in_match)
		goto out;
	why = sshdconf_risky(words[0], words + 1, n - 1, &name);
	i = risky_index(words[0]);
	if (i < 0)
		goto out;
	bit = 1u << i;
	if (risky[i].risk != SUBSYSTEM) {
		if ((sc->settled | sc->block.seen) & bit)
			goto out; /* an earlier value wins */
		sc->block.seen |= bit;
		if (sc->block.applies == SSHDCONF_ALWAYS)
			sc->settled |= bit;
	}
	if (!why || !sc->report)
		goto out;
	join(value, sizeof(value), words + 1, n - 1);
	f.file = file;
	f.line = lineno;
	f.match = sc->block.match;
	f.keyword = name;
	f.value = value;
	f.why = why;
	sc->report(sc, &f);
out:
	free(copy);
}

void sshdconf_scan_text(struct sshdconf_scan *sc, const char *file,
			const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	unsigned int lineno = 0;
	char *line;

	while (p < end) {
		const char *eol = memchr(p, '\n', end - p);
		size_t ll = eol ? (size_t)(eol - p) : (size_t)(end - p);

		lineno++;
		line = strndup(p, ll); /* a NUL ends the line, as fgets */
		if (line)
			sshdconf_scan_line(sc, file, lineno, line);
		free(line);
		p = eol ? eol + 1 : end;
	}
}

static void scan_error(struct sshdconf_scan *sc, int err, const char *path)
{
	if (sc->error)
		return;
	sc->error = err;
	snprintf(sc->bad, sizeof(sc->bad), "%s", path);
}

/*
 * The file as sshd's load_server_config() reads it: symbolic links are
 * followed, as sshd does, since what matters is what sshd will read.
 */
static void scan_one(struct sshdconf_scan *sc, const char *path)
{
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	ssize_t r;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		scan_error(sc, -errno, path);
		return;
	}
	if (fstat(fd, &st)) {
		scan_error(sc, -errno, path);
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_FILE) {
		scan_error(sc, S_ISREG(st.st_mode) ? -EFBIG : -EINVAL, path);
		goto out;
	}
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		scan_error(sc, -ENOMEM, path);
		goto out;
	}
	while (len < (size_t)st.st_size &&
	       (r = read(fd, buf + len, (size_t)st.st_size - len)) > 0)
		len += (size_t)r;
	sshdconf_scan_text(sc, path, buf, len);
out:
	free(buf);
	close(fd);
}

static void include_files(struct sshdconf_scan *sc, const char *file,
			  unsigned int line, const char *pattern)
{
	char where[512];
	glob_t g;
	size_t i;
	int r;

	/* sshd: "too many recursive configuration includes" */
	if (sc->depth > SSHDCONF_MAX_DEPTH) {
		snprintf(where, sizeof(where), "%s:%u", file, line);
		scan_error(sc, -ELOOP, where);
		return;
	}
	r = glob(pattern, 0, NULL, &g);
	if (r == GLOB_NOMATCH)
		return; /* sshd skips it too */
	if (r) {
		scan_error(sc, -EIO, pattern);
		return;
	}
	for (i = 0; i < g.gl_pathc; i++)
		scan_one(sc, g.gl_pathv[i]);
	globfree(&g);
}

int sshdconf_scan_file(struct sshdconf_scan *sc, const char *path)
{
	sc->include = include_files;
	scan_one(sc, path);
	return sc->error;
}
