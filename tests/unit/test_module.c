/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The module reader on synthetic modules built here with libelf: every ELF
 * class and byte order the reader claims (x86_64, s390x big-endian, i386,
 * ppc64le), .modinfo quirks, imports, exports, __versions, compression caps,
 * signature trailers and the structural problems the kernel rejects.
 * (Real kbuild modules are covered by tests/modules and tests/kernel.)
 */
#include <errno.h>
#include <gelf.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include "taintguard.h"

/* ------------------------------------------------------ building modules */

struct spec {
	int cls;		/* ELFCLASS32 / ELFCLASS64 */
	int data;		/* ELFDATA2LSB / ELFDATA2MSB */
	unsigned machine;
	bool no_symtab;
	bool versions_noalloc;
	bool ext_versions;	/* add __version_ext_crcs + names */
	bool ext_names_missing;	/* only the CRC table */
	bool two_modinfo;
	bool dup_version;	/* a third __versions record: ktime_get again, another CRC */
	bool strtabs_progbits;	/* .strtab and .shstrtab typed SHT_PROGBITS */
};

struct sec {
	const char *name;
	unsigned type;
	uint64_t flags;
	const void *buf;
	size_t size;
	Elf_Type dtype;
	unsigned link;
	size_t entsize;
};

static void put32(unsigned char *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v, bool be)
{
	for (int i = 0; i < 8; i++)
		p[be ? 7 - i : i] = (unsigned char)(v >> (8 * i));
}

static const char modinfo[] =
	"license=GPL\0for files in the rest of the package\0\0\0"
	"name=synth\0vermagic=6.1.0-57-amd64 SMP preempt mod_unload modversions \0"
	"import_ns=MYNS\0depends=";

