/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libhijack: find a container's task and start a process inside it.
 *
 * Every function returns 0 (or a non-negative value where documented) on
 * success and a negative errno on failure.  Nothing here prints, logs or
 * exits: the front ends (hijack, hijack-shell, pam_hijack) decide how to
 * report, in hj_strerror()'s words for the codes below.
 *
 * "The seed" in the sources is Serge Hallyn's sys_hijack v7 patch (2007),
 * which this library descends from: its checks and error codes are the
 * contract kept here (kernel/ carries the patch forward to 6.1).
 *
 * Codes the library gives a meaning of its own (hj_strerror() has words
 * for each), by function family:
 *
 * hj_target_from_pid(), _pidfd(), _cgroup_path(), _cgroup_fd() (the seed):
 *   -ESRCH    no live task: the pid is gone, or the cgroup holds none
 *   -EBADF    the file is not a cgroup tasks or cgroup.procs file or a
 *             cgroup directory (a symlink neither)
 *   -ENOENT   no such cgroup (path)
 *
 * hj_target_from_cgroup_spec() (the login path; only ever a container's
 * init, never a host process; see cgroup-spec.c):
 *   -ENOENT      the cgroup exists on no hierarchy: the container is
 *                stopped (the only answer stopped=host may act on)
 *   -ESRCH       the cgroup exists, but its subtree holds no live task
 *   -EXDEV       the subtree holds live tasks but no container: each
 *                shares the caller's pid or mount namespace (a host
 *                process moved into the cgroup)
 *   -ENOTUNIQ    the subtree holds the inits of two containers
 *   -E2BIG       the subtree is deeper or larger than the search's bounds
 *
 * hj_target_check_access(), and hj_spawn() before it enters (the seed):
 *   -EPERM    the caller may not ptrace the target
 *   -EBUSY    the target is being traced (and stays so for
 *             HJ_TRACED_WAIT_MS)
 *   -ESRCH    the target is gone
 *   -EDEADLK  the target's cgroup is frozen: a task joining it would stop
 *             at once (a login would hang; refusing avoids the deadlock)
 *
 * hj_container_state(): all of hj_target_from_cgroup_spec()'s and
 * hj_target_check_access()'s codes.
 *
 * hj_spawn(), hj_check_clone_flags():
 *   -EINVAL   unsupported clone flags (only an exit signal, as the seed)
 *   -ENOSYS   HJ_BACKEND_NATIVE on a kernel without sys_hijack (also any
 *             hj_target_from_*() on a kernel before 5.3: no pidfd_open)
 *   -EAGAIN   the kernel refused the new task: the container's cgroup is
 *             at pids.max, or a process limit (RLIMIT_NPROC, threads-max)
 *             is reached.  Never "frozen": that is -EDEADLK.
 *   -ESRCH    also: the target's pid namespace has no init any more
 *   -EACCES   with HJ_SPAWN_AS_OWNER: a cgroup to join is not owned by
 *             (delegated to) the owner, or the caller's euid is not theirs
 *
 * hj_confinement_read(), _read_flags(), _self() (entering a container as
 * one of its own, beyond the seed):
 *   -EOPNOTSUPP  the init's confinement cannot be copied (a seccomp
 *                filter the kernel will not hand out: no CAP_SYS_ADMIN,
 *                a filtered caller, no CONFIG_CHECKPOINT_RESTORE; or
 *                strict mode, then c->seccomp_mode is 1)
 *   -EMEDIUMTYPE /proc is not a procfs
 *   -EBUSY, -EPERM, -ESRCH as for hj_target_check_access()
 *   -EAGAIN      a filter changed while it was read: read again
 *   -EINVAL      /proc/PID/status cannot be parsed
 *   -ETIMEDOUT   the init did not stop for the copy of its filters within
 *                HJ_FILTER_COPY_MS (a killable sleep such as vfork());
 *                it was let go
 *   -ENODATA     HJ_CONFINE_CACHED: root has no current copy of the
 *                init's filters (pam_hijack's session step makes one)
 *
 * hj_confine_early(), _caps(), _late(), _verify():
 *   -ENOTRECOVERABLE  a postcondition failed after confining: the
 *                process is looser than the init and must not exec
 *
 * hj_parse_*(), hj_proc_read() (parsers, also fed by the fuzzers):
 *   -EINVAL   malformed input
 *   -ERANGE   a number out of range
 *   -E2BIG    more entries than the caller's array holds
 *   -EFBIG    the file is larger than the buffer
 *
 * Anything else is the errno of the system call that failed, passed on
 * unchanged (-ENOMEM, -EACCES, -ENAMETOOLONG, ...), and every caller
 * fails closed on it.  conf.h and audit.h document their own.
 */
