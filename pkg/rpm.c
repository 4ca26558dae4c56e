/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librpm's configuration and log, transaction sets, and what a package
 * header says about itself.  rpmReadPackageFile() checks header digests
 * always and signatures when the key is known; an unknown or untrusted key
 * is reported, not fatal (offline audits read packages from anywhere).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>
#include <openssl/evp.h>

#include "pkg.h"

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* librpm logs through one global callback; keep each thread's last message. */
static __thread char tls_log[512];
static bool log_verbose;

static int log_cb(rpmlogRec rec, rpmlogCallbackData data)
{
	const char *msg = rpmlogRecMessage(rec);
	size_t n;

	(void)data;
	if (rpmlogRecPriority(rec) <= RPMLOG_WARNING && msg) {
		snprintf(tls_log, sizeof(tls_log), "%s", msg);
		n = strlen(tls_log);
		while (n && (tls_log[n - 1] == '\n' || tls_log[n - 1] == ' '))
			tls_log[--n] = 0;
	}
	return log_verbose ? RPMLOG_DEFAULT : 0;
}

const char *pkg_rpm_log_last(void)
{
	return tls_log;
}

void pkg_rpm_log_clear(void)
{
	tls_log[0] = 0;
}

int pkg_rpm_setup(const char *dbpath, bool verbose, char **error)
{
	*error = NULL;
	if (rpmReadConfigFiles(NULL, NULL) != 0) {
		*error = strdup("cannot read the rpm configuration");
		return -EINVAL;
	}
	if (dbpath) {
		char *def = strf("_dbpath %s", dbpath);

		if (!def)
			return -ENOMEM;
		rpmDefineMacro(NULL, def, RMIL_CMDLINE);
		free(def);
	}
	log_verbose = verbose;
	rpmlogSetCallback(log_cb, NULL);
	return 0;
}

void pkg_rpm_teardown(void)
{
	rpmFreeMacros(NULL);
	rpmFreeRpmrc();
}

rpmts pkg_ts_new(const char *root)
{
	rpmts ts = rpmtsCreate();

	if (!ts)
		return NULL;
	if (root)
		rpmtsSetRootDir(ts, root);
	/* Enforce digests only: an unknown or untrusted key is reported, not fatal. */
	rpmtsSetVfyLevel(ts, RPMSIG_DIGEST_TYPE);
	return ts;
}

const char *pkg_sig_name(enum pkg_sig s)
{
	switch (s) {
	case PKG_SIG_UNSIGNED: return "unsigned";
	case PKG_SIG_OK: return "ok";
	case PKG_SIG_NOKEY: return "nokey";
	case PKG_SIG_NOTTRUSTED: return "nottrusted";
	case PKG_SIG_BAD: return "bad";
	case PKG_SIG_INSTALLED: return "installed";
	default: return "unknown";
	}
}

static int keep_str(char **slot, const char *s)
{
	if (*slot || !s)
		return 0;
	*slot = strdup(s);
	return *slot ? 0 : -ENOMEM;
}

int pkg_info_from_header(Header h, struct pkg_info *pi)
{
	char *nevra = headerGetAsString(h, RPMTAG_NEVRA);

	if (!nevra)
		return -ENOMEM;
	free(pi->nevra);
	pi->nevra = nevra;
	if (keep_str(&pi->name, headerGetString(h, RPMTAG_NAME)) < 0 ||
	    keep_str(&pi->license, headerGetString(h, RPMTAG_LICENSE)) < 0)
		return -ENOMEM;
	pi->signed_ = headerIsEntry(h, RPMTAG_RSAHEADER) || headerIsEntry(h, RPMTAG_DSAHEADER) ||
		      headerIsEntry(h, RPMTAG_SIGPGP) || headerIsEntry(h, RPMTAG_SIGGPG);
	if (!pi->sig_info && (headerIsEntry(h, RPMTAG_RSAHEADER) || headerIsEntry(h, RPMTAG_DSAHEADER))) {
		char *s = headerFormat(h, "%|DSAHEADER?{%{DSAHEADER:pgpsig}}:{%{RSAHEADER:pgpsig}}|", NULL);

		if (s && *s)
			pi->sig_info = s;
		else
			free(s);
	}
	return 0;
}

void pkg_info_free(struct pkg_info *pi)
{
	free(pi->name);
	free(pi->nevra);
	free(pi->license);
	free(pi->sig_info);
	memset(pi, 0, sizeof(*pi));
}

/* "CAUSE: librpm's last message", or CAUSE alone. */
static char *with_log(const char *cause)
{
	const char *log = pkg_rpm_log_last();

	return *log ? strf("%s: %s", cause, log) : strdup(cause);
}

