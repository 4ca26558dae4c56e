/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * In-memory decompression: of modules and symbol tables (xz, zstd, gzip:
 * tg_decompress()), and of kernel images (kbuild's compressors, decoded up to
 * the bytes wanted: tg_kzip_decode(), decompress.h).
 *
 * Inputs come from untrusted packages, so the output is capped: a stream that
 * would decode past the cap is a -EFBIG error, never a silently truncated
 * image (a truncated module would read as "no imports", i.e. clean).
 */
#include <errno.h>
#include <limits.h>
#include <lz4.h>
#include <lzma.h>
#include <pthread.h>
#include <string.h>
#include <zlib.h>
/* ZSTD_getFrameHeader(): exported by Debian's libzstd.so since 1.3 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zstd_errors.h>

#include "confine.h"
#include "decompress.h"

/* liblzma's own memory use (dictionary) is capped separately from the output. */
#define XZ_MEMLIMIT (256ull << 20)
/* zstd: refuse frames that need a window above 2^27 (128 MiB) */
#define TG_ZSTD_WINDOWLOG_MAX 27

const char *tg_compression_name(enum tg_compression c)
{
	switch (c) {
	case TG_COMP_NONE: return "none";
	case TG_COMP_XZ: return "xz";
	case TG_COMP_ZSTD: return "zstd";
	case TG_COMP_GZIP: return "gzip";
	}
	return "unknown";
}

enum tg_compression tg_compression_detect(const void *data, size_t len)
{
	static const unsigned char xz[] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
	static const unsigned char zst[] = { 0x28, 0xB5, 0x2F, 0xFD };
	static const unsigned char gz[] = { 0x1F, 0x8B };
	const unsigned char *p = data;

	if (len >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		return TG_COMP_XZ;
	if (len >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		return TG_COMP_ZSTD;
	if (len >= sizeof(gz) && !memcmp(p, gz, sizeof(gz)))
		return TG_COMP_GZIP;
	return TG_COMP_NONE;
}

/*
 * The output of one decompression, modules and kernel images alike: grows
 * by doubling up to @cap + 1 bytes (one byte past the cap proves overflow:
 * -EFBIG), and stops (successfully) once @want bytes are there (UINT64_MAX
 * for modules; a kernel image is often needed only up to some offset).
 */
struct outbuf {
	unsigned char *p;
	size_t len, size;
	uint64_t cap, want;
};

/*
 * 1 with *avail > 0: room to decode into, at least @need bytes unless the
 * limit is nearer; 0: @want reached; -EFBIG: past @cap; -ENOMEM.
 */
static int outbuf_room(struct outbuf *o, size_t need, size_t *avail)
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
		np = realloc(o->p, nsize + 1);	/* +1: callers may NUL-terminate */
		if (!np)
			return -ENOMEM;
		o->p = np;
		o->size = nsize;
	}
	*avail = (size_t)((o->size < limit ? o->size : limit) - o->len);
	return 1;
}

/*
 * At least @n bytes of room from the start, without keeping what the buffer
 * held (it holds nothing yet): a smaller buffer is replaced, not realloc'ed,
 * which would copy it.
 */
static int outbuf_presize(struct outbuf *o, size_t n)
{
	if (o->p && o->size >= n)
		return 0;
	free(o->p);
	o->p = tg_alloc_big(n + 1);	/* +1: callers may NUL-terminate */
	o->size = o->p ? n : 0;
	return o->p ? 0 : -ENOMEM;
}

/*
 * Module images kept for the next module (tg_image_release()): a fresh
 * buffer is page-faulted in again for every module, and one above glibc's
 * mmap threshold is a new mapping each time, unmapped on free.  A few small
 * ones are enough (one per thread decoding at the same time); the largest
 * modules (amdgpu.ko: 19 MB) still go back to the system.
 */
#define SPARE_CACHE 8
#define SPARE_MAX_BYTES (4u << 20)
static pthread_mutex_t spare_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tg_image spare_cache[SPARE_CACHE];
static size_t n_spare;

