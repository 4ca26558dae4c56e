/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module signatures verified as the kernel does (mod_verify_sig() ->
 * verify_pkcs7_signature(): pkcs7_parse_message(), pkcs7_verify(),
 * pkcs7_validate_trust()), with the keys the target kernel has.
 *
 * Parsing (with the module): a digest or signature algorithm the kernel's
 * PKCS#7 parser does not know fails the parse with -ENOPKG, which the loader
 * forgives like an unsigned module; embedded content is -EBADMSG.
 *
 * pkcs7_verify(), before any keyring is consulted: a module signature must
 * sign pkcs7-data and must not have authenticated attributes
 * (-EKEYREJECTED); a signer certificate carried in the message (matched by
 * issuer and serial) must verify the signature, and each certificate the
 * message carries for it must verify the one below (-EKEYREJECTED).  These
 * refusals do not depend on the key being trusted.
 *
 * pkcs7_validate_trust(), per signer: the chain of carried certificates from
 * the signer up is looked up in the keyring (by issuer+serial, or subject key
 * identifier); the first one found must verify what it signs; else the top
 * one's authority; else the signer itself, by the signer identifier of the
 * signature (issuer+serial or subjectKeyIdentifier).  A key that is found and
 * does not verify is -EKEYREJECTED, fatal even when signatures are not
 * enforced; no key at all is -ENOKEY, which the loader forgives with E.
 * There is no certificate chain validation beyond that, no time check.
 *
 * The digests of the signed bytes are taken when the module is read (the
 * bytes are not kept); the public-key operation happens here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/cms.h>
#include <openssl/err.h>
#include <openssl/rsa.h>
#include <openssl/x509v3.h>

#include "keyring.h"

#define CHAIN_MAX 8

/* pkcs7_sig_note_digest_algo(): what the kernel's parser accepts */
static bool kernel_digest(int nid)
{
	switch (nid) {
	case NID_md4: case NID_md5: case NID_sha1: case NID_sha224: case NID_sha256:
	case NID_sha384: case NID_sha512: case NID_sm3: case NID_sha3_256: case NID_sha3_384:
	case NID_sha3_512: case NID_id_GostR3411_2012_256: case NID_id_GostR3411_2012_512:
		return true;
	}
	return false;
}

/* pkcs7_sig_note_pkey_algo() */
static bool kernel_pkey(int nid)
{
	switch (nid) {
	case NID_rsaEncryption: case NID_rsassaPss:
	case NID_ecdsa_with_SHA1: case NID_ecdsa_with_SHA224: case NID_ecdsa_with_SHA256:
	case NID_ecdsa_with_SHA384: case NID_ecdsa_with_SHA512:
	case NID_ecdsa_with_SHA3_256: case NID_ecdsa_with_SHA3_384: case NID_ecdsa_with_SHA3_512:
	case NID_SM2_with_SM3: case NID_id_GostR3410_2012_256: case NID_id_GostR3410_2012_512:
		return true;
	}
	return false;
}

static char *issuer_cn(const X509_NAME *issuer)
{
	int i = X509_NAME_get_index_by_NID(issuer, NID_commonName, -1);
	const ASN1_STRING *d;
	unsigned char *utf8 = NULL;
	char *s;
	int n;

	if (i < 0 || !(d = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(issuer, i))))
		return NULL;
	n = ASN1_STRING_to_UTF8(&utf8, d);
	if (n < 0)
		return NULL;
	s = strndup((const char *)utf8, (size_t)n);
	OPENSSL_free(utf8);
	return s;
}

static int si_digest_nid(CMS_SignerInfo *si)
{
	X509_ALGOR *dig = NULL, *alg = NULL;

	CMS_SignerInfo_get0_algs(si, NULL, NULL, &dig, &alg);
	return dig ? OBJ_obj2nid(dig->algorithm) : NID_undef;
}

