/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Helpers shared by the library's files; not installed. */
#ifndef TG_INTERNAL_H
#define TG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "taintguard.h"

/* util/: what every directory of the project shares */
#include "grow.h"
#include "hex.h"
#include "strf.h"
#include "strv.h"

#define TG_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define tg_unlikely(x) __builtin_expect(!!(x), 0)

/*
 * Record an error (when @err is non-NULL) and return @code (a negative
 * errno), so callers can write "return tg_fail(err, -EINVAL, ...)".
 */
int tg_fail(struct tg_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* true if [off, off+size) lies inside a buffer of @total bytes (overflow-safe). */
static inline bool tg_in_bounds(uint64_t total, uint64_t off, uint64_t size)
{
	return off <= total && size <= total - off;
}

char *tg_strdup0(const char *s);	/* strdup that passes NULL through */

/*
 * Strings that are freed together (strpool.c).  *pool starts NULL; the copy
 * of @len bytes is NUL-terminated; NULL on ENOMEM.
 */
struct tg_strpool;
char *tg_strpool_dup(struct tg_strpool **pool, const char *s, size_t len);
void tg_strpool_free(struct tg_strpool *pool);

/* A fast hash of @len bytes for open-addressing tables (keys are compared after it). */
uint32_t tg_name_hash(const char *s, size_t len);

/* Memory for @n bytes about to be filled whole (free() frees it): huge pages where the kernel allows. */
void *tg_alloc_big(size_t n);
/*
 * Read a whole file or fd into memory, at most @cap bytes (-EFBIG past it).
 * The buffer is NUL-terminated (not counted in *len).
 */
int tg_read_path(const char *path, uint64_t cap, void **buf, size_t *len,
		 struct tg_error *err);
int tg_read_fd(int fd, const char *label, uint64_t cap, void **buf, size_t *len,
	       struct tg_error *err);

/* Compare kernel versions against a range text such as ">= 3.5, < 6.4". */
bool tg_version_in_range(unsigned kversion, const char *range);
/* Validate a range text; 0 or -EINVAL. */
int tg_version_range_check(const char *range);

/* "x86_64", "aarch64", "ppc64le", "s390x" ... of an ELF machine (lib/module.c). */
const char *tg_arch_name(unsigned machine, bool is64, bool be);

/* fnmatch(3) glob, NULL pattern matches everything. */
bool tg_glob_match(const char *pattern, const char *s);

/*
 * Run as root, refuse (-EPERM) a policy file, or its directory, that a
 * non-root user can write.  @fd is the opened policy.
 */
int tg_policy_trust_check(int fd, const char *path, struct tg_error *err);

/*
 * Compressions (1u << TG_COMP_*) the kmod installed under @root can
 * decompress, from the library names its binaries link or dlopen; 0 when no
 * kmod is found.  *@source (malloc'ed) names the files looked at.
 */
unsigned tg_kmod_compressions(const char *root, char **source);

/*
 * Add the certificates of @path, a file that decides what root installs:
 * refused (-EPERM) like a policy file when others can write it.
 */
int tg_keyring_add_trusted_file(struct tg_keyring *kr, const char *path, struct tg_error *err);

/*
 * A keyring read from the kernel image @image (System.map @sysmap, may be
 * NULL) when first needed (keyring.c); NULL on ENOMEM.
 */
struct tg_keyring *tg_keyring_lazy(const char *image, const char *sysmap,
				   const struct tg_limits *lim);

#endif