#ifndef HIJACK_H
#define HIJACK_H

#include <stdbool.h>
#include <sys/types.h>

/* Values of hijack_args.target_kind, HIJACK_* in kernel/'s series. */
#define HJ_WHICH_PID 1
#define HJ_WHICH_CGROUP 2
#define HJ_WHICH_PIDFD 3

/* Namespace bits, in the order they are entered. */
enum hj_ns {
	HJ_NS_USER = 1 << 0,
	HJ_NS_MNT = 1 << 1,
	HJ_NS_UTS = 1 << 2,
	HJ_NS_IPC = 1 << 3,
	HJ_NS_NET = 1 << 4,
	HJ_NS_PID = 1 << 5,
	HJ_NS_CGROUP = 1 << 6,
	HJ_NS_TIME = 1 << 7,
};
#define HJ_NS_COUNT 8

/* How the task was chosen (see hj_target_from_cgroup_fd()). */
enum hj_pick {
	HJ_PICK_PID = 0,	/* named by pid or pidfd */
	HJ_PICK_INIT,		/* pid 1 of its own pid namespace */
	HJ_PICK_PIDNS,		/* first member in another pid namespace */
	HJ_PICK_FIRST,		/* first live member */
};

#define HJ_CGROUP_PATH_MAX 4096

/*
 * how long a traced target may take to be let go before -EBUSY: time
 * asleep between the checks, which add to the wall time on a slow machine
 */
#define HJ_TRACED_WAIT_MS 1000

struct hj_target {
	pid_t pid;		/* in the caller's pid namespace */
	int pidfd;		/* pins the task; -1 when released */
	enum hj_pick pick;
	unsigned long long starttime; /* /proc/PID/stat field 22 */
	unsigned int ns_differ;	/* HJ_NS_* that differ from the caller's */
	bool traced;
	char cgroup[HJ_CGROUP_PATH_MAX]; /* the cgroup it was found in, or "" */
	bool checked;		/* hj_target_check_access() passed */
	struct hj_task_cgroups *cg; /* what it read, for hj_spawn(); owned */
};

/* Backends behind hj_spawn(). */
enum hj_backend {
	HJ_BACKEND_AUTO = 0,	/* native if the kernel advertises it */
	HJ_BACKEND_NATIVE,	/* sys_hijack only; -ENOSYS without it */
	HJ_BACKEND_STOCK,	/* pidfd_open + setns + clone3 */
};

struct hj_spawn_opts {
	unsigned long clone_flags; /* only an exit signal is supported */
	enum hj_backend backend;
	const char *cwd;	/* inside the container; NULL: target's cwd */
	unsigned int flags;	/* HJ_SPAWN_* */
	uid_t owner;		/* HJ_SPAWN_AS_OWNER: the caller's euid */
};

/*
 * The target is @owner's own (hj_userns.owned): a privileged caller joins
 * its cgroups only where they are owned by @owner (delegated to them:
 * -EACCES otherwise; on cgroup2 also one whose parent is @owner's and
 * which belongs to a uid the target's user namespace maps, as crun makes
 * it for podman --userns=keep-id), then drops every capability before
 * entering the namespaces, so that only what @owner could enter
 * unprivileged is entered.  Stock backend only (-EINVAL with HJ_BACKEND_NATIVE).
 */
#define HJ_SPAWN_AS_OWNER 1

/* What hj_spawn() did, for --verbose and audit records. */
struct hj_spawn_info {
	enum hj_backend backend; /* the one actually used */
	unsigned int ns_entered;
	unsigned int cgroups_joined; /* number of hierarchies */
};

/* target.c */
void hj_target_init(struct hj_target *t);
void hj_target_release(struct hj_target *t);
int hj_target_from_pid(pid_t pid, struct hj_target *t);
int hj_target_from_pidfd(int pidfd, struct hj_target *t);
int hj_target_from_cgroup_path(const char *path, struct hj_target *t);
int hj_target_from_cgroup_fd(int fd, struct hj_target *t);
/* the login path: see the error contract above and cgroup-spec.c */
int hj_target_from_cgroup_spec(const char *spec, struct hj_target *t);
int hj_target_alive(const struct hj_target *t);
int hj_target_check_access(struct hj_target *t);
const char *hj_pick_name(enum hj_pick pick);

