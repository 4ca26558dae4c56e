/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared state of the module reader (module.c, module_modinfo.c,
 * module_symbols.c, signature.c); the ELF access they share is elf_access.c's.
 * Not installed.
 */
#ifndef TG_MODULE_INTERNAL_H
#define TG_MODULE_INTERNAL_H

#include <sys/types.h>

#include "elf_access.h"

/*
 * A module as the library allocates it: the public struct first, then what
 * only the reader uses.  Callers see struct tg_module alone.
 */
struct tg_module_priv {
	struct tg_module pub;
	uint32_t *versions_slots;	/* hash of version names (index + 1, 0 = empty) */
	size_t versions_mask;		/* slots - 1 */
	struct tg_strpool *strings;	/* the import, export and version names */
	struct tg_sigdata *sigdata;	/* the PKCS#7 and digests of the signed bytes, or NULL */
};

static inline struct tg_module_priv *tg_module_priv(const struct tg_module *m)
{
	return (struct tg_module_priv *)m;	/* pub is the first member */
}

/* module_modinfo.c */
int tg_modinfo_read(struct tg_elf *e);
void tg_modinfo_free(struct tg_modinfo *mi, size_t n);

/* module_symbols.c: imports, exports, __versions */
int tg_symbols_read(struct tg_elf *e);
int tg_versions_read(struct tg_elf *e);
/* The name index of m->versions (tg_module_version_crc); 0 or -ENOMEM.  Also module_facts.c. */
int tg_module_index_versions(struct tg_module *m);

/* signature.c: parse the appended signature; *elf_len = bytes before it. */
struct tg_sigdata;
void tg_signature_read(const unsigned char *img, size_t len, struct tg_signature *sig,
		       size_t *elf_len, struct tg_sigdata **data);
void tg_signature_free(struct tg_signature *sig);

#endif
