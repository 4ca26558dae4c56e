/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Keys a kernel verifies module signatures with (keyring.c, kimage_certs.c) and
 * the verification itself (sigverify.c).  Not installed: the public header
 * has no OpenSSL types.
 */
#ifndef TG_KEYRING_H
#define TG_KEYRING_H

#include <pthread.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

#include "internal.h"

/* One certificate as the kernel's x509 key type holds it. */
struct tg_cert {
	X509 *x509;
	EVP_PKEY *pkey;			/* borrowed from x509 */
	unsigned char *issuer;		/* DER of the issuer Name, as encoded in the certificate */
	int issuer_len;
	unsigned char *skid;		/* subjectKeyIdentifier, NULL if none */
	int skid_len;
	char *name;			/* subject CN (else the whole subject) */
	char *serial;			/* "5E:E1:..." */
	char *id;			/* "ISSUER CN/SERIAL", as modinfo shows a signer */
};

struct tg_keyring {
	pthread_mutex_t lock;
	/* lazy: read @image (and @sysmap) on first use */
	bool lazy, loaded;
	int load_err;
	char load_msg[TG_ERRMAX];
	char *image, *sysmap;
	/*
	 * Opened when the kernel is loaded and read later: a caller that
	 * changes root in between (the rpm plugin's hooks run chrooted) still
	 * reads the files it found.  -errno when the open failed.
	 */
	int image_fd, sysmap_fd;
	uint64_t max_input, max_image;
	double load_ms;

	char *source;			/* where the certificates came from */
	struct tg_cert *certs;
	size_t n, cap;
	struct strv skipped;		/* certificates the kernel would not load, and why */
	/*
	 * The image's other facts, read in the same decoding: the loader's
	 * messages found in it and the System.map symbols (loader_facts.h bits).
	 */
	unsigned lf_bits;
	/*
	 * The image cache (image_cache.h), opened with the image; NULL: none.
	 * @cache_entry: the entry the image's facts came from, NULL when the
	 * image was decoded.
	 */
	struct tg_image_cache *cache;
	char *cache_entry;
};

/* What the certificate search saw of a wholly decoded image beside the list. */
struct tg_kimage_scan {
	unsigned lf_bits;		/* the loader's messages found (loader_facts.h bits) */
	uint64_t decoded;		/* bytes the image decoded to */
};

/*
 * kimage_certs.c: the system certificate list of a kernel image (see
 * there); with @scan (may be NULL) the image is decoded whole and searched.
 */
int tg_kimage_cert_list(const void *data, size_t len, const char *label, const char *sysmap,
			size_t maplen, const struct tg_limits *lim, unsigned char **list,
			size_t *list_len, char **how, struct tg_kimage_scan *scan, struct tg_error *err);

/* keyring.c (tg_keyring_lazy() is in internal.h) */
/* Read a lazy keyring now (once; later calls return the first result). */
int tg_keyring_ensure(struct tg_keyring *kr, struct tg_error *err);
double tg_keyring_load_ms(const struct tg_keyring *kr);
/*
 * The loader facts of the image (loader_facts.h bits, TG_LF_SCANNED when it
 * was searched), reading it now if it was not; @why says why not, if not.
 */
unsigned tg_keyring_loader_bits(struct tg_keyring *kr, char *why, size_t len);
/* The image cache entry the image's facts came from; NULL when it was decoded (or not read). */
const char *tg_keyring_cache_entry(const struct tg_keyring *kr);
/* Add the certificates of a kernel-style list (DER certificates back to back). */
int tg_keyring_add_list(struct tg_keyring *kr, const unsigned char *p, size_t len, const char *label);
const struct tg_cert *tg_keyring_by_serial(const struct tg_keyring *kr, const unsigned char *issuer,
					   int issuer_len, const ASN1_INTEGER *serial);
const struct tg_cert *tg_keyring_by_skid(const struct tg_keyring *kr, const unsigned char *skid,
					 int skid_len);

/*
 * ecdsa_p384.c: verify the DER ECDSA signature @der over @digest with @pk
 * if @pk is a P-384 key: 1 verified, 0 does not verify (an encoding
 * OpenSSL would refuse included), -1 not a P-384 key (verify with OpenSSL).
 */
int tg_ecdsa_p384_verify(EVP_PKEY *pk, const unsigned char *der, size_t der_len,
			 const unsigned char *digest, size_t digest_len);

/* sigverify.c */

/* What the module's PKCS#7 carries, read once with the module. */
#define TG_SIG_MAX_DIGESTS 4
struct tg_sigdata {
	unsigned char *der;		/* the PKCS#7 */
	size_t der_len;
	struct {
		int nid;
		unsigned len;
		unsigned char md[EVP_MAX_MD_SIZE];
	} digest[TG_SIG_MAX_DIGESTS];	/* of the signed bytes, per digest algorithm used */
	size_t n_digest;
};

/*
 * Parse the PKCS#7 of a module (signed bytes @content) into @sig's public
 * facts and *@data (NULL when no memory: verification then says it cannot):
 * false if the kernel cannot parse it either.
 */
bool tg_sigdata_read(const unsigned char *content, size_t content_len, const unsigned char *der,
		     size_t der_len, struct tg_signature *sig, struct tg_sigdata **data);
void tg_sigdata_free(struct tg_sigdata *sd);

enum tg_sigstate {
	TG_SIGST_TRUSTED,	/* verified with a key of the rings */
	TG_SIGST_NOKEY,		/* -ENOKEY: no key of the rings is the signer's */
	TG_SIGST_NOPKG,		/* -ENOPKG: algorithms the kernel lacks */
	TG_SIGST_REJECTED,	/* -EKEYREJECTED */
	TG_SIGST_UNVERIFIABLE,	/* the signer's key is there, but we cannot do its algorithm */
};

struct tg_sigresult {
	enum tg_sigstate state;
	bool without_keys;		/* REJECTED before any key was looked up */
	const struct tg_cert *cert;	/* the matching key of a ring, if any */
	size_t ring;			/* index of the ring it is in */
	const char *remedy;		/* for REJECTED */
	char why[384];
};

/*
 * What pkcs7_verify() and pkcs7_validate_trust() make of a module's
 * well-formed PKCS#7 signature with the keys of @rings (NULL entries skipped).
 */
void tg_sig_check(const struct tg_signature *sig, const struct tg_sigdata *data,
		  const struct tg_keyring *const *rings, size_t n_rings, struct tg_sigresult *res);

#endif