static void spare_get(struct outbuf *o)
{
	pthread_mutex_lock(&spare_lock);
	if (n_spare) {
		o->p = spare_cache[--n_spare].p;
		o->size = spare_cache[n_spare].size;
	}
	pthread_mutex_unlock(&spare_lock);
}

void tg_image_release(struct tg_image *img)
{
	if (img->p && img->size <= SPARE_MAX_BYTES) {
		pthread_mutex_lock(&spare_lock);
		if (n_spare < SPARE_CACHE) {
			spare_cache[n_spare++] = (struct tg_image){ .p = img->p, .size = img->size };
			img->p = NULL;
		}
		pthread_mutex_unlock(&spare_lock);
	}
	free(img->p);
	memset(img, 0, sizeof(*img));
}

__attribute__((destructor)) static void spare_cache_free(void)
{
	while (n_spare)
		free(spare_cache[--n_spare].p);
}

/*
 * Room for at least one more byte (the module decoders: all is wanted), in
 * *avail, never past @cap + 1 (a buffer kept from a larger module may be
 * larger): 0, -EFBIG, -ENOMEM.
 */
static int outbuf_reserve(struct outbuf *o, size_t *avail)
{
	int r = outbuf_room(o, 1, avail);

	return r < 0 ? r : 0;
}

/*
 * xz decoders kept for the next module, as the zstd contexts below: a new
 * one allocates its dictionary (1 MiB for kbuild's modules, above the mmap
 * threshold the audit sets) and faults it in again for every module, while
 * lzma_stream_decoder() on a used stream keeps a dictionary of the same size.
 */
#define XZ_CACHE 16
static pthread_mutex_t xz_lock = PTHREAD_MUTEX_INITIALIZER;
static lzma_stream *xz_cache[XZ_CACHE];
static size_t n_xz;

static lzma_stream *xz_get(void)
{
	lzma_stream *s = NULL;

	pthread_mutex_lock(&xz_lock);
	if (n_xz)
		s = xz_cache[--n_xz];
	pthread_mutex_unlock(&xz_lock);
	if (!s && (s = malloc(sizeof(*s))))
		*s = (lzma_stream)LZMA_STREAM_INIT;
	return s;
}

static void xz_put(lzma_stream *s)
{
	pthread_mutex_lock(&xz_lock);
	if (n_xz < XZ_CACHE) {
		xz_cache[n_xz++] = s;
		s = NULL;
	}
	pthread_mutex_unlock(&xz_lock);
	if (s) {
		lzma_end(s);
		free(s);
	}
}

__attribute__((destructor)) static void xz_cache_free(void)
{
	while (n_xz) {
		lzma_end(xz_cache[--n_xz]);
		free(xz_cache[n_xz]);
	}
}

/*
 * The decoded size the last stream's index states (0 when it cannot be
 * read): xz(1) and kbuild write one stream, so this is the module's size,
 * and the output is allocated once instead of growing through copies.  Only
 * a hint: liblzma checks the index against the blocks it decodes, and more
 * streams before the last one make the buffer grow as without it.
 */
static uint64_t xz_decoded_size(const unsigned char *in, size_t inlen)
{
	static const unsigned char zero[4];
	lzma_stream_flags f;
	lzma_index *idx = NULL;
	uint64_t memlimit = 1u << 20, size = 0;
	size_t pos = 0, end = inlen;

	while (end >= 4 && !memcmp(in + end - 4, zero, 4))	/* stream padding */
		end -= 4;
	if (end < 2 * LZMA_STREAM_HEADER_SIZE ||
	    lzma_stream_footer_decode(&f, in + end - LZMA_STREAM_HEADER_SIZE) != LZMA_OK ||
	    f.backward_size > end - 2 * LZMA_STREAM_HEADER_SIZE)
		return 0;
	if (lzma_index_buffer_decode(&idx, &memlimit, NULL,
				     in + end - LZMA_STREAM_HEADER_SIZE - f.backward_size, &pos,
				     f.backward_size) != LZMA_OK)
		return 0;
	size = lzma_index_uncompressed_size(idx);
	lzma_index_end(idx, NULL);
	return size;
}

