# Unit tests (Check, TAP output) and integration tests (shell, TAP), all
# run by `make check`; tests/run adds the kernel harness and the totals.
TEST_EXTENSIONS = .sh
TAP_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh
LOG_DRIVER = $(TAP_DRIVER)
SH_LOG_DRIVER = $(TAP_DRIVER)
AM_TESTS_ENVIRONMENT = top_builddir='$(abs_top_builddir)'; hj_conf='$(sconfdir)/hijack.conf'; export hj_conf; \
	top_srcdir='$(abs_top_srcdir)'; export top_builddir top_srcdir;

# The Check suites (tests/check_*.c) are built only when configure found
# Check; `make check` then says they were left out.
if HAVE_CHECK
UNIT_TESTS = tests/check_lib tests/check_conf tests/check_sshdconf \
	tests/check_pam tests/check_recording tests/check_pamstack
check_PROGRAMS += $(UNIT_TESTS)
TESTS += $(UNIT_TESTS)
else
UNIT_TESTS =
check-local: check-no-check
endif
check-no-check:
	@echo "NOTE: Check (pkg-config check >= 0.11) not found at configure time:"
	@echo "NOTE: the unit suites tests/check_{lib,conf,sshdconf,pam,pamstack} were not built or run"
	@echo "NOTE: apt-get install check, then ./configure again"
.PHONY: check-no-check

# distcheck's own job, the tarball: it builds, installs, uninstalls and
# passes the unit suites out of tree.  The integration tests are the same
# code as in tree; tests/run runs them once, in its own make check.
# (TESTS on the command line reaches distcheck's inner make through
# MAKEFLAGS.)
distcheck-unit:
	$(MAKE) $(AM_MAKEFLAGS) distcheck TESTS='$(UNIT_TESTS)'
.PHONY: distcheck-unit

check_PROGRAMS += tests/helpers/hj-ptrace
tests_check_lib_SOURCES = tests/check_lib.c tests/tap.h
tests_check_lib_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_lib_LDADD = lib/libhijack.la $(CHECK_LIBS)
tests_helpers_hj_ptrace_SOURCES = tests/helpers/hj-ptrace.c

TESTS += tests/hijack-cli.sh

# the build's own promises: hijack(1)'s NEEDED, one capability string
TESTS += tests/build.sh
EXTRA_DIST += tests/build.sh

# a container init confined as runc/docker make one (bounding set,
# no_new_privs, seccomp filters or strict mode): static, unsanitized, it
# runs inside busybox containers
check_PROGRAMS += tests/helpers/hj-confined
tests_helpers_hj_confined_SOURCES = tests/helpers/hj-confined.c
tests_helpers_hj_confined_CFLAGS = -O2 -Wall -Wextra
tests_helpers_hj_confined_LDFLAGS = -all-static
EXTRA_DIST += tests/lib.sh tests/hijack-cli.sh

# hijack.conf parser and audit formatting
tests_check_conf_SOURCES = tests/check_conf.c tests/tap.h
tests_check_conf_CPPFLAGS = $(AM_CPPFLAGS) -DABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_conf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_conf_LDADD = lib/libhijack.la $(CHECK_LIBS)

# hijack check's reader of sshd_config Match blocks
tests_check_sshdconf_SOURCES = tests/check_sshdconf.c
tests_check_sshdconf_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hijack
tests_check_sshdconf_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_sshdconf_LDADD = hijack/libcmd.la $(CHECK_LIBS)

# hijack check's reading of a PAM service's session stack, judged
# against what the real libpam does with it
tests_check_pamstack_SOURCES = tests/check_pamstack.c
tests_check_pamstack_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hijack \
	-DPAM_SYSTEM_MODULES='"$(pam_system_modules)"' \
	-DABS_TOP_BUILDDIR='"$(abs_top_builddir)"'
tests_check_pamstack_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_pamstack_LDADD = hijack/libcmd.la $(CHECK_LIBS)
EXTRA_tests_check_pamstack_DEPENDENCIES = tests/helpers/hj-pamopen
check_PROGRAMS += tests/helpers/hj-pamopen
tests_helpers_hj_pamopen_SOURCES = tests/helpers/hj-pamopen.c
tests_helpers_hj_pamopen_CFLAGS = $(AM_CFLAGS) $(PAM_CFLAGS)
tests_helpers_hj_pamopen_LDADD = $(PAM_LIBS)

# hijack check's reading of tlog-rec-session's shell setting
tests_check_recording_SOURCES = tests/check_recording.c
tests_check_recording_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/hijack
tests_check_recording_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_check_recording_LDADD = hijack/libcmd.la lib/libhijack.la $(CHECK_LIBS)

# pam_hijack.so through the real libpam (needs root: users, cgroups)
tests_check_pam_SOURCES = tests/check_pam.c tests/tap.h
tests_check_pam_CPPFLAGS = $(AM_CPPFLAGS) \
	-DABS_TOP_BUILDDIR='"$(abs_top_builddir)"' \
	-DABS_TOP_SRCDIR='"$(abs_top_srcdir)"'
tests_check_pam_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(PAM_CFLAGS)
tests_check_pam_LDADD = $(CHECK_LIBS) $(PAM_LIBS)
EXTRA_tests_check_pam_DEPENDENCIES = pam_hijack/pam_hijack.la
EXTRA_DIST += tests/container.sh tests/users.sh

# pamtester, a real /etc/pam.d service and a real auditd (needs root)
TESTS += tests/pam-audit.sh
EXTRA_DIST += tests/pam-audit.sh

