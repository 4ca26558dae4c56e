/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The certificates built into a kernel image: the keys of the kernel's
 * builtin trusted keyring, which module signatures are verified with.
 *
 * kbuild assembles them (certs/system_certificates.S) into .init.rodata as
 *
 *   system_certificate_list:       DER X.509 certificates back to back, each
 *                                  "30 82 LL LL ...", the module signing key first
 *   [CONFIG_SYSTEM_EXTRA_CERTIFICATE: reserved space, zeros]
 *   .balign 8; system_certificate_list_size: unsigned long, the list's length
 *   .balign 8; module_cert_size:   unsigned long, length of the signing key's
 *                                  certificate (5.13+; 0 without MODULE_SIG)
 *
 * and the kernel reads them back at boot with load_system_certificate_list().
 * The image on disk is compressed: an x86 bzImage carries the compressed
 * vmlinux ELF (header field payload_offset), arm64 distributions ship a
 * gzip'ed raw Image or an EFI zboot image (header "zimg"), ppc64 the plain
 * ELF.  The list is found through System.map when it has the symbols (Fedora,
 * RHEL, SUSE ship the real one; Debian a placeholder), else through the
 * image's own symbol table, else by its layout: a run of certificates at an
 * 8-byte boundary followed by its own length (and the first certificate's
 * length), looked for in .init.data/.init.rodata when the ELF has section
 * headers, in the whole image otherwise.  A layout match that is not unique
 * is an error, never a guess.
 *
 * Every size is capped: the decompressed image by tg_limits.max_kernel_image_size
 * (a decompression bomb is -EFBIG), the list by CERT_LIST_MAX.
 */
#include <errno.h>
#include <limits.h>
#include <lz4.h>
#include <lzma.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "keyring.h"

#define XZ_MEMLIMIT (256ull << 20)
#define HEAD_BYTES (64u << 10)		/* decoded first to read ELF program headers */
#define CERT_LIST_MAX (4u << 20)	/* no kernel carries megabytes of certificates */
#define EXTRA_CERT_MAX (64u << 10)	/* CONFIG_SYSTEM_EXTRA_CERTIFICATE_SIZE is 4 KiB by default */
#define LZ4_LEGACY_MAGIC 0x184C2102u
#define LZ4_LEGACY_BLOCK (8u << 20)

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ------------------------------------------------------------ decompression */

enum kzip { KZ_NONE, KZ_GZIP, KZ_XZ, KZ_LZMA, KZ_ZSTD, KZ_LZ4, KZ_BZIP2, KZ_LZO };
static const char *const kzip_names[] = {
	[KZ_NONE] = "uncompressed", [KZ_GZIP] = "gzip", [KZ_XZ] = "xz", [KZ_LZMA] = "lzma",
	[KZ_ZSTD] = "zstd", [KZ_LZ4] = "lz4", [KZ_BZIP2] = "bzip2", [KZ_LZO] = "lzo",
};

/* The kernel's compressors (scripts/Makefile.lib), told apart by their magic. */
static enum kzip kzip_detect(const unsigned char *p, size_t n)
{
	static const unsigned char xz[] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
	static const unsigned char zst[] = { 0x28, 0xB5, 0x2F, 0xFD };
	static const unsigned char lzo[] = { 0x89, 'L', 'Z', 'O' };

