/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yum/dnf repository metadata, read with createrepo_c's own parsers (the
 * library dnf's tools write it with): repomd.xml says where primary and
 * filelists are and what their checksums are; filelists names every file
 * of every package, so packages that carry neither a kernel module nor a
 * kernel's export table or .config are never opened (or downloaded); primary
 * maps the packages of interest to their location, size and checksum.
 *
 * Both files are streamed (createrepo_c feeds libxml2's push parser chunk
 * by chunk and hands us one package at a time): memory stays flat for a
 * repository of any size.  createrepo_c 0.17 (Debian 12) reads gzip, bzip2,
 * xz and plain XML; zstd, which newer createrepo_c writes by default, is
 * decompressed here into an unlinked temporary file and parsed from there.
 *
 * This file links createrepo_c (GPL-2.0-or-later), hence its licence; only
 * taintguard-audit uses it.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <createrepo_c/compression_wrapper.h>
#include <createrepo_c/error.h>
#include <createrepo_c/package.h>
#include <createrepo_c/repomd.h>
#include <createrepo_c/xml_parser.h>
#include <glib.h>
#include <openssl/evp.h>
#include <zstd.h>

#include "pkg.h"

/* A decompressed metadata file larger than this is not metadata. */
#define MAX_METADATA_SIZE (8ull << 30)
/* Kernel files named by one package, at most (a kernel package has a handful). */
#define MAX_KERNEL_FILES 4096

/*
 * createrepo_c reports every parse error twice: in the GError we get and
 * through g_critical() on stderr.  The first is enough.
 */
static void quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *msg, gpointer data)
{
	(void)domain, (void)level, (void)msg, (void)data;
}

static void log_setup(void)
{
	g_log_set_handler("C_CREATEREPOLIB", G_LOG_LEVEL_MASK | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
			  quiet_log, NULL);
}

static void quiet(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, log_setup);
}

/* --------------------------------------------------------- checksums */

static const struct {
	const char *name;	/* as repodata writes it */
	const char *evp;	/* OpenSSL's name */
	size_t hexlen;
} sums[] = {
	{ "md5", "md5", 32 },	{ "sha", "sha1", 40 },	   { "sha1", "sha1", 40 },
	{ "sha224", "sha224", 56 }, { "sha256", "sha256", 64 }, { "sha384", "sha384", 96 },
	{ "sha512", "sha512", 128 },
};

static int sum_index(const char *checksum)
{
	const char *colon = checksum ? strchr(checksum, ':') : NULL;

	if (!colon)
		return -1;
	for (size_t i = 0; i < sizeof(sums) / sizeof(sums[0]); i++) {
		size_t l = strlen(sums[i].name);

		if ((size_t)(colon - checksum) != l || strncmp(checksum, sums[i].name, l))
			continue;
		if (strlen(colon + 1) != sums[i].hexlen ||
		    strspn(colon + 1, "0123456789abcdefABCDEF") != sums[i].hexlen)
			return -1;
		return (int)i;
	}
	return -1;
}

const char *pkg_checksum_type(const char *checksum)
{
	int i = sum_index(checksum);

	return i < 0 ? NULL : sums[i].evp;
}

int pkg_checksum_fd(int fd, const char *checksum, char **error)
{
	int i = sum_index(checksum);
	const EVP_MD *md = i < 0 ? NULL : EVP_get_digestbyname(sums[i].evp);
	unsigned char buf[1 << 16], dig[EVP_MAX_MD_SIZE];
	char hex[2 * EVP_MAX_MD_SIZE + 1];
	unsigned dlen = 0;
	EVP_MD_CTX *ctx;
	off_t off = 0;
	ssize_t n;
	int r = 0;

	*error = NULL;
	if (!md) {
		*error = strf("unusable checksum '%s'", checksum ? checksum : "(none)");
		return -EINVAL;
	}
	ctx = EVP_MD_CTX_new();
	if (!ctx || !EVP_DigestInit_ex(ctx, md, NULL)) {
		EVP_MD_CTX_free(ctx);
		return -ENOMEM;
	}
	while ((n = pread(fd, buf, sizeof(buf), off)) > 0) {
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		off += n;
	}
	if (n < 0) {
		*error = strf("read error: %s", strerror(errno));
		r = -EIO;
	} else {
		EVP_DigestFinal_ex(ctx, dig, &dlen);
		hex_lower(hex, dig, dlen);
		if (strcasecmp(hex, strchr(checksum, ':') + 1)) {
			*error = strf("checksum mismatch: %s:%s, the repository says %s",
					  sums[i].name, hex, checksum);
			r = -EBADMSG;
		}
	}
	EVP_MD_CTX_free(ctx);
	lseek(fd, 0, SEEK_SET);
	return r;
}

