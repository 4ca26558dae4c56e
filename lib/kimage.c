/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Reading a kernel image as distributions ship it.  The image on disk is
 * compressed: an x86 bzImage carries the compressed vmlinux ELF (header
 * field payload_offset), arm64 distributions ship a gzip'ed raw Image or an
 * EFI zboot image (header "zimg"), ppc64 the plain ELF, s390 its
 * decompressor with the compressed raw kernel (vmlinux.bin) inside.  The payload is
 * decoded only as far as the reader needs (decompress.c), then taken as an
 * ELF vmlinux (program headers, sections and symbols read from the bytes: a
 * partly decoded image is enough to map addresses, and the section headers
 * at its end may be missing) or as a raw arm64/riscv Image or s390 vmlinux.bin.
 *
 * Every size is capped: the decoded image by the cap the caller gives (a
 * decompression bomb is -EFBIG).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kimage.h"

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

const char tg_kimage_s390[] = "s390 image";

/*
 * An s390 image starts with what the IPL reads first (arch/s390/boot/head.S:
 * a PSW and two CCWs at 0-23); the two CCWs are the same in every image.
 */
static const unsigned char s390_ipl_ccws[16] = {
	0x02, 0x00, 0x00, 0x18, 0x60, 0x00, 0x00, 0x50,
	0x02, 0x00, 0x00, 0x68, 0x60, 0x00, 0x00, 0x50,
};

#define S390_PROBE 4096u	/* decoded to tell the payload from a look-alike magic */
#define S390_MAX_TRIES 64	/* look-alikes decoded at most: a crafted image stays cheap */

/*
 * Does a compressed stream of the kernel's compressors start at @p?  Its
 * magic alone is not enough: the decompressor's own code and tables hold
 * the same bytes (its xz decoder has the xz magic); the first bytes must
 * decode.  bzip2 and lzo are not decoded: their longer magic decides.
 */
static bool s390_stream_at(const unsigned char *p, size_t n, bool weak, unsigned *tries)
{
	static const unsigned char bz_block[] = { 0x31, 0x41, 0x59, 0x26, 0x53, 0x59 };
	static const unsigned char lzo[] = { 0x89, 'L', 'Z', 'O', 0x00, 0x0d, 0x0a, 0x1a, 0x0a };
	enum tg_kzip z = tg_kzip_detect(p, n);
	unsigned char *out = NULL;
	size_t len = 0;
	int ret;

	if (z == TG_KZ_NONE || (z == TG_KZ_LZMA) != weak)
		return false;
	if (z == TG_KZ_BZIP2)
		return n >= 10 && p[3] >= '1' && p[3] <= '9' && !memcmp(p + 4, bz_block, sizeof(bz_block));
	if (z == TG_KZ_LZO)
		return n >= sizeof(lzo) && !memcmp(p, lzo, sizeof(lzo));
	if (++*tries > S390_MAX_TRIES)
		return false;
	ret = tg_kzip_decode(z, p, n, S390_PROBE, S390_PROBE, &out, &len);
	free(out);
	return ret == 0 && len == S390_PROBE;
}

/*
 * The compressed kernel of an s390 image: the decompressor's
 * .vmlinux.bin.compressed, which no header points to (arch/s390/boot/
 * vmlinux.lds.S), so the first stream that decodes (of S390_MAX_TRIES
 * candidates: a file of nothing but magics is not decoded a million times).
 * lzma's magic is weak (0x5d 0 0) and its stream has no check: tried only
 * when no other kind is found.  None (CONFIG_KERNEL_UNCOMPRESSED): the
 * whole file, which holds the raw kernel.
 */
static void s390_payload(const unsigned char *d, size_t n, const unsigned char **pl, size_t *pln)
{
	unsigned tries = 0;

	for (int weak = 0; weak < 2; weak++) {
		for (size_t o = 24; o < n && tries <= S390_MAX_TRIES; o++) {
			if (s390_stream_at(d + o, n - o, weak, &tries)) {
				*pl = d + o;
				*pln = n - o;
				return;
			}
		}
	}
}

/*
 * Where the compressed kernel is inside the file.  x86 bzImage: setup
 * header "HdrS" at 0x202, payload_offset/payload_length at 0x248 (boot
 * protocol 2.08+), relative to the protected-mode code after the setup
 * sectors.  EFI zboot (arm64, riscv, loongarch): "zimg" at 4, payload
 * offset and size at 8 and 12.  Anything else is taken as a whole.
 */
