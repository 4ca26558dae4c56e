/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: reading packages on the thread pool.  A task reads one
 * package (header, file list, payload) on one thread with that thread's own
 * rpmts; each module candidate of the payload becomes an item of the same
 * pool (decompression and ELF reading are the expensive part), which idle
 * threads take first, so one large package still keeps every core busy and
 * memory stays bounded.  Results land in per-package lists kept in payload
 * order; everything after (kernels, the set, reports) works on sorted data,
 * so the output never depends on --jobs.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rpm/rpmts.h>

#include "audit.h"

/* Bytes of compressed modules waiting to be read, at most. */
#define QUEUE_MAX_BYTES (16u << 20)

struct reader {
	struct audit *a;
	struct audit_pkg **todo;
	size_t n;
	bool modules;			/* phase A: modules; phase B: kernel files only */
	rpmts *ts;			/* one per worker, made on first use */
	struct tg_workq *q;
	struct pkg_decode **decodes;	/* per package, taken after the run */
	/* the progress bar */
	pthread_mutex_t mu;
	size_t done, mods;
	struct timespec last;
};

static void progress(struct reader *rd, bool final)
{
	struct timespec now;

	if (!rd->a->progress)
		return;
	pthread_mutex_lock(&rd->mu);
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (final) {
		fputs("\r\033[K", stderr);
	} else if (audit_progress_due(&rd->last, &now)) {
		unsigned width = 30, fill = rd->n ? (unsigned)(rd->done * width / rd->n) : 0;
		char bar[64];

		memset(bar, '#', fill);
		memset(bar + fill, '.', width - fill);
		bar[width] = 0;
		fprintf(stderr, "\r\033[Kaudit [%s] %zu/%zu packages, %zu modules", bar, rd->done,
			rd->n, rd->mods);
	}
	fflush(stderr);
	pthread_mutex_unlock(&rd->mu);
}

/* One package's reading state, for the member callback. */
struct one {
	struct reader *rd;
	struct audit_pkg *p;
	struct pkg_decode *d;
	size_t seen;			/* module candidates met in the payload */
};

static int register_kernel_file(void *ctx, const char *path, const struct pkg_class *c)
{
	struct one *o = ctx;

	audit_kernel_file(o->rd->a, o->p, path, c, NULL, 0);
	return 0;
}

static int on_member(void *ctx, struct pkg_member *m)
{
	struct one *o = ctx;
	bool module = m->cls->kind == PKG_MODULE && o->d;

	if (m->cls->kind == PKG_MODULE)
		o->seen++;
	if (!m->data) {
		audit_pkg_error(o->p, "payload: %s: %s", m->path, m->error);
		if (module)
			pkg_decode_error(o->d, m->path, o->p->error);
		return 0;
	}
	if (module) {
		pkg_decode_push(o->d, m->path, m->data, m->len);
		return 0;
	}
	if (m->cls->kind == PKG_SYMVERS || m->cls->kind == PKG_CONFIG) {
		audit_kernel_file(o->rd->a, o->p, m->path, m->cls, m->data, m->len);
		return 0;
	}
	free(m->data);
	return 0;
}

/* The header's facts into the package (a repository entry may have named it already). */
static void take_info(struct audit_pkg *p, Header h)
{
	struct pkg_info pi = { .name = p->name, .license = p->license };

	p->name = p->license = NULL;
	if (pkg_info_from_header(h, &pi) < 0)
		audit_pkg_error(p, "out of memory");
	free(p->nevra);
	p->nevra = pi.nevra;
	p->name = pi.name;
	p->license = pi.license;
	if (!p->sig_info)
		p->sig_info = pi.sig_info;
	else
		free(pi.sig_info);
}

static void stream(struct one *o, struct pkg_file *pf, const struct pkg_files_facts *f,
		   const struct pkg_ftypes *types)
{
	struct audit *a = o->rd->a;
	struct audit_pkg *p = o->p;
	struct pkg_payload_opts po = { .check_digests = true, .types = types };
	char *error = NULL;
	int r;

	if (o->rd->modules && p->has_modules) {
		po.kinds |= PKG_KIND_BIT(PKG_MODULE);
		o->d = pkg_decode_new(o->rd->q, &a->o.limits);
		if (!o->d) {
			audit_pkg_error(p, "out of memory");
			return;
		}
	}
	/* a kernel package carries its export table: keep it while streaming anyway */
	if (p->has_kernel_files)
		po.kinds |= PKG_KIND_BIT(PKG_SYMVERS) | PKG_KIND_BIT(PKG_CONFIG);
	for (int k = 0; k <= PKG_CONFIG; k++)
		po.max_size[k] = a->o.limits.max_input_size;
	r = pkg_payload_read(pf->fd, pf->h, pf->files, &po, on_member, o, &error);
	if (o->d)
		pkg_decode_flush(o->d);
	if (r < 0 && error)
		audit_pkg_error(p, "payload: %s", error);
	free(error);
	if (o->d && !p->error && o->seen < f->n_prepared)
		audit_pkg_error(p, "payload: %zu of %zu module files listed in the header are missing",
				f->n_prepared - o->seen, f->n_prepared);
}

/*
 * Open the package: a download (already verified against the repository's
 * checksum), or a local file, verified against the repository's checksum
 * when it comes from one, on the descriptor that is then read: the bytes
 * checked are the bytes judged.
 */
