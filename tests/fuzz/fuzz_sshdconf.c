// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * libFuzzer harness: hijack-shell --check's reader of sshd_config
 * (hijack/sshdconf.c) on any text.  The input is the main file,
 * then after a NUL byte what every Include brings.  Each finding names a
 * line of the text it came from, a keyword of sshdconf's table and a
 * Match line; Include nesting stays bounded.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sshdconf.h"

#define CHECK(x)                 \
	do {                     \
		if (!(x))        \
			abort(); \
	} while (0)

static const char *const groups[] = { "alice", "staff" };
static const struct sshdconf_user alice = { "alice", groups, 2 };
static const char *main_text, *incl_text;
static size_t main_len, incl_len, includes;

static size_t lines(const char *text, size_t len)
{
	size_t n = 1, i;

	for (i = 0; i < len; i++)
		n += text[i] == '\n';
	return n;
}

static void report(struct sshdconf_scan *sc, const struct sshdconf_finding *f)
{
	bool inc = !strcmp(f->file, "inc");

	CHECK(inc || !strcmp(f->file, "main"));
	CHECK(f->line >= 1 && f->line <= lines(inc ? incl_text : main_text,
					       inc ? incl_len : main_len));
	CHECK(f->keyword && f->value && f->why && f->match);
	CHECK(memchr(f->match, '\0', sizeof(sc->block.match)));
	CHECK(sshdconf_risky(f->keyword, NULL, 0, NULL) == NULL);
}

static void include(struct sshdconf_scan *sc, const char *file,
		    unsigned int line, const char *pattern)
{
	(void)file;
	(void)line;
	CHECK(pattern[0] == '/' || pattern[0] == '~');
	CHECK(sc->depth >= 1);
	/* k Include lines nest k^depth times: bound the work, not the depth */
	if (sc->depth > 4 || ++includes > 64)
		return;
	sshdconf_scan_text(sc, "inc", incl_text, incl_len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *nul = memchr(text, '\0', size);
	struct sshdconf_scan sc;

	includes = 0;
	main_text = text;
	main_len = nul ? (size_t)(nul - text) : size;
	incl_text = nul ? nul + 1 : "";
	incl_len = nul ? size - main_len - 1 : 0;
	sshdconf_scan_init(&sc, &alice);
	sc.report = report;
	sc.include = include;
	sshdconf_scan_text(&sc, "main", main_text, main_len);
	CHECK(sc.depth == 0);
	return 0;
}