/*
 * container.c: the one answer to "may a login enter the container the
 * cgroup @spec names, now?" (pam_hijack's account, hijack-shell, and
 * hijack-shell --check all ask it).  0 with @t pinned on the container's
 * init and checked (hj_target_check_access()); else @t is released and
 * the code says why: -ENOENT stopped (no such cgroup), -ESRCH empty,
 * -EXDEV, -ENOTUNIQ, -E2BIG, -EDEADLK frozen, -EPERM, -EBUSY, or any
 * other -errno.  When the init was found but refused (frozen, traced),
 * t->pid and t->cgroup still name it, for the log; otherwise t->pid is 0.
 */
int hj_container_state(const char *spec, struct hj_target *t);

/*
 * The library's own words for its codes (the contract above), for the
 * front ends to print or log: a static string, never NULL.  A code the
 * library gives no meaning of its own gets strerror(-err)'s words.
 * Takes -errno (as returned) or errno.  Does not log.
 */
const char *hj_strerror(int err);

/*
 * escape.c: @in (NULL reads as "") into @out, every byte outside
 * printable ASCII and every backslash as \xNN, cut at a whole character
 * to fit @size; returns @out.  For each string from /proc, cgroupfs, a
 * container, NSS or the environment that a tool prints or logs.
 */
#define HJ_ESCAPED_SIZE(n) (4 * (n) + 1)
const char *hj_escape(const char *in, char *out, size_t size);
/*
 * The same into one of eight static buffers used in turn (the first 4096
 * bytes of @in): enough for every string of one printed line.  For the
 * single-threaded command-line tools only.
 */
const char *hj_escape_tmp(const char *in);

/* cgroup.c */
int hj_cgroup_is_member_file(int fd);
int hj_cgroup_open_spec_all(const char *spec, int *dirfds, size_t max,
			    size_t *n);

/*
 * delegate.c: BASE/USER on every hierarchy, owned by @uid/@gid (a cgroup
 * of the user's own for rootless containers, where systemd gives none),
 * and the process @pid (> 0) moved to the root-owned BASE/USER/session.
 * 0, or -errno with @where naming the cgroup (-EPERM: BASE is not root's
 * alone, or BASE/USER belongs to another user; -EINVAL: @uid is root or
 * a name is not a cgroup path).
 */
int hj_cgroup_delegate(const char *base, const char *user, uid_t uid,
		       gid_t gid, pid_t pid, char *where, size_t size);

/* ns.c */
const char *hj_ns_name(unsigned int bit);
int hj_ns_differ(pid_t pid, unsigned int *mask);
int hj_ns_clone_flags(unsigned int mask);
int hj_ns_enter_net(const struct hj_target *t, unsigned long long *ino);
int hj_ns_net_in_userns(const struct hj_target *t);

/*
 * userns.c: the target's user namespace as a login of host @uid/@gid
 * sees it (a rootless container is one its user owns), read from the
 * host's /proc while @t is pinned.  All false when the target shares ours.
 */
struct hj_userns {
	bool own_ns;		/* the target has a user namespace of its own */
	bool owned;		/* ... and @uid owns it: the kernel lets @uid in
				 * unprivileged (its child of ours is @uid's) */
	uid_t owner;		/* that child's owner; -1 when not below ours */
	bool uid_mapped, gid_mapped; /* @uid, @gid have an id inside */
	uid_t uid;		/* ... namely these */
	gid_t gid;
	bool root_mapped;	/* uid and gid 0 inside are mapped */
	bool setgroups_denied;	/* /proc/PID/setgroups says "deny": nobody
				 * can set the container's groups there */
};

/* 0, or -ESRCH, -EPERM, -errno; ends with the target rechecked. */
int hj_userns_of(struct hj_target *t, uid_t uid, gid_t gid,
		 struct hj_userns *u);

/* io.c */
/* CLOCK_MONOTONIC in milliseconds: the deadlines below */
long long hj_now_ms(void);
/*
 * All of @len bytes, across short reads and EINTR, as the reports of a
 * child over a pipe need: 0, -EPIPE at end of file, or -errno;
 * hj_read_full_until() gives up with -ETIMEDOUT at @deadline
 * (hj_now_ms(); -1: none).
 */
