// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The freshly built pam_hijack.so through the real libpam
 * (pam_start_confdir), against a real container: a cgroup on every
 * hierarchy with an unshare'd init in it (tests/lib.sh's ct_start, through
 * tests/container.sh).
 *
 * Needs root: it creates users (hjt*), cgroups (below hjtest-PID) and a
 * root-owned hijack.conf, and removes them all at the end.
 *
 * Each service stacks the module as
 *	account [success=done ignore=ignore default=die] pam_hijack.so
 *	account [default=die] pam_debug.so acct=authinfo_unavail
 * so that PAM_IGNORE from the module shows as PAM_AUTHINFO_UNAVAIL.
 */
#include "config.h"

#include <check.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <pwd.h>
#include <security/pam_appl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

#define MODULE ABS_TOP_BUILDDIR "/pam_hijack/.libs/pam_hijack.so"
#define CONTAINER_SH ABS_TOP_SRCDIR "/tests/container.sh"
#define USERS_SH ABS_TOP_SRCDIR "/tests/users.sh"
#define IGNORED PAM_AUTHINFO_UNAVAIL

/* a sanitizer's allocator replaces glibc's, and its mmap threshold */
#if defined(__SANITIZE_ADDRESS__)
#define GLIBC_MALLOC false
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define GLIBC_MALLOC false
#endif
#endif
#ifndef GLIBC_MALLOC
#define GLIBC_MALLOC true
#endif

static char dir[] = "/tmp/hjt-pam-XXXXXX";
static char u_mapped[32], u_group[32], u_stopped[32], u_host[32], grp[32];
static char u_xhost[32], u_xempty[32];
/* the containers' names, and their cgroups (RUN/NAME) */
static char ctr[64], gone[64], empty[64], hostonly[64];
static char cg_ctr[128], cg_gone[128], cg_empty[128], cg_hostonly[128];
static char hj_run[32]; /* the run's cgroup: every cgroup is below it */
static char said[4096]; /* what the module told the user */
static int logfd = -1; /* our /dev/log, when there was none */
static char logged[16384]; /* what the module logged */
static int login_flags; /* PAM_SILENT or 0 */

static int conv(int n, const struct pam_message **msg,
		struct pam_response **resp, void *data)
{
	int i;

	for (i = 0; i < n; i++) {
		size_t l = strlen(said);

		/* pam_debug says what it returns; only pam_hijack counts */
		if (!strncmp(msg[i]->msg, "acct=", 5) ||
		    !strncmp(msg[i]->msg, "open_session=", 13) ||
		    !strncmp(msg[i]->msg, "close_session=", 14))
			continue;

		snprintf(said + l, sizeof(said) - l, "%s%s\n",
			 msg[i]->msg_style == PAM_ERROR_MSG ? "error: " :
							      "info: ",
			 msg[i]->msg);
	}
	*resp = calloc(n, sizeof(**resp));
	return *resp ? PAM_SUCCESS : PAM_BUF_ERR;
}

struct outcome {
	int acct, open, close;
	char user[64], rule[32], container[64], cgroup[64];
};

static void getenv_into(pam_handle_t *pamh, const char *name, char *buf,
			size_t size)
{
	const char *v = pam_getenv(pamh, name);

	snprintf(buf, size, "%s", v ? v : "(unset)");
}

/*
 * Everything logged since the last call, one message a line.  /dev/log
 * is the machine's: anything else that logs while a test runs (sshd of
 * another test, say) lands here too, and once its queue is full
 * (net.unix.max_dgram_qlen) the module's own syslog() would block in the
 * very process that should read it.  A thread of each test drains it.
 */
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char pending[sizeof(logged)]; /* drained, not yet read_log()'d */
static size_t log_len;

/* with log_lock held */
static void log_drain(void)
{
	for (;;) {
		ssize_t r = recv(logfd, pending + log_len,
				 sizeof(pending) - log_len - 2, MSG_DONTWAIT);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		log_len += r;
		pending[log_len++] = '\n';
		pending[log_len] = '\0';
		/* full: keep the newest half, the rest is others' noise */
		if (sizeof(pending) - log_len < 1024) {
			size_t cut = log_len / 2;

			memmove(pending, pending + cut, log_len - cut + 1);
			log_len -= cut;
		}
	}
}

