/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Keyrings: the certificates a kernel verifies module signatures with.
 *
 * The kernel's own keyring comes from its image (kimage_certs.c) and is read
 * lazily: only a module that carries a signature needs it, and reading it
 * means decompressing the whole kernel (about 0.8 s for Debian 12's xz'ed
 * 6.1).  Predictions run on several threads, so the first user reads it
 * under the keyring's lock and the rest wait for that one result, failure
 * included.  Certificate files an admin names (an enrolled MOK) are read
 * into keyrings of their own when the policy is loaded.
 *
 * A certificate joins a keyring only when the kernel's x509 key type would
 * take it: an RSA or EC key, and a self-signed certificate whose own
 * signature verifies (x509_check_for_self_signed()).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include "image_cache.h"
#include "keyring.h"
#include "loader_facts.h"

static void cert_free(struct tg_cert *c)
{
	X509_free(c->x509);
	OPENSSL_free(c->issuer);
	free(c->skid);
	free(c->name);
	free(c->serial);
	free(c->id);
}

/* CN of @name, else its one-line form. */
static char *name_text(const X509_NAME *name)
{
	int i = X509_NAME_get_index_by_NID(name, NID_commonName, -1);
	unsigned char *utf8 = NULL;
	char buf[256], *s;
	int n;

	if (i >= 0) {
		n = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(name, i)));
		if (n >= 0) {
			s = strndup((const char *)utf8, (size_t)n);
			OPENSSL_free(utf8);
			return s;
		}
	}
	X509_NAME_oneline(name, buf, sizeof(buf));
	return strdup(buf);
}

static char *serial_text(const ASN1_INTEGER *serial)
{
	return hex_colon(ASN1_STRING_get0_data(serial), (size_t)ASN1_STRING_length(serial));
}

/* Why the kernel's x509 key type would not take @x, or NULL. */
static const char *unusable(X509 *x, EVP_PKEY *pk)
{
	int id = pk ? EVP_PKEY_get_base_id(pk) : NID_undef;

	if (id != EVP_PKEY_RSA && id != EVP_PKEY_EC)
		return "key type the kernel or taintguard does not use for module signatures";
	if (X509_check_issued(x, x) == X509_V_OK && X509_verify(x, pk) != 1)
		return "self-signed, but its own signature does not verify (the kernel rejects it)";
	return NULL;
}

/* Take @x (owned) into @kr; 1 if added, 0 if the kernel would skip it. */
static int add_x509(struct tg_keyring *kr, X509 *x, const char *label)
{
	struct tg_cert c = { .x509 = x };
	const ASN1_OCTET_STRING *skid;
	const char *why;

	c.pkey = X509_get0_pubkey(x);
	c.name = name_text(X509_get_subject_name(x));
	if (!c.name)
		goto nomem;
	why = unusable(x, c.pkey);
	if (why) {
		int r = strv_pushf(&kr->skipped, "%s: certificate '%s': %s", label, c.name, why);

		cert_free(&c);
		return r < 0 ? r : 0;
	}
	c.issuer_len = i2d_X509_NAME(X509_get_issuer_name(x), &c.issuer);
	c.serial = serial_text(X509_get0_serialNumber(x));
	if (c.issuer_len <= 0 || !c.serial)
		goto nomem;
	skid = X509_get0_subject_key_id(x);
	if (skid && ASN1_STRING_length(skid) > 0) {
		c.skid_len = ASN1_STRING_length(skid);
		c.skid = malloc((size_t)c.skid_len);
		if (!c.skid)
			goto nomem;
		memcpy(c.skid, ASN1_STRING_get0_data(skid), (size_t)c.skid_len);
	}
	{
		char *issuer = name_text(X509_get_issuer_name(x));

		c.id = issuer ? strf("%s/%s", issuer, c.serial) : NULL;
		free(issuer);
		if (!c.id)
			goto nomem;
	}
	if (grow_array(&kr->certs, &kr->cap, kr->n, sizeof(*kr->certs)) < 0)
		goto nomem;
	kr->certs[kr->n++] = c;
	return 1;
nomem:
	cert_free(&c);
	return -ENOMEM;
}

