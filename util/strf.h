/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* printf into a malloc'ed string. */
#ifndef UTIL_STRF_H
#define UTIL_STRF_H

#include <stdarg.h>

/* The formatted string, malloc'ed; NULL on ENOMEM. */
char *strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *vstrf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
