/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a packaged path is, by name and place: one answer for the rpm plugin,
 * the audit of package files, the rpmdb and repository metadata.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pkg.h"

/* Ranks of .config places come after every export table's (read those first). */
#define CONFIG_RANK_BASE 100

bool pkg_in_module_dir(const char *path)
{
	return !strncmp(path, "/lib/modules/", 13) || !strncmp(path, "/usr/lib/modules/", 17);
}

/*
 * What libmagic, and so rpmbuild, says of every .ko: the class "ELF 64-bit
 * LSB relocatable, ..." (v4 packages), the MIME type "application/x-object"
 * (v6).  Both also when the ELF is compressed: rpmbuild asks libmagic to look
 * inside (MAGIC_COMPRESS), and kmod loads a compressed file of any name.
 */
static bool elf_relocatable(const char *ftype)
{
	return ftype && ((!strncmp(ftype, "ELF ", 4) && strstr(ftype, " relocatable")) ||
			 !strcmp(ftype, "application/x-object"));
}

/*
 * A separate debug file as find-debuginfo and dh_strip write them
 * (/usr/lib/debug/.../foo.ko.debug, /usr/lib/debug/.build-id/xx/yyy.debug):
 * libmagic calls it an ELF relocatable, but objcopy --only-keep-debug left
 * its sections NOBITS, .gnu.linkonce.this_module too, which the kernel
 * refuses to load.  Only the type says "module" there, and a type is the
 * packager's word anyway; a file named like a module stays a candidate.
 */
static bool debug_file(const char *path)
{
	static const char dir[] = "/usr/lib/debug/", sfx[] = ".debug";
	size_t n = strlen(path), l = sizeof(sfx) - 1;

	return !strncmp(path, dir, sizeof(dir) - 1) && n > l && !strcmp(path + n - l, sfx);
}

enum pkg_kind pkg_classify_file(const char *path, const char *ftype, struct pkg_class *c)
{
	if (pkg_classify(path, c) != PKG_OTHER || !elf_relocatable(ftype) || debug_file(path))
		return c->kind;
	c->kind = PKG_MODULE;
	c->hidden = true;
	return c->kind;
}

/*
 * A kernel image or System.map by its exact place: /boot/vmlinuz-R,
 * /boot/System.map-R, (usr/)lib/modules/R/vmlinuz and System.map.  The
 * module loader never loads a file of these names (depmod lists *.ko*), so
 * they are kernel files, not module candidates.
 */
static bool kernel_image_place(const char *path, const char *base, struct pkg_class *c)
{
	static const struct { const char *boot, *name; enum pkg_kind kind; } k[] = {
		{ "/boot/vmlinuz-", "vmlinuz", PKG_IMAGE },
		{ "/boot/System.map-", "System.map", PKG_SYSMAP },
	};

	for (size_t i = 0; i < 2; i++) {
		size_t bl = strlen(k[i].boot);

		if (!strncmp(path, k[i].boot, bl) && path[bl] && !strchr(path + bl, '/') &&
		    snprintf(c->release, sizeof(c->release), "%s", path + bl) <
			    (int)sizeof(c->release)) {
			c->kind = k[i].kind;
			return true;
		}
		if (pkg_in_module_dir(path) && !strcmp(base, k[i].name) &&
		    tg_kernel_release_from_path(path, c->release, sizeof(c->release)) == 0 &&
		    /* directly in lib/modules/R/ */
		    strlen(path) == (size_t)(strstr(path, c->release) - path) +
					 strlen(c->release) + 1 + strlen(base)) {
			c->kind = k[i].kind;
			return true;
		}
	}
	c->release[0] = '\0';
	return false;
}

enum pkg_kind pkg_classify(const char *path, struct pkg_class *c)
{
	const char *base = strrchr(path, '/');
	int place;

	memset(c, 0, sizeof(*c));
	base = base ? base + 1 : path;
	if (kernel_image_place(path, base, c))
		return c->kind;
	c->named = tg_module_file_name(base);
	if (c->named || pkg_in_module_dir(path)) {
		/* a kernel's own files below lib/modules/KVER/ are not modules */
		if (!c->named && (strstr(base, "symvers") || strstr(base, "config"))) {
			if ((place = tg_kernel_symvers_place(path, c->release, sizeof(c->release))) >= 0)
				goto symvers;
			if ((place = tg_kernel_config_place(path, c->release, sizeof(c->release))) >= 0)
				goto config;
		}
		c->kind = PKG_MODULE;
		c->in_tree = tg_kernel_path_in_tree(path);
		return c->kind;
	}
	if (strstr(base, "symvers") &&
	    (place = tg_kernel_symvers_place(path, c->release, sizeof(c->release))) >= 0)
		goto symvers;
	if (strstr(base, "config") &&
	    (place = tg_kernel_config_place(path, c->release, sizeof(c->release))) >= 0)
		goto config;
	return PKG_OTHER;
symvers:
	c->kind = PKG_SYMVERS;
	c->rank = place;
	return c->kind;
config:
	c->kind = PKG_CONFIG;
	c->rank = CONFIG_RANK_BASE + place;
	return c->kind;
}

