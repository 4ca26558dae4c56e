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
 * The image is read by kimage.c (containers, decompression, ELF or raw
 * Image).  The list is found through System.map when it has the symbols (Fedora,
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
#include <string.h>

#include "keyring.h"
#include "kimage.h"
#include "loader_facts.h"

#define HEAD_BYTES (64u << 10)		/* decoded first to read ELF program headers */
#define CERT_LIST_MAX (4u << 20)	/* no kernel carries megabytes of certificates */
#define EXTRA_CERT_MAX (64u << 10)	/* CONFIG_SYSTEM_EXTRA_CERTIFICATE_SIZE is 4 KiB by default */

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
static bool candidate_at(const struct tg_kimg *k, size_t hi, size_t o, struct candidate *c)
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
		v = tg_kimg_word(k, k->p + q, w);
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
			 ((v = tg_kimg_word(k, k->p + q, w)) == 0 || v == first);
	return true;
}

/* Scan [lo, hi) at 8-byte boundaries; keep the best candidates. */
static void scan_region(const struct tg_kimg *k, size_t lo, size_t hi, struct candidate *best,
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

static int scan_layout(const struct tg_kimg *k, struct candidate *found, const char **where)
{
	struct candidate best[2];
	size_t nbest = 0;
	unsigned shnum = tg_kimg_shnum(k);
	struct tg_kimg_sec s;
	bool sections = false;

	*where = "the whole image";
	for (unsigned i = 1; i < shnum; i++) {
		if (!tg_kimg_section(k, i, &s) || s.type != 1 /* PROGBITS */ ||
		    (strcmp(s.name, ".init.data") && strcmp(s.name, ".init.rodata")))
			continue;
		sections = true;
		*where = s.name;
		scan_region(k, (size_t)s.off, (size_t)(s.off + s.size), best, &nbest);
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

/* List at virtual address @list_va, its length at @size_va: offsets, bounds, length. */
static int read_at(struct tg_kread *r, uint64_t list_va, uint64_t size_va, uint64_t text,
		   struct candidate *c)
{
	unsigned w = r->k.is64 ? 8 : 4;
	uint64_t lo, so, ph;
	int ret;

	if (r->k.elf) {
		ph = tg_kimg_phdrs_end(&r->k);
		if (!ph)
			return -EBADMSG;
		if ((ret = tg_kread_need(r, ph)) < 0)
			return ret;
		if (!tg_kimg_va_to_off(&r->k, list_va, &lo) || !tg_kimg_va_to_off(&r->k, size_va, &so))
			return -ERANGE;
	} else {
		if (list_va < text || size_va < text)
			return -ERANGE;
		lo = list_va - text;
		so = size_va - text;
	}
	if (so > UINT64_MAX - w || (ret = tg_kread_need(r, so + w)) < 0)
		return so > UINT64_MAX - w ? -ERANGE : ret;
	if (!tg_in_bounds(r->k.len, so, w))
		return -ERANGE;
	c->off = (size_t)lo;
	c->len = (size_t)tg_kimg_word(&r->k, r->k.p + so, w);
	if (c->len > CERT_LIST_MAX || lo > UINT64_MAX - c->len)
		return -ERANGE;
	if ((ret = tg_kread_need(r, lo + c->len)) < 0)
		return ret;
	return tg_in_bounds(r->k.len, lo, c->len) ? 0 : -ERANGE;
}

/* Does [off, off+len) hold whole certificates, as the kernel will walk it? */
static bool list_sane(const struct tg_kimg *k, const struct candidate *c)
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
	case -ENOEXEC: return "not a kernel image (no bzImage, zboot or s390 header, no ELF or arm64/riscv Image)";
	case -ERANGE: return "System.map addresses fall outside the image";
	case -ENOENT: return "no certificate list found";
	case -ENOTUNIQ: return "more than one run of certificates looks like the certificate list";
	}
	return strerror(-r);
}

int tg_kimage_cert_list(const void *data, size_t len, const char *label, const char *sysmap,
			size_t maplen, const struct tg_limits *lim, unsigned char **list,
			size_t *list_len, char **how, struct tg_kimage_scan *scan, struct tg_error *err)
{
	struct tg_kread r = { .cap = lim->max_kernel_image_size };
	const char *container, *where = NULL, *mapnote = "";
	struct candidate c = { 0 };
	struct ksyms ks = { 0 };
	uint64_t lva = 0, sva = 0;
	bool by_syms = false;
	int ret;

	*list = NULL;
	*list_len = 0;
	*how = NULL;
	ret = tg_kimage_payload(data, len, &r.payload, &r.payload_len, &container);
	if (ret < 0)
		return tg_fail(err, ret, "%s: %s %s", label, container,
			       ret == -EPROTONOSUPPORT ? "of boot protocol before 2.08 (no payload offset)" :
			       "whose payload lies outside the file (truncated?)");
	r.s390 = container == tg_kimage_s390;
	r.zip = tg_kzip_detect(r.payload, r.payload_len);
	if (r.zip == TG_KZ_BZIP2 || r.zip == TG_KZ_LZO)
		return tg_fail(err, -EPROTONOSUPPORT, "%s: kernel compressed with %s, which taintguard "
			       "does not decompress", label, tg_kzip_name(r.zip));
	if (sysmap)
		sysmap_parse(sysmap, maplen, &ks);
	/*
	 * With System.map only the bytes up to the list are decoded, unless the
	 * loader's messages are searched too: then the one decoding is whole.
	 */
	ret = tg_kread_decode(&r, ks.have_list && ks.have_size && !scan ? HEAD_BYTES : UINT64_MAX);
	if (ret < 0)
		goto fail;
	if (scan) {
		scan->lf_bits = tg_lf_scan_image(r.k.p, r.k.len);
		scan->decoded = r.k.len;
	}
	if (ks.have_list && ks.have_size && (r.k.elf || ks.have_text)) {
		ret = read_at(&r, ks.list, ks.size, ks.text, &c);
		if (ret == 0 && list_sane(&r.k, &c)) {
			by_syms = true;
			where = "System.map";
		} else {
			mapnote = " (System.map does not match the image)";
		}
		if (!by_syms && r.zip != TG_KZ_NONE && (ret = tg_kread_decode(&r, UINT64_MAX)) < 0)
			goto fail;
	}
	if (!by_syms && r.k.elf && tg_kimg_symbol(&r.k, "system_certificate_list", &lva) &&
	    tg_kimg_symbol(&r.k, "system_certificate_list_size", &sva) &&
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
			   container ? ", " : "", tg_kzip_name(r.zip), r.k.what,
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
		       container ? ", " : "", tg_kzip_name(r.zip), errstr(ret), mapnote);
}
