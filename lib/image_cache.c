/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The image cache: what a kernel image holds for taintguard, kept per image.
 *
 * Every judgement reads the target kernel's image (its certificates verify
 * signatures, its loader messages decide rules), and reading it means
 * decompressing it whole: 0.4 s for Debian's zstd 6.12, 0.9 s for its xz
 * 6.1, in every check, rpm transaction and DKMS build.  What that finds is
 * a function of the image's bytes (and of System.map's, which can place the
 * list), so it is kept under the SHA-256 of the image file as it is on disk:
 * a later run pays a digest (or, when a memo of the files' identity holds,
 * not even that: image_memo.c).  Content keys make one cache right for every
 * --root: it belongs to the host that runs taintguard.
 *
 * The entries decide verdicts, so nothing is believed that could have been
 * written by anyone but root (or, for a user's own directory, that user):
 *
 *  - the directory and each entry must be owned by root (unprivileged: by
 *    root or the user), not writable by group or others, an entry a regular
 *    file; otherwise it is ignored, never read;
 *  - an entry names the image digest, the System.map digest and the reader's
 *    identity (TG_IMAGE_READER_ID: a hash of the code that reads images), and
 *    carries its length and a SHA-256 of all of it: an entry of another
 *    image, another System.map or another taintguard, or a truncated or
 *    edited one, is not believed; the image is decoded and the entry
 *    rewritten;
 *  - entries are written to a temporary file in the directory, synced,
 *    renamed into place and the directory synced: a reader sees an old
 *    entry or a whole new one.
 *
 * A cache that cannot be used (none, read-only, full, EIO, untrusted)
 * changes nothing but the time: the image is decoded as without it.
 * Unprivileged users read a trusted root-owned cache and do not write it;
 * they write only a directory of their own named by TAINTGUARD_IMAGE_CACHE.
 * docs/cache.md ("The image cache") has the format.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "buf.h"
#include "decompress.h"
#include "image_cache.h"
#include "dirs.h"
#include "keyring.h"
#include "paths.h"

#ifndef TG_IMAGE_READER_ID
#define TG_IMAGE_READER_ID "0000000000000000"
#endif

/* The Makefile defines the id for this file only: memos take it from here. */
const char tg_image_reader_id[17] = TG_IMAGE_READER_ID;

#define MAGIC "TGIMAGE\0"
#define FORMAT 1u
#define HDR_LEN 136
#define SUM_OFF 104
#define MAX_BODY (8u << 20)	/* a certificate list is at most 4 MiB (kimage_certs.c) */
#define MAX_TEXT 4096u

struct tg_image_cache {
	int fd;			/* the directory, opened before any chroot */
	char *path;
	bool writable;		/* ours: root's for root, the user's own for a user */
};

static atomic_ulong decodes;
static atomic_uint tmp_seq;

unsigned long tg_image_cache_decodes(void)
{
	return atomic_load(&decodes);
}

void tg_image_facts_free(struct tg_image_facts *f)
{
	free(f->msg);
	free(f->list);
	free(f->how);
	memset(f, 0, sizeof(*f));
}

/* ------------------------------------------------------------- the directory */

/* Owned by root (or, unprivileged, by the user) and writable by no one else. */
static bool trusted(const struct stat *st)
{
	uid_t me = geteuid();

	if (st->st_mode & (S_IWGRP | S_IWOTH))
		return false;
	return st->st_uid == 0 || (me != 0 && st->st_uid == me);
}

struct tg_image_cache *tg_image_cache_open(void)
{
	const char *env = secure_getenv(TG_IMAGE_CACHE_ENV);
	const char *path = env ? env : TG_CACHEDIR "/images";
	struct tg_image_cache *c;
	struct stat st;
	int fd;

	/* a relative path would follow the working directory rpm and dkms change */
	if (!strcmp(path, "off") || path[0] != '/')
		return NULL;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/*
		 * A named directory's parents must exist: the name may be
		 * another system's (a chroot, a root rpm entered) and nothing
		 * is made there but the last component.
		 */
		if (env)
			mkdir(path, geteuid() == 0 ? 0755 : 0700);
		else
			(void)make_dirs(path, 0755);
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) < 0 || !trusted(&st)) {
		close(fd);
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->path = strdup(path))) {
		free(c);
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->writable = st.st_uid == geteuid();
	return c;
}

