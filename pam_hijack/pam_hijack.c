// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pam_hijack: apply hijack.conf at login.
 *
 * account: a user mapped to a container may log in only while the
 * container's init runs (unless its cgroup is gone and the rule says
 * stopped=host): never into a cgroup that holds only host processes or
 * two containers.
 * session: take the account step's answer (or resolve again when there
 * was none), export the mapping for hijack-shell (which never trusts it)
 * and write the VIRT_CONTROL audit record, as root and before any
 * namespace is entered.
 *
 * A broken or insecure hijack.conf refuses every user except root and
 * the members of admin_group=, who pass (PAM_IGNORE) with a logged error
 * so that an administrator can always log in to fix the file.
 */
#include "config.h"

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#define PAM_SM_ACCOUNT
#define PAM_SM_SESSION
#include <security/pam_ext.h>
#include <security/pam_modules.h>
#include <security/pam_modutil.h>

#include "audit.h"
#include "conf.h"
#include "hijack.h"
#include "options.h"

static void bad_option(void *ctx, const char *what, const char *arg)
{
	pam_syslog(ctx, LOG_ERR, "%s: %s", what, arg);
}

static void parse_args(pam_handle_t *pamh, int flags, int argc,
		       const char **argv, struct options *o)
{
	hj_parse_options(argc, argv, o, bad_option, pamh);
	if (flags & PAM_SILENT)
		o->ctrl |= CTRL_SILENT;
}

/* A message to the user, unless the application asked for silence. */
__attribute__((format(printf, 4, 5))) static void tell(pam_handle_t *pamh,
						       const struct options *o,
						       int style,
						       const char *fmt, ...)
{
	va_list ap;

	if (o->ctrl & CTRL_SILENT)
		return;
	va_start(ap, fmt);
	if (style == PAM_ERROR_MSG)
		pam_verror(pamh, fmt, ap);
	else
		pam_vinfo(pamh, fmt, ap);
	va_end(ap);
}

/* What went wrong with a target, in words for the log. */
/* 0, or -errno when the record did not reach the kernel (logged). */
static int audit(pam_handle_t *pamh, const char *op, const struct hj_mapping *m,
		 const struct passwd *pw, pid_t vm_pid, const char *reason,
		 bool success)
{
	struct hj_audit_origin origin = { NULL, NULL, NULL };
	const void *item;
	int e;

	if (pam_get_item(pamh, PAM_RHOST, &item) == PAM_SUCCESS)
		origin.host = item;
	if (pam_get_item(pamh, PAM_TTY, &item) == PAM_SUCCESS)
		origin.tty = item;
	e = hj_audit_entry_from(op, m, pw->pw_name, pw->pw_uid, vm_pid, reason,
				success, &origin);
	if (e && !hj_audit_unsupported(e))
		pam_syslog(pamh, LOG_ERR, "cannot write audit record: %s",
			   strerror(-e));
	return e;
}

/*
 * Would a record written now be kept?  0, or what is wrong (logged).
 * The kernel accepts records it then drops: check its status first.
 */
static int audit_usable(pam_handle_t *pamh)
{
	struct hj_audit_state st;
	int e;

	e = hj_audit_state(&st);
	if (e) {
		pam_syslog(pamh, LOG_ERR,
			   "audit=required: cannot read the kernel's audit "
			   "status: %s",
			   strerror(-e));
		return e;
	}
	if (!st.enabled) {
		pam_syslog(pamh, LOG_ERR,
			   "audit=required: auditing is disabled in the "
			   "kernel (auditctl -e 0), records are dropped");
		return -ENOLINK;
	}
	if (st.daemon <= 0) {
		pam_syslog(pamh, LOG_ERR,
			   "audit=required: no audit daemon is running, "
			   "records reach at most the kernel log");
		return -ENOLINK;
	}
	return 0;
}

/*
 * The record of a login that goes on (op=start or op=host).  Under
 * audit=required the login goes on only if the record can be kept:
 * PAM_SUCCESS, or PAM_SESSION_ERR after a deny record (best effort),
 * a log line and a message.
 */
