/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taintguard audit: the packages and modules of an audit. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"

/* Packages are added from several threads (repository scan, rpmdb): one lock. */
static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

struct audit_pkg *audit_pkg_new(struct audit *a)
{
	struct audit_pkg *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->fd = -1;
	pthread_mutex_lock(&model_lock);
	if (a->n_pkgs == a->cap_pkgs) {
		size_t nc = a->cap_pkgs ? a->cap_pkgs * 2 : 32;
		struct audit_pkg **nv = realloc(a->pkgs, nc * sizeof(*nv));

		if (!nv) {
			pthread_mutex_unlock(&model_lock);
			free(p);
			return NULL;
		}
		a->pkgs = nv;
		a->cap_pkgs = nc;
	}
	a->pkgs[a->n_pkgs++] = p;
	pthread_mutex_unlock(&model_lock);
	return p;
}

struct audit_module *audit_pkg_add_module(struct audit_pkg *p, const char *path)
{
	struct audit_module *m;

	if (p->n_mods == p->cap_mods) {
		size_t nc = p->cap_mods ? p->cap_mods * 2 : 8;
		struct audit_module **nv = realloc(p->mods, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		p->mods = nv;
		p->cap_mods = nc;
	}
	m = calloc(1, sizeof(*m));
	if (!m || !(m->path = strdup(path))) {
		free(m);
		return NULL;
	}
	p->mods[p->n_mods++] = m;
	return m;
}

void audit_pkg_error(struct audit_pkg *p, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	if (p->error)	/* keep the first cause */
		return;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	p->error = s ? s : strdup("error");
}

bool audit_pkg_listed(const struct audit_pkg *p)
{
	return p->n_mods || p->error || p->has_modules || p->unowned;
}

void audit_kernel_file(struct audit *a, struct audit_pkg *p, const char *path,
		       const struct pkg_class *c, void *data, size_t len)
{
	int r = pkg_kernelset_add(a->ks, path, c, p->nevra, p->file ? p->file : p->location, p,
				  p->oot_modules, data, len);

	/* a package cannot vouch for its own modules */
	if (r == -EPERM)
		cli_error("%s: %s: not used for kernel %s: the package also ships out-of-tree "
			  "modules", p->file ? p->file : p->location ? p->location : "?", path,
			  c->release);
	else if (r == -ENOMEM)
		audit_pkg_error(p, "out of memory");
}

void audit_module_free(struct audit_module *m)
{
	if (!m)
		return;
	free(m->path);
	free(m->disk_path);
	free(m->link_target);
	tg_module_free(m->m);
	free(m->error);
	free(m->release);
	tg_verdict_free_contents(&m->v);
	free(m);
}

void audit_pkg_free(struct audit_pkg *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_mods; i++)
		audit_module_free(p->mods[i]);
	free(p->mods);
	free(p->file), free(p->location), free(p->name), free(p->nevra), free(p->license);
	free(p->sig_info), free(p->error), free(p->targets);
	free(p->checksum), free(p->base), free(p->url), free(p->krel);
	if (p->fd >= 0)
		close(p->fd);
	free(p);
}

void audit_free(struct audit *a)
{
	for (size_t i = 0; i < a->n_pkgs; i++)
		audit_pkg_free(a->pkgs[i]);
	free(a->pkgs);
	a->pkgs = NULL;
	a->n_pkgs = 0;
	pkg_kernelset_free(a->ks);
	a->ks = NULL;
	pkg_owners_free(&a->owners);
}

bool audit_progress_due(struct timespec *last, const struct timespec *now)
{
	if ((now->tv_sec - last->tv_sec) * 1000000000L + (now->tv_nsec - last->tv_nsec) < 100000000L)
		return false;
	*last = *now;
	return true;
}
