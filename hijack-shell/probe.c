// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * What file transfer needs inside the container, looked at as the
 * session would look: scp (OpenSSH 9 and later) and sftp run the sftp
 * subsystem's program, which must be there and executable, and
 * sftp-server exits at once ("No user found for uid", to syslog only)
 * when the user's uid is not in the container's passwd; rsync and
 * legacy scp run "rsync" and "scp" from the PATH.
 *
 * A child is started inside the container (hj_spawn(), as a session
 * is), takes the user's groups, gid and uid there, drops every
 * capability and sets no_new_privs, and only then looks: paths resolve
 * inside the container's root with the user's rights, symlinks included,
 * as they would for the session.  It never executes anything; only a
 * fixed-size report comes back, checked as if the container had
 * written it.  Both hijack-shell --check and a login asking for the sftp
 * subsystem use it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hijack.h"
#include "shell.h"

/* what the child writes back: plain ints, whatever the child wrote */
struct probe_report {
	int err, sftp, passwd, rsync, scp;
};

/* the PATH shell_environ() gives a session */
static const char *const path_dirs[] = { "/usr/local/bin", "/usr/bin", "/bin" };

/*
 * The program of a subsystem command line ("PATH [ARGS...]"), into
 * @out; false when it is no absolute path.
 */
bool shell_sftp_program(const char *command, char *out, size_t size)
{
	size_t l = strcspn(command, " \t");

	if (command[0] != '/' || l == 0 || l >= size)
		return false;
	memcpy(out, command, l);
	out[l] = '\0';
	return true;
}

/* the command sshd runs for an external sftp subsystem: .../sftp-server */
bool shell_is_sftp(const char *command, char *program, size_t size)
{
	const char *base;

	if (!command || !shell_sftp_program(command, program, size))
		return false;
	base = strrchr(program, '/') + 1;
	return !strcmp(base, "sftp-server");
}

/* 0 when @path is a regular file the caller may execute, else -errno */
static int executable(const char *path)
{
	struct stat st;

	if (stat(path, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EACCES;
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS))
		return -errno;
	return 0;
}