static int si_sig_nid(CMS_SignerInfo *si)
{
	X509_ALGOR *dig = NULL, *alg = NULL;

	CMS_SignerInfo_get0_algs(si, NULL, NULL, &dig, &alg);
	return alg ? OBJ_obj2nid(alg->algorithm) : NID_undef;
}

void tg_sigdata_free(struct tg_sigdata *sd)
{
	if (!sd)
		return;
	free(sd->der);
	free(sd);
}

/* Digest of the signed bytes for @nid, once per algorithm. */
static void add_digest(struct tg_sigdata *sd, int nid, const unsigned char *content, size_t len)
{
	const EVP_MD *md = EVP_get_digestbynid(nid);

	for (size_t i = 0; i < sd->n_digest; i++)
		if (sd->digest[i].nid == nid)
			return;
	if (!md || sd->n_digest >= TG_SIG_MAX_DIGESTS)
		return;		/* not computed: verification says "cannot" */
	if (EVP_Digest(content, len, sd->digest[sd->n_digest].md, &sd->digest[sd->n_digest].len,
		       md, NULL) != 1) {
		ERR_clear_error();
		return;
	}
	sd->digest[sd->n_digest++].nid = nid;
}

bool tg_sigdata_read(const unsigned char *content, size_t content_len, const unsigned char *der,
		     size_t der_len, struct tg_signature *sig, struct tg_sigdata **data)
{
	const unsigned char *p = der;
	CMS_ContentInfo *cms = der_len <= LONG_MAX ? d2i_CMS_ContentInfo(NULL, &p, (long)der_len) : NULL;
	STACK_OF(CMS_SignerInfo) *sis;
	ASN1_OCTET_STRING **content_slot, *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;
	CMS_SignerInfo *si;
	struct tg_sigdata *sd;
	bool ok = false;

	if (!cms) {
		ERR_clear_error();
		return false;
	}
	sis = OBJ_obj2nid(CMS_get0_type(cms)) == NID_pkcs7_signed ? CMS_get0_SignerInfos(cms) : NULL;
	content_slot = sis ? CMS_get0_content(cms) : NULL;
	/* pkcs7_supply_detached_data(): a module signature carries no content */
	if (!sis || sk_CMS_SignerInfo_num(sis) <= 0 || !content_slot || *content_slot)
		goto out;
	si = sk_CMS_SignerInfo_value(sis, 0);
	if (CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &serial) != 1)
		goto out;
	if (issuer && serial) {
		sig->signer = issuer_cn(issuer);
		sig->key_id = hex_colon(ASN1_STRING_get0_data(serial), (size_t)ASN1_STRING_length(serial));
	} else if (keyid) {
		sig->key_id = hex_colon(ASN1_STRING_get0_data(keyid), (size_t)ASN1_STRING_length(keyid));
	}
	{
		const char *ln = OBJ_nid2ln(si_digest_nid(si));

		if (ln)
			sig->hash_algo = strdup(ln);
	}
	sd = calloc(1, sizeof(*sd));
	if (sd && (sd->der = malloc(der_len ? der_len : 1))) {
		memcpy(sd->der, der, der_len);
		sd->der_len = der_len;
		for (int i = 0; i < sk_CMS_SignerInfo_num(sis); i++)
			add_digest(sd, si_digest_nid(sk_CMS_SignerInfo_value(sis, i)), content, content_len);
		*data = sd;
	} else {
		free(sd);	/* no memory: verification then says "cannot" */
	}
	ok = true;
out:
	CMS_ContentInfo_free(cms);
	ERR_clear_error();
	return ok;
}

/* ------------------------------------------------------------ verification */

struct vctx {
	const struct tg_sigdata *sd;
	const struct tg_keyring *const *rings;
	size_t n_rings;
	STACK_OF(X509) *certs;		/* carried by the message */
	struct tg_sigresult *res;
};