int tg_kimage_payload(const unsigned char *d, size_t n, const unsigned char **pl, size_t *pln,
		      const char **container)
{
	*pl = d;
	*pln = n;
	*container = NULL;
	if (n >= 0x250 && !memcmp(d + 0x202, "HdrS", 4)) {
		uint64_t start = ((uint64_t)(d[0x1f1] ? d[0x1f1] : 4) + 1) * 512;
		uint64_t off = start + tg_le32(d + 0x248), len = tg_le32(d + 0x24c);

		*container = "bzImage";
		if (le16(d + 0x206) < 0x208)
			return -EPROTONOSUPPORT;	/* no payload fields before 2.6.26 */
		if (!tg_in_bounds(n, off, len) || len == 0)
			return -EBADMSG;
		*pl = d + off;
		*pln = (size_t)len;
	} else if (n >= 24 && !memcmp(d + 8, s390_ipl_ccws, sizeof(s390_ipl_ccws))) {
		*container = tg_kimage_s390;
		s390_payload(d, n, pl, pln);
	} else if (n >= 16 && d[0] == 'M' && d[1] == 'Z' && !memcmp(d + 4, "zimg", 4)) {
		uint64_t off = tg_le32(d + 8), len = tg_le32(d + 12);

		*container = "EFI zboot image";
		if (!tg_in_bounds(n, off, len) || len == 0)
			return -EBADMSG;
		*pl = d + off;
		*pln = (size_t)len;
	}
	return 0;
}

/* ------------------------------------------------------------ decoded image */

