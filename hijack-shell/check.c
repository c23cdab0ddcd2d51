// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell --check [USER]: the container's side of USER's next ssh
 * login, as only this program (its privilege) can see it: the rule, the
 * container's state, the identity inside, the confinement, and what file
 * transfer finds there.  Exit status 0 when the user is safely routed
 * (or unmapped), 1 when a mapped user would be refused.  Root's
 * "hijack check USER" runs it and adds the host's side (login shell,
 * PAM, sshd), which needs none of this program's capabilities; it names
 * sshd's sftp program in HIJACK_CHECK_SFTP, honoured only for root.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "conf.h"
#include "hijack.h"
#include "shell.h"

static int problems, unread;

/*
 * Everything printed that comes from NSS, hijack.conf, /proc, cgroupfs
 * or the container goes through E().
 */
#define E(s) hj_escape_tmp(s)

static void __attribute__((format(printf, 1, 2))) problem(const char *fmt, ...)
{
	va_list ap;

	printf("PROBLEM: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	problems++;
}

/* What this caller may not read (a user checking their own login). */
static void __attribute__((format(printf, 1, 2))) cannot(const char *fmt, ...)
{
	va_list ap;

	printf("cannot check: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	unread++;
}

static void self_privilege(void)
{
	char exe[4096];
	struct stat st;
	ssize_t l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (l < 0 || stat("/proc/self/exe", &st))
		return;
	exe[l] = '\0';
	if (st.st_mode & S_ISUID && st.st_uid == 0)
		printf("privilege:  %s is setuid root\n", exe);
	else if (getxattr(exe, "security.capability", NULL, 0) > 0)
		printf("privilege:  %s has file capabilities\n", exe);
	else
		printf("privilege:  none (enough only for containers the user owns)\n");
}

/*
 * Who the session would be inside, decided as hijack-shell's
 * resolve_ids() and hj_spawn() decide it: 0, or 1 when the login would be
 * refused (a PROBLEM printed).
 */
static int check_identity(struct hj_target *t, const struct hj_mapping *m,
			  const struct passwd *pw, struct shell_ids *ids)
{
	struct hj_spawn_opts o = { .clone_flags = SIGCHLD, .cwd = "/" };
	struct hj_userns ns;
	int r = hj_userns_of(t, pw->pw_uid, pw->pw_gid, &ns);

	if (r == -EPERM && geteuid() != 0) {
		cannot("the user namespace of container %s: %s", E(m->name),
		       hj_strerror(r));
		return 0;
	}
	if (r) {
		problem("container %s: cannot read its user namespace: %s: "
			"logins are refused",
			E(m->name), hj_strerror(r));
		return 1;
	}
	if (ns.setgroups_denied) {
		problem("container %s: its user namespace denies setgroups "
			"(/proc/%d/setgroups): logins are refused",
			E(m->name), (int)t->pid);
		return 1;
	}
	if (!ns.own_ns) {
		printf("identity:   uid %u gid %u, as on the host (no user "
		       "namespace of its own)\n",
		       (unsigned int)pw->pw_uid, (unsigned int)pw->pw_gid);
		return 0;
	}
	if (!ns.owned || pw->pw_uid == 0) {
		printf("userns:     owned by uid %d, not by %s: entered with "
		       "privilege\n",
		       (int)ns.owner, E(pw->pw_name));
		printf("identity:   uid %u gid %u inside (the same numbers "
		       "as on the host)\n",
		       (unsigned int)pw->pw_uid, (unsigned int)pw->pw_gid);
		return 0;
	}
	printf("userns:     %s's own (a rootless container): entered without "
	       "privilege\n",
	       E(pw->pw_name));
	if (!ns.root_mapped) {
		problem("container %s: its user namespace maps no root: "
			"logins are refused",
			E(m->name));
		return 1;
	}
	/*
	 * As resolve_ids() decides it.  The user's own --check enters as the
	 * login would, without privilege; root's can only enter with it
	 * (HJ_SPAWN_AS_OWNER needs the owner's euid), and then looks as the
	 * same ids inside.
	 */
	ids->owner = geteuid() == pw->pw_uid ? pw->pw_uid : 0;
	ids->uid = ns.uid_mapped ? ns.uid : 0;
	ids->gid = ns.uid_mapped && ns.gid_mapped ? ns.gid : 0;
	ids->groups = true;
	if (ns.uid_mapped)
		printf("identity:   uid %u gid %u inside: %s's own ids as the "
		       "user namespace maps them\n",
		       (unsigned int)ids->uid, (unsigned int)ids->gid,
		       E(pw->pw_name));
	else
		printf("identity:   uid 0 gid 0 inside: root of the user "
		       "namespace, as uid %u is not mapped there\n",
		       (unsigned int)pw->pw_uid);
	/* the cgroups hj_spawn() would join, checked as it checks them */
	o.flags = HJ_SPAWN_AS_OWNER;
	o.owner = pw->pw_uid;
	r = hj_spawn_check(t, &o);
	if (r == -EACCES) {
		problem("container %s: its cgroup %s is not delegated to %s "
			"(not owned by uid %u): logins are refused",
			E(m->name), E(t->cgroup), E(pw->pw_name),
			(unsigned int)pw->pw_uid);
		return 1;
	}
	if (r == -EPERM && geteuid() != 0) {
		cannot("the cgroups of container %s: %s", E(m->name),
		       hj_strerror(r));
		return 0;
	}
	if (r) {
		problem("container %s: %s: logins are refused", E(m->name),
			hj_strerror(r));
		return 1;
	}
	printf("cgroups:    delegated to %s: joined\n", E(pw->pw_name));
	return 0;
}

/*
 * What a session would be confined to, read as a login would read it:
 * the init's filters from root's copy (a user's check never stops the
 * init); root's check makes the copy when there is none, as the next
 * login's pam_hijack would.
 */
static void check_confinement(struct hj_target *t, const struct hj_mapping *m,
			      bool priv)
{
	struct hj_confinement c;
	unsigned int flags = !priv ? HJ_CONFINE_FILTER_NNP :
			     getuid() == 0 && geteuid() == 0 ?
				     HJ_CONFINE_STORE :
				     HJ_CONFINE_CACHED;
	int r = hj_confinement_read_flags(t, &c, flags);

	if (r == -ENODATA) {
		cannot("the seccomp filters of container %s's init: %s (the "
		       "next login makes it)",
		       E(m->name), hj_strerror(r));
		return;
	}
	if (r == -ETIMEDOUT) {
		problem("container %s: %s within %d ms: logins are refused "
			"until it does",
			E(m->name), hj_strerror(r), HJ_FILTER_COPY_MS);
		return;
	}
	if (r == -EOPNOTSUPP && c.seccomp_mode == 1) {
		problem("container %s: its init runs in seccomp strict mode: "
			"logins are refused",
			E(m->name));
		return;
	}
	if (r == -EOPNOTSUPP) {
		problem("container %s: the kernel does not hand out its init's "
			"seccomp filter: logins are refused",
			E(m->name));
		return;
	}
	if (r) {
		problem("container %s: cannot read its init's confinement: %s",
			E(m->name), strerror(-r));
		return;
	}
	printf("confinement: bounding set %016llx, no_new_privs %s, seccomp "
	       "%s",
	       c.capbnd, c.no_new_privs ? "yes" : "no",
	       c.filter_fallback ? "filter not copied (no privilege): "
				   "no_new_privs instead" :
	       c.nfilters	 ? "filters copied" :
				   "none");
	if (c.nfilters)
		printf(" (%u)", c.nfilters);
	if (c.label[0])
		printf(", %s %s", E(c.lsm), E(c.label));
	putchar('\n');
	hj_confinement_free(&c);
}

/*
 * File transfer: the sftp subsystem sshd names (scp uses it too since
 * OpenSSH 9), the user in the container's passwd (sftp-server needs
 * it), rsync and scp in the session's PATH, looked at inside as the
 * session (probe.c).  Missing pieces are warnings: logins still work.
 */
static void check_transfer(struct hj_target *t, const struct hj_mapping *m,
			   const struct passwd *pw, const struct shell_ids *ids)
{
	const char *sftp = getuid() == 0 ? getenv("HIJACK_CHECK_SFTP") : NULL;
	char prog[SHELL_PATH_MAX] = "";
	struct shell_probe p;
	int r;

	if (sftp && !shell_sftp_program(sftp, prog, sizeof(prog)))
		prog[0] = '\0';
	r = shell_probe(t, pw->pw_name, ids, prog[0] ? prog : NULL, &p);
	if (r) {
		printf("warning:    cannot look inside %s for file transfer: "
		       "%s\n",
		       E(m->name), hj_strerror(r));
		return;
	}
	if (prog[0] && (p.sftp == -ENOENT || p.sftp == -ENOTDIR))
		printf("warning:    scp and sftp will fail: %s is not in %s\n",
		       E(prog), E(m->name));
	else if (prog[0] && p.sftp)
		printf("warning:    scp and sftp will fail: %s cannot be "
		       "executed in %s: %s\n",
		       E(prog), E(m->name), strerror(-p.sftp));
	else if (prog[0])
		printf("sftp:       %s is in %s\n", E(prog), E(m->name));
	if (!p.passwd)
		printf("warning:    scp and sftp will fail: %s (uid %u) is not "
		       "in %s's /etc/passwd (sftp-server: \"No user found for "
		       "uid\")\n",
		       E(pw->pw_name), (unsigned int)ids->uid, E(m->name));
	if (!p.rsync)
		printf("warning:    rsync will fail: no rsync in %s's PATH "
		       "(/usr/local/bin:/usr/bin:/bin)\n",
		       E(m->name));
	if (!p.scp)
		printf("warning:    scp -O (the legacy protocol) will fail: no "
		       "scp in %s's PATH (/usr/local/bin:/usr/bin:/bin)\n",
		       E(m->name));
}

/*
 * The network namespace a login's TCP forwards use (pam_hijack's session
 * step moves sshd's session there): hijack check reads this line.
 */
static void check_network(const struct hj_target *t)
{
	char path[64];
	struct stat st;
	int r;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)t->pid);
	r = stat(path, &st) ? -errno : hj_target_alive(t);
	if (r) {
		cannot("the network namespace of pid %d: %s", (int)t->pid,
		       hj_strerror(r));
		return;
	}
	printf("network:    net:[%llu] (%s)\n", (unsigned long long)st.st_ino,
	       t->ns_differ & HJ_NS_NET ? "the container's own" : "the host's");
}