static int decode_xz(const void *in, size_t inlen, struct outbuf *o)
{
	uint64_t hint = xz_decoded_size(in, inlen);
	lzma_stream *s;
	lzma_ret ret;
	size_t avail;
	int r = 0;

	/* one byte more than stated: the end is seen without growing a full buffer */
	if (hint && hint < o->cap && outbuf_presize(o, (size_t)hint + 1) < 0)
		return -ENOMEM;
	s = xz_get();
	/* CONCATENATED: like xz(1), accept several streams and stream padding */
	if (!s || lzma_stream_decoder(s, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK) {
		if (s)
			xz_put(s);
		return -ENOMEM;
	}
	s->next_in = in;
	s->avail_in = inlen;
	do {
		if ((r = outbuf_reserve(o, &avail)) < 0)
			break;
		s->next_out = o->p + o->len;
		s->avail_out = avail;
		ret = lzma_code(s, s->avail_in ? LZMA_RUN : LZMA_FINISH);
		o->len = (size_t)(s->next_out - o->p);
		if (ret == LZMA_MEMLIMIT_ERROR || ret == LZMA_MEM_ERROR)
			r = -ENOMEM;
		else if (ret != LZMA_OK && ret != LZMA_STREAM_END)
			r = -EBADMSG;
	} while (r == 0 && ret != LZMA_STREAM_END);
	if (r == 0 && o->len > o->cap)
		r = -EFBIG;
	xz_put(s);
	return r;
}

/*
 * Decompression contexts kept for the next module: creating one per module
 * cost more than reading most modules' symbols.  A few are enough (one per
 * thread decoding at the same time); they are freed when the library is
 * unloaded or the process exits.
 */
#define DCTX_CACHE 16
static pthread_mutex_t dctx_lock = PTHREAD_MUTEX_INITIALIZER;
static ZSTD_DCtx *dctx_cache[DCTX_CACHE];
static size_t n_dctx;

static ZSTD_DCtx *dctx_get(void)
{
	ZSTD_DCtx *dc = NULL;

	pthread_mutex_lock(&dctx_lock);
	if (n_dctx)
		dc = dctx_cache[--n_dctx];
	pthread_mutex_unlock(&dctx_lock);
	return dc ? dc : ZSTD_createDCtx();
}

static void dctx_put(ZSTD_DCtx *dc)
{
	if (!dc)
		return;
	pthread_mutex_lock(&dctx_lock);
	if (n_dctx < DCTX_CACHE) {
		dctx_cache[n_dctx++] = dc;
		dc = NULL;
	}
	pthread_mutex_unlock(&dctx_lock);
	ZSTD_freeDCtx(dc);
}

__attribute__((destructor)) static void dctx_cache_free(void)
{
	while (n_dctx)
		ZSTD_freeDCtx(dctx_cache[--n_dctx]);
}

/*
 * The common case, one zstd frame whose header states its size (zstd(1) and
 * kbuild always write it): decode in one call straight into a buffer of that
 * size.  Streaming would decode through a window buffer as large as the
 * module, allocated, faulted in and copied out again for every module.
 * A header that lies about the size is caught by zstd itself: the decoded
 * size must match it exactly.  Returns 1 when the input is not such a frame.
 */
static int decode_zstd_frame(const void *in, size_t inlen, struct outbuf *o)
{
	ZSTD_frameHeader fh;
	ZSTD_DCtx *dc;
	size_t ret;

	if (ZSTD_getFrameHeader(&fh, in, inlen) != 0 || fh.frameType != ZSTD_frame ||
	    fh.frameContentSize == ZSTD_CONTENTSIZE_UNKNOWN ||
	    fh.frameContentSize == ZSTD_CONTENTSIZE_ERROR ||
	    ZSTD_findFrameCompressedSize(in, inlen) != inlen)
		return 1;
	/* the same refusals as the streaming decoder below */
	if (fh.windowSize > (1ull << TG_ZSTD_WINDOWLOG_MAX))
		return -ENOMEM;
	if (fh.frameContentSize > o->cap)
		return -EFBIG;
	if (outbuf_presize(o, (size_t)fh.frameContentSize) < 0 || !(dc = dctx_get()))
		return -ENOMEM;
	/* a whole-frame decode resets the context's session first: nothing carries over */
	ret = ZSTD_decompressDCtx(dc, o->p, (size_t)fh.frameContentSize, in, inlen);
	dctx_put(dc);
	if (ZSTD_isError(ret) || ret != fh.frameContentSize)
		return -EBADMSG;
	o->len = ret;
	return 0;
}

static int decode_zstd(const void *in, size_t inlen, struct outbuf *o)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	size_t ret = 1, avail;
	int r = 0;

	if (!ds)
		return -ENOMEM;
	ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, TG_ZSTD_WINDOWLOG_MAX);
	while (ib.pos < ib.size || ret != 0) {
		ZSTD_outBuffer ob;

		if ((r = outbuf_reserve(o, &avail)) < 0)
			break;
		ob = (ZSTD_outBuffer){ o->p, o->len + avail, o->len };
		ret = ZSTD_decompressStream(ds, &ob, &ib);
		o->len = ob.pos;
		if (ZSTD_isError(ret)) {
			r = ZSTD_getErrorCode(ret) == ZSTD_error_frameParameter_windowTooLarge ?
				-ENOMEM : -EBADMSG;
			break;
		}
		/* input exhausted mid-frame and no output progress possible: truncated */
		if (ib.pos == ib.size && ret != 0 && ob.pos < ob.size) {
			r = -EBADMSG;
			break;
		}
	}
	if (r == 0 && o->len > o->cap)
		r = -EFBIG;
	ZSTD_freeDStream(ds);
	return r;
}