static void *log_thread(void *arg)
{
	struct pollfd p = { .fd = logfd, .events = POLLIN };

	for (;;) {
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return arg;
		pthread_mutex_lock(&log_lock);
		log_drain();
		pthread_mutex_unlock(&log_lock);
	}
}

/* checked fixture: runs in each test's own process */
static void log_reader_start(void)
{
	pthread_t t;

	log_len = 0;
	pending[0] = '\0';
	if (logfd >= 0 && pthread_create(&t, NULL, log_thread, NULL) == 0)
		pthread_detach(t);
}

static void read_log(void)
{
	if (logfd < 0) {
		logged[0] = '\0';
		return;
	}
	pthread_mutex_lock(&log_lock);
	log_drain();
	memcpy(logged, pending, log_len + 1);
	log_len = 0;
	pending[0] = '\0';
	pthread_mutex_unlock(&log_lock);
}

static void login(const char *service, const char *user, struct outcome *o)
{
	struct pam_conv c = { conv, NULL };
	char confdir[64];
	pam_handle_t *pamh = NULL;

	said[0] = '\0';
	snprintf(confdir, sizeof(confdir), "%s/pam.d", dir);
	ck_assert_int_eq(pam_start_confdir(service, user, &c, confdir, &pamh),
			 PAM_SUCCESS);
	o->acct = pam_acct_mgmt(pamh, login_flags);
	o->open = pam_open_session(pamh, login_flags);
	getenv_into(pamh, "HIJACK_USER", o->user, sizeof(o->user));
	getenv_into(pamh, "HIJACK_RULE", o->rule, sizeof(o->rule));
	getenv_into(pamh, "HIJACK_CONTAINER", o->container,
		    sizeof(o->container));
	getenv_into(pamh, "HIJACK_CGROUP", o->cgroup, sizeof(o->cgroup));
	o->close = pam_close_session(pamh, 0);
	ck_assert_int_eq(pam_end(pamh, o->open), PAM_SUCCESS);
	read_log();
}

/* The log holds this line (when the test could capture syslog). */
#define ck_logged(...)                                                      \
	do {                                                                \
		char want_[512];                                            \
                                                                            \
		snprintf(want_, sizeof(want_), __VA_ARGS__);                \
		ck_assert_msg(logfd < 0 || strstr(logged, want_),           \
			      "not logged: '%s'\nlog:\n%s", want_, logged); \
	} while (0)

static int write_file(const char *name, mode_t mode, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* reuse.conf maps u_mapped to CGROUP (its file is replaced) */
static void reuse_conf(const char *cgroup)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/reuse.conf", dir);
	ck_assert(unlink(path) == 0 || errno == ENOENT);
	ck_assert_int_eq(write_file("reuse.conf", 0644, "%s /%s name=web1\n",
				    u_mapped, cgroup),
			 0);
}

/*
 * The session step takes the account step's answer in the same PAM
 * transaction, for the same user only: neither the file nor the
 * container is read again (hijack-shell checks again).
 */
