/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image cache's memos: which entry a kernel image file has, known from
 * the file's identity alone.
 *
 * An entry is found by the SHA-256 of the image and of its System.map, so a
 * warm run still reads both files (8 MB and 5 MB for Debian's 6.1) and
 * digests them: 10-15 ms of every check, rpm transaction and DKMS build that
 * meets a signed module.  A memo keeps, per pair of files, their identity
 * (device, inode, size, mtime and ctime to the nanosecond) with the
 * entry's key and what the System.map scan found; a run whose files have
 * that identity reads the entry and neither file.
 *
 * The identity stands for the content only when nothing can change the
 * content and keep it.  ctime is set by the kernel on every change and
 * cannot be set from userspace, but it has the kernel's coarse clock: a
 * change within the same tick as the one before keeps it.  So a memo is
 * written, and believed, only when it is at least a second younger than
 * both files' ctime (git's "racy" rule): any later change then has a later
 * ctime.  Otherwise memos are trusted as entries are (image_cache.c: owner,
 * mode, exact size, the reader's identity, a checksum), and one that does
 * not hold costs the run the reading it would have done without it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/evp.h>

#include "buf.h"
#include "decompress.h"
#include "hex.h"
#include "image_cache.h"

#define MEMO_MAGIC "TGIMEMO\0"
#define MEMO_FORMAT 1u
#define ID_WORDS 7		/* per file: dev, ino, size, mtime s/ns, ctime s/ns */
#define MEMO_LEN (8 + 4 + 4 + 16 + 2 * ID_WORDS * 8 + 4 + 4 + 32 + 32 + 32)
#define ID_LEN (MEMO_LEN - 32 - 64 - 4)	/* up to the map bits: what names the memo */
#define RACY_SECONDS 1

/* The identity of @st (NULL: no file) into @w. */
static void identity(const struct stat *st, uint64_t w[ID_WORDS])
{
	memset(w, 0, ID_WORDS * sizeof(*w));
	if (!st)
		return;
	w[0] = (uint64_t)st->st_dev;
	w[1] = (uint64_t)st->st_ino;
	w[2] = (uint64_t)st->st_size;
	w[3] = (uint64_t)st->st_mtim.tv_sec;
	w[4] = (uint64_t)st->st_mtim.tv_nsec;
	w[5] = (uint64_t)st->st_ctim.tv_sec;
	w[6] = (uint64_t)st->st_ctim.tv_nsec;
}

/* The memo's whole text but for its checksum (the last 32 bytes, zero here). */
static int encode(const struct stat *img, const struct stat *map, const struct tg_image_key *key,
		  unsigned map_bits, struct buf *b)
{
	uint64_t w[ID_WORDS];
	unsigned char zero[32] = { 0 };

	buf_put(b, MEMO_MAGIC, 8);
	buf_put_u32(b, MEMO_FORMAT);
	buf_put_u32(b, 0);
	buf_put(b, tg_image_reader_id, 16);
	identity(img, w);
	for (size_t i = 0; i < ID_WORDS; i++)
		buf_put_u64(b, w[i]);
	identity(map, w);
	for (size_t i = 0; i < ID_WORDS; i++)
		buf_put_u64(b, w[i]);
	buf_put_u32(b, map != NULL);
	buf_put_u32(b, map_bits);
	buf_put(b, key->img, 32);
	buf_put(b, key->map, 32);
	buf_put(b, zero, 32);
	return b->oom || b->n != MEMO_LEN ? -ENOMEM : 0;
}

static bool sum(const unsigned char *p, unsigned char out[32])
{
	return EVP_Digest(p, MEMO_LEN - 32, out, NULL, EVP_sha256(), NULL) == 1;
}

/* The memo's file name: its identity part digested (a run looks it up by what it stat()ed). */
static bool memo_name(const unsigned char *text, char name[3 + 65])
{
	unsigned char d[32];

	if (EVP_Digest(text, ID_LEN, d, NULL, EVP_sha256(), NULL) != 1)
		return false;
	memcpy(name, "id-", 3);
	hex_lower(name + 3, d, 32);
	return true;
}

/* Neither file changed within RACY_SECONDS before @t. */
static bool settled(const struct stat *img, const struct stat *map, time_t t)
{
	return img->st_ctim.tv_sec + RACY_SECONDS <= t &&
	       (!map || map->st_ctim.tv_sec + RACY_SECONDS <= t);
}

int tg_image_memo_get(const struct tg_image_cache *c, const struct stat *img,
		      const struct stat *map, struct tg_image_key *key, unsigned *map_bits,
		      char **path)
{
	struct tg_image_key none = { 0 };
	struct buf want = { 0 };
	unsigned char *got = NULL, d[32];
	char name[3 + 65];
	struct stat st;
	size_t len = 0;
	int r = -ENOENT;

	/* what the memo must say about these files, the key aside */
	if (!c || encode(img, map, &none, 0, &want) < 0 || !memo_name(want.p, name))
		goto out;
	got = tg_image_cache_read(c, name, MEMO_LEN, MEMO_LEN, &len, &st);
	if (got && !memcmp(got, want.p, ID_LEN) && sum(got, d) &&
	    !memcmp(d, got + MEMO_LEN - 32, 32) && settled(img, map, st.st_mtim.tv_sec)) {
		*map_bits = tg_le32(got + ID_LEN);
		memcpy(key->img, got + ID_LEN + 4, 32);
		memcpy(key->map, got + ID_LEN + 4 + 32, 32);
		key->kept = true;
		*path = strf("%s/%s", tg_image_cache_path(c), name);
		r = *path ? 0 : -ENOMEM;
	}
out:
	free(got);
	buf_free(&want);
	return r;
}

void tg_image_memo_put(const struct tg_image_cache *c, const struct stat *img,
		       const struct stat *map, const struct tg_image_key *key, unsigned map_bits)
{
	struct buf b = { 0 };
	char name[3 + 65];

	/* a file changed this second could change again unseen: no memo for it yet */
	if (c && key->kept && settled(img, map, time(NULL)) &&
	    encode(img, map, key, map_bits, &b) == 0 && memo_name(b.p, name) &&
	    sum(b.p, b.p + MEMO_LEN - 32))
		tg_image_cache_write(c, name, b.p, b.n);
	buf_free(&b);
}