int hj_read_full(int fd, void *buf, size_t len);
int hj_read_full_until(int fd, void *buf, size_t len, long long deadline);
/*
 * A deadline.  On the wall clock (hj_deadline_wall(): at @deadline, an
 * hj_now_ms() value; -1: none), or on a child's (hj_deadline_child():
 * @limit_ms of the time child @child spends asleep from now).  A child's
 * time asleep is the wall time less its time running and waiting to run
 * (/proc/PID/schedstat, whose run-queue delay includes a CPU quota's
 * throttling): on a loaded machine a helper that is runnable but not
 * running is slow, not stuck, and refusing the login then helps nobody,
 * while a helper blocked on something of the container's (a FIFO, a FUSE
 * server that never answers, an init that never stops) or stopped by its
 * user sleeps and meets the deadline as on the wall clock.  The wall
 * clock still ends a child's wait at HJ_CHILD_WALL_MAX_MS; without
 * schedstat it is the wall clock alone.  hj_deadline_left(): the ms
 * left, <= 0 once passed.  hj_wait_readable(): 0 once @fd is readable,
 * -ETIMEDOUT at @d's deadline (NULL: none), or -errno.
 */
struct hj_deadline {
	long long start; /* hj_now_ms() at the start */
	long long limit_ms; /* -1: none */
	long long cpu0; /* the child's time on a CPU at the start, or -1 */
	pid_t child; /* 0: the wall clock */
};
#define HJ_CHILD_WALL_MAX_MS 120000
void hj_deadline_wall(struct hj_deadline *d, long long deadline);
void hj_deadline_child(struct hj_deadline *d, pid_t child, int limit_ms);
long long hj_deadline_left(const struct hj_deadline *d);
int hj_wait_readable(int fd, const struct hj_deadline *d);
int hj_read_full_by(int fd, void *buf, size_t len, const struct hj_deadline *d);
int hj_write_full(int fd, const void *buf, size_t len);
/*
 * The parent's side of child @pid that writes a @size-byte report down
 * @fd and exits 0: the report, read within @timeout_ms of the child's
 * time asleep (struct hj_deadline), and the child reaped.  0; -ETIMEDOUT
 * when it was late (it is killed: a child stuck on a container's FIFO or
 * FUSE file); -EPIPE when it died, exited non-zero or wrote less.  The caller still checks what came back as
 * if the container had written it.
 */
#define HJ_CHILD_REPORT_MS 10000
/*
 * SIGKILL child @pid and reap it within @grace_ms: 0, or -ETIMEDOUT
 * when it could not die in time.  A process blocked in a FUSE request
 * its server never answers cannot die until the server answers or goes;
 * it is left to init rather than waited for, with SIGKILL pending: it
 * dies the moment the request ends, and nothing of ours waits on it.
 */
#define HJ_KILL_GRACE_MS 1000
/* Close every fd from @from up, except @keep (-1: none). */
void hj_close_from(int from, int keep);
int hj_kill_reap(pid_t pid, int grace_ms);
int hj_child_report(pid_t pid, int fd, void *rep, size_t size, int timeout_ms);
/*
 * The parent's side of child @pid that writes what it has to say down @fd
 * and exits: all of it up to @size - 1 bytes in @buf, NUL-terminated,
 * its length in @len, and the child reaped with its wait status in
 * @status, all within @timeout_ms of its time asleep.  0; -ETIMEDOUT
 * when it was late and -E2BIG when it said more (killed either way, @buf
 * holds what came).
 */
int hj_child_output(pid_t pid, int fd, char *buf, size_t size, int timeout_ms,
		    size_t *len, int *status);

/* spawn.c */
int hj_check_clone_flags(unsigned long clone_flags);
int hj_native_syscall_nr(void);
pid_t hj_spawn(struct hj_target *t, const struct hj_spawn_opts *opts,
	       struct hj_spawn_info *info);
/* everything hj_spawn() checks before it creates a process: 0 or -errno */
int hj_spawn_check(struct hj_target *t, const struct hj_spawn_opts *opts);
int hj_wait(pid_t child, int *status);
int hj_wait_foreground(pid_t child, int *code);
int hj_exit_code(int status);

/*
 * confine.c: make a new process of the container as confined as its
 * init, as lxc-attach and runc exec do.  The init's confinement is read
 * from the host's /proc while the target is pinned, before anything is
 * entered; it is applied in the new process in two steps, the first
 * while still privileged, the second right before exec, and then checked
 * through the host's /proc (never the container's).
 */
#define HJ_LSM_LABEL_MAX 4096
#define HJ_SECCOMP_FILTERS_MAX 64

struct sock_filter;
struct hj_seccomp_filter {
	unsigned short len;		/* instructions */
	struct sock_filter *insns;	/* classic BPF, as ptrace gives it */
	unsigned long flags;		/* SECCOMP_FILTER_FLAG_LOG or 0 */
};

