/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A directory of checked records: what reading a package (or scanning a
 * repository's metadata) found, kept so that it is not read again.  The
 * records themselves are the callers'; this file only stores bytes under a
 * key, and refuses to hand back anything it cannot vouch for:
 *
 *  - the entry's name is a hash of its kind, its key and the reader's
 *    identity (TG_READER_ID: a hash of the reading code), so another
 *    taintguard build never meets this one's entries;
 *  - the entry repeats its identity, its sizes and a SHA-256 of all of it:
 *    a torn, truncated or edited entry is corrupt, reported and re-read,
 *    never believed;
 *  - every size is capped before anything is allocated;
 *  - the directory must not be writable by other users (running as root,
 *    owned by root): its records decide verdicts;
 *  - entries are written to a temporary file in their final directory and
 *    renamed into place, so concurrent audits see an old entry or a new one,
 *    never half of one.
 *
 * The file format is docs/cache.md's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <zstd.h>

#include "dirs.h"
#include "pkg.h"

#ifndef TG_READER_ID
#define TG_READER_ID "unknown"
#endif

#define MAGIC "TGCACHE\0"
#define FORMAT 1u
#define F_ZSTD 1u
#define HDR_LEN (8 + 4 + 4 + 4 + 8 + 8 + 32)
#define MAX_IDENT 8192
#define MAX_STORED (512ull << 20)
#define MAX_RAW (1ull << 30)
/* Bodies smaller than this are stored as they are. */
#define ZSTD_MIN 512

struct pkg_cache {
	char *dir;
	pthread_mutex_t mu;
	struct pkg_cache_stats st;
};

const char *pkg_reader_id(void)
{
	return TG_READER_ID;
}

/* ----------------------------------------------------------- records */

static const unsigned char *r_raw(struct pkg_rbuf *b, size_t n)
{
	const unsigned char *p;

	if (b->bad || n > b->n - b->off) {
		b->bad = true;
		return NULL;
	}
	p = b->p + b->off;
	b->off += n;
	return p;
}

uint8_t pkg_r_u8(struct pkg_rbuf *b)
{
	const unsigned char *p = r_raw(b, 1);

	return p ? p[0] : 0;
}

uint32_t pkg_r_u32(struct pkg_rbuf *b)
{
	const unsigned char *p = r_raw(b, 4);

	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

uint64_t pkg_r_u64(struct pkg_rbuf *b)
{
	uint64_t lo = pkg_r_u32(b);

	return lo | (uint64_t)pkg_r_u32(b) << 32;
}

const void *pkg_r_bytes(struct pkg_rbuf *b, size_t *len, size_t max)
{
	uint64_t n = pkg_r_u64(b);

	*len = 0;
	if (b->bad || n > max) {
		b->bad = true;
		return NULL;
	}
	*len = (size_t)n;
	return r_raw(b, (size_t)n);
}

char *pkg_r_str(struct pkg_rbuf *b, size_t max)
{
	uint32_t n = pkg_r_u32(b);
	const unsigned char *p;
	char *s;

	if (b->bad || n == 0)
		return NULL;
	if (n - 1 > max) {
		b->bad = true;
		return NULL;
	}
	p = r_raw(b, n - 1);
	if (!p)
		return NULL;
	if (memchr(p, 0, n - 1)) {	/* a string never holds a NUL */
		b->bad = true;
		return NULL;
	}
	s = malloc(n);
	if (!s) {
		b->bad = b->oom = true;
		return NULL;
	}
	memcpy(s, p, n - 1);
	s[n - 1] = 0;
	return s;
}

/* ----------------------------------------------------------- the store */

static bool untrusted(const struct stat *st)
{
	uid_t me = geteuid();

	if (me == 0)
		return st->st_uid != 0 || (st->st_mode & (S_IWGRP | S_IWOTH));
	return (st->st_uid != me && st->st_uid != 0) || (st->st_mode & (S_IWGRP | S_IWOTH));
}

int pkg_cache_open(const char *dir, struct pkg_cache **out, char **error)
{
	mode_t mode = geteuid() == 0 ? 0755 : 0700;
	struct pkg_cache *c;
	struct stat st;
	int r;

	*out = NULL;
	*error = NULL;
	r = make_dirs(dir, mode);
	if (r < 0) {
		*error = strf("%s: %s", dir, strerror(-r));
		return r;
	}
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode)) {
		*error = strf("%s: not a directory", dir);
		return -ENOTDIR;
	}
	if (untrusted(&st)) {
		*error = strf("%s: writable by other users or owned by another (uid %u, mode %04o); "
				  "its records decide verdicts, so it is not used", dir,
				  (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	c = calloc(1, sizeof(*c));
	if (!c || !(c->dir = strdup(dir))) {
		free(c);
		return -ENOMEM;
	}
	pthread_mutex_init(&c->mu, NULL);
	/* a CACHEDIR.TAG (bford.info/cachedir) keeps backups and indexers out */
	{
		char *tag = strf("%s/CACHEDIR.TAG", dir);
		int fd = tag ? open(tag, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644) : -1;

		if (fd >= 0) {
			static const char t[] = "Signature: 8a477f597d28d172789f06886806bc55\n"
						"# taintguard's cache of package facts (docs/cache.md).\n";

			if (write(fd, t, sizeof(t) - 1) < 0)
				(void)0;	/* a missing tag costs nothing */
			close(fd);
		}
		free(tag);
	}
	*out = c;
	return 0;
}

void pkg_cache_free(struct pkg_cache *c)
{
	if (!c)
		return;
	pthread_mutex_destroy(&c->mu);
	free(c->dir);
	free(c->st.first_corrupt);
	free(c->st.first_write_error);
	free(c);
}

const char *pkg_cache_dir(const struct pkg_cache *c)
{
	return c->dir;
}

void pkg_cache_stats(struct pkg_cache *c, struct pkg_cache_stats *st)
{
	pthread_mutex_lock(&c->mu);
	*st = c->st;
	pthread_mutex_unlock(&c->mu);
}

/* "kind\0key\0reader" and the entry's path DIR/kind/XX/YYYY... */
static int ident(const struct pkg_cache *c, const char *kind, const char *key, char **id,
		 size_t *id_len, char **path)
{
	unsigned char dig[32];
	char hex[65];
	size_t lk = strlen(kind), ly = strlen(key), lr = strlen(TG_READER_ID);

	*id = NULL;
	*path = NULL;
	*id_len = lk + 1 + ly + 1 + lr;
	if (*id_len > MAX_IDENT || strchr(kind, '/'))
		return -EINVAL;
	*id = malloc(*id_len);
	if (!*id)
		return -ENOMEM;
	memcpy(*id, kind, lk + 1);
	memcpy(*id + lk + 1, key, ly + 1);
	memcpy(*id + lk + 1 + ly + 1, TG_READER_ID, lr);
	if (!EVP_Digest(*id, *id_len, dig, NULL, EVP_sha256(), NULL))
		return -ENOMEM;
	hex_lower(hex, dig, 32);
	*path = strf("%s/%s/%.2s/%s", c->dir, kind, hex, hex + 2);
	return *path ? 0 : -ENOMEM;
}

static void put_le32(unsigned char *p, uint32_t v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}

static void put_le64(unsigned char *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return le32(p) | (uint64_t)le32(p + 4) << 32;
}

/* SHA-256 over the header's fields after the magic, the identity and the stored body. */
static bool digest(const unsigned char *hdr, const void *id, size_t id_len, const void *body,
		   size_t len, unsigned char out[32])
{
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	bool ok = x && EVP_DigestInit_ex(x, EVP_sha256(), NULL) &&
		  EVP_DigestUpdate(x, hdr + 8, HDR_LEN - 8 - 32) && EVP_DigestUpdate(x, id, id_len) &&
		  EVP_DigestUpdate(x, body, len) && EVP_DigestFinal_ex(x, out, NULL);

	EVP_MD_CTX_free(x);
	return ok;
}

static void corrupt(struct pkg_cache *c, const char *path, const char *why)
{
	pthread_mutex_lock(&c->mu);
	c->st.corrupt++;
	if (!c->st.first_corrupt)
		c->st.first_corrupt = strf("%s: %s", path, why);
	pthread_mutex_unlock(&c->mu);
}

static void count(struct pkg_cache *c, size_t *field)
{
	pthread_mutex_lock(&c->mu);
	(*field)++;
	pthread_mutex_unlock(&c->mu);
}

/* Read, check and unpack an entry; -ENOENT when there is none, -EBADMSG when corrupt (counted). */
static int load(struct pkg_cache *c, const char *path, const char *id, size_t id_len, void **body,
		size_t *len)
{
	unsigned char *buf = NULL, dig[32];
	const unsigned char *stored;
	uint64_t slen, rlen;
	uint32_t flags, klen;
	const char *why = NULL;
	struct stat st;
	size_t got = 0;
	void *raw = NULL;
	ssize_t n;
	int fd, r = -EBADMSG;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : (corrupt(c, path, strerror(errno)), -EBADMSG);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		why = "not a regular file";
		goto out;
	}
	if (untrusted(&st)) {
		why = "writable by other users or owned by another";
		goto out;
	}
	if ((uint64_t)st.st_size < HDR_LEN || (uint64_t)st.st_size > HDR_LEN + MAX_IDENT + MAX_STORED) {
		why = "size out of bounds";
		goto out;
	}
	buf = malloc((size_t)st.st_size);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	while (got < (size_t)st.st_size && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	if (got != (size_t)st.st_size) {
		why = "short read";
		goto out;
	}
	if (memcmp(buf, MAGIC, 8)) {
		why = "not a taintguard cache entry";
		goto out;
	}
	if (le32(buf + 8) != FORMAT) {
		why = "another format version";
		goto out;
	}
	flags = le32(buf + 12);
	klen = le32(buf + 16);
	slen = le64(buf + 20);
	rlen = le64(buf + 28);
	if ((flags & ~F_ZSTD) || klen > MAX_IDENT || slen > MAX_STORED || rlen > MAX_RAW ||
	    HDR_LEN + (uint64_t)klen + slen != (uint64_t)st.st_size ||
	    (!(flags & F_ZSTD) && rlen != slen)) {
		why = "inconsistent header";
		goto out;
	}
	stored = buf + HDR_LEN + klen;
	if (!digest(buf, buf + HDR_LEN, klen, stored, (size_t)slen, dig)) {
		r = -ENOMEM;
		goto out;
	}
	if (memcmp(dig, buf + 36, 32)) {
		why = "checksum mismatch";
		goto out;
	}
	if (klen != id_len || memcmp(buf + HDR_LEN, id, id_len)) {
		why = "names another key";
		goto out;
	}
	raw = malloc(rlen ? (size_t)rlen : 1);
	if (!raw) {
		r = -ENOMEM;
		goto out;
	}
	if (flags & F_ZSTD) {
		size_t d = ZSTD_decompress(raw, (size_t)rlen, stored, (size_t)slen);

		if (ZSTD_isError(d) || d != rlen) {
			why = "body does not decompress";
			goto out;
		}
	} else {
		memcpy(raw, stored, (size_t)slen);
	}
	*body = raw;
	*len = (size_t)rlen;
	raw = NULL;
	r = 0;
out:
	if (why)
		corrupt(c, path, why);
	free(raw);
	free(buf);
	close(fd);
	return r;
}

int pkg_cache_get(struct pkg_cache *c, const char *kind, const char *key, void **body, size_t *len)
{
	char *id, *path;
	size_t id_len;
	int r;

	*body = NULL;
	*len = 0;
	r = ident(c, kind, key, &id, &id_len, &path);
	if (r == 0)
		r = load(c, path, id, id_len, body, len);
	if (r == 0)
		count(c, &c->st.hits);
	else if (r == -ENOENT)
		count(c, &c->st.misses);
	free(id);
	free(path);
	return r;
}

void pkg_cache_reject(struct pkg_cache *c, const char *kind, const char *key, const char *why)
{
	char *id, *path;
	size_t id_len;

	if (ident(c, kind, key, &id, &id_len, &path) == 0) {
		corrupt(c, path, why);
		pthread_mutex_lock(&c->mu);
		c->st.hits--;	/* it was found, but is not believed */
		pthread_mutex_unlock(&c->mu);
	}
	free(id);
	free(path);
}

static void write_error(struct pkg_cache *c, const char *path, int err)
{
	pthread_mutex_lock(&c->mu);
	c->st.write_errors++;
	if (!c->st.first_write_error)
		c->st.first_write_error = strf("%s: %s", path, strerror(-err));
	pthread_mutex_unlock(&c->mu);
}

int pkg_cache_put(struct pkg_cache *c, const char *kind, const char *key, const void *body, size_t len)
{
	unsigned char hdr[HDR_LEN];
	void *z = NULL;
	const void *stored = body;
	size_t slen = len;
	uint32_t flags = 0;
	char *id = NULL, *path = NULL, *tmp = NULL, *slash;
	size_t id_len;
	int fd = -1, r;

	if (len > MAX_RAW)
		return -EFBIG;
	r = ident(c, kind, key, &id, &id_len, &path);
	if (r < 0)
		goto out;
	if (len >= ZSTD_MIN) {
		size_t bound = ZSTD_compressBound(len), zl;

		z = malloc(bound);
		if (!z) {
			r = -ENOMEM;
			goto out;
		}
		zl = ZSTD_compress(z, bound, body, len, 3);
		if (!ZSTD_isError(zl) && zl < len) {
			stored = z;
			slen = zl;
			flags |= F_ZSTD;
		}
	}
	if (slen > MAX_STORED) {
		r = -EFBIG;
		goto out;
	}
	memcpy(hdr, MAGIC, 8);
	put_le32(hdr + 8, FORMAT);
	put_le32(hdr + 12, flags);
	put_le32(hdr + 16, (uint32_t)id_len);
	put_le64(hdr + 20, slen);
	put_le64(hdr + 28, len);
	if (!digest(hdr, id, id_len, stored, slen, hdr + 36)) {
		r = -ENOMEM;
		goto out;
	}
	slash = strrchr(path, '/');
	*slash = 0;
	r = make_dirs(path, geteuid() == 0 ? 0755 : 0700);
	tmp = r == 0 ? strf("%s/.tmp-XXXXXX", path) : NULL;
	*slash = '/';
	if (r < 0)
		goto out;
	if (!tmp) {
		r = -ENOMEM;
		goto out;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		goto out;
	}
	r = write_all(fd, hdr, HDR_LEN);
	if (r == 0)
		r = write_all(fd, id, id_len);
	if (r == 0)
		r = write_all(fd, stored, slen);
	if (r == 0 && fchmod(fd, 0644) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	fd = -1;
	/* the rename is the commit: readers see the old entry or this one */
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	else
		count(c, &c->st.writes);
out:
	if (r < 0 && r != -ENOMEM)
		write_error(c, path ? path : c->dir, r);
	if (fd >= 0)
		close(fd);
	free(z);
	free(id);
	free(path);
	free(tmp);
	return r;
}