/* Writes the module to a memfd with libelf; returns a malloc'ed image. */
static unsigned char *build(const struct spec *sp, size_t *len)
{
	bool be = sp->data == ELFDATA2MSB, is64 = sp->cls == ELFCLASS64;
	size_t word = is64 ? 8 : 4, tm_size = is64 ? 896 : 576, name_off = is64 ? 24 : 12;
	unsigned char thismod[896] = { 0 }, versions[192] = { 0 }, crctab[4], ksymtab[12] = { 0 };
	unsigned char ext_crcs[8];
	static const char ext_names[] = "module_layout\0ktime_get";
	static const char strtab[] = "\0ktime_get\0weak_fn\0__ksymtab_my_export\0__crc_my_export\0"
				     "__kstrtabns_my_export\0common_var";
	static const char kstrings[] = "my_export\0MYNS";
	enum { S_MODINFO = 1, S_THIS, S_VERS, S_KSYMTAB, S_KCRC, S_KSTR, S_STRTAB, S_SYMTAB };
	struct sec secs[16];
	size_t nsec = 0, shstr_len = 1;
	char shstr[512] = "";
	Elf64_Sym sym64[7];
	Elf32_Sym sym32[7];
	/* name offsets in strtab */
	const unsigned n_ktime = 1, n_weak = 11, n_ksym = 19, n_crc = 39, n_ns = 55, n_common = 77;
	int fd;
	Elf *e;
	GElf_Ehdr eh;
	unsigned char *img;
	off_t end;

	strcpy((char *)thismod + name_off, "synth");
	put64(versions, 0x9060323f, be);	/* 64-bit: 8-byte crc + 56-byte name */
	if (!is64)
		memset(versions, 0, 8), put32(versions, 0x9060323f, be);
	strcpy((char *)versions + word, "module_layout");
	if (is64)
		put64(versions + 64, 0xb43f9365, be);
	else
		put32(versions + 64, 0xb43f9365, be);
	strcpy((char *)versions + 64 + word, "ktime_get");
	if (sp->dup_version) {
		if (is64)
			put64(versions + 128, 0xdeadbeef, be);
		else
			put32(versions + 128, 0xdeadbeef, be);
		strcpy((char *)versions + 128 + word, "ktime_get");
	}
	put32(crctab, 0x12345678, be);
	put32(ext_crcs, 0x11111111, be);
	put32(ext_crcs + 4, 0x22222222, be);

	memset(sym64, 0, sizeof(sym64));
	memset(sym32, 0, sizeof(sym32));
	{
		/* name, info, shndx, value */
		const struct { unsigned name, bind, shndx, value; } s[7] = {
			{ 0, 0, 0, 0 },
			{ n_ktime, STB_GLOBAL, SHN_UNDEF, 0 },
			{ n_weak, STB_WEAK, SHN_UNDEF, 0 },
			{ n_ksym, STB_LOCAL, S_KSYMTAB, 0 },
			{ n_crc, STB_GLOBAL, S_KCRC, 0 },
			{ n_ns, STB_LOCAL, S_KSTR, 10 },
			{ n_common, STB_GLOBAL, SHN_COMMON, 4 },
		};
		for (int i = 0; i < 7; i++) {
			sym64[i].st_name = s[i].name;
			sym64[i].st_info = ELF64_ST_INFO(s[i].bind, STT_NOTYPE);
			sym64[i].st_shndx = (uint16_t)s[i].shndx;
			sym64[i].st_value = s[i].value;
			sym32[i].st_name = s[i].name;
			sym32[i].st_info = ELF32_ST_INFO(s[i].bind, STT_NOTYPE);
			sym32[i].st_shndx = (uint16_t)s[i].shndx;
			sym32[i].st_value = s[i].value;
		}
	}
	secs[nsec++] = (struct sec){ ".modinfo", SHT_PROGBITS, SHF_ALLOC, modinfo, sizeof(modinfo), ELF_T_BYTE, 0, 0 };
	secs[nsec++] = (struct sec){ ".gnu.linkonce.this_module", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
				     thismod, tm_size, ELF_T_BYTE, 0, 0 };
	secs[nsec++] = (struct sec){ "__versions", SHT_PROGBITS, sp->versions_noalloc ? 0 : SHF_ALLOC,
				     versions, sp->dup_version ? 192 : 128, ELF_T_BYTE, 0, 0 };
	secs[nsec++] = (struct sec){ "__ksymtab_gpl", SHT_PROGBITS, SHF_ALLOC, ksymtab, sizeof(ksymtab), ELF_T_BYTE, 0, 0 };
	secs[nsec++] = (struct sec){ "__kcrctab_gpl", SHT_PROGBITS, SHF_ALLOC, crctab, sizeof(crctab), ELF_T_BYTE, 0, 0 };
	secs[nsec++] = (struct sec){ "__ksymtab_strings", SHT_PROGBITS, SHF_ALLOC, kstrings, sizeof(kstrings), ELF_T_BYTE, 0, 0 };
	secs[nsec++] = (struct sec){ ".strtab", sp->strtabs_progbits ? SHT_PROGBITS : SHT_STRTAB, 0, strtab, sizeof(strtab), ELF_T_BYTE, 0, 0 };
	if (!sp->no_symtab)
		secs[nsec++] = (struct sec){ ".symtab", SHT_SYMTAB, 0, is64 ? (void *)sym64 : (void *)sym32,
					     is64 ? sizeof(sym64) : sizeof(sym32), ELF_T_SYM, S_STRTAB,
					     is64 ? sizeof(Elf64_Sym) : sizeof(Elf32_Sym) };
	if (sp->ext_versions) {
		secs[nsec++] = (struct sec){ "__version_ext_crcs", SHT_PROGBITS, SHF_ALLOC, ext_crcs,
					     sizeof(ext_crcs), ELF_T_BYTE, 0, 0 };
		if (!sp->ext_names_missing)
			secs[nsec++] = (struct sec){ "__version_ext_names", SHT_PROGBITS, SHF_ALLOC, ext_names,
						     sizeof(ext_names), ELF_T_BYTE, 0, 0 };
	}
	if (sp->two_modinfo)
		secs[nsec++] = (struct sec){ ".modinfo", SHT_PROGBITS, SHF_ALLOC, modinfo, sizeof(modinfo), ELF_T_BYTE, 0, 0 };

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = memfd_create("synth.ko", 0);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	assert_non_null(gelf_newehdr(e, sp->cls));
	gelf_getehdr(e, &eh);
	eh.e_ident[EI_DATA] = (unsigned char)sp->data;
	eh.e_type = ET_REL;
	eh.e_machine = (uint16_t)sp->machine;
	eh.e_version = EV_CURRENT;
	for (size_t i = 0; i <= nsec; i++) {
		/* the last one is .shstrtab */
		const struct sec *s = i < nsec ? &secs[i] : NULL;
		const char *name = s ? s->name : ".shstrtab";
		Elf_Scn *scn = elf_newscn(e);
		Elf_Data *d = elf_newdata(scn);
		GElf_Shdr sh;

		gelf_getshdr(scn, &sh);
		sh.sh_name = shstr_len;
		strcpy(shstr + shstr_len, name);
		shstr_len += strlen(name) + 1;
		if (s) {
			d->d_buf = (void *)s->buf;
			d->d_size = s->size;
			d->d_type = s->dtype;
			d->d_align = s->dtype == ELF_T_SYM ? word : 1;
			sh.sh_type = s->type;
			sh.sh_flags = s->flags;
			sh.sh_link = s->link;
			sh.sh_entsize = s->entsize;
			if (s->type == SHT_SYMTAB)
				sh.sh_info = 3;	/* first non-local */
		} else {
			d->d_buf = shstr;
			d->d_size = shstr_len;
			d->d_type = ELF_T_BYTE;
			d->d_align = 1;
			sh.sh_type = sp->strtabs_progbits ? SHT_PROGBITS : SHT_STRTAB;
			eh.e_shstrndx = (uint16_t)elf_ndxscn(scn);
		}
		gelf_update_shdr(scn, &sh);
	}
	gelf_update_ehdr(e, &eh);
	assert_true(elf_update(e, ELF_C_WRITE) > 0);
	elf_end(e);
	end = lseek(fd, 0, SEEK_END);
	img = malloc((size_t)end + 4096);	/* room for a signature trailer */
	assert_int_equal(pread(fd, img, (size_t)end, 0), end);
	close(fd);
	*len = (size_t)end;
	return img;
}