START_TEST(test_session_reuses_account)
{
	struct pam_conv c = { conv, NULL };
	char confdir[64], cg[128];
	pam_handle_t *pamh = NULL;

	snprintf(confdir, sizeof(confdir), "%s/pam.d", dir);
	reuse_conf(cg_ctr);
	ck_assert_int_eq(pam_start_confdir("hjt-reuse", u_mapped, &c, confdir,
					   &pamh),
			 PAM_SUCCESS);
	ck_assert_int_eq(pam_acct_mgmt(pamh, 0), PAM_SUCCESS);
	/* the rule changes between the two steps: the account's answer */
	reuse_conf(cg_empty);
	ck_assert_int_eq(pam_open_session(pamh, 0), PAM_SUCCESS);
	getenv_into(pamh, "HIJACK_CGROUP", cg, sizeof(cg));
	ck_assert_str_eq(cg, cg_ctr);
	ck_assert_int_eq(pam_end(pamh, PAM_SUCCESS), PAM_SUCCESS);
	read_log();
	ck_logged("pam_hijack(hjt-reuse:session): %s: the account step's "
		  "answer: container web1",
		  u_mapped);

	/* a session step alone reads the file: refused */
	pamh = NULL;
	ck_assert_int_eq(pam_start_confdir("hjt-reuse", u_mapped, &c, confdir,
					   &pamh),
			 PAM_SUCCESS);
	ck_assert_int_eq(pam_open_session(pamh, 0), PAM_SESSION_ERR);
	ck_assert_int_eq(pam_end(pamh, PAM_SESSION_ERR), PAM_SUCCESS);

	/* another PAM user by the session step: resolved for that user */
	reuse_conf(cg_ctr);
	pamh = NULL;
	ck_assert_int_eq(pam_start_confdir("hjt-reuse", u_mapped, &c, confdir,
					   &pamh),
			 PAM_SUCCESS);
	ck_assert_int_eq(pam_acct_mgmt(pamh, 0), PAM_SUCCESS);
	ck_assert_int_eq(pam_set_item(pamh, PAM_USER, u_group), PAM_SUCCESS);
	ck_assert_int_eq(pam_open_session(pamh, 0), IGNORED);
	getenv_into(pamh, "HIJACK_CGROUP", cg, sizeof(cg));
	ck_assert_str_eq(cg, "(unset)");
	ck_assert_int_eq(pam_end(pamh, PAM_SUCCESS), PAM_SUCCESS);
}
END_TEST

/* What a login said and logged, beyond its outcome (login_case.more) */
static void more_mapped(const struct outcome *o)
{
	ck_assert_int_eq(o->close, PAM_SUCCESS);
	ck_assert_str_eq(o->user, u_mapped);
	ck_assert_str_eq(o->cgroup, cg_ctr);
	ck_assert_str_eq(said, "");
	ck_logged("pam_hijack(hjt-ok:account): %s: container web1 (cgroup %s) "
		  "runs as pid",
		  u_mapped, cg_ctr);
	ck_logged("pam_hijack(hjt-ok:session): %s enters container web1 "
		  "(cgroup %s, pid",
		  u_mapped, cg_ctr);
	ck_logged("pam_hijack(hjt-ok:account): unknown option: bogus_option");
}

static void more_group(const struct outcome *o)
{
	ck_assert_str_eq(o->cgroup, cg_ctr);
}

static void more_stopped(const struct outcome *o)
{
	char want[256];

	(void)o;
	snprintf(want, sizeof(want),
		 "error: container %s is not running\n"
		 "error: container %s is not running\n",
		 empty, empty);
	ck_assert_str_eq(said, want);
	ck_logged(
		"pam_hijack(hjt-ok:account): cannot enter container %s "
		"(cgroup %s): no running task; refusing %s (%s/hijack.conf:3)",
		empty, cg_empty, u_stopped, dir);
	ck_logged(
		"pam_hijack(hjt-ok:session): cannot enter container %s "
		"(cgroup %s): no running task; refusing %s (%s/hijack.conf:3)",
		empty, cg_empty, u_stopped, dir);
}

static void more_on_host(const struct outcome *o)
{
	char want[256];

	(void)o;
	snprintf(want, sizeof(want),
		 "info: container %s is not running; you are on the host\n",
		 gone);
	ck_assert_str_eq(said, want);
	ck_logged("pam_hijack(hjt-ok:account): container %s (cgroup %s) is "
		  "not running (no such cgroup): %s stays on the host "
		  "(stopped=host, %s/hijack.conf:4)",
		  gone, cg_gone, u_host, dir);
}

/*
 * stopped=host acts only on a cgroup that does not exist: a cgroup that
 * holds only a host process (one the user moved into a delegated cgroup)
 * and an empty one are refused, never sent to the host.
 */
static void more_host_process(const struct outcome *o)
{
	char want[256];

	(void)o;
	snprintf(want, sizeof(want),
		 "error: container %s: its cgroup holds no container\n"
		 "error: container %s: its cgroup holds no container\n",
		 hostonly, hostonly);
	ck_assert_str_eq(said, want);
	ck_logged("pam_hijack(hjt-ok:account): cannot enter container %s "
		  "(cgroup %s): the cgroup holds no container, only host "
		  "processes; refusing %s (%s/hijack.conf:8)",
		  hostonly, cg_hostonly, u_xhost, dir);
	ck_assert_msg(logfd < 0 || !strstr(logged, "stays on the host"),
		      "sent to the host:\n%s", logged);
}