/* The kernel's walk over a certificate list: "30 82 LL LL", stop at the first that is not. */
int tg_keyring_add_list(struct tg_keyring *kr, const unsigned char *p, size_t len, const char *label)
{
	size_t off = 0;
	int r, added = 0;

	while (len - off >= 4 && p[off] == 0x30 && p[off + 1] == 0x82) {
		size_t l = ((size_t)p[off + 2] << 8 | p[off + 3]) + 4;
		const unsigned char *q = p + off;
		X509 *x;

		if (l > len - off)
			break;
		x = d2i_X509(NULL, &q, (long)l);
		if (!x || q != p + off + l) {
			X509_free(x);
			if (strv_pushf(&kr->skipped, "%s: bytes %zu-%zu are not an X.509 certificate",
					  label, off, off + l) < 0)
				return -ENOMEM;
		} else if ((r = add_x509(kr, x, label)) < 0) {
			return r;
		} else {
			added += r;
		}
		off += l;
	}
	if (off != len && strv_pushf(&kr->skipped, "%s: %zu bytes after the last certificate "
					"(the kernel stops there too)", label, len - off) < 0)
		return -ENOMEM;
	return added;
}

/* ------------------------------------------------------------------ public */

int tg_keyring_new(struct tg_keyring **out)
{
	struct tg_keyring *kr = calloc(1, sizeof(*kr));

	*out = kr;
	if (!kr)
		return -ENOMEM;
	pthread_mutex_init(&kr->lock, NULL);
	kr->loaded = true;
	kr->image_fd = kr->sysmap_fd = -EBADF;
	return 0;
}

void tg_keyring_free(struct tg_keyring *kr)
{
	if (!kr)
		return;
	for (size_t i = 0; i < kr->n; i++)
		cert_free(&kr->certs[i]);
	free(kr->certs);
	if (kr->image_fd >= 0)
		close(kr->image_fd);
	if (kr->sysmap_fd >= 0)
		close(kr->sysmap_fd);
	free(kr->image);
	free(kr->sysmap);
	free(kr->source);
	tg_image_cache_free(kr->cache);
	free(kr->cache_entry);
	strv_free(&kr->skipped);
	pthread_mutex_destroy(&kr->lock);
	free(kr);
}

static int add_source(struct tg_keyring *kr, const char *label)
{
	char *s = kr->source ? strf("%s, %s", kr->source, label) : strdup(label);

	if (!s)
		return -ENOMEM;
	free(kr->source);
	kr->source = s;
	return 0;
}

/*
 * A certificate file as admins have them: PEM with one or more
 * certificates (mokutil --export writes DER, openssl PEM), or DER, one
 * certificate or several back to back.
 */
int tg_keyring_add_mem(struct tg_keyring *kr, const void *data, size_t len, const char *label,
		       struct tg_error *err)
{
	const unsigned char *d = data;
	int added = 0, r;

	if (!kr || !data)
		return tg_fail(err, -EINVAL, "%s: no keyring or data", label);
	if (len > INT32_MAX)
		return tg_fail(err, -EFBIG, "%s: too large for a certificate file", label);
	if (memmem(d, len, "-----BEGIN", 10)) {
		BIO *b = BIO_new_mem_buf(d, (int)len);
		X509 *x;

		if (!b)
			return tg_fail(err, -ENOMEM, "%s: out of memory", label);
		while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
			if ((r = add_x509(kr, x, label)) < 0) {
				BIO_free(b);
				return tg_fail(err, r, "%s: out of memory", label);
			}
			added += r;
		}
		BIO_free(b);
		ERR_clear_error();
		if (!added && kr->skipped.n == 0)
			return tg_fail(err, -EBADMSG, "%s: no PEM certificate in it", label);
	} else {
		size_t before = kr->skipped.n;

		r = tg_keyring_add_list(kr, d, len, label);
		if (r < 0)
			return tg_fail(err, r, "%s: out of memory", label);
		if (r == 0 && kr->skipped.n == before)
			return tg_fail(err, -EBADMSG, "%s: not a certificate (neither PEM nor DER X.509)",
				       label);
		added = r;
	}
	if (!added)
		return tg_fail(err, -EBADMSG, "%s", kr->skipped.v[kr->skipped.n - 1]);
	return add_source(kr, label) < 0 ? tg_fail(err, -ENOMEM, "%s: out of memory", label) : 0;
}