void tg_image_cache_free(struct tg_image_cache *c)
{
	if (!c)
		return;
	close(c->fd);
	free(c->path);
	free(c);
}

/* ------------------------------------------------------------------ entries */

/* The identity an entry must repeat: reader, image and System.map digests. */
struct key {
	unsigned char img[32], map[32];
	char name[65];		/* the image digest in hex: the entry's file name */
};

static bool sha256(const void *p, size_t n, unsigned char out[32])
{
	return EVP_Digest(p, n, out, NULL, EVP_sha256(), NULL) == 1;
}

/* The checksum: SHA-256 of the header's first SUM_OFF bytes and the body. */
static bool checksum(const unsigned char *hdr, const unsigned char *body, size_t n,
		     unsigned char out[32])
{
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	bool ok = x && EVP_DigestInit_ex(x, EVP_sha256(), NULL) &&
		  EVP_DigestUpdate(x, hdr, SUM_OFF) && EVP_DigestUpdate(x, body, n) &&
		  EVP_DigestFinal_ex(x, out, NULL);

	EVP_MD_CTX_free(x);
	return ok;
}

struct rd {
	const unsigned char *p;
	size_t n, off;
	bool bad;
};

static const unsigned char *take(struct rd *r, uint64_t n)
{
	const unsigned char *p = r->p + r->off;

	if (r->bad || n > r->n - r->off) {
		r->bad = true;
		return NULL;
	}
	r->off += (size_t)n;
	return p;
}

static uint32_t rd_u32(struct rd *r)
{
	const unsigned char *p = take(r, 4);

	return p ? tg_le32(p) : 0;
}

static uint64_t rd_u64(struct rd *r)
{
	uint64_t lo = rd_u32(r);

	return lo | (uint64_t)rd_u32(r) << 32;
}

/* A copy of @n bytes at the reader (NUL-terminated), NULL when bad or out of memory. */
static void *rd_copy(struct rd *r, uint64_t n)
{
	const unsigned char *p = take(r, n);
	unsigned char *d = p ? malloc((size_t)n + 1) : NULL;

	if (!d) {
		r->bad = true;
		return NULL;
	}
	memcpy(d, p, (size_t)n);
	d[n] = 0;
	return d;
}

/* The body: the facts, decoded under a cap of @cap (the decoding's, for a failure). */
static bool body_read(struct rd *r, struct tg_image_facts *f, uint64_t *cap)
{
	uint32_t code = rd_u32(r), tlen;
	uint64_t llen;
	char *text;

	*cap = rd_u64(r);
	f->decoded = rd_u64(r);
	f->lf_bits = rd_u32(r);
	tlen = rd_u32(r);
	if (r->bad || tlen == 0 || tlen - 1 > MAX_TEXT || code > 4095)
		return false;
	text = rd_copy(r, tlen - 1);
	if (!text || strlen(text) != tlen - 1) {
		free(text);
		return false;
	}
	llen = rd_u64(r);
	if (llen > MAX_BODY || (code && llen))
		r->bad = true;
	else
		f->list = rd_copy(r, llen);
	f->list_len = (size_t)llen;
	f->err = -(int)code;
	if (code)
		f->msg = text;
	else
		f->how = text;
	return !r->bad && r->off == r->n;
}

/* Read everything of an opened file of the directory, checking it first. */
static unsigned char *slurp(int fd, size_t min, size_t max, size_t *len, struct stat *st_out)
{
	unsigned char *buf;
	struct stat st;
	size_t got = 0;
	ssize_t n;

	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || !trusted(&st) ||
	    (uint64_t)st.st_size < min || (uint64_t)st.st_size > max)
		return NULL;
	if (st_out)
		*st_out = st;
	buf = malloc((size_t)st.st_size);
	while (buf && got < (size_t)st.st_size &&
	       (n = pread(fd, buf + got, (size_t)st.st_size - got, (off_t)got)) > 0)
		got += (size_t)n;
	if (buf && got != (size_t)st.st_size) {
		free(buf);
		buf = NULL;
	}
	*len = got;
	return buf;
}

