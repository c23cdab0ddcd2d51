// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hijack check [--shell PATH] USER: what would happen at USER's next ssh
 * login, and every setting of the host that would let a mapped user
 * reach it.  The container's side (the rule, the container's state, the
 * identity inside, the confinement, file transfer) is hijack-shell's
 * own --check, run here as root and shown first; this adds what root
 * needs none of the shell's capabilities for: the login shell (tlog
 * included), the PAM stack, and sshd's effective configuration and Match
 * blocks.  Exit status 0 when the user is safely routed (or unmapped), 1
 * when a mapped user could land on the host or be refused.
 * HIJACK_CHECK_SSHD_CONFIG and HIJACK_CHECK_PAM_SERVICE point it at
 * another sshd_config and PAM service.
 */
#include "config.h"

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <grp.h>
#include <limits.h>
#include <nss.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "login-check.h"
#include "pamstack.h"
#include "conf.h"
#include "hijack.h"
#include "recording.h"
#include "sshdconf.h"

/* hijack-shell --check gets this long, whatever a container does */
#define CHECK_SHELL_MS 120000
#define CHECK_SHELL_OUT_MAX (1 << 20)
/* sshd -T reads root's files only, but never hangs a check either */
#define CHECK_SSHD_MS 30000

static int problems;

/*
 * Where a mapped user's TCP forwards go: into the container's network
 * when pam_hijack's session step is required in sshd's stack (it moves
 * sshd's session there, or refuses the login), on the host otherwise.
 */
struct net_view {
	bool session_step; /* no session opens without pam_hijack's step */
	const char *why; /* ... else why: "is not required in FILE" */
	bool known; /* the container's network was read */
	bool host_shared; /* ... and it is the host's (--network host) */
	unsigned long long ino;
	const char *pam_file, *container;
};

/*
 * Everything printed that comes from NSS, hijack.conf, the shell's
 * report or sshd's configuration goes through E().
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

/*
 * The standard output of @argv (at most @size - 1 bytes, NUL-terminated,
 * malloc'ed) when it exits 0 within @timeout_ms; @envp NULL: ours.
 * NULL when it cannot run, fails or is late (it is killed then).
 */
