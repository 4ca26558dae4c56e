/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing a malloc'ed array by doubling, with the size arithmetic checked. */
#ifndef UTIL_GROW_H
#define UTIL_GROW_H

#include <stddef.h>

/*
 * Grow *arr (elements of @elem bytes, *cap of them) so that index @n fits:
 * 0, or -ENOMEM when realloc fails or the size would pass PTRDIFF_MAX
 * bytes (*arr and *cap are then unchanged).
 */
int grow_array(void *arr, size_t *cap, size_t n, size_t elem);

#endif