int tg_keyring_add_file(struct tg_keyring *kr, const char *path, const struct tg_limits *lim,
			struct tg_error *err)
{
	struct tg_limits def;
	void *buf;
	size_t len;
	int r;

	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	/* a certificate file is small: the policy's size cap is plenty */
	r = tg_read_path(path, lim->max_policy_size, &buf, &len, err);
	if (r < 0)
		return r;
	r = tg_keyring_add_mem(kr, buf, len, path, err);
	free(buf);
	return r;
}

struct tg_keyring *tg_keyring_lazy(const char *image, const char *sysmap, const struct tg_limits *lim)
{
	struct tg_keyring *kr = NULL;

	if (tg_keyring_new(&kr) < 0)
		return NULL;
	kr->lazy = true;
	kr->loaded = false;
	kr->image = strdup(image);
	kr->sysmap = sysmap ? strdup(sysmap) : NULL;
	kr->image_fd = open(image, O_RDONLY | O_CLOEXEC);
	if (kr->image_fd < 0)
		kr->image_fd = -errno;
	kr->sysmap_fd = sysmap ? open(sysmap, O_RDONLY | O_CLOEXEC) : -ENOENT;
	if (kr->sysmap_fd < 0)
		kr->sysmap_fd = sysmap ? -errno : -ENOENT;
	kr->max_input = lim->max_input_size;
	kr->max_image = lim->max_kernel_image_size;
	/* now, like the image: a caller that chroots later still uses the host's cache */
	kr->cache = tg_image_cache_open();
	if (!kr->image || (sysmap && !kr->sysmap)) {
		tg_keyring_free(kr);
		return NULL;
	}
	return kr;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * An image's facts @f (found with @r: 0 or -errno) and the System.map scan's
 * @map_bits into @kr; 0 or -errno with @e filled.
 */
static int add_facts(struct tg_keyring *kr, int r, struct tg_image_facts *f, unsigned map_bits,
		     const char *label, struct tg_error *e)
{
	kr->lf_bits = f->lf_bits | map_bits;
	if (r == 0) {
		r = tg_keyring_add_list(kr, f->list, f->list_len, label);
		if (r == 0)
			r = tg_fail(e, -ENOKEY, "%s: its certificate list (%s) holds no certificate "
				    "the kernel would load", label, f->how);
		else if (r > 0)
			r = 0;
		else
			tg_fail(e, r, "%s: out of memory", label);
	}
	if (r == 0) {
		free(kr->source);
		kr->source = strf("%s (%s)", label, f->how);
		if (!kr->source)
			r = tg_fail(e, -ENOMEM, "%s: out of memory", label);
	}
	tg_image_facts_free(f);
	return r;
}

/*
 * The list found in an image in memory, into @kr; 0 or -errno with @e
 * filled.  @ist, @mst: the files' stat()s for the cache's memo, as
 * add_memoized() looks it up (@ist NULL: no memo; @mst NULL: no System.map,
 * else the file's, read or not).
 */
static int add_image(struct tg_keyring *kr, const void *img, size_t len, const char *label,
		     const void *map, size_t maplen, const struct stat *ist, const struct stat *mst,
		     const struct tg_limits *lim, struct tg_error *e)
{
	struct tg_image_facts f;
	struct tg_image_key key;
	unsigned map_bits = map ? tg_lf_scan_sysmap(map, maplen) : 0;
	int r;

	/* one decoding, or none with the image cache, serves the certificates and the loader facts */
	r = tg_image_facts_get(kr->cache, img, len, label, map, maplen, lim, &f, &kr->cache_entry,
			       &key, e);
	if (ist)
		tg_image_memo_put(kr->cache, ist, mst, &key, map_bits);
	return add_facts(kr, r, &f, map_bits, label, e);
}

/*
 * The image's facts from the cache by the files' identity alone (image_memo.c):
 * true when served (then @r is the outcome), false when the files must be read.
 */
static bool add_memoized(struct tg_keyring *kr, const struct stat *ist, const struct stat *mst,
			 const struct tg_limits *lim, int *r, struct tg_error *e)
{
	struct tg_image_facts f;
	struct tg_image_key key;
	unsigned map_bits = 0;
	char *memo = NULL, *entry = NULL;
	int got;

	if (!kr->cache || tg_image_memo_get(kr->cache, ist, mst, &key, &map_bits, &memo) < 0)
		return false;
	got = tg_image_facts_cached(kr->cache, &key, kr->image, lim, &f, &entry, e);
	if (got == -ENOENT || !entry) {
		free(memo);
		free(entry);
		tg_image_facts_free(&f);
		return false;	/* the entry went: read as without a memo */
	}
	/* says where the facts came from, and that the files were not read */
	kr->cache_entry = strf("%s by memo %s", entry, memo);
	free(entry);
	free(memo);
	*r = add_facts(kr, got, &f, map_bits, kr->image, e);
	return true;
}

/* Read the image's certificate list into @kr; its error goes to kr->load_msg. */
static int load_image(struct tg_keyring *kr)
{
	struct tg_limits lim;
	struct tg_error e = { 0 };
	void *img = NULL, *map = NULL;
	size_t len = 0, maplen = 0;
	struct stat ist, mst;
	bool have_mst, memo;
	int r;

	tg_limits_default(&lim);
	lim.max_input_size = kr->max_input;
	lim.max_kernel_image_size = kr->max_image;
	/* the files as they are now: what the cache's memo knows them by */
	have_mst = kr->sysmap_fd >= 0 && fstat(kr->sysmap_fd, &mst) == 0;
	memo = kr->image_fd >= 0 && fstat(kr->image_fd, &ist) == 0 &&
	       (kr->sysmap_fd < 0 || have_mst);
	if (memo && add_memoized(kr, &ist, have_mst ? &mst : NULL, &lim, &r, &e))
		goto out;
	r = kr->image_fd < 0 ? tg_fail(&e, kr->image_fd, "%s: %s", kr->image, strerror(-kr->image_fd)) :
	    tg_read_fd(kr->image_fd, kr->image, lim.max_input_size, &img, &len, &e);
	/* a System.map that cannot be read only costs the layout search */
	if (r == 0 && kr->sysmap_fd >= 0 &&
	    tg_read_fd(kr->sysmap_fd, kr->sysmap, lim.max_symvers_size, &map, &maplen, NULL) < 0)
		map = NULL;
	if (r == 0)
		r = add_image(kr, img, len, kr->image, map, maplen, memo ? &ist : NULL,
			      have_mst ? &mst : NULL, &lim, &e);
out:
	free(img);
	free(map);
	if (r < 0)
		snprintf(kr->load_msg, sizeof(kr->load_msg), "%s", e.msg);
	return r;
}

int tg_keyring_ensure(struct tg_keyring *kr, struct tg_error *err)
{
	int r;

	if (!kr)
		return tg_fail(err, -ENOENT, "no kernel image found");
	pthread_mutex_lock(&kr->lock);
	if (!kr->loaded) {
		double t0 = now_ms();

		kr->load_err = load_image(kr);
		kr->load_ms = now_ms() - t0;
		kr->loaded = true;
	}
	r = kr->load_err;
	pthread_mutex_unlock(&kr->lock);
	return r < 0 ? tg_fail(err, r, "%s", kr->load_msg) : 0;
}

unsigned tg_keyring_loader_bits(struct tg_keyring *kr, char *why, size_t len)
{
	struct tg_error e = { 0 };

	if (!kr) {
		snprintf(why, len, "no image");
		return 0;
	}
	if (kr->lazy)
		tg_keyring_ensure(kr, &e);
	/* a list without certificates still leaves the image searched */
	if (!(kr->lf_bits & TG_LF_SCANNED))
		snprintf(why, len, "%s", e.msg[0] ? e.msg : kr->load_msg[0] ? kr->load_msg :
			 "image not read");
	return kr->lf_bits;
}

int tg_keyring_load_image(const char *image, const char *sysmap, const struct tg_limits *lim,
			  struct tg_keyring **out, struct tg_error *err)
{
	struct tg_limits def;
	struct tg_keyring *kr;
	int r;

