/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel image reader's layers, on images built here from real bytes:
 * decompression (decompress.h) of this very test program compressed with
 * zlib, liblzma and libzstd; the containers (bzImage, EFI zboot, s390); the raw
 * ELF reader (kimage.h) against libelf's reading of the same file; and the
 * certificate search (tg_kimage_cert_list) on images holding a certificate
 * made now with OpenSSL.  No host kernel is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <gelf.h>
#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <openssl/evp.h>
#include <openssl/rsa.h>
#include <openssl/x509.h>

#include "keyring.h"
#include "kimage.h"

/* ------------------------------------------------------------ inputs */

/* This test program: a real ELF file the build made. */
static unsigned char *self_elf(size_t *len)
{
	void *buf = NULL;

	assert_int_equal(tg_read_path("/proc/self/exe", 64u << 20, &buf, len, NULL), 0);
	assert_true(*len > 4096);
	return buf;
}

static unsigned char *gzip_of(const unsigned char *in, size_t len, size_t *outlen)
{
	z_stream z;
	unsigned char *out;

	memset(&z, 0, sizeof(z));
	assert_int_equal(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	*outlen = deflateBound(&z, len);
	out = malloc(*outlen);
	assert_non_null(out);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)*outlen;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = z.total_out;
	deflateEnd(&z);
	return out;
}

static unsigned char *xz_of(const unsigned char *in, size_t len, size_t *outlen)
{
	size_t cap = lzma_stream_buffer_bound(len), pos = 0;
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, in, len, out, &pos, cap),
			 LZMA_OK);
	*outlen = pos;
	return out;
}

static unsigned char *zstd_of(const unsigned char *in, size_t len, size_t *outlen)
{
	size_t cap = ZSTD_compressBound(len);
	unsigned char *out = malloc(cap);

	assert_non_null(out);
	*outlen = ZSTD_compress(out, cap, in, len, 3);
	assert_false(ZSTD_isError(*outlen));
	return out;
}

typedef unsigned char *(*compress_fn)(const unsigned char *, size_t, size_t *);

static const struct {
	const char *name;
	compress_fn fn;
	enum tg_kzip kind;
} compressors[] = {
	{ "gzip", gzip_of, TG_KZ_GZIP },
	{ "xz", xz_of, TG_KZ_XZ },
	{ "zstd", zstd_of, TG_KZ_ZSTD },
};

/* A bzImage-like file: setup header (protocol @proto) with one setup sector, then @payload. */
static unsigned char *bzimage_of(const unsigned char *payload, size_t plen, uint16_t proto,
				 size_t *outlen)
{
	size_t start = 2 * 512, off = 0x40;
	unsigned char *img = calloc(1, start + off + plen);

	assert_non_null(img);
	img[0x1f1] = 1;
	memcpy(img + 0x202, "HdrS", 4);
	img[0x206] = (unsigned char)proto;
	img[0x207] = (unsigned char)(proto >> 8);
	for (int i = 0; i < 4; i++) {
		img[0x248 + i] = (unsigned char)(off >> (8 * i));
		img[0x24c + i] = (unsigned char)(plen >> (8 * i));
	}
	memcpy(img + start + off, payload, plen);
	*outlen = start + off + plen;
	return img;
}

/* A self-signed certificate made now (RSA: its DER starts "30 82" as kernel keys do). */
static unsigned char *make_cert(const char *cn, int *len)
{
	EVP_PKEY *key = EVP_RSA_gen(2048);
	X509 *x = X509_new();
	X509_NAME *name;
	unsigned char *der = NULL;

	assert_non_null(key);
	assert_non_null(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 0x5ee1);
	X509_gmtime_adj(X509_getm_notBefore(x), 0);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, key);
	name = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, name);
	assert_true(X509_sign(x, key, EVP_sha256()) > 0);
	*len = i2d_X509(x, &der);
	assert_true(*len > 260);
	assert_int_equal(der[0], 0x30);
	assert_int_equal(der[1], 0x82);
	X509_free(x);
	EVP_PKEY_free(key);
	return der;
}

/*
 * An arm64 Image (magic at 0x38) of @len bytes with the list @cert laid out
 * as certs/system_certificates.S does at each offset of @at: the
 * certificates, then (8-aligned) its length and module_cert_size.
 */
