/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A growable byte buffer, and the little-endian fields of records written into it. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "grow.h"

void buf_put(struct buf *b, const void *p, size_t n)
{
	if (b->oom || n == 0)
		return;
	/* the last new byte is at index b->n + n - 1 */
	if (n > SIZE_MAX - b->n || grow_array(&b->p, &b->cap, b->n + n - 1, 1) < 0) {
		b->oom = true;
		return;
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

void buf_put_u8(struct buf *b, uint8_t v)
{
	buf_put(b, &v, 1);
}

void buf_put_u32(struct buf *b, uint32_t v)
{
	unsigned char x[4] = { v, v >> 8, v >> 16, v >> 24 };

	buf_put(b, x, 4);
}

void buf_put_u64(struct buf *b, uint64_t v)
{
	buf_put_u32(b, (uint32_t)v);
	buf_put_u32(b, (uint32_t)(v >> 32));
}

void buf_put_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= UINT32_MAX) {	/* its length cannot be written */
		b->oom = true;
		return;
	}
	buf_put_u32(b, s ? (uint32_t)n + 1 : 0);
	buf_put(b, s, n);
}

void buf_put_blob(struct buf *b, const void *p, size_t n)
{
	buf_put_u64(b, n);
	buf_put(b, p, n);
}

void buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

int write_all(int fd, const void *p, size_t n)
{
	const unsigned char *q = p;

	while (n) {
		ssize_t w = write(fd, q, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -ENOSPC;
		q += w;
		n -= (size_t)w;
	}
	return 0;
}