/* The package on pf->fd: header checked, file list read. */
static int file_read(rpmts ts, const char *path, struct pkg_file *pf, char **error)
{
	rpmRC rc;

	rc = rpmReadPackageFile(ts, pf->fd, path, &pf->h);
	switch (rc) {
	case RPMRC_OK:
		pf->sig = PKG_SIG_UNSIGNED;	/* refined by the caller from pkg_info.signed_ */
		break;
	case RPMRC_NOKEY:
		pf->sig = PKG_SIG_NOKEY;
		break;
	case RPMRC_NOTTRUSTED:
		pf->sig = PKG_SIG_NOTTRUSTED;
		break;
	case RPMRC_NOTFOUND:
		*error = with_log("not an rpm package");
		goto fail;
	default:
		pf->sig = PKG_SIG_BAD;
		*error = with_log("header digest or signature check failed");
		goto fail;
	}
	if (!pf->h) {
		*error = strdup("no header");
		goto fail;
	}
	if (rc == RPMRC_OK && (headerIsEntry(pf->h, RPMTAG_RSAHEADER) ||
			       headerIsEntry(pf->h, RPMTAG_DSAHEADER) ||
			       headerIsEntry(pf->h, RPMTAG_SIGPGP) ||
			       headerIsEntry(pf->h, RPMTAG_SIGGPG)))
		pf->sig = PKG_SIG_OK;
	pf->files = rpmfilesNew(NULL, pf->h, 0, RPMFI_KEEPHEADER);
	if (!pf->files) {
		*error = strdup("cannot read the file list");
		goto fail;
	}
	return 0;
fail:
	if (!*error)
		*error = strdup("out of memory");
	{
		enum pkg_sig sig = pf->sig;

		pkg_file_close(pf);
		pf->sig = sig;
	}
	return -EINVAL;
}

int pkg_file_open(rpmts ts, const char *path, struct pkg_file *pf, char **error)
{
	memset(pf, 0, sizeof(*pf));
	*error = NULL;
	pkg_rpm_log_clear();
	pf->fd = Fopen(path, "r.ufdio");
	if (!pf->fd || Ferror(pf->fd)) {
		*error = strdup(pf->fd ? Fstrerror(pf->fd) : strerror(errno));
		if (pf->fd)
			Fclose(pf->fd);
		pf->fd = NULL;
		return -EINVAL;
	}
	return file_read(ts, path, pf, error);
}

int pkg_file_open_fd(rpmts ts, int fd, const char *label, struct pkg_file *pf, char **error)
{
	memset(pf, 0, sizeof(*pf));
	*error = NULL;
	pkg_rpm_log_clear();
	if (lseek(fd, 0, SEEK_SET) < 0 || !(pf->fd = fdDup(fd)) || Ferror(pf->fd)) {
		*error = strdup(strerror(errno ? errno : EBADF));
		if (pf->fd)
			Fclose(pf->fd);
		pf->fd = NULL;
		return -EINVAL;
	}
	return file_read(ts, label, pf, error);
}

void pkg_file_close(struct pkg_file *pf)
{
	rpmfilesFree(pf->files);
	headerFree(pf->h);
	if (pf->fd)
		Fclose(pf->fd);
	memset(pf, 0, sizeof(*pf));
}

int pkg_header_reread(rpmts ts, FD_t fd, const char *label, Header *h)
{
	rpmVSFlags ovs = rpmtsVSFlags(ts);
	rpmRC rc;

	*h = NULL;
	(void)Fseek(fd, 0, SEEK_SET);	/* fails harmlessly on a pipe */
	rpmtsSetVSFlags(ts, ovs | RPMVSF_MASK_NODIGESTS | RPMVSF_MASK_NOSIGNATURES);
	rc = rpmReadPackageFile(ts, fd, label, h);
	rpmtsSetVSFlags(ts, ovs);
	if (rc != RPMRC_OK && rc != RPMRC_NOKEY && rc != RPMRC_NOTTRUSTED) {
		headerFree(*h);
		*h = NULL;
		return -EINVAL;
	}
	return 0;
}

/* The package file's leading parts (lib/rpmlead.c, lib/header.c): sizes in bytes. */
#define LEAD_SIZE 96
#define INTRO_SIZE 16		/* magic (8), index entries (4), data bytes (4) */
#define ENTRY_SIZE 16
#define FIRST_READ (32u << 10)	/* lead and headers of any package without many files */

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * A header intro at @p: its size without the magic (the blob headerImport()
 * takes), 0 when it is none.  rpm's own bounds (hdrchkTags, hdrchkData).
 */