static unsigned char *arm64_image(size_t len, const unsigned char *cert, size_t clen,
				  const size_t *at, size_t n_at)
{
	unsigned char *img = malloc(len);

	assert_non_null(img);
	for (size_t i = 0; i < len; i++)
		img[i] = (unsigned char)(i * 7 + 3);
	memcpy(img + 0x38, "ARM\x64", 4);
	for (size_t k = 0; k < n_at; k++) {
		size_t q = (at[k] + clen + 7) & ~(size_t)7;

		memcpy(img + at[k], cert, clen);
		for (int i = 0; i < 8; i++) {
			img[q + i] = (unsigned char)((uint64_t)clen >> (8 * i));
			img[q + 8 + i] = (unsigned char)((uint64_t)clen >> (8 * i));
		}
	}
	return img;
}

/* ------------------------------------------------------------ decompression */

/* Each compressor's output decodes to the very bytes; a prefix stops early. */
static void test_decode_real_elf(void **state)
{
	size_t len, zlen, outlen;
	unsigned char *elf = self_elf(&len);

	for (size_t c = 0; c < TG_ARRAY_SIZE(compressors); c++) {
		unsigned char *z = compressors[c].fn(elf, len, &zlen), *out = NULL;

		assert_int_equal(tg_kzip_detect(z, zlen), compressors[c].kind);
		assert_string_equal(tg_kzip_name(compressors[c].kind), compressors[c].name);
		assert_int_equal(tg_kzip_decode(compressors[c].kind, z, zlen, len, UINT64_MAX, &out,
						&outlen), 0);
		assert_int_equal(outlen, len);
		assert_memory_equal(out, elf, len);
		free(out);
		/* only the head wanted: decoding stops there */
		assert_int_equal(tg_kzip_decode(compressors[c].kind, z, zlen, len, 4096, &out, &outlen), 0);
		assert_true(outlen >= 4096 && outlen < len);
		assert_memory_equal(out, elf, 4096);
		free(out);
		free(z);
	}
	free(elf);
}

/* Past the cap is -EFBIG; a cut or damaged stream is -EBADMSG. */
static void test_decode_errors(void **state)
{
	size_t len, zlen, outlen;
	unsigned char *elf = self_elf(&len), *out = NULL;

	for (size_t c = 0; c < TG_ARRAY_SIZE(compressors); c++) {
		unsigned char *z = compressors[c].fn(elf, len, &zlen);
		enum tg_kzip k = compressors[c].kind;

		assert_int_equal(tg_kzip_decode(k, z, zlen, len / 2, UINT64_MAX, &out, &outlen), -EFBIG);
		assert_null(out);
		assert_int_equal(tg_kzip_decode(k, z, zlen / 2, len, UINT64_MAX, &out, &outlen),
				 -EBADMSG);
		assert_null(out);
		free(z);
	}
	/* kbuild's bzip2 and lzo are recognised, not read */
	assert_int_equal(tg_kzip_detect((const unsigned char *)"BZh91AY", 7), TG_KZ_BZIP2);
	assert_int_equal(tg_kzip_decode(TG_KZ_BZIP2, (const unsigned char *)"BZh91AY", 7, len,
					UINT64_MAX, &out, &outlen), -EPROTONOSUPPORT);
	free(elf);
}

/* ------------------------------------------------------------ containers */

static void test_bzimage_payload(void **state)
{
	size_t len, zlen, blen, pln;
	unsigned char *elf = self_elf(&len), *z = gzip_of(elf, len, &zlen), *bz;
	const unsigned char *pl;
	const char *container;
	struct tg_kread r = { .cap = len };

	bz = bzimage_of(z, zlen, 0x20f, &blen);
	assert_int_equal(tg_kimage_payload(bz, blen, &pl, &pln, &container), 0);
	assert_string_equal(container, "bzImage");
	assert_ptr_equal(pl, bz + 2 * 512 + 0x40);
	assert_int_equal(pln, zlen);
	/* the payload decoded: this program's ELF, identified as such */
	r.payload = pl;
	r.payload_len = pln;
	r.zip = tg_kzip_detect(pl, pln);
	assert_int_equal(tg_kread_decode(&r, UINT64_MAX), 0);
	assert_true(r.k.elf);
	assert_string_equal(r.k.what, "ELF vmlinux");
	assert_int_equal(r.k.len, len);
	assert_int_equal(r.k.is64, elf[EI_CLASS] == ELFCLASS64);
	free(r.buf);
	/* a payload running past the end of the file */
	assert_int_equal(tg_kimage_payload(bz, blen - 1, &pl, &pln, &container), -EBADMSG);
	free(bz);
	/* boot protocol 2.07 has no payload fields */
	bz = bzimage_of(z, zlen, 0x207, &blen);
	assert_int_equal(tg_kimage_payload(bz, blen, &pl, &pln, &container), -EPROTONOSUPPORT);
	free(bz);
	free(z);
	free(elf);
}

