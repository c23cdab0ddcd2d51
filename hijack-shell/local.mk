# hijack-shell: the login shell.  Installed with the file capabilities it
# needs to enter root-owned containers (see hijack-shell(8) for why file
# capabilities rather than setuid root).
# the parsers of what the shell reads (its arguments, the container's
# passwd and group, the environment), which its fuzzers link too
noinst_LTLIBRARIES += hijack-shell/libshell.la
hijack_shell_libshell_la_SOURCES = \
	hijack-shell/shell.h \
	hijack-shell/account.c \
	hijack-shell/args.c \
	hijack-shell/caps.c \
	hijack-shell/environ.c
sbin_PROGRAMS += hijack-shell/hijack-shell
hijack_shell_hijack_shell_SOURCES = \
	hijack-shell/shell.h \
	hijack-shell/hijack-shell.c \
	hijack-shell/relay.c \
	hijack-shell/tty.c \
	hijack-shell/check.c \
	hijack-shell/probe.c
hijack_shell_hijack_shell_LDADD = hijack-shell/libshell.la lib/libhijack.la
# the session's waiting parent, which hijack-shell execs (HJ_WAITER_PATH):
# libc alone (of libhijack it links io.o and caps.o, which use none of
# its libraries, and HJ_LDFLAGS has --as-needed), so each session's
# process on the host stays small
pkglibexec_PROGRAMS += hijack-shell/hijack-shell-wait
hijack_shell_hijack_shell_wait_SOURCES = \
	hijack-shell/shell.h \
	hijack-shell/wait.c \
	hijack-shell/relay.c
hijack_shell_hijack_shell_wait_LDADD = hijack-shell/libshell.la lib/libhijack.la
dist_man_MANS += man/hijack-shell.8

# HIJACK_SHELL_CAPS comes from configure.ac, its only definition;
# `make -s print-caps` prints it for debian/rules, the tests and bench/run.
print-caps:
	@echo '$(HIJACK_SHELL_CAPS)'
.PHONY: print-caps

install-exec-hook: install-hijack-shell-caps install-hijack-shell-wait-mode
# Executable, not readable, by users: an exec of a file its caller cannot
# read leaves the process non-dumpable from the start (the kernel's
# BINPRM_FLAGS_ENFORCE_NONDUMP), so nothing of the user's can ptrace the
# waiter or read its /proc files while the loader runs, before main()
# makes it non-dumpable itself.
install-hijack-shell-wait-mode:
	chmod 0711 $(DESTDIR)$(pkglibexecdir)/hijack-shell-wait
.PHONY: install-hijack-shell-wait-mode
install-hijack-shell-caps:
	@if test -z "$(DESTDIR)" && test "$$(id -u)" = 0; then \
		echo "setcap $(HIJACK_SHELL_CAPS) $(sbindir)/hijack-shell"; \
		setcap $(HIJACK_SHELL_CAPS) $(DESTDIR)$(sbindir)/hijack-shell; \
	else \
		echo "NOTE: as root run: setcap $(HIJACK_SHELL_CAPS) $(sbindir)/hijack-shell"; \
	fi
.PHONY: install-hijack-shell-caps