	if (n >= 3 && p[0] == 0x1F && p[1] == 0x8B && p[2] == 0x08)
		return KZ_GZIP;
	if (n >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		return KZ_XZ;
	if (n >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		return KZ_ZSTD;
	if (n >= 4 && le32(p) == LZ4_LEGACY_MAGIC)
		return KZ_LZ4;
	if (n >= 3 && !memcmp(p, "BZh", 3))
		return KZ_BZIP2;
	if (n >= sizeof(lzo) && !memcmp(p, lzo, sizeof(lzo)))
		return KZ_LZO;
	/* lzma -9 (.lzma "alone"): properties byte 0x5D, dictionary size, size */
	if (n >= 13 && p[0] == 0x5D && p[1] == 0x00 && p[2] == 0x00)
		return KZ_LZMA;
	return KZ_NONE;
}

/*
 * Output of one decompression: stops (successfully) once @want bytes are
 * there, fails with -EFBIG past @cap.  The payload is followed by other data
 * (the 4-byte size kbuild appends, a PE signature): decoding ends with the
 * first stream, whatever follows.
 */
struct kout {
	unsigned char *p;
	size_t len, size;
	uint64_t cap, want;
};

/*
 * 1 with *avail > 0: room to decode into, at least @need bytes unless the
 * limit is nearer; 0: @want reached; -EFBIG: past @cap; -ENOMEM.
 */
static int kout_room(struct kout *o, size_t need, size_t *avail)
{
	uint64_t limit = o->want <= o->cap ? o->want : o->cap + 1;
	size_t nsize;
	unsigned char *np;

	if (o->len >= limit)
		return o->len >= o->want ? 0 : -EFBIG;
	while (o->size - o->len < need && o->size < limit) {
		nsize = o->size ? o->size * 2 : 64u << 10;
		if (nsize < o->size || nsize > limit)
			nsize = (size_t)limit;
		np = realloc(o->p, nsize);
		if (!np)
			return -ENOMEM;
		o->p = np;
		o->size = nsize;
	}
	*avail = (size_t)((o->size < limit ? o->size : limit) - o->len);
	return 1;
}

static int unzip_gzip(const unsigned char *in, size_t inlen, struct kout *o)
{
	z_stream z;
	size_t avail;
	int ret, r;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = inlen > UINT_MAX ? UINT_MAX : (uInt)inlen;
	while ((r = kout_room(o, 1, &avail)) > 0) {
		z.next_out = o->p + o->len;
		z.avail_out = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
		ret = inflate(&z, Z_NO_FLUSH);
		o->len = (size_t)(z.next_out - o->p);
		if (ret == Z_STREAM_END) {
			r = 0;
			break;
		}
		if (ret == Z_MEM_ERROR)
			r = -ENOMEM;
		else if (ret != Z_OK && !(ret == Z_BUF_ERROR && z.avail_out == 0))
			r = -EBADMSG;	/* corrupt, or the input ends mid-stream */
		if (r < 0)
			break;
	}
	inflateEnd(&z);
	return r;
}

/* xz and the older .lzma format, one stream (not LZMA_CONCATENATED: the size follows) */
static int unzip_lzma(const unsigned char *in, size_t inlen, struct kout *o, bool alone)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret ret;
	size_t avail;
	int r;

	if ((alone ? lzma_alone_decoder(&s, XZ_MEMLIMIT) : lzma_stream_decoder(&s, XZ_MEMLIMIT, 0)) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	while ((r = kout_room(o, 1, &avail)) > 0) {
		s.next_out = o->p + o->len;
		s.avail_out = avail;
		ret = lzma_code(&s, s.avail_in ? LZMA_RUN : LZMA_FINISH);
		o->len = (size_t)(s.next_out - o->p);
		if (ret == LZMA_STREAM_END) {
			r = 0;
			break;
		}
		if (ret == LZMA_MEM_ERROR || ret == LZMA_MEMLIMIT_ERROR) {
			r = -ENOMEM;
			break;
		}
		if (ret != LZMA_OK) {
			r = -EBADMSG;
			break;
		}
	}
	lzma_end(&s);
	return r;
}

static int unzip_zstd(const unsigned char *in, size_t inlen, struct kout *o)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	size_t avail, ret;
	int r;

	if (!ds)
		return -ENOMEM;
	/* kbuild's zstd22 uses a 2^27 window at most (the kernel's own decoder limit) */
	ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, 27);
	while ((r = kout_room(o, 1, &avail)) > 0) {
		ZSTD_outBuffer ob = { o->p + o->len, avail, 0 };

		ret = ZSTD_decompressStream(ds, &ob, &ib);
		o->len += ob.pos;
		if (ZSTD_isError(ret)) {
			r = -EBADMSG;
			break;
		}
		if (ret == 0) {		/* frame complete */
			r = 0;
			break;
		}
		if (ib.pos == ib.size && ob.pos < ob.size) {
			r = -EBADMSG;	/* truncated */
			break;
		}
	}
	ZSTD_freeDStream(ds);
	return r;
}

/*
 * lz4 -l (the legacy format the kernel uses): the magic, then blocks of
 * [le32 compressed size][data], each at most 8 MiB decoded.  A size that does
 * not fit in what is left is the appended image size: the end.
 */