	*out = NULL;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	kr = image ? tg_keyring_lazy(image, sysmap, lim) : NULL;
	if (!kr)
		return tg_fail(err, image ? -ENOMEM : -EINVAL, "%s: %s", image ? image : "kernel image",
			       image ? "out of memory" : "no path");
	r = tg_keyring_ensure(kr, err);
	if (r < 0) {
		tg_keyring_free(kr);
		return r;
	}
	*out = kr;
	return 0;
}

int tg_keyring_load_image_mem(const void *data, size_t len, const char *label, const char *sysmap,
			      size_t maplen, const struct tg_limits *lim, struct tg_keyring **out,
			      struct tg_error *err)
{
	struct tg_limits def;
	struct tg_keyring *kr = NULL;
	int r;

	*out = NULL;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	if (!label)
		label = "<kernel image>";
	if (!data || len > lim->max_input_size)
		return tg_fail(err, data ? -EFBIG : -EINVAL, "%s: %s", label,
			       data ? "larger than the input size limit" : "no data");
	if (tg_keyring_new(&kr) < 0)
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	kr->cache = tg_image_cache_open();
	r = add_image(kr, data, len, label, sysmap, sysmap ? maplen : 0, NULL, NULL, lim, err);
	if (r < 0) {
		tg_keyring_free(kr);
		return r;
	}
	*out = kr;
	return 0;
}

size_t tg_keyring_count(const struct tg_keyring *kr)
{
	return kr && kr->loaded ? kr->n : 0;
}

const char *tg_keyring_source(const struct tg_keyring *kr)
{
	return kr ? (kr->source ? kr->source : kr->image) : NULL;
}

const char *tg_keyring_cache_entry(const struct tg_keyring *kr)
{
	return kr && kr->loaded ? kr->cache_entry : NULL;
}

double tg_keyring_load_ms(const struct tg_keyring *kr)
{
	return kr ? kr->load_ms : 0;
}

int tg_keyring_cert(const struct tg_keyring *kr, size_t i, struct tg_cert_info *info)
{
	if (!kr || !kr->loaded || i >= kr->n)
		return -ENOENT;
	info->name = kr->certs[i].name;
	info->serial = kr->certs[i].serial;
	info->id = kr->certs[i].id;
	return 0;
}

size_t tg_keyring_skipped(const struct tg_keyring *kr, const char *const **why)
{
	*why = kr && kr->loaded ? (const char *const *)kr->skipped.v : NULL;
	return kr && kr->loaded ? kr->skipped.n : 0;
}

/* --------------------------------------------------------------- lookups */

/* asymmetric_key_id_same() on "serial || issuer": byte equality of both parts. */
const struct tg_cert *tg_keyring_by_serial(const struct tg_keyring *kr, const unsigned char *issuer,
					   int issuer_len, const ASN1_INTEGER *serial)
{
	for (size_t i = 0; kr && i < kr->n; i++) {
		const struct tg_cert *c = &kr->certs[i];

		if (c->issuer_len == issuer_len && !memcmp(c->issuer, issuer, (size_t)issuer_len) &&
		    !ASN1_INTEGER_cmp(X509_get0_serialNumber(c->x509), serial))
			return c;
	}
	return NULL;
}

const struct tg_cert *tg_keyring_by_skid(const struct tg_keyring *kr, const unsigned char *skid,
					 int skid_len)
{
	for (size_t i = 0; kr && i < kr->n; i++) {
		const struct tg_cert *c = &kr->certs[i];

		if (c->skid && c->skid_len == skid_len && !memcmp(c->skid, skid, (size_t)skid_len))
			return c;
	}
	return NULL;
}

int tg_kernel_keyring(const struct tg_kernel *k, const struct tg_keyring **out, struct tg_error *err)
{
	int r;

	*out = NULL;
	if (!k || !k->keyring)
		return tg_fail(err, -ENOENT, "no kernel image of %s found (/boot/vmlinuz-R, "
			       "/usr/lib/modules/R/vmlinuz, /lib/modules/R/vmlinuz)",
			       k && k->release ? k->release : "the target kernel");
	r = tg_keyring_ensure(k->keyring, err);
	if (r == 0)
		*out = k->keyring;
	return r;
}

int tg_keyring_add_trusted_file(struct tg_keyring *kr, const char *path, struct tg_error *err)
{
	struct tg_limits lim;
	void *buf = NULL;
	size_t len;
	int fd, r;

	tg_limits_default(&lim);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	r = tg_policy_trust_check(fd, path, err);
	if (r == 0)
		r = tg_read_fd(fd, path, lim.max_policy_size, &buf, &len, err);
	close(fd);
	if (r == 0)
		r = tg_keyring_add_mem(kr, buf, len, path, err);
	free(buf);
	return r;
}
