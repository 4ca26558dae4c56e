/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bytes written as hexadecimal text. */
#ifndef UTIL_HEX_H
#define UTIL_HEX_H

#include <stddef.h>

/* "0A:1B:..." (upper case, colon-separated: serials, key ids), malloc'ed; NULL on ENOMEM. */
char *hex_colon(const void *p, size_t n);
/* "0a1b..." (lower case: digests) into @out, which holds 2 * @n + 1 bytes; returns @out. */
char *hex_lower(char *out, const void *p, size_t n);

#endif