/* ------------------------------------------------------------ repomd */

void pkg_repodata_free(struct pkg_repodata *rd)
{
	free(rd->primary);
	free(rd->filelists);
	free(rd->primary_sum);
	free(rd->filelists_sum);
	memset(rd, 0, sizeof(*rd));
}

bool pkg_repo_detect(const char *dir)
{
	char *p = strf("%s/repodata/repomd.xml", dir);
	struct stat st;
	bool ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return ok;
}

/* A record's file below @dir, and its stated checksum. */
static int take_record(cr_Repomd *md, const char *type, const char *dir, const char *repomd,
		       char **path, char **sum, char **error)
{
	cr_RepomdRecord *rec = cr_repomd_get_record(md, type);

	if (!rec || !rec->location_href || !*rec->location_href) {
		*error = strf("%s: names no %s metadata", repomd, type);
		return -EINVAL;
	}
	if (rec->location_base && *rec->location_base && strncmp(rec->location_base, "file://", 7)) {
		*error = strf("%s: %s metadata at %s%s is not local", repomd, type,
				  rec->location_base, rec->location_href);
		return -EINVAL;
	}
	*path = rec->location_base && *rec->location_base
			? strf("%s/%s", rec->location_base + 7, rec->location_href)
			: strf("%s/%s", dir, rec->location_href);
	*sum = strf("%s:%s", rec->checksum_type ? rec->checksum_type : "",
			rec->checksum ? rec->checksum : "");
	if (!*path || !*sum)
		return -ENOMEM;
	if (!pkg_checksum_type(*sum)) {
		*error = strf("%s: %s metadata has no usable checksum ('%s')", repomd, type, *sum);
		return -EINVAL;
	}
	return 0;
}

/*
 * Repository metadata is UTF-8 (createrepo writes nothing else).  A document
 * that declares another encoding, or starts as UTF-16, is refused before
 * createrepo_c sees it: its parser (0.17, libxml2 SAX) dereferences NULL when
 * such a document also holds a byte the declared encoding cannot convert
 * (found by the repodata fuzzer: encoding="UTF-7" and a 0xFF byte).
 */
static int check_encoding(const char *path, const char *name, char **error)
{
	char head[512], enc[32] = "";
	const char *p = head, *end, *e;
	GError *gerr = NULL;
	CR_FILE *f;
	int n;

	f = cr_open(path, CR_CW_MODE_READ, CR_CW_AUTO_DETECT_COMPRESSION, &gerr);
	n = f ? cr_read(f, head, sizeof(head) - 1, &gerr) : -1;
	if (f)
		cr_close(f, NULL);
	if (n < 0) {
		*error = strf("%s: %s", name, gerr && gerr->message ? gerr->message : "cannot be read");
		if (gerr)
			g_error_free(gerr);
		return -EINVAL;
	}
	if (gerr)
		g_error_free(gerr);
	head[n] = '\0';
	if (n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))	/* a UTF-8 byte order mark */
		p += 3;
	if (*p != '<' || memchr(head, '\0', (size_t)n)) {
		*error = strf("%s: not an XML document in UTF-8", name);
		return -EINVAL;
	}
	if (strncmp(p, "<?xml", 5) || !(end = strstr(p, "?>")))
		return 0;	/* no declaration: UTF-8 by default */
	for (e = p; (e = strstr(e, "encoding")) && e < end; e++) {
		const char *q = e + 8;
		size_t len;

		while (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n' || *q == '=')
			q++;
		if (*q != '"' && *q != '\'')
			break;
		len = strcspn(q + 1, *q == '"' ? "\"" : "'");
		snprintf(enc, sizeof(enc), "%.*s", (int)(len < sizeof(enc) ? len : sizeof(enc) - 1), q + 1);
		break;
	}
	if (*enc && strcasecmp(enc, "UTF-8") && strcasecmp(enc, "UTF8") && strcasecmp(enc, "US-ASCII")) {
		*error = strf("%s: declares encoding '%s'; repository metadata must be UTF-8", name, enc);
		return -EINVAL;
	}
	return 0;
}

