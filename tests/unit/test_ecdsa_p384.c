/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * P-384 signatures verified with nettle (lib/ecdsa_p384.c) say exactly what
 * OpenSSL's EVP_PKEY_verify() says: for good signatures, for digests and
 * signatures with a bit flipped, for encodings OpenSSL refuses (trailing
 * bytes, a negative integer, r and s swapped), for digests shorter and
 * longer than the curve; other keys are left to OpenSSL (-1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <openssl/evp.h>
#include <openssl/rand.h>

#include "keyring.h"

static int openssl_verify(EVP_PKEY *pk, const unsigned char *sig, size_t sl,
			  const unsigned char *dg, size_t dl)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(pk, NULL);
	int r = c && EVP_PKEY_verify_init(c) == 1 && EVP_PKEY_verify(c, sig, sl, dg, dl) == 1;

	EVP_PKEY_CTX_free(c);
	return r;
}

static size_t sign(EVP_PKEY *pk, const unsigned char *dg, size_t dl, unsigned char *sig, size_t cap)
{
	EVP_PKEY_CTX *c = EVP_PKEY_CTX_new(pk, NULL);
	size_t sl = cap;

	assert_non_null(c);
	assert_int_equal(EVP_PKEY_sign_init(c), 1);
	assert_int_equal(EVP_PKEY_sign(c, sig, &sl, dg, dl), 1);
	EVP_PKEY_CTX_free(c);
	return sl;
}

/* ours must be OpenSSL's answer, never "not P-384" */
static void same(EVP_PKEY *pk, const unsigned char *sig, size_t sl, const unsigned char *dg,
		 size_t dl, int *n_good)
{
	int want = openssl_verify(pk, sig, sl, dg, dl);

	assert_int_equal(tg_ecdsa_p384_verify(pk, sig, sl, dg, dl), want);
	*n_good += want;
}

static void test_agrees_with_openssl(void **state)
{
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	static const size_t lens[] = { 20, 32, 48, 64 };
	unsigned char dg[64], sig[160], bad[161];
	int good = 0;

	(void)state;
	assert_non_null(pk);
	for (int i = 0; i < 200; i++) {
		size_t dl = lens[i % 4], sl;

		assert_int_equal(RAND_bytes(dg, sizeof(dg)), 1);
		sl = sign(pk, dg, dl, sig, sizeof(sig));
		same(pk, sig, sl, dg, dl, &good);		/* verifies */
		memcpy(bad, sig, sl);
		bad[sl] = 0;
		same(pk, bad, sl + 1, dg, dl, &good);		/* a trailing byte */
		bad[i % sl] ^= (unsigned char)(1u << (i % 8));
		same(pk, bad, sl, dg, dl, &good);		/* a bit of the signature */
		if (dl == 64) {	/* past the curve's 48 bytes: truncated away by both */
			dg[48 + i % 16] ^= 0x80;
			same(pk, sig, sl, dg, dl, &good);
		}
		dg[(i * 7) % (dl < 48 ? dl : 48)] ^= 0x80;
		same(pk, sig, sl, dg, dl, &good);		/* a bit of the digest */
	}
	/* each good signature, and each with a bit flipped past 48 bytes; no other */
	assert_int_equal(good, 200 + 50);
	EVP_PKEY_free(pk);
}

static void test_encodings_openssl_refuses(void **state)
{
	EVP_PKEY *pk = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-384");
	unsigned char dg[48] = { 1 }, sig[160], sw[160];
	/* SEQUENCE { INTEGER -1, INTEGER 1 } */
	static const unsigned char neg[] = { 0x30, 0x06, 0x02, 0x01, 0xff, 0x02, 0x01, 0x01 };
	size_t sl, rl, sl2;
	int good = 0;

	(void)state;
	assert_non_null(pk);
	same(pk, neg, sizeof(neg), dg, sizeof(dg), &good);
	same(pk, (const unsigned char *)"", 0, dg, sizeof(dg), &good);
	/* r and s swapped: valid DER, not the signature */
	sl = sign(pk, dg, sizeof(dg), sig, sizeof(sig));
	assert_true(sig[0] == 0x30 && sig[1] < 0x80 && sig[2] == 0x02);
	rl = sig[3];
	sl2 = sl - 4 - rl;	/* s's INTEGER, tag and length included */
	sw[0] = 0x30;
	sw[1] = sig[1];
	memcpy(sw + 2, sig + 4 + rl, sl2);
	memcpy(sw + 2 + sl2, sig + 2, 2 + rl);
	same(pk, sw, sl, dg, sizeof(dg), &good);
	same(pk, sig, sl, dg, sizeof(dg), &good);
	assert_int_equal(good, 1);
	EVP_PKEY_free(pk);
}

static void test_other_keys_left_to_openssl(void **state)
{
	EVP_PKEY *p256 = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
	EVP_PKEY *rsa = EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
	unsigned char dg[32] = { 2 }, sig[512];
	size_t sl;

	(void)state;
	assert_non_null(p256);
	assert_non_null(rsa);
	sl = sign(p256, dg, sizeof(dg), sig, sizeof(sig));
	assert_int_equal(tg_ecdsa_p384_verify(p256, sig, sl, dg, sizeof(dg)), -1);
	assert_int_equal(tg_ecdsa_p384_verify(rsa, sig, sl, dg, sizeof(dg)), -1);
	EVP_PKEY_free(p256);
	EVP_PKEY_free(rsa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_agrees_with_openssl),
		cmocka_unit_test(test_encodings_openssl_refuses),
		cmocka_unit_test(test_other_keys_left_to_openssl),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
