# Example rules for the common container runtimes, parsed by
# tests/check_conf and installed with the documentation.
examplesdir = $(docdir)/examples
dist_examples_DATA = conf/examples/runtimes.conf