static int set(struct tg_sigresult *res, enum tg_sigstate st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int set(struct tg_sigresult *res, enum tg_sigstate st, const char *fmt, ...)
{
	va_list ap;

	res->state = st;
	va_start(ap, fmt);
	vsnprintf(res->why, sizeof(res->why), fmt, ap);
	va_end(ap);
	return 0;
}

static bool is_ecdsa(int snid)
{
	switch (snid) {
	case NID_ecdsa_with_SHA1: case NID_ecdsa_with_SHA224: case NID_ecdsa_with_SHA256:
	case NID_ecdsa_with_SHA384: case NID_ecdsa_with_SHA512:
	case NID_ecdsa_with_SHA3_256: case NID_ecdsa_with_SHA3_384: case NID_ecdsa_with_SHA3_512:
		return true;
	}
	return false;
}

/* 1 verified, 0 does not verify, -1 cannot tell (algorithm or digest not available) */
static int verify_si(const struct vctx *v, CMS_SignerInfo *si, EVP_PKEY *pk)
{
	int dnid = si_digest_nid(si), snid = si_sig_nid(si), kt = pk ? EVP_PKEY_get_base_id(pk) : 0, r;
	const ASN1_OCTET_STRING *s = CMS_SignerInfo_get0_signature(si);
	const EVP_MD *md = EVP_get_digestbynid(dnid);
	const unsigned char *dg = NULL;
	unsigned dlen = 0;
	EVP_PKEY_CTX *ctx;

	/* a certificate whose key does not parse fails the message's parse */
	if (!pk)
		return 0;
	/* a key of another type than the signature's fails public_key_verify_signature() */
	if (snid == NID_rsaEncryption) {
		if (kt != EVP_PKEY_RSA)
			return 0;
	} else if (is_ecdsa(snid)) {
		if (kt != EVP_PKEY_EC)
			return 0;
	} else {
		return -1;	/* RSASSA-PSS, SM2, GOST: newer or special kernels; not verified here */
	}
	for (size_t i = 0; v->sd && i < v->sd->n_digest; i++)
		if (v->sd->digest[i].nid == dnid) {
			dg = v->sd->digest[i].md;
			dlen = v->sd->digest[i].len;
		}
	if (!dg || !md || !s)
		return -1;
	/* P-384, the key of Debian's kernels: nettle's arithmetic, twice OpenSSL's speed */
	if (kt == EVP_PKEY_EC &&
	    (r = tg_ecdsa_p384_verify(pk, ASN1_STRING_get0_data(s), (size_t)ASN1_STRING_length(s),
				      dg, dlen)) >= 0)
		return r;
	ctx = EVP_PKEY_CTX_new(pk, NULL);
	if (!ctx)
		return -1;
	/* RSA: PKCS#1 v1.5 over a DigestInfo (pkcs1pad); ECDSA: the raw digest */
	r = EVP_PKEY_verify_init(ctx) == 1 && EVP_PKEY_CTX_set_signature_md(ctx, md) == 1 &&
	    (kt != EVP_PKEY_RSA || EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING) == 1) &&
	    EVP_PKEY_verify(ctx, ASN1_STRING_get0_data(s), (size_t)ASN1_STRING_length(s), dg, dlen) == 1;
	EVP_PKEY_CTX_free(ctx);
	ERR_clear_error();
	return r;
}

static int verify_cert(X509 *x, EVP_PKEY *pk)
{
	int r = pk && X509_verify(x, pk) == 1;

	ERR_clear_error();
	return r;
}

/* DER of @name (as encoded where it was read) into *buf; length or -1. */
static int name_der(const X509_NAME *name, unsigned char **buf)
{
	*buf = NULL;
	return i2d_X509_NAME(name, buf);
}