# audit write failures (auditd down, auditing off, the log's disk full)
# against audit=required|optional, and a container out of pids
TESTS += tests/audit-faults.sh
EXTRA_DIST += tests/audit-faults.sh

# reviewing a session: pam_loginuid + pam_tty_audit + pam_hijack over
# ssh, keystrokes inside the container tied to the container by auid/ses
TESTS += tests/audit-review.sh
EXTRA_DIST += tests/audit-review.sh

# session recording: tlog-rec-session (setuid _tlog) runs hijack-shell;
# tlog-play shows the container's output, tied to VIRT_CONTROL by ses
TESTS += tests/recording.sh
EXTRA_DIST += tests/recording.sh

# the real ssh path: private sshd, pam_hijack, hijack-shell, auditd
check_PROGRAMS += tests/helpers/hj-tiocsti
tests_helpers_hj_tiocsti_SOURCES = tests/helpers/hj-tiocsti.c
# static and unsanitized: it runs inside a busybox container (ASan cannot
# link statically, so the sanitizer flags of AM_CFLAGS stay out)
tests_helpers_hj_tiocsti_CFLAGS = -O2 -Wall -Wextra
tests_helpers_hj_tiocsti_LDFLAGS = -all-static
TESTS += tests/e2e-ssh.sh
EXTRA_DIST += tests/e2e-ssh.sh tests/helpers/ptydrive.py

# port forwarding over the real ssh path lands in the container's network,
# and the forwarded agent is reached from inside (hj-agent: static, as
# hj-tiocsti, for the busybox container)
check_PROGRAMS += tests/helpers/hj-agent
tests_helpers_hj_agent_SOURCES = tests/helpers/hj-agent.c
tests_helpers_hj_agent_CFLAGS = -O2 -Wall -Wextra
tests_helpers_hj_agent_LDFLAGS = -all-static
TESTS += tests/forward.sh
EXTRA_DIST += tests/forward.sh

# the attack suite: each check fails if the attack works
check_PROGRAMS += tests/helpers/hj-stuckfs
tests_helpers_hj_stuckfs_SOURCES = tests/helpers/hj-stuckfs.c
TESTS += tests/attacks.sh
EXTRA_DIST += tests/attacks.sh

# groups from a directory: slapd and sssd of the test's own, real sshd
TESTS += tests/directory.sh
EXTRA_DIST += tests/directory.sh

# audit shipped to a collector: audisp-remote to a second auditd in a
# network namespace of the test's own
TESTS += tests/audit-remote.sh
EXTRA_DIST += tests/audit-remote.sh tests/audit-collector.conf

# logins while the container is restarted in a loop
TESTS += tests/restart-race.sh
EXTRA_DIST += tests/restart-race.sh

# containers started by real runtimes (runc, crun, LXC, podman) mapped by
# hijack.conf rules, entered over the real ssh path
TESTS += tests/e2e-runtimes.sh
EXTRA_DIST += tests/e2e-runtimes.sh tests/sshd.sh tests/runtimes.sh

# the Debian packages: their contents, then installed for real, an ssh
# login through them, and purged (only with HIJACK_TEST_DEB=1, as
# tests/run does)
TESTS += tests/deb.sh tests/deb-e2e.sh
EXTRA_DIST += tests/deb.sh tests/deb-e2e.sh tests/deb-build.sh \
	debian/changelog debian/control debian/copyright debian/rules \
	debian/source/format debian/not-installed debian/pam-configs/hijack \
	debian/hijack.docs debian/hijack.install debian/hijack.postinst \
	debian/hijack.postrm debian/libpam-hijack.docs \
	debian/libpam-hijack.examples debian/libpam-hijack.install \
	debian/libpam-hijack.lintian-overrides debian/libpam-hijack.postinst \
	debian/libpam-hijack.prerm debian/libpam-hijack.dirs

# rootless containers entered through the installed (file-capability)
# hijack-shell from a root-owned session cgroup; pam_hijack delegate=
TESTS += tests/e2e-rootless.sh
EXTRA_DIST += tests/e2e-rootless.sh

# hijack-shell --check against each row of README's Troubleshooting table
TESTS += tests/check.sh
EXTRA_DIST += tests/check.sh

# hijack.conf.d drop-ins over a real sshd login
TESTS += tests/conf-dropin.sh
EXTRA_DIST += tests/conf-dropin.sh

# hijack who: hijack-shell's live ssh sessions in two containers, then none
TESTS += tests/who.sh
EXTRA_DIST += tests/who.sh

# file transfer readiness: --check inside the container, and the reason a
# login for a missing sftp-server gets (user and audit record)
TESTS += tests/transfer.sh
EXTRA_DIST += tests/transfer.sh tests/helpers/sftp-probe.py

# run by tests/run after `make check` (they print TAP; see each script)
EXTRA_DIST += tests/static.sh tests/STATIC.md tests/valgrind.sh \
	tests/asan.sh

# run by tests/run: a Debian 12 guest with systemd, cgroup2 and AppArmor
EXTRA_DIST += tests/realhost/run.sh tests/realhost/guest.sh \
	tests/realhost/image.sh

# load and soak over loopback: 200 concurrent logins, 1000 sequential
TESTS += tests/soak.sh
EXTRA_DIST += tests/soak.sh tests/FAULTS.md

# the .debs the package tests built (tests/deb-build.sh)
clean-local: clean-debs
clean-debs:
	rm -rf tests/debs
.PHONY: clean-debs
