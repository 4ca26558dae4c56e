/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared state of the module reader (module.c, module_modinfo.c,
 * module_symbols.c, signature.c).  Not installed.
 */
#ifndef TG_MODULE_INTERNAL_H
#define TG_MODULE_INTERNAL_H

#include <gelf.h>
#include <sys/types.h>

#include "internal.h"

/*
 * A module as the library allocates it: the public struct first, then what
 * only the reader uses.  Callers see struct tg_module alone.
 */
struct tg_module_priv {
	struct tg_module pub;
	uint32_t *versions_slots;	/* hash of version names (index + 1, 0 = empty) */
	size_t versions_mask;		/* slots - 1 */
	struct tg_strpool *strings;	/* the import, export and version names */
	struct tg_sigdata *sigdata;	/* the PKCS#7 and digests of the signed bytes, or NULL */
};

static inline struct tg_module_priv *tg_module_priv(const struct tg_module *m)
{
	return (struct tg_module_priv *)m;	/* pub is the first member */
}

/* One parse of one ELF image; lives only while the module is being read. */
struct tg_elf {
	Elf *elf;
	const unsigned char *img;	/* the ELF part of the image (signature excluded) */
	size_t len;
	bool is64, be;
	size_t shnum, shstrndx;
	/*
	 * Every section header, read once (libelf would convert it on each
	 * lookup), and every section name taken straight from the name table as
	 * the kernel does (libelf refuses a table whose type is not SHT_STRTAB;
	 * the kernel never looks at the type).  names[i] is NULL when out of bounds.
	 */
	GElf_Shdr *sh;
	const char **names;
	const char *label;
	const struct tg_limits *lim;
	struct tg_module *m;		/* being filled */
	struct strv problems;	/* what the kernel's elf_validity checks reject */
	struct tg_error *err;
};

/*
 * Raw bytes of section @idx when its contents lie inside the image, else NULL
 * (SHT_NOBITS, out of bounds).  @sh and @size may be NULL.
 */
const unsigned char *tg_elf_section(const struct tg_elf *e, size_t idx, GElf_Shdr *sh,
				    size_t *size);
const char *tg_elf_section_name(const struct tg_elf *e, size_t idx);
/*
 * First section called @name; with @need_alloc only SHF_ALLOC ones, as the
 * kernel's find_sec() does.  0 when none (section 0 is never a match).
 */
size_t tg_elf_find(const struct tg_elf *e, const char *name, bool need_alloc);
size_t tg_elf_count(const struct tg_elf *e, const char *name);
uint32_t tg_elf_u32(const struct tg_elf *e, const unsigned char *p);
uint64_t tg_elf_u64(const struct tg_elf *e, const unsigned char *p);
int tg_elf_problem(struct tg_elf *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* module_modinfo.c */
int tg_modinfo_read(struct tg_elf *e);
void tg_modinfo_free(struct tg_modinfo *mi, size_t n);

/* module_symbols.c: imports, exports, __versions */
int tg_symbols_read(struct tg_elf *e);
int tg_versions_read(struct tg_elf *e);
/* The name index of m->versions (tg_module_version_crc); 0 or -ENOMEM.  Also module_facts.c. */
int tg_module_index_versions(struct tg_module *m);

/* signature.c: parse the appended signature; *elf_len = bytes before it. */
struct tg_sigdata;
void tg_signature_read(const unsigned char *img, size_t len, struct tg_signature *sig,
		       size_t *elf_len, struct tg_sigdata **data);
void tg_signature_free(struct tg_signature *sig);

#endif