static int unzip_lz4(const unsigned char *in, size_t inlen, struct kout *o)
{
	uint64_t want = o->want;
	size_t pos = 4, blocks = 0, avail;
	int r = 0;

	o->want = UINT64_MAX;	/* a block may end past @want: room up to the cap */

	while (inlen - pos >= 4) {
		uint32_t csize = le32(in + pos);
		int n;

		if (csize == LZ4_LEGACY_MAGIC) {	/* concatenated frames */
			pos += 4;
			continue;
		}
		if (csize == 0 || csize > inlen - pos - 4 || csize > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))
			break;
		/* a block decodes whole: make room for the largest one */
		if ((r = kout_room(o, LZ4_LEGACY_BLOCK, &avail)) <= 0)
			return r;
		n = LZ4_decompress_safe((const char *)in + pos + 4, (char *)o->p + o->len, (int)csize,
					(int)(avail < LZ4_LEGACY_BLOCK ? avail : LZ4_LEGACY_BLOCK));
		if (n < 0)
			return avail < LZ4_LEGACY_BLOCK ? -EFBIG : -EBADMSG;
		o->len += (size_t)n;
		pos += 4 + csize;
		blocks++;
		if (o->len >= want)
			return 0;
	}
	return blocks ? 0 : -EBADMSG;
}

/*
 * Decode @in (kind @z) into *out, at most @cap bytes, stopping after @want.
 * kbuild appends the decoded size to the payload (gzip's own trailer says
 * the same): when plausible, the buffer is allocated once at that size
 * instead of growing through copies.
 */
static int unzip(enum kzip z, const unsigned char *in, size_t inlen, uint64_t cap, uint64_t want,
		 unsigned char **out, size_t *outlen)
{
	struct kout o = { .cap = cap, .want = want };
	uint64_t hint = inlen >= 8 ? le32(in + inlen - 4) : 0;
	int r;

	/* kernels compress 3-10 times; a larger claim is not believed */
	if (hint >= inlen && hint / 64 <= inlen && hint <= cap && hint < want) {
		o.p = malloc((size_t)hint);
		o.size = o.p ? (size_t)hint : 0;
	}

	switch (z) {
	case KZ_GZIP: r = unzip_gzip(in, inlen, &o); break;
	case KZ_XZ: r = unzip_lzma(in, inlen, &o, false); break;
	case KZ_LZMA: r = unzip_lzma(in, inlen, &o, true); break;
	case KZ_ZSTD: r = unzip_zstd(in, inlen, &o); break;
	case KZ_LZ4: r = unzip_lz4(in, inlen, &o); break;
	default: r = -EPROTONOSUPPORT; break;
	}
	if (r == 0 && o.len > cap)
		r = -EFBIG;
	if (r < 0) {
		free(o.p);
		return r;
	}
	*out = o.p;
	*outlen = o.len;
	return 0;
}

/* ------------------------------------------------------------ containers */

/*
 * Where the compressed kernel is inside the file.  x86 bzImage: setup
 * header "HdrS" at 0x202, payload_offset/payload_length at 0x248 (boot
 * protocol 2.08+), relative to the protected-mode code after the setup
 * sectors.  EFI zboot (arm64, riscv, loongarch): "zimg" at 4, payload
 * offset and size at 8 and 12.  Anything else is taken as a whole.
 */
static int find_payload(const unsigned char *d, size_t n, const unsigned char **pl, size_t *pln,
			const char **container)
{
	*pl = d;
	*pln = n;
	*container = NULL;
	if (n >= 0x250 && !memcmp(d + 0x202, "HdrS", 4)) {
		uint64_t start = ((uint64_t)(d[0x1f1] ? d[0x1f1] : 4) + 1) * 512;
		uint64_t off = start + le32(d + 0x248), len = le32(d + 0x24c);

		*container = "bzImage";
		if (le16(d + 0x206) < 0x208)
			return -EPROTONOSUPPORT;	/* no payload fields before 2.6.26 */
		if (!tg_in_bounds(n, off, len) || len == 0)
			return -EBADMSG;
		*pl = d + off;
		*pln = (size_t)len;
	} else if (n >= 16 && d[0] == 'M' && d[1] == 'Z' && !memcmp(d + 4, "zimg", 4)) {
		uint64_t off = le32(d + 8), len = le32(d + 12);

		*container = "EFI zboot image";
		if (!tg_in_bounds(n, off, len) || len == 0)
			return -EBADMSG;
		*pl = d + off;
		*pln = (size_t)len;
	}
	return 0;
}