int pkg_repo_local(const char *dir, struct pkg_repodata *rd, char **error)
{
	char *path = strf("%s/repodata/repomd.xml", dir);
	cr_Repomd *md = cr_repomd_new();
	GError *gerr = NULL;
	int r;

	memset(rd, 0, sizeof(*rd));
	*error = NULL;
	quiet();
	if (!path || !md) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = check_encoding(path, path, error)) < 0)
		goto out;
	if (cr_xml_parse_repomd(path, md, NULL, NULL, &gerr) != CRE_OK) {
		*error = strf("%s: %s", path, gerr ? gerr->message : "cannot be parsed");
		r = -EINVAL;
		goto out;
	}
	r = take_record(md, "primary", dir, path, &rd->primary, &rd->primary_sum, error);
	if (r == 0)
		r = take_record(md, "filelists", dir, path, &rd->filelists, &rd->filelists_sum, error);
out:
	if (r < 0)
		pkg_repodata_free(rd);
	if (gerr)
		g_error_free(gerr);
	cr_repomd_free(md);
	free(path);
	return r;
}

static int verify_file(const char *path, const char *sum, char **error)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;
	char *why = NULL;

	if (fd < 0) {
		*error = strf("%s: %s", path, strerror(errno));
		return -errno;
	}
	r = pkg_checksum_fd(fd, sum, &why);
	close(fd);
	if (r < 0)
		*error = strf("%s: %s", path, why ? why : strerror(-r));
	free(why);
	return r;
}

int pkg_repodata_verify(const struct pkg_repodata *rd, char **error)
{
	int r;

	*error = NULL;
	r = verify_file(rd->primary, rd->primary_sum, error);
	return r < 0 ? r : verify_file(rd->filelists, rd->filelists_sum, error);
}

/* ------------------------------------------------------ zstd metadata */

static bool is_zstd(const char *path)
{
	unsigned char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool z = fd >= 0 && read(fd, m, 4) == 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f &&
		 m[3] == 0xfd;

	if (fd >= 0)
		close(fd);
	return z;
}

/*
 * @path decompressed into a file that has no name (so that nothing is left
 * behind whatever happens to this process); *@fd_out holds it and
 * "/proc/self/fd/N" names it for createrepo_c.
 */
static int unzstd(const char *path, int *fd_out, char **error)
{
	const char *tmp = getenv("TMPDIR");
	char *name = strf("%s/taintguard-md.XXXXXX", tmp && *tmp ? tmp : "/var/tmp");
	ZSTD_DCtx *z = ZSTD_createDCtx();
	size_t inlen = ZSTD_DStreamInSize(), outlen = ZSTD_DStreamOutSize(), ret = 1;
	void *in = malloc(inlen), *out = malloc(outlen);
	uint64_t total = 0;
	int src = -1, dst = -1, r = 0;
	ssize_t n;

	*fd_out = -1;
	if (!name || !z || !in || !out) {
		r = -ENOMEM;
		goto out;
	}
	src = open(path, O_RDONLY | O_CLOEXEC);
	dst = src < 0 ? -1 : mkostemp(name, O_CLOEXEC);
	if (src < 0 || dst < 0) {
		*error = strf("%s: %s", src < 0 ? path : name, strerror(errno));
		r = -errno;
		goto out;
	}
	unlink(name);
	while (r == 0 && (n = read(src, in, inlen)) > 0) {
		ZSTD_inBuffer ib = { in, (size_t)n, 0 };

		while (ib.pos < ib.size) {
			ZSTD_outBuffer ob = { out, outlen, 0 };

			ret = ZSTD_decompressStream(z, &ob, &ib);
			if (ZSTD_isError(ret)) {
				*error = strf("%s: zstd: %s", path, ZSTD_getErrorName(ret));
				r = -EBADMSG;
				break;
			}
			total += ob.pos;
			if (total > MAX_METADATA_SIZE) {
				*error = strf("%s: more than %llu bytes decompressed", path,
						  (unsigned long long)MAX_METADATA_SIZE);
				r = -EFBIG;
				break;
			}
			if (ob.pos && write(dst, out, ob.pos) != (ssize_t)ob.pos) {
				*error = strf("%s: %s", name, strerror(errno ? errno : ENOSPC));
				r = -EIO;
				break;
			}
		}
	}
	if (r == 0 && ret != 0) {
		*error = strf("%s: zstd: truncated stream", path);
		r = -EBADMSG;
	}
out:
	if (src >= 0)
		close(src);
	if (r < 0 && dst >= 0)
		close(dst);
	else
		*fd_out = dst;
	ZSTD_freeDCtx(z);
	free(in);
	free(out);
	free(name);
	return r;
}