static struct tg_module *open_ok(const void *buf, size_t len, const char *label)
{
	struct tg_error err = { 0 };
	struct tg_module *m = NULL;
	int r = tg_module_open_mem(buf, len, label, NULL, &m, &err);

	if (r < 0)
		fail_msg("open failed: %d %s", r, err.msg);
	return m;
}

static void expect_synth(const struct tg_module *m, const char *arch, int cls, bool be)
{
	uint32_t crc = 0;

	assert_string_equal(m->arch, arch);
	assert_int_equal(m->elf_class, cls);
	assert_int_equal(m->big_endian, be);
	assert_string_equal(m->name, "synth");
	assert_int_equal(m->n_problems, 0);
	/* .modinfo: order kept, NUL runs skipped, the stray string is the license's trailing text */
	assert_int_equal(m->n_modinfo, 5);
	assert_string_equal(m->modinfo[0].key, "license");
	assert_string_equal(m->modinfo[0].value, "GPL");
	assert_string_equal(m->modinfo[0].trailing, "for files in the rest of the package");
	assert_string_equal(tg_module_get(m, "name"), "synth");
	assert_string_equal(tg_module_get(m, "depends"), "");
	assert_true(tg_module_has(m, "depends"));
	assert_false(tg_module_has(m, "intree"));
	/* imports in symtab order, weak and common flagged */
	assert_int_equal(m->n_imports, 3);
	assert_string_equal(m->imports[0].name, "ktime_get");
	assert_false(m->imports[0].weak);
	assert_string_equal(m->imports[1].name, "weak_fn");
	assert_true(m->imports[1].weak);
	assert_string_equal(m->imports[2].name, "common_var");
	assert_true(m->imports[2].common);
	/* __versions */
	assert_int_equal(m->versions_kind, TG_VERS_BASIC);
	assert_int_equal(m->n_versions, 2);
	assert_true(tg_module_version_crc(m, "ktime_get", &crc));
	assert_int_equal(crc, 0xb43f9365);
	assert_true(tg_module_version_crc(m, "module_layout", &crc));
	assert_int_equal(crc, 0x9060323f);
	assert_false(tg_module_version_crc(m, "nothere", &crc));
	/* exports */
	assert_int_equal(m->n_exports, 1);
	assert_string_equal(m->exports[0].name, "my_export");
	assert_true(m->exports[0].gpl_only);
	assert_string_equal(m->exports[0].ns, "MYNS");
	assert_true(m->exports[0].has_crc);
	assert_int_equal(m->exports[0].crc, 0x12345678);
	assert_true(m->exports_have_crcs);
	assert_false(m->sig.present);
}

