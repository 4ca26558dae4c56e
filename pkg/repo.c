/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * yum/dnf repositories (createrepo_c metadata), read from a directory.
 *
 * filelists.xml names every file of every package, so packages that carry
 * neither kernel modules nor a Module.symvers-like file are never opened.
 * primary.xml maps the package id (checksum) to its location.  Both are read
 * with a small streaming scanner (no libxml2): tags, attributes, text and the
 * five predefined entities plus character references; comments, CDATA,
 * processing instructions and DOCTYPE are skipped.  That is all createrepo_c
 * and createrepo write.  The files are decompressed by rpmio (gz, bz2, xz,
 * zstd), chunk by chunk: memory stays flat for a repository of any size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/rpmio.h>

#include "pkg.h"

/* ------------------------------------------------------------ scanner */

struct xml_cb {
	void (*start)(void *ctx, const char *name, const char *attrs, bool empty);
	void (*end)(void *ctx, const char *name, const char *text);
	void *ctx;
};

struct sbuf {
	char *s;
	size_t n, cap;
};

static int sb_put(struct sbuf *b, char c)
{
	if (b->n + 2 > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		char *ns;

		if (nc > (64u << 20))
			return -E2BIG;	/* one tag or text over 64 MiB: not metadata */
		ns = realloc(b->s, nc);
		if (!ns)
			return -ENOMEM;
		b->s = ns;
		b->cap = nc;
	}
	b->s[b->n++] = c;
	b->s[b->n] = 0;
	return 0;
}

static void put_utf8(struct sbuf *b, unsigned long cp)
{
	if (cp < 0x80) {
		sb_put(b, (char)cp);
	} else if (cp < 0x800) {
		sb_put(b, (char)(0xc0 | (cp >> 6)));
		sb_put(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x10000) {
		sb_put(b, (char)(0xe0 | (cp >> 12)));
		sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		sb_put(b, (char)(0x80 | (cp & 0x3f)));
	} else if (cp < 0x110000) {
		sb_put(b, (char)(0xf0 | (cp >> 18)));
		sb_put(b, (char)(0x80 | ((cp >> 12) & 0x3f)));
		sb_put(b, (char)(0x80 | ((cp >> 6) & 0x3f)));
		sb_put(b, (char)(0x80 | (cp & 0x3f)));
	}
}

/* Decode entities of s[0..n) into @out (reset first). */
static void xml_decode(const char *s, size_t n, struct sbuf *out)
{
	static const struct { const char *e; char c; } ent[] = {
		{ "amp;", '&' }, { "lt;", '<' }, { "gt;", '>' }, { "quot;", '"' }, { "apos;", '\'' },
	};

	out->n = 0;
	if (out->s)
		out->s[0] = 0;
	sb_put(out, 0);
	out->n = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '&') {
			sb_put(out, s[i]);
			continue;
		}
		if (i + 1 < n && s[i + 1] == '#') {
			char *end;
			unsigned long cp = s[i + 2] == 'x' ? strtoul(s + i + 3, &end, 16)
							    : strtoul(s + i + 2, &end, 10);

			if ((size_t)(end - s) < n && *end == ';') {
				put_utf8(out, cp);
				i = (size_t)(end - s);
				continue;
			}
		}
		for (size_t e = 0; e < sizeof(ent) / sizeof(ent[0]); e++) {
			size_t l = strlen(ent[e].e);

			if (i + 1 + l <= n && !memcmp(s + i + 1, ent[e].e, l)) {
				sb_put(out, ent[e].c);
				i += l;
				goto next;
			}
		}
		sb_put(out, '&');
next:		;
	}
}

/* Value of attribute @key in @attrs (decoded into @out); false if absent. */
static bool xml_attr(const char *attrs, const char *key, struct sbuf *out)
{
	size_t kl = strlen(key);
	const char *p = attrs;

	while (*p) {
		const char *name, *eq;
		char q;

		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		name = p;
		while (*p && *p != '=' && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r')
			p++;
		eq = p;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '=')
			return false;
		p++;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '"' && *p != '\'')
			return false;
		q = *p++;
		{
			const char *v = p, *e = strchr(p, q);

			if (!e)
				return false;
			if ((size_t)(eq - name) == kl && !memcmp(name, key, kl)) {
				xml_decode(v, (size_t)(e - v), out);
				return true;
			}
			p = e + 1;
		}
	}
	return false;
}

enum xstate { X_TEXT, X_TAG, X_SKIP };

