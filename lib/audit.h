/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Audit records for container entry, in libvirt's VIRT_CONTROL style so
 * that ausearch --vm-name and aureport --virt read them:
 *
 *   virt=hijack op=start vm="web1" vm-pid=4242 user="alice" uid=1000
 *   cgroup="ctr/web1" reason="login"
 *
 * Strings are quoted, or hex encoded when they hold spaces, quotes or
 * control characters (audit_encode_nv_string()).  Write records as root
 * and before entering a user namespace: the kernel refuses them otherwise.
 * Return 0 or -errno; nothing here logs.
 */
#ifndef HIJACK_AUDIT_H
#define HIJACK_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "conf.h"

#define HJ_AUDIT_MSG_MAX 16384

/* Where the login comes from; any field may be NULL ("?"). */
struct hj_audit_origin {
	const char *host; /* remote host name (PAM_RHOST) */
	const char *addr; /* remote address */
	const char *tty; /* PAM_TTY */
};

/* The message part of the record; m NULL: no mapping known (vm="?"). */
int hj_audit_format(char *buf, size_t size, const char *op,
		    const struct hj_mapping *m, const char *user, uid_t uid,
		    pid_t vm_pid, const char *reason);

/* op: "start" (entered), "deny" (refused), "host" (stopped=host). */
int hj_audit_entry(const char *op, const struct hj_mapping *m, const char *user,
		   uid_t uid, pid_t vm_pid, const char *reason, bool success);
int hj_audit_entry_from(const char *op, const struct hj_mapping *m,
			const char *user, uid_t uid, pid_t vm_pid,
			const char *reason, bool success,
			const struct hj_audit_origin *origin);

/*
 * The kernel's audit status (AUDIT_GET; needs CAP_AUDIT_CONTROL in the
 * initial pid namespace).  audit_log_user_message() succeeds whether or
 * not a record is kept: with auditing disabled the kernel drops user
 * records, with no audit daemon it sends them to printk (rate limited)
 * and drops the rest, and an auditd that cannot write its log (disk
 * full, disk_full_action=suspend) reads and discards them.  Only the
 * first two show here.
 */
struct hj_audit_state {
	unsigned int enabled; /* 0 off, 1 on, 2 on and locked */
	pid_t daemon; /* the registered audit daemon, 0 when none */
	unsigned int lost; /* records the kernel lost so far */
	unsigned int backlog; /* records waiting for the daemon */
};
#define HJ_AUDIT_STATE_TIMEOUT_MS 2000
int hj_audit_state(struct hj_audit_state *st);

/*
 * The reason field of a deny record for a target that could not be
 * entered (hj_container_state(), hj_confinement_read_flags()):
 * "not-running", "not-a-container", "ambiguous", "frozen", "traced",
 * "timeout", else @other.  One table, so that pam_hijack and
 * hijack-shell name the same failure alike.
 */
const char *hj_audit_reason(int err, const char *other);

/* The kernel has no audit support: not an error worth refusing over. */
bool hj_audit_unsupported(int err);

#endif /* HIJACK_AUDIT_H */
