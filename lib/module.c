/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening a kernel module: input (path, fd, memory), decompression, ELF
 * structure, and the name the kernel compares.  .modinfo, symbols and the
 * signature have their own files.
 *
 * The decompressed image is read once and released before returning: a
 * tg_module holds only the facts, so an audit of thousands of modules keeps
 * little memory.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "confine.h"
#include "decompress.h"
#include "keyring.h"
#include "module_internal.h"

/* offsetof(struct module, name): after enum state + list_head. */
#define MODNAME_OFF_64 24
#define MODNAME_OFF_32 12
/* MODULE_NAME_LEN = 64 - sizeof(unsigned long) */
#define MODNAME_LEN_64 56
#define MODNAME_LEN_32 60

/* ---------------------------------------------------------- identification */

/* The architecture name uname -m and kernel packages use ("unknown" for others). */
const char *tg_arch_name(unsigned machine, bool is64, bool be)
{
	switch (machine) {
	case EM_X86_64: return "x86_64";
	case EM_386: return "i386";
	case EM_AARCH64: return be ? "aarch64_be" : "aarch64";
	case EM_ARM: return "arm";
	case EM_PPC64: return be ? "ppc64" : "ppc64le";
	case EM_PPC: return "ppc";
	case EM_S390: return is64 ? "s390x" : "s390";
	case EM_RISCV: return is64 ? "riscv64" : "riscv32";
	case EM_MIPS: return is64 ? "mips64" : "mips";
	case EM_LOONGARCH: return "loongarch64";
	case EM_SPARCV9: return "sparc64";
	}
	return "unknown";
}

/* ------------------------------------------------------------ ELF structure */

static int read_header(struct tg_elf *e, GElf_Ehdr *eh)
{
	struct tg_module *m = e->m;
	size_t shentsize;

	if (e->len < EI_NIDENT || memcmp(e->img, ELFMAG, SELFMAG))
		return tg_fail(e->err, -ENOEXEC, "%s: not an ELF file (no ELF magic)", e->label);
	if (e->img[EI_CLASS] != ELFCLASS32 && e->img[EI_CLASS] != ELFCLASS64)
		return tg_fail(e->err, -ENOEXEC, "%s: unknown ELF class %u", e->label, e->img[EI_CLASS]);
	if (e->img[EI_DATA] != ELFDATA2LSB && e->img[EI_DATA] != ELFDATA2MSB)
		return tg_fail(e->err, -ENOEXEC, "%s: unknown ELF byte order %u", e->label, e->img[EI_DATA]);
	e->is64 = e->img[EI_CLASS] == ELFCLASS64;
	e->be = e->img[EI_DATA] == ELFDATA2MSB;
	if (!gelf_getehdr(e->elf, eh))
		return tg_fail(e->err, -ENOEXEC, "%s: truncated ELF header: %s", e->label, elf_errmsg(-1));
	m->elf_class = e->is64 ? 64 : 32;
	m->big_endian = e->be;
	m->e_machine = eh->e_machine;
	m->arch = tg_arch_name(eh->e_machine, e->is64, e->be);
	if (elf_getshdrnum(e->elf, &e->shnum) < 0 || elf_getshdrstrndx(e->elf, &e->shstrndx) < 0)
		return tg_fail(e->err, -ENOEXEC, "%s: cannot read the ELF section headers: %s",
			       e->label, elf_errmsg(-1));
	if (e->shnum > e->lim->max_sections)
		return tg_fail(e->err, -E2BIG, "%s: %zu ELF sections exceed the limit of %u",
			       e->label, e->shnum, e->lim->max_sections);
	/* elfutils maps the table lazily: prove now that every header is readable */
	e->sh = calloc(e->shnum ? e->shnum : 1, sizeof(*e->sh));
	e->names = calloc(e->shnum ? e->shnum : 1, sizeof(*e->names));
	if (!e->sh || !e->names)
		return tg_fail(e->err, -ENOMEM, "%s: out of memory", e->label);
	for (size_t i = 0; i < e->shnum; i++) {
		Elf_Scn *scn = elf_getscn(e->elf, i);

		if (!scn || !gelf_getshdr(scn, &e->sh[i]))
			return tg_fail(e->err, -ENOEXEC, "%s: ELF section header %zu unreadable: %s",
				       e->label, i, elf_errmsg(-1));
	}
	tg_elf_read_names(e);
	if (eh->e_type != ET_REL)
		tg_elf_problem(e, "not a relocatable object (ELF type %u), so not a kernel module",
			       eh->e_type);
	shentsize = e->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr);
	if (eh->e_shentsize != shentsize)
		tg_elf_problem(e, "unexpected ELF section header size %u", eh->e_shentsize);
	return 0;
}

/*
 * The string table of the symbol table the loader uses (the last SHT_SYMTAB:
 * elf_validity_cache_index_sym()) exists but is not typed SHT_STRTAB.  A
 * link out of range is the symbol reader's problem, not this one.
 */
