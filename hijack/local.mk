bin_PROGRAMS += hijack/hijack
hijack_hijack_SOURCES = hijack/hijack.c
hijack_hijack_LDADD = lib/libhijack.la
dist_man_MANS += man/hijack.1
