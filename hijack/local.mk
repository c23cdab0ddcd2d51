bin_PROGRAMS += hijack/hijack
hijack_hijack_SOURCES = hijack/args.h hijack/args.c hijack/hijack.c \
	hijack/who.h hijack/who.c hijack/login-check.h hijack/login-check.c \
	hijack/sshdconf.h hijack/sshdconf.c hijack/recording.h hijack/recording.c
hijack_hijack_LDADD = lib/libhijack.la
dist_man_MANS += man/hijack.1
