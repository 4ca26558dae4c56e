/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A package's payload streamed in memory, never extracted: rpmio decompresses
 * it (gzip, bzip2, xz, lzma, zstd), librpm's archive reader walks the cpio
 * members, and the members of interest are read whole, each under its cap
 * (larger is an error, never truncation).  librpm does not check payload
 * integrity on this path: with check_digests every file that has a digest
 * is hashed and compared with the header, and the archive must end with
 * RPMERR_ITER_END.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/header.h>
#include <rpm/rpmarchive.h>
#include <rpm/rpmpgp.h>	/* digests: rpm >= 4.18 moved them to rpmcrypto.h, which it includes */
#include <rpm/rpmfi.h>
#include <rpm/rpmio.h>

#include "pkg.h"

/* rpmio's read mode for a payload compressor; NULL for one it does not know. */
static const char *payload_mode(const char *compressor)
{
	static const struct {
		const char *name, *mode;
	} modes[] = {
		{ "gzip", "r.gzdio" }, { "bzip2", "r.bzdio" }, { "xz", "r.xzdio" },
		{ "lzma", "r.lzdio" }, { "zstd", "r.zstdio" },
	};

	if (!compressor || !*compressor)
		return "r.gzdio";	/* rpm's default when the tag is absent */
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(compressor, modes[i].name))
			return modes[i].mode;
	return NULL;
}

/*
 * Read the current member's @size bytes: into a buffer when @keep, else
 * only through the digest.  -EIO when the archive ends inside the file.
 */
static int read_member(rpmfi fi, rpm_loff_t size, bool keep, DIGEST_CTX dig, void **out)
{
	char chunk[65536], *buf = NULL;
	rpm_loff_t done = 0;

	*out = NULL;
	if (keep && !(buf = malloc(size + 1)))
		return -ENOMEM;
	while (done < size) {
		size_t want = size - done;
		char *dst = buf ? buf + done : chunk;
		ssize_t r;

		if (!buf && want > sizeof(chunk))
			want = sizeof(chunk);
		r = rpmfiArchiveRead(fi, dst, want);
		if (r <= 0) {
			free(buf);
			return -EIO;
		}
		if (dig)
			rpmDigestUpdate(dig, dst, (size_t)r);
		done += r;
	}
	if (buf)
		buf[size] = 0;
	*out = buf;
	return 0;
}

/* Does the digest computed in @dig (finalized here) match @want? */
static bool digest_matches(DIGEST_CTX dig, const unsigned char *want, size_t wantlen)
{
	void *got = NULL;
	size_t gotlen = 0;
	bool ok;

	rpmDigestFinal(dig, &got, &gotlen, 0);
	ok = got && gotlen == wantlen && !memcmp(got, want, wantlen);
	free(got);
	return ok;
}

/* One member: read it (or just hash it), then hand it on.  < 0 stops the walk. */
static int one_member(rpmfi fi, const struct pkg_payload_opts *o, pkg_member_fn fn, void *ctx)
{
	const char *path = rpmfiFN(fi);
	struct pkg_class c;
	struct pkg_member m = { .path = path, .cls = &c };
	const unsigned char *want = NULL;
	rpm_loff_t size = rpmfiFSize(fi);
	DIGEST_CTX dig = NULL;
	size_t wantlen = 0;
	int algo = 0, r;
	bool keep;

	uint64_t max;

	pkg_classify_file(path, pkg_ftype(o->types, rpmfiFX(fi)), &c);
	keep = (o->kinds & PKG_KIND_BIT(c.kind)) != 0;
	max = keep ? o->max_size[c.kind] : o->want_max;
	if (!keep && o->want && o->want(o->want_ctx, path))
		keep = true;
	if (o->check_digests)
		want = rpmfiFDigest(fi, &algo, &wantlen);
	if (!keep && !(want && wantlen))
		return 0;	/* rpmfiNext skips the content */
	if (keep && (uint64_t)size > max) {
		m.err = -EFBIG;
		m.error = "larger than the size limit";
		keep = false;
		if (!(want && wantlen))
			return fn(ctx, &m);
	}
	if (want && wantlen)
		dig = rpmDigestInit(algo, RPMDIGEST_NONE);
	r = read_member(fi, size, keep, dig, &m.data);
	if (r < 0) {
		if (dig)
			rpmDigestFinal(dig, NULL, NULL, 0);
		m.err = r;
		m.error = r == -ENOMEM ? "out of memory" : "the payload ends inside the file";
		fn(ctx, &m);
		return r;	/* the archive cannot be followed past this */
	}
	m.len = (size_t)size;
	if (dig && !digest_matches(dig, want, wantlen)) {
		free(m.data);
		m.data = NULL;
		m.err = -EBADMSG;
		m.error = "file digest mismatch (corrupted package)";
	}
	if (!m.data && !m.err)
		return 0;	/* hashed only, and fine */
	return fn(ctx, &m);
}

int pkg_payload_read(FD_t fd, Header h, rpmfiles files, const struct pkg_payload_opts *o,
		     pkg_member_fn fn, void *ctx, char **error)
{
	const char *compr = headerGetString(h, RPMTAG_PAYLOADCOMPRESSOR);
	const char *mode = payload_mode(compr);
	struct pkg_payload_opts oo = *o;
	FD_t pfd = NULL;
	rpmfi fi = NULL;
	int rc, r = 0;

	*error = NULL;
	/* types of another file list would be read at the wrong indexes */
	if (pkg_ftypes_count(oo.types) != (size_t)rpmfilesFC(files))
		oo.types = NULL;
	o = &oo;
	if (!mode) {
		*error = strf("unsupported payload compressor '%s'", compr);
		return -ENOTSUP;
	}
	/* a duplicate: the caller's FD_t keeps its own io layers */
	pfd = Fdopen(fdDup(Fileno(fd)), mode);
	if (!pfd || Ferror(pfd)) {
		*error = strf("cannot open the payload (%s)", mode + 2);
		r = -EIO;
		goto out;
	}
	fi = rpmfiNewArchiveReader(pfd, files, RPMFI_ITER_READ_ARCHIVE_CONTENT_FIRST);
	if (!fi) {
		*error = strdup("cannot read the payload archive");
		r = -EIO;
		goto out;
	}
	while ((rc = rpmfiNext(fi)) >= 0) {
		if (!S_ISREG(rpmfiFMode(fi)) || !rpmfiArchiveHasContent(fi))
			continue;
		r = one_member(fi, o, fn, ctx);
		if (r < 0)
			goto out;
	}
	if (rc != RPMERR_ITER_END) {
		char *e = rpmfileStrerror(rc);

		*error = strf("archive error: %s (%d)", e ? e : "unknown", rc);
		free(e);
		r = -EBADMSG;
	}
out:
	rpmfiFree(fi);
	if (pfd)
		Fclose(pfd);
	return r;
}
