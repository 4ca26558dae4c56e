/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decompression of kernel images (decompress.c, beside the module and
 * symbol table decompression of taintguard.h's tg_decompress()).  A kernel
 * payload is one stream followed by other bytes, may be compressed with any
 * of kbuild's compressors, and is often only needed up to some offset: its
 * decoder stops after the bytes wanted.  Not installed.
 */
#ifndef TG_DECOMPRESS_H
#define TG_DECOMPRESS_H

#include "internal.h"

static inline uint32_t tg_le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* A decompressed module: @len bytes (NUL-terminated) in a buffer of @size + 1. */
struct tg_image {
	unsigned char *p;
	size_t len, size;
};

/*
 * tg_decompress() into a buffer that may be one a module released before:
 * for readers of many modules in a row.  Release it with tg_image_release(),
 * never free().
 */
int tg_decompress_image(enum tg_compression kind, const void *in, size_t inlen, uint64_t cap,
			struct tg_image *img, const char *label, struct tg_error *err);
/* Keeps the buffer for the next module when it is small, else frees it; clears @img. */
void tg_image_release(struct tg_image *img);

/* The kernel's compressors (scripts/Makefile.lib). */
enum tg_kzip { TG_KZ_NONE, TG_KZ_GZIP, TG_KZ_XZ, TG_KZ_LZMA, TG_KZ_ZSTD, TG_KZ_LZ4, TG_KZ_BZIP2,
	       TG_KZ_LZO };

/* "gzip", ... ("uncompressed" for TG_KZ_NONE). */
const char *tg_kzip_name(enum tg_kzip z);
/* Told apart by their magic; TG_KZ_NONE when none matches. */
enum tg_kzip tg_kzip_detect(const unsigned char *p, size_t n);
/*
 * Decode @in (kind @z, not TG_KZ_NONE) into *out (malloc'ed), at most @cap
 * bytes, stopping (successfully) once @want are there (UINT64_MAX: all of
 * the first stream).  -EFBIG past @cap, -EBADMSG corrupt or truncated,
 * -EPROTONOSUPPORT for bzip2 and lzo, -ENOMEM.
 */
int tg_kzip_decode(enum tg_kzip z, const unsigned char *in, size_t inlen, uint64_t cap,
		   uint64_t want, unsigned char **out, size_t *outlen);

#endif
