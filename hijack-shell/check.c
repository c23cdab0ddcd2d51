// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack-shell --check [USER]: what would happen at USER's next ssh
 * login, and every setting that would let a mapped user reach the host.
 * Exit status 0 when the user is safely routed (or unmapped), 1 when a
 * mapped user could land on the host or be refused.  Root may point it at
 * another sshd_config and PAM service with HIJACK_CHECK_SSHD_CONFIG and
 * HIJACK_CHECK_PAM_SERVICE.
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
#include "sshdconf.h"

static int problems, unread;

/*
 * @s escaped for printing (hj_escape()), in one of a few buffers used in
 * turn: enough for every string of one line.  Everything printed that
 * comes from NSS, hijack.conf, /proc, cgroupfs, sshd's configuration or
 * the container goes through it.
 */
static const char *E(const char *s)
{
	static char buf[8][HJ_ESCAPED_SIZE(4096)];
	static unsigned int next;

	return hj_escape(s, buf[next++ % 8], sizeof(buf[0]));
}

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
 * "key value" lines of `sshd -T`: the value of the first line for KEY at
 * or after *POS, which moves past it; NULL when there is none.
 */
static const char *sshd_next(char **pos, const char *key, char *out,
			     size_t size)
{
	size_t kl = strlen(key);
	char *p = *pos;

	while (p && *p) {
		char *eol = strchr(p, '\n');
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);

		if (ll > kl && !strncmp(p, key, kl) && p[kl] == ' ') {
			snprintf(out, size, "%.*s", (int)(ll - kl - 1),
				 p + kl + 1);
			*pos = eol ? eol + 1 : p + ll;
			return out;
		}
		p = eol ? eol + 1 : NULL;
	}
	*pos = NULL;
	return NULL;
}

static const char *sshd_value(char *conf, const char *key, char *out,
			      size_t size)
{
	return sshd_next(&conf, key, out, size);
}

/* ForceCommand internal-sftp is served by sshd itself (session.c) */
static const char *forcecommand_why(const char *v)
{
	size_t l = strlen("internal-sftp");

	if (!strncmp(v, "internal-sftp", l) && (!v[l] || v[l] == ' '))
		return "bypasses the login shell: sftp lands on the host";
	return "runs through the shell but replaces the user's command";
}

