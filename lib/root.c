/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Paths inside a root directory (an rpm --root, a mounted image, a chroot):
 * symlinks are resolved against the root, never the host, so that
 * /lib/modules/KVER/build -> /usr/src/kernels/KVER below a root does not
 * lead to the host's own headers.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "kernel_internal.h"

/* Symlinks followed while resolving a path inside a root (as the kernel's MAXSYMLINKS). */
#define ROOT_MAXLINKS 40

/* "" for the host, else @root without trailing slashes; NULL on ENOMEM. */
char *tg_root_prefix(const char *root)
{
	size_t n;

	if (!root)
		return strdup("");
	n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	return strndup(root, n);
}

/*
 * Host path of @path (absolute, inside @root, a prefix without trailing
 * slash) with every symlink resolved inside the root: /lib/modules/KVER/build -> /usr/src/kernels/KVER is an
 * absolute link, and below an rpm --root it must not lead to the host's own
 * headers.  Missing components are kept as they are (the caller's stat()
 * then fails).  NULL with errno ENAMETOOLONG when the result does not fit
 * PATH_MAX, ELOOP on a link loop (an absolute link to the host's own tree,
 * /lib/modules/KVER/kernel -> /lib/modules/KVER/kernel, points at itself
 * inside the root), readlink's errno, or ENOMEM.
 */
static char *resolve_below(const char *root, const char *path)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX], full[PATH_MAX], tgt[PATH_MAX];
	int links = 0;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest))
		goto toolong;
	for (;;) {
		char *c = rest + strspn(rest, "/"), *next;
		size_t clen = strcspn(c, "/"), curlen = strlen(cur);
		struct stat st;
		ssize_t tl;

		if (!clen)
			break;
		next = c + clen;
		if (clen == 1 && c[0] == '.') {
			memmove(rest, next, strlen(next) + 1);
			continue;
		}
		if (clen == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(cur, '/');

			if (slash)	/* ".." never leaves the root */
				*slash = '\0';
			memmove(rest, next, strlen(next) + 1);
			continue;
		}
		if (curlen + 1 + clen >= sizeof(cur))
			goto toolong;
		if (snprintf(full, sizeof(full), "%s%s/%.*s", root, cur, (int)clen, c) >= (int)sizeof(full))
			goto toolong;
		if (lstat(full, &st) == 0 && S_ISLNK(st.st_mode)) {
			if (++links > ROOT_MAXLINKS) {
				errno = ELOOP;
				return NULL;
			}
			tl = readlink(full, tgt, sizeof(tgt) - 1);
			if (tl < 0)
				return NULL;
			tgt[tl] = '\0';
			if (tgt[0] == '/')
				cur[0] = '\0';
			if (snprintf(full, sizeof(full), "%s%s", tgt, next) >= (int)sizeof(full))
				goto toolong;
			memcpy(rest, full, strlen(full) + 1);
			continue;
		}
		cur[curlen] = '/';
		memcpy(cur + curlen + 1, c, clen);
		cur[curlen + 1 + clen] = '\0';
		memmove(rest, next, strlen(next) + 1);
	}
	return strf("%s%s", root, cur[0] ? cur : "/");
toolong:
	errno = ENAMETOOLONG;
	return NULL;
}

char *tg_root_resolve(const char *root, const char *path)
{
	char *pfx, *r;
	int e;

	if (!path) {
		errno = EINVAL;
		return NULL;
	}
	pfx = tg_root_prefix(root);
	if (!pfx)
		return NULL;
	r = *pfx ? resolve_below(pfx, path) : strdup(path);	/* "/" and "" are the host */
	e = errno;
	free(pfx);
	errno = e;	/* the caller tells a link loop from ENOMEM */
	return r;
}