static int decode_gzip(const void *in, size_t inlen, struct outbuf *o)
{
	z_stream z;
	size_t avail;
	int ret = Z_OK, r = 0;

	memset(&z, 0, sizeof(z));
	/* 15 + 16: gzip wrapper only (zlib or raw deflate are not module formats) */
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	/* zlib counts in uInt; inputs are capped far below 4 GiB by the readers */
	z.avail_in = inlen > UINT32_MAX ? UINT32_MAX : (uInt)inlen;
	for (;;) {
		if ((r = outbuf_reserve(o, &avail)) < 0)
			break;
		z.next_out = o->p + o->len;
		z.avail_out = avail > UINT_MAX ? UINT_MAX : (uInt)avail;
		ret = inflate(&z, Z_NO_FLUSH);
		o->len = (size_t)(z.next_out - o->p);
		if (ret == Z_STREAM_END) {
			/* gzip(1) concatenates members: continue with the next one */
			if (z.avail_in == 0)
				break;
			if (inflateReset(&z) != Z_OK) {
				r = -EBADMSG;
				break;
			}
			continue;
		}
		if (ret == Z_MEM_ERROR) {
			r = -ENOMEM;
			break;
		}
		if (ret != Z_OK && !(ret == Z_BUF_ERROR && z.avail_out == 0)) {
			r = -EBADMSG;	/* corrupt, or input ended mid-stream */
			break;
		}
	}
	if (r == 0 && o->len > o->cap)
		r = -EFBIG;
	inflateEnd(&z);
	return r;
}

/* Decode @in into @o (empty, or a kept buffer); on error @o is freed. */
static int decompress_into(enum tg_compression kind, const void *in, size_t inlen, struct outbuf *o,
			   const char *label, struct tg_error *err)
{
	int r;

	switch (kind) {
	case TG_COMP_NONE:
		if (inlen > o->cap) {
			r = -EFBIG;
			break;
		}
		r = outbuf_presize(o, inlen);
		if (r == 0) {
			memcpy(o->p, in, inlen);
			o->len = inlen;
		}
		break;
	case TG_COMP_XZ:
		r = decode_xz(in, inlen, o);
		break;
	case TG_COMP_ZSTD:
		r = decode_zstd_frame(in, inlen, o);
		if (r == 1)
			r = decode_zstd(in, inlen, o);
		break;
	case TG_COMP_GZIP:
		r = decode_gzip(in, inlen, o);
		break;
	default:
		r = -EINVAL;
	}
	if (r < 0) {
		unsigned long long cap = o->cap;

		free(o->p);
		o->p = NULL;
		o->len = o->size = 0;
		if (r == -EFBIG && kind == TG_COMP_NONE)
			return tg_fail(err, r, "%s: %zu bytes exceed the size limit of %llu",
				       label, inlen, cap);
		if (r == -EFBIG)
			return tg_fail(err, r, "%s: %s data decompresses past the size limit of %llu bytes "
				       "(decompression bomb?)", label, tg_compression_name(kind), cap);
		if (r == -ENOMEM && kind == TG_COMP_NONE)
			return tg_fail(err, r, "%s: out of memory", label);
		if (r == -ENOMEM)
			return tg_fail(err, r, "%s: %s data needs more memory than allowed to decompress",
				       label, tg_compression_name(kind));
		return tg_fail(err, r, "%s: corrupt or truncated %s data", label,
			       tg_compression_name(kind));
	}
	o->p[o->len] = '\0';
	return 0;
}

