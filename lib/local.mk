# libhijack: a convenience library linked into every front end and test.
noinst_LTLIBRARIES += lib/libhijack.la
lib_libhijack_la_SOURCES = \
	lib/hijack.h \
	lib/audit.h \
	lib/conf.h \
	lib/internal.h \
	lib/agent.c \
	lib/agent-relay.c \
	lib/audit.c \
	lib/caps.c \
	lib/cgroup.c \
	lib/cgroup-spec.c \
	lib/conf.c \
	lib/confine.c \
	lib/container.c \
	lib/delegate.c \
	lib/escape.c \
	lib/filters.c \
	lib/io.c \
	lib/mem.c \
	lib/strerror.c \
	lib/ns.c \
	lib/proc.c \
	lib/spawn.c \
	lib/target.c \
	lib/userns.c
lib_libhijack_la_CFLAGS = $(AM_CFLAGS) $(AUDIT_CFLAGS)
lib_libhijack_la_LIBADD = $(AUDIT_LIBS)
