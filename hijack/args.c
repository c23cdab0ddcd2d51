// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack(1)'s command line:
 *
 *	hijack [-b auto|native|stock] [-w dir] [-v] [--no-confine]
 *	       pid|cgroup <id> [--] [cmd...]
 *	hijack [--shell path] who
 *	hijack [--shell path] check <user>
 *	hijack check-conf <file>...
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

/* long options without a short form */
enum { OPT_NO_CONFINE = 0x100, OPT_SHELL };

static int __attribute__((format(printf, 3, 4)))
bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* getopt's '?': optopt is the unknown short option, 0 for a long one */
static int bad_option(char *err, size_t errlen, const char *last)
{
	if (!optopt)
		return bad(err, errlen, "unrecognized option '%s'", last);
	if (strchr("bwvhV", optopt))
		return bad(err, errlen, "option '%s' takes no argument", last);
	if (optopt > 0x20 && optopt < 0x7f)
		return bad(err, errlen, "invalid option -- '%c'", optopt);
	return bad(err, errlen, "invalid option -- '\\x%02x'", optopt & 0xff);
}

int hijack_parse_args(int argc, char **argv, struct hijack_args *a, char *err,
		      size_t errlen)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "wd", required_argument, NULL, 'w' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-confine", no_argument, NULL, OPT_NO_CONFINE },
		{ "shell", required_argument, NULL, OPT_SHELL },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *mode;
	char *end;
	long n;
	int c;

	memset(a, 0, sizeof(*a));
	a->backend = HJ_BACKEND_AUTO;
	err[0] = '\0';
	if (argc < 1 || !argv[0])
		return bad(err, errlen, "%s", "no arguments");

	/* 0 makes glibc's getopt start afresh, as for a new program */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:b:w:vhV", longopts, NULL)) !=
	       -1) {
		switch (c) {
		case 'b':
			if (!strcmp(optarg, "auto"))
				a->backend = HJ_BACKEND_AUTO;
			else if (!strcmp(optarg, "native"))
				a->backend = HJ_BACKEND_NATIVE;
			else if (!strcmp(optarg, "stock"))
				a->backend = HJ_BACKEND_STOCK;
			else
				return bad(
					err, errlen,
					"unknown backend '%s' (auto, native or stock)",
					optarg);
			break;
		case 'w':
			if (!optarg[0])
				return bad(err, errlen, "%s",
					   "empty working directory");
			a->cwd = optarg;
			break;
		case 'v':
			a->verbose = true;
			break;
		case OPT_NO_CONFINE:
			a->no_confine = true;
			break;
		case OPT_SHELL:
			if (optarg[0] != '/')
				return bad(err, errlen,
					   "--shell needs an absolute path, "
					   "not '%s'",
					   optarg);
			a->shell = optarg;
			break;
		case 'h':
			a->action = HIJACK_HELP;
			return 0;
		case 'V':
			a->action = HIJACK_VERSION;
			return 0;
		case ':':
			return bad(err, errlen, "option -%c needs an argument",
				   optopt);
		default:
			return bad_option(err, errlen, argv[optind - 1]);
		}
	}
	if (optind < argc &&
	    (!strcmp(argv[optind], "who") || !strcmp(argv[optind], "check"))) {
		const char *cmd = argv[optind++];
		int want = cmd[0] == 'c';

		if (argc - optind != want)
			return bad(err, errlen, "%s",
				   want ? "check takes one user" :
					  "who takes no argument");
		if (a->backend != HJ_BACKEND_AUTO || a->cwd || a->verbose ||
		    a->no_confine)
			return bad(err, errlen,
				   "%s takes no option but --shell", cmd);
		if (want && !argv[optind][0])
			return bad(err, errlen, "%s", "empty user name");
		a->action = want ? HIJACK_CHECK : HIJACK_WHO;
		a->user = want ? argv[optind] : NULL;
		return 0;
	}
	if (optind < argc && !strcmp(argv[optind], "check-conf")) {
		if (++optind == argc)
			return bad(err, errlen, "%s",
				   "check-conf takes one or more files");
		if (a->backend != HJ_BACKEND_AUTO || a->cwd || a->verbose ||
		    a->no_confine || a->shell)
			return bad(err, errlen, "%s",
				   "check-conf takes no option");
		a->action = HIJACK_CHECK_CONF;
		a->files = argv + optind;
		return 0;
	}
	if (a->shell)
		return bad(err, errlen, "%s",
			   "--shell is an option of who and check");
	if (argc - optind < 2)
		return bad(
			err, errlen, "%s",
			"bad usage: pid <pid>, cgroup <file>, who, check <user> or check-conf <file> expected");
	mode = argv[optind];
	a->id = argv[optind + 1];
	optind += 2;
	if (optind < argc && !strcmp(argv[optind], "--"))
		optind++;
	a->cmd = argv + optind;

	if (!strcmp(mode, "pid")) {
		a->kind = HIJACK_PID;
		/* digits only: strtol would also take " 1", "+1" */
		if (a->id[0] < '0' || a->id[0] > '9')
			return bad(err, errlen, "invalid pid '%s'", a->id);
		errno = 0;
		n = strtol(a->id, &end, 10);
		if (errno || *end || end == a->id || n <= 0 || n > INT32_MAX)
			return bad(err, errlen, "invalid pid '%s'", a->id);
		a->pid = (pid_t)n;
	} else if (!strcmp(mode, "cgroup")) {
		a->kind = HIJACK_CGROUP;
		if (!a->id[0])
			return bad(err, errlen, "%s", "empty cgroup path");
	} else {
		return bad(err, errlen,
			   "unknown target kind '%s' (pid or cgroup)", mode);
	}
	return 0;
}
