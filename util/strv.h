/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growable vector of owned strings, NULL-terminated once it holds one. */
#ifndef UTIL_STRV_H
#define UTIL_STRV_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

/* Starts as { 0 }; v[n] is NULL after any push. */
struct strv {
	char **v;
	size_t n, cap;
};

/* Append a copy of @s (NULL: ""); 0 or -ENOMEM. */
int strv_push(struct strv *sv, const char *s);
/* Append @s itself, which the vector then owns; freed on failure; NULL is -ENOMEM. */
int strv_push_owned(struct strv *sv, char *s);
/* Append a formatted string; 0 or -ENOMEM. */
int strv_pushf(struct strv *sv, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strv_vpushf(struct strv *sv, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Does the vector hold a string equal to @s (never for NULL)? */
bool strv_has(const struct strv *sv, const char *s);
/* Free the strings and the vector, and reset it to { 0 }. */
void strv_free(struct strv *sv);
/* Free @n strings of @v and @v itself (arrays handed out by a vector). */
void strv_free_array(char **v, size_t n);

#endif