static void read_arch(unsigned machine, int cls, int data, const char *arch)
{
	struct spec sp = { .cls = cls, .data = data, .machine = machine };
	size_t len;
	unsigned char *img = build(&sp, &len);
	struct tg_module *m = open_ok(img, len, "/lib/modules/x/extra/syn-th.ko");

	expect_synth(m, arch, cls == ELFCLASS64 ? 64 : 32, data == ELFDATA2MSB);
	assert_string_equal(m->file_modname, "syn_th");
	assert_int_equal(m->compression, TG_COMP_NONE);
	tg_module_free(m);
	free(img);
}

static void test_x86_64(void **state) { (void)state; read_arch(EM_X86_64, ELFCLASS64, ELFDATA2LSB, "x86_64"); }
static void test_s390x_big_endian(void **state) { (void)state; read_arch(EM_S390, ELFCLASS64, ELFDATA2MSB, "s390x"); }
static void test_i386_elf32(void **state) { (void)state; read_arch(EM_386, ELFCLASS32, ELFDATA2LSB, "i386"); }
static void test_ppc64le(void **state) { (void)state; read_arch(EM_PPC64, ELFCLASS64, ELFDATA2LSB, "ppc64le"); }
static void test_ppc32_big_endian(void **state) { (void)state; read_arch(EM_PPC, ELFCLASS32, ELFDATA2MSB, "ppc"); }

/* ------------------------------------------------------------ compression */

static unsigned char *xz_encode(const void *in, size_t len, size_t *olen)
{
	size_t cap = len + len / 2 + 4096, pos = 0;
	unsigned char *out = malloc(cap);

	assert_int_equal(lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, NULL, in, len, out, &pos, cap), LZMA_OK);
	*olen = pos;
	return out;
}

static unsigned char *zstd_encode(const void *in, size_t len, size_t *olen)
{
	size_t cap = ZSTD_compressBound(len);
	unsigned char *out = malloc(cap);

	*olen = ZSTD_compress(out, cap, in, len, 3);
	assert_false(ZSTD_isError(*olen));
	return out;
}

static unsigned char *gzip_encode(const void *in, size_t len, size_t *olen)
{
	z_stream z;
	size_t cap = len + len / 2 + 4096;
	unsigned char *out = malloc(cap);

	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*olen = z.total_out;
	deflateEnd(&z);
	return out;
}

typedef unsigned char *(*encoder)(const void *, size_t, size_t *);

static void compressed(encoder enc, enum tg_compression kind, const char *label)
{
	struct spec sp = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64 };
	size_t len, clen;
	unsigned char *img = build(&sp, &len), *c = enc(img, len, &clen);
	struct tg_module *m = open_ok(c, clen, label);

	/* detected by magic, whatever the name says */
	assert_int_equal(tg_compression_detect(c, clen), kind);
	assert_int_equal(m->compression, kind);
	assert_int_equal(m->image_size, len);
	assert_int_equal(m->file_size, clen);
	expect_synth(m, "x86_64", 64, false);
	assert_string_equal(m->file_modname, "synth");
	tg_module_free(m);
	free(c);
	free(img);
}

static void test_xz(void **state) { (void)state; compressed(xz_encode, TG_COMP_XZ, "synth.ko.xz"); }
static void test_zstd(void **state) { (void)state; compressed(zstd_encode, TG_COMP_ZSTD, "synth.ko"); }
static void test_gzip(void **state) { (void)state; compressed(gzip_encode, TG_COMP_GZIP, "synth.ko.gz"); }

/* A small stream that inflates past the cap is an error, never a truncated image. */
static void bomb(encoder enc, enum tg_compression kind)
{
	size_t big = 8u << 20, clen, olen = 0;
	unsigned char *zeros = calloc(1, big), *c = enc(zeros, big, &clen);
	struct tg_error err = { 0 };
	struct tg_limits lim;
	struct tg_module *m = NULL;
	void *out = NULL;

	assert_true(clen < 64 * 1024);
	assert_int_equal(tg_decompress(kind, c, clen, 1u << 20, &out, &olen, "bomb.ko", &err), -EFBIG);
	assert_null(out);
	assert_non_null(strstr(err.msg, "bomb.ko: "));
	assert_non_null(strstr(err.msg, "size limit"));
	tg_limits_default(&lim);
	lim.max_module_size = 1u << 20;
	assert_int_equal(tg_module_open_mem(c, clen, "bomb.ko", &lim, &m, &err), -EFBIG);
	assert_null(m);
	/* the cap is inclusive: exactly cap bytes decode */
	assert_int_equal(tg_decompress(kind, c, clen, big, &out, &olen, "bomb.ko", &err), 0);
	assert_int_equal(olen, big);
	free(out);
	free(c);
	free(zeros);
}