uint64_t tg_kimg_word(const struct tg_kimg *k, const unsigned char *q, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)q[k->be ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Field @off of size @size in a header at @base; the caller checked the bounds. */
#define FLD(k, base, off32, off64, sz32, sz64) \
	tg_kimg_word((k), (base) + ((k)->is64 ? (off64) : (off32)), (k)->is64 ? (sz64) : (sz32))

static int kimg_identify(struct tg_kimg *k, const unsigned char *p, size_t len, bool s390)
{
	k->p = p;
	k->len = len;
	k->elf = len >= 52 && !memcmp(p, "\177ELF", 4);
	if (k->elf) {
		if ((p[4] != 1 && p[4] != 2) || (p[5] != 1 && p[5] != 2) || (p[4] == 2 && len < 64))
			return -EBADMSG;
		k->is64 = p[4] == 2;
		k->be = p[5] == 2;
		k->what = "ELF vmlinux";
		return 0;
	}
	/* s390's vmlinux.bin (objcopy -O binary): no header; the container said so */
	if (s390) {
		k->is64 = true;
		k->be = true;
		k->what = "s390 vmlinux.bin";
		return 0;
	}
	/* arm64 and riscv Image headers: magic at 0x38, little endian, 64-bit */
	if (len >= 64 && (!memcmp(p + 0x38, "ARM\x64", 4) || !memcmp(p + 0x38, "RSC\x05", 4))) {
		k->is64 = true;
		k->be = false;
		k->what = p[0x38] == 'A' ? "arm64 Image" : "riscv Image";
		return 0;
	}
	return -ENOEXEC;
}

struct elf_hdr {
	uint64_t phoff, shoff;
	unsigned phentsize, phnum, shentsize, shnum, shstrndx;
};

static bool elf_hdr(const struct tg_kimg *k, struct elf_hdr *h)
{
	const unsigned char *p = k->p;

	h->phoff = FLD(k, p, 28, 32, 4, 8);
	h->shoff = FLD(k, p, 32, 40, 4, 8);
	h->phentsize = (unsigned)FLD(k, p, 42, 54, 2, 2);
	h->phnum = (unsigned)FLD(k, p, 44, 56, 2, 2);
	h->shentsize = (unsigned)FLD(k, p, 46, 58, 2, 2);
	h->shnum = (unsigned)FLD(k, p, 48, 60, 2, 2);
	h->shstrndx = (unsigned)FLD(k, p, 50, 62, 2, 2);
	/* no section headers (shentsize 0) is fine: they are optional in an executable */
	if (h->shentsize < (k->is64 ? 64u : 40u))
		h->shnum = 0;
	return h->phentsize >= (k->is64 ? 56u : 32u);
}

uint64_t tg_kimg_phdrs_end(const struct tg_kimg *k)
{
	struct elf_hdr h;

	if (!elf_hdr(k, &h))
		return 0;
	return h.phoff + (uint64_t)h.phnum * h.phentsize;
}

bool tg_kimg_va_to_off(const struct tg_kimg *k, uint64_t va, uint64_t *off)
{
	struct elf_hdr h;

	if (!elf_hdr(k, &h) || !tg_in_bounds(k->len, h.phoff, (uint64_t)h.phnum * h.phentsize))
		return false;
	for (unsigned i = 0; i < h.phnum; i++) {
		const unsigned char *ph = k->p + h.phoff + (uint64_t)i * h.phentsize;
		uint64_t vaddr = FLD(k, ph, 8, 16, 4, 8), filesz = FLD(k, ph, 16, 32, 4, 8);

		if (tg_kimg_word(k, ph, 4) != 1 /* PT_LOAD */ || va < vaddr || va - vaddr >= filesz)
			continue;
		*off = FLD(k, ph, 4, 8, 4, 8) + (va - vaddr);
		return true;
	}
	return false;
}

static bool elf_section(const struct tg_kimg *k, const struct elf_hdr *h, unsigned i, struct tg_kimg_sec *s)
{
	const unsigned char *sh, *strsh;
	uint64_t stroff, strsize, name;

	if (i >= h->shnum || h->shstrndx >= h->shnum ||
	    !tg_in_bounds(k->len, h->shoff, (uint64_t)h->shnum * h->shentsize))
		return false;
	sh = k->p + h->shoff + (uint64_t)i * h->shentsize;
	strsh = k->p + h->shoff + (uint64_t)h->shstrndx * h->shentsize;
	stroff = FLD(k, strsh, 16, 24, 4, 8);
	strsize = FLD(k, strsh, 20, 32, 4, 8);
	name = tg_kimg_word(k, sh, 4);
	s->name = "";
	if (tg_in_bounds(k->len, stroff, strsize) && name < strsize &&
	    memchr(k->p + stroff + name, '\0', strsize - name))
		s->name = (const char *)k->p + stroff + name;
	s->type = (uint32_t)tg_kimg_word(k, sh + 4, 4);
	s->off = FLD(k, sh, 16, 24, 4, 8);
	s->size = FLD(k, sh, 20, 32, 4, 8);
	s->link = tg_kimg_word(k, sh + (k->is64 ? 40 : 24), 4);
	s->entsize = FLD(k, sh, 36, 56, 4, 8);
	return tg_in_bounds(k->len, s->off, s->type == 8 /* NOBITS */ ? 0 : s->size);
}

bool tg_kimg_symbol(const struct tg_kimg *k, const char *name, uint64_t *value)
{
	size_t nlen = strlen(name);
	struct elf_hdr h;
	struct tg_kimg_sec sym, str;

	if (!elf_hdr(k, &h))
		return false;
	for (unsigned i = 1; i < h.shnum; i++) {
		uint64_t esz = k->is64 ? 24 : 16;

		if (!elf_section(k, &h, i, &sym) || sym.type != 2 /* SYMTAB */ || sym.entsize < esz ||
		    !elf_section(k, &h, (unsigned)sym.link, &str))
			continue;
		for (uint64_t o = 0; o + sym.entsize <= sym.size; o += sym.entsize) {
			const unsigned char *e = k->p + sym.off + o;
			uint64_t nm = tg_kimg_word(k, e, 4);

			if (nm >= str.size || str.size - nm <= nlen ||
			    memcmp(k->p + str.off + nm, name, nlen + 1))
				continue;
			*value = FLD(k, e, 4, 8, 4, 8);
			return true;
		}
	}
	return false;
}

unsigned tg_kimg_shnum(const struct tg_kimg *k)
{
	struct elf_hdr h;

	return k->elf && elf_hdr(k, &h) ? h.shnum : 0;
}

bool tg_kimg_section(const struct tg_kimg *k, unsigned i, struct tg_kimg_sec *s)
{
	struct elf_hdr h;

	return k->elf && elf_hdr(k, &h) && elf_section(k, &h, i, s);
}

/* --------------------------------------------------------------- reading */

int tg_kread_decode(struct tg_kread *r, uint64_t want)
{
	size_t len;
	int ret;

	if (r->zip == TG_KZ_NONE)
		return kimg_identify(&r->k, r->payload, r->payload_len, r->s390);
	free(r->buf);
	r->buf = NULL;
	ret = tg_kzip_decode(r->zip, r->payload, r->payload_len, r->cap, want, &r->buf, &len);
	if (ret < 0)
		return ret;
	return kimg_identify(&r->k, r->buf, len, r->s390);
}

int tg_kread_need(struct tg_kread *r, uint64_t need)
{
	if (r->k.len >= need || r->zip == TG_KZ_NONE)
		return 0;
	return tg_kread_decode(r, need);
}
