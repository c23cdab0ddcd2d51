# Example rules for the common container runtimes, parsed by
# tests/check_conf and installed with the documentation.
examplesdir = $(docdir)/examples
dist_examples_DATA = conf/examples/runtimes.conf
# The example playbook (README, Running it on many hosts), run by
# tests/realhost/ against the guest.
ansibledir = $(examplesdir)/ansible
dist_ansible_DATA = conf/examples/ansible/hijack.yml \
	conf/examples/ansible/team.conf.j2 \
	conf/examples/ansible/teams.yml