static void test_bombs(void **state)
{
	(void)state;
	bomb(xz_encode, TG_COMP_XZ);
	bomb(zstd_encode, TG_COMP_ZSTD);
	bomb(gzip_encode, TG_COMP_GZIP);
}

static void truncated(encoder enc, enum tg_compression kind, bool checksummed)
{
	struct spec sp = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64 };
	size_t len, clen;
	unsigned char *img = build(&sp, &len), *c = enc(img, len, &clen);
	struct tg_error err = { 0 };
	struct tg_module *m = NULL;

	assert_int_equal(tg_module_open_mem(c, clen / 2, "half.ko.x", NULL, &m, &err), -EBADMSG);
	assert_null(m);
	assert_non_null(strstr(err.msg, "half.ko.x: corrupt or truncated"));
	/* corrupt in the middle: xz and gzip carry a CRC (ZSTD_compress() adds none) */
	c[clen / 2] ^= 0xff;
	if (checksummed) {
		assert_int_equal(tg_module_open_mem(c, clen, "bad.ko", NULL, &m, &err), -EBADMSG);
		assert_null(m);
	}
	free(c);
	free(img);
}

static void test_truncated_streams(void **state)
{
	(void)state;
	truncated(xz_encode, TG_COMP_XZ, true);
	truncated(zstd_encode, TG_COMP_ZSTD, false);
	truncated(gzip_encode, TG_COMP_GZIP, true);
}

/*
 * zstd is decoded in one call when the input is one frame stating its size,
 * and streamed otherwise: both paths must give the same image, and a frame
 * whose stated size is wrong is corrupt, never a shorter or padded image.
 */
static size_t zstd_fcs_offset(const unsigned char *c, size_t *fcs_len)
{
	static const size_t did[] = { 0, 1, 2, 4 };
	unsigned fhd = c[4], single = (fhd >> 5) & 1;
	static const size_t fcs[] = { 0, 2, 4, 8 };

	*fcs_len = (fhd >> 6) == 0 ? single : fcs[fhd >> 6];
	return 5 + (single ? 0 : 1) + did[fhd & 3];
}

static void test_zstd_frames(void **state)
{
	size_t len = 100000, clen, cap2, olen, fl, off;
	unsigned char *in = malloc(len), *c, *two;
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	struct tg_error err = { 0 };
	void *out = NULL;

	(void)state;
	for (size_t i = 0; i < len; i++)
		in[i] = (unsigned char)(i * 7 / 13);
	/* two frames back to back (the streamed path): one image of both */
	c = zstd_encode(in, len, &clen);
	cap2 = 2 * clen;
	two = malloc(cap2);
	memcpy(two, c, clen);
	memcpy(two + clen, c, clen);
	assert_int_equal(tg_decompress(TG_COMP_ZSTD, two, 2 * clen, 1u << 20, &out, &olen, "two", &err), 0);
	assert_int_equal(olen, 2 * len);
	assert_memory_equal(out, in, len);
	assert_memory_equal((unsigned char *)out + len, in, len);
	free(out);
	/* a frame that does not state its size (streamed) */
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
	clen = ZSTD_compress2(cc, two, cap2, in, len);
	assert_false(ZSTD_isError(clen));
	assert_int_equal(ZSTD_getFrameContentSize(two, clen), ZSTD_CONTENTSIZE_UNKNOWN);
	assert_int_equal(tg_decompress(TG_COMP_ZSTD, two, clen, 1u << 20, &out, &olen, "nosize", &err), 0);
	assert_int_equal(olen, len);
	assert_memory_equal(out, in, len);
	free(out);
	/* the stated size off by one either way: corrupt */
	clen = ZSTD_compress(two, cap2, in, len, 3);
	off = zstd_fcs_offset(two, &fl);
	assert_true(fl >= 2);
	for (int d = -1; d <= 1; d += 2) {
		memcpy(c, two, clen);
		c[off] = (unsigned char)(c[off] + d);
		assert_int_equal(tg_decompress(TG_COMP_ZSTD, c, clen, 1u << 20, &out, &olen, "liar", &err), -EBADMSG);
		assert_null(out);
		assert_non_null(strstr(err.msg, "liar: corrupt or truncated zstd"));
	}
	/* a stated size above the cap is refused before anything is decoded */
	assert_int_equal(tg_decompress(TG_COMP_ZSTD, two, clen, len - 1, &out, &olen, "big", &err), -EFBIG);
	ZSTD_freeCCtx(cc);
	free(two);
	free(c);
	free(in);
}