/* The certificate of the message with this issuer and serial (pkcs7_find_key()). */
static X509 *msg_cert_by_serial(const struct vctx *v, const X509_NAME *issuer,
				const ASN1_INTEGER *serial)
{
	for (int i = 0; v->certs && i < sk_X509_num(v->certs); i++) {
		X509 *x = sk_X509_value(v->certs, i);

		if (!X509_NAME_cmp(X509_get_issuer_name(x), issuer) &&
		    !ASN1_INTEGER_cmp(X509_get0_serialNumber(x), serial))
			return x;
	}
	return NULL;
}

static X509 *msg_cert_by_skid(const struct vctx *v, const ASN1_OCTET_STRING *kid)
{
	for (int i = 0; v->certs && i < sk_X509_num(v->certs); i++) {
		X509 *x = sk_X509_value(v->certs, i);
		const ASN1_OCTET_STRING *sk = X509_get0_subject_key_id(x);

		if (sk && !ASN1_OCTET_STRING_cmp(sk, kid))
			return x;
	}
	return NULL;
}

/* The issuer of @x among the carried certificates, through its authority key id. */
static X509 *msg_issuer(const struct vctx *v, X509 *x)
{
	const GENERAL_NAMES *gens = X509_get0_authority_issuer(x);
	const ASN1_INTEGER *aser = X509_get0_authority_serial(x);
	const ASN1_OCTET_STRING *akid = X509_get0_authority_key_id(x);

	if (gens && aser) {
		for (int i = 0; i < sk_GENERAL_NAME_num(gens); i++) {
			const GENERAL_NAME *g = sk_GENERAL_NAME_value(gens, i);

			if (g->type == GEN_DIRNAME)
				return msg_cert_by_serial(v, g->d.directoryName, aser);
		}
		return NULL;
	}
	return akid ? msg_cert_by_skid(v, akid) : NULL;
}

static bool self_signed(X509 *x)
{
	bool r = X509_check_issued(x, x) == X509_V_OK;

	ERR_clear_error();
	return r;
}

/* A key of the rings: by "issuer+serial", else by subject key identifier. */
static const struct tg_cert *ring_lookup(const struct vctx *v, const X509_NAME *issuer,
					 const ASN1_INTEGER *serial, const ASN1_OCTET_STRING *skid,
					 size_t *ring)
{
	unsigned char *der = NULL;
	int len = issuer && serial ? name_der(issuer, &der) : -1;
	const struct tg_cert *c = NULL;

	for (size_t i = 0; i < v->n_rings && !c; i++) {
		if (!v->rings[i])
			continue;
		if (len > 0)
			c = tg_keyring_by_serial(v->rings[i], der, len, serial);
		if (!c && skid)
			c = tg_keyring_by_skid(v->rings[i], ASN1_STRING_get0_data(skid),
					       ASN1_STRING_length(skid));
		if (c)
			*ring = i;
	}
	OPENSSL_free(der);
	return c;
}

/* pkcs7_sig_note_digest_algo() / pkcs7_sig_note_pkey_algo() fail the parse with -ENOPKG */
static bool signer_algos_known(CMS_SignerInfo *si, char *why, size_t wlen)
{
	if (kernel_digest(si_digest_nid(si)) && kernel_pkey(si_sig_nid(si)))
		return true;
	snprintf(why, wlen, "digest %s with signature algorithm %s, which the kernel's PKCS#7 parser "
		 "does not know (ENOPKG: counted as unsigned)", OBJ_nid2sn(si_digest_nid(si)),
		 OBJ_nid2sn(si_sig_nid(si)));
	return false;
}

static void found_key(struct tg_sigresult *res, const struct tg_cert *c, size_t ring)
{
	res->cert = c;
	res->ring = ring;
}

/* Outcome of one signer, pkcs7_validate_trust_one() on top of pkcs7_verify_one(). */
static enum tg_sigstate check_signer(const struct vctx *v, CMS_SignerInfo *si, char *why, size_t wlen)
{
	ASN1_OCTET_STRING *keyid = NULL;
	X509_NAME *issuer = NULL;
	ASN1_INTEGER *serial = NULL;
	X509 *chain[CHAIN_MAX];
	size_t n = 0, ring = 0;
	const struct tg_cert *c;
	int r;

