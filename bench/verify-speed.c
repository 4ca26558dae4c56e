/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Benchmark helper (bench/lib.sh bench_verify): what one signature
 * verification costs on this machine, done as libtaintguard does it for a
 * key of the kind named: P-384 through tg_ecdsa_p384_verify() (nettle's
 * arithmetic), every other key through OpenSSL's EVP_PKEY_verify().  A
 * fresh key signs one digest, verified over and over for about a second.
 *
 *   verify-speed rsa2048|rsa3072|rsa4096|ecdsap256|ecdsap384|ecdsap521
 * prints "ALG MS" (milliseconds a verification).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <openssl/evp.h>

#include "keyring.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static EVP_PKEY *keygen(const char *alg)
{
	static const struct { const char *name, *curve; size_t bits; } k[] = {
		{ "rsa2048", NULL, 2048 }, { "rsa3072", NULL, 3072 }, { "rsa4096", NULL, 4096 },
		{ "ecdsap256", "P-256", 0 }, { "ecdsap384", "P-384", 0 }, { "ecdsap521", "P-521", 0 },
	};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		if (!strcmp(alg, k[i].name))
			return k[i].curve ? EVP_PKEY_Q_keygen(NULL, NULL, "EC", k[i].curve) :
					    EVP_PKEY_Q_keygen(NULL, NULL, "RSA", k[i].bits);
	return NULL;
}

/* as lib/sigverify.c verify_si() does it */
static int verify(EVP_PKEY *pk, const unsigned char *sig, size_t sl, const unsigned char *dg,
		  size_t dl)
{
	EVP_PKEY_CTX *c;
	int r = EVP_PKEY_get_base_id(pk) == EVP_PKEY_EC ? tg_ecdsa_p384_verify(pk, sig, sl, dg, dl) : -1;

	if (r >= 0)
		return r;
	c = EVP_PKEY_CTX_new(pk, NULL);
	r = c && EVP_PKEY_verify_init(c) == 1 && EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) == 1 &&
	    EVP_PKEY_verify(c, sig, sl, dg, dl) == 1;
	EVP_PKEY_CTX_free(c);
	return r;
}

int main(int argc, char **argv)
{
	unsigned char dg[32] = { 1, 2, 3 }, sig[1024];
	size_t sl = sizeof(sig);
	EVP_PKEY *pk = argc == 2 ? keygen(argv[1]) : NULL;
	EVP_PKEY_CTX *c = pk ? EVP_PKEY_CTX_new(pk, NULL) : NULL;
	double t0, t;
	long n = 0;

	if (!c || EVP_PKEY_sign_init(c) != 1 || EVP_PKEY_CTX_set_signature_md(c, EVP_sha256()) != 1 ||
	    EVP_PKEY_sign(c, sig, &sl, dg, sizeof(dg)) != 1) {
		fprintf(stderr, "usage: verify-speed rsa2048|rsa3072|rsa4096|ecdsap256|ecdsap384|ecdsap521\n");
		return 2;
	}
	EVP_PKEY_CTX_free(c);
	t0 = now();
	do {
		if (verify(pk, sig, sl, dg, sizeof(dg)) != 1) {
			fprintf(stderr, "verify-speed: %s: the signature does not verify\n", argv[1]);
			return 1;
		}
		n++;
	} while ((t = now() - t0) < 1.0);
	printf("%s %.3f\n", argv[1], t / n * 1000);
	EVP_PKEY_free(pk);
	return 0;
}
