/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* printf into a malloc'ed string. */
#include <stdio.h>

#include "strf.h"

char *vstrf(const char *fmt, va_list ap)
{
	char *s = NULL;

	/* vasprintf leaves @s undefined on failure */
	if (vasprintf(&s, fmt, ap) < 0)
		return NULL;
	return s;
}

char *strf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = vstrf(fmt, ap);
	va_end(ap);
	return s;
}