static int xml_scan(const char *path, const struct xml_cb *cb, char **error)
{
	const char *ext = strrchr(path, '.');
	const char *mode = "r.ufdio";
	struct sbuf tag = { 0 }, text = { 0 }, dec = { 0 };
	char buf[65536], quote = 0;
	enum xstate st = X_TEXT;
	const char *skip_end = NULL;
	size_t skip_match = 0;
	ssize_t n;
	FD_t fd;
	int r = 0;

	if (ext && !strcmp(ext, ".gz"))
		mode = "r.gzdio";
	else if (ext && !strcmp(ext, ".bz2"))
		mode = "r.bzdio";
	else if (ext && !strcmp(ext, ".xz"))
		mode = "r.xzdio";
	else if (ext && !strcmp(ext, ".zst"))
		mode = "r.zstdio";
	fd = Fopen(path, mode);
	if (!fd || Ferror(fd)) {
		*error = pkg_strf("%s: %s", path, fd ? Fstrerror(fd) : strerror(errno));
		if (fd)
			Fclose(fd);
		return -EIO;
	}
	sb_put(&text, 0);
	text.n = 0;
	while (r == 0 && (n = Fread(buf, 1, sizeof(buf), fd)) > 0) {
		for (ssize_t i = 0; i < n && r == 0; i++) {
			char c = buf[i];

			switch (st) {
			case X_SKIP:	/* until skip_end */
				if (c == skip_end[skip_match]) {
					if (!skip_end[++skip_match]) {
						st = X_TEXT;
						text.n = 0;
					}
				} else {
					skip_match = c == skip_end[0];
				}
				break;
			case X_TEXT:
				if (c == '<') {
					st = X_TAG;
					tag.n = 0;
					quote = 0;
					skip_end = NULL;
				} else {
					r = sb_put(&text, c);
				}
				break;
			case X_TAG:
				if (quote) {
					if (c == quote)
						quote = 0;
					r = sb_put(&tag, c);
					break;
				}
				if (tag.n == 0 && (c == '!' || c == '?')) {
					/* <!-- -->, <![CDATA[ ]]> (no payload in repodata), <!DOCTYPE>, <?xml ?> */
					skip_end = c == '?' ? "?>" : NULL;
					r = sb_put(&tag, c);
					break;
				}
				if (tag.n >= 1 && tag.s[0] == '!' && !skip_end) {
					r = sb_put(&tag, c);
					if (tag.n == 3 && !memcmp(tag.s, "!--", 3))
						skip_end = "-->";
					else if (tag.n == 8 && !memcmp(tag.s, "![CDATA[", 8))
						skip_end = "]]>";
					else if (tag.n > 8 && c == '>')
						skip_end = ">";
					else
						break;
					if (!strcmp(skip_end, ">")) {
						st = X_TEXT;
						text.n = 0;
					} else {
						st = X_SKIP;
						skip_match = 0;
					}
					break;
				}
				if (tag.n >= 1 && tag.s[0] == '?') {
					st = X_SKIP;
					skip_match = c == '?';
					break;
				}
				if (c == '"' || c == '\'') {
					quote = c;
					r = sb_put(&tag, c);
					break;
				}
				if (c != '>') {
					r = sb_put(&tag, c);
					break;
				}
				/* a complete tag */
				st = X_TEXT;
				if (!tag.s)
					break;
				if (tag.s[0] == '/') {
					char *name = tag.s + 1;

					name[strcspn(name, " \t\r\n")] = 0;
					xml_decode(text.s ? text.s : "", text.n, &dec);
					cb->end(cb->ctx, name, dec.s ? dec.s : "");
				} else {
					bool empty = tag.n && tag.s[tag.n - 1] == '/';
					size_t nl;
					char *attrs;

					if (empty)
						tag.s[--tag.n] = 0;
					nl = strcspn(tag.s, " \t\r\n");
					attrs = tag.s + nl;
					if (*attrs)
						*attrs++ = 0;
					cb->start(cb->ctx, tag.s, attrs, empty);
					if (empty)
						cb->end(cb->ctx, tag.s, "");
				}
				text.n = 0;
				if (text.s)
					text.s[0] = 0;
				break;
			}
		}
	}
	if (r == 0 && (n < 0 || Ferror(fd))) {
		*error = pkg_strf("%s: read error: %s", path, Fstrerror(fd));
		r = -EIO;
	} else if (r < 0) {
		*error = pkg_strf("%s: %s", path, strerror(-r));
	}
	Fclose(fd);
	free(tag.s);
	free(text.s);
	free(dec.s);
	return r;
}

/* ----------------------------------------------------------- repomd */

struct repomd_ctx {
	bool in_data;
	char *type;
	char *primary, *filelists;
	struct sbuf tmp;
};

