# Benchmarks: bench/run (as root, after a build), or `make bench`.
noinst_PROGRAMS += bench/hj-confbench
bench_hj_confbench_SOURCES = bench/hj-confbench.c
bench_hj_confbench_LDADD = lib/libhijack.la
# the physical floor of an entry (pidfd_open, setns, fork, exec, wait);
# static and unsanitized, like the busybox it runs (ASan cannot link
# statically, so the sanitizer flags of AM_CFLAGS stay out)
noinst_PROGRAMS += bench/hj-floor
bench_hj_floor_SOURCES = bench/hj-floor.c
bench_hj_floor_CFLAGS = -O2 -Wall -Wextra
bench_hj_floor_LDFLAGS = -all-static
EXTRA_DIST += bench/run bench/timing.py

.PHONY: bench
bench: all
	$(srcdir)/bench/run