static int audit_login(pam_handle_t *pamh, const struct options *o,
		       const char *op, const struct hj_mapping *m,
		       const struct passwd *pw, pid_t vm_pid,
		       const char *reason)
{
	int e;

	if (o->audit != HJ_AUDIT_REQUIRED) {
		audit(pamh, op, m, pw, vm_pid, reason, true);
		return PAM_SUCCESS;
	}
	e = audit_usable(pamh);
	if (!e) {
		e = audit(pamh, op, m, pw, vm_pid, reason, true);
		if (e && hj_audit_unsupported(e))
			pam_syslog(pamh, LOG_ERR,
				   "cannot write audit record: %s",
				   strerror(-e));
	}
	if (!e)
		return PAM_SUCCESS;
	pam_syslog(pamh, LOG_ERR,
		   "refusing %s (container %s): the audit record of the "
		   "login cannot be kept and audit=required",
		   pw->pw_name, m->name);
	tell(pamh, o, PAM_ERROR_MSG,
	     "Login refused: it cannot be audited (see the system log).");
	audit(pamh, "deny", m, pw, vm_pid, "audit", false);
	return PAM_SESSION_ERR;
}

/* Root and admin_group= pass a broken config, to be able to fix it. */
static bool exempt(pam_handle_t *pamh, const struct options *o,
		   const struct passwd *pw)
{
	if (pw->pw_uid == 0)
		return true;
	return o->admin_group && pam_modutil_user_in_group_nam_nam(
					 pamh, pw->pw_name, o->admin_group);
}

/*
 * The user's passwd entry and mapping.  PAM_SUCCESS, or the PAM code to
 * return: the broken-config policy is applied here.
 */
static int resolve(pam_handle_t *pamh, const struct options *o, int refuse,
		   struct passwd **pwp, struct hj_mapping *m)
{
	struct hj_conf_error err = { .msg = "" };
	const char *user;
	struct passwd *pw;
	int e;

	if (pam_get_user(pamh, &user, NULL) != PAM_SUCCESS || !user || !*user) {
		pam_syslog(pamh, LOG_ERR, "cannot determine the user name");
		return PAM_USER_UNKNOWN;
	}
	pw = pam_modutil_getpwnam(pamh, user);
	if (!pw) {
		/* the name is the client's: no control bytes into the log */
		char esc[4 * 64 + 1];

		pam_syslog(pamh, LOG_NOTICE, "unknown user %s",
			   hj_escape(user, esc, sizeof(esc)));
		return PAM_USER_UNKNOWN;
	}
	*pwp = pw;
	if (o->bad_conf) {
		snprintf(err.msg, sizeof(err.msg),
			 "conf=%s: not an absolute path", o->conf);
		e = -EINVAL;
	} else {
		e = hj_conf_resolve_user_by(o->conf, pw, m, &err, HJ_LOOKUP_MS);
	}
	if (!e)
		return PAM_SUCCESS;
	if (!err.msg[0])
		snprintf(err.msg, sizeof(err.msg), "%s: %s", o->conf,
			 strerror(-e));
	if (exempt(pamh, o, pw)) {
		pam_syslog(pamh, LOG_ERR, "%s; letting %s in to fix it",
			   err.msg, pw->pw_name);
		return PAM_IGNORE;
	}
	pam_syslog(pamh, LOG_ERR, "%s; refusing %s", err.msg, pw->pw_name);
	tell(pamh, o, PAM_ERROR_MSG,
	     err.lookup ? "Login refused: the user and group directory did "
			  "not answer (see the system log)." :
			  "Login refused: the container configuration is "
			  "broken (see the system log).");
	audit(pamh, "deny", NULL, pw, -1, err.lookup ? "directory" : "config",
	      false);
	return refuse;
}

