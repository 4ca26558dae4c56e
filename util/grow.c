/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing a malloc'ed array by doubling, with the size arithmetic checked. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

int grow_array(void *arr, size_t *cap, size_t n, size_t elem)
{
	void **p = arr;
	size_t ncap;
	void *nv;

	if (n < *cap)
		return 0;
	if (!elem || n >= SIZE_MAX / elem)
		return -ENOMEM;
	ncap = *cap ? *cap : 8;
	/* doubling stops at the first size that holds index @n, or before it overflows */
	while (ncap <= n)
		ncap = ncap > SIZE_MAX / 2 ? n + 1 : ncap * 2;
	if (ncap > SIZE_MAX / elem)
		ncap = n + 1;
	nv = realloc(*p, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*p = nv;
	*cap = ncap;
	return 0;
}
