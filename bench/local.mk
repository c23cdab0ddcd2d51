# Benchmarks: bench/run (as root, after a build), or `make bench`.
noinst_PROGRAMS += bench/hj-confbench
bench_hj_confbench_SOURCES = bench/hj-confbench.c
bench_hj_confbench_LDADD = lib/libhijack.la
EXTRA_DIST += bench/run bench/timing.py

.PHONY: bench
bench: all
	$(srcdir)/bench/run
