/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The parsers of untrusted module bytes (decompression, ELF, the PKCS#7 of
 * the signature) run in confined worker processes: confine.c (the caller),
 * confine_spawner.c, confine_worker.c,
 * docs/confinement.md.  Not installed.
 */
#ifndef TG_CONFINE_H
#define TG_CONFINE_H

#include <errno.h>

#include "internal.h"

/*
 * What a caller sees when the confined parser died, was killed for a
 * forbidden system call, or overran its time or memory: the module is
 * unreadable (never read as clean).  The message says which.
 */
#define TG_CONFINE_FAILED (-ECHILD)
/* A worker that has not answered a request after this long is killed (TG_CONFINE_TIMEOUT=S). */
#define TG_CONFINE_TIMEOUT_S 60

/* false when TG_CONFINE=off (or 0, no) is in the environment: parse in this process. */
bool tg_confine_enabled(void);

/*
 * tg_module_open_mem() done by this thread's confined worker (module_open.c);
 * tg_decompress() is confine.c's and sends its bytes to the worker itself.
 */
int tg_confine_open(const void *data, size_t len, const char *label,
		    const struct tg_limits *lim, struct tg_module **out, struct tg_error *err);
/* tg_module_open_mem_many() confined: small modules go to the worker in batches. */
int tg_confine_open_many(size_t n, const void *const *data, const size_t *len,
			 const char *const *label, const struct tg_limits *lim,
			 struct tg_module **out, struct tg_error *err, int *r);

/* What the worker runs: the unconfined readers (module.c, decompress.c). */
int tg_module_parse_mem(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, struct tg_module **out, struct tg_error *err);
int tg_decompress_here(enum tg_compression kind, const void *in, size_t inlen,
		       uint64_t cap, void **out, size_t *outlen, const char *label,
		       struct tg_error *err);
void tg_decompress_forget(void);

#endif