static char *run_output(char *const argv[], char *const envp[], size_t size,
			int timeout_ms)
{
	int pfd[2], status, r;
	size_t len = 0;
	char *buf;
	pid_t pid;

	buf = malloc(size);
	if (!buf)
		return NULL;
	if (pipe2(pfd, O_CLOEXEC)) {
		free(buf);
		return NULL;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		free(buf);
		return NULL;
	}
	if (pid == 0) {
		if (dup2(pfd[1], 1) < 0)
			_exit(127);
		if (envp)
			execve(argv[0], argv, envp);
		else
			execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	r = hj_child_output(pid, pfd[0], buf, size, timeout_ms, &len, &status);
	close(pfd[0]);
	if (r || !WIFEXITED(status) || WEXITSTATUS(status)) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *sshd_effective(const char *config, const char *user)
{
	char *argv[8], spec[512];
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
	return run_output(argv, NULL, 1 << 16, CHECK_SSHD_MS);
}

/* AllowTcpForwarding @v, not "no": where do the forwards go? */
static void check_tcp_forwarding(const char *v, const struct net_view *net)
{
	if (!net->session_step)
		problem("sshd: allowtcpforwarding %s: forwarding is done by "
			"sshd on the host, outside the container (pam_hijack's "
			"session step %s)",
			E(v), E(net->why));
	else if (net->host_shared)
		/* no more than the container's own processes reach */
		printf("forwarding: allowtcpforwarding %s: container %s has "
		       "the host's network (net:[%llu]), and so have its "
		       "forwards, as its own processes do\n",
		       E(v), E(net->container), net->ino);
	else if (net->known)
		printf("forwarding: allowtcpforwarding %s: from and into "
		       "container %s's network (net:[%llu])\n",
		       E(v), E(net->container), net->ino);
}

static void check_sshd(const char *config, const char *user,
		       const struct net_view *net)
{
	static const char *const forwarding[] = {
		"allowtcpforwarding",
		"x11forwarding",
		"allowstreamlocalforwarding",
		"permittunnel",
	};
	char *conf = sshd_effective(config, user), v[1024], *pos;
	size_t i;

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
		if (!sshd_value(conf, forwarding[i], v, sizeof(v)) ||
		    !strcmp(v, "no"))
			continue;
		else if (!strcmp(forwarding[i], "allowtcpforwarding"))
			check_tcp_forwarding(v, net);
		else
			problem("sshd: %s %s: forwarding is done by sshd on "
				"the host, outside the container",
				forwarding[i], E(v));
	/* hijack-shell relays sshd's socket into the container */
	if (sshd_value(conf, "allowagentforwarding", v, sizeof(v)) &&
	    strcmp(v, "no"))
		printf("forwarding: allowagentforwarding %s: the agent is "
		       "relayed to a socket of the session's in the "
		       "container's /tmp\n",
		       E(v));
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
	const struct net_view *net = sc->data;

	/* into the container's network, as in the global section */
	if (!strcasecmp(f->keyword, "AllowTcpForwarding") && net->session_step)
		return;
	problem("sshd: %s:%u: 'Match %s' sets %s %s: %s", E(f->file), f->line,
		E(f->match), E(f->keyword), E(f->value), f->why);
}

/*
 * The Match blocks of every file sshd reads that can apply to the user
 * from some address, host or port: sshd -T showed one connection only.
 */
static void check_sshd_match(const char *config, const struct passwd *pw,
			     const struct net_view *net)
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
	sc.data = (void *)net;
	r = sshdconf_scan_file(&sc, config ? config : "/etc/ssh/sshd_config");
	if (r)
		problem("sshd: %s: %s: Match blocks not all checked", E(sc.bad),
			r == -ELOOP ? "Include nested too deep" : strerror(-r));
out:
	for (i = 0; names && (size_t)i < u.ngroups; i++)
		free((char *)names[i]);
	free(names);
	free(gids);
}

/*
 * Can a session open without pam_hijack's session step?  Read the
 * service's stack with what it includes, as libpam does, and follow
 * every way through it (pamstack.h).
 */
static void check_pam_stack(const char *service, struct net_view *net)
{
	static char path[512], why[2048];
	const struct pamstack_entry *c;
	struct pamstack_verdict v;
	struct pamstack ps;
	int r;

	if (!service || strchr(service, '/'))
		service = "sshd";
	r = pamstack_load(&ps, NULL, service);
	snprintf(path, sizeof(path), "%s", ps.path);
	net->pam_file = path;
	net->why = why;
	snprintf(why, sizeof(why), "is not in %s", path);
	if (r == -ENOENT) {
		printf("pam:        %s not found\n", E(path));
		goto out;
	}
	if (r == -E2BIG) {
		problem("%s: more than %d session lines or %d files with what "
			"it includes: not read to the end",
			E(path), PAMSTACK_MAX_ENTRIES, PAMSTACK_MAX_FILES);
		goto out;
	}
	if (r) {
		problem("%s: %s", E(path), strerror(-r));
		goto out;
	}
	if (ps.bad[0])
		printf("warning:    %s\n", E(ps.bad));
	pamstack_check(&ps, &v);
	/* they run in the container's network, not the host's */
	if (v.after >= 0)
		printf("warning:    '%s' comes after pam_hijack's session step "
		       "in %s: it runs in the container's network\n",
		       E(ps.e[v.after].text), E(ps.e[v.after].file));
	printf("pam:        pam_hijack %s in %s\n", ps.found ? "is" : "is NOT",
	       E(path));
	net->session_step = v.why == PAMSTACK_SAFE;
	c = v.culprit >= 0 ? &ps.e[v.culprit] : NULL;
	if (!c && v.why != PAMSTACK_SAFE && v.why != PAMSTACK_NO_STEP)
		v.why = PAMSTACK_SKIPPED;
	switch (v.why) {
	case PAMSTACK_SAFE:
		break;
	case PAMSTACK_NO_STEP:
		snprintf(why, sizeof(why), "is not required in %s", path);
		break;
	case PAMSTACK_NOT_REQUIRED:
		snprintf(why, sizeof(why), "is not required in %s", c->file);
		break;
	case PAMSTACK_ENDS_BEFORE:
		snprintf(why, sizeof(why),
			 "can be skipped: %s:%u: '%s' can end the session "
			 "stack before it",
			 c->file, c->line, c->text);
		break;
	case PAMSTACK_JUMPS_OVER:
		snprintf(why, sizeof(why),
			 "can be skipped: %s:%u: '%s' can jump over it",
			 c->file, c->line, c->text);
		break;
	case PAMSTACK_RESETS:
		snprintf(why, sizeof(why),
			 "can be undone: %s:%u: '%s' can reset the stack "
			 "after it failed",
			 c->file, c->line, c->text);
		break;
	case PAMSTACK_SKIPPED:
		snprintf(why, sizeof(why), "can be skipped in %s", path);
		break;
	}
	if (ps.found && !net->session_step)
		printf("warning:    pam_hijack's session step %s: forwarded "
		       "ports would be the host's\n",
		       E(why));
out:
	pamstack_free(&ps);
}

/* The program of "Subsystem sftp PATH [ARGS]": 0, -ENOENT, or -EPROTO
 * for internal-sftp (check_sshd() flags it). */
static int sftp_program(const char *config, const char *user, char *out,
			size_t size)
{
	char *conf = sshd_effective(config, user), *pos, v[1024];
	int r = -ENOENT;

	if (!conf)
		return -EIO;
	for (pos = conf; sshd_next(&pos, "subsystem", v, sizeof(v));) {
		const char *cmd = v + 5 + strspn(v + 5, " \t");
		size_t l = strcspn(cmd, " \t");

		if (strncmp(v, "sftp ", 5))
			continue;
		if (cmd[0] != '/') {
			r = -EPROTO;
		} else if (l < size) {
			memcpy(out, cmd, l);
			out[l] = '\0';
			r = 0;
		}
	}
	free(conf);
	return r;
}

/*
 * hijack-shell --check's "network:" line: the network namespace of the
 * container's init, by inode, and whether it is the host's.  Kept in
 * @net for the forwarding checks; the line is printed as it came.
 */
static void read_net(const char *line, struct net_view *net)
{
	unsigned long long ino;
	char whose[32];

	if (sscanf(line, "network: net:[%llu] (%31[^)])", &ino, whose) != 2)
		return;
	net->known = true;
	net->ino = ino;
	net->host_shared = !strcmp(whose, "the host's");
}

/*
 * hijack-shell --check USER, as root: its lines as they come, but its
 * RESULT line, which the whole check gives at the end.  Its PROBLEM lines
 * count.  The child is killed at a deadline: the container's side can be
 * slow, never endless.
 */
static void shell_part(const char *shell, const char *user, const char *sftp,
		       struct net_view *net)
{
	char *buf = malloc(CHECK_SHELL_OUT_MAX + 1), *line, *eol;
	int p[2], status = 0, r;
	size_t len = 0;
	pid_t pid;

	if (!buf || pipe2(p, O_CLOEXEC))
		err(1, "cannot run %s", shell);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		err(1, "cannot run %s", shell);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		dup2(p[1], STDERR_FILENO);
		if (sftp)
			setenv("HIJACK_CHECK_SFTP", sftp, 1);
		else
			unsetenv("HIJACK_CHECK_SFTP");
		execl(shell, "hijack-shell", "--check", user, (char *)NULL);
		fprintf(stderr, "hijack: cannot execute %s: %s\n", shell,
			strerror(errno));
		_exit(127);
	}
	close(p[1]);
	r = hj_child_output(pid, p[0], buf, CHECK_SHELL_OUT_MAX + 1,
			    CHECK_SHELL_MS, &len, &status);
	close(p[0]);
	for (line = buf; *line; line = eol) {
		eol = strchr(line, '\n');
		eol = eol ? eol + 1 : line + strlen(line);
		if (!strncmp(line, "RESULT:", 7) || !strncmp(line, "note:", 5))
			continue;
		if (!strncmp(line, "PROBLEM:", 8))
			problems++;
		if (net)
			read_net(line, net);
		/* the shell escaped what it printed; a stray byte still goes */
		for (char *c = line; c < eol; c++)
			if (*c != '\n' && *c != '\t' &&
			    ((unsigned char)*c < 0x20 || *c == 0x7f))
				*c = '?';
		fwrite(line, 1, (size_t)(eol - line), stdout);
	}
	if (len && buf[len - 1] != '\n')
		putchar('\n');
	free(buf);
	if (r == -ETIMEDOUT)
		problem("%s --check %s did not finish in %d s", shell, E(user),
			CHECK_SHELL_MS / 1000);
	else if (r == -E2BIG)
		problem("%s --check %s said more than %d bytes", shell, E(user),
			CHECK_SHELL_OUT_MAX);
	else if (r)
		problem("%s --check %s: %s", shell, E(user), strerror(-r));
	else if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		problem("%s --check %s failed (status %d)", shell, E(user),
			WIFEXITED(status) ? WEXITSTATUS(status) :
					    128 + WTERMSIG(status));
	else if (WEXITSTATUS(status) == 1 && !problems)
		problem("%s --check %s found a problem", shell, E(user));
}

