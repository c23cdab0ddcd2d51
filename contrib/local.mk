# The admin step for rootless containers without systemd (hijack.conf(5),
# ROOTLESS CONTAINERS): run from the sshd PAM stack through pam_exec.
pkglibexec_SCRIPTS = contrib/hijack-delegate
EXTRA_DIST += contrib/hijack-delegate
