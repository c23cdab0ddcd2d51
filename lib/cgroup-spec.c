// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cgroup specs as hijack.conf gives them, "[controller:]path": which
 * hierarchies to look in, and the target found there.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hijack.h"
#include "internal.h"

/*
 * The v1 hierarchy a controller is mounted with, from the mount table we
 * parsed: the hierarchy of exactly that set ("cpu,cpuacct" in either
 * order, "name=systemd"), else the first whose options list the
 * controller ("cpu" finds "cpu,cpuacct").  The kernel's own record of
 * where a controller is; libcgroup's cgroup_init(), used here before,
 * read the same mounts and /proc/cgroups and dirtied about 830 KiB of the
 * caller (sshd) doing so.  -ENOENT: no v1 hierarchy has it.
 */
int hj_controller_hierarchy(const char *controller,
			    const struct hj_hierarchy *h, size_t nh)
{
	size_t i;

	for (i = 0; i < nh; i++)
		if (!h[i].v2 &&
		    hj_same_controllers(controller, strlen(controller),
					h[i].opts))
			return i;
	for (i = 0; i < nh; i++) {
		const char *o = h[i].opts;
		size_t cl = strlen(controller);

		if (h[i].v2)
			continue;
		while (o && *o) {
			if (!strncmp(o, controller, cl) &&
			    (o[cl] == ',' || o[cl] == '\0'))
				return i;
			o = strchr(o, ',');
			if (o)
				o++;
		}
	}
	return -ENOENT;
}

/* Split "[controller:]path" and check the path. */
static int split_spec(const char *spec, char *controller, size_t size,
		      const char **path)
{
	const char *colon = strchr(spec, ':');

	*path = spec;
	controller[0] = '\0';
	if (colon) {
		if ((size_t)(colon - spec) >= size || colon == spec)
			return -EINVAL;
		memcpy(controller, spec, colon - spec);
		controller[colon - spec] = '\0';
		*path = colon + 1;
	}
	while (**path == '/')
		(*path)++;
	return hj_cgroup_path_check(*path);
}

/*
 * Open every directory the cgroup named by "[controller:]path" has, path
 * relative to the hierarchy roots, in the order to try them: with a
 * controller its v1 hierarchy alone; without, the cgroup2 hierarchy
 * first, then each v1 hierarchy in mount order.  O_PATH directory fds in
 * @dirfds; -ENOENT when the cgroup exists on no hierarchy.
 */
int hj_cgroup_open_spec_all(const char *spec, int *dirfds, size_t max,
			    size_t *n)
{
	struct hj_hierarchy *h;
	char controller[128];
	const char *path;
	size_t nh, i, pass;
	int r, fd;

	*n = 0;
	r = split_spec(spec, controller, sizeof(controller), &path);
	if (r)
		return r;
	h = hj_large_calloc(HJ_MAX_HIERARCHIES, sizeof(*h));
	if (!h)
		return -ENOMEM;
	r = hj_cgroup_hierarchies(h, HJ_MAX_HIERARCHIES, &nh);
	if (r)
		goto out_free;
	if (*controller) {
		r = hj_controller_hierarchy(controller, h, nh);
		if (r < 0)
			goto out_free;
		fd = hj_cgroup_openat(&h[r], path, O_PATH | O_DIRECTORY);
		if (fd < 0) {
			r = fd;
			goto out_free;
		}
		dirfds[(*n)++] = fd;
		r = 0;
		goto out_free;
	}
	r = -ENOENT;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nh && *n < max; i++) {
			if (h[i].v2 != !pass)
				continue;
			fd = hj_cgroup_openat(&h[i], path,
					      O_PATH | O_DIRECTORY);
			/* absent on this hierarchy: try the next one */
			if (fd == -ENOENT)
				continue;
			if (fd < 0) {
				r = fd;
				goto out_close;
			}
			dirfds[(*n)++] = fd;
			r = 0;
		}
	}
	goto out_free;

out_close:
	while (*n)
		close(dirfds[--(*n)]);
out_free:
	hj_large_free(h);
	return r;
}

/*
 * The login path: the container a rule names, never the host.
 *
 * Without a controller a cgroup may exist on several hierarchies (a v2
 * directory left empty while the container runs on v1): the first one
 * whose subtree holds a live task decides, and only a container init
 * found there (see hj_target_from_cgroup_tree()) is the target.
 *
 *   0          the init, pinned (t->cgroup: the cgroup it is listed in)
 *   -ENOENT    the cgroup exists on no hierarchy: the container is
 *              stopped (the only answer stopped=host may act on)
 *   -ESRCH     the cgroup exists but no live task is in its subtree
 *   -EXDEV     live tasks, but no container: none is pid 1 of a pid
 *              namespace below the caller's with a mount namespace of its
 *              own (host processes only)
 *   -ENOTUNIQ  two containers' inits in the subtree, neither nested in
 *              the other's pid namespace
 *   -E2BIG     the subtree is deeper or larger than the search's bounds
 *
 * and any other error at once (fail closed).
 */
int hj_target_from_cgroup_spec(const char *spec, struct hj_target *t)
{
	int fds[HJ_MAX_HIERARCHIES];
	size_t n, i;
	int r;

	hj_target_init(t);
	r = hj_cgroup_open_spec_all(spec, fds, HJ_MAX_HIERARCHIES, &n);
	if (r)
		return r;
	r = -ESRCH;
	for (i = 0; i < n; i++) {
		if (r == -ESRCH)
			r = hj_target_from_cgroup_tree(fds[i], t);
		close(fds[i]);
	}
	return r;
}