/* The log line of a refusal: what failed, on which rule, for whom. */
static void log_refusal(pam_handle_t *pamh, const char *what,
			const struct hj_mapping *m, const struct passwd *pw,
			int e)
{
	pam_syslog(pamh, LOG_ERR,
		   "cannot %s container %s (cgroup %s): %s; refusing %s "
		   "(%s:%u)",
		   what, m->name, m->cgroup, hj_strerror(e), pw->pw_name,
		   m->file, m->line);
}

/*
 * Is the mapped container running and enterable (hj_container_state(),
 * the answer hijack-shell and --check get too)?  PAM_SUCCESS with *vm_pid
 * set, or the PAM code to return (the refusal is logged, told and audited
 * here).  Any error refuses, a traced or unreachable init included.
 */
static int check_container(pam_handle_t *pamh, const struct options *o,
			   const struct passwd *pw, const struct hj_mapping *m,
			   int refuse, pid_t *vm_pid)
{
	struct hj_target t;
	int e;

	/* a frozen container would stop hijack-shell's child at once */
	e = hj_container_state(m->cgroup, &t);
	hj_target_release(&t);
	if (!e) {
		*vm_pid = t.pid;
		return PAM_SUCCESS;
	}
	if (e == -EDEADLK) {
		*vm_pid = t.pid;
		pam_syslog(pamh, LOG_ERR,
			   "container %s (cgroup %s) is frozen; refusing %s "
			   "(%s:%u)",
			   m->name, m->cgroup, pw->pw_name, m->file, m->line);
		tell(pamh, o, PAM_ERROR_MSG,
		     "container %s is frozen: try again later", m->name);
		audit(pamh, "deny", m, pw, *vm_pid, "frozen", false);
		return refuse;
	}
	*vm_pid = -1;
	/* only a cgroup that does not exist is a stopped container */
	if (e == -ENOENT && m->on_stopped == HJ_STOPPED_HOST) {
		pam_syslog(pamh, LOG_NOTICE,
			   "container %s (cgroup %s) is not running (%s): %s "
			   "stays on the host (stopped=host, %s:%u)",
			   m->name, m->cgroup, hj_strerror(e), pw->pw_name,
			   m->file, m->line);
		return PAM_IGNORE;
	}
	log_refusal(pamh, "enter", m, pw, e);
	if (e == -EXDEV)
		tell(pamh, o, PAM_ERROR_MSG,
		     "container %s: its cgroup holds no container", m->name);
	else if (e == -ENOTUNIQ)
		tell(pamh, o, PAM_ERROR_MSG,
		     "container %s: its cgroup holds two containers", m->name);
	else if (e == -ENOENT || e == -ESRCH)
		tell(pamh, o, PAM_ERROR_MSG, "container %s is not running",
		     m->name);
	else
		tell(pamh, o, PAM_ERROR_MSG, "cannot enter container %s",
		     m->name);
	audit(pamh, "deny", m, pw, -1, hj_audit_reason(e, "target"), false);
	return refuse;
}

/*
 * What the session step does to the container before the login goes on,
 * on the init pinned once (hj_container_state(), as every check):
 *
 * - The init's seccomp filters, copied by this process (root, in sshd's
 *   monitor: a process the user cannot signal) and kept for hijack-shell,
 *   which only ever reads the copy (HJ_CONFINE_CACHED).  The init is
 *   stopped for a copy once: at the first login after it started or added
 *   a filter; later logins find the copy current and stop nothing.
 *
 * - This process joins the container's network namespace, and no other
 *   namespace.  sshd runs the session step in the privileged process of
 *   the connection and only then forks the child that serves its
 *   channels, so every forwarded connection (-L, -D, -W) starts and every
 *   remote listener (-R) opens in the container's network.  A mapped
 *   login that cannot have the container's network is refused: it would
 *   forward on the host.  So is the login to a rootless container (a
 *   user namespace the user owns, entered without privilege) whose
 *   network the user could not enter themselves: root would be moving
 *   them where the kernel does not let them go.
 */
