/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Installed module files beyond the rpmdb, without librpm: which file is
 * which (device and inode, so that /lib/modules and /usr/lib/modules, or any
 * other link, name one file once), and who owns it on a host without rpm:
 * dpkg's database, read as dpkg-query reads it, and DKMS's tree.  Linked by
 * taintguard-audit (with the rest of libtgpkg) and by taintguard itself
 * (status), which has no librpm.
 *
 *   owners.c   file identities, module tops, dpkg's status and .list files, DKMS's tree
 */
#ifndef TG_PKG_OWNERS_H
#define TG_PKG_OWNERS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "strv.h"

/* ------------------------------------------------------------ file identities */

/*
 * A set of files by device and inode, each with the kernel release it is
 * judged for (NULL: none) and a value of the caller's: the same file reached
 * for two kernels (a weak-updates link into another kernel's extra/) is two
 * entries, reached twice for one kernel it is one.
 */
struct pkg_fileset_ent {
	dev_t dev;
	ino_t ino;
	char *release;
	size_t val;
	bool used;
};
struct pkg_fileset {
	struct pkg_fileset_ent *v;
	size_t n, cap;
};
/* 1 added, 0 there already (its value kept), -ENOMEM. */
int pkg_fileset_add(struct pkg_fileset *s, const struct stat *st, const char *release, size_t val);
/* Is the file in the set (for @release)?  Its value in *@val when @val is not NULL. */
bool pkg_fileset_find(const struct pkg_fileset *s, const struct stat *st, const char *release,
		      size_t *val);
void pkg_fileset_free(struct pkg_fileset *s);

/* stat() of @path inside @root ("/", "" or NULL: the host), links followed inside the root. */
int pkg_root_stat(const char *root, const char *path, struct stat *st);
/* The R of /lib/modules/R/... or /usr/lib/modules/R/... into @buf; false for other paths. */
bool pkg_module_path_release(const char *path, char *buf, size_t len);

/* Where kernels keep their modules in a root: /lib/modules, /usr/lib/modules. */
extern const char *const pkg_module_tops[2];
/*
 * The module tops of @root that exist as distinct directories, by device and
 * inode (usrmerge: /lib -> usr/lib makes them one, walked as /lib/modules),
 * into @out; their number.
 */
size_t pkg_module_tops_distinct(const char *root, const char *out[2]);

/* ---------------------------------------------------------------- owners */

enum pkg_owner_kind {
	PKG_OWNER_DPKG,		/* a Debian package, from dpkg's database */
	PKG_OWNER_DKMS,		/* a DKMS module/version installed for a kernel */
};

struct pkg_owned {
	enum pkg_owner_kind kind;
	/* dpkg: Package (":ARCH" for Multi-Arch: same, as dpkg-query prints it); dkms: "NAME/VERSION (dkms)" */
	char *name;
	/* the one instance: dpkg "NAME_VERSION_ARCH" (as its .deb is named); dkms: the name */
	char *label;
	struct strv files;	/* its module files present in the root, as it names them */
};

struct pkg_owners {
	struct pkg_owned *v;
	size_t n;
	struct pkg_fileset ids;	/* every file of v: value = index in v */
	bool dpkg;		/* a dpkg database was found */
};

/*
 * The module files of @root that dpkg's database lists (status: packages
 * that are not "not-installed" or "config-files"; info/NAME[:ARCH].list:
 * their paths) and those DKMS installed (<tree>/NAME/kernel-KVER-ARCH ->
 * VERSION/KVER/ARCH: the files of its module/ directory, matched to the
 * copies in KVER's updates/dkms/, updates/ or extra/ by name and content).
 * A DKMS copy is DKMS's even where dpkg also lists the path.  Absent
 * databases are no error: 0 or -ENOMEM.
 */
int pkg_owners_load(const char *root, struct pkg_owners *o);
/* The owner of @path (inside @root, links followed), NULL when none is known. */
const struct pkg_owned *pkg_owners_find(const struct pkg_owners *o, const char *root,
					const char *path);
void pkg_owners_free(struct pkg_owners *o);

/*
 * The dpkg package(s) whose .list names @path (any file), as dpkg-query -S
 * answers: "NAME" (several joined by ", "), "" when none, NULL when @root
 * has no dpkg database (or out of memory).  Compared by device and inode, so
 * a .list saying /lib/... owns the file reached as /usr/lib/....
 */
char *pkg_dpkg_owner(const char *root, const char *path);

/* ------------------------------------------------- what a kernel will miss */

/*
 * A module DKMS installed for another kernel and not for this one: where it
 * would be, and why it is not there, in the words every front end uses:
 * "not built for this kernel: build failed, see .../make.log", "not built
 * for this kernel: BUILD_EXCLUSIVE_KERNEL=... in its dkms.conf excludes it",
 * "not built for this kernel yet", "built for this kernel, not installed".
 */
struct pkg_dkms_missing {
	char *name;	/* "NAME/VERSION (dkms)", as pkg_owners_load() names it */
	char *module;	/* the module's file name, as built for the other kernel */
	char *path;	/* where dkms would put it: INSTALL_TREE/KVER/updates/dkms/FILE */
	char *why;
};

/*
 * The DKMS modules of @root's tree (@tree, a path inside the root; NULL:
 * /var/lib/dkms) installed for a kernel other than @release and for no
 * version for @release, with why (dkms's own traces: VERSION/KVER/,
 * build/make.log's "for kernel KVER" line, BUILD_EXCLUSIVE_KERNEL of
 * source/dkms.conf or /usr/src/NAME-VERSION/dkms.conf, matched as bash's =~
 * does: POSIX ERE).  @install_tree: where kernels' modules are (NULL:
 * /lib/modules).  0 or -ENOMEM; no tree is none missing.
 */
int pkg_dkms_missing(const char *root, const char *tree, const char *install_tree,
		     const char *release, struct pkg_dkms_missing **out, size_t *n);
void pkg_dkms_missing_free(struct pkg_dkms_missing *v, size_t n);

#endif
