/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Policy files are small, hand-written and possibly hostile (a package can
 * ship one into /etc).  libyaml's event API has no schema and happily
 * expands aliases, so this reader builds a plain tree and refuses every
 * YAML feature a policy does not need.  The tree is built iteratively with
 * an explicit stack: nesting depth is data-controlled and must never turn
 * into C recursion.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "internal.h"
#include "policy_yaml.h"

struct ybuild {
	struct tg_ydoc *doc;
	const char *label;
	struct tg_error *err;
	struct tg_ynode **stack;	/* open sequences/mappings */
	size_t depth, cap;
	unsigned max_depth;
	unsigned n_docs;
};

static int yfail(struct ybuild *b, size_t line, size_t col, int code,
		 const char *what)
{
	return tg_fail(b->err, code, "%s:%zu:%zu: %s", b->label, line, col, what);
}

static int yfail_mark(struct ybuild *b, const yaml_mark_t *m, const char *what)
{
	return yfail(b, m->line + 1, m->column + 1, -EINVAL, what);
}

/* libyaml's reader errors carry only a byte offset; turn it into line:col. */
static void offset_to_linecol(const char *data, size_t len, size_t off,
			      size_t *line, size_t *col)
{
	size_t l = 1, c = 1;

	for (size_t i = 0; i < off && i < len; i++) {
		if (data[i] == '\n') {
			l++;
			c = 1;
		} else {
			c++;
		}
	}
	*line = l;
	*col = c;
}

static int parser_error(struct ybuild *b, const yaml_parser_t *p,
			const char *data, size_t len)
{
	const char *problem = p->problem ? p->problem : "invalid YAML";
	char msg[TG_ERRMAX];
	size_t line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return tg_fail(b->err, -ENOMEM, "%s: out of memory", b->label);
	case YAML_READER_ERROR:
		offset_to_linecol(data, len, p->problem_offset, &line, &col);
		return yfail(b, line, col, -EINVAL, problem);
	default:
		if (p->context)
			snprintf(msg, sizeof(msg), "%s (%s at line %zu)", problem,
				 p->context, p->context_mark.line + 1);
		else
			snprintf(msg, sizeof(msg), "%s", problem);
		return yfail(b, p->problem_mark.line + 1, p->problem_mark.column + 1,
			     -EINVAL, msg);
	}
}

static struct tg_ynode *node_new(struct ybuild *b, enum tg_ykind kind,
				 const yaml_mark_t *m)
{
	struct tg_ydoc *d = b->doc;
	struct tg_ynode *n;

	if (grow_array(&d->all, &d->cap_all, d->n_all, sizeof(*d->all)) < 0)
		return NULL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->kind = kind;
	n->line = (unsigned)m->line + 1;
	n->col = (unsigned)m->column + 1;
	d->all[d->n_all++] = n;
	return n;
}

/* Hang @n under the innermost open container, or make it the root. */
static int attach(struct ybuild *b, struct tg_ynode *n)
{
	struct tg_ynode *top;

	if (!b->depth) {
		b->doc->root = n;
		return 0;
	}
	top = b->stack[b->depth - 1];
	/* A key that is itself a mapping or sequence has no use in a policy. */
	if (top->kind == TG_Y_MAP && top->n % 2 == 0 && n->kind != TG_Y_SCALAR)
		return yfail(b, n->line, n->col, -EINVAL, "mapping keys must be plain strings");
	if (grow_array(&top->kids, &top->cap, top->n, sizeof(*top->kids)) < 0)
		return tg_fail(b->err, -ENOMEM, "%s: out of memory", b->label);
	top->kids[top->n++] = n;
	return 0;
}

/* Anchors and tags are refused: aliases make documents grow exponentially
 * ("billion laughs") and tags would let a scalar change type behind our back. */
static int check_node_props(struct ybuild *b, const yaml_event_t *ev,
			    const yaml_char_t *anchor, const yaml_char_t *tag)
{
	if (anchor)
		return yfail_mark(b, &ev->start_mark, "anchors are not allowed in a policy");
	if (tag)
		return yfail_mark(b, &ev->start_mark, "tags are not allowed in a policy");
	return 0;
}