/*
 * The group of the rule at @file:@line when its WHO is "@GROUP", in
 * @out (empty otherwise).  hijack.conf was read and checked already.
 */
static void rule_group(const char *file, unsigned int line, char *out,
		       size_t size)
{
	char buf[16384];
	unsigned int n = 0;
	FILE *f;

	*out = '\0';
	f = fopen(file, "re");
	if (!f)
		return;
	while (fgets(buf, sizeof(buf), f))
		if (++n == line) {
			char *w = buf + strspn(buf, " \t");

			if (*w == '@')
				snprintf(out, size, "%.*s",
					 (int)strcspn(w + 1, " \t\n"), w + 1);
			break;
		}
	fclose(f);
}

/*
 * The services of nsswitch.conf's "group:" line, in order, each with
 * room for its name (actions in brackets left out).  Their number.
 */
#define NSS_SERVICES_MAX 8
static int group_services(char (*svc)[32])
{
	char line[1024], *save, *w;
	int n = 0;
	FILE *f;

	f = fopen("/etc/nsswitch.conf", "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *l = line + strspn(line, " \t");

		if (strncmp(l, "group:", 6))
			continue;
		for (w = strtok_r(l + 6, " \t\n", &save);
		     w && n < NSS_SERVICES_MAX;
		     w = strtok_r(NULL, " \t\n", &save)) {
			if (*w == '#')
				break;
			if (*w == '[' || strchr(w, ']') || strlen(w) >= 32)
				continue;
			snprintf(svc[n++], 32, "%s", w);
		}
		break;
	}
	fclose(f);
	return n;
}

