# hijack(1)'s parsers, which its unit tests and fuzzers link too
noinst_LTLIBRARIES += hijack/libcmd.la
hijack_libcmd_la_SOURCES = hijack/args.h hijack/args.c \
	hijack/sshdconf.h hijack/sshdconf.c hijack/recording.h hijack/recording.c \
	hijack/pamstack.h hijack/pamstack.c
bin_PROGRAMS += hijack/hijack
hijack_hijack_SOURCES = hijack/hijack.c \
	hijack/who.h hijack/who.c hijack/login-check.h hijack/login-check.c
hijack_hijack_LDADD = hijack/libcmd.la lib/libhijack.la
dist_man_MANS += man/hijack.1