static int enter_container(pam_handle_t *pamh, const struct options *o,
			   const struct passwd *pw, const struct hj_mapping *m,
			   pid_t *vm_pid)
{
	struct hj_userns u = { 0 };
	struct hj_confinement c;
	unsigned long long net = 0;
	bool not_theirs = false;
	const char *what = "enter", *reason = "target";
	struct hj_target t;
	char buf[4096];
	size_t len;
	bool filters;
	int e;

	/* no filter, nothing to copy (hijack-shell reads the init again) */
	e = hj_proc_read(*vm_pid, "status", buf, sizeof(buf), &len);
	filters = e || strstr(buf, "\nSeccomp:\t2\n");
	e = hj_container_state(m->cgroup, &t);
	if (!e)
		*vm_pid = t.pid;
	if (!e && filters) {
		what = "copy the confinement of";
		reason = "confinement";
		e = hj_confinement_read_flags(&t, &c, HJ_CONFINE_STORE);
		hj_confinement_free(&c);
	}
	if (!e && pw->pw_uid != 0) {
		what = "read the user namespace of";
		e = hj_userns_of(&t, pw->pw_uid, pw->pw_gid, &u);
	}
	if (!e && u.owned) {
		what = "check the network of";
		reason = "enter";
		e = hj_ns_net_in_userns(&t);
		not_theirs = e == -EPERM;
	}
	if (!e) {
		what = "take the network of";
		reason = "network";
		e = hj_ns_enter_net(&t, &net);
	}
	hj_target_release(&t);
	if (!e) {
		if (o->ctrl & CTRL_DEBUG)
			pam_syslog(pamh, LOG_DEBUG,
				   "%s: the session's network is container "
				   "%s's (net:[%llu])",
				   pw->pw_name, m->name, net);
		return PAM_SUCCESS;
	}
	log_refusal(pamh, what, m, pw, e);
	if (not_theirs)
		tell(pamh, o, PAM_ERROR_MSG,
		     "cannot enter container %s (cgroup %s, pid %d): its "
		     "network namespace is not %s's to enter",
		     m->name, m->cgroup, (int)*vm_pid, pw->pw_name);
	else
		tell(pamh, o, PAM_ERROR_MSG, "cannot enter container %s: %s",
		     m->name, hj_strerror(e));
	audit(pamh, "deny", m, pw, *vm_pid, hj_audit_reason(e, reason), false);
	return PAM_SESSION_ERR;
}

/*
 * The account step's answer, kept in the PAM handle for the session step
 * of the same transaction (sshd runs both in its monitor, one after the
 * other): the session then neither parses the file nor checks the
 * container again.  Kept only for a container that was running, for the
 * user and the conf= it was found with; hijack-shell checks again anyway,
 * so a container that stops in between is refused there.
 */
#define ACCOUNT_DATA "pam_hijack:account"

struct account_answer {
	uid_t uid;
	pid_t vm_pid;
	char user[256];
	char conf[4096];
	struct hj_mapping m;
};

static void free_answer(pam_handle_t *pamh, void *data, int error_status)
{
	(void)pamh;
	(void)error_status;
	free(data);
}

static void keep_answer(pam_handle_t *pamh, const struct options *o,
			const struct passwd *pw, const struct hj_mapping *m,
			pid_t vm_pid)
{
	struct account_answer *a;

	if (strlen(pw->pw_name) >= sizeof(a->user) ||
	    strlen(o->conf) >= sizeof(a->conf))
		return;
	a = calloc(1, sizeof(*a));
	if (!a)
		return;
	a->uid = pw->pw_uid;
	a->vm_pid = vm_pid;
	strcpy(a->user, pw->pw_name);
	strcpy(a->conf, o->conf);
	a->m = *m;
	if (pam_set_data(pamh, ACCOUNT_DATA, a, free_answer) != PAM_SUCCESS)
		free(a);
}

/*
 * The account step's answer when it is for this user (the same name,
 * still the same uid) and this conf=; it is used once.
 */
