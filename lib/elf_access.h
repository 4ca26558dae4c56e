/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Access to one parsed ELF image: section headers and names read once,
 * bounds-checked section contents, integers in the image's byte order, and
 * the list of structural problems found.  Used by the module reader
 * (module.c, module_modinfo.c, module_symbols.c).  Not installed.
 */
#ifndef TG_ELF_ACCESS_H
#define TG_ELF_ACCESS_H

#include <gelf.h>

#include "internal.h"

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
	struct tg_module *m;		/* being filled (the module reader's, not elf_access.c's) */
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

/* Take every section's name from the name table (sh[] read); see struct tg_elf. */
void tg_elf_read_names(struct tg_elf *e);

#endif
