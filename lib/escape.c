// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Text from outside (/proc, cgroupfs, a container's files, the
 * directory, the environment) made safe to print on root's terminal or
 * in a log line: a cgroup a user named "\r\e[2K" must not erase the row
 * it is listed in.  Every byte outside printable ASCII, and the
 * backslash that introduces the escapes, becomes \xNN, as in systemd's
 * cescape() and util-linux's fputs_quoted(); UTF-8 too, since the C1
 * controls (U+0080-U+009F) are two-byte sequences some terminals obey.
 */
#include "config.h"

#include <stddef.h>
#include <stdio.h>

#include "hijack.h"

/* is printed as it is: printable ASCII but the backslash */
static int plain(unsigned char c)
{
	return c >= 0x20 && c < 0x7f && c != '\\';
}

const char *hj_escape(const char *in, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!size)
		return "";
	for (; in && *in; in++) {
		unsigned char c = (unsigned char)*in;

		if (plain(c)) {
			if (o + 1 >= size)
				break;
			out[o++] = (char)c;
			continue;
		}
		/* a whole escape or none: never half of one */
		if (o + 4 >= size)
			break;
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[c >> 4];
		out[o++] = hex[c & 0xf];
	}
	out[o] = '\0';
	return out;
}

const char *hj_escape_tmp(const char *in)
{
	static char buf[8][HJ_ESCAPED_SIZE(4096)];
	static unsigned int next;

	return hj_escape(in, buf[next++ % 8], sizeof(buf[0]));
}
