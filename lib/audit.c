// SPDX-License-Identifier: GPL-2.0-or-later
/* VIRT_CONTROL records for container entry, written with libaudit. */
#include "config.h"

#include <errno.h>
#include <libaudit.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"

/* name="value" or name=HEX, as libvirt's virAuditEncode() does. */
static char *encode(const char *name, const char *value)
{
	if (!value || !*value) {
		char *s;

		if (asprintf(&s, "%s=?", name) < 0)
			return NULL;
		return s;
	}
	return audit_encode_nv_string(name, value, 0);
}

int hj_audit_format(char *buf, size_t size, const char *op,
		    const struct hj_mapping *m, const char *user, uid_t uid,
		    pid_t vm_pid, const char *reason)
{
	bool mapped = m && m->kind == HJ_MAP_CONTAINER;
	char *vm, *acct, *cg, *why;
	int n, e = 0;

	if (!op || !*op || strpbrk(op, " \"'=\n"))
		return -EINVAL;
	vm = encode("vm", mapped ? m->name : NULL);
	acct = encode("user", user);
	cg = encode("cgroup", mapped ? m->cgroup : NULL);
	why = encode("reason", reason);
	if (!vm || !acct || !cg || !why) {
		e = -ENOMEM;
		goto out_free;
	}
	n = snprintf(buf, size,
		     "virt=hijack op=%s %s vm-pid=%d %s uid=%u %s %s", op, vm,
		     vm_pid > 0 ? (int)vm_pid : -1, acct, (unsigned int)uid, cg,
		     why);
	if (n < 0 || (size_t)n >= size)
		e = -ENAMETOOLONG;
out_free:
	free(vm);
	free(acct);
	free(cg);
	free(why);
	return e;
}

bool hj_audit_unsupported(int err)
{
	return err == -EPROTONOSUPPORT || err == -EAFNOSUPPORT ||
	       err == -EINVAL;
}

int hj_audit_entry_from(const char *op, const struct hj_mapping *m,
			const char *user, uid_t uid, pid_t vm_pid,
			const char *reason, bool success,
			const struct hj_audit_origin *origin)
{
	const struct hj_audit_origin none = { NULL, NULL, NULL };
	char *msg;
	int fd, r, e;

	if (!origin)
		origin = &none;
	msg = malloc(HJ_AUDIT_MSG_MAX);
	if (!msg)
		return -ENOMEM;
	e = hj_audit_format(msg, HJ_AUDIT_MSG_MAX, op, m, user, uid, vm_pid,
			    reason);
	if (e)
		goto out_free;
	fd = audit_open();
	if (fd < 0) {
		e = errno ? -errno : -EIO;
		goto out_free;
	}
	errno = 0;
	r = audit_log_user_message(fd, AUDIT_VIRT_CONTROL, msg, origin->host,
				   origin->addr, origin->tty, success);
	if (r <= 0)
		e = errno ? -errno : -EIO;
	audit_close(fd);
out_free:
	free(msg);
	return e;
}

int hj_audit_entry(const char *op, const struct hj_mapping *m, const char *user,
		   uid_t uid, pid_t vm_pid, const char *reason, bool success)
{
	return hj_audit_entry_from(op, m, user, uid, vm_pid, reason, success,
				   NULL);
}