static char *sshd_effective(const char *config, const char *user)
{
	char *argv[8], spec[512], *buf;
	size_t len = 0, size = 1 << 16;
	int pfd[2], status;
	ssize_t r;
	pid_t pid;
	int i = 0;

	/* sshd -T fails on a Match LocalPort unless lport is given */
	snprintf(spec, sizeof(spec),
		 "user=%s,host=localhost,addr=127.0.0.1,laddr=127.0.0.1,"
		 "lport=22",
		 user);
	argv[i++] = (char *)"/usr/sbin/sshd";
	argv[i++] = (char *)"-T";
	argv[i++] = (char *)"-C";
	argv[i++] = spec;
	if (config) {
		argv[i++] = (char *)"-f";
		argv[i++] = (char *)config;
	}
	argv[i] = NULL;
	if (pipe(pfd))
		return NULL;
	pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		dup2(pfd[1], 1);
		/* a user's check: "cannot check" says it, not sshd's words */
		if (geteuid() != 0) {
			int null = open("/dev/null", O_WRONLY | O_CLOEXEC);

			if (null >= 0)
				dup2(null, 2);
		}
		close(pfd[0]);
		close(pfd[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	buf = malloc(size);
	while (buf && (r = read(pfd[0], buf + len, size - 1 - len)) > 0)
		len += r;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!buf || !WIFEXITED(status) || WEXITSTATUS(status)) {
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	return buf;
}

static void check_sshd(const char *config, const char *user)
{
	static const char *const forwarding[] = {
		"allowtcpforwarding", "allowagentforwarding",
		"x11forwarding",      "allowstreamlocalforwarding",
		"permittunnel",
	};
	char *conf = sshd_effective(config, user), v[1024], *pos;
	size_t i;

	if (!conf && geteuid() != 0) {
		cannot("sshd's effective configuration (sshd -T reads the "
		       "host keys, which only root may)");
		return;
	}
	if (!conf) {
		problem("cannot read sshd's effective configuration (sshd -T)");
		return;
	}
	if (sshd_value(conf, "usepam", v, sizeof(v)) && strcmp(v, "yes"))
		problem("sshd: UsePAM is %s: pam_hijack never runs", E(v));
	/* sshd -T prints one line per Subsystem */
	for (pos = conf; sshd_next(&pos, "subsystem", v, sizeof(v));)
		if (strstr(v, "internal-sftp"))
			problem("sshd: 'Subsystem %s' bypasses the login "
				"shell: sftp lands on the host; use an "
				"external sftp-server",
				E(v));
	if (sshd_value(conf, "forcecommand", v, sizeof(v)) && strcmp(v, "none"))
		problem("sshd: ForceCommand %s: %s", E(v), forcecommand_why(v));
	if (sshd_value(conf, "chrootdirectory", v, sizeof(v)) &&
	    strcmp(v, "none"))
		problem("sshd: ChrootDirectory %s hides the login shell", E(v));
	for (i = 0; i < sizeof(forwarding) / sizeof(forwarding[0]); i++)
		if (sshd_value(conf, forwarding[i], v, sizeof(v)) &&
		    strcmp(v, "no"))
			problem("sshd: %s %s: forwarding is done by sshd on "
				"the host, outside the container",
				forwarding[i], E(v));
	if (sshd_value(conf, "permituserenvironment", v, sizeof(v)) &&
	    strcmp(v, "no"))
		printf("warning:    sshd: PermitUserEnvironment %s (harmless "
		       "to hijack-shell, which rebuilds the environment)\n",
		       E(v));
	if (sshd_value(conf, "acceptenv", v, sizeof(v)) &&
	    (strstr(v, "HIJACK") || strchr(v, '*')))
		printf("warning:    sshd: AcceptEnv %s lets clients set "
		       "variables named like pam_hijack's (never trusted)\n",
		       E(v));
	free(conf);
}

/*
 * The login shell is tlog-rec-session: it records on the host and must
 * run hijack-shell.  Setuid to its own user (as upstream installs it;
 * Debian's package does not), the recording is out of the user's reach
 * even on the host; the user must not choose tlog's shell through the
 * environment (TLOG_REC_SESSION_SHELL) that sshd lets in.
 */
static void check_tlog(const struct passwd *pw, const char *exe,
		       const char *config)
{
	char shell[4096], v[1024], *conf, *pos;
	struct stat st;
	int r;

	r = recording_tlog_shell(pw->pw_shell, pw->pw_uid, pw->pw_gid, shell,
				 sizeof(shell));
	if (r) {
		problem("login shell of %s is %s, whose shell setting cannot "
			"be read (%s --configuration: %s): sessions may land "
			"on the host",
			E(pw->pw_name), E(pw->pw_shell), E(pw->pw_shell),
			strerror(-r));
		return;
	}
	if (strcmp(shell, exe)) {
		problem("login shell of %s is %s, which runs %s, not %s: "
			"sessions land on the host (set \"shell\" in "
			"/etc/tlog/tlog-rec-session.conf)",
			E(pw->pw_name), E(pw->pw_shell), E(shell), exe);
		return;
	}
	printf("login shell: %s, recording on the host, running %s\n",
	       E(pw->pw_shell), exe);
	if (!stat(pw->pw_shell, &st) &&
	    (!(st.st_mode & S_ISUID) || st.st_uid == 0 ||
	     st.st_uid == pw->pw_uid))
		printf("warning:    %s is not setuid to a user of its own: the "
		       "recorder runs as %s, who could stop it or alter a "
		       "file recording on the host (dpkg-statoverride --update "
		       "--add _tlog _tlog 6755 %s)\n",
		       E(pw->pw_shell), E(pw->pw_name), E(pw->pw_shell));
	conf = sshd_effective(config, pw->pw_name);
	if (!conf)
		return;
	if (sshd_value(conf, "permituserenvironment", v, sizeof(v)) &&
	    strcmp(v, "no"))
		problem("sshd: PermitUserEnvironment %s lets the user set "
			"TLOG_REC_SESSION_SHELL: sessions could land on the "
			"host",
			E(v));
	/* sshd -T prints one line per AcceptEnv pattern */
	for (pos = conf; sshd_next(&pos, "acceptenv", v, sizeof(v));)
		if (!fnmatch(v, "TLOG_REC_SESSION_SHELL", 0) ||
		    !fnmatch(v, "TLOG_REC_SESSION_CONF_TEXT", 0))
			problem("sshd: AcceptEnv %s lets clients choose "
				"tlog-rec-session's shell or writer: sessions "
				"could land on the host unrecorded",
				E(v));
	free(conf);
}

static void match_report(struct sshdconf_scan *sc,
			 const struct sshdconf_finding *f)
{
	(void)sc;
	problem("sshd: %s:%u: 'Match %s' sets %s %s: %s", E(f->file), f->line,
		E(f->match), E(f->keyword), E(f->value), f->why);
}

/*
 * The Match blocks of every file sshd reads that can apply to the user
 * from some address, host or port: sshd -T showed one connection only.
 */
static void check_sshd_match(const char *config, const struct passwd *pw)
{
	struct sshdconf_user u = { pw->pw_name, NULL, 0 };
	const char **names = NULL;
	struct sshdconf_scan sc;
	gid_t *gids = NULL;
	int n = 0, i, r;

	/* the groups sshd's Match Group sees (groupaccess.c ga_init) */
	if (getgrouplist(pw->pw_name, pw->pw_gid, NULL, &n) == -1 && n > 0) {
		gids = calloc((size_t)n, sizeof(*gids));
		names = calloc((size_t)n, sizeof(*names));
	}
	if (!gids || !names ||
	    getgrouplist(pw->pw_name, pw->pw_gid, gids, &n) == -1) {
		problem("sshd: cannot list the groups of %s: Match blocks not "
			"checked",
			E(pw->pw_name));
		goto out;
	}
	for (i = 0; i < n; i++) {
		struct group *gr = getgrgid(gids[i]);
		char *name = gr ? strdup(gr->gr_name) : NULL;

		if (name)
			names[u.ngroups++] = name;
	}
	u.groups = names;
	sshdconf_scan_init(&sc, &u);
	sc.report = match_report;
	r = sshdconf_scan_file(&sc, config ? config : "/etc/ssh/sshd_config");
	if ((r == -EACCES || r == -EPERM) && geteuid() != 0)
		cannot("sshd: %s: %s: Match blocks not checked", E(sc.bad),
		       strerror(-r));
	else if (r)
		problem("sshd: %s: %s: Match blocks not all checked", E(sc.bad),
			r == -ELOOP ? "Include nested too deep" : strerror(-r));
out:
	for (i = 0; names && (size_t)i < u.ngroups; i++)
		free((char *)names[i]);
	free(names);
	free(gids);
}

static void check_pam_stack(const char *service)
{
	char path[512], line[1024];
	bool found = false;
	FILE *f;

	if (!service || strchr(service, '/'))
		service = "sshd";
	snprintf(path, sizeof(path), "/etc/pam.d/%s", service);
	f = fopen(path, "re");
	if (!f && errno != ENOENT) {
		cannot("%s: %s", E(path), strerror(errno));
		return;
	}
	if (!f) {
		printf("pam:        %s not found\n", E(path));
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (line[strspn(line, " \t")] != '#' &&
		    strstr(line, "pam_hijack"))
			found = true;
	fclose(f);
	printf("pam:        pam_hijack %s in %s\n", found ? "is" : "is NOT",
	       E(path));
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
			   const struct passwd *pw, const struct shell_ids *ids,
			   const char *config)
{
	char *conf = sshd_effective(config, pw->pw_name), *pos, v[1024];
	char prog[SHELL_PATH_MAX] = "";
	bool known = conf != NULL, internal = false;
	struct shell_probe p;
	int r;

	for (pos = conf; conf && sshd_next(&pos, "subsystem", v, sizeof(v));)
		if (!strncmp(v, "sftp ", 5) &&
		    !shell_sftp_program(v + 5 + strspn(v + 5, " \t"), prog,
					sizeof(prog)))
			internal = true; /* check_sshd() flags it */
	free(conf);
	if (internal)
		prog[0] = '\0';
	else if (!prog[0] && known)
		printf("warning:    scp and sftp will fail: sshd names no sftp "
		       "subsystem\n");
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
	struct hj_conf_error cerr = { { 0 }, 0, { 0 } };
	struct hj_mapping m;
	struct hj_target t;
	struct passwd *pw;
	const char *sshd_config = NULL, *service = NULL;
	char exe[4096], shell[4096];
	ssize_t l;
	int r;

	/* an admin's own check may look at another sshd and PAM service */
	sshd_config = getenv("HIJACK_CHECK_SSHD_CONFIG");
	service = getenv("HIJACK_CHECK_PAM_SERVICE");
	if (getuid() != 0) {
		sshd_config = NULL;
		service = NULL;
		if (user) {
			pw = getpwuid(getuid());
			if (!pw || strcmp(pw->pw_name, user))
				errx(1, "only root may check another user");
		}
	}
	pw = user ? getpwnam(user) : getpwuid(getuid());
	if (!pw) {
		warnx("no such user: %s", E(user ? user : "(self)"));
		return 1;
	}
	printf("user:       %s (uid %u)\n", E(pw->pw_name),
	       (unsigned int)pw->pw_uid);
	r = hj_conf_resolve_user(HJ_CONF_DEFAULT, pw, &m, &cerr);
	if (r) {
		problem("%s", E(cerr.msg[0] ? cerr.msg : strerror(-r)));
		return 1;
	}
	l = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	exe[l > 0 ? l : 0] = '\0';
	if (m.kind == HJ_MAP_NONE) {
		printf("rule:       none in %s or %s%s/*.conf: not routed\n",
		       HJ_CONF_DEFAULT, HJ_CONF_DEFAULT, HJ_CONF_DIR_SUFFIX);
		if (!strcmp(pw->pw_shell, exe))
			printf("warning:    the login shell is hijack-shell: "
			       "every login is refused\n");
		else if (recording_is_tlog(pw->pw_shell) &&
			 !recording_tlog_shell(pw->pw_shell, pw->pw_uid,
					       pw->pw_gid, shell,
					       sizeof(shell)) &&
			 !strcmp(shell, exe))
			printf("warning:    the login shell is %s running "
			       "hijack-shell: every login is refused\n",
			       E(pw->pw_shell));
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
		if (!check_identity(&t, &m, pw, &ids)) {
			check_confinement(&t, &m, priv);
			check_transfer(&t, &m, pw, &ids, sshd_config);
		}
	}
	hj_target_release(&t);
	if (recording_is_tlog(pw->pw_shell))
		check_tlog(pw, exe, sshd_config);
	else if (strcmp(pw->pw_shell, exe))
		problem("login shell of %s is %s, not %s: sessions land on the "
			"host",
			E(pw->pw_name), E(pw->pw_shell), exe);
	else
		printf("login shell: %s\n", exe);
	self_privilege();
	if (priv && hj_drop_caps())
		errx(1, "cannot drop privileges");
	check_pam_stack(service);
	check_sshd(sshd_config, pw->pw_name);
	check_sshd_match(sshd_config, pw);
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
