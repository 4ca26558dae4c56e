/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SUSE's "supported" module flag (openSUSE kernel-source,
 * patches.suse/supported-flag): what a SUSE kernel's loader does with a
 * module's supported= value, and the root's settings that decide whether an
 * unsupported module is refused.  docs/loader-rules.md ("SUSE: the supported
 * flag") cites the sources.  Not installed.
 */
#ifndef TG_VENDOR_SUSE_H
#define TG_VENDOR_SUSE_H

#include "loader_facts.h"

/* One setting of the root's configuration files. */
struct tg_suse_setting {
	int value;	/* -1: set in no file */
	char *file;	/* "PATH:LINE" of the assignment that wins; NULL when none */
};

/* What the root says (struct tg_kernel.suse): read once with the kernel. */
struct tg_suse_root {
	struct tg_suse_setting unsupported;	/* sysctl kernel.unsupported */
	struct tg_suse_setting allow;		/* modprobe's allow_unsupported_modules */
};

/* Read @root's ("" the host) sysctl and modprobe configuration; 0 or -ENOMEM. */
int tg_suse_root_load(const char *root, const struct tg_limits *lim, struct tg_suse_root **out);
void tg_suse_root_free(struct tg_suse_root *s);

/* loader_facts.c: a fact read from the root's configuration (TG_LFS_ROOTCONF). */
void tg_suse_fact(const struct tg_kernel *k, enum tg_lf id, struct tg_lfact *f);
char *tg_suse_evidence(enum tg_lf id, const struct tg_lfact *f);

enum tg_suse_support {
	TG_SUSE_NONE,		/* not a kernel with the supported flag */
	TG_SUSE_YES,		/* supported=yes: nothing */
	TG_SUSE_EXTERNAL,	/* supported=external: TAINT_EXTERNAL_SUPPORT */
	TG_SUSE_UNSUPPORTED,	/* absent or anything else: TAINT_NO_SUPPORT */
};

/* What the loader and modprobe do with one module (tg_suse_judge(); NULL @m: one without supported=). */
struct tg_suse_verdict {
	enum tg_suse_support support;
	const char *value;	/* the module's supported= value, NULL when none */
	unsigned bit;		/* the taint bit set, when one is */
	char letter;		/* ... and its letter on this kernel */
	const char *letters;	/* the kernel's taint letters by bit */
	const char *letters_from;	/* which patch generation, and why */
	bool refused;		/* kernel.unsupported is 0 */
	const char *refused_by;	/* where it is 0 */
	bool modprobe_refuses;	/* allow_unsupported_modules 0 */
	const char *modprobe_by;	/* where it is 0 */
};

/*
 * Does @k's loader handle supported= (CONFIG_SUSE_KERNEL_SUPPORTED, else the
 * image's "module not supported by SUSE" or System.map's suse_unsupported)?
 * The fact that answered goes to *@by.
 */
bool tg_suse_kernel(const struct tg_loader_facts *lf, enum tg_lf *by);
void tg_suse_judge(const struct tg_kernel *k, const struct tg_loader_facts *lf,
		   const struct tg_module *m, struct tg_suse_verdict *out);

#endif
