/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ELF access shared by the module reader's files: what libelf would convert
 * on every lookup is read once (section headers), and section names are
 * taken straight from the name table as the kernel does.
 */
#include <stdarg.h>
#include <string.h>

#include "elf_access.h"

const unsigned char *tg_elf_section(const struct tg_elf *e, size_t idx, GElf_Shdr *sh,
				    size_t *size)
{
	if (idx >= e->shnum)
		return NULL;
	if (sh)
		*sh = e->sh[idx];
	if (e->sh[idx].sh_type == SHT_NOBITS || !tg_in_bounds(e->len, e->sh[idx].sh_offset,
							       e->sh[idx].sh_size))
		return NULL;
	if (size)
		*size = e->sh[idx].sh_size;
	return e->img + e->sh[idx].sh_offset;
}

const char *tg_elf_section_name(const struct tg_elf *e, size_t idx)
{
	return idx < e->shnum ? e->names[idx] : NULL;
}

size_t tg_elf_find(const struct tg_elf *e, const char *name, bool need_alloc)
{
	for (size_t i = 1; i < e->shnum; i++) {
		if (need_alloc && !(e->sh[i].sh_flags & SHF_ALLOC))
			continue;
		if (e->names[i] && !strcmp(e->names[i], name))
			return i;
	}
	return 0;
}

size_t tg_elf_count(const struct tg_elf *e, const char *name)
{
	size_t n = 0;

	for (size_t i = 1; i < e->shnum; i++) {
		const char *s = tg_elf_section_name(e, i);

		n += s && !strcmp(s, name);
	}
	return n;
}

uint32_t tg_elf_u32(const struct tg_elf *e, const unsigned char *p)
{
	if (e->be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

uint64_t tg_elf_u64(const struct tg_elf *e, const unsigned char *p)
{
	uint64_t hi = tg_elf_u32(e, e->be ? p : p + 4), lo = tg_elf_u32(e, e->be ? p + 4 : p);

	return hi << 32 | lo;
}

int tg_elf_problem(struct tg_elf *e, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strv_vpushf(&e->problems, fmt, ap);
	va_end(ap);
	return r;
}

/* Names from the section name table when it is in bounds and ends with a NUL. */
void tg_elf_read_names(struct tg_elf *e)
{
	size_t size = 0;
	const char *str = (const char *)tg_elf_section(e, e->shstrndx, NULL, &size);

	if (!str || !size || str[size - 1] != '\0')
		return;		/* module.c's check_sections() reports it; no section has a name */
	for (size_t i = 0; i < e->shnum; i++)
		e->names[i] = e->sh[i].sh_name < size ? str + e->sh[i].sh_name : NULL;
}