static void test_zboot_and_plain(void **state)
{
	unsigned char img[0x300] = { 'M', 'Z' };
	const unsigned char *pl;
	const char *container;
	size_t pln;

	memcpy(img + 4, "zimg", 4);
	img[8] = 0x00, img[9] = 0x02;		/* payload at 0x200 */
	img[12] = 0x00, img[13] = 0x01;		/* 0x100 bytes */
	assert_int_equal(tg_kimage_payload(img, sizeof(img), &pl, &pln, &container), 0);
	assert_string_equal(container, "EFI zboot image");
	assert_ptr_equal(pl, img + 0x200);
	assert_int_equal(pln, 0x100);
	assert_int_equal(tg_kimage_payload(img, 0x2ff, &pl, &pln, &container), -EBADMSG);
	/* no container: the whole file is the kernel */
	img[0] = 'X';
	assert_int_equal(tg_kimage_payload(img, sizeof(img), &pl, &pln, &container), 0);
	assert_null(container);
	assert_ptr_equal(pl, img);
	assert_int_equal(pln, sizeof(img));
}

/* Neither ELF nor Image: -ENOEXEC; an ELF header of an unknown class: -EBADMSG. */
static void test_identify_garbage(void **state)
{
	unsigned char junk[4096];
	struct tg_kread r = { .payload = junk, .payload_len = sizeof(junk), .zip = TG_KZ_NONE };

	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)(i * 13 + 5);
	assert_int_equal(tg_kzip_detect(junk, sizeof(junk)), TG_KZ_NONE);
	assert_int_equal(tg_kread_decode(&r, UINT64_MAX), -ENOEXEC);
	memcpy(junk, "\177ELF\x07\x01", 6);
	assert_int_equal(tg_kread_decode(&r, UINT64_MAX), -EBADMSG);
}

/* ------------------------------------------------------------ the raw ELF reader */

/* Sections and a symbol of this program as the raw reader and libelf read them. */
static void test_elf_reader_matches_libelf(void **state)
{
	size_t len, shnum, shstrndx;
	unsigned char *elf = self_elf(&len);
	struct tg_kread r = { .payload = elf, .payload_len = len, .zip = TG_KZ_NONE };
	Elf *e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	uint64_t value = 0, off = 0;
	bool found_main = false, found_text = false;

	assert_int_equal(tg_kread_decode(&r, UINT64_MAX), 0);
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	e = elf_memory((char *)elf, len);
	assert_non_null(e);
	assert_int_equal(elf_getshdrnum(e, &shnum), 0);
	assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
	assert_int_equal(tg_kimg_shnum(&r.k), shnum);
	while ((scn = elf_nextscn(e, scn))) {
		struct tg_kimg_sec s;
		size_t i = elf_ndxscn(scn);

		assert_non_null(gelf_getshdr(scn, &sh));
		assert_true(tg_kimg_section(&r.k, (unsigned)i, &s));
		assert_string_equal(s.name, elf_strptr(e, shstrndx, sh.sh_name));
		assert_int_equal(s.type, sh.sh_type);
		assert_int_equal(s.off, sh.sh_offset);
		assert_int_equal(s.size, sh.sh_size);
		found_text |= !strcmp(s.name, ".text");
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		for (size_t k = 0; k < sh.sh_size / sh.sh_entsize; k++) {
			GElf_Sym sym;

			assert_non_null(gelf_getsym(elf_getdata(scn, NULL), (int)k, &sym));
			if (strcmp(elf_strptr(e, sh.sh_link, sym.st_name) ?: "", "main"))
				continue;
			assert_true(tg_kimg_symbol(&r.k, "main", &value));
			assert_int_equal(value, sym.st_value);
			found_main = true;
		}
	}
	assert_true(found_text);
	assert_true(found_main);	/* the test is built with its symbol table */
	assert_false(tg_kimg_section(&r.k, (unsigned)shnum, &(struct tg_kimg_sec){ 0 }));
	assert_false(tg_kimg_symbol(&r.k, "no_such_symbol_in_this_program", &value));
	/* main lies in a PT_LOAD segment: its file offset holds main's code */
	assert_true(tg_kimg_phdrs_end(&r.k) > 0);
	assert_true(tg_kimg_va_to_off(&r.k, value, &off));
	assert_true(off < len);
	elf_end(e);
	free(elf);
}

/* ------------------------------------------------------------ certificate search */