#define SSSCTL "/usr/sbin/sssctl"

/* The VALUE of "NAME: VALUE" in sssctl's output, into @v; or NULL */
static char *sssctl_field(const char *out, const char *name, char *v,
			  size_t size)
{
	size_t l = strlen(name);
	const char *p;

	for (p = out; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, l) && p[l] == ':') {
			p += l + 1 + strspn(p + l + 1, " ");
			snprintf(v, size, "%.*s", (int)strcspn(p, "\n"), p);
			return v;
		}
	return NULL;
}

static void print_age(long s)
{
	if (s < 120)
		printf("%ld s", s);
	else if (s < 7200)
		printf("%ld min", s / 60);
	else
		printf("%ld h %ld min", s / 3600, s / 60 % 60);
}

/*
 * For a group sssd answered (@asked: when the lookup began), where the
 * answer came from: the directory, fetched for this check, or sssd's
 * cache, and how old that is.  sssctl group-show reads sssd's cache
 * database itself (no bus, no responder): an entry updated before the
 * lookup was not fetched for it, and one expired and still not updated
 * is sssd's answer while the directory does not answer.
 */
static void check_sss_cache(const char *name, time_t asked)
{
	static char *const envp[] = {
		(char *)"LC_ALL=C",
		(char *)"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL
	};
	char *argv[] = { (char *)SSSCTL, (char *)"group-show", (char *)name,
			 NULL };
	char *out, upd[64], exp[64];
	struct tm tm;
	time_t t;

	printf("sss cache:  %s: ", E(name));
	if (access(SSSCTL, X_OK)) {
		printf("cannot tell sssd's cached answers from fresh ones "
		       "without sssctl (sssd-tools)\n");
		return;
	}
	out = run_output(argv, envp, 1 << 14, HJ_LOOKUP_MS);
	memset(&tm, 0, sizeof(tm));
	if (!out ||
	    !sssctl_field(out, "Cache entry last update time", upd,
			  sizeof(upd)) ||
	    !sssctl_field(out, "Cache entry expiration time", exp,
			  sizeof(exp)) ||
	    !strptime(upd, "%m/%d/%y %H:%M:%S", &tm)) {
		printf("sssctl group-show did not say how old the entry is\n");
		free(out);
		return;
	}
	tm.tm_isdst = -1;
	t = mktime(&tm);
	if (t >= asked - 1) {
		printf("fetched from the directory for this check (cached "
		       "until %s)\n",
		       exp);
	} else {
		printf("sssd's cached answer, fetched ");
		print_age((long)(time(NULL) - t));
		if (!strcmp(exp, "Expired"))
			printf(" ago and expired: the directory did not "
			       "answer\n");
		else
			printf(" ago (cached until %s)\n", exp);
	}
	free(out);
}