static void repomd_start(void *c, const char *name, const char *attrs, bool empty)
{
	struct repomd_ctx *x = c;

	(void)empty;
	if (!strcmp(name, "data")) {
		x->in_data = true;
		free(x->type);
		x->type = xml_attr(attrs, "type", &x->tmp) ? strdup(x->tmp.s) : NULL;
	} else if (x->in_data && !strcmp(name, "location") && x->type &&
		   xml_attr(attrs, "href", &x->tmp)) {
		if (!strcmp(x->type, "primary") && !x->primary)
			x->primary = strdup(x->tmp.s);
		else if (!strcmp(x->type, "filelists") && !x->filelists)
			x->filelists = strdup(x->tmp.s);
	}
}

static void repomd_end(void *c, const char *name, const char *text)
{
	struct repomd_ctx *x = c;

	(void)text;
	if (!strcmp(name, "data"))
		x->in_data = false;
}

bool pkg_repo_detect(const char *dir)
{
	char *p = pkg_strf("%s/repodata/repomd.xml", dir);
	struct stat st;
	bool ok = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return ok;
}

/* ------------------------------------------------------- filelists */

struct hit {			/* a package of interest from filelists.xml */
	char *pkgid;
	bool modules, symvers, oot;
	char **svpaths;		/* symvers-like files */
	size_t n_sv;
};

struct fl_ctx {
	struct hit *hits;
	size_t n, cap;
	char *pkgid;
	bool modules, symvers, oot;
	char **svpaths;
	size_t n_sv;
	bool is_dir;
	struct sbuf tmp;
	int err;
};

static void fl_start(void *c, const char *name, const char *attrs, bool empty)
{
	struct fl_ctx *x = c;

	(void)empty;
	if (!strcmp(name, "package")) {
		free(x->pkgid);
		x->pkgid = xml_attr(attrs, "pkgid", &x->tmp) ? strdup(x->tmp.s) : NULL;
		x->modules = x->symvers = x->oot = false;
		x->svpaths = NULL;
		x->n_sv = 0;
	} else if (!strcmp(name, "file")) {
		x->is_dir = xml_attr(attrs, "type", &x->tmp) && strcmp(x->tmp.s, "file") != 0;
	}
}

static void fl_end(void *c, const char *name, const char *text)
{
	struct fl_ctx *x = c;

	if (!strcmp(name, "file") && !x->is_dir) {
		struct pkg_class cls;
		enum pkg_kind k = pkg_classify(text, &cls);
		char **nv;

		if (k == PKG_MODULE) {
			x->modules = true;
			x->oot |= cls.named && !cls.in_tree;
		} else if (k != PKG_OTHER && (nv = realloc(x->svpaths, (x->n_sv + 1) * sizeof(char *)))) {
			x->svpaths = nv;
			x->svpaths[x->n_sv++] = strdup(text);
			x->symvers = true;
		}
	} else if (!strcmp(name, "package")) {
		if ((x->modules || x->symvers) && x->pkgid) {
			if (x->n == x->cap) {
				size_t nc = x->cap ? x->cap * 2 : 64;
				struct hit *nh = realloc(x->hits, nc * sizeof(*nh));

				if (!nh) {
					x->err = -ENOMEM;
					return;
				}
				x->hits = nh;
				x->cap = nc;
			}
			x->hits[x->n++] = (struct hit){ x->pkgid, x->modules, x->symvers, x->oot,
							 x->svpaths, x->n_sv };
			x->pkgid = NULL;
			x->svpaths = NULL;
			x->n_sv = 0;
		} else {
			for (size_t i = 0; i < x->n_sv; i++)
				free(x->svpaths[i]);
			free(x->svpaths);
			x->svpaths = NULL;
			x->n_sv = 0;
		}
	}
}

static int cmp_hit(const void *a, const void *b)
{
	return strcmp(((const struct hit *)a)->pkgid, ((const struct hit *)b)->pkgid);
}

/* --------------------------------------------------------- primary */

struct pr_ctx {
	pkg_repo_fn fn;
	void *fn_ctx;
	const char *dir;
	struct fl_ctx *fl;
	bool in_pkg;
	bool pkgid_yes;
	char *pkgid, *href, *base, *name;
	size_t skipped;
	struct sbuf tmp;
	int err;
};

static void pr_start(void *c, const char *name, const char *attrs, bool empty)
{
	struct pr_ctx *x = c;

	(void)empty;
	if (!strcmp(name, "package")) {
		x->in_pkg = true;
		free(x->pkgid), free(x->href), free(x->base), free(x->name);
		x->pkgid = x->href = x->base = x->name = NULL;
	} else if (x->in_pkg && !strcmp(name, "checksum")) {
		x->pkgid_yes = xml_attr(attrs, "pkgid", &x->tmp) && !strcmp(x->tmp.s, "YES");
	} else if (x->in_pkg && !strcmp(name, "location")) {
		if (xml_attr(attrs, "href", &x->tmp))
			x->href = strdup(x->tmp.s);
		if (xml_attr(attrs, "xml:base", &x->tmp))
			x->base = strdup(x->tmp.s);
	}
}