static void more_empty(const struct outcome *o)
{
	(void)o;
	ck_logged(
		"pam_hijack(hjt-ok:account): cannot enter container %s "
		"(cgroup %s): no running task; refusing %s (%s/hijack.conf:9)",
		empty, cg_empty, u_xempty, dir);
	ck_assert_msg(logfd < 0 || !strstr(logged, "stays on the host"),
		      "sent to the host:\n%s", logged);
}

static void more_unmapped(const struct outcome *o)
{
	(void)o;
	ck_assert_str_eq(said, "");
}

/* audit= takes required or optional; anything else counts as required */
static void more_audit_bogus(const struct outcome *o)
{
	(void)o;
	ck_logged("pam_hijack(hjt-audit:account): bad value (taken as "
		  "audit=required): audit=bogus");
	ck_assert_msg(logfd < 0 || !strstr(logged, "audit=optional"),
		      "audit=optional was not understood:\n%s", logged);
}

/*
 * One login through a service of the test's pam.d: its account and
 * session results, the rule and container it exported ("(unset)": none;
 * NULL: not looked at), and what else it must have said or logged.
 */
struct login_case {
	const char *service;
	const char *user;
	int acct, open;
	const char *rule, *container;
	void (*more)(const struct outcome *o);
};

/* into a container: needs pidfd_open (see pam_suite()) */
static const struct login_case enter_cases[] = {
	{ "hjt-ok", u_mapped, PAM_SUCCESS, PAM_SUCCESS, "2", "web1",
	  more_mapped },
	{ "hjt-ok", u_group, PAM_SUCCESS, PAM_SUCCESS, "6", "grpweb",
	  more_group },
};

/* refused, routed to the host, or not the module's business */
static const struct login_case stack_cases[] = {
	{ "hjt-ok", u_stopped, PAM_PERM_DENIED, PAM_SESSION_ERR, "(unset)",
	  "(unset)", more_stopped },
	{ "hjt-ok", u_host, IGNORED, PAM_SUCCESS, "4", gone, more_on_host },
	{ "hjt-ok", u_xhost, PAM_PERM_DENIED, PAM_SESSION_ERR, NULL, "(unset)",
	  more_host_process },
	{ "hjt-ok", u_xempty, PAM_PERM_DENIED, PAM_SESSION_ERR, NULL, "(unset)",
	  more_empty },
	{ "hjt-ok", "daemon", IGNORED, IGNORED, "(unset)", "(unset)",
	  more_unmapped },
	{ "hjt-ok", "root", IGNORED, IGNORED, NULL, NULL, NULL },
	/* a '-' rule: the host, nothing exported */
	{ "hjt-ok", "bin", IGNORED, IGNORED, NULL, "(unset)", NULL },
	{ "hjt-ok", "hjt-no-such-user", PAM_USER_UNKNOWN, PAM_USER_UNKNOWN,
	  NULL, NULL, NULL },
	{ "hjt-audit", u_stopped, PAM_PERM_DENIED, PAM_SESSION_ERR, NULL, NULL,
	  more_audit_bogus },
	{ "hjt-audit", "daemon", IGNORED, IGNORED, NULL, NULL, NULL },
};

static void run_case(const struct login_case *c)
{
	struct outcome o;

	login(c->service, c->user, &o);
	ck_assert_msg(o.acct == c->acct, "%s as %s: account %d, not %d",
		      c->service, c->user, o.acct, c->acct);
	ck_assert_msg(o.open == c->open, "%s as %s: session %d, not %d",
		      c->service, c->user, o.open, c->open);
	if (c->rule)
		ck_assert_str_eq(o.rule, c->rule);
	if (c->container)
		ck_assert_str_eq(o.container, c->container);
	if (c->more)
		c->more(&o);
}

/*
 * Whether a 200 KiB malloc() is mapped rather than taken from the heap.
 * Asked in a child: the probe's own free() raises glibc's threshold.
 */