/* ------------------------------------------------------------ decoded image */

/* The decoded kernel: an ELF vmlinux, or a raw Image whose byte 0 is _text. */
struct kimg {
	const unsigned char *p;
	size_t len;
	bool elf, is64, be;
	const char *what;	/* "ELF vmlinux", "arm64 Image", ... */
};

static uint64_t rd(const struct kimg *k, const unsigned char *q, unsigned size)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < size; i++)
		v |= (uint64_t)q[k->be ? size - 1 - i : i] << (8 * i);
	return v;
}

/* Field @off of size @size in a header at @base; the caller checked the bounds. */
#define FLD(k, base, off32, off64, sz32, sz64) \
	rd((k), (base) + ((k)->is64 ? (off64) : (off32)), (k)->is64 ? (sz64) : (sz32))

static int kimg_identify(struct kimg *k, const unsigned char *p, size_t len)
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

static bool elf_hdr(const struct kimg *k, struct elf_hdr *h)
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

/* End of the program header table: what must be decoded to map addresses. */
static uint64_t elf_phdrs_end(const struct kimg *k)
{
	struct elf_hdr h;

	if (!elf_hdr(k, &h))
		return 0;
	return h.phoff + (uint64_t)h.phnum * h.phentsize;
}

/* File offset of virtual address @va through the PT_LOAD segments. */
static bool elf_va_to_off(const struct kimg *k, uint64_t va, uint64_t *off)
{
	struct elf_hdr h;

	if (!elf_hdr(k, &h) || !tg_in_bounds(k->len, h.phoff, (uint64_t)h.phnum * h.phentsize))
		return false;
	for (unsigned i = 0; i < h.phnum; i++) {
		const unsigned char *ph = k->p + h.phoff + (uint64_t)i * h.phentsize;
		uint64_t vaddr = FLD(k, ph, 8, 16, 4, 8), filesz = FLD(k, ph, 16, 32, 4, 8);

		if (rd(k, ph, 4) != 1 /* PT_LOAD */ || va < vaddr || va - vaddr >= filesz)
			continue;
		*off = FLD(k, ph, 4, 8, 4, 8) + (va - vaddr);
		return true;
	}
	return false;
}

struct elf_sec {
	const char *name;	/* NUL-terminated inside the image, or "" */
	uint32_t type;
	uint64_t off, size, link, entsize;
};

static bool elf_section(const struct kimg *k, const struct elf_hdr *h, unsigned i, struct elf_sec *s)
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
	name = rd(k, sh, 4);
	s->name = "";
	if (tg_in_bounds(k->len, stroff, strsize) && name < strsize &&
	    memchr(k->p + stroff + name, '\0', strsize - name))
		s->name = (const char *)k->p + stroff + name;
	s->type = (uint32_t)rd(k, sh + 4, 4);
	s->off = FLD(k, sh, 16, 24, 4, 8);
	s->size = FLD(k, sh, 20, 32, 4, 8);
	s->link = rd(k, sh + (k->is64 ? 40 : 24), 4);
	s->entsize = FLD(k, sh, 36, 56, 4, 8);
	return tg_in_bounds(k->len, s->off, s->type == 8 /* NOBITS */ ? 0 : s->size);
}

/* Value of symbol @name in .symtab (an uncompressed vmlinux keeps it). */
static bool elf_symbol(const struct kimg *k, const char *name, uint64_t *value)
{
	size_t nlen = strlen(name);
	struct elf_hdr h;
	struct elf_sec sym, str;

	if (!elf_hdr(k, &h))
		return false;
	for (unsigned i = 1; i < h.shnum; i++) {
		uint64_t esz = k->is64 ? 24 : 16;

		if (!elf_section(k, &h, i, &sym) || sym.type != 2 /* SYMTAB */ || sym.entsize < esz ||
		    !elf_section(k, &h, (unsigned)sym.link, &str))
			continue;
		for (uint64_t o = 0; o + sym.entsize <= sym.size; o += sym.entsize) {
			const unsigned char *e = k->p + sym.off + o;
			uint64_t nm = rd(k, e, 4);

			if (nm >= str.size || str.size - nm <= nlen ||
			    memcmp(k->p + str.off + nm, name, nlen + 1))
				continue;
			*value = FLD(k, e, 4, 8, 4, 8);
			return true;
		}
	}
	return false;
}

