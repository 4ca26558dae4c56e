/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a kernel image holds for taintguard (its certificate list and the
 * loader's messages), kept per image (image_cache.c) so that a run after the
 * first pays a SHA-256 of the image, not its decompression.  Not installed;
 * docs/cache.md ("The image cache") describes the directory and format.
 */
#ifndef TG_IMAGE_CACHE_H
#define TG_IMAGE_CACHE_H

#include "internal.h"

/* Environment: the cache directory (absolute), or "off". */
#define TG_IMAGE_CACHE_ENV "TAINTGUARD_IMAGE_CACHE"

/* What one decoding of an image found: tg_kimage_cert_list()'s results. */
struct tg_image_facts {
	int err;			/* 0, or the -errno of a failure the bytes decide */
	char *msg;			/* that failure's message, after "LABEL: " */
	unsigned char *list;		/* the system certificate list, DER back to back */
	size_t list_len;
	char *how;			/* where and how the list was found */
	unsigned lf_bits;		/* the loader's messages found (TG_LF_SCANNED: searched) */
	uint64_t decoded;		/* bytes the image decoded to */
};
void tg_image_facts_free(struct tg_image_facts *f);

/* An opened, trusted cache directory. */
struct tg_image_cache;

/*
 * The configured directory (TG_IMAGE_CACHE_ENV, else TG_CACHEDIR/images),
 * created when missing, opened now (a caller that chroots later keeps the
 * host's cache) and checked: NULL when there is none, it is switched off,
 * or it is not trusted (see image_cache.c).
 */
struct tg_image_cache *tg_image_cache_open(void);
void tg_image_cache_free(struct tg_image_cache *c);

/*
 * The facts of the image @img with System.map @map (may be NULL): from a
 * trusted entry of @c (may be NULL) for exactly these bytes, else by
 * decoding the image (tg_kimage_cert_list()), then stored in @c.  Returns 0
 * or its -errno with @err filled exactly as a decoding would; *@entry is the
 * entry's path when the facts came from @c (malloc'ed), else NULL.
 */
int tg_image_facts_get(struct tg_image_cache *c, const void *img, size_t len, const char *label,
		       const void *map, size_t maplen, const struct tg_limits *lim,
		       struct tg_image_facts *f, char **entry, struct tg_error *err);

/* Images decoded by tg_image_facts_get() in this process (tests prove a warm run decodes none). */
unsigned long tg_image_cache_decodes(void);

#endif
