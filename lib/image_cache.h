/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a kernel image holds for taintguard (its certificate list and the
 * loader's messages), kept per image (image_cache.c) so that a run after the
 * first pays a SHA-256 of the image, not its decompression (and with a memo
 * of the files' identity, image_memo.c, not even that).  Not installed;
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

/* TG_IMAGE_READER_ID: which code read the image (entries and memos carry it). */
extern const char tg_image_reader_id[17];

/* An entry's name: the digests of the image and of its System.map (zeros: none). */
struct tg_image_key {
	unsigned char img[32], map[32];
	bool kept;		/* an entry of the cache holds the facts (served or stored) */
};

/*
 * The facts of the image @img with System.map @map (may be NULL): from a
 * trusted entry of @c (may be NULL) for exactly these bytes, else by
 * decoding the image (tg_kimage_cert_list()), then stored in @c.  Returns 0
 * or its -errno with @err filled exactly as a decoding would; *@entry is the
 * entry's path when the facts came from @c (malloc'ed), else NULL; @kept
 * (may be NULL) gets the entry's key.
 */
int tg_image_facts_get(struct tg_image_cache *c, const void *img, size_t len, const char *label,
		       const void *map, size_t maplen, const struct tg_limits *lim,
		       struct tg_image_facts *f, char **entry, struct tg_image_key *kept,
		       struct tg_error *err);
/* The same from the entry of @key alone: -ENOENT when @c has none that is believed. */
int tg_image_facts_cached(const struct tg_image_cache *c, const struct tg_image_key *key,
			  const char *label, const struct tg_limits *lim, struct tg_image_facts *f,
			  char **entry, struct tg_error *err);

/*
 * Files of the cache directory for image_memo.c: read whole when trusted
 * (owner, mode, regular) and of @min..@max bytes, with its stat in @st (may
 * be NULL), else NULL; written atomically (temporary file, fsync, rename),
 * 0 or -errno (-EROFS: not ours to write).
 */
struct stat;
const char *tg_image_cache_path(const struct tg_image_cache *c);
unsigned char *tg_image_cache_read(const struct tg_image_cache *c, const char *name, size_t min,
				   size_t max, size_t *len, struct stat *st);
int tg_image_cache_write(const struct tg_image_cache *c, const char *name, const void *p, size_t n);

/*
 * image_memo.c: the entry of the image (and System.map, may be NULL) with
 * these stat()s, without reading them: 0 with @key, the System.map scan's
 * bits and the memo's *@path (malloc'ed), else -errno.  put: remember @key
 * (when kept) for them.
 */
int tg_image_memo_get(const struct tg_image_cache *c, const struct stat *img,
		      const struct stat *map, struct tg_image_key *key, unsigned *map_bits,
		      char **path);
void tg_image_memo_put(const struct tg_image_cache *c, const struct stat *img,
		       const struct stat *map, const struct tg_image_key *key, unsigned map_bits);

/* Images decoded by tg_image_facts_get() in this process (tests prove a warm run decodes none). */
unsigned long tg_image_cache_decodes(void);

#endif
