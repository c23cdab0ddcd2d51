// SPDX-License-Identifier: GPL-2.0-or-later
/* VIRT_CONTROL records for container entry, written with libaudit. */
#include "config.h"

#include <errno.h>
#include <libaudit.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

const char *hj_audit_reason(int err, const char *other)
{
	switch (err) {
	case -ENOENT:
	case -ESRCH:
		return "not-running";
	case -EXDEV:
		return "not-a-container";
	case -ENOTUNIQ:
		return "ambiguous";
	case -EDEADLK:
		return "frozen";
	case -EBUSY:
		return "traced";
	case -ETIMEDOUT:
		return "timeout";
	}
	return other;
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

static long ms_since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) * 1000 +
	       (now.tv_nsec - t0->tv_nsec) / 1000000;
}

int hj_audit_state(struct hj_audit_state *st)
{
	struct audit_reply rep;
	struct timespec t0;
	int fd, r, e = -ETIMEDOUT;

	memset(st, 0, sizeof(*st));
	fd = audit_open();
	if (fd < 0)
		return errno ? -errno : -EIO;
	r = audit_request_status(fd);
	if (r < 0) {
		e = r;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		long left = HJ_AUDIT_STATE_TIMEOUT_MS - ms_since(&t0);

		if (left <= 0)
			break;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r < 0 ? -errno : -ETIMEDOUT;
			break;
		}
		r = audit_get_reply(fd, &rep, GET_REPLY_NONBLOCKING, 0);
		if (r == -EAGAIN || r == 0)
			continue;
		if (r < 0) {
			e = r;
			break;
		}
		if (rep.type == NLMSG_ERROR) {
			if (rep.error && rep.error->error) {
				e = rep.error->error < 0 ? rep.error->error :
							   -rep.error->error;
				break;
			}
			continue; /* the acknowledgement of the request */
		}
		if (rep.type == AUDIT_GET && rep.status) {
			st->enabled = rep.status->enabled;
			st->daemon = (pid_t)rep.status->pid;
			st->lost = rep.status->lost;
			st->backlog = rep.status->backlog;
			e = 0;
			break;
		}
	}
out:
	audit_close(fd);
	return e;
}
