/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Symbols of a module: what it imports (undefined .symtab entries, in symtab
 * order, which is the order the kernel resolves them), what it exports
 * (__ksymtab* sections, namespaces, CRCs) and the CRCs it expects of its
 * imports (__versions, or the 6.14+ extended tables).
 */
#include <errno.h>
#include <string.h>

#include "module_internal.h"

#define KSYMTAB_PREFIX "__ksymtab_"
#define KSTRTABNS_PREFIX "__kstrtabns_"
#define CRC_PREFIX "__crc_"
#define STARTS(s, lit) (!strncmp((s), (lit), sizeof(lit) - 1))
/* every prefix above begins with "__": most names are rejected on two bytes */
#define UNDERSCORED(s) ((s)[0] == '_' && (s)[1] == '_')

/* The symbol table with its string table; n = 0 when unusable. */
struct symtab {
	Elf_Data *data;
	size_t n;
	const char *str;	/* the string table: starts and ends with NUL */
	size_t strsize;
};

static int open_symtab(struct tg_elf *e, struct symtab *st)
{
	memset(st, 0, sizeof(*st));
	for (size_t i = 1; i < e->shnum; i++) {
		Elf_Scn *scn;
		GElf_Shdr sh = e->sh[i];
		size_t strsize;
		const unsigned char *str;

		if (sh.sh_type != SHT_SYMTAB || !(scn = elf_getscn(e->elf, i)))
			continue;
		if (!tg_in_bounds(e->len, sh.sh_offset, sh.sh_size))
			return 0;	/* already a problem */
		str = tg_elf_section(e, sh.sh_link, NULL, &strsize);
		if (!str || !strsize || str[0] != '\0' || str[strsize - 1] != '\0')
			return tg_elf_problem(e, "symbol string table is missing or not NUL-terminated");
		st->data = elf_getdata(scn, NULL);
		if (!st->data || !sh.sh_entsize) {
			tg_elf_problem(e, "symbol table unreadable: %s", elf_errmsg(-1));
			st->data = NULL;
			return 0;
		}
		st->n = sh.sh_size / sh.sh_entsize;
		if (st->n > e->lim->max_symbols)
			return tg_fail(e->err, -E2BIG, "%s: %zu symbols exceed the limit of %u",
				       e->label, st->n, e->lim->max_symbols);
		st->str = (const char *)str;
		st->strsize = strsize;
		return 0;
	}
	return 0;
}

/* As the kernel reads names: an offset into the string table, whatever its section type. */
static const char *sym_name(const struct symtab *st, const GElf_Sym *s)
{
	return s->st_name < st->strsize ? st->str + s->st_name : NULL;
}

static int add_import(struct tg_elf *e, size_t *cap, const char *name, bool weak, bool common)
{
	struct tg_module *m = e->m;
	struct tg_import *imp;

	if (grow_array(&m->imports, cap, m->n_imports, sizeof(*m->imports)) < 0)
		return -ENOMEM;
	imp = &m->imports[m->n_imports];
	imp->name = tg_strpool_dup(&tg_module_priv(m)->strings, name, strlen(name));
	if (!imp->name)
		return -ENOMEM;
	imp->weak = weak;
	imp->common = common;
	m->n_imports++;
	return 0;
}

static struct tg_export *find_export(struct tg_module *m, const char *name)
{
	for (size_t i = 0; i < m->n_exports; i++)
		if (!strcmp(m->exports[i].name, name))
			return &m->exports[i];
	return NULL;
}

/*
 * GPL-ness from the section holding __ksymtab_<sym>: linked modules have
 * __ksymtab / __ksymtab_gpl (and before 5.12 _gpl_future, _unused,
 * _unused_gpl); unlinked objects the "___ksymtab_gpl+sym" input sections.
 */
static bool ksymtab_section_gpl(const char *sec)
{
	if (!strcmp(sec, "__ksymtab_gpl") || !strcmp(sec, "__ksymtab_unused_gpl"))
		return true;
	return STARTS(sec, "___ksymtab_gpl+") || STARTS(sec, "___ksymtab_unused_gpl+");
}

static bool ksymtab_section(const char *sec)
{
	return STARTS(sec, "__ksymtab") && strcmp(sec, "__ksymtab_strings") != 0;
}

static int add_export(struct tg_elf *e, size_t *cap, const GElf_Sym *s, const char *name)
{
	struct tg_module *m = e->m;
	const char *sec = tg_elf_section_name(e, s->st_shndx);
	struct tg_export *x;

	if (!sec || !ksymtab_section(sec) || find_export(m, name))
		return 0;
	if (grow_array(&m->exports, cap, m->n_exports, sizeof(*m->exports)) < 0)
		return -ENOMEM;
	x = &m->exports[m->n_exports];
	memset(x, 0, sizeof(*x));
	x->name = tg_strpool_dup(&tg_module_priv(m)->strings, name, strlen(name));
	if (!x->name)
		return -ENOMEM;
	x->gpl_only = ksymtab_section_gpl(sec);
	m->n_exports++;
	return 0;
}