int tg_decompress_here(enum tg_compression kind, const void *in, size_t inlen,
		       uint64_t cap, void **out, size_t *outlen, const char *label,
		       struct tg_error *err)
{
	struct outbuf o = { .cap = cap, .want = UINT64_MAX };
	int r = decompress_into(kind, in, inlen, &o, label, err);

	*out = o.p;
	*outlen = o.len;
	return r;
}

int tg_decompress_image(enum tg_compression kind, const void *in, size_t inlen, uint64_t cap,
			struct tg_image *img, const char *label, struct tg_error *err)
{
	struct outbuf o = { .cap = cap, .want = UINT64_MAX };
	int r;

	spare_get(&o);
	r = decompress_into(kind, in, inlen, &o, label, err);
	*img = (struct tg_image){ .p = o.p, .len = o.len, .size = o.size };
	return r;
}

/*
 * In a worker (confine_worker.c), forked by the spawner, itself a fork of a
 * process that may have had other threads: one may have held one of the
 * caches' locks or been halfway through an update when the process was
 * copied.  Start with fresh locks and empty caches (what they held stays
 * allocated in this copy: a few buffers, never freed, never reused).
 */
void tg_decompress_forget(void)
{
	spare_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	xz_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	dctx_lock = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
	n_spare = n_xz = n_dctx = 0;
}

/* ------------------------------------------------------------ kernel images */

/*
 * A kernel payload is followed by other data (the 4-byte size kbuild
 * appends, a PE signature): decoding ends with the first stream, whatever
 * follows, or once the bytes wanted are there.
 */

#define LZ4_LEGACY_MAGIC 0x184C2102u
#define LZ4_LEGACY_BLOCK (8u << 20)

static const char *const kzip_names[] = {
	[TG_KZ_NONE] = "uncompressed", [TG_KZ_GZIP] = "gzip", [TG_KZ_XZ] = "xz", [TG_KZ_LZMA] = "lzma",
	[TG_KZ_ZSTD] = "zstd", [TG_KZ_LZ4] = "lz4", [TG_KZ_BZIP2] = "bzip2", [TG_KZ_LZO] = "lzo",
};

const char *tg_kzip_name(enum tg_kzip z)
{
	return (unsigned)z < TG_ARRAY_SIZE(kzip_names) ? kzip_names[z] : "unknown";
}

enum tg_kzip tg_kzip_detect(const unsigned char *p, size_t n)
{
	static const unsigned char xz[] = { 0xFD, '7', 'z', 'X', 'Z', 0x00 };
	static const unsigned char zst[] = { 0x28, 0xB5, 0x2F, 0xFD };
	static const unsigned char lzo[] = { 0x89, 'L', 'Z', 'O' };

	if (n >= 3 && p[0] == 0x1F && p[1] == 0x8B && p[2] == 0x08)
		return TG_KZ_GZIP;
	if (n >= sizeof(xz) && !memcmp(p, xz, sizeof(xz)))
		return TG_KZ_XZ;
	if (n >= sizeof(zst) && !memcmp(p, zst, sizeof(zst)))
		return TG_KZ_ZSTD;
	if (n >= 4 && tg_le32(p) == LZ4_LEGACY_MAGIC)
		return TG_KZ_LZ4;
	if (n >= 3 && !memcmp(p, "BZh", 3))
		return TG_KZ_BZIP2;
	if (n >= sizeof(lzo) && !memcmp(p, lzo, sizeof(lzo)))
		return TG_KZ_LZO;
	/* lzma -9 (.lzma "alone"): properties byte 0x5D, dictionary size, size */
	if (n >= 13 && p[0] == 0x5D && p[1] == 0x00 && p[2] == 0x00)
		return TG_KZ_LZMA;
	return TG_KZ_NONE;
}