static bool large_block_mapped(void)
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct mallinfo2 a = mallinfo2(), b;
		void *p = malloc(200 * 1024);

		b = mallinfo2();
		_exit(p && b.hblkhd >= a.hblkhd + 200 * 1024 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/*
 * A mapped login leaves the allocator of the program the module runs in
 * (sshd's monitor, whose heap the session's process then shares) as it
 * found it: the module's large tables are not freed into glibc's heap,
 * where a freed mapped block raises the mmap and trim thresholds to its
 * size and the heap keeps hundreds of KiB for the session's lifetime.
 */
START_TEST(test_heap)
{
	struct mallinfo2 before, after;
	struct outcome o;

	ck_assert_msg(large_block_mapped(),
		      "a 200 KiB block comes from the heap before any login: "
		      "the test cannot tell");
	before = mallinfo2();
	login("hjt-ok", u_mapped, &o);
	ck_assert_int_eq(o.acct, PAM_SUCCESS);
	ck_assert_int_eq(o.open, PAM_SUCCESS);
	after = mallinfo2();
	ck_assert_msg(large_block_mapped(),
		      "after a mapped login, a 200 KiB block comes from the "
		      "heap: the module freed a large mapped block");
	ck_assert_msg(after.arena <= before.arena + 128 * 1024,
		      "the heap grew from %zu to %zu bytes in a login",
		      before.arena, after.arena);
}
END_TEST

START_TEST(test_enter)
{
	run_case(&enter_cases[_i]);
}
END_TEST

START_TEST(test_login)
{
	run_case(&stack_cases[_i]);
}
END_TEST

#define NCASES(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* PAM_SILENT: refused all the same, but nothing said */
START_TEST(test_silent)
{
	struct outcome o;

	login_flags = PAM_SILENT;
	login("hjt-ok", u_stopped, &o);
	ck_assert_int_eq(o.acct, PAM_PERM_DENIED);
	ck_assert_int_eq(o.open, PAM_SESSION_ERR);
	ck_assert_str_eq(said, "");
	ck_logged("cannot enter container %s", empty);
	login("hjt-broken", u_mapped, &o);
	ck_assert_int_eq(o.acct, PAM_PERM_DENIED);
	ck_assert_str_eq(said, "");
	login_flags = 0; /* for the next test, when CK_FORK=no */
}
END_TEST

/* controller:path names one v1 hierarchy */
START_TEST(test_v1_controller)
{
	char want[160];
	struct outcome o;

	login("hjt-v1", u_mapped, &o);
	ck_assert_int_eq(o.acct, PAM_SUCCESS);
	ck_assert_int_eq(o.open, PAM_SUCCESS);
	snprintf(want, sizeof(want), "cpuset:%s", cg_ctr);
	ck_assert_str_eq(o.cgroup, want);
	ck_assert_str_eq(o.container, ctr);
	login("hjt-v1", u_stopped, &o);
	ck_assert_int_eq(o.acct, PAM_PERM_DENIED);
	ck_logged("cannot enter container %s (cgroup freezer:%s): no running "
		  "task",
		  empty, cg_empty);
}
END_TEST

/* A broken or insecure file: users refused, root and admin_group pass. */
static const char *const broken_services[] = { "hjt-broken", "hjt-insecure",
					       "hjt-missing", "hjt-relative" };

static char broken_logs[4][256];

START_TEST(test_broken)
{
	const char *service = broken_services[_i];
	struct outcome o;

	login(service, u_mapped, &o);
	ck_assert_int_eq(o.acct, PAM_PERM_DENIED);
	ck_assert_int_eq(o.open, PAM_SESSION_ERR);
	ck_assert_str_eq(o.container, "(unset)");
	ck_assert_msg(strstr(said, "error: Login refused: the container "
				   "configuration is broken"),
		      "%s", said);
	ck_logged("%s; refusing %s", broken_logs[_i], u_mapped);
	/* unmapped or not, nobody is let onto the host by a broken file */
	login(service, "daemon", &o);
	ck_assert_int_eq(o.acct, PAM_PERM_DENIED);
	login(service, "root", &o);
	ck_assert_int_eq(o.acct, IGNORED);
	ck_assert_int_eq(o.open, IGNORED);
	ck_assert_str_eq(said, "");
	ck_logged("%s; letting root in to fix it", broken_logs[_i]);
	/* admin_group= */
	login(service, u_group, &o);
	ck_assert_int_eq(o.acct, IGNORED);
	ck_assert_int_eq(o.open, IGNORED);
}
END_TEST

/* ---- fixture: users, container, files ---- */

__attribute__((format(printf, 1, 2))) static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	int l;

	va_start(ap, fmt);
	l = vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (l < 0 || (size_t)l >= sizeof(cmd))
		return -1;
	return system(cmd);
}

