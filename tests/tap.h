// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Check's TAP output with skips.  Check (0.15) has no notion of a skipped
 * test and writes its plan ("1..N") last.  A case that cannot run here
 * (not root, say) is added with tap_add_if(): left out of the suite and
 * remembered, so that it shows as a skip rather than as a silent pass.
 * tap_run() runs the suite with TAP into a temporary file, copies it to
 * stdout without the plan, adds "ok N - FILE:TCASE:TEST # SKIP REASON"
 * for each case left out, then the plan.
 */
#ifndef HJ_TESTS_TAP_H
#define HJ_TESTS_TAP_H

#include <check.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAP_SKIP_MAX 32

static char tap_skipped[TAP_SKIP_MAX][256];
static size_t tap_nskipped;
/* skips past TAP_SKIP_MAX: not listed, so the run fails (tap_run()) */
static size_t tap_nlost;

/*
 * tap_add_if(S, TC, TC_NAME, RUN, REASON, TESTS...): the TCase TC (named
 * TC_NAME) with TESTS in suite S when RUN; otherwise each test is skipped
 * with REASON.
 */
static inline void tap_add_if_(Suite *s, TCase *tc, const char *tc_name,
			       bool run, const char *reason,
			       const TTest *const *tests, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (run)
			tcase_add_test(tc, tests[i]);
		else if (tap_nskipped < TAP_SKIP_MAX)
			snprintf(tap_skipped[tap_nskipped++],
				 sizeof(tap_skipped[0]), "%s:%s:%s # SKIP %s",
				 tests[i]->file, tc_name, tests[i]->name,
				 reason);
		else
			tap_nlost++;
	}
	if (run)
		suite_add_tcase(s, tc);
}

#define tap_add_if(s, tc, tc_name, run, reason, ...)             \
	do {                                                     \
		const TTest *const tests_[] = { __VA_ARGS__ };   \
                                                                 \
		tap_add_if_(s, tc, tc_name, run, reason, tests_, \
			    sizeof(tests_) / sizeof(tests_[0])); \
	} while (0)

/*
 * Returns the number of failed tests, or -1 when the TAP was lost.  Skips
 * past TAP_SKIP_MAX are one failure: a skip is never silent.
 */
static inline int tap_run(SRunner *sr, enum print_output mode)
{
	char path[] = "/tmp/hjt-tap-XXXXXX", line[4096];
	int fd = mkstemp(path), n, failed, planned = 0;
	size_t i;
	FILE *f;

	if (fd < 0)
		return -1;
	close(fd);
	srunner_set_tap(sr, path);
	/* the forked tests must not write our buffer again */
	fflush(stdout);
	srunner_run_all(sr, mode);
	failed = srunner_ntests_failed(sr);
	n = srunner_ntests_run(sr);
	f = fopen(path, "re");
	unlink(path);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "1..", 3))
			planned = 1; /* Check's plan: ours comes last */
		else
			fputs(line, stdout);
	}
	fclose(f);
	for (i = 0; i < tap_nskipped; i++)
		printf("ok %d - %s\n", ++n, tap_skipped[i]);
	if (tap_nlost) {
		printf("not ok %d - %zu more skipped tests than tap.h lists "
		       "(TAP_SKIP_MAX %d)\n",
		       ++n, tap_nlost, TAP_SKIP_MAX);
		failed++;
	}
	printf("1..%d\n", n);
	return planned ? failed : -1;
}

#endif
