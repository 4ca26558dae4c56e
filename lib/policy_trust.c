/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Whether root may trust a policy file: the policy decides what root
 * installs, so a file (or a directory holding it) that a non-root user can
 * change is refused, as sudo does with sudoers.  A sticky directory such as
 * /tmp is fine for a root-owned file: others cannot replace it there.
 */
#include <errno.h>
#include <libgen.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static bool others_can_write(const struct stat *st)
{
	return st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH));
}

int tg_policy_trust_check(int fd, const char *path, struct tg_error *err)
{
	struct stat st, dst;
	char *copy, *dir;
	int r = 0;

	if (geteuid() != 0)
		return 0;	/* an unprivileged run decides nothing for root */
	if (fstat(fd, &st) < 0)
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	if (others_can_write(&st))
		return tg_fail(err, -EPERM, "%s: policy file is writable by non-root users "
			       "(owner uid %u, mode %04o); it decides what root installs: "
			       "chown root and chmod go-w it", path, (unsigned)st.st_uid,
			       (unsigned)(st.st_mode & 07777));
	copy = strdup(path);
	if (!copy)
		return tg_fail(err, -ENOMEM, "%s: out of memory", path);
	dir = dirname(copy);
	if (stat(dir, &dst) == 0 && others_can_write(&dst) && !(dst.st_mode & S_ISVTX))
		r = tg_fail(err, -EPERM, "%s: the directory %s is writable by non-root users "
			    "(owner uid %u, mode %04o), who could replace the policy",
			    path, dir, (unsigned)dst.st_uid, (unsigned)(dst.st_mode & 07777));
	free(copy);
	return r;
}
