/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Strict YAML reader for policy files: libyaml events turned into a small
 * node tree, with everything a policy never needs rejected up front
 * (anchors, aliases, tags, several documents, excessive nesting).
 * The tree carries 1-based line/column marks so that the schema checks in
 * policy.c can say "FILE:LINE:COLUMN: what is wrong".  Not installed.
 */
#ifndef TG_POLICY_YAML_H
#define TG_POLICY_YAML_H

#include <stdbool.h>
#include <stddef.h>

#include "taintguard.h"

enum tg_ykind {
	TG_Y_SCALAR,
	TG_Y_SEQ,
	TG_Y_MAP,
};

struct tg_ynode {
	enum tg_ykind kind;
	unsigned line, col;	/* 1-based, where the node starts */
	char *str;		/* TG_Y_SCALAR: text, NUL-free, NUL-terminated */
	bool plain;		/* TG_Y_SCALAR: unquoted (only these can be bools/ints/null) */
	struct tg_ynode **kids;	/* TG_Y_SEQ: items; TG_Y_MAP: key, value, key, value ... */
	size_t n, cap;
};

struct tg_ydoc {
	struct tg_ynode *root;
	struct tg_ynode **all;	/* every node, so freeing needs no recursion */
	size_t n_all, cap_all;
};

/* 0, -ENOMEM, or -EINVAL/-E2BIG with "LABEL:LINE:COL: ..." in @err. */
int tg_ydoc_parse(struct tg_ydoc *doc, const void *data, size_t len,
		  const char *label, unsigned max_depth, struct tg_error *err);
void tg_ydoc_free(struct tg_ydoc *doc);

#endif