static size_t intro_blob_size(const unsigned char *p)
{
	static const unsigned char magic[8] = { 0x8e, 0xad, 0xe8, 0x01, 0, 0, 0, 0 };
	uint32_t il = be32(p + 8), dl = be32(p + 12);

	if (memcmp(p, magic, sizeof(magic)) || il == 0 || (il & 0xff000000) || (dl & 0xc0000000))
		return 0;
	return 8 + (size_t)il * ENTRY_SIZE + dl;
}

/* The file's first bytes, read as far as needed. */
struct head_buf {
	int fd;
	unsigned char *p;
	size_t have, cap;
};

/* The first @need bytes of the file in @b->p. */
static int head_need(struct head_buf *b, size_t need)
{
	unsigned char *p;
	struct stat st;
	ssize_t n;

	if (need > b->cap) {
		/* sizes come from the file: never more memory than the file has bytes */
		if (fstat(b->fd, &st) < 0 || (uint64_t)st.st_size < need)
			return -EINVAL;
		if (!(p = realloc(b->p, need)))
			return -ENOMEM;
		b->p = p;
		b->cap = need;
	}
	while (b->have < need) {
		n = pread(b->fd, b->p + b->have, b->cap - b->have, (off_t)b->have);
		if (n <= 0)
			return -EINVAL;
		b->have += (size_t)n;
	}
	return 0;
}

/*
 * The main header as one blob, read with pread() (the fd's offset is not
 * moved): one read for a package of usual size, where rpmReadPackageFile()
 * makes six and prepares digest and signature checks that are not wanted.
 */
static Header header_by_blob(int fd)
{
	struct head_buf b = { .fd = fd, .p = malloc(FIRST_READ), .cap = FIRST_READ };
	size_t sig, off, hsize;
	Header h = NULL;
	ssize_t n;

	/* a short read is the whole of a small package */
	if (fd < 0 || !b.p || (n = pread(fd, b.p, b.cap, 0)) < 0)
		goto out;
	b.have = (size_t)n;
	if (head_need(&b, LEAD_SIZE + INTRO_SIZE) < 0 || be32(b.p) != 0xedabeedb ||
	    !(sig = intro_blob_size(b.p + LEAD_SIZE)))
		goto out;
	/* the signature header (magic included) is padded to 8 bytes (lib/signature.c) */
	off = LEAD_SIZE + 8 + sig;
	off += (8 - off % 8) % 8;
	if (head_need(&b, off + INTRO_SIZE) < 0 || !(hsize = intro_blob_size(b.p + off)) ||
	    head_need(&b, off + 8 + hsize) < 0)
		goto out;
	/* checked as rpm checks a header blob (its index and regions) */
	h = headerImport(b.p + off + 8, (unsigned)hsize, HEADERIMPORT_COPY);
out:
	free(b.p);
	return h;
}

int pkg_header_quick(rpmts ts, FD_t fd, const char *label, Header *h)
{
	*h = header_by_blob(Fileno(fd));
	/* a package older than rpm 4.0 (no immutable region) wants rpm's retrofits */
	if (*h && headerIsEntry(*h, RPMTAG_HEADERIMMUTABLE))
		return 0;
	headerFree(*h);
	return pkg_header_reread(ts, fd, label, h);
}

char *pkg_keyring_id(rpmts ts)
{
	rpmdbMatchIterator mi = rpmtsInitIterator(ts, RPMDBI_NAME, "gpg-pubkey", 0);
	char **keys = NULL, *dbpath = rpmExpand("%{_dbpath} %{?_keyringpath}", NULL), *id = NULL;
	size_t n = 0, cap = 0;
	unsigned char dig[32];
	EVP_MD_CTX *x = EVP_MD_CTX_new();
	Header h;
	bool ok = x && dbpath && EVP_DigestInit_ex(x, EVP_sha256(), NULL);

	/* the public keys in the rpmdb (rpm 4.18's keyring), by key id and date */
	while (ok && mi && (h = rpmdbNextIterator(mi))) {
		char *s = headerFormat(h, "%{VERSION}-%{RELEASE}", NULL);

		if (!s || (n == cap && !(keys = reallocarray(keys, cap = cap ? 2 * cap : 16, sizeof(*keys))))) {
			free(s);
			ok = false;
			break;
		}
		keys[n++] = s;
	}
	rpmdbFreeIterator(mi);
	if (ok && n)
		qsort(keys, n, sizeof(*keys), cmp_strp);
	if (ok)
		ok = EVP_DigestUpdate(x, dbpath, strlen(dbpath) + 1);
	for (size_t i = 0; ok && i < n; i++)
		ok = EVP_DigestUpdate(x, keys[i], strlen(keys[i]) + 1);
	if (ok && EVP_DigestFinal_ex(x, dig, NULL) && (id = malloc(65)))
		hex_lower(id, dig, 32);
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	free(dbpath);
	EVP_MD_CTX_free(x);
	return id;
}