static int write_file(const char *name, mode_t mode, const char *fmt, ...)
{
	char path[128], text[2048];
	va_list ap;
	int fd, l, r = 0;

	va_start(ap, fmt);
	l = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (fd < 0)
		return -1;
	if (write(fd, text, l) != l || fchmod(fd, mode))
		r = -1;
	close(fd);
	return r;
}

static int service(const char *name, const char *args)
{
	char file[64];

	snprintf(file, sizeof(file), "pam.d/%s", name);
	return write_file(file, 0644,
			  "account [success=done ignore=ignore default=die] "
			  "%s %s\n"
			  "account [default=die] pam_debug.so "
			  "acct=authinfo_unavail\n"
			  "session [success=done ignore=ignore default=die] "
			  "%s %s\n"
			  "session [default=die] pam_debug.so "
			  "open_session=authinfo_unavail "
			  "close_session=success\n",
			  MODULE, args, MODULE, args);
}

/*
 * Catch what the module logs: bind /dev/log ourselves when no syslog
 * daemon does (test machines and containers often run none, and the
 * module's syslog() then goes nowhere).  With a real syslog the log
 * assertions are skipped.
 */
static void log_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX,
				  .sun_path = "/dev/log" };
	struct stat st;
	int fd;

	if (lstat(sa.sun_path, &st) == 0) {
		/* a stale socket nobody listens on may go */
		fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (!S_ISSOCK(st.st_mode) || fd < 0 ||
		    connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 ||
		    errno != ECONNREFUSED) {
			if (fd >= 0)
				close(fd);
			printf("# %s is in use: not checking the log\n",
			       sa.sun_path);
			return;
		}
		close(fd);
		unlink(sa.sun_path);
	}
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		close(fd);
		return;
	}
	chmod(sa.sun_path, 0666);
	logfd = fd;
}

static void log_close(void)
{
	if (logfd < 0)
		return;
	unlink("/dev/log");
	close(logfd);
}

static void cleanup(void)
{
	run("%s del %s %s %s %s %s %s %s", USERS_SH, u_mapped, u_group,
	    u_stopped, u_host, u_xhost, u_xempty, grp);
	/* every process in the run's cgroups, then the cgroups */
	if (hj_run[0])
		run("%s stop %s", CONTAINER_SH, hj_run);
	run("rm -rf '%s'", dir);
}

