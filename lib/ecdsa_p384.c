/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ECDSA P-384 verification with nettle's curve arithmetic.
 *
 * Debian's 6.12 and 7.x kernels sign every module with a P-384 key, and
 * every signature is verified (sigverify.c), so a whole kernel's tree costs
 * thousands of P-384 verifications.  OpenSSL does P-384 with its generic
 * big-number code: 1,733 verifications a second in Debian 12's 3.0, 2,221
 * in Debian 13's 3.5, against 3,222 with nettle 3.8 on the same machine
 * (2026-12-07).  On P-256 and P-521 OpenSSL is the faster one, and they
 * stay with it.
 *
 * OpenSSL still decodes the key (from the kernel's certificate) and the
 * signature, and the signature must be DER exactly as OpenSSL's own
 * verification requires (re-encoded, byte for byte), so that nothing but
 * the arithmetic changes hands.  The digest is truncated to the curve's
 * order by nettle as by OpenSSL and the kernel (leftmost bits).
 */
#include <limits.h>
#include <string.h>

#include <nettle/ecc-curve.h>
#include <nettle/ecdsa.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>

#include "keyring.h"

#define P384_BYTES 48

/* The uncompressed point of a P-384 key into @xy (x then y); false for any other key. */
static bool p384_point(EVP_PKEY *pk, unsigned char xy[2 * P384_BYTES])
{
	unsigned char pub[1 + 2 * P384_BYTES];
	char group[32];
	size_t len = 0;

	if (EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group),
					   NULL) != 1 || strcmp(group, SN_secp384r1) ||
	    EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY, pub, sizeof(pub),
					    &len) != 1 ||
	    len != sizeof(pub) || pub[0] != POINT_CONVERSION_UNCOMPRESSED)
		return false;
	memcpy(xy, pub + 1, 2 * P384_BYTES);
	return true;
}

/* r and s of a DER signature, big-endian, 48 bytes each; false when OpenSSL would not take it. */
static bool der_rs(const unsigned char *der, size_t len, unsigned char r[P384_BYTES],
		   unsigned char s[P384_BYTES])
{
	const unsigned char *p = der;
	ECDSA_SIG *sig = len <= LONG_MAX ? d2i_ECDSA_SIG(NULL, &p, (long)len) : NULL;
	unsigned char *again = NULL;
	const BIGNUM *br, *bs;
	int n;
	bool ok;

	if (!sig)
		return false;
	/* ossl_ecdsa_verify(): only the exact DER encoding, no trailing bytes */
	n = i2d_ECDSA_SIG(sig, &again);
	ECDSA_SIG_get0(sig, &br, &bs);
	ok = n > 0 && (size_t)n == len && !memcmp(again, der, len) &&
	     !BN_is_negative(br) && !BN_is_negative(bs) &&
	     BN_bn2binpad(br, r, P384_BYTES) == P384_BYTES &&
	     BN_bn2binpad(bs, s, P384_BYTES) == P384_BYTES;
	OPENSSL_free(again);
	ECDSA_SIG_free(sig);
	return ok;
}

int tg_ecdsa_p384_verify(EVP_PKEY *pk, const unsigned char *der, size_t der_len,
			 const unsigned char *digest, size_t digest_len)
{
	const struct ecc_curve *curve = nettle_get_secp_384r1();
	unsigned char xy[2 * P384_BYTES], r[P384_BYTES], s[P384_BYTES];
	struct dsa_signature sig;
	struct ecc_point q;
	mpz_t x, y;
	int ok = -1;

	if (!p384_point(pk, xy)) {
		ERR_clear_error();
		return -1;
	}
	if (!der_rs(der, der_len, r, s)) {
		ERR_clear_error();
		return 0;	/* as EVP_PKEY_verify() fails it */
	}
	mpz_inits(x, y, NULL);
	mpz_import(x, P384_BYTES, 1, 1, 0, 0, xy);
	mpz_import(y, P384_BYTES, 1, 1, 0, 0, xy + P384_BYTES);
	ecc_point_init(&q, curve);
	dsa_signature_init(&sig);
	mpz_import(sig.r, P384_BYTES, 1, 1, 0, 0, r);
	mpz_import(sig.s, P384_BYTES, 1, 1, 0, 0, s);
	/* a point OpenSSL decoded is on the curve; if nettle disagrees, OpenSSL decides */
	if (ecc_point_set(&q, x, y))
		ok = ecdsa_verify(&q, digest_len, digest, &sig) == 1;
	dsa_signature_clear(&sig);
	ecc_point_clear(&q);
	mpz_clears(x, y, NULL);
	return ok;
}