	CMS_SignerInfo_get0_signer_id(si, &keyid, &issuer, &serial);
	/* pkcs7_verify_one(): the signer's certificate, if the message carries it */
	chain[0] = issuer && serial ? msg_cert_by_serial(v, issuer, serial) : NULL;
	if (chain[0]) {
		r = verify_si(v, si, X509_get0_pubkey(chain[0]));
		if (r == 0) {
			v->res->without_keys = true;
			snprintf(why, wlen, "it does not verify with the certificate it carries for its "
				 "signer (checked before any key of the kernel)");
			return TG_SIGST_REJECTED;
		}
		n = 1;
		/* pkcs7_verify_sig_chain(): each carried issuer must verify the one below */
		while (n < CHAIN_MAX && !self_signed(chain[n - 1])) {
			X509 *up = msg_issuer(v, chain[n - 1]);
			bool seen = false;

			for (size_t i = 0; i < n; i++)
				seen = seen || chain[i] == up;
			if (!up || seen)
				break;
			if (!verify_cert(chain[n - 1], X509_get0_pubkey(up))) {
				v->res->without_keys = true;
				snprintf(why, wlen, "a certificate it carries does not verify the one "
					 "below it (checked before any key of the kernel)");
				return TG_SIGST_REJECTED;
			}
			chain[n++] = up;
		}
	}
	/* pkcs7_validate_trust_one(): the carried chain, bottom up */
	for (size_t i = 0; i < n; i++) {
		X509 *x = chain[i];

		c = ring_lookup(v, X509_get_issuer_name(x), X509_get0_serialNumber(x),
				X509_get0_subject_key_id(x), &ring);
		if (c) {
			found_key(v->res, c, ring);
			r = i == 0 ? verify_si(v, si, c->pkey) : verify_cert(chain[i - 1], c->pkey);
			goto matched;
		}
		if (self_signed(x)) {
			snprintf(why, wlen, "the signer's self-signed certificate is not a key the kernel has");
			return TG_SIGST_NOKEY;
		}
	}
	if (n) {
		/* the top carried certificate's authority, by its authority key id */
		X509 *top = chain[n - 1];
		const GENERAL_NAMES *gens = X509_get0_authority_issuer(top);
		const ASN1_INTEGER *aser = X509_get0_authority_serial(top);
		const X509_NAME *aname = NULL;

		for (int i = 0; gens && i < sk_GENERAL_NAME_num(gens) && !aname; i++)
			if (sk_GENERAL_NAME_value(gens, i)->type == GEN_DIRNAME)
				aname = sk_GENERAL_NAME_value(gens, i)->d.directoryName;
		c = ring_lookup(v, aname, aser, X509_get0_authority_key_id(top), &ring);
		if (c) {
			found_key(v->res, c, ring);
			r = verify_cert(top, c->pkey);
			goto matched;
		}
	}
	/* last resort: a key that is the signer directly */
	c = ring_lookup(v, issuer, serial, issuer && serial ? NULL : keyid, &ring);
	if (!c) {
		snprintf(why, wlen, "signed by a key the kernel does not have (ENOKEY)");
		return TG_SIGST_NOKEY;
	}
	found_key(v->res, c, ring);
	r = verify_si(v, si, c->pkey);
matched:
	if (r < 0) {
		snprintf(why, wlen, "the signer's key '%s' is there, but taintguard cannot verify its "
			 "%s/%s signature", c->name, OBJ_nid2sn(si_digest_nid(si)),
			 OBJ_nid2sn(si_sig_nid(si)));
		return TG_SIGST_UNVERIFIABLE;
	}
	if (r == 0) {
		snprintf(why, wlen, "it does not verify with the key '%s' (serial %s)", c->name, c->serial);
		return TG_SIGST_REJECTED;
	}
	snprintf(why, wlen, "with the key '%s' (serial %s)", c->name, c->serial);
	return TG_SIGST_TRUSTED;
}