static int setup(void)
{
	int p = getpid();
	char args[256];

	snprintf(u_mapped, sizeof(u_mapped), "hjtm%d", p);
	snprintf(u_group, sizeof(u_group), "hjtg%d", p);
	snprintf(u_stopped, sizeof(u_stopped), "hjts%d", p);
	snprintf(u_host, sizeof(u_host), "hjth%d", p);
	snprintf(grp, sizeof(grp), "hjtgrp%d", p);
	snprintf(u_xhost, sizeof(u_xhost), "hjtx%d", p);
	snprintf(u_xempty, sizeof(u_xempty), "hjte%d", p);
	snprintf(hj_run, sizeof(hj_run), "hjtest-%d", p);
	snprintf(ctr, sizeof(ctr), "hjtest-%d-web1", p);
	snprintf(hostonly, sizeof(hostonly), "hjtest-%d-hostonly", p);
	snprintf(gone, sizeof(gone), "hjtest-%d-gone", p);
	snprintf(empty, sizeof(empty), "hjtest-%d-empty", p);
	snprintf(cg_ctr, sizeof(cg_ctr), "%s/%s", hj_run, ctr);
	snprintf(cg_hostonly, sizeof(cg_hostonly), "%s/%s", hj_run, hostonly);
	snprintf(cg_gone, sizeof(cg_gone), "%s/%s", hj_run, gone);
	snprintf(cg_empty, sizeof(cg_empty), "%s/%s", hj_run, empty);
	if (!mkdtemp(dir))
		return -1;
	if (run("%s groupadd %s && %s useradd %s -M -N -g users && "
		"%s useradd %s -M -N -g users -G %s && "
		"%s useradd %s -M -N -g users && %s useradd %s -M -N -g users",
		USERS_SH, grp, USERS_SH, u_mapped, USERS_SH, u_group, grp,
		USERS_SH, u_stopped, USERS_SH, u_host) ||
	    run("%s useradd %s -M -N -g users && %s useradd %s -M -N -g users",
		USERS_SH, u_xhost, USERS_SH, u_xempty))
		return -1;
	/* a host process alone in a cgroup of its own */
	if (run("%s create %s %s", CONTAINER_SH, hj_run, hostonly) ||
	    run("setsid sh -c 'for h in $(%s hierarchies); do "
		"echo $$ >\"$h/%s/cgroup.procs\"; done; exec sleep 1000000' "
		"</dev/null >/dev/null 2>&1 & "
		"until grep -q . \"$(%s hierarchies | head -n 1)/%s/cgroup.procs\"; "
		"do sleep 0.05; done",
		CONTAINER_SH, cg_hostonly, CONTAINER_SH, cg_hostonly))
		return -1;
	if (run("%s create %s %s", CONTAINER_SH, hj_run, empty) ||
	    run("%s start %s %s web1 >/dev/null", CONTAINER_SH, hj_run, ctr))
		return -1;

	if (write_file("hijack.conf", 0644,
		       "# pam_hijack test\n"
		       "%s /%s name=web1\n"
		       "%s %s\n"
		       "%s %s stopped=host\n"
		       "bin -\n"
		       "@%s %s name=grpweb\n"
		       "60000-60010 hjtest-%d-never\n"
		       "%s %s stopped=host\n"
		       "%s %s stopped=host\n",
		       u_mapped, cg_ctr, u_stopped, cg_empty, u_host, cg_gone,
		       grp, cg_ctr, p, u_xhost, cg_hostonly, u_xempty,
		       cg_empty) ||
	    write_file("broken.conf", 0644, "%s %s shel=/bin/sh\n", u_mapped,
		       cg_ctr) ||
	    write_file("insecure.conf", 0666, "%s %s\n", u_mapped, cg_ctr) ||
	    write_file("v1.conf", 0644, "%s cpuset:/%s\n%s freezer:%s\n",
		       u_mapped, cg_ctr, u_stopped, cg_empty))
		return -1;
	if (mkdir(strcat(strcpy(args, dir), "/pam.d"), 0755))
		return -1;
	snprintf(args, sizeof(args), "conf=%s/hijack.conf debug bogus_option",
		 dir);
	if (service("hjt-ok", args))
		return -1;
	snprintf(args, sizeof(args),
		 "conf=%s/hijack.conf audit=optional audit=bogus", dir);
	if (service("hjt-audit", args))
		return -1;
	snprintf(args, sizeof(args), "conf=%s/reuse.conf debug", dir);
	if (service("hjt-reuse", args))
		return -1;
	snprintf(args, sizeof(args), "conf=%s/v1.conf", dir);
	if (service("hjt-v1", args))
		return -1;
	snprintf(args, sizeof(args), "conf=%s/broken.conf admin_group=%s", dir,
		 grp);
	if (service("hjt-broken", args))
		return -1;
	snprintf(args, sizeof(args), "conf=%s/insecure.conf admin_group=%s",
		 dir, grp);
	if (service("hjt-insecure", args))
		return -1;
	snprintf(args, sizeof(args), "conf=%s/missing.conf admin_group=%s", dir,
		 grp);
	if (service("hjt-missing", args))
		return -1;
	snprintf(args, sizeof(args), "conf=hijack.conf admin_group=%s", grp);
	snprintf(broken_logs[0], sizeof(broken_logs[0]),
		 "%s/broken.conf:1: unknown option 'shel'", dir);
	snprintf(broken_logs[1], sizeof(broken_logs[1]),
		 "%s/insecure.conf: writable by group or others (mode 0666)",
		 dir);
	snprintf(broken_logs[2], sizeof(broken_logs[2]),
		 "%s/missing.conf: cannot open: No such file or directory",
		 dir);
	snprintf(broken_logs[3], sizeof(broken_logs[3]),
		 "conf=hijack.conf: not an absolute path");
	return service("hjt-relative", args);
}