/* ------------------------------------------------------- not a module / problems */

static void test_not_elf(void **state)
{
	struct tg_error err = { 0 };
	struct tg_module *m = NULL;
	static const char text[] = "This is the vim tutor, tutor.ko\n";

	(void)state;
	assert_int_equal(tg_module_open_mem(text, sizeof(text) - 1, "tutor.ko", NULL, &m, &err), -ENOEXEC);
	assert_null(m);
	assert_string_equal(err.msg, "tutor.ko: not an ELF file (no ELF magic)");
	assert_int_equal(tg_module_open_mem("", 0, "empty.ko", NULL, &m, &err), -ENOEXEC);
	assert_int_equal(tg_module_open_path("/nonexistent/x.ko", NULL, &m, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "/nonexistent/x.ko"));
}

static void test_truncated_elf(void **state)
{
	struct spec sp = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64 };
	size_t len;
	unsigned char *img = build(&sp, &len);

	(void)state;
	/* every truncation is an error or a module with problems, never a clean read */
	for (size_t cut = 0; cut < len; cut += 7) {
		struct tg_error err = { 0 };
		struct tg_module *m = NULL;
		int r = tg_module_open_mem(img, cut, "cut.ko", NULL, &m, &err);

		if (r < 0) {
			assert_null(m);
			assert_non_null(strstr(err.msg, "cut.ko: "));
		} else {
			assert_true(m->n_problems > 0);
			tg_module_free(m);
		}
	}
	free(img);
}

static bool has_problem(const struct tg_module *m, const char *text)
{
	for (size_t i = 0; i < m->n_problems; i++)
		if (strstr(m->problems[i], text))
			return true;
	return false;
}

static void test_structure_problems(void **state)
{
	struct spec stripped = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64, .no_symtab = true };
	struct spec twomi = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64, .two_modinfo = true };
	size_t len;
	unsigned char *img;
	struct tg_module *m;

	(void)state;
	img = build(&stripped, &len);
	m = open_ok(img, len, "s.ko");
	assert_true(has_problem(m, "module has no symbols (stripped?)"));
	assert_int_equal(m->n_imports, 0);
	tg_module_free(m);
	free(img);
	/* counted, not a problem: only 6.4+ loaders refuse it (the prediction decides) */
	img = build(&twomi, &len);
	m = open_ok(img, len, "s.ko");
	assert_int_equal(m->n_modinfo_sections, 2);
	assert_int_equal(m->n_symtab_sections, 1);
	assert_int_equal(m->n_this_module_sections, 1);
	assert_int_equal(m->n_problems, 0);
	tg_module_free(m);
	free(img);
}

/*
 * The kernel takes names from the tables sh_link and e_shstrndx point at,
 * whatever their type; libelf's elf_strptr() would refuse them and a module
 * would read as importing nothing.
 */
static void test_string_tables_any_type(void **state)
{
	struct spec sp = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64,
			   .strtabs_progbits = true };
	size_t len;
	unsigned char *img = build(&sp, &len);
	struct tg_module *m = open_ok(img, len, "p.ko");

	(void)state;
	expect_synth(m, "x86_64", 64, false);
	/* read all the same; the types are noted for 7.2+ loaders, which refuse them */
	assert_true(m->shstrtab_untyped);
	assert_true(m->strtab_untyped);
	tg_module_free(m);
	free(img);
	img = build(&(struct spec){ .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64 }, &len);
	m = open_ok(img, len, "s.ko");
	assert_false(m->shstrtab_untyped);
	assert_false(m->strtab_untyped);
	tg_module_free(m);
	free(img);
}