/* ------------------------------------------------------------ the list */

/*
 * Certificates as load_system_certificate_list() walks them: each starts
 * "30 82" with a two-byte length and must fit.  Returns the bytes covered by
 * whole certificates from @p on (the walk stops at the first that is not one).
 */
static size_t cert_run(const unsigned char *p, size_t avail, size_t *count, size_t *first)
{
	size_t n = 0, c = 0;

	while (avail - n >= 4 && p[n] == 0x30 && p[n + 1] == 0x82) {
		size_t l = ((size_t)p[n + 2] << 8 | p[n + 3]) + 4;

		/* the TBSCertificate is itself a long-form SEQUENCE: skips most look-alikes */
		if (l > avail - n || l < 8 || p[n + 4] != 0x30 || p[n + 5] < 0x81)
			break;
		if (!c)
			*first = l;
		n += l;
		c++;
	}
	*count = c;
	return n;
}

struct candidate {
	size_t off, len;
	bool module_size;	/* followed by module_cert_size too (5.13+) */
};

/*
 * Is there a system certificate list at @o (below @hi)?  The run of
 * certificates must be followed (after alignment, and after the reserved
 * area of CONFIG_SYSTEM_EXTRA_CERTIFICATE: zeros and its 0/1 "used" flag) by
 * its own length; module_cert_size, when there, is 0 or the length of the
 * first certificate.
 */
static bool candidate_at(const struct kimg *k, size_t hi, size_t o, struct candidate *c)
{
	unsigned w = k->is64 ? 8 : 4;
	size_t count, first = 0, len = cert_run(k->p + o, hi - o, &count, &first);
	size_t q, zeros = 0;
	uint64_t v;

	if (!count)
		return false;
	q = (o + len + 7) & ~(size_t)7;
	for (;;) {
		if (q > hi || hi - q < w)
			return false;
		v = rd(k, k->p + q, w);
		if (v == len)
			break;
		if (v > 1 || (zeros += 8) > EXTRA_CERT_MAX)
			return false;
		q += 8;
	}
	c->off = o;
	c->len = len;
	q = (q + w + 7) & ~(size_t)7;
	c->module_size = q <= hi && hi - q >= w &&
			 ((v = rd(k, k->p + q, w)) == 0 || v == first);
	return true;
}

/* Scan [lo, hi) at 8-byte boundaries; keep the best candidates. */
static void scan_region(const struct kimg *k, size_t lo, size_t hi, struct candidate *best,
			size_t *nbest)
{
	for (size_t o = (lo + 7) & ~(size_t)7; o < hi && hi - o >= 8; o += 8) {
		struct candidate c;
		const unsigned char *p = k->p + o;

		if (p[0] != 0x30 || p[1] != 0x82 || !candidate_at(k, hi, o, &c))
			continue;
		/* a list followed by module_cert_size beats one that is not */
		if (*nbest && best[0].module_size != c.module_size) {
			if (!c.module_size)
				continue;
			*nbest = 0;
		}
		if (*nbest < 2)
			best[*nbest] = c;
		(*nbest)++;
		o += c.len ? ((c.len - 1) & ~(size_t)7) : 0;	/* not again inside this list */
	}
}

static int scan_layout(const struct kimg *k, struct candidate *found, const char **where)
{
	struct candidate best[2];
	size_t nbest = 0;
	struct elf_hdr h;
	struct elf_sec s;
	bool sections = false;

	*where = "the whole image";
	if (k->elf && elf_hdr(k, &h)) {
		for (unsigned i = 1; i < h.shnum; i++) {
			if (!elf_section(k, &h, i, &s) || s.type != 1 /* PROGBITS */ ||
			    (strcmp(s.name, ".init.data") && strcmp(s.name, ".init.rodata")))
				continue;
			sections = true;
			*where = s.name;
			scan_region(k, (size_t)s.off, (size_t)(s.off + s.size), best, &nbest);
		}
	}
	if (!sections)
		scan_region(k, 0, k->len, best, &nbest);
	if (nbest == 0)
		return -ENOENT;
	if (nbest > 1)
		return -ENOTUNIQ;
	*found = best[0];
	return 0;
}

