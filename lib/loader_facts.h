/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the target kernel's module loader does, read from the kernel's own
 * files (loader_facts.c), each fact with where it came from.  The release
 * number decides a rule only where no file answers.  docs/loader-rules.md
 * says, per rule, which fact decides it.  Not installed.
 */
#ifndef TG_LOADER_FACTS_H
#define TG_LOADER_FACTS_H

#include "internal.h"

enum tg_lf {
	/* rules switched on a release upstream, read from the image's loader messages */
	TG_LF_TEST_TAINT,	/* MODULE_INFO(test) taints N (6.0) */
	TG_LF_ELF_UNIQUE,	/* one .modinfo, symbol table, this_module section (6.4) */
	TG_LF_MODSTRUCT_CHECK,	/* this_module size must equal struct module (6.4) */
	TG_LF_LATE_TAINTS,	/* taints only after the modinfo checks (6.4) */
	TG_LF_STRTAB_TYPED,	/* string tables must be SHT_STRTAB (7.2) */
	TG_LF_INHERIT_TAINT,	/* proprietary taint inherited through symbols (5.9) */
	TG_LF_MODULE_NS,	/* "module:" namespaces (6.16) */
	TG_LF_NS_IMPORTS,	/* missing namespace imports refused (5.4) */
	/* vendors */
	TG_LF_SUSE_SUPPORTED,	/* SUSE's supported flag */
	TG_LF_RHEL_CHECK_STATUS,	/* module_rh_check_status() (RHEL 9.4+) */
	TG_LF_RHEL_PARTNER,	/* mark_partner_supported() (RHEL 9.2+) */
	/* .config */
	TG_LF_MODVERSIONS,
	TG_LF_FORCE_LOAD,
	TG_LF_SIG_FORCE,
	TG_LF_LIVEPATCH,
	TG_LF_ALLOW_MISSING_NS,
	TG_LF_PLATFORM_KEYRING,
	TG_LF_RHEL_DIFFERENCES,
	TG_LF_SUSE_KERNEL_SUPPORTED,
	/* the export list and the in-tree modules */
	TG_LF_EXPORT_NS_COLUMN,
	TG_LF_STRUCT_MODULE_SIZE,
	/* SUSE (vendor_suse.c): System.map, and the root's sysctl and modprobe files */
	TG_LF_SUSE_SYSMAP,
	TG_LF_SUSE_UNSUPPORTED_SYSCTL,
	TG_LF_SUSE_ALLOW_UNSUPPORTED,
	TG_LF__N
};

enum tg_lf_source {
	TG_LFS_NONE,		/* nothing answers: unknown */
	TG_LFS_IMAGE,		/* a string of the decompressed image */
	TG_LFS_SYSMAP,		/* a symbol of System.map */
	TG_LFS_CONFIG,		/* a .config option */
	TG_LFS_EXPORTS,		/* the export list's format */
	TG_LFS_INTREE,		/* an in-tree module's .gnu.linkonce.this_module */
	TG_LFS_RELEASE,		/* the release number, no file answered */
	TG_LFS_ROOTCONF,	/* a setting of the root's configuration files (a number: size) */
};

struct tg_lfact {
	int value;		/* TG_YES / TG_NO / TG_UNKNOWN */
	size_t size;		/* TG_LF_STRUCT_MODULE_SIZE only */
	enum tg_lf_source source;
	const char *what;	/* the string, symbol or option looked for */
	const char *file;	/* the file that answered (a path of the kernel) */
	const char *why;	/* TG_LFS_RELEASE: why no file answered */
	const char *cached;	/* TG_LFS_IMAGE: the image cache entry it was read from, or NULL */
};

struct tg_loader_facts {
	struct tg_lfact f[TG_LF__N];
	unsigned kv;			/* the release's version, 0 unknown */
	char why[TG_ERRMAX];		/* why the image was not read, when it was not */
};

/* What each fact is read from (loader_scan.c). */
struct tg_lf_desc {
	const char *name;
	enum tg_lf_source source;	/* where the fact is read */
	const char *what;		/* image string, System.map symbol or CONFIG_ option */
	unsigned since;			/* release upstream brought the rule (fallback), 0: none */
};
extern const struct tg_lf_desc tg_lf_desc[TG_LF__N];

/* Image strings and System.map symbols found, as bits (1u << TG_LF_*). */
#define TG_LF_SCANNED (1u << 31)	/* the image was decoded and searched */
#define TG_LF_SYSMAP_REAL (1u << 30)	/* System.map has symbols (not a placeholder) */
unsigned tg_lf_scan_image(const unsigned char *p, size_t len);
unsigned tg_lf_scan_sysmap(const char *map, size_t len);

/*
 * Every fact of @k.  Reads the image (once per kernel, with its
 * certificates: tg_kernel_keyring()) when it was not read yet.
 */
void tg_loader_facts_get(const struct tg_kernel *k, struct tg_loader_facts *lf);
/* Yes or no; the release (or, unknown, the newest rules) decides when no file answers. */
bool tg_lf_on(const struct tg_loader_facts *lf, enum tg_lf id);
/* The fact's short name ("test-module-taint") and the loader-rules anchor it serves. */
const char *tg_lf_name(enum tg_lf id);
/* "rule test-module-taint assumed from release 5.14: no image": NULL when a file answered. */
char *tg_lf_assumed(const struct tg_loader_facts *lf, enum tg_lf id);

#endif