static int open_pkg(rpmts ts, struct audit_pkg *p, struct pkg_file *pf, char **error)
{
	char *why = NULL;
	int fd, r;

	memset(pf, 0, sizeof(*pf));
	if (p->fd >= 0)
		return pkg_file_open_fd(ts, p->fd, p->url ? p->url : p->location, pf, error);
	if (!p->file) {
		*error = strdup("not downloaded");
		return -ENOENT;
	}
	if (!p->checksum)
		return pkg_file_open(ts, p->file, pf, error);
	fd = open(p->file, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*error = strf("%s", strerror(errno));
		return -errno;
	}
	r = pkg_checksum_fd(fd, p->checksum, &why);
	if (r == 0)
		r = pkg_file_open_fd(ts, fd, p->file, pf, error);
	else
		*error = why ? strf("repository metadata: %s", why) : strdup(strerror(-r));
	free(why);
	close(fd);
	return r;
}

static void read_one(size_t i, unsigned worker, void *data)
{
	struct reader *rd = data;
	struct one o = { rd, rd->todo[i], NULL, 0 };
	struct audit_pkg *p = o.p;
	struct pkg_ftypes *types = NULL;
	struct pkg_files_facts f;
	struct pkg_file pf;
	char *error = NULL;

	if (!rd->ts[worker])
		rd->ts[worker] = pkg_ts_new(rd->a->o.root);
	if (!rd->ts[worker]) {
		audit_pkg_error(p, "cannot create an rpm transaction set");
		goto out;
	}
	if (open_pkg(rd->ts[worker], p, &pf, &error) < 0) {
		p->sig = pf.sig;
		audit_pkg_error(p, "%s", error);
		free(error);
		goto out;
	}
	p->sig = pf.sig;
	take_info(p, pf.h);
	types = pkg_ftypes_new(pf.h);	/* a module can hide under any name: its type says */
	pkg_files_scan(pf.files, types, &f);
	p->has_modules = f.n_modules > 0;
	p->oot_modules = f.oot;
	p->has_kernel_files = f.kernel_files && !f.oot;
	if (p->has_kernel_files && !p->krel) {
		char rel[256];

		/* a kernel: what it does to the root's modules is said too (audit_kupdate.c) */
		if (pkg_files_kernel_release(pf.files, rel, sizeof(rel)) && !(p->krel = strdup(rel)))
			audit_pkg_error(p, "out of memory");
	}
	/* kernel files are registered once every module was seen: the oot rule needs them all */
	if (rd->modules && f.kernel_files)
		pkg_files_each(pf.files, types, PKG_KIND_BIT(PKG_SYMVERS) | PKG_KIND_BIT(PKG_CONFIG),
			       register_kernel_file, &o);
	if ((rd->modules && p->has_modules) || (!rd->modules && p->read_payload && p->has_kernel_files))
		stream(&o, &pf, &f, types);
	if (rd->modules && p->has_modules && !p->error)
		p->modules_read = true;
	pkg_file_close(&pf);
	pkg_ftypes_free(types);
out:
	rd->decodes[i] = o.d;
	pthread_mutex_lock(&rd->mu);
	rd->done++;
	rd->mods += o.seen;
	pthread_mutex_unlock(&rd->mu);
	progress(rd, false);
}

/* The modules read for @p, in payload order, become its module entries. */
static void take_modules(struct audit_pkg *p, struct pkg_decode *d)
{
	struct pkg_decoded *v;
	size_t n;

	if (pkg_decode_take(d, &v, &n) < 0) {
		audit_pkg_error(p, "out of memory");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		struct audit_module *am = audit_pkg_add_module(p, v[i].path);

		if (!am) {
			audit_pkg_error(p, "out of memory");
			continue;
		}
		am->m = v[i].m;
		am->error = v[i].r < 0 ? v[i].error : NULL;
		if (v[i].r >= 0)
			free(v[i].error);
		v[i].m = NULL;
		v[i].error = NULL;
	}
	pkg_decoded_free(v, n);
}

void audit_read(struct audit *a, struct audit_pkg **todo, size_t n, bool modules)
{
	unsigned jobs = a->o.jobs ? a->o.jobs : 1;
	struct reader rd = { .a = a, .todo = todo, .n = n, .modules = modules };

	if (!n)
		return;
	pthread_mutex_init(&rd.mu, NULL);
	clock_gettime(CLOCK_MONOTONIC, &rd.last);
	rd.q = tg_workq_new(jobs, QUEUE_MAX_BYTES);
	rd.ts = calloc(jobs, sizeof(*rd.ts));
	rd.decodes = calloc(n, sizeof(*rd.decodes));
	if (!rd.q || !rd.ts || !rd.decodes) {
		for (size_t i = 0; i < n; i++)
			audit_pkg_error(todo[i], "out of memory");
		goto out;
	}
	tg_workq_run(rd.q, n, read_one, &rd);
	for (size_t i = 0; i < n; i++) {
		if (rd.decodes[i])
			take_modules(todo[i], rd.decodes[i]);
		/* candidates that were none (a plain .o, a text tutor.ko): a package without modules */
		if (todo[i]->modules_read && !todo[i]->n_mods && !todo[i]->error)
			todo[i]->has_modules = false;
	}
	progress(&rd, true);
out:
	tg_workq_finish(rd.q);
	for (unsigned t = 0; rd.ts && t < jobs; t++)
		if (rd.ts[t])
			rpmtsFree(rd.ts[t]);
	free(rd.ts);
	free(rd.decodes);
	pthread_mutex_destroy(&rd.mu);
}
