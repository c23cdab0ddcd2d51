bin_PROGRAMS += hijack/hijack
hijack_hijack_SOURCES = hijack/hijack.c
hijack_hijack_LDADD = lib/libhijack.la