static bool symtab_link_untyped(const struct tg_elf *e)
{
	size_t sym = 0;

	for (size_t i = 1; i < e->shnum; i++)
		if (e->sh[i].sh_type == SHT_SYMTAB)
			sym = i;
	if (!sym || e->sh[sym].sh_link == SHN_UNDEF || e->sh[sym].sh_link >= e->shnum)
		return false;
	return e->sh[e->sh[sym].sh_link].sh_type != SHT_STRTAB;
}

/* Section checks of the kernel's elf_validity_cache_copy(), in its order. */
static int check_sections(struct tg_elf *e)
{
	GElf_Shdr sh;
	size_t n_symtab = 0;

	for (size_t i = 1; i < e->shnum; i++) {
		sh = e->sh[i];
		if (sh.sh_type != SHT_NOBITS && !tg_in_bounds(e->len, sh.sh_offset, sh.sh_size))
			tg_elf_problem(e, "section %zu (%s) lies outside the file", i,
				       tg_elf_section_name(e, i) ?: "?");
		n_symtab += sh.sh_type == SHT_SYMTAB;
	}
	{
		size_t strsize;
		const unsigned char *str = tg_elf_section(e, e->shstrndx, NULL, &strsize);

		if (!str || !strsize || str[strsize - 1] != '\0')
			tg_elf_problem(e, "section name table is not NUL-terminated");
	}
	if (n_symtab == 0)
		tg_elf_problem(e, "module has no symbols (stripped?)");
	/* 6.12 reads string tables of any type, 7.2 and later want SHT_STRTAB: the prediction decides */
	e->m->shstrtab_untyped = e->shstrndx < e->shnum && e->sh[e->shstrndx].sh_type != SHT_STRTAB;
	e->m->strtab_untyped = symtab_link_untyped(e);
	/* more than one of these: refused since 6.4 only, so the prediction decides */
	e->m->n_symtab_sections = n_symtab;
	e->m->n_modinfo_sections = tg_elf_count(e, ".modinfo");
	e->m->n_this_module_sections = tg_elf_count(e, ".gnu.linkonce.this_module");
	return 0;
}

/* struct module's name in .gnu.linkonce.this_module: what the kernel compares. */
static int read_this_module(struct tg_elf *e)
{
	struct tg_module *m = e->m;
	size_t idx, size = 0, off = e->is64 ? MODNAME_OFF_64 : MODNAME_OFF_32;
	size_t max = e->is64 ? MODNAME_LEN_64 : MODNAME_LEN_32;
	const unsigned char *p;
	GElf_Shdr sh;

	if (!m->n_this_module_sections)
		return tg_elf_problem(e, "no .gnu.linkonce.this_module section: not a kernel module");
	/* find_sec(): the first one with SHF_ALLOC; else the first, for the name */
	idx = tg_elf_find(e, ".gnu.linkonce.this_module", true);
	if (!idx)
		idx = tg_elf_find(e, ".gnu.linkonce.this_module", false);
	p = tg_elf_section(e, idx, &sh, &size);
	if (!p || !size)
		return tg_elf_problem(e, ".gnu.linkonce.this_module has no contents");
	if (!(sh.sh_flags & SHF_ALLOC))
		tg_elf_problem(e, ".gnu.linkonce.this_module is not loadable (no SHF_ALLOC)");
	m->this_module_size = size;
	if (size < off + 1)
		return tg_elf_problem(e, ".gnu.linkonce.this_module is too small to hold a name");
	if (size - off < max)
		max = size - off;
	m->name = strndup((const char *)p + off, strnlen((const char *)p + off, max));
	if (!m->name)
		return -ENOMEM;
	if (!m->name[0])
		tg_elf_problem(e, "struct module has an empty name");
	return 0;
}

static int read_elf(struct tg_elf *e)
{
	GElf_Ehdr eh;
	int r;

	e->elf = elf_memory((char *)e->img, e->len);
	if (!e->elf)
		return tg_fail(e->err, -ENOEXEC, "%s: cannot read as ELF: %s", e->label, elf_errmsg(-1));
	if ((r = read_header(e, &eh)) < 0)
		return r;
	if ((r = check_sections(e)) < 0 || (r = read_this_module(e)) < 0 ||
	    (r = tg_modinfo_read(e)) < 0 || (r = tg_symbols_read(e)) < 0 ||
	    (r = tg_versions_read(e)) < 0)
		return r == -ENOMEM ? tg_fail(e->err, r, "%s: out of memory", e->label) : r;
	return 0;
}

/* ------------------------------------------------------------------- open */

/* The caller's limits, or the defaults copied into @def. */
static const struct tg_limits *limits_or_default(const struct tg_limits *lim, struct tg_limits *def)
{
	if (lim)
		return lim;
	tg_limits_default(def);
	return def;
}

/* Takes @img (decompressed) and releases it for the next module. */
static int parse_image(struct tg_image *img, struct tg_module *m, const struct tg_limits *lim,
		       struct tg_error *err)
{
	struct tg_elf e = { .label = m->label, .lim = lim, .m = m, .err = err };
	size_t elf_len = img->len;
	int r;

