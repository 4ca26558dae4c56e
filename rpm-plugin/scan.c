/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding kernel modules in the transaction's packages: a cheap look at the
 * header's file list, then the payload read in tsm_pre through the
 * application's callback (as rpm's own verify step does), so that verdicts
 * exist before anything is written.  The reading itself is pkg/'s.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rpm/header.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>
#include <rpm/rpmts.h>

#include "tgp.h"

/* Compressed module bytes waiting for a worker, at most (bounds rpm's memory). */
#define DECODE_QUEUE_BYTES (32u << 20)

static void mod_error(struct tgp_pkg *pkg, const char *path, const char *msg)
{
	tgp_mod_add(&pkg->mods, &pkg->n_mods, path, NULL, msg);
}

double tgp_now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One package's payload being read. */
struct scan {
	struct tgp_state *st;
	struct tgp_pkg *pkg;
	struct pkg_decode *d;
	size_t nmods;
	double t0;
};

/*
 * Per-package limits: a package with more module files than
 * %_taintguard_max_modules, or whose payload takes longer than
 * %_taintguard_max_seconds to read, gets an error entry (judged by the
 * policy's "unreadable" rule) and the rest of its payload is not read.
 * Returns that entry's message (malloc'ed), or NULL within the limits.
 */
static char *over_limit(const struct scan *s)
{
	char lim[32];

	if (s->nmods > s->st->max_modules) {
		snprintf(lim, sizeof(lim), "%zu", s->st->max_modules);
		return rstrscat(NULL, "more than ", lim, " kernel module files (limit "
				"%_taintguard_max_modules); the rest was not checked", NULL);
	}
	if (tgp_now_seconds() - s->t0 > (double)s->st->max_seconds) {
		snprintf(lim, sizeof(lim), "%u", s->st->max_seconds);
		return rstrscat(NULL, "reading the payload took longer than ", lim, " s (limit "
				"%_taintguard_max_seconds); the rest was not checked", NULL);
	}
	return NULL;
}

/* A kernel's export table or .config: never a finding, kept for judging. */
static void kernel_file(struct scan *s, struct pkg_member *m)
{
	int r;

	if (!m->data) {
		rpmlog(RPMLOG_WARNING, "taintguard: %s: %s: %s\n", s->pkg->nevra, m->path, m->error);
		return;
	}
	r = pkg_kernelset_add(s->st->ks, m->path, m->cls, s->pkg->nevra, NULL, s->pkg,
			      s->pkg->oot, m->data, m->len);
	if (r == -EPERM)	/* a package cannot vouch for its own modules */
		rpmlog(RPMLOG_WARNING, "taintguard: %s: %s: not used for kernel %s: the package "
		       "also ships out-of-tree modules\n", s->pkg->nevra, m->path, m->cls->release);
	else if (r == 0)
		rpmlog(RPMLOG_DEBUG, "taintguard: kernel %s %s from %s:%s\n", m->cls->release,
		       m->cls->kind == PKG_CONFIG ? ".config" : m->cls->kind == PKG_IMAGE ? "image" :
		       m->cls->kind == PKG_SYSMAP ? "System.map" : "exports", s->pkg->nevra, m->path);
}

static int on_member(void *ctx, struct pkg_member *m)
{
	struct scan *s = ctx;
	char *msg;

	if (m->cls->kind != PKG_MODULE) {
		kernel_file(s, m);
		return 0;
	}
	s->nmods++;
	if ((msg = over_limit(s)) != NULL) {
		pkg_decode_error(s->d, "(package)", msg);
		free(msg);
		free(m->data);
		return -ECANCELED;	/* stopped on purpose; the error entry decides */
	}
	if (!m->data) {
		pkg_decode_error(s->d, m->path, m->err == -EFBIG ?
				 "file is larger than the cap %_taintguard_max_module_size" :
				 m->error);
		return 0;
	}
	pkg_decode_push(s->d, m->path, m->data, m->len);
	return 0;
}

/* The modules read, in payload order, become the package's entries. */
static void take_modules(struct tgp_pkg *pkg, struct pkg_decode *d)
{
	struct pkg_decoded *v;
	size_t n;

	if (pkg_decode_take(d, &v, &n) < 0) {
		mod_error(pkg, "(package)", "out of memory while reading the payload");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		tgp_mod_add(&pkg->mods, &pkg->n_mods, v[i].path, v[i].m, v[i].error);
		v[i].m = NULL;	/* taken */
	}
	pkg_decoded_free(v, n);
}