struct hj_confinement {
	unsigned long long capbnd;	/* the init's CapBnd */
	bool no_new_privs;		/* the init's NoNewPrivs */
	int seccomp_mode;		/* 0 off, 1 strict, 2 filter */
	unsigned int nfilters;		/* filters[0] is the newest */
	struct hj_seccomp_filter *filters;
	unsigned int self_filters;	/* the caller's own, when read */
	char lsm[16];			/* "apparmor", "selinux", "" none */
	char label[HJ_LSM_LABEL_MAX];	/* the init's label, "" none */
	int procfd;			/* the host's /proc, checked procfs */
	bool filter_fallback;		/* no_new_privs for uncopied filters */
};

/* hj_confinement_read_flags(): no_new_privs where filters cannot be copied */
#define HJ_CONFINE_FILTER_NNP 1
/*
 * ... the filters from root's copy in HJ_FILTERS_DIR only, never from the
 * init itself (-ENODATA when there is no current one): for a process the
 * user may signal, which must never hold the init in a ptrace stop
 */
#define HJ_CONFINE_CACHED 2
/* ... root's copy, made (and kept there) when there is no current one */
#define HJ_CONFINE_STORE 4
/* where root keeps a copy of each init's filters, by pid and start time */
#define HJ_FILTERS_DIR "/run/hijack/seccomp"
#define HJ_FILTERS_DIR_PARTS "run", "hijack", "seccomp"
/* the longest the init is waited for to stop for a copy */
#define HJ_FILTER_COPY_MS 10000

/* The credentials a session must have right before exec. */
struct hj_creds {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	size_t ngroups;
	bool check_caps_zero;	/* no capability in any set but CapBnd */
};

void hj_confinement_init(struct hj_confinement *c);
int hj_confinement_read(struct hj_target *t, struct hj_confinement *c);
int hj_confinement_read_flags(struct hj_target *t, struct hj_confinement *c,
			      unsigned int flags);
int hj_confinement_self(struct hj_confinement *c);
void hj_confinement_free(struct hj_confinement *c);
int hj_confine_early(const struct hj_confinement *c);
int hj_confine_caps(const struct hj_confinement *c);
int hj_drop_caps(void);
int hj_confine_late(const struct hj_confinement *c);
int hj_confine_verify(const struct hj_confinement *c,
		      const struct hj_creds *want);

/* proc.c: parsers of /proc and cgroup files, also used by the fuzzers */
struct hj_proc_status {
	char state;
	pid_t tgid;
	pid_t tracer;
	pid_t nspid_last;
	int nspid_depth;
	uid_t ruid, euid;
};
int hj_parse_status(const char *buf, size_t len, struct hj_proc_status *st);
int hj_parse_stat_starttime(const char *buf, size_t len,
			    unsigned long long *starttime);
int hj_parse_pid_list(const char *buf, size_t len, pid_t *pids, size_t max,
		      size_t *n);
int hj_parse_id_map(const char *buf, size_t len, unsigned int id, bool inside,
		    unsigned int *to);
int hj_proc_read(pid_t pid, const char *file, char *buf, size_t size,
		 size_t *len);
size_t hj_proc_sockets(pid_t pid, unsigned long *inos, size_t max);

/*
 * agent.c: the forwarded ssh agent inside the container.
 * hj_agent_source(): the socket sshd listens on for the forwarded agent,
 * at @path, is one @holder (sshd's session process) holds, in a directory
 * owned by @uid that only @uid may enter; 0 with that directory open
 * (O_PATH) in *dirfd and the socket's name in @name; -EPERM when it is
 * not, -EINVAL for a malformed path.
 * hj_agent_listen(): a new directory (0700) under @tmpdir and a socket
 * listening in it, as the caller: 0 with its path in @path, fd in *fd.
 * hj_agent_relay(): joins each connection to @lfd from a peer with the
 * listener's uid to one to @name in @dirfd; returns only on an error.
 */
int hj_agent_source(const char *path, uid_t uid, pid_t holder, int *dirfd,
		    char *name, size_t size);
int hj_agent_listen(const char *tmpdir, char *path, size_t size, int *fd);
int hj_agent_relay(int lfd, int dirfd, const char *name);

/* hijack-shell re-executed as the session's agent relay: ARG NAME */
#define HJ_AGENT_ARG "--agent-relay"

/*
 * A session's relay: hijack-shell re-executed as "hijack-shell
 * HJ_RELAY_ARG PID FD" under no_new_privs, waiting for the session's
 * process; hijack who(1) finds sessions by it.
 */
#define HJ_RELAY_ARG "--wait-for-child"

#endif /* HIJACK_H */
