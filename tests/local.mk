# Unit tests (Check, TAP output) and integration tests (shell, TAP), all
# run by `make check`; tests/run adds the kernel harness and the totals.
TEST_EXTENSIONS = .sh
TAP_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
LOG_DRIVER = $(TAP_DRIVER)
SH_LOG_DRIVER = $(TAP_DRIVER)
AM_TESTS_ENVIRONMENT = top_builddir='$(abs_top_builddir)'; \
	top_srcdir='$(abs_top_srcdir)'; export top_builddir top_srcdir;

check_PROGRAMS += tests/check_lib tests/helpers/hj-ptrace
tests_check_lib_SOURCES = tests/check_lib.c
tests_check_lib_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_lib_LDADD = lib/libhijack.la $(CHECK_LIBS)
tests_helpers_hj_ptrace_SOURCES = tests/helpers/hj-ptrace.c

TESTS += tests/check_lib tests/hijack-cli.sh
EXTRA_DIST += tests/lib.sh tests/hijack-cli.sh