/* Read @pkg's payload from @fd (positioned after the header @h, read again by tgp_prescan). */
static void scan_payload(struct tgp_state *st, struct tgp_pkg *pkg, FD_t fd, Header h)
{
	struct pkg_payload_opts po = {
		.kinds = PKG_KIND_BIT(PKG_MODULE) | PKG_KIND_BIT(PKG_SYMVERS) |
			 PKG_KIND_BIT(PKG_CONFIG) | PKG_KIND_BIT(PKG_IMAGE) |
			 PKG_KIND_BIT(PKG_SYSMAP),
		.max_size = {
			[PKG_MODULE] = st->lim.max_input_size,
			[PKG_SYMVERS] = st->lim.max_symvers_size,
			[PKG_CONFIG] = st->lim.max_input_size,
			/* a kernel being installed: its keys verify module signatures */
			[PKG_IMAGE] = st->lim.max_input_size,
			[PKG_SYSMAP] = st->lim.max_input_size,
		},
		.types = pkg->types,
	};
	struct scan s = { st, pkg, NULL, 0, tgp_now_seconds() };
	struct tg_workq *q = NULL;
	rpmfiles files = NULL;
	char *error = NULL;
	int r;

	if (!h) {
		mod_error(pkg, "(package)", "cannot read the package header");
		goto exit;
	}
	files = rpmteFiles(pkg->te);
	/*
	 * The module parsers' spawner, started by the first package with module
	 * candidates (a transaction without any forks nothing), while rpm has
	 * one thread: no decoding thread runs yet.
	 */
	if ((r = tg_reader_init()) < 0)
		rpmlog(RPMLOG_WARNING, "taintguard: cannot start the module parser's process: %s; "
		       "the modules of %s are unreadable\n", strerror(-r), pkg->nevra);
	q = tg_workq_new(st->jobs, DECODE_QUEUE_BYTES);
	s.d = q ? pkg_decode_new(q, &st->lim) : NULL;
	if (!files || !s.d) {
		mod_error(pkg, "(payload)", files ? "out of memory" : "cannot open the payload");
		goto exit;
	}
	r = pkg_payload_read(fd, h, files, &po, on_member, &s, &error);
	pkg_decode_flush(s.d);
	tg_workq_finish(q);	/* every module read */
	q = NULL;
	take_modules(pkg, s.d);
	s.d = NULL;
	if (r < 0 && error)
		mod_error(pkg, "(payload)", error);
	pkg->scanned = true;
exit:
	free(error);
	tg_workq_finish(q);
	if (s.d)	/* never pushed to: nothing in flight */
		take_modules(pkg, s.d);
	if (!pkg->scanned)
		pkg->scanned = pkg->n_mods > 0;	/* the error entry decides */
	rpmfilesFree(files);
}

/*
 * The header of the package at @fd read again, for what the element's file
 * list lacks: the file types.  NULL when it cannot be read (rpm's verify
 * step read it just before: this does not happen in practice).  Read
 * quickly: most packages need nothing else of their file.
 */
static Header reread(rpmts ts, rpmte te, FD_t fd, struct pkg_ftypes **types)
{
	Header h = NULL;

	*types = NULL;
	if (pkg_header_quick(ts, fd, rpmteNEVRA(te), &h) < 0)
		return NULL;
	*types = pkg_ftypes_new(h);
	return h;
}

/* The payload follows the header: read in full again, which leaves @fd there. */
static Header payload_header(rpmts ts, struct tgp_pkg *pkg, FD_t fd, Header quick)
{
	Header h = NULL;

	if (!quick || pkg_header_reread(ts, fd, pkg->nevra, &h) < 0)
		return NULL;
	return h;
}

/*
 * Every added package's header is read again through the application's
 * callback (as rpm's own verify step does): a module can hide under any
 * name, and only the header's file types (libmagic's class or MIME type)
 * say which files are ELF relocatable objects.  Only a package with module
 * candidates (by name, place or type) or kernel files has its payload read.
 */
void tgp_prescan(struct tgp_state *st, rpmts ts)
{
	rpmtsi pi = rpmtsiInit(ts);
	rpmte te;

	while ((te = rpmtsiNext(pi, TR_ADDED)) != NULL) {
		rpmfiles files = rpmteFiles(te);
		struct pkg_ftypes *types = NULL;
		struct pkg_files_facts f;
		struct tgp_pkg *pkg;
		Header h = NULL;
		FD_t fd;

		if (!files)
			continue;
		fd = rpmtsNotify(ts, te, RPMCALLBACK_INST_OPEN_FILE, 0, 0);
		if (fd && !(h = reread(ts, te, fd, &types)))
			rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot read its header again: only files "
			       "named or placed as modules are checked\n", rpmteNEVRA(te));
		tgp_closure_header(st->closure, te, h);	/* its requirements and provides */
		pkg_files_scan(files, types, &f);
		rpmfilesFree(files);
		/* the common case: costs a header read; without a package file, see psm_pre */
		if (fd && f.n_modules == 0 && !f.kernel_files) {
			pkg_ftypes_free(types);
			headerFree(h);
			rpmtsNotify(ts, te, RPMCALLBACK_INST_CLOSE_FILE, 0, 0);
			continue;
		}
		pkg = tgp_pkg_add(st, te);
		if (pkg) {
			pkg->oot = f.oot;
			pkg->bs_expected = f.n_prepared;
			pkg->types = types;
			types = NULL;
		}
		if (pkg && fd == NULL) {
			rpmlog(RPMLOG_DEBUG, "taintguard: %s: no package fd from the application, "
			       "checking modules as they are unpacked\n", pkg->nevra);
			pkg->types_pending = true;
		} else if (pkg) {
			rpmlog(RPMLOG_DEBUG, "taintguard: %s: reading its payload: %zu module "
			       "candidate(s)%s\n", pkg->nevra, f.n_modules,
			       f.kernel_files ? ", kernel files" : "");
			Header full = payload_header(ts, pkg, fd, h);

			scan_payload(st, pkg, fd, full);
			headerFree(full);
		}
		pkg_ftypes_free(types);
		headerFree(h);
		if (fd)
			rpmtsNotify(ts, te, RPMCALLBACK_INST_CLOSE_FILE, 0, 0);
	}
	rpmtsiFree(pi);
}