/* Where createrepo_c reads @path from: itself, or its zstd-decompressed copy. */
static char *parse_path(const char *path, int *fd, char **error)
{
	*fd = -1;
	if (!is_zstd(path))
		return strdup(path);
	if (unzstd(path, fd, error) < 0)
		return NULL;
	return strf("/proc/self/fd/%d", *fd);
}

/* --------------------------------------------------------- filelists */

struct hit {			/* a package of interest, from filelists */
	char *pkgid;
	bool modules, oot, used;
	char **kf;		/* its kernel files */
	size_t n_kf;
};

struct scan {
	struct hit *hits;
	size_t n, cap;
	cr_Package *cur;	/* handed out by a newpkgcb, not yet back through a pkgcb */
	size_t packages;	/* in filelists */
	struct pkg_repo_list *out;
	int err;
};

static void hit_free(struct hit *h)
{
	free(h->pkgid);
	for (size_t i = 0; i < h->n_kf; i++)
		free(h->kf[i]);
	free(h->kf);
}

static int new_pkg(cr_Package **pkg, const char *pkgId, const char *name, const char *arch,
		   void *data, GError **err)
{
	struct scan *s = data;

	(void)pkgId, (void)name, (void)arch;
	*pkg = s->cur = cr_package_new();
	if (!*pkg) {
		s->err = -ENOMEM;
		g_set_error(err, CREATEREPO_C_ERROR, CRE_MEMORY, "out of memory");
		return CR_CB_RET_ERR;
	}
	return CR_CB_RET_OK;
}

/* What one package's files are: module candidates, kernel files. */
static int classify_files(cr_Package *pkg, struct hit *h)
{
	char buf[PATH_MAX];

	for (GSList *l = pkg->files; l; l = l->next) {
		const cr_PackageFile *f = l->data;
		struct pkg_class c;
		enum pkg_kind k;
		char **nv;

		/* regular files only: "dir" and "ghost" entries carry no content */
		if (!f || (f->type && *f->type) || !f->name)
			continue;
		if ((size_t)snprintf(buf, sizeof(buf), "%s%s", f->path ? f->path : "", f->name) >=
		    sizeof(buf))
			continue;	/* no file of a package can have that name */
		k = pkg_classify(buf, &c);
		if (k == PKG_MODULE) {
			h->modules = true;
			h->oot |= c.named && !c.in_tree;
		} else if (k != PKG_OTHER && h->n_kf < MAX_KERNEL_FILES) {
			nv = realloc(h->kf, (h->n_kf + 1) * sizeof(*nv));
			if (!nv || !(nv[h->n_kf] = strdup(buf))) {
				if (nv)
					h->kf = nv;
				return -ENOMEM;
			}
			h->kf = nv;
			h->n_kf++;
		}
	}
	return 0;
}

static int fl_pkg(cr_Package *pkg, void *data, GError **err)
{
	struct scan *s = data;
	struct hit h = { 0 };
	int r;

	s->cur = NULL;
	s->packages++;
	r = classify_files(pkg, &h);
	if (r == 0 && (h.modules || h.n_kf)) {
		if (s->n == s->cap) {
			size_t nc = s->cap ? s->cap * 2 : 64;
			struct hit *nh = realloc(s->hits, nc * sizeof(*nh));

			if (!nh)
				r = -ENOMEM;
			else
				s->hits = nh, s->cap = nc;
		}
		if (r == 0 && !(h.pkgid = strdup(pkg->pkgId ? pkg->pkgId : "")))
			r = -ENOMEM;
		if (r == 0) {
			s->hits[s->n++] = h;
			h = (struct hit){ 0 };
		}
	}
	hit_free(&h);
	cr_package_free(pkg);
	if (r < 0) {
		s->err = r;
		g_set_error(err, CREATEREPO_C_ERROR, CRE_MEMORY, "out of memory");
		return CR_CB_RET_ERR;
	}
	return CR_CB_RET_OK;
}