static int cert_list(const unsigned char *img, size_t len, const char *map, unsigned char **list,
		     size_t *llen, char **how, struct tg_error *err)
{
	struct tg_limits lim;

	tg_limits_default(&lim);
	return tg_kimage_cert_list(img, len, "test-image", map, map ? strlen(map) : 0, &lim, list,
				   llen, how, NULL, err);
}

/* The list found in @img is @cert, and was found as @want_how says. */
static void expect_list(const unsigned char *img, size_t len, const char *map,
			const unsigned char *cert, int clen, const char *want_how)
{
	struct tg_error err = { 0 };
	unsigned char *list = NULL;
	size_t llen = 0;
	char *how = NULL;

	assert_int_equal(cert_list(img, len, map, &list, &llen, &how, &err), 0);
	assert_int_equal(llen, (size_t)clen);
	assert_memory_equal(list, cert, (size_t)clen);
	assert_string_equal(how, want_how);
	free(list);
	free(how);
}

static void test_certs_by_layout(void **state)
{
	int clen;
	unsigned char *cert = make_cert("kimage test signing key", &clen);
	size_t at[] = { 0x2000 }, len = 0x10000, zlen, blen;
	unsigned char *img = arm64_image(len, cert, (size_t)clen, at, 1), *z, *bz;

	expect_list(img, len, NULL, cert, clen, "uncompressed arm64 Image, system_certificate_list "
		    "found by its layout in the whole image");
	/* the same image gzip'ed inside a bzImage */
	z = gzip_of(img, len, &zlen);
	bz = bzimage_of(z, zlen, 0x20f, &blen);
	expect_list(bz, blen, NULL, cert, clen, "bzImage, gzip arm64 Image, system_certificate_list "
		    "found by its layout in the whole image");
	free(bz);
	free(z);
	free(img);
	OPENSSL_free(cert);
}

/* System.map names the list: read from there, _text being byte 0 of a raw Image. */
static void test_certs_by_sysmap(void **state)
{
	int clen;
	unsigned char *cert = make_cert("kimage test signing key", &clen);
	size_t at[] = { 0x3000 }, len = 0x10000, q = (0x3000 + (size_t)clen + 7) & ~(size_t)7;
	unsigned char *img = arm64_image(len, cert, (size_t)clen, at, 1);
	char map[256];

	snprintf(map, sizeof(map), "ffff800080000000 T _text\nffff800080003000 D system_certificate_list\n"
		 "%016llx D system_certificate_list_size\n", 0xffff800080000000ull + q);
	expect_list(img, len, map, cert, clen,
		    "uncompressed arm64 Image, system_certificate_list from System.map");
	free(img);
	OPENSSL_free(cert);
}

/*
 * s390's vmlinux.bin (raw, big-endian) with the list at 0x2000 followed by
 * its length and module_cert_size in big-endian (@be) or little-endian words.
 */
static unsigned char *s390_raw(size_t len, const unsigned char *cert, size_t clen, bool be)
{
	unsigned char *img = malloc(len);
	size_t q = (0x2000 + clen + 7) & ~(size_t)7;

	assert_non_null(img);
	for (size_t i = 0; i < len; i++)
		img[i] = (unsigned char)(i * 7 + 3);
	memcpy(img + 0x2000, cert, clen);
	for (int i = 0; i < 8; i++) {
		img[q + (be ? 7 - i : i)] = (unsigned char)((uint64_t)clen >> (8 * i));
		img[q + 8 + (be ? 7 - i : i)] = (unsigned char)((uint64_t)clen >> (8 * i));
	}
	return img;
}

/*
 * An s390 image as arch/s390/boot makes it: the IPL PSW and CCWs, the
 * decompressor (here filler holding the xz magic, as its xz decoder does),
 * then @payload (the compressed vmlinux.bin), then more of the decompressor.
 */
static unsigned char *s390_image(const unsigned char *payload, size_t plen, size_t *outlen)
{
	static const unsigned char ipl[24] = {
		0x00, 0x08, 0x00, 0x00, 0x80, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x18,
		0x60, 0x00, 0x00, 0x50, 0x02, 0x00, 0x00, 0x68, 0x60, 0x00, 0x00, 0x50,
	};
	static const unsigned char xz_magic[] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
	size_t off = 0x1000, tail = 0x200;
	unsigned char *img = malloc(off + plen + tail);

	assert_non_null(img);
	memset(img, 0x40, off + plen + tail);
	memcpy(img, ipl, sizeof(ipl));
	memcpy(img + 0x400, xz_magic, sizeof(xz_magic));
	memcpy(img + off, payload, plen);
	*outlen = off + plen + tail;
	return img;
}

