/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sshd_config's Match blocks as hijack check reads them: which
 * blocks can apply to a user for some connection, and which of their
 * settings would let that user reach the host.  The line functions are
 * pure (unit tests and the fuzzer call them); sshdconf_scan_file() reads
 * files and Include globs.
 */
#ifndef HIJACK_SSHDCONF_H
#define HIJACK_SSHDCONF_H

#include <stdbool.h>
#include <stddef.h>

/* sshd's own limits: SERVCONF_MAX_DEPTH, and its SSHDIR on Debian */
#define SSHDCONF_MAX_DEPTH 16
#define SSHDCONF_DIR "/etc/ssh"
#define SSHDCONF_MAX_WORDS 64

/* the user a Match line is evaluated for */
struct sshdconf_user {
	const char *name;
	const char *const *groups; /* names of every group the user is in */
	size_t ngroups;
};

/* whether a Match line can select the user's connections */
enum sshdconf_applies {
	SSHDCONF_NEVER, /* a User or Group criterion excludes the user */
	SSHDCONF_MAYBE, /* for some address, host, port or routing domain */
	SSHDCONF_ALWAYS, /* 'all', or only User and Group that hold */
};

/* a setting in a Match block that may apply */
struct sshdconf_finding {
	const char *file;
	unsigned int line;
	const char *match; /* the Match line's criteria as written */
	const char *keyword; /* sshd's spelling: "AllowTcpForwarding" */
	const char *value; /* its arguments, space separated */
	const char *why;
};

struct sshdconf_scan;
/* called for Include PATTERN (made absolute) where it applies */
typedef void sshdconf_include_fn(struct sshdconf_scan *sc, const char *file,
				 unsigned int line, const char *pattern);
typedef void sshdconf_report_fn(struct sshdconf_scan *sc,
				const struct sshdconf_finding *f);

struct sshdconf_block {
	bool in_match; /* else the global section */
	enum sshdconf_applies applies;
	char match[256];
	unsigned int seen; /* risky keywords this block set already */
};

struct sshdconf_scan {
	const struct sshdconf_user *user;
	sshdconf_include_fn *include;
	sshdconf_report_fn *report;
	void *data; /* for the callbacks */
	unsigned int depth; /* Include nesting of the text being scanned */
	/* state: the current block, keywords an applying block settled */
	struct sshdconf_block block;
	unsigned int settled;
	/* sshdconf_scan_file(): the first error, and its file */
	int error;
	char bad[512];
};

/*
 * Split LINE in place into at most MAX words as sshd does: the keyword
 * ends at whitespace or one '=', '"' quotes, a word starting with '#'
 * ends the line.  Returns the number of words, -1 for an unterminated
 * quote.
 */
int sshdconf_split(char *line, char **words, int max);

/* OpenSSH's match_pattern_list(): 1 match, -1 negated match, 0 none */
int sshdconf_pattern_list(const char *s, const char *list);

/* Match criteria WORDS[0..N) (after "Match") for the user */
enum sshdconf_applies sshdconf_match_applies(char **words, int n,
					     const struct sshdconf_user *u);

/* the reason KEYWORD VALUE lets a user reach the host, or NULL */
const char *sshdconf_risky(const char *keyword, char **args, int nargs,
			   const char **canonical);

void sshdconf_scan_init(struct sshdconf_scan *sc,
			const struct sshdconf_user *u);
/* one line (NUL-terminated, no newline) of FILE */
void sshdconf_scan_line(struct sshdconf_scan *sc, const char *file,
			unsigned int lineno, const char *line);
/* a whole file's text; Include'd files end their own Match blocks */
void sshdconf_scan_text(struct sshdconf_scan *sc, const char *file,
			const char *text, size_t len);

/*
 * Scan PATH and its Include'd files (glob, relative to SSHDCONF_DIR),
 * setting sc->include to the reader of real files.  Returns 0, or the
 * first error as -errno with the file in sc->bad: unreadable, not a
 * regular file, too large, Include nested too deep (-ELOOP), a glob
 * error (-EIO).
 */
int sshdconf_scan_file(struct sshdconf_scan *sc, const char *path);

#endif /* HIJACK_SSHDCONF_H */
