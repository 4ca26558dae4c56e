/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where distributions keep a kernel release's files (Module.symvers, .config),
 * below a root, and how a packaged path is recognised as one of them.  The
 * places are PRE KVER POST pairs rather than format strings so that the
 * compiler checks every printf format.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kernel_internal.h"

/* Host path of PRE KVER POST inside @root ("" = host); NULL with errno (tg_root_resolve). */
char *tg_root_kpath(const char *root, const struct tg_kplace *pl, const char *release)
{
	char *p = strf("%s%s%s", pl->pre, release, pl->post), *r;
	int e;

	if (!p || !*root)
		return p;
	r = tg_root_resolve(root, p);
	e = errno;
	free(p);
	errno = e;
	return r;
}

/*
 * tg_root_kpath() for a place that may be absent.  A place that cannot be
 * resolved inside the root (a link loop, a path over PATH_MAX) is absent,
 * not out of memory: 0 with *out NULL and a note "ROOT/PLACE: why" in
 * *note (malloc'ed).  -ENOMEM only when memory ran out.
 */
int tg_root_kpath_try(const char *root, const struct tg_kplace *pl, const char *release,
		      char **out, char **note)
{
	*note = NULL;
	errno = 0;
	*out = tg_root_kpath(root, pl, release);
	if (*out)
		return 0;
	if (errno == ENOMEM || errno == 0)
		return -ENOMEM;
	*note = strf("%s%s%s%s: %s inside the root: not used", root, pl->pre, release, pl->post,
		     strerror(errno));
	return *note ? 0 : -ENOMEM;
}

bool tg_is_readable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* Where distros put Module.symvers, most specific first (docs/module-formats.md). */
const struct tg_kplace tg_symvers_places[] = {
	{ "/lib/modules/", "/build/Module.symvers" },	/* Debian, Fedora -devel */
	{ "/usr/src/kernels/", "/Module.symvers" },	/* Fedora/RHEL kernel-devel */
	{ "/usr/src/linux-headers-", "/Module.symvers" },	/* Debian/Ubuntu headers */
	{ "/boot/symvers-", ".gz" },			/* Fedora/RHEL/SUSE */
	{ "/lib/modules/", "/symvers.gz" },		/* newer Fedora kernel-core */
	{ "/usr/lib/modules/", "/symvers.gz" },
	{ "/boot/symvers-", ".xz" },
	{ "/lib/modules/", "/symvers.xz" },
	{ "/usr/lib/modules/", "/symvers.xz" },
	{ "/lib/modules/", "/symvers.zst" },
	{ "/usr/lib/modules/", "/symvers.zst" },
};

const size_t tg_n_symvers_places = TG_ARRAY_SIZE(tg_symvers_places);

const struct tg_kplace tg_config_places[] = {
	{ "/boot/config-", "" },
	{ "/lib/modules/", "/build/.config" },
	{ "/usr/src/kernels/", "/.config" },
	{ "/usr/src/linux-headers-", "/.config" },
	{ "/lib/modules/", "/config" },		/* Fedora kernel-core */
	{ "/usr/lib/modules/", "/config" },
};
const size_t tg_n_config_places = TG_ARRAY_SIZE(tg_config_places);

/* The kernel image (for its built-in certificates) and a System.map to find them. */
const struct tg_kplace tg_image_places[] = {
	{ "/boot/vmlinuz-", "" },
	{ "/usr/lib/modules/", "/vmlinuz" },	/* Fedora/RHEL kernel-core, Debian 13 */
	{ "/lib/modules/", "/vmlinuz" },
	{ "/boot/vmlinux-", "" },		/* ppc64le, s390x elsewhere */
	{ "/boot/Image-", "" },
};
const size_t tg_n_image_places = TG_ARRAY_SIZE(tg_image_places);

const struct tg_kplace tg_sysmap_places[] = {
	{ "/boot/System.map-", "" },
	{ "/usr/lib/modules/", "/System.map" },
	{ "/lib/modules/", "/System.map" },
};
const size_t tg_n_sysmap_places = TG_ARRAY_SIZE(tg_sysmap_places);

/* @path is PRE RELEASE POST of one of @pl[]: its index, the release in @buf. */
static int place_match(const struct tg_kplace *pl, size_t n_pl, const char *path, char *buf,
		       size_t len)
{
	size_t n = path ? strlen(path) : 0;

	for (size_t i = 0; i < n_pl; i++) {
		size_t a = strlen(pl[i].pre), b = strlen(pl[i].post);

		if (n <= a + b || strncmp(path, pl[i].pre, a) || strcmp(path + n - b, pl[i].post) ||
		    !tg_release_word_ok(path + a, n - a - b))
			continue;
		return tg_copy_word(path + a, n - a - b, buf, len) < 0 ? -ENAMETOOLONG : (int)i;
	}
	return -ENOENT;
}

int tg_kernel_config_place(const char *path, char *buf, size_t len)
{
	return place_match(tg_config_places, tg_n_config_places, path, buf, len);
}

int tg_kernel_symvers_place(const char *path, char *buf, size_t len)
{
	return place_match(tg_symvers_places, tg_n_symvers_places, path, buf, len);
}

bool tg_kernel_path_in_tree(const char *path)
{
	const char *p = path, *rel, *slash;

	if (!p)
		return false;
	if (!strncmp(p, "/usr/", 5))
		p += 4;
	if (strncmp(p, "/lib/modules/", 13))
		return false;
	rel = p + 13;
	slash = strchr(rel, '/');
	return slash && tg_release_word_ok(rel, (size_t)(slash - rel)) &&
	       !strncmp(slash, "/kernel/", 8);
}

/* First readable file of @pl[] for @release under @root; malloc'ed or NULL. */
char *tg_kplace_find_first(const char *root, const struct tg_kplace *pl, size_t n, const char *release)
{
	for (size_t i = 0; i < n; i++) {
		char *p = tg_root_kpath(root, &pl[i], release);

		if (p && tg_is_readable_file(p))
			return p;
		free(p);
	}
	return NULL;
}

int tg_kernel_find_symvers(const char *root, const char *release, char *buf, size_t len)
{
	char *pfx, *p;
	int r;

	if (!release || !tg_release_is_sane(release))
		return -EINVAL;
	pfx = tg_root_prefix(root);
	if (!pfx)
		return -ENOMEM;
	p = tg_kplace_find_first(pfx, tg_symvers_places, tg_n_symvers_places, release);
	free(pfx);
	if (!p)
		return -ENOENT;
	r = tg_copy_word(p, strlen(p), buf, len);
	free(p);
	return r;
}

/*
 * First of @pl[] that exists as a file, readable or not: an image only root
 * may read (Ubuntu's are 0600) must fail with "Permission denied" when its
 * keys are needed, not look absent.
 */
char *tg_kplace_find_existing(const char *root, const struct tg_kplace *pl, size_t n,
			      const char *release)
{
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		char *p = tg_root_kpath(root, &pl[i], release);

		if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode))
			return p;
		free(p);
	}
	return NULL;
}