static bool take_answer(pam_handle_t *pamh, const struct options *o,
			struct passwd **pwp, struct hj_mapping *m,
			pid_t *vm_pid)
{
	const struct account_answer *a = NULL;
	const char *user;
	struct passwd *pw;
	bool ok;

	if (pam_get_data(pamh, ACCOUNT_DATA, (const void **)&a) !=
		    PAM_SUCCESS ||
	    !a)
		return false;
	ok = !o->bad_conf && !strcmp(a->conf, o->conf) &&
	     pam_get_user(pamh, &user, NULL) == PAM_SUCCESS && user &&
	     !strcmp(user, a->user) &&
	     (pw = pam_modutil_getpwnam(pamh, user)) && pw->pw_uid == a->uid;
	if (ok) {
		*pwp = pw;
		*m = a->m;
		*vm_pid = a->vm_pid;
	}
	pam_set_data(pamh, ACCOUNT_DATA, NULL, NULL);
	return ok;
}

int pam_sm_acct_mgmt(pam_handle_t *pamh, int flags, int argc, const char **argv)
{
	struct passwd *pw = NULL;
	struct hj_mapping m;
	struct options o;
	pid_t vm_pid;
	int r;

	parse_args(pamh, flags, argc, argv, &o);
	r = resolve(pamh, &o, PAM_PERM_DENIED, &pw, &m);
	if (r != PAM_SUCCESS)
		return r;
	if (m.kind != HJ_MAP_CONTAINER) {
		if (o.ctrl & CTRL_DEBUG)
			pam_syslog(pamh, LOG_DEBUG, "%s: %s (rule %u)",
				   pw->pw_name,
				   m.kind == HJ_MAP_HOST ? "host" : "no rule",
				   m.line);
		return PAM_IGNORE;
	}
	r = check_container(pamh, &o, pw, &m, PAM_PERM_DENIED, &vm_pid);
	if (r == PAM_IGNORE && !(o.ctrl & CTRL_QUIET))
		tell(pamh, &o, PAM_TEXT_INFO,
		     "container %s is not running; you are on the host",
		     m.name);
	if (r == PAM_SUCCESS && (o.ctrl & CTRL_DEBUG))
		pam_syslog(pamh, LOG_DEBUG,
			   "%s: container %s (cgroup %s) runs as pid %d "
			   "(%s:%u)",
			   pw->pw_name, m.name, m.cgroup, (int)vm_pid, m.file,
			   m.line);
	if (r == PAM_SUCCESS)
		keep_answer(pamh, &o, pw, &m, vm_pid);
	return r;
}

static int putenvf(pam_handle_t *pamh, const char *name, const char *value)
{
	char buf[HJ_CGROUP_PATH_MAX + 64];
	int r;

	snprintf(buf, sizeof(buf), "%s=%s", name, value);
	r = pam_putenv(pamh, buf);
	if (r != PAM_SUCCESS)
		pam_syslog(pamh, LOG_ERR, "cannot set %s: %s", name,
			   pam_strerror(pamh, r));
	return r;
}

/*
 * What the login was mapped to, for hijack-shell, which never takes it as
 * a grant but refuses when its own mapping (by uid) differs: two accounts
 * may share a uid, and PAM knows the user by name.
 */
static int export_mapping(pam_handle_t *pamh, const struct passwd *pw,
			  const struct hj_mapping *m)
{
	char line[16];

	snprintf(line, sizeof(line), "%u", m->line);
	if (putenvf(pamh, "HIJACK_USER", pw->pw_name) != PAM_SUCCESS ||
	    putenvf(pamh, "HIJACK_RULE", line) != PAM_SUCCESS ||
	    putenvf(pamh, "HIJACK_CONTAINER", m->name) != PAM_SUCCESS ||
	    putenvf(pamh, "HIJACK_CGROUP", m->cgroup) != PAM_SUCCESS)
		return PAM_SESSION_ERR;
	return PAM_SUCCESS;
}