static int cmp_hit(const void *a, const void *b)
{
	return strcmp(((const struct hit *)a)->pkgid, ((const struct hit *)b)->pkgid);
}

/* ----------------------------------------------------------- primary */

static char *nevra_of(const cr_Package *p)
{
	bool epoch = p->epoch && *p->epoch && strcmp(p->epoch, "0");

	return strf("%s-%s%s%s-%s.%s", p->name ? p->name : "?", epoch ? p->epoch : "",
			epoch ? ":" : "", p->version ? p->version : "?", p->release ? p->release : "?",
			p->arch ? p->arch : "?");
}

static char *dup0(const char *s)
{
	return s && *s ? strdup(s) : NULL;
}

/* The package of interest @h, as primary describes @pkg. */
static int add_entry(struct scan *s, struct hit *h, const cr_Package *pkg)
{
	struct pkg_repo_list *l = s->out;
	struct pkg_repo_pkg *e, *nv;

	nv = realloc(l->v, (l->n + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	l->v = nv;
	e = &l->v[l->n];
	memset(e, 0, sizeof(*e));
	e->location = strdup(pkg->location_href);
	e->base = dup0(pkg->location_base);
	e->name = dup0(pkg->name);
	e->nevra = nevra_of(pkg);
	e->license = dup0(pkg->rpm_license);
	e->checksum = strf("%s:%s", pkg->checksum_type ? pkg->checksum_type : "", pkg->pkgId);
	e->size = pkg->size_package > 0 ? (uint64_t)pkg->size_package : 0;
	e->modules = h->modules;
	e->oot = h->oot;
	e->kernel_files = h->kf;
	e->n_kernel_files = h->n_kf;
	h->kf = NULL;
	h->n_kf = 0;
	l->n++;
	if (!e->location || !e->nevra || !e->checksum || (pkg->location_base && *pkg->location_base && !e->base) ||
	    (pkg->name && *pkg->name && !e->name))
		return -ENOMEM;
	return 0;
}

static int pr_pkg(cr_Package *pkg, void *data, GError **err)
{
	struct scan *s = data;
	struct hit key = { .pkgid = pkg->pkgId }, *h;
	int r = 0;

	s->cur = NULL;
	h = s->n && pkg->pkgId ? bsearch(&key, s->hits, s->n, sizeof(*h), cmp_hit) : NULL;
	if (!h || h->used || !pkg->location_href || !*pkg->location_href) {
		s->out->skipped++;
	} else {
		h->used = true;	/* a package listed twice is audited once */
		r = add_entry(s, h, pkg);
	}
	cr_package_free(pkg);
	if (r < 0) {
		s->err = r;
		g_set_error(err, CREATEREPO_C_ERROR, CRE_MEMORY, "out of memory");
		return CR_CB_RET_ERR;
	}
	return CR_CB_RET_OK;
}

/* ------------------------------------------------------------- scan */

void pkg_repo_list_free(struct pkg_repo_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct pkg_repo_pkg *e = &l->v[i];

		free(e->location), free(e->base), free(e->name), free(e->nevra), free(e->license);
		free(e->checksum);
		for (size_t j = 0; j < e->n_kernel_files; j++)
			free(e->kernel_files[j]);
		free(e->kernel_files);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* One parse; a package handed out but not returned (the parse stopped) is ours to free. */
static int parse(const char *path, bool primary, struct scan *s, char **error)
{
	GError *gerr = NULL;
	char *pp;
	int fd, rc;

	pp = parse_path(path, &fd, error);
	if (!pp)
		return *error ? -EINVAL : -ENOMEM;
	if (check_encoding(pp, path, error) < 0)
		rc = CRE_XMLDATA;
	else if (primary)
		rc = cr_xml_parse_primary(pp, new_pkg, s, pr_pkg, s, NULL, NULL, 0, &gerr);
	else
		rc = cr_xml_parse_filelists(pp, new_pkg, s, fl_pkg, s, NULL, NULL, &gerr);
	if (s->cur) {
		cr_package_free(s->cur);
		s->cur = NULL;
	}
	if (rc != CRE_OK && !*error)
		*error = strf("%s: %s", path, gerr && gerr->message ? gerr->message : "cannot be parsed");
	if (gerr)
		g_error_free(gerr);
	if (fd >= 0)
		close(fd);
	free(pp);
	if (rc == CRE_OK)
		return 0;
	return s->err ? s->err : -EINVAL;
}

int pkg_repo_scan(const struct pkg_repodata *rd, struct pkg_repo_list *out, char **error)
{
	struct scan s = { .out = out };
	int r;

	memset(out, 0, sizeof(*out));
	*error = NULL;
	quiet();
	r = parse(rd->filelists, false, &s, error);
	if (r == 0) {
		if (s.n)
			qsort(s.hits, s.n, sizeof(*s.hits), cmp_hit);
		r = parse(rd->primary, true, &s, error);
	}
	for (size_t i = 0; i < s.n; i++)
		hit_free(&s.hits[i]);
	free(s.hits);
	if (r < 0)
		pkg_repo_list_free(out);
	return r;
}

/* ----------------------------------------------------- cached scans */

#define MAX_LIST (16u << 20)
#define MAX_FIELD (64u << 10)

void pkg_repo_list_encode(const struct pkg_repo_list *l, struct buf *b)
{
	buf_put_u64(b, l->skipped);
	buf_put_u32(b, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++) {
		const struct pkg_repo_pkg *e = &l->v[i];

		buf_put_str(b, e->location);
		buf_put_str(b, e->base);
		buf_put_str(b, e->name);
		buf_put_str(b, e->nevra);
		buf_put_str(b, e->license);
		buf_put_str(b, e->checksum);
		buf_put_u64(b, e->size);
		buf_put_u8(b, (uint8_t)(e->modules | e->oot << 1));
		buf_put_u32(b, (uint32_t)e->n_kernel_files);
		for (size_t j = 0; j < e->n_kernel_files; j++)
			buf_put_str(b, e->kernel_files[j]);
	}
}

int pkg_repo_list_decode(const void *p, size_t n, struct pkg_repo_list *l)
{
	struct pkg_rbuf b = { .p = p, .n = n };
	uint32_t count;

	memset(l, 0, sizeof(*l));
	l->skipped = pkg_r_u64(&b);
	count = pkg_r_u32(&b);
	if (b.bad || count > MAX_LIST || count > n / 16)
		return -EBADMSG;
	l->v = calloc(count ? count : 1, sizeof(*l->v));
	if (!l->v)
		return -ENOMEM;
	for (uint32_t i = 0; i < count && !b.bad; i++) {
		struct pkg_repo_pkg *e = &l->v[i];
		uint32_t nk;
		uint8_t f;

		l->n++;
		e->location = pkg_r_str(&b, MAX_FIELD);
		e->base = pkg_r_str(&b, MAX_FIELD);
		e->name = pkg_r_str(&b, MAX_FIELD);
		e->nevra = pkg_r_str(&b, MAX_FIELD);
		e->license = pkg_r_str(&b, MAX_FIELD);
		e->checksum = pkg_r_str(&b, MAX_FIELD);
		e->size = pkg_r_u64(&b);
		f = pkg_r_u8(&b);
		e->modules = f & 1;
		e->oot = f & 2;
		nk = pkg_r_u32(&b);
		/* a checksum that cannot be used is the package's error when it is read */
		if (b.bad || f > 3 || nk > MAX_KERNEL_FILES || !e->location || !e->nevra ||
		    !e->checksum) {
			b.bad = true;
			break;
		}
		e->kernel_files = calloc(nk ? nk : 1, sizeof(char *));
		if (!e->kernel_files) {
			b.bad = b.oom = true;
			break;
		}
		for (uint32_t j = 0; j < nk && !b.bad; j++) {
			e->kernel_files[j] = pkg_r_str(&b, MAX_FIELD);
			e->n_kernel_files++;
			if (!e->kernel_files[j])
				b.bad = true;
		}
	}
	if (b.bad || b.off != b.n) {
		int r = b.oom ? -ENOMEM : -EBADMSG;

		pkg_repo_list_free(l);
		return r;
	}
	return 0;
}