/* A package of interest: where to open it, and what its file list said. */
static int pr_emit(struct pr_ctx *x, const struct hit *h)
{
	struct pkg_repo_entry e = {
		.location = x->href, .name = x->name, .modules = h->modules, .oot = h->oot,
		.kernel_files = (const char *const *)h->svpaths, .n_kernel_files = h->n_sv,
	};
	char *file, *error = NULL;
	int r;

	if (x->base && strncmp(x->base, "file://", 7) && x->base[0] != '/') {
		error = pkg_strf("location %s%s is not local", x->base, x->href);
		file = pkg_strf("%s%s", x->base, x->href);
	} else if (x->base) {
		const char *b = x->base + (strncmp(x->base, "file://", 7) ? 0 : 7);

		file = pkg_strf("%s/%s", b, x->href);
	} else {
		file = pkg_strf("%s/%s", x->dir, x->href);
	}
	if (!file)
		return -ENOMEM;
	e.file = file;
	e.error = error;
	r = x->fn(x->fn_ctx, &e);
	free(file);
	free(error);
	return r;
}

static void pr_end(void *c, const char *name, const char *text)
{
	struct pr_ctx *x = c;
	struct hit key, *h;
	int r;

	if (!x->in_pkg)
		return;
	if (!strcmp(name, "checksum") && x->pkgid_yes && !x->pkgid) {
		x->pkgid = strdup(text);
	} else if (!strcmp(name, "name") && !x->name) {
		x->name = strdup(text);
	} else if (!strcmp(name, "package")) {
		x->in_pkg = false;
		if (!x->pkgid || !x->href)
			return;
		key.pkgid = x->pkgid;
		h = bsearch(&key, x->fl->hits, x->fl->n, sizeof(*h), cmp_hit);
		if (!h) {
			x->skipped++;
			return;
		}
		r = pr_emit(x, h);
		if (r < 0 && !x->err)
			x->err = r;
	}
}

static char *meta_path(const char *dir, const char *href)
{
	return href[0] == '/' ? strdup(href) : pkg_strf("%s/%s", dir, href);
}

int pkg_repo_scan(const char *dir, pkg_repo_fn fn, void *ctx, size_t *skipped, char **error)
{
	struct repomd_ctx md = { 0 };
	struct fl_ctx fl = { 0 };
	struct pr_ctx pr = { 0 };
	char *path = pkg_strf("%s/repodata/repomd.xml", dir), *fp = NULL, *pp = NULL;
	int r;

	*error = NULL;
	if (!path)
		return -ENOMEM;
	r = xml_scan(path, &(struct xml_cb){ repomd_start, repomd_end, &md }, error);
	free(path);
	if (r < 0)
		goto out;
	if (!md.primary || !md.filelists) {
		*error = pkg_strf("%s: repodata/repomd.xml names no %s", dir,
				  md.primary ? "filelists" : "primary");
		r = -EINVAL;
		goto out;
	}
	fp = meta_path(dir, md.filelists);
	pp = meta_path(dir, md.primary);
	r = xml_scan(fp, &(struct xml_cb){ fl_start, fl_end, &fl }, error);
	if (r == 0 && fl.err)
		r = fl.err;
	if (r < 0)
		goto out;
	if (fl.n)
		qsort(fl.hits, fl.n, sizeof(*fl.hits), cmp_hit);
	pr.fn = fn;
	pr.fn_ctx = ctx;
	pr.dir = dir;
	pr.fl = &fl;
	r = xml_scan(pp, &(struct xml_cb){ pr_start, pr_end, &pr }, error);
	if (r == 0 && pr.err)
		r = pr.err;
	*skipped += pr.skipped;
out:
	free(fp);
	free(pp);
	free(md.type);
	free(md.primary);
	free(md.filelists);
	free(md.tmp.s);
	for (size_t i = 0; i < fl.n; i++) {
		free(fl.hits[i].pkgid);
		for (size_t j = 0; j < fl.hits[i].n_sv; j++)
			free(fl.hits[i].svpaths[j]);
		free(fl.hits[i].svpaths);
	}
	free(fl.hits);
	free(fl.pkgid);
	for (size_t j = 0; j < fl.n_sv; j++)
		free(fl.svpaths[j]);
	free(fl.svpaths);
	free(fl.tmp.s);
	free(pr.pkgid), free(pr.href), free(pr.base), free(pr.name);
	free(pr.tmp.s);
	return r;
}