const char *tg_image_cache_path(const struct tg_image_cache *c)
{
	return c->path;
}

unsigned char *tg_image_cache_read(const struct tg_image_cache *c, const char *name, size_t min,
				   size_t max, size_t *len, struct stat *st)
{
	unsigned char *buf;
	int fd = openat(c->fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return NULL;
	buf = slurp(fd, min, max, len, st);
	close(fd);
	return buf;
}

/*
 * The entry for @k, when it is trusted, whole, and for these bytes under
 * this cap; false otherwise (then @f is empty).
 */
static bool entry_get(const struct tg_image_cache *c, const struct key *k, uint64_t cap,
		      struct tg_image_facts *f)
{
	unsigned char *buf, sum[32];
	struct rd r;
	uint64_t made_cap = 0;
	size_t len = 0;
	bool ok;

	buf = tg_image_cache_read(c, k->name, HDR_LEN, HDR_LEN + MAX_BODY, &len, NULL);
	if (!buf)
		return false;
	r = (struct rd){ .p = buf + HDR_LEN, .n = len - HDR_LEN };
	ok = !memcmp(buf, MAGIC, 8) && tg_le32(buf + 8) == FORMAT && tg_le32(buf + 12) == 0 &&
	     !memcmp(buf + 16, tg_image_reader_id, 16) && !memcmp(buf + 32, k->img, 32) &&
	     !memcmp(buf + 64, k->map, 32) &&
	     tg_le32(buf + 96) == r.n && tg_le32(buf + 100) == 0 &&
	     checksum(buf, r.p, r.n, sum) && !memcmp(sum, buf + SUM_OFF, 32) &&
	     body_read(&r, f, &made_cap) &&
	     /* as a decoding under this cap would end: within it, or failed under the same */
	     (f->err ? made_cap == cap : f->decoded <= cap);
	free(buf);
	if (!ok)
		tg_image_facts_free(f);
	return ok;
}

/* The whole entry for @f, made under @cap. */
static int entry_encode(const struct key *k, const struct tg_image_facts *f, uint64_t cap,
			struct buf *b)
{
	unsigned char zero[32] = { 0 };
	size_t body;

	buf_put(b, MAGIC, 8);
	buf_put_u32(b, FORMAT);
	buf_put_u32(b, 0);
	buf_put(b, tg_image_reader_id, 16);
	buf_put(b, k->img, 32);
	buf_put(b, k->map, 32);
	buf_put_u64(b, 0);		/* body length, below */
	buf_put(b, zero, 32);		/* checksum, below */
	buf_put_u32(b, (uint32_t)-f->err);
	buf_put_u64(b, f->err ? cap : 0);
	buf_put_u64(b, f->decoded);
	buf_put_u32(b, f->lf_bits);
	buf_put_str(b, f->err ? f->msg : f->how);
	buf_put_blob(b, f->list, f->list_len);
	if (b->oom)
		return -ENOMEM;
	body = b->n - HDR_LEN;
	for (unsigned i = 0; i < 8; i++)
		b->p[96 + i] = (unsigned char)((uint64_t)body >> (8 * i));
	return checksum(b->p, b->p + HDR_LEN, body, b->p + SUM_OFF) ? 0 : -ENOMEM;
}

int tg_image_cache_write(const struct tg_image_cache *c, const char *name, const void *p, size_t n)
{
	char tmp[64];
	int fd, r;

	if (!c->writable)
		return -EROFS;
	snprintf(tmp, sizeof(tmp), ".tmp-%d-%u", (int)getpid(), atomic_fetch_add(&tmp_seq, 1));
	/* left behind by a process of the same pid that died: ours to replace */
	unlinkat(c->fd, tmp, 0);
	fd = openat(c->fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	r = write_all(fd, p, n);
	if (r == 0 && (fchmod(fd, 0644) < 0 || fsync(fd) < 0))
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(c->fd, tmp, c->fd, name) < 0)
		r = -errno;
	if (r == 0)
		fsync(c->fd);
	else
		unlinkat(c->fd, tmp, 0);
	return r;
}

/* Store @f under @k (see tg_image_cache_write()); errors only cost the next run a decoding. */
static bool entry_put(const struct tg_image_cache *c, const struct key *k,
		      const struct tg_image_facts *f, uint64_t cap)
{
	struct buf b = { 0 };
	bool ok;

	if (!c->writable || f->list_len > MAX_BODY / 2 ||
	    strlen(f->err ? f->msg : f->how) > MAX_TEXT)
		return false;
	ok = entry_encode(k, f, cap, &b) == 0 && tg_image_cache_write(c, k->name, b.p, b.n) == 0;
	buf_free(&b);
	return ok;
}

/* ---------------------------------------------------------------- the facts */

/* Failures that the bytes alone decide (not memory, not the reading limits). */
static bool keepable_failure(int r)
{
	return r == -EPROTONOSUPPORT || r == -EBADMSG || r == -ENOEXEC || r == -ERANGE ||
	       r == -ENOENT || r == -ENOTUNIQ;
}

/* Decode the image: what tg_kimage_cert_list() finds, as facts. */
static int decode(const void *img, size_t len, const char *label, const void *map, size_t maplen,
		  const struct tg_limits *lim, struct tg_image_facts *f, struct tg_error *err)
{
	struct tg_kimage_scan scan = { 0 };
	size_t pre = strlen(label);
	int r;

	atomic_fetch_add(&decodes, 1);
	r = tg_kimage_cert_list(img, len, label, map, maplen, lim, &f->list, &f->list_len, &f->how,
				&scan, err);
	f->err = r;
	f->lf_bits = scan.lf_bits;
	f->decoded = scan.decoded;
	/* kept without the label: another root names the same image otherwise */
	if (r < 0 && err && !strncmp(err->msg, label, pre) && !strncmp(err->msg + pre, ": ", 2))
		f->msg = strdup(err->msg + pre + 2);
	return r;
}

/* The facts of entry @k, when @c has it: true with @f, *@entry and @r (0 or the failure kept). */
static bool served(const struct tg_image_cache *c, const struct key *k, const char *label,
		   const struct tg_limits *lim, struct tg_image_facts *f, char **entry, int *r,
		   struct tg_error *err)
{
	if (!entry_get(c, k, lim->max_kernel_image_size, f))
		return false;
	*entry = strf("%s/%s", c->path, k->name);
	*r = f->err ? tg_fail(err, f->err, "%s: %s", label, f->msg) : 0;
	return true;
}

int tg_image_facts_get(struct tg_image_cache *c, const void *img, size_t len, const char *label,
		       const void *map, size_t maplen, const struct tg_limits *lim,
		       struct tg_image_facts *f, char **entry, struct tg_image_key *kept,
		       struct tg_error *err)
{
	struct key k = { 0 };
	int r;

	memset(f, 0, sizeof(*f));
	*entry = NULL;
	if (kept)
		memset(kept, 0, sizeof(*kept));
	if (c && (!sha256(img, len, k.img) || (map && !sha256(map, maplen, k.map))))
		c = NULL;	/* no digest: no cache, the image is decoded */
	if (c) {
		hex_lower(k.name, k.img, 32);
		if (kept) {
			memcpy(kept->img, k.img, 32);
			memcpy(kept->map, k.map, 32);
		}
		if (served(c, &k, label, lim, f, entry, &r, err)) {
			if (kept)
				kept->kept = true;
			return r;
		}
	}
	r = decode(img, len, label, map, maplen, lim, f, err);
	if (c && (r == 0 || (keepable_failure(r) && f->msg)) &&
	    entry_put(c, &k, f, lim->max_kernel_image_size) && kept)
		kept->kept = true;
	return r;
}

int tg_image_facts_cached(const struct tg_image_cache *c, const struct tg_image_key *key,
			  const char *label, const struct tg_limits *lim, struct tg_image_facts *f,
			  char **entry, struct tg_error *err)
{
	struct key k = { 0 };
	int r;

	memset(f, 0, sizeof(*f));
	*entry = NULL;
	memcpy(k.img, key->img, 32);
	memcpy(k.map, key->map, 32);
	hex_lower(k.name, k.img, 32);
	return served(c, &k, label, lim, f, entry, &r, err) ? r : -ENOENT;
}