static int kunzip_gzip(const unsigned char *in, size_t inlen, struct outbuf *o)
{
	z_stream z;
	size_t avail;
	int ret, r;

	memset(&z, 0, sizeof(z));
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)in;
	z.avail_in = inlen > UINT_MAX ? UINT_MAX : (uInt)inlen;
	while ((r = outbuf_room(o, 1, &avail)) > 0) {
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
static int kunzip_lzma(const unsigned char *in, size_t inlen, struct outbuf *o, bool alone)
{
	lzma_stream s = LZMA_STREAM_INIT;
	lzma_ret ret;
	size_t avail;
	int r;

	if ((alone ? lzma_alone_decoder(&s, XZ_MEMLIMIT) : lzma_stream_decoder(&s, XZ_MEMLIMIT, 0)) != LZMA_OK)
		return -ENOMEM;
	s.next_in = in;
	s.avail_in = inlen;
	while ((r = outbuf_room(o, 1, &avail)) > 0) {
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

static int kunzip_zstd(const unsigned char *in, size_t inlen, struct outbuf *o)
{
	ZSTD_DStream *ds = ZSTD_createDStream();
	ZSTD_inBuffer ib = { in, inlen, 0 };
	size_t avail, ret;
	int r;

	if (!ds)
		return -ENOMEM;
	/* kbuild's zstd22 uses a 2^27 window at most (the kernel's own decoder limit) */
	ZSTD_DCtx_setParameter(ds, ZSTD_d_windowLogMax, TG_ZSTD_WINDOWLOG_MAX);
	while ((r = outbuf_room(o, 1, &avail)) > 0) {
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
static int kunzip_lz4(const unsigned char *in, size_t inlen, struct outbuf *o)
{
	uint64_t want = o->want;
	size_t pos = 4, blocks = 0, avail;
	int r = 0;

	o->want = UINT64_MAX;	/* a block may end past @want: room up to the cap */

	while (inlen - pos >= 4) {
		uint32_t csize = tg_le32(in + pos);
		int n;

		if (csize == LZ4_LEGACY_MAGIC) {	/* concatenated frames */
			pos += 4;
			continue;
		}
		if (csize == 0 || csize > inlen - pos - 4 || csize > (uint32_t)LZ4_compressBound(LZ4_LEGACY_BLOCK))
			break;
		/* a block decodes whole: make room for the largest one */
		if ((r = outbuf_room(o, LZ4_LEGACY_BLOCK, &avail)) <= 0)
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
 * kbuild appends the decoded size to the payload (gzip's own trailer says
 * the same): when plausible, the buffer is allocated once at that size
 * instead of growing through copies.
 */
int tg_kzip_decode(enum tg_kzip z, const unsigned char *in, size_t inlen, uint64_t cap,
		   uint64_t want, unsigned char **out, size_t *outlen)
{
	struct outbuf o = { .cap = cap, .want = want };
	uint64_t hint = inlen >= 8 ? tg_le32(in + inlen - 4) : 0;
	int r;

	/* kernels compress 3-10 times; a larger claim is not believed */
	if (hint >= inlen && hint / 64 <= inlen && hint <= cap && hint < want) {
		o.p = tg_alloc_big((size_t)hint + 1);
		o.size = o.p ? (size_t)hint : 0;
	}

	switch (z) {
	case TG_KZ_GZIP: r = kunzip_gzip(in, inlen, &o); break;
	case TG_KZ_XZ: r = kunzip_lzma(in, inlen, &o, false); break;
	case TG_KZ_LZMA: r = kunzip_lzma(in, inlen, &o, true); break;
	case TG_KZ_ZSTD: r = kunzip_zstd(in, inlen, &o); break;
	case TG_KZ_LZ4: r = kunzip_lz4(in, inlen, &o); break;
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