/*
 * Group @name (NULL: @gid) from the first of @nsvc NSS services that
 * knows it, that service in @from; NULL when none does.
 */
static struct group *group_from(char (*svc)[32], int nsvc, const char *name,
				gid_t gid, const char **from)
{
	struct group *g;

	for (int k = 0; k < nsvc; k++) {
		if (__nss_configure_lookup("group", svc[k]))
			continue;
		g = name ? getgrnam(name) : getgrgid(gid);
		if (g) {
			*from = svc[k];
			return g;
		}
	}
	return NULL;
}

/*
 * check_group_sources()'s child: the "groups:" line on @fd, then the
 * groups sss answered for, one a line after a tab.  Its exit status.
 */
static int print_group_sources(int fd, const struct passwd *pw,
			       const char *rule_group, char (*svc)[32],
			       int nsvc)
{
	char sss[257][64];
	gid_t gids[256];
	int ngids = 256, nsss = 0;
	const char *from = NULL;
	struct group *g;
	FILE *o;

	o = fdopen(fd, "w");
	if (!o || getgrouplist(pw->pw_name, pw->pw_gid, gids, &ngids) < 0)
		return 1;
	fprintf(o, "groups:     ");
	for (int i = 0; i < ngids; i++) {
		g = group_from(svc, nsvc, NULL, gids[i], &from);
		if (!g) {
			fprintf(o, "%s%u (no database)", i ? ", " : "",
				(unsigned int)gids[i]);
			continue;
		}
		fprintf(o, "%s%s (%s)", i ? ", " : "", E(g->gr_name), from);
		if (!strcmp(from, "sss"))
			snprintf(sss[nsss++], sizeof(sss[0]), "%s", g->gr_name);
	}
	/* the rule's group when it lists the user without being one
	 * getgrouplist() gives */
	g = rule_group ? group_from(svc, nsvc, rule_group, 0, &from) : NULL;
	for (int j = 0; g && j < ngids; j++)
		if (g->gr_gid == gids[j])
			g = NULL;
	if (g) {
		fprintf(o, ", %s (%s, lists the user)", E(g->gr_name), from);
		if (!strcmp(from, "sss"))
			snprintf(sss[nsss++], sizeof(sss[0]), "%s", g->gr_name);
	}
	fprintf(o, "\n");
	for (int i = 0; i < nsss; i++)
		fprintf(o, "\t%s\n", sss[i]);
	return fclose(o) ? 1 : 0;
}

/*
 * Which database answers for each of the user's groups (files, sss,
 * ...), as the group rules see them: "groups: NAME (SERVICE), ...".
 * Asked in a child (NSS may wait on a directory; HJ_LOOKUP_MS as at
 * login), one service at a time (__nss_configure_lookup, as getent -s).
 */
