/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Red Hat Enterprise Linux's loader differences (vendor_rhel.c), read from
 * the kernel's own files.  docs/loader-rules.md#vendor-rules cites the RHEL
 * source file and release of each.  Not installed.
 */
#ifndef TG_VENDOR_RHEL_H
#define TG_VENDOR_RHEL_H

#include "keyring.h"
#include "loader_facts.h"

/* What a RHEL kernel has besides its upstream files; tg_kernel->rhel. */
struct tg_rhel {
	/* the enrolled UEFI db / MOK keys the platform keyring holds; NULL: none given */
	struct tg_keyring *platform;
	/* kernel-abi-stablelists: the symbols, sorted, and the file read */
	char **kabi;
	size_t n_kabi;
	char *kabi_path;
};

/*
 * Read what a RHEL kernel adds under @root (host path prefix, "" for /);
 * a file that does not read is a line of @notes.
 */
int tg_rhel_kernel_load(struct tg_kernel *k, const char *root, const struct tg_limits *lim,
			struct strv *notes);
void tg_rhel_free(struct tg_rhel *r);

/* Is @k a RHEL kernel?  @why (static) says which file said so. */
bool tg_rhel_detect(const struct tg_kernel *k, const struct tg_loader_facts *lf, const char **why);
/*
 * The platform keyring module signatures fall back to on @k (RHEL's
 * module_sig_check() with CONFIG_INTEGRITY_PLATFORM_KEYRING), NULL when
 * the kernel has no such fallback or no enrolled key was given.
 */
const struct tg_keyring *tg_rhel_platform_ring(const struct tg_kernel *k,
					       const struct tg_loader_facts *lf);

/* A kabi_stablelist_ARCH file's symbols, sorted. */
int tg_rhel_kabi_parse(const char *text, size_t len, char ***out, size_t *n);
bool tg_rhel_kabi_has(const struct tg_rhel *r, const char *sym);

/* Bit -> letter of a RHEL kernel's taint_flags[] (32 letters, ' ': none). */
extern const char tg_rhel_taint_letters[];

/*
 * RHEL's part of a settled verdict: rhelversion, stablelist membership of
 * each import, the vendor taint letters, and the init-time taints of a
 * module that loads and calls mark_tech_preview() / mark_partner_supported().
 */
int tg_rhel_verdict(const struct tg_kernel *k, const struct tg_loader_facts *lf,
		    const struct tg_module *m, struct tg_verdict *v);

#endif
