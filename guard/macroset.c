/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which definition of a macro rpm ends up with: rpm loads the files of its
 * macro path in order and a later definition replaces an earlier one, so
 * the last file that defines a name wins (command-line --define aside).
 * Only the names that decide whether and how the plugin runs are kept.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

#define PLUGIN_PREFIX "_taintguard_"

int guard_names_init(struct guard_names *nm)
{
	memset(nm, 0, sizeof(*nm));
	if (strv_push(&nm->names, "__transaction_taintguard") < 0 ||
	    strv_push(&nm->names, "__plugindir") < 0) {
		guard_names_free(nm);
		return -ENOMEM;
	}
	return 0;
}

void guard_names_free(struct guard_names *nm)
{
	strv_free(&nm->names);
	memset(nm, 0, sizeof(*nm));
}

bool guard_names_match(const struct guard_names *nm, const char *name, size_t len)
{
	if (len > strlen(PLUGIN_PREFIX) && !strncmp(name, PLUGIN_PREFIX, strlen(PLUGIN_PREFIX)))
		return true;
	for (size_t i = 0; i < nm->names.n; i++)
		if (strlen(nm->names.v[i]) == len && !memcmp(nm->names.v[i], name, len))
			return true;
	return false;
}

void guard_wins_free(struct guard_wins *w)
{
	for (size_t i = 0; i < w->n; i++) {
		free(w->v[i].name);
		free(w->v[i].body);
	}
	free(w->v);
	memset(w, 0, sizeof(*w));
}

const struct guard_win *guard_wins_find(const struct guard_wins *w, const char *name)
{
	for (size_t i = 0; i < w->n; i++)
		if (!strcmp(w->v[i].name, name))
			return &w->v[i];
	return NULL;
}

struct collect {
	const struct guard_names *nm;
	struct guard_wins *w;
	size_t file;
};

static int on_def(void *ctx, const struct guard_macro_def *d)
{
	struct collect *c = ctx;
	struct guard_wins *w = c->w;
	struct guard_win *win = NULL;
	char *body;

	if (!guard_names_match(c->nm, d->name, d->name_len))
		return 0;
	for (size_t i = 0; i < w->n && !win; i++)
		if (strlen(w->v[i].name) == d->name_len &&
		    !memcmp(w->v[i].name, d->name, d->name_len))
			win = &w->v[i];
	body = strndup(d->body, d->body_len);
	if (!body)
		return -ENOMEM;
	if (!win) {
		if (w->n == w->cap) {
			size_t nc = w->cap ? w->cap * 2 : 8;
			struct guard_win *nv = realloc(w->v, nc * sizeof(*nv));

			if (!nv) {
				free(body);
				return -ENOMEM;
			}
			w->v = nv;
			w->cap = nc;
		}
		win = &w->v[w->n];
		memset(win, 0, sizeof(*win));
		if (!(win->name = strndup(d->name, d->name_len))) {
			free(body);
			return -ENOMEM;
		}
		w->n++;
	}
	free(win->body);
	win->body = body;
	win->file = c->file;
	win->line = d->line;
	return 0;
}

int guard_wins_get(const struct guard_mfile *files, size_t n, const struct guard_names *nm,
		   struct guard_wins *out)
{
	struct collect c = { nm, out, 0 };
	int r = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < n && r == 0; i++) {
		if (!files[i].text)
			continue;
		c.file = i;
		r = guard_macro_each(files[i].text, files[i].len, on_def, &c);
	}
	if (r < 0)
		guard_wins_free(out);
	return r;
}

struct refs {
	struct guard_names *nm;
	bool added;
};

static int on_ref(void *ctx, const char *name, size_t len)
{
	struct refs *r = ctx;
	int ret;

	if (guard_names_match(r->nm, name, len))
		return 0;
	ret = strv_push_owned(&r->nm->names, strndup(name, len));
	r->added = ret == 0;
	return ret;
}

int guard_names_close(struct guard_names *nm, const struct guard_mfile *files, size_t n)
{
	struct refs r = { nm, true };

	/* each round adds at least one name of the files' finite set, or ends */
	while (r.added) {
		struct guard_wins w;
		int ret;

		r.added = false;
		if ((ret = guard_wins_get(files, n, nm, &w)) < 0)
			return ret;
		for (size_t i = 0; i < w.n && ret == 0; i++)
			ret = guard_macro_refs(w.v[i].body, strlen(w.v[i].body), on_ref, &r);
		guard_wins_free(&w);
		if (ret < 0)
			return ret;
	}
	return 0;
}