/*
 * hijack-shell knows the user by uid, PAM by name: when the uid's first
 * account in the user database is another, the login of this one is
 * refused as a mismatch (hijack-shell.c check_pam_mapping()).
 */
static void check_uid_owner(const struct passwd *pw)
{
	struct passwd ent, *byuid = NULL;
	char buf[16384];

	/* getpwuid() would overwrite the caller's getpwnam() answer */
	if (getpwuid_r(pw->pw_uid, &ent, buf, sizeof(buf), &byuid))
		byuid = NULL;
	if (byuid && !strcmp(byuid->pw_name, pw->pw_name))
		return;
	problem("uid %u is %s in the user database, not %s: hijack-shell, "
		"which knows the user by uid, refuses every login of %s "
		"(accounts sharing a uid)",
		(unsigned int)pw->pw_uid,
		byuid ? E(byuid->pw_name) : "nobody's", E(pw->pw_name),
		E(pw->pw_name));
}

int shell_check(const char *user, bool priv)
{
	struct hj_conf_error cerr = { .msg = "" };
	struct hj_mapping m;
	struct hj_target t;
	struct passwd *pw;
	int r;

	if (getuid() != 0 && user) {
		pw = getpwuid(getuid());
		if (!pw || strcmp(pw->pw_name, user))
			errx(1, "only root may check another user");
	}
	pw = user ? getpwnam(user) : getpwuid(getuid());
	if (!pw) {
		warnx("no such user: %s", E(user ? user : "(self)"));
		return 1;
	}
	printf("user:       %s (uid %u)\n", E(pw->pw_name),
	       (unsigned int)pw->pw_uid);
	r = hj_conf_resolve_user_by(HJ_CONF_DEFAULT, pw, &m, &cerr,
				    HJ_LOOKUP_MS);
	if (r) {
		problem("%s", E(cerr.msg[0] ? cerr.msg : strerror(-r)));
		return 1;
	}
	if (m.kind == HJ_MAP_NONE) {
		printf("rule:       none in %s or %s%s/*.conf: not routed\n",
		       HJ_CONF_DEFAULT, HJ_CONF_DEFAULT, HJ_CONF_DIR_SUFFIX);
		return 0;
	}
	/* the file it is in: hijack.conf or one of hijack.conf.d */
	printf("rule:       %s:%u\n", E(m.file), m.line);
	if (m.kind == HJ_MAP_CONTAINER)
		check_uid_owner(pw);
	if (m.kind == HJ_MAP_HOST) {
		printf("target:     the host ('-')\n");
		return 0;
	}
	printf("container:  %s\ncgroup:     %s\n", E(m.name), E(m.cgroup));
	printf("shell:      %s\n",
	       m.shell[0] ? E(m.shell) :
			    "(the container's /etc/passwd, else /bin/sh)");
	r = hj_container_state(m.cgroup, &t);
	if (t.pid > 0)
		printf("task:       pid %d (%s) in %s\n", (int)t.pid,
		       hj_pick_name(t.pick), E(t.cgroup));
	if (r == -ENOENT) {
		/* the only answer on which stopped=host routes to the host */
		problem("container %s is not running (%s): logins are %s",
			E(m.name), hj_strerror(r),
			m.on_stopped == HJ_STOPPED_HOST ? "routed to the host" :
							  "refused");
	} else if (r == -ESRCH) {
		problem("container %s is not running (no live task in cgroup "
			"%s): logins are refused",
			E(m.name), E(m.cgroup));
	} else if (r == -EDEADLK) {
		problem("container %s is frozen: logins are refused until it "
			"is thawed",
			E(m.name));
	} else if (r) {
		problem("container %s (cgroup %s): %s: logins are refused",
			E(m.name), E(m.cgroup), hj_strerror(r));
	} else {
		struct shell_ids ids = { .owner = 0,
					 .uid = pw->pw_uid,
					 .gid = pw->pw_gid,
					 .groups = priv };
		unsigned int bit;

		/* the login path only ever answers with a container */
		printf("namespaces: ");
		for (bit = 1; bit < (1u << HJ_NS_COUNT); bit <<= 1)
			if (t.ns_differ & bit)
				printf("%s ", hj_ns_name(bit));
		printf("differ from the host\n");
		check_network(&t);
		if (!check_identity(&t, &m, pw, &ids)) {
			check_confinement(&t, &m, priv);
			check_transfer(&t, &m, pw, &ids);
		}
	}
	hj_target_release(&t);
	self_privilege();
	/* hijack check drops this line and checks them */
	printf("note:       the login shell, PAM and sshd are root's to "
	       "check: hijack check %s\n",
	       E(pw->pw_name));
	if (problems)
		printf("RESULT: a mapped user could reach the host or be "
		       "refused; see PROBLEM lines\n");
	else if (unread)
		printf("RESULT: no problem in what could be read; %d check%s "
		       "need%s root (see 'cannot check' lines)\n",
		       unread, unread == 1 ? "" : "s", unread == 1 ? "s" : "");
	else
		printf("RESULT: ok\n");
	return problems ? 1 : 0;
}