/* __kstrtabns_<sym> points at the namespace string in __ksymtab_strings. */
static int set_namespace(struct tg_elf *e, const GElf_Sym *s, const char *name)
{
	struct tg_export *x = find_export(e->m, name);
	size_t size;
	const unsigned char *p;

	if (!x || s->st_shndx == SHN_UNDEF || s->st_shndx >= e->shnum)
		return 0;
	p = tg_elf_section(e, s->st_shndx, NULL, &size);
	if (!p || s->st_value >= size)
		return 0;
	p += s->st_value;
	size -= s->st_value;
	if (!strnlen((const char *)p, size) || strnlen((const char *)p, size) == size)
		return 0;	/* "" = no namespace; unterminated: ignore */
	x->ns = tg_strpool_dup(&tg_module_priv(e->m)->strings, (const char *)p, strlen((const char *)p));
	return x->ns ? 0 : -ENOMEM;
}

/*
 * __crc_<sym>: since 5.19 a 4-byte value in __kcrctab*; before, an absolute
 * symbol whose value is the CRC.
 */
static void set_crc(struct tg_elf *e, const GElf_Sym *s, const char *name)
{
	struct tg_export *x = find_export(e->m, name);
	size_t size;
	const unsigned char *p;

	if (!x)
		return;
	if (s->st_shndx == SHN_ABS) {
		x->crc = (uint32_t)s->st_value;
		x->has_crc = true;
		return;
	}
	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= e->shnum)
		return;
	p = tg_elf_section(e, s->st_shndx, NULL, &size);
	if (!p || !tg_in_bounds(size, s->st_value, 4))
		return;
	x->crc = tg_elf_u32(e, p + s->st_value);
	x->has_crc = true;
}

/*
 * ppc64's loader renames undefined symbols before it resolves them
 * (dedotify(), arch/powerpc/kernel/module_64.c, from module_frob_arch_sections()):
 * ".TOC." becomes SHN_ABS "TOC.", which it defines itself (the module's TOC
 * base), and any other ".name" (an ELFv1 function entry) is resolved as
 * "name".  The import's name, or NULL when the loader supplies the symbol.
 */
static const char *ppc64_import_name(const struct tg_elf *e, const char *name)
{
	if (e->m->e_machine != EM_PPC64 || name[0] != '.')
		return name;
	return strcmp(name, ".TOC.") ? name + 1 : NULL;
}

/* Pass 1: imports and exported names; pass 2 (needs exports): namespaces and CRCs. */
static int scan_symbols(struct tg_elf *e, const struct symtab *st)
{
	size_t icap = 0, xcap = 0;
	int r = 0;

	for (size_t i = 1; i < st->n && r == 0; i++) {
		GElf_Sym s;
		const char *name;
		unsigned bind;

		if (!gelf_getsym(st->data, (int)i, &s) || !(name = sym_name(st, &s)) || !*name)
			continue;
		bind = GELF_ST_BIND(s.st_info);
		if (s.st_shndx == SHN_UNDEF && !(name = ppc64_import_name(e, name)))
			continue;
		if ((s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_COMMON) &&
		    (bind == STB_GLOBAL || bind == STB_WEAK))
			r = add_import(e, &icap, name, bind == STB_WEAK, s.st_shndx == SHN_COMMON);
		else if (UNDERSCORED(name) && STARTS(name, KSYMTAB_PREFIX) && s.st_shndx < e->shnum)
			r = add_export(e, &xcap, &s, name + sizeof(KSYMTAB_PREFIX) - 1);
	}
	for (size_t i = 1; i < st->n && r == 0; i++) {
		GElf_Sym s;
		const char *name;

		if (!gelf_getsym(st->data, (int)i, &s) || !(name = sym_name(st, &s)) ||
		    !UNDERSCORED(name))
			continue;
		if (STARTS(name, KSTRTABNS_PREFIX))
			r = set_namespace(e, &s, name + sizeof(KSTRTABNS_PREFIX) - 1);
		else if (STARTS(name, CRC_PREFIX))
			set_crc(e, &s, name + sizeof(CRC_PREFIX) - 1);
	}
	return r;
}

int tg_symbols_read(struct tg_elf *e)
{
	struct symtab st;
	int r;

	if ((r = open_symtab(e, &st)) < 0 || !st.data)
		return r;
	if ((r = scan_symbols(e, &st)) < 0)
		return r;
	for (size_t i = 1; i < e->shnum; i++) {
		const char *n = tg_elf_section_name(e, i);

		if (n && (STARTS(n, "__kcrctab") || STARTS(n, "___kcrctab")))
			e->m->exports_have_crcs = true;
	}
	return 0;
}