/* --------------------------------------------------------------- System.map */

struct ksyms {
	uint64_t list, size, text;
	bool have_list, have_size, have_text;
};

/* "ffffffff82a7ec58 D system_certificate_list" lines; anything else is skipped. */
static void sysmap_parse(const char *s, size_t n, struct ksyms *ks)
{
	const char *end = s + n;

	memset(ks, 0, sizeof(*ks));
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s)), *p = s, *name;
		uint64_t a = 0;
		size_t nl;
		int digits = 0;

		if (!eol)
			eol = end;
		while (p < eol && digits <= 16) {
			int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10 :
				*p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

			if (v < 0)
				break;
			a = a << 4 | (uint64_t)v;
			p++;
			digits++;
		}
		if (digits && digits <= 16 && eol - p > 3 && p[0] == ' ' && p[2] == ' ') {
			name = p + 3;
			nl = (size_t)(eol - name);
#define SYM(str, field, flag) \
	if (nl == sizeof(str) - 1 && !memcmp(name, str, nl)) { ks->field = a; ks->flag = true; }
			SYM("system_certificate_list", list, have_list)
			SYM("system_certificate_list_size", size, have_size)
			SYM("_text", text, have_text)
#undef SYM
		}
		s = eol + 1;
	}
}

/* --------------------------------------------------------------- reading */

struct kread {
	const unsigned char *payload;	/* compressed kernel, or the image itself */
	size_t payload_len;
	enum kzip zip;
	uint64_t cap;
	unsigned char *buf;		/* decoded bytes (NULL when not compressed) */
	struct kimg k;
};

/* Decode the first @want bytes (all with UINT64_MAX) and identify them. */
static int kread_decode(struct kread *r, uint64_t want)
{
	size_t len;
	int ret;

	if (r->zip == KZ_NONE)
		return kimg_identify(&r->k, r->payload, r->payload_len);
	free(r->buf);
	r->buf = NULL;
	ret = unzip(r->zip, r->payload, r->payload_len, r->cap, want, &r->buf, &len);
	if (ret < 0)
		return ret;
	return kimg_identify(&r->k, r->buf, len);
}

/* Make sure the first @need decoded bytes are there (decoding again, further). */
static int kread_need(struct kread *r, uint64_t need)
{
	if (r->k.len >= need || r->zip == KZ_NONE)
		return 0;
	return kread_decode(r, need);
}

/* List at virtual address @list_va, its length at @size_va: offsets, bounds, length. */
static int read_at(struct kread *r, uint64_t list_va, uint64_t size_va, uint64_t text,
		   struct candidate *c)
{
	unsigned w = r->k.is64 ? 8 : 4;
	uint64_t lo, so, ph;
	int ret;

	if (r->k.elf) {
		ph = elf_phdrs_end(&r->k);
		if (!ph)
			return -EBADMSG;
		if ((ret = kread_need(r, ph)) < 0)
			return ret;
		if (!elf_va_to_off(&r->k, list_va, &lo) || !elf_va_to_off(&r->k, size_va, &so))
			return -ERANGE;
	} else {
		if (list_va < text || size_va < text)
			return -ERANGE;
		lo = list_va - text;
		so = size_va - text;
	}
	if (so > UINT64_MAX - w || (ret = kread_need(r, so + w)) < 0)
		return so > UINT64_MAX - w ? -ERANGE : ret;
	if (!tg_in_bounds(r->k.len, so, w))
		return -ERANGE;
	c->off = (size_t)lo;
	c->len = (size_t)rd(&r->k, r->k.p + so, w);
	if (c->len > CERT_LIST_MAX || lo > UINT64_MAX - c->len)
		return -ERANGE;
	if ((ret = kread_need(r, lo + c->len)) < 0)
		return ret;
	return tg_in_bounds(r->k.len, lo, c->len) ? 0 : -ERANGE;
}