static void check_group_sources(const struct passwd *pw, const char *rule_group)
{
	char svc[NSS_SERVICES_MAX][32], out[1 << 15];
	int p[2], status = 0, nsvc, r;
	size_t len = 0;
	time_t asked;
	pid_t pid;

	nsvc = group_services(svc);
	if (!nsvc || pipe2(p, O_CLOEXEC))
		return;
	asked = time(NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		_exit(print_group_sources(p[1], pw, rule_group, svc, nsvc));
	}
	close(p[1]);
	r = hj_child_output(pid, p[0], out, sizeof(out), HJ_LOOKUP_MS, &len,
			    &status);
	close(p[0]);
	if (r == -ETIMEDOUT) {
		printf("warning:    groups: the group database did not answer "
		       "within %d s\n",
		       HJ_LOOKUP_MS / 1000);
	} else if (!r && WIFEXITED(status) && !WEXITSTATUS(status)) {
		char *l = out, *nl;

		for (; *l; l = nl + 1) {
			nl = strchr(l, '\n');
			if (!nl)
				break;
			*nl = '\0';
			if (*l == '\t')
				check_sss_cache(l + 1, asked);
			else
				printf("%s\n", l);
		}
	}
}

/*
 * Routed to a container (or not routed), is the login shell the one that
 * routes it: hijack-shell at @shell, or tlog-rec-session running it.
 */
static void check_login_shell(const struct passwd *pw, const char *shell,
			      bool mapped, const char *config)
{
	char tshell[PATH_MAX];

	if (!mapped) {
		if (!strcmp(pw->pw_shell, shell))
			printf("warning:    the login shell is hijack-shell: "
			       "every login is refused\n");
		else if (recording_is_tlog(pw->pw_shell) &&
			 !recording_tlog_shell(pw->pw_shell, pw->pw_uid,
					       pw->pw_gid, tshell,
					       sizeof(tshell)) &&
			 !strcmp(tshell, shell))
			printf("warning:    the login shell is %s running "
			       "hijack-shell: every login is refused\n",
			       E(pw->pw_shell));
		return;
	}
	if (recording_is_tlog(pw->pw_shell))
		check_tlog(pw, shell, config);
	else if (strcmp(pw->pw_shell, shell))
		problem("login shell of %s is %s, not %s: sessions land on the "
			"host",
			E(pw->pw_name), E(pw->pw_shell), E(shell));
	else
		printf("login shell: %s\n", E(shell));
}

int hijack_check(const char *shell_arg, const char *user)
{
	struct hj_conf_error cerr = { .msg = "" };
	const char *config = getenv("HIJACK_CHECK_SSHD_CONFIG");
	const char *service = getenv("HIJACK_CHECK_PAM_SERVICE");
	char shell[PATH_MAX], sftp[PATH_MAX], group[256];
	struct net_view net = { 0 };
	struct hj_mapping m;
	struct passwd *pw;
	int r;

	if (getuid() != 0 || geteuid() != 0)
		errx(1, "only root may run hijack check; a user checks their "
			"own login with hijack-shell --check");
	if (!realpath(shell_arg, shell))
		err(1, "cannot find hijack-shell at %s", shell_arg);
	pw = getpwnam(user);
	if (!pw) {
		warnx("no such user: %s", E(user));
		return 1;
	}
	r = hj_conf_resolve_user_by(HJ_CONF_DEFAULT, pw, &m, &cerr,
				    HJ_LOOKUP_MS);
	/* the rule's lines and problems are the shell's to print */
	if (r || m.kind != HJ_MAP_CONTAINER) {
		shell_part(shell, pw->pw_name, NULL, NULL);
		if (!r && m.kind == HJ_MAP_NONE)
			check_login_shell(pw, shell, false, config);
		return problems ? 1 : 0;
	}
	r = sftp_program(config, pw->pw_name, sftp, sizeof(sftp));
	shell_part(shell, pw->pw_name, r ? NULL : sftp, &net);
	rule_group(m.file, m.line, group, sizeof(group));
	check_group_sources(pw, *group ? group : NULL);
	if (r == -ENOENT)
		printf("warning:    scp and sftp will fail: sshd names no sftp "
		       "subsystem\n");
	check_login_shell(pw, shell, true, config);
	check_pam_stack(service, &net);
	net.container = m.name;
	check_sshd(config, pw->pw_name, &net);
	check_sshd_match(config, pw, &net);
	if (problems)
		printf("RESULT: a mapped user could reach the host or be "
		       "refused; see PROBLEM lines\n");
	else
		printf("RESULT: ok\n");
	return problems ? 1 : 0;
}
