/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The appended module signature (include/linux/module_signature.h):
 *
 *   [ELF][PKCS#7 DER, sig_len bytes][struct module_signature, 12 bytes]
 *   ["~Module signature appended~\n", 28 bytes]
 *
 * Validity follows the kernel's mod_check_sig(): a trailer whose sig_len does
 * not fit, or whose reserved fields are not zero, is -EBADMSG, which refuses
 * the load even when signatures are not enforced.  A non-PKCS#7 id_type is
 * -ENOPKG: not fatal, the module counts as unsigned.
 *
 * Who signed it is read from the PKCS#7 the way kmod's modinfo shows it:
 * signer = issuer CN, key id = issuer serial in hex, hash = digest algorithm.
 * We do not verify the signature cryptographically; trust is decided by
 * comparing that identity with the target kernel's keys (see predict.c).
 */
#include <string.h>

#include <openssl/objects.h>
#include <openssl/pkcs7.h>
#include <openssl/x509.h>

#include "module_internal.h"

#define SIG_MAGIC "~Module signature appended~\n"
#define SIG_MAGIC_LEN (sizeof(SIG_MAGIC) - 1)
#define SIG_INFO_LEN 12

void tg_signature_free(struct tg_signature *sig)
{
	free(sig->signer);
	free(sig->key_id);
	free(sig->hash_algo);
	memset(sig, 0, sizeof(*sig));
}

static char *hex_colon(const unsigned char *p, size_t n)
{
	char *s = malloc(n ? n * 3 : 1);

	if (!s)
		return NULL;
	s[0] = '\0';
	for (size_t i = 0; i < n; i++)
		sprintf(s + i * 3, i + 1 < n ? "%02X:" : "%02X", p[i]);
	return s;
}

static char *issuer_cn(X509_NAME *issuer)
{
	int i = X509_NAME_get_index_by_NID(issuer, NID_commonName, -1);
	ASN1_STRING *d;
	unsigned char *utf8 = NULL;
	int n;
	char *s;

	if (i < 0 || !(d = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(issuer, i))))
		return NULL;
	n = ASN1_STRING_to_UTF8(&utf8, d);
	if (n < 0)
		return NULL;
	s = strndup((const char *)utf8, (size_t)n);
	OPENSSL_free(utf8);
	return s;
}

/* false: not a PKCS#7 message; the kernel's pkcs7_parse_message() fails with -EBADMSG too */
static bool read_pkcs7(const unsigned char *der, size_t len, struct tg_signature *sig)
{
	const unsigned char *p = der;
	PKCS7 *p7 = d2i_PKCS7(NULL, &p, (long)len);
	STACK_OF(PKCS7_SIGNER_INFO) *sis;
	PKCS7_SIGNER_INFO *si;

	if (!p7)
		return false;
	sis = PKCS7_type_is_signed(p7) ? PKCS7_get_signer_info(p7) : NULL;
	si = sis && sk_PKCS7_SIGNER_INFO_num(sis) > 0 ? sk_PKCS7_SIGNER_INFO_value(sis, 0) : NULL;
	if (si && si->issuer_and_serial) {
		const ASN1_INTEGER *serial = si->issuer_and_serial->serial;

		sig->signer = issuer_cn(si->issuer_and_serial->issuer);
		if (serial)
			sig->key_id = hex_colon(ASN1_STRING_get0_data(serial),
						(size_t)ASN1_STRING_length(serial));
	}
	if (si && si->digest_alg) {
		const char *ln = OBJ_nid2ln(OBJ_obj2nid(si->digest_alg->algorithm));

		if (ln)
			sig->hash_algo = strdup(ln);
	}
	PKCS7_free(p7);
	return si != NULL;
}

void tg_signature_read(const unsigned char *img, size_t len, struct tg_signature *sig,
		       size_t *elf_len)
{
	const unsigned char *info;
	size_t modlen;

	memset(sig, 0, sizeof(*sig));
	*elf_len = len;
	if (len <= SIG_MAGIC_LEN || memcmp(img + len - SIG_MAGIC_LEN, SIG_MAGIC, SIG_MAGIC_LEN))
		return;
	sig->present = true;
	modlen = len - SIG_MAGIC_LEN;
	if (modlen <= SIG_INFO_LEN) {
		sig->malformed = true;
		return;
	}
	info = img + modlen - SIG_INFO_LEN;
	sig->algo = info[0];
	sig->hash = info[1];
	sig->id_type = info[2];
	sig->signer_len = info[3];
	sig->key_id_len = info[4];
	sig->sig_len = (uint32_t)info[8] << 24 | (uint32_t)info[9] << 16 |
		       (uint32_t)info[10] << 8 | info[11];
	/* mod_check_sig(): length first, then id_type (-ENOPKG), then the reserved fields */
	if (sig->sig_len >= modlen - SIG_INFO_LEN) {
		sig->malformed = true;
		return;
	}
	*elf_len = modlen - SIG_INFO_LEN - sig->sig_len;
	if (sig->id_type != TG_SIG_ID_PKCS7)
		return;
	if (sig->algo || sig->hash || sig->signer_len || sig->key_id_len ||
	    info[5] || info[6] || info[7]) {
		sig->malformed = true;
		return;
	}
	if (!read_pkcs7(img + *elf_len, sig->sig_len, sig))
		sig->malformed = true;
}