static void test_versions_variants(void **state)
{
	struct spec noalloc = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64, .versions_noalloc = true };
	struct spec ext = { .cls = ELFCLASS64, .data = ELFDATA2MSB, .machine = EM_S390, .ext_versions = true };
	struct spec half = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64, .ext_versions = true,
			     .ext_names_missing = true };
	struct spec dup = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64, .dup_version = true };
	size_t len;
	unsigned char *img;
	struct tg_module *m;
	uint32_t crc = 0;

	(void)state;
	/* modprobe --force-modversion clears SHF_ALLOC: the kernel no longer sees __versions */
	img = build(&noalloc, &len);
	m = open_ok(img, len, "n.ko");
	assert_int_equal(m->versions_kind, TG_VERS_NONE);
	assert_int_equal(m->n_versions, 0);
	tg_module_free(m);
	free(img);
	/* 6.14+ extended tables replace __versions */
	img = build(&ext, &len);
	m = open_ok(img, len, "e.ko");
	assert_int_equal(m->versions_kind, TG_VERS_EXTENDED);
	assert_int_equal(m->n_versions, 2);
	assert_true(tg_module_version_crc(m, "ktime_get", &crc));
	assert_int_equal(crc, 0x22222222);
	tg_module_free(m);
	free(img);
	img = build(&half, &len);
	m = open_ok(img, len, "h.ko");
	assert_true(has_problem(m, "presence does not match"));
	tg_module_free(m);
	free(img);
	/* a name recorded twice: check_version() stops at the first record */
	img = build(&dup, &len);
	m = open_ok(img, len, "d.ko");
	assert_int_equal(m->n_versions, 3);
	assert_true(tg_module_version_crc(m, "ktime_get", &crc));
	assert_int_equal(crc, 0xb43f9365);
	tg_module_free(m);
	free(img);
}

/* --------------------------------------------------------------- signature */

static unsigned char *with_trailer(unsigned char *img, size_t *len, uint8_t id_type, uint8_t algo,
				   uint32_t sig_len, size_t payload)
{
	static const char magic[] = "~Module signature appended~\n";
	unsigned char info[12] = { algo, 0, id_type, 0, 0, 0, 0, 0 };

	memset(img + *len, 0x30, payload);	/* not DER a parser accepts */
	*len += payload;
	info[8] = (unsigned char)(sig_len >> 24);
	info[9] = (unsigned char)(sig_len >> 16);
	info[10] = (unsigned char)(sig_len >> 8);
	info[11] = (unsigned char)sig_len;
	memcpy(img + *len, info, sizeof(info));
	*len += sizeof(info);
	memcpy(img + *len, magic, sizeof(magic) - 1);
	*len += sizeof(magic) - 1;
	return img;
}

static void sig_case(uint8_t id_type, uint8_t algo, uint32_t sig_len, size_t payload,
		     bool malformed)
{
	struct spec sp = { .cls = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64 };
	size_t len;
	unsigned char *img = build(&sp, &len);
	struct tg_module *m;

	with_trailer(img, &len, id_type, algo, sig_len, payload);
	m = open_ok(img, len, "sig.ko");
	assert_true(m->sig.present);
	assert_int_equal(m->sig.malformed, malformed);
	assert_null(m->sig.signer);
	/* the ELF part still reads: the trailer is not taken for ELF data */
	assert_string_equal(m->name, "synth");
	tg_module_free(m);
	free(img);
}

static void test_signature_trailers(void **state)
{
	(void)state;
	sig_case(2, 0, 16, 16, true);		/* PKCS#7 id, garbage DER: -EBADMSG */
	sig_case(2, 0, 1u << 30, 16, true);	/* sig_len past the file */
	sig_case(2, 1, 16, 16, true);		/* reserved field set */
	sig_case(1, 0, 16, 16, false);		/* not PKCS#7: -ENOPKG, counts as unsigned */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_x86_64),
		cmocka_unit_test(test_s390x_big_endian),
		cmocka_unit_test(test_i386_elf32),
		cmocka_unit_test(test_ppc64le),
		cmocka_unit_test(test_ppc32_big_endian),
		cmocka_unit_test(test_xz),
		cmocka_unit_test(test_zstd),
		cmocka_unit_test(test_zstd_frames),
		cmocka_unit_test(test_gzip),
		cmocka_unit_test(test_bombs),
		cmocka_unit_test(test_truncated_streams),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated_elf),
		cmocka_unit_test(test_structure_problems),
		cmocka_unit_test(test_string_tables_any_type),
		cmocka_unit_test(test_versions_variants),
		cmocka_unit_test(test_signature_trailers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