static bool in_path(const char *name)
{
	char p[SHELL_PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(path_dirs) / sizeof(path_dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", path_dirs[i], name);
		if (!executable(p))
			return true;
	}
	return false;
}

/* whether a line of @path has @uid as its third field */
static bool passwd_has_uid(const char *path, uid_t uid)
{
	char line[4096], want[16];
	size_t wl =
		(size_t)snprintf(want, sizeof(want), "%u", (unsigned int)uid);
	unsigned long n = 0;
	bool found = false;
	FILE *f = fopen(path, "re");

	if (!f)
		return false;
	while (!found && n++ < 1000000 && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'),
		     *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (c2 && !strncmp(c2 + 1, want, wl) && c2[1 + wl] == ':')
			found = true;
	}
	fclose(f);
	return found;
}

/* in the child, inside: become the session's user, then look */
static void __attribute__((noreturn))
look(int fd, const char *user, const struct shell_ids *ids, const char *sftp,
     struct probe_report *rep)
{
	struct shell_account *acct = calloc(1, sizeof(*acct));
	uid_t iuid = ids->uid;
	gid_t igid = ids->gid;

	if (!acct) {
		rep->err = -ENOMEM;
		goto out;
	}
	if (ids->groups) {
		rep->err = shell_account_unprivileged(user, igid, acct);
		if (!rep->err && setgroups(acct->ngroups, acct->groups))
			rep->err = -errno;
	}
	if (!rep->err &&
	    (setresgid(igid, igid, igid) || setresuid(iuid, iuid, iuid)))
		rep->err = -errno;
	if (!rep->err)
		rep->err = hj_drop_caps();
	if (!rep->err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		rep->err = -errno;
	if (rep->err)
		goto out;
	/* unprivileged from here on, as the session */
	rep->sftp = sftp ? executable(sftp) : 0;
	rep->passwd = passwd_has_uid("/etc/passwd", iuid);
	rep->rsync = in_path("rsync");
	rep->scp = in_path("scp");
out:
	_exit(hj_write_full(fd, rep, sizeof(*rep)) ? 1 : 0);
}

int shell_probe(struct hj_target *t, const char *user,
		const struct shell_ids *ids, const char *sftp,
		struct shell_probe *p)
{
	struct hj_spawn_opts opts = { .clone_flags = SIGCHLD, .cwd = "/" };
	struct probe_report rep = { 0 };
	int fds[2], r = 0;
	pid_t pid;

	memset(p, 0, sizeof(*p));
	if (ids->owner) {
		opts.flags |= HJ_SPAWN_AS_OWNER;
		opts.owner = ids->owner;
	}
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid = hj_spawn(t, &opts, NULL);
	if (pid == 0) {
		/* as the account reader: only the report's pipe stays open */
		hj_close_from(0, fds[1]);
		look(fds[1], user, ids, sftp, &rep);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		return pid;
	}
	r = hj_child_report(pid, fds[0], &rep, sizeof(rep), HJ_CHILD_REPORT_MS);
	close(fds[0]);
	/* what came back is checked as if the container had written it */
	if (r)
		;
	else if (rep.err > 0 || rep.err < -4095 || rep.sftp > 0 ||
		 rep.sftp < -4095)
		r = -EPROTO;
	else
		r = rep.err;
	if (!r) {
		p->sftp = rep.sftp;
		p->passwd = !!rep.passwd;
		p->rsync = !!rep.rsync;
		p->scp = !!rep.scp;
	}
	return r;
}

/* draft-ietf-secsh-filexfer-02, the version OpenSSH speaks */
#define FXP_INIT 1
#define FXP_VERSION 2
#define FXP_STATUS 101
#define FX_OP_UNSUPPORTED 8
#define FXP_PACKET_MAX (256 * 1024) /* OpenSSH's SFTP_MAX_MSG_LENGTH */
#define FXP_REQUESTS_MAX 64

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/*
 * sshd throws away a subsystem's stderr, so a client asking for a
 * missing sftp-server would only ever say "Connection closed".  This
 * answers it in its own protocol instead: the version, then every
 * request fails with @msg as the status text, which sftp prints
 * ("realpath .: MSG"; scp prints the status code).  It runs where the
 * session's program would have: inside, as the user, fully confined.
 * Bounded in requests, packet size and time.
 */
void __attribute__((noreturn)) shell_sftp_refuse(const char *msg)
{
	size_t ml = strlen(msg) > 1024 ? 1024 : strlen(msg);
	unsigned char hdr[9], out[4 + 1 + 4 + 4 + 4 + 1024 + 4], sink[4096];
	int n;

	alarm(60);
	for (n = 0; n < FXP_REQUESTS_MAX; n++) {
		uint32_t len, left;
		size_t ol;

		if (hj_read_full(0, hdr, 5))
			break;
		len = get32(hdr);
		if (len < 1 || len > FXP_PACKET_MAX)
			break;
		if (hdr[4] == FXP_INIT) {
			put32(out, 5);
			out[4] = FXP_VERSION;
			put32(out + 5, 3);
			ol = 9;
			left = len - 1;
		} else {
			/* every other request starts with its id */
			if (len < 5 || hj_read_full(0, hdr + 5, 4))
				break;
			put32(out, 1 + 4 + 4 + 4 + ml + 4);
			out[4] = FXP_STATUS;
			memcpy(out + 5, hdr + 5, 4);
			put32(out + 9, FX_OP_UNSUPPORTED);
			put32(out + 13, ml);
			memcpy(out + 17, msg, ml);
			put32(out + 17 + ml, 0); /* language tag: none */
			ol = 21 + ml;
			left = len - 5;
		}
		while (left) {
			size_t chunk = left > sizeof(sink) ? sizeof(sink) :
							     left;

			if (hj_read_full(0, sink, chunk))
				_exit(1);
			left -= chunk;
		}
		if (hj_write_full(1, out, ol))
			break;
	}
	_exit(1);
}