/* Only pam_sm_* leave the module; libhijack stays inside. */
START_TEST(test_exports)
{
	void *h = dlopen(MODULE, RTLD_NOW | RTLD_LOCAL);

	ck_assert_msg(h, "%s", dlerror());
	ck_assert_ptr_nonnull(dlsym(h, "pam_sm_acct_mgmt"));
	ck_assert_ptr_nonnull(dlsym(h, "pam_sm_open_session"));
	ck_assert_ptr_nonnull(dlsym(h, "pam_sm_close_session"));
	/* nothing that pretends to authenticate */
	ck_assert_ptr_null(dlsym(h, "pam_sm_authenticate"));
	ck_assert_ptr_null(dlsym(h, "pam_sm_setcred"));
	ck_assert_ptr_null(dlsym(h, "pam_sm_chauthtok"));
	ck_assert_ptr_null(dlsym(h, "hj_conf_load_match"));
	ck_assert_ptr_null(dlsym(h, "hj_target_from_cgroup_spec"));
	ck_assert_ptr_null(dlsym(h, "hj_audit_entry"));
	ck_assert_ptr_null(dlsym(h, "hj_parse_options"));
	dlclose(h);
}
END_TEST

static bool have_v1(void)
{
	return !access("/sys/fs/cgroup/cpuset/cgroup.procs", F_OK) &&
	       !access("/sys/fs/cgroup/freezer/cgroup.procs", F_OK);
}

static Suite *pam_suite(void)
{
	Suite *s = suite_create("pam_hijack");
	TCase *tc = tcase_create("stack");
	TCase *te = tcase_create("enter");
	TCase *tv1 = tcase_create("enter-v1");

	/* valgrind 3.19 has no pidfd_open: tests/valgrind.sh leaves these */
	tcase_set_tags(te, "pidfd");
	tcase_add_checked_fixture(te, log_reader_start, NULL);
	tcase_add_checked_fixture(tc, log_reader_start, NULL);
	tcase_add_loop_test(te, test_enter, 0, NCASES(enter_cases));
	tcase_add_test(te, test_session_reuses_account);
	tap_add_if(s, te, "enter", GLIBC_MALLOC,
		   "a sanitizer's allocator: glibc's mmap threshold does not "
		   "apply",
		   test_heap);
	if (!GLIBC_MALLOC)
		suite_add_tcase(s, te);
	tcase_set_tags(tv1, "pidfd");
	tcase_add_checked_fixture(tv1, log_reader_start, NULL);
	tap_add_if(s, tv1, "enter-v1", have_v1(),
		   "kernel: no v1 cpuset and freezer hierarchies mounted",
		   test_v1_controller);
	tcase_add_test(tc, test_exports);
	tcase_add_loop_test(tc, test_login, 0, NCASES(stack_cases));
	tcase_add_test(tc, test_silent);
	tcase_add_loop_test(tc, test_broken, 0, NCASES(broken_services));
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int failed;

	if (geteuid() != 0) {
		printf("1..0 # SKIP needs root (users, cgroups, root-owned "
		       "config)\n");
		return EXIT_SUCCESS;
	}
	if (access(MODULE, R_OK)) {
		printf("Bail out! %s: %s\n", MODULE, strerror(errno));
		return EXIT_FAILURE;
	}
	if (setup()) {
		printf("Bail out! cannot set up the test users, container, "
		       "files\n");
		cleanup();
		return EXIT_FAILURE;
	}
	log_open();
	sr = srunner_create(pam_suite());
	failed = tap_run(sr, CK_ENV);
	srunner_free(sr);
	log_close();
	cleanup();
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