/*
 * delegate=BASE, where systemd does not delegate: the mapped user's own
 * cgroup BASE/USER on every hierarchy, and this session (the process
 * that runs the stack, whose children are the session) in
 * BASE/USER/session, so that rootless containers have a cgroup a rule can
 * name.  Where systemd runs, user@.service delegates, and moving the
 * session out of logind's scope would keep pam_systemd from releasing it:
 * the option is ignored there.  Never root, never an unmapped user, and a
 * failure is logged but changes nothing about where the login lands.
 */
static void delegate(pam_handle_t *pamh, const struct options *o,
		     const struct passwd *pw, const struct hj_mapping *m)
{
	char where[HJ_CGROUP_PATH_MAX];
	int e;

	if (!o->delegate || m->kind == HJ_MAP_NONE || pw->pw_uid == 0)
		return;
	if (!access("/run/systemd/system", F_OK)) {
		pam_syslog(pamh, LOG_NOTICE,
			   "delegate=%s ignored: systemd runs here, and "
			   "user@.service delegates a cgroup to %s",
			   o->delegate, pw->pw_name);
		return;
	}
	e = hj_cgroup_delegate(o->delegate, pw->pw_name, pw->pw_uid, pw->pw_gid,
			       getpid(), where, sizeof(where));
	if (e)
		pam_syslog(pamh, LOG_ERR,
			   "delegate=%s: cannot delegate %s to %s: %s",
			   o->delegate, where[0] ? where : o->delegate,
			   pw->pw_name,
			   e == -EPERM ? "owned or writable by another user" :
					 strerror(-e));
	else if (o->ctrl & CTRL_DEBUG)
		pam_syslog(pamh, LOG_DEBUG, "delegate=%s: %s/%s is %s's",
			   o->delegate, o->delegate, pw->pw_name, pw->pw_name);
}

int pam_sm_open_session(pam_handle_t *pamh, int flags, int argc,
			const char **argv)
{
	struct passwd *pw = NULL;
	struct hj_mapping m;
	struct options o;
	pid_t vm_pid;
	int r;

	parse_args(pamh, flags, argc, argv, &o);
	if (take_answer(pamh, &o, &pw, &m, &vm_pid)) {
		if (o.ctrl & CTRL_DEBUG)
			pam_syslog(pamh, LOG_DEBUG,
				   "%s: the account step's answer: container "
				   "%s (%s:%u)",
				   pw->pw_name, m.name, m.file, m.line);
		delegate(pamh, &o, pw, &m);
		r = PAM_SUCCESS;
	} else {
		r = resolve(pamh, &o, PAM_SESSION_ERR, &pw, &m);
		if (r != PAM_SUCCESS)
			return r;
		delegate(pamh, &o, pw, &m);
		if (m.kind != HJ_MAP_CONTAINER)
			return PAM_IGNORE;
		r = check_container(pamh, &o, pw, &m, PAM_SESSION_ERR, &vm_pid);
		if (r == PAM_SESSION_ERR)
			return r;
	}
	if (export_mapping(pamh, pw, &m) != PAM_SUCCESS) {
		audit(pamh, "deny", &m, pw, vm_pid, "environment", false);
		return PAM_SESSION_ERR;
	}
	if (r == PAM_IGNORE) {
		/* stopped=host: the login goes on, on the host */
		return audit_login(pamh, &o, "host", &m, pw, -1, "stopped");
	}
	r = enter_container(pamh, &o, pw, &m, &vm_pid);
	if (r != PAM_SUCCESS)
		return r;
	r = audit_login(pamh, &o, "start", &m, pw, vm_pid, "login");
	if (r != PAM_SUCCESS)
		return r;
	if (!(o.ctrl & CTRL_QUIET))
		pam_syslog(pamh, LOG_INFO,
			   "%s enters container %s (cgroup %s, pid %d, %s:%u)",
			   pw->pw_name, m.name, m.cgroup, (int)vm_pid, m.file,
			   m.line);
	return PAM_SUCCESS;
}

int pam_sm_close_session(pam_handle_t *pamh, int flags, int argc,
			 const char **argv)
{
	return PAM_SUCCESS;
}
