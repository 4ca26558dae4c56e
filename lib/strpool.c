/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A string pool: many small strings that live and die together (the symbol
 * names of one module) in a few large blocks.  A module of 4,000 imports
 * made 8,000 allocations and as many frees; an audit of a whole kernel spent
 * more time in malloc than in reading the symbol tables.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define POOL_FIRST 256	/* most modules import a few dozen symbols */
#define POOL_MAX_BLOCK (64 * 1024)

struct tg_strpool {
	struct tg_strpool *next;	/* older blocks */
	size_t used, size;
	char data[];
};

/* A block with room for @need bytes, ahead of the list (or after its head for one-off big strings). */
static struct tg_strpool *pool_block(struct tg_strpool **pool, size_t need)
{
	struct tg_strpool *head = *pool, *b;
	size_t size = head ? head->size * 2 : POOL_FIRST;

	if (size > POOL_MAX_BLOCK)
		size = POOL_MAX_BLOCK;
	if (need > size / 4)
		size = need;	/* a long string gets its own block and keeps the head filling */
	if (size > SIZE_MAX - sizeof(*b))
		return NULL;
	b = malloc(sizeof(*b) + size);
	if (!b)
		return NULL;
	b->used = 0;
	b->size = size;
	if (head && size == need) {
		b->next = head->next;
		head->next = b;
	} else {
		b->next = head;
		*pool = b;
	}
	return b;
}

char *tg_strpool_dup(struct tg_strpool **pool, const char *s, size_t len)
{
	struct tg_strpool *b = *pool;
	char *p;

	if (len >= SIZE_MAX / 2)
		return NULL;
	if (!b || b->size - b->used < len + 1) {
		b = pool_block(pool, len + 1);
		if (!b)
			return NULL;
	}
	p = b->data + b->used;
	memcpy(p, s, len);
	p[len] = '\0';
	b->used += len + 1;
	return p;
}

void tg_strpool_free(struct tg_strpool *pool)
{
	while (pool) {
		struct tg_strpool *next = pool->next;

		free(pool);
		pool = next;
	}
}
