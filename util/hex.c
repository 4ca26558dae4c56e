/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Bytes written as hexadecimal text. */
#include <stdint.h>
#include <stdlib.h>

#include "hex.h"

char *hex_colon(const void *p, size_t n)
{
	static const char digits[] = "0123456789ABCDEF";
	const unsigned char *b = p;
	char *s, *o;

	if (n > SIZE_MAX / 3)
		return NULL;
	s = malloc(n ? n * 3 : 1);
	if (!s)
		return NULL;
	o = s;
	for (size_t i = 0; i < n; i++) {
		if (i)
			*o++ = ':';
		*o++ = digits[b[i] >> 4];
		*o++ = digits[b[i] & 15];
	}
	*o = '\0';
	return s;
}

char *hex_lower(char *out, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[b[i] >> 4];
		out[2 * i + 1] = digits[b[i] & 15];
	}
	out[2 * n] = '\0';
	return out;
}