/* Does [off, off+len) hold whole certificates, as the kernel will walk it? */
static bool list_sane(const struct kimg *k, const struct candidate *c)
{
	size_t count, first;

	return c->len && cert_run(k->p + c->off, c->len, &count, &first) == c->len;
}

static const char *errstr(int r)
{
	switch (r) {
	case -EFBIG: return "decompresses past the kernel image size limit (decompression bomb?)";
	case -ENOMEM: return "out of memory";
	case -EBADMSG: return "corrupt or truncated";
	case -EPROTONOSUPPORT: return "a format taintguard does not read";
	case -ENOEXEC: return "not a kernel image (no bzImage or zboot header, no ELF or arm64/riscv Image)";
	case -ERANGE: return "System.map addresses fall outside the image";
	case -ENOENT: return "no certificate list found";
	case -ENOTUNIQ: return "more than one run of certificates looks like the certificate list";
	}
	return strerror(-r);
}

int tg_kimage_cert_list(const void *data, size_t len, const char *label, const char *sysmap,
			size_t maplen, const struct tg_limits *lim, unsigned char **list,
			size_t *list_len, char **how, struct tg_error *err)
{
	struct kread r = { .cap = lim->max_kernel_image_size };
	const char *container, *where = NULL, *mapnote = "";
	struct candidate c = { 0 };
	struct ksyms ks = { 0 };
	uint64_t lva = 0, sva = 0;
	bool by_syms = false;
	int ret;

	*list = NULL;
	*list_len = 0;
	*how = NULL;
	ret = find_payload(data, len, &r.payload, &r.payload_len, &container);
	if (ret < 0)
		return tg_fail(err, ret, "%s: %s %s", label, container,
			       ret == -EPROTONOSUPPORT ? "of boot protocol before 2.08 (no payload offset)" :
			       "whose payload lies outside the file (truncated?)");
	r.zip = kzip_detect(r.payload, r.payload_len);
	if (r.zip == KZ_BZIP2 || r.zip == KZ_LZO)
		return tg_fail(err, -EPROTONOSUPPORT, "%s: kernel compressed with %s, which taintguard "
			       "does not decompress", label, kzip_names[r.zip]);
	if (sysmap)
		sysmap_parse(sysmap, maplen, &ks);
	/* With System.map only the bytes up to the list are decoded. */
	ret = kread_decode(&r, ks.have_list && ks.have_size ? HEAD_BYTES : UINT64_MAX);
	if (ret < 0)
		goto fail;
	if (ks.have_list && ks.have_size && (r.k.elf || ks.have_text)) {
		ret = read_at(&r, ks.list, ks.size, ks.text, &c);
		if (ret == 0 && list_sane(&r.k, &c)) {
			by_syms = true;
			where = "System.map";
		} else {
			mapnote = " (System.map does not match the image)";
		}
		if (!by_syms && r.zip != KZ_NONE && (ret = kread_decode(&r, UINT64_MAX)) < 0)
			goto fail;
	}
	if (!by_syms && r.k.elf && elf_symbol(&r.k, "system_certificate_list", &lva) &&
	    elf_symbol(&r.k, "system_certificate_list_size", &sva) &&
	    read_at(&r, lva, sva, 0, &c) == 0 && list_sane(&r.k, &c)) {
		by_syms = true;
		where = "the image's symbol table";
	}
	if (!by_syms) {
		ret = scan_layout(&r.k, &c, &where);
		if (ret < 0)
			goto fail;
	}
	*list = malloc(c.len ? c.len : 1);
	if (!*list) {
		ret = -ENOMEM;
		goto fail;
	}
	memcpy(*list, r.k.p + c.off, c.len);
	*list_len = c.len;
	*how = strf("%s%s%s %s, system_certificate_list %s %s%s", container ? container : "",
			   container ? ", " : "", kzip_names[r.zip], r.k.what,
			   by_syms ? "from" : "found by its layout in", where, mapnote);
	free(r.buf);
	if (!*how) {
		free(*list);
		*list = NULL;
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	}
	return 0;
fail:
	free(r.buf);
	return tg_fail(err, ret, "%s: %s%s%s kernel: %s%s", label, container ? container : "",
		       container ? ", " : "", kzip_names[r.zip], errstr(ret), mapnote);
}
