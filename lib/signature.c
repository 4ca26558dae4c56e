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
 * signer = issuer CN, key id = issuer serial in hex (or the subject key
 * identifier, which sign-file -k writes and modinfo does not show), hash =
 * digest algorithm.  The PKCS#7 is kept with the digests of the signed
 * bytes; sigverify.c verifies it against the target kernel's keys.
 */
#include <string.h>

#include "keyring.h"
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

void tg_signature_read(const unsigned char *img, size_t len, struct tg_signature *sig,
		       size_t *elf_len, struct tg_sigdata **data)
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
	/* pkcs7_parse_message() fails with -EBADMSG on what OpenSSL cannot parse either */
	if (!tg_sigdata_read(img, *elf_len, img + *elf_len, sig->sig_len, sig, data))
		sig->malformed = true;
}
