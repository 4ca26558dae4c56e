/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Growing a malloc'ed array by doubling, with the size arithmetic checked. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "grow.h"

int grow_array(void *arr, size_t *cap, size_t n, size_t elem)
{
	void **p = arr;
	size_t ncap, max;
	void *nv;

	if (n < *cap)
		return 0;
	/* no object is larger than PTRDIFF_MAX bytes: malloc refuses them too */
	max = elem ? PTRDIFF_MAX / elem : 0;
	if (n >= max)
		return -ENOMEM;
	ncap = *cap ? *cap : 8;
	while (ncap <= n)
		ncap = ncap > max / 2 ? max : ncap * 2;
	nv = realloc(*p, ncap * elem);
	if (!nv)
		return -ENOMEM;
	*p = nv;
	*cap = ncap;
	return 0;
}
