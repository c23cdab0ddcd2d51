# Unit tests (Check) and integration tests (shell, real namespaces/cgroups).

# hijack.conf parser and audit formatting
check_PROGRAMS += tests/check_conf
TESTS += tests/check_conf
tests_check_conf_SOURCES = tests/check_conf.c
tests_check_conf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_conf_LDADD = lib/libhijack.la $(CHECK_LIBS)
