# pam_hijack: the PAM module, built once; tests load this very .so.
securelibdir = $(securedir)
securelib_LTLIBRARIES = pam_hijack/pam_hijack.la
# its option parser, which its fuzzer links too
noinst_LTLIBRARIES += pam_hijack/liboptions.la
pam_hijack_liboptions_la_SOURCES = pam_hijack/options.c pam_hijack/options.h
pam_hijack_pam_hijack_la_SOURCES = pam_hijack/pam_hijack.c
pam_hijack_pam_hijack_la_CFLAGS = $(AM_CFLAGS) $(PAM_CFLAGS)
pam_hijack_pam_hijack_la_LDFLAGS = $(AM_LDFLAGS) -module -avoid-version \
	-shared -no-undefined -export-symbols-regex '^pam_sm_'
pam_hijack_pam_hijack_la_LIBADD = pam_hijack/liboptions.la lib/libhijack.la \
	$(PAM_LIBS)
# libpam loads the .so; a .la beside the modules is clutter
install-data-hook: install-pam-hijack-no-la
uninstall-local: uninstall-pam-hijack-so
install-pam-hijack-no-la:
	rm -f '$(DESTDIR)$(securelibdir)/pam_hijack.la'
uninstall-pam-hijack-so:
	rm -f '$(DESTDIR)$(securelibdir)/pam_hijack.so'
.PHONY: install-pam-hijack-no-la uninstall-pam-hijack-so

dist_man_MANS += man/hijack.conf.5 man/pam_hijack.8

# The example hijack.conf, an existing one never overwritten, and the
# drop-in directory (left when an admin's files are in it).
EXTRA_DIST += conf/hijack.conf man/README.md
install-data-local: install-hijack-conf
uninstall-local: uninstall-hijack-conf
install-hijack-conf:
	$(MKDIR_P) '$(DESTDIR)$(sconfdir)/hijack.conf.d'
	@if test -e '$(DESTDIR)$(sconfdir)/hijack.conf'; then \
		echo "not overwriting $(DESTDIR)$(sconfdir)/hijack.conf"; \
	else \
		echo " INSTALL $(DESTDIR)$(sconfdir)/hijack.conf"; \
		$(INSTALL_DATA) '$(srcdir)/conf/hijack.conf' \
			'$(DESTDIR)$(sconfdir)/hijack.conf'; \
	fi
# only the unchanged example goes; an edited file is the admin's
uninstall-hijack-conf:
	@if cmp -s '$(srcdir)/conf/hijack.conf' \
		'$(DESTDIR)$(sconfdir)/hijack.conf'; then \
		rm -f '$(DESTDIR)$(sconfdir)/hijack.conf'; \
	fi
	-@rmdir '$(DESTDIR)$(sconfdir)/hijack.conf.d' 2>/dev/null
.PHONY: install-hijack-conf uninstall-hijack-conf

# configure defaults securedir to libpam's own directory, outside --prefix
AM_DISTCHECK_CONFIGURE_FLAGS = --with-securedir='$${libdir}/security'