static int on_scalar(struct ybuild *b, const yaml_event_t *ev)
{
	const char *v = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	struct tg_ynode *n;
	int r;

	r = check_node_props(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
	if (r < 0)
		return r;
	/* "\0" escapes in double quotes: C strings would silently cut them. */
	if (memchr(v, '\0', len))
		return yfail_mark(b, &ev->start_mark, "NUL character in a string");
	n = node_new(b, TG_Y_SCALAR, &ev->start_mark);
	if (!n || !(n->str = strndup(v, len)))
		return tg_fail(b->err, -ENOMEM, "%s: out of memory", b->label);
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return attach(b, n);
}

static int on_start(struct ybuild *b, const yaml_event_t *ev, enum tg_ykind kind)
{
	const yaml_char_t *anchor, *tag;
	struct tg_ynode *n;
	char msg[96];
	int r;

	if (kind == TG_Y_MAP) {
		anchor = ev->data.mapping_start.anchor;
		tag = ev->data.mapping_start.tag;
	} else {
		anchor = ev->data.sequence_start.anchor;
		tag = ev->data.sequence_start.tag;
	}
	r = check_node_props(b, ev, anchor, tag);
	if (r < 0)
		return r;
	if (b->depth >= b->max_depth) {
		snprintf(msg, sizeof(msg), "nested deeper than %u levels", b->max_depth);
		return yfail(b, ev->start_mark.line + 1, ev->start_mark.column + 1,
			     -E2BIG, msg);
	}
	n = node_new(b, kind, &ev->start_mark);
	if (!n)
		return tg_fail(b->err, -ENOMEM, "%s: out of memory", b->label);
	r = attach(b, n);
	if (r < 0)
		return r;
	if (grow_array(&b->stack, &b->cap, b->depth, sizeof(*b->stack)) < 0)
		return tg_fail(b->err, -ENOMEM, "%s: out of memory", b->label);
	b->stack[b->depth++] = n;
	return 0;
}

static int on_document_start(struct ybuild *b, const yaml_event_t *ev)
{
	if (b->n_docs++)
		return yfail_mark(b, &ev->start_mark,
				  "a policy must be exactly one YAML document");
	if (ev->data.document_start.tag_directives.start !=
	    ev->data.document_start.tag_directives.end)
		return yfail_mark(b, &ev->start_mark, "%TAG directives are not allowed in a policy");
	return 0;
}

/* One event; 1 at the end of the stream, 0 to go on, <0 on error. */
static int on_event(struct ybuild *b, const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_STREAM_START_EVENT:
	case YAML_DOCUMENT_END_EVENT:
		return 0;
	case YAML_STREAM_END_EVENT:
		return 1;
	case YAML_DOCUMENT_START_EVENT:
		return on_document_start(b, ev);
	case YAML_ALIAS_EVENT:
		return yfail_mark(b, &ev->start_mark, "aliases are not allowed in a policy");
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_start(b, ev, TG_Y_SEQ);
	case YAML_MAPPING_START_EVENT:
		return on_start(b, ev, TG_Y_MAP);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth)
			b->depth--;
		return 0;
	default:
		return yfail_mark(b, &ev->start_mark, "unexpected YAML event");
	}
}

int tg_ydoc_parse(struct tg_ydoc *doc, const void *data, size_t len,
		  const char *label, unsigned max_depth, struct tg_error *err)
{
	struct ybuild b = {
		.doc = doc, .label = label, .err = err, .max_depth = max_depth,
	};
	yaml_parser_t parser;
	int r = 0;

	memset(doc, 0, sizeof(*doc));
	if (!yaml_parser_initialize(&parser))
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	yaml_parser_set_input_string(&parser, data, len);
	while (r == 0) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&parser, &ev)) {
			r = parser_error(&b, &parser, data, len);
			break;
		}
		r = on_event(&b, &ev);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&parser);
	free(b.stack);
	if (r > 0 && !doc->root)
		r = yfail(&b, 1, 1, -EINVAL, "empty policy");
	if (r < 0) {
		tg_ydoc_free(doc);
		return r;
	}
	return 0;
}

void tg_ydoc_free(struct tg_ydoc *doc)
{
	for (size_t i = 0; i < doc->n_all; i++) {
		free(doc->all[i]->str);
		free(doc->all[i]->kids);
		free(doc->all[i]);
	}
	free(doc->all);
	memset(doc, 0, sizeof(*doc));
}