/* ------------------------------------------------------------- versions */

static int add_version(struct tg_elf *e, size_t *cap, const char *name, size_t maxlen, uint32_t crc)
{
	struct tg_module *m = e->m;
	struct tg_version *v;

	if (m->n_versions >= e->lim->max_symbols)
		return tg_fail(e->err, -E2BIG, "%s: more than %u symbol versions", e->label,
			       e->lim->max_symbols);
	if (grow_array(&m->versions, cap, m->n_versions, sizeof(*m->versions)) < 0)
		return -ENOMEM;
	v = &m->versions[m->n_versions];
	v->name = tg_strpool_dup(&tg_module_priv(m)->strings, name, strnlen(name, maxlen));
	if (!v->name)
		return -ENOMEM;
	v->crc = crc;
	m->n_versions++;
	return 0;
}

/* struct modversion_info { unsigned long crc; char name[64 - sizeof(long)]; } */
static int read_basic(struct tg_elf *e, size_t idx)
{
	size_t size = 0, cap = 0, word = e->is64 ? 8 : 4, rec = 64;
	const unsigned char *p = tg_elf_section(e, idx, NULL, &size);
	int r;

	if (!p)
		return 0;
	e->m->versions_kind = TG_VERS_BASIC;
	for (size_t off = 0; off + rec <= size; off += rec) {
		/* the kernel compares the whole unsigned long: upper bits must be 0 */
		uint64_t crc = e->is64 ? tg_elf_u64(e, p + off) : tg_elf_u32(e, p + off);

		if (crc > UINT32_MAX)
			crc = ~(uint32_t)crc;	/* can never equal a 32-bit CRC's stored value */
		if ((r = add_version(e, &cap, (const char *)p + off + word, rec - word, (uint32_t)crc)) < 0)
			return r;
	}
	return 0;
}

/* 6.14+: __version_ext_crcs (u32[]) + __version_ext_names (NUL-separated). */
static int read_extended(struct tg_elf *e, size_t ci, size_t ni)
{
	size_t csize = 0, nsize = 0, cap = 0, pos = 0;
	const unsigned char *c = tg_elf_section(e, ci, NULL, &csize);
	const char *n = (const char *)tg_elf_section(e, ni, NULL, &nsize);
	int r;

	if (!c || !n)
		return 0;
	e->m->versions_kind = TG_VERS_EXTENDED;
	for (size_t off = 0; off + 4 <= csize; off += 4) {
		size_t len;

		if (pos >= nsize)
			return tg_elf_problem(e, "extended symbol versions: fewer names than CRCs");
		len = strnlen(n + pos, nsize - pos);
		if ((r = add_version(e, &cap, n + pos, len, tg_elf_u32(e, c + off))) < 0)
			return r;
		pos += len + 1;
	}
	return 0;
}

/*
 * Every import looks up its CRC: a linear search would make big modules
 * (amdgpu: ~4,000 imports) quadratic.  The hash keeps the first record of
 * each name, the one the kernel's check_version() loop stops at.
 */
int tg_module_index_versions(struct tg_module *m)
{
	struct tg_module_priv *mp = tg_module_priv(m);
	size_t nslots = 16;

	if (m->n_versions == 0)
		return 0;
	while (nslots < m->n_versions * 2)
		nslots *= 2;
	mp->versions_slots = calloc(nslots, sizeof(*mp->versions_slots));
	if (!mp->versions_slots)
		return -ENOMEM;
	mp->versions_mask = nslots - 1;
	for (size_t v = 0; v < m->n_versions; v++) {
		const char *name = m->versions[v].name;
		size_t i = tg_name_hash(name, strlen(name)) & mp->versions_mask;

		while (mp->versions_slots[i] &&
		       strcmp(m->versions[mp->versions_slots[i] - 1].name, name))
			i = (i + 1) & mp->versions_mask;
		if (!mp->versions_slots[i])
			mp->versions_slots[i] = (uint32_t)v + 1;
	}
	return 0;
}

static int read_versions(struct tg_elf *e)
{
	/* find_sec(): a __versions without SHF_ALLOC (modprobe --force-modversion) is absent */
	size_t basic = tg_elf_find(e, "__versions", true);
	size_t ci = tg_elf_find(e, "__version_ext_crcs", true);
	size_t ni = tg_elf_find(e, "__version_ext_names", true);

	if (!ci != !ni)
		return tg_elf_problem(e, "extended symbol version CRC and name presence does not match");
	if (ci)		/* check_version() then uses only the extended table */
		return read_extended(e, ci, ni);
	return basic ? read_basic(e, basic) : 0;
}

int tg_versions_read(struct tg_elf *e)
{
	int r = read_versions(e);

	return r < 0 ? r : tg_module_index_versions(e->m);
}