	/* the signature covers the decompressed image and sits after the ELF */
	tg_signature_read(img->p, img->len, &m->sig, &elf_len, &tg_module_priv(m)->sigdata);
	e.img = img->p;
	e.len = elf_len;
	r = read_elf(&e);
	if (r == 0) {
		m->problems = e.problems.v;
		m->n_problems = e.problems.n;
		e.problems = (struct strv){ 0 };
	}
	strv_free(&e.problems);
	if (e.elf)
		elf_end(e.elf);
	free(e.sh);
	free(e.names);
	tg_image_release(img);
	return r;
}

#ifdef TG_TEST_HOOKS
/*
 * Test builds only (tests/unit/test_confine.c): a module whose decompressed
 * bytes carry "TG_TEST_HOOK=<what>" makes the reader do what a subverted
 * parser would, to prove the confinement stops it.
 */
static void test_hook(const struct tg_image *img)
{
	static const char mark[] = "TG_TEST_HOOK=";
	const char *h = memmem(img->p, img->len, mark, sizeof(mark) - 1);
	char *argv[] = { (char *)"/bin/true", NULL };

	if (!h)
		return;
	h += sizeof(mark) - 1;
	if (!strncmp(h, "openat", 6))
		close(openat(AT_FDCWD, "/etc/passwd", O_RDONLY));
	else if (!strncmp(h, "execve", 6))
		execve(argv[0], argv, argv + 1);
	else if (!strncmp(h, "abort", 5))
		abort();
	else if (!strncmp(h, "hang", 4))
		for (volatile unsigned long spin = 0;; spin++)
			;
	else if (!strncmp(h, "eatmem", 6))
		for (int i = 0; i < 32; i++) {	/* 2 GiB, unless the address space limit stops it */
			char *p = malloc(64u << 20);

			if (!p)
				abort();
			memset(p, 1, 64u << 20);
		}
}
#else
#define test_hook(img) ((void)0)
#endif

/* What a confined worker runs (confine.c); tg_module_open_mem() in this process when off. */
int tg_module_parse_mem(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, struct tg_module **out,
			struct tg_error *err)
{
	struct tg_limits def;
	struct tg_module *m;
	struct tg_image img;
	int r;

	*out = NULL;
	lim = limits_or_default(lim, &def);
	if (!label)
		label = "<memory>";
	if (elf_version(EV_CURRENT) == EV_NONE)
		return tg_fail(err, -ENOTSUP, "%s: libelf: %s", label, elf_errmsg(-1));
	m = calloc(1, sizeof(struct tg_module_priv));
	if (!m)
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	m->label = strdup(label);
	m->file_modname = tg_module_name_from_file(label);
	m->file_size = len;
	m->compression = tg_compression_detect(data, len);
	if (!m->label) {
		r = tg_fail(err, -ENOMEM, "%s: out of memory", label);
		goto fail;
	}
	r = tg_decompress_image(m->compression, data, len, lim->max_module_size, &img, label, err);
	if (r < 0)
		goto fail;
	m->image_size = img.len;
	test_hook(&img);
	r = parse_image(&img, m, lim, err);
	if (r < 0)
		goto fail;
	*out = m;
	return 0;
fail:
	tg_module_free(m);
	return r;
}

void tg_module_free(struct tg_module *m)
{
	if (!m)
		return;
	free(m->label);
	free(m->file_modname);
	free(m->name);
	tg_modinfo_free(m->modinfo, m->n_modinfo);
	free(m->imports);
	free(m->versions);
	free(tg_module_priv(m)->versions_slots);
	free(m->exports);
	tg_strpool_free(tg_module_priv(m)->strings);	/* every symbol name and namespace */
	tg_signature_free(&m->sig);
	tg_sigdata_free(tg_module_priv(m)->sigdata);
	strv_free_array(m->problems, m->n_problems);
	free(m);
}

/* ------------------------------------------------------------- accessors */

const char *tg_module_get(const struct tg_module *m, const char *key)
{
	for (size_t i = 0; m && i < m->n_modinfo; i++)
		if (!strcmp(m->modinfo[i].key, key))
			return m->modinfo[i].value;
	return NULL;
}

bool tg_module_has(const struct tg_module *m, const char *key)
{
	return tg_module_get(m, key) != NULL;
}

bool tg_module_version_crc(const struct tg_module *m, const char *sym, uint32_t *crc)
{
	const struct tg_module_priv *mp = m ? tg_module_priv(m) : NULL;
	size_t i;

	if (!mp || !mp->versions_slots)
		return false;
	/* the table holds the first record of each name, as the kernel's linear search finds it */
	for (i = tg_name_hash(sym, strlen(sym)) & mp->versions_mask; mp->versions_slots[i];
	     i = (i + 1) & mp->versions_mask) {
		const struct tg_version *v = &m->versions[mp->versions_slots[i] - 1];

		if (!strcmp(v->name, sym)) {
			*crc = v->crc;
			return true;
		}
	}
	return false;
}