/* Which signer's outcome is the message's: a rejection ends it, one trusted signer is enough. */
static int rank(enum tg_sigstate st)
{
	switch (st) {
	case TG_SIGST_REJECTED: return 4;
	case TG_SIGST_TRUSTED: return 3;
	case TG_SIGST_UNVERIFIABLE: return 2;
	case TG_SIGST_NOPKG: return 1;
	case TG_SIGST_NOKEY: break;
	}
	return 0;
}

void tg_sig_check(const struct tg_signature *sig, const struct tg_sigdata *data,
		  const struct tg_keyring *const *rings, size_t n_rings, struct tg_sigresult *res)
{
	struct vctx v = { .sd = data, .rings = rings, .n_rings = n_rings };
	const unsigned char *p;
	CMS_ContentInfo *cms = NULL;
	STACK_OF(CMS_SignerInfo) *sis;
	char why[sizeof(res->why)] = "";

	memset(res, 0, sizeof(*res));
	if (!data) {
		set(res, TG_SIGST_UNVERIFIABLE, "the signature was not kept when the module was read");
		return;
	}
	p = data->der;
	cms = d2i_CMS_ContentInfo(NULL, &p, (long)data->der_len);
	sis = cms ? CMS_get0_SignerInfos(cms) : NULL;
	if (!sis) {
		set(res, TG_SIGST_UNVERIFIABLE, "the signature cannot be parsed again");
		goto out;
	}
	/* the parser stops at the first unknown algorithm, before anything is verified */
	for (int i = 0; i < sk_CMS_SignerInfo_num(sis); i++) {
		if (!signer_algos_known(sk_CMS_SignerInfo_value(sis, i), why, sizeof(why))) {
			set(res, TG_SIGST_NOPKG, "%s", why);
			goto out;
		}
	}
	/* pkcs7_verify(VERIFYING_MODULE_SIGNATURE) */
	if (OBJ_obj2nid(CMS_get0_eContentType(cms)) != NID_pkcs7_data) {
		res->without_keys = true;
		res->remedy = "sign the module with scripts/sign-file";
		set(res, TG_SIGST_REJECTED, "it does not sign plain data (pkcs7-data), as a module "
		    "signature must");
		goto out;
	}
	for (int i = 0; i < sk_CMS_SignerInfo_num(sis); i++) {
		if (CMS_signed_get_attr_count(sk_CMS_SignerInfo_value(sis, i)) > 0) {
			res->without_keys = true;
			res->remedy = "sign the module with scripts/sign-file (or openssl cms -sign "
				      "-noattr): no authenticated attributes";
			set(res, TG_SIGST_REJECTED, "it has authenticated attributes, which the kernel "
			    "refuses in a module signature");
			goto out;
		}
	}
	v.certs = CMS_get1_certs(cms);
	set(res, TG_SIGST_NOKEY, "signed by a key the kernel does not have (ENOKEY)");
	for (int i = 0; i < sk_CMS_SignerInfo_num(sis); i++) {
		struct tg_sigresult one = { 0 };
		enum tg_sigstate st;

		v.res = &one;
		st = check_signer(&v, sk_CMS_SignerInfo_value(sis, i), why, sizeof(why));
		if (rank(st) > rank(res->state) || i == 0) {
			set(res, st, "%s", why);
			res->cert = one.cert;
			res->ring = one.ring;
			res->without_keys = one.without_keys;
		}
		if (st == TG_SIGST_REJECTED)
			break;
	}
	sk_X509_pop_free(v.certs, X509_free);
out:
	CMS_ContentInfo_free(cms);
	ERR_clear_error();
}
