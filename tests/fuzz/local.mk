# The libFuzzer harnesses, built only by a clang build configured with
# --enable-fuzzing (tests/fuzz/run.sh makes one in build-fuzz/ and runs
# them): `make fuzz` builds just these and what they link.
FUZZ_PROGS = tests/fuzz/fuzz_conf tests/fuzz/fuzz_proc tests/fuzz/fuzz_shell \
	tests/fuzz/fuzz_args tests/fuzz/fuzz_pamopt tests/fuzz/fuzz_sshdconf
FUZZ_LINK_FLAGS = $(AM_LDFLAGS) -fsanitize=fuzzer
# LLVMFuzzerTestOneInput is defined for libFuzzer, declared by no header
FUZZ_CC_FLAGS = $(AM_CFLAGS) -Wno-missing-prototypes

tests_fuzz_fuzz_conf_SOURCES = tests/fuzz/fuzz_conf.c
tests_fuzz_fuzz_conf_CFLAGS = $(FUZZ_CC_FLAGS)
tests_fuzz_fuzz_conf_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_conf_LDADD = lib/libhijack.la

tests_fuzz_fuzz_proc_SOURCES = tests/fuzz/fuzz_proc.c
tests_fuzz_fuzz_proc_CFLAGS = $(FUZZ_CC_FLAGS)
tests_fuzz_fuzz_proc_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_proc_LDADD = lib/libhijack.la

tests_fuzz_fuzz_shell_SOURCES = tests/fuzz/fuzz_shell.c
tests_fuzz_fuzz_shell_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hijack-shell
tests_fuzz_fuzz_shell_CFLAGS = $(FUZZ_CC_FLAGS)
tests_fuzz_fuzz_shell_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_shell_LDADD = hijack-shell/libshell.la lib/libhijack.la

tests_fuzz_fuzz_args_SOURCES = tests/fuzz/fuzz_args.c
tests_fuzz_fuzz_args_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hijack \
	-I$(top_srcdir)/hijack-shell
tests_fuzz_fuzz_args_CFLAGS = $(FUZZ_CC_FLAGS)
tests_fuzz_fuzz_args_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_args_LDADD = hijack/libcmd.la hijack-shell/libshell.la \
	lib/libhijack.la

tests_fuzz_fuzz_pamopt_SOURCES = tests/fuzz/fuzz_pamopt.c
tests_fuzz_fuzz_pamopt_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/pam_hijack
tests_fuzz_fuzz_pamopt_CFLAGS = $(FUZZ_CC_FLAGS)
tests_fuzz_fuzz_pamopt_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_pamopt_LDADD = pam_hijack/liboptions.la lib/libhijack.la

tests_fuzz_fuzz_sshdconf_SOURCES = tests/fuzz/fuzz_sshdconf.c
tests_fuzz_fuzz_sshdconf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hijack
tests_fuzz_fuzz_sshdconf_CFLAGS = $(FUZZ_CC_FLAGS)
tests_fuzz_fuzz_sshdconf_LDFLAGS = $(FUZZ_LINK_FLAGS)
tests_fuzz_fuzz_sshdconf_LDADD = hijack/libcmd.la lib/libhijack.la

if ENABLE_FUZZING
noinst_PROGRAMS += $(FUZZ_PROGS)
fuzz: $(FUZZ_PROGS)
else
fuzz:
	@echo "make fuzz: configure with --enable-fuzzing and CC=clang-14" >&2; exit 1
endif
.PHONY: fuzz

EXTRA_DIST += tests/fuzz/run.sh tests/fuzz/local.mk tests/fuzz/corpus
