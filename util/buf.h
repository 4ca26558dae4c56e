/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A growable byte buffer, and the little-endian fields of records written
 * into it.  A write that cannot be made (no memory, a size that would
 * overflow) sets oom and every later write is dropped: the writer checks
 * oom once, at the end.
 */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Starts as { 0 }. */
struct buf {
	unsigned char *p;
	size_t n, cap;
	bool oom;
};

/* Append @n bytes of @p. */
void buf_put(struct buf *b, const void *p, size_t n);
void buf_put_u8(struct buf *b, uint8_t v);
void buf_put_u32(struct buf *b, uint32_t v);
void buf_put_u64(struct buf *b, uint64_t v);
/* A string: u32 length + 1 then its bytes; a u32 0 for NULL (kept apart from ""). */
void buf_put_str(struct buf *b, const char *s);
/* A blob: u64 length then its bytes. */
void buf_put_blob(struct buf *b, const void *p, size_t n);
/* Free the bytes and reset the buffer to { 0 }. */
void buf_free(struct buf *b);

/* Write all @n bytes of @p to @fd (again after EINTR and short writes); 0 or -errno. */
int write_all(int fd, const void *p, size_t n);

#endif