/* The list of an s390 image: the compressed kernel found past a look-alike, read big-endian. */
static void test_certs_s390(void **state)
{
	int clen;
	unsigned char *cert = make_cert("kimage test signing key", &clen), *list = NULL;
	size_t len = 0x10000, zlen, slen, llen;
	unsigned char *raw = s390_raw(len, cert, (size_t)clen, true), *z, *img;
	const unsigned char *pl;
	const char *container;
	struct tg_error err = { 0 };
	char *how = NULL;
	size_t pln;

	for (size_t i = 0; i < sizeof(compressors) / sizeof(compressors[0]); i++) {
		char want[160];

		z = compressors[i].fn(raw, len, &zlen);
		img = s390_image(z, zlen, &slen);
		assert_int_equal(tg_kimage_payload(img, slen, &pl, &pln, &container), 0);
		assert_ptr_equal(container, tg_kimage_s390);
		assert_ptr_equal(pl, img + 0x1000);
		assert_int_equal(pln, slen - 0x1000);
		snprintf(want, sizeof(want), "s390 image, %s s390 vmlinux.bin, system_certificate_list "
			 "found by its layout in the whole image", compressors[i].name);
		expect_list(img, slen, NULL, cert, clen, want);
		free(img);
		free(z);
	}
	/* CONFIG_KERNEL_UNCOMPRESSED: no stream, the whole file holds the kernel */
	img = s390_image(raw, len, &slen);
	assert_int_equal(tg_kimage_payload(img, slen, &pl, &pln, &container), 0);
	assert_ptr_equal(pl, img);
	expect_list(img, slen, NULL, cert, clen, "s390 image, uncompressed s390 vmlinux.bin, "
		    "system_certificate_list found by its layout in the whole image");
	free(img);
	/* the length in little-endian words is not s390's list */
	free(raw);
	raw = s390_raw(len, cert, (size_t)clen, false);
	z = xz_of(raw, len, &zlen);
	img = s390_image(z, zlen, &slen);
	assert_int_equal(cert_list(img, slen, NULL, &list, &llen, &how, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "s390 image, xz kernel: no certificate list found"));
	free(img);
	free(z);
	free(raw);
	OPENSSL_free(cert);
}

/* Two look-alike lists: an error, never a guess; none: -ENOENT; junk: -ENOEXEC. */
static void test_certs_errors(void **state)
{
	int clen;
	unsigned char *cert = make_cert("kimage test signing key", &clen), *list = NULL;
	size_t two[] = { 0x2000, 0x8000 }, len = 0x10000, llen;
	unsigned char *img = arm64_image(len, cert, (size_t)clen, two, 2);
	struct tg_error err = { 0 };
	char *how = NULL;

	assert_int_equal(cert_list(img, len, NULL, &list, &llen, &how, &err), -ENOTUNIQ);
	assert_null(list);
	assert_non_null(strstr(err.msg, "more than one run of certificates"));
	free(img);
	img = arm64_image(len, cert, (size_t)clen, NULL, 0);
	assert_int_equal(cert_list(img, len, NULL, &list, &llen, &how, &err), -ENOENT);
	assert_non_null(strstr(err.msg, "no certificate list found"));
	memset(img + 0x38, 0, 4);
	assert_int_equal(cert_list(img, len, NULL, &list, &llen, &how, &err), -ENOEXEC);
	assert_non_null(strstr(err.msg, "test-image: uncompressed kernel: not a kernel image"));
	/* truncated: the gzip stream of the image cut short */
	memcpy(img + 0x38, "ARM\x64", 4);
	{
		size_t zlen;
		unsigned char *z = gzip_of(img, len, &zlen);

		assert_int_equal(cert_list(z, zlen / 2, NULL, &list, &llen, &how, &err), -EBADMSG);
		assert_non_null(strstr(err.msg, "gzip kernel: corrupt or truncated"));
		free(z);
	}
	free(img);
	OPENSSL_free(cert);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_real_elf),
		cmocka_unit_test(test_decode_errors),
		cmocka_unit_test(test_bzimage_payload),
		cmocka_unit_test(test_zboot_and_plain),
		cmocka_unit_test(test_identify_garbage),
		cmocka_unit_test(test_elf_reader_matches_libelf),
		cmocka_unit_test(test_certs_by_layout),
		cmocka_unit_test(test_certs_by_sysmap),
		cmocka_unit_test(test_certs_errors),
		cmocka_unit_test(test_certs_s390),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
