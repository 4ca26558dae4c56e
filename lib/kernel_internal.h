/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target kernel's facts, shared by the kernel files of the library (not
 * installed):
 *
 *   kernel.c          tg_kernel_load(): gathering the facts, in order
 *   kernel_release.c  release strings: version numbers, from paths and vermagic
 *   kernel_places.c   where distributions keep a release's files (symvers, .config)
 *   kernel_config.c   the kernel .config parsed: its switches, VERMAGIC_STRING, machine
 *   kernel_intree.c   facts learned from the kernel's own modules (vermagic, keys)
 *   root.c            paths inside a root directory
 */
#ifndef TG_KERNEL_INTERNAL_H
#define TG_KERNEL_INTERNAL_H

#include "internal.h"

/* kernel_release.c */
#define TG_RELEASE_MAX 256
/* Copy @n bytes of @s into @buf as a string; -ENAMETOOLONG if it does not fit. */
int tg_copy_word(const char *s, size_t n, char *buf, size_t len);
/* A release is used as one path component: it must be one. */
bool tg_release_is_sane(const char *r);
/* @n bytes at @s: a sane release with a parseable version? */
bool tg_release_word_ok(const char *s, size_t n);

/* kernel_places.c: PRE KVER POST, e.g. "/boot/config-" KVER "" */
struct tg_kplace {
	const char *pre, *post;
};
extern const struct tg_kplace tg_symvers_places[], tg_config_places[], tg_image_places[],
	tg_sysmap_places[];
extern const size_t tg_n_symvers_places, tg_n_config_places, tg_n_image_places,
	tg_n_sysmap_places;
/* First readable file of @pl[] for @release under @root; malloc'ed or NULL. */
char *tg_kplace_find_first(const char *root, const struct tg_kplace *pl, size_t n,
			   const char *release);
/* First that exists, readable or not (a 0600 image must say "Permission denied"). */
char *tg_kplace_find_existing(const char *root, const struct tg_kplace *pl, size_t n,
			      const char *release);
/* Host path of PRE KVER POST inside @root ("" = host); NULL with errno (tg_root_resolve). */
char *tg_root_kpath(const char *root, const struct tg_kplace *pl, const char *release);
/* The same for a place that may be absent: 0 and *out NULL + *note when unresolvable. */
int tg_root_kpath_try(const char *root, const struct tg_kplace *pl, const char *release,
		      char **out, char **note);

bool tg_is_readable_file(const char *path);

/* kernel_config.c: a .config parsed (knows nothing of struct tg_kernel) */
enum cfg_key {
	CFG_MODVERSIONS,
	CFG_MODULE_SIG,
	CFG_MODULE_SIG_FORCE,
	CFG_MODULE_FORCE_LOAD,
	CFG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS,
	CFG_LIVEPATCH,
	CFG_RETPOLINE,
	CFG_MITIGATION_RETPOLINE,
	/* vermagic.h */
	CFG_SMP,
	CFG_PREEMPT_BUILD,
	CFG_PREEMPT,
	CFG_PREEMPT_RT,
	CFG_MODULE_UNLOAD,
	CFG_RANDSTRUCT,
	CFG_GCC_PLUGIN_RANDSTRUCT,
	/* MODULE_ARCH_VERMAGIC */
	CFG_X86_64,
	CFG_ARM64,
	CFG_S390,
	CFG_PPC,
	CFG_MPROFILE_KERNEL,
	CFG_RELOCATABLE,
	CFG_RISCV,
	/* elf_check_arch() and the byte order the loader reads the ELF header in */
	CFG_PPC64,
	CFG_CPU_BIG_ENDIAN,
	CFG_CPU_LITTLE_ENDIAN,
	/* in-kernel module decompression (5.17+) */
	CFG_MODULE_DECOMPRESS,
	CFG_MODULE_COMPRESS_GZIP,
	CFG_MODULE_COMPRESS_XZ,
	CFG_MODULE_COMPRESS_ZSTD,
	/* vendors' loader changes and keyrings (loader_facts.c) */
	CFG_INTEGRITY_PLATFORM_KEYRING,
	CFG_RHEL_DIFFERENCES,
	CFG_SUSE_KERNEL_SUPPORTED,
	CFG__N
};

struct tg_kconfig {
	bool on[CFG__N];	/* =y or =m */
};
void tg_config_parse(const char *buf, size_t len, struct tg_kconfig *c);
int tg_config_load(const char *path, uint64_t cap, struct tg_kconfig *c, struct tg_error *err);
/* VERMAGIC_STRING of @release built with @c; NULL when @c does not determine it (or ENOMEM). */
char *tg_config_vermagic(const struct tg_kconfig *c, const char *release);
/* The ELF machine modules for @c must have; 0 when unknown (@c NULL or not told apart). */
unsigned tg_config_machine(const struct tg_kconfig *c);
unsigned tg_config_elf_data(const struct tg_kconfig *c);

/* kernel_intree.c: vermagic, sizeof(struct module), signing keys from in-tree modules */
int tg_kernel_learn_from_intree(struct tg_kernel *k, const char *d1, const char *d2,
				const struct tg_limits *lim);

/* root.c: "" for the host, else @root without trailing slashes; NULL on ENOMEM. */
char *tg_root_prefix(const char *root);

#endif
