/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: judge every kernel module in a set of packages (.rpm
 * files, directories of them, yum/dnf repositories, or the installed system)
 * as one set, offline, and report per package.
 *
 * Threads: one pool of --jobs workers.  A worker takes a package, reads its
 * header (one rpmts per thread) and streams its payload; each module file
 * read from the payload becomes a decode task (decompression and ELF reading,
 * the expensive part) on a bounded queue that every worker drains first, so
 * one large package still keeps all cores busy and memory stays bounded.
 * Results land in per-module slots; everything after the pool (target
 * kernels, the set, the reports) runs on sorted data, so the output does not
 * depend on --jobs.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"

/* Queue limits: bytes of compressed modules waiting to be decoded. */
#define QUEUE_MAX_TASKS 64
#define QUEUE_MAX_BYTES (16u << 20)

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static void audit_usage(FILE *out)
{
	fputs("Usage: taintguard audit [OPTIONS] PATH...\n"
	      "       taintguard audit [OPTIONS] --installed [--root DIR]\n\n"
	      "Audit the kernel modules carried by packages, offline: a .rpm file, a directory\n"
	      "of .rpm files (recursive), or a yum/dnf repository (a directory with repodata/,\n"
	      "whose filelists metadata is used to open only packages that carry modules).\n"
	      "Payloads are streamed in memory, never extracted.  All modules of all packages\n"
	      "are judged as one set: a GPL module importing from a proprietary module in\n"
	      "another package is refused as the kernel (5.9+) would.\n\n"
	      "A package whose payload is corrupt (archive error, file digest mismatch), whose\n"
	      "header digest fails, or whose module cannot be read is an error, never clean.\n"
	      "Signatures are reported (ok, nokey, nottrusted, unsigned); an unknown key is\n"
	      "not an error.\n\n"
	      "Target kernel of a module: --kernel, else the KVER of its /lib/modules/KVER/\n"
	      "path, else its vermagic.  That kernel's exports come from the audited packages\n"
	      "themselves (/usr/src/kernels/KVER/Module.symvers, /lib/modules/KVER/symvers.gz,\n"
	      "/boot/symvers-KVER.gz, /usr/src/linux-headers-KVER/Module.symvers), else from\n"
	      "the host (or --root), else from --symvers.\n\n"
	      "Options:\n"
	      "  -k, --kernel KVER        judge every module against kernel release KVER\n"
	      "  -s, --symvers FILE       Module.symvers for kernels found nowhere else\n"
	      "  -c, --config FILE        the kernel's .config\n"
	      "  -r, --root DIR           host files (and with --installed the rpmdb and\n"
	      "                           /lib/modules) below DIR instead of /\n"
	      "      --installed          audit the installed system: packages in the rpmdb that\n"
	      "                           own modules, and modules no package owns (DKMS output,\n"
	      "                           weak-updates links), reported as unowned\n"
	      "      --dbpath DIR         rpm database (keyring for signatures; --installed)\n"
	      "  -p, --policy FILE        policy (default: " TG_SYSCONFDIR "/policy.yaml, else\n"
	      "                           " TG_DATADIR "/default.yaml)\n"
	      "  -f, --format FMT         text (default), json, junit or sarif\n"
	      "  -x, --excludes           print only 'excludepkgs=NEVRA,...' of denied packages\n"
	      "                           (a line for dnf.conf or a .repo file)\n"
	      "  -j, --jobs N             threads (default: number of CPUs)\n"
	      "  -M, --max-module-size N  refuse modules larger than N bytes decompressed\n"
	      "  -L, --limit NAME=N       set a resource limit (repeatable; names and defaults\n"
	      "                           in taintguard(1), LIMITS)\n"
	      "  -q, --quiet              no progress bar\n"
	      "  -v, --verbose            list every symbol and remedy; show librpm messages\n"
	      "  -h, --help               show this help\n\n"
	      "Exit codes: 0 all allowed, 1 something marked and nothing denied,\n"
	      "2 something denied, 3 usage error or a package/module that could not be read.\n", out);
}

/* ------------------------------------------------------------ model */

static pthread_mutex_t model_lock = PTHREAD_MUTEX_INITIALIZER;

struct audit_pkg *audit_pkg_new(struct audit *a)
{
	struct audit_pkg *p;

	if (a->n_pkgs == a->cap_pkgs) {
		size_t nc = a->cap_pkgs ? a->cap_pkgs * 2 : 32;
		struct audit_pkg **nv = realloc(a->pkgs, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		a->pkgs = nv;
		a->cap_pkgs = nc;
	}
	p = calloc(1, sizeof(*p));
	if (p)
		a->pkgs[a->n_pkgs++] = p;
	return p;
}

int audit_pkg_add_module(struct audit_pkg *p, struct audit_module *m)
{
	if (p->n_mods == p->cap_mods) {
		size_t nc = p->cap_mods ? p->cap_mods * 2 : 8;
		struct audit_module **nv = realloc(p->mods, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		p->mods = nv;
		p->cap_mods = nc;
	}
	p->mods[p->n_mods++] = m;
	return 0;
}

int audit_sv_add(struct audit *a, const char *release, int prio, const char *path,
		 struct audit_pkg *pkg)
{
	int r = 0;

	if (pkg && pkg->oot_modules) {	/* a package cannot vouch for its own modules */
		cli_error("%s: %s: not used for kernel %s: the package also ships out-of-tree "
			  "modules", pkg->file ? pkg->file : "?", path, release);
		return 0;
	}
	pthread_mutex_lock(&model_lock);
	for (size_t i = 0; i < a->n_sv; i++)
		if (a->sv[i].pkg == pkg && !strcmp(a->sv[i].path, path))
			goto out;
	if (a->n_sv == a->cap_sv) {
		size_t nc = a->cap_sv ? a->cap_sv * 2 : 8;
		struct sv_file *nv = realloc(a->sv, nc * sizeof(*nv));

		if (!nv) {
			r = -ENOMEM;
			goto out;
		}
		a->sv = nv;
		a->cap_sv = nc;
	}
	a->sv[a->n_sv] = (struct sv_file){ strdup(release), prio, strdup(path), pkg, NULL, 0,
					   prio >= 100 };
	a->n_sv++;
out:
	pthread_mutex_unlock(&model_lock);
	return r;
}

bool audit_pkg_listed(const struct audit_pkg *p)
{
	return p->n_mods || p->error || p->has_modules || p->unowned;
}

static void module_free(struct audit_module *m)
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
		module_free(p->mods[i]);
	free(p->mods);
	free(p->file), free(p->location), free(p->name), free(p->nevra), free(p->license);
	free(p->sig_info), free(p->error), free(p->targets);
	free(p);
}

/* ------------------------------------------------------------- pool */

struct dtask {
	struct audit_module *am;
	void *data;
	size_t len;
};

struct pool {
	struct audit *a;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct audit_pkg **todo;	/* package tasks */
	size_t n_todo, next;
	struct dtask q[QUEUE_MAX_TASKS];
	size_t qhead, qn, qbytes;
	unsigned readers;		/* workers inside a package */
	struct payload_sink sink;
	/* progress */
	size_t pkgs_done, mods_done, mods_seen;
	struct timespec last;
	bool progress;
};

static void progress(struct pool *pl, bool final)
{
	struct timespec now;

	if (!pl->progress)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!final && (now.tv_sec - pl->last.tv_sec) * 1000000000L + (now.tv_nsec - pl->last.tv_nsec) < 100000000L)
		return;
	pl->last = now;
	if (final) {
		fputs("\r\033[K", stderr);
	} else {
		unsigned width = 30, fill = pl->n_todo ? (unsigned)(pl->pkgs_done * width / pl->n_todo) : 0;
		char bar[64];

		memset(bar, '#', fill);
		memset(bar + fill, '.', width - fill);
		bar[width] = 0;
		fprintf(stderr, "\r\033[Kaudit [%s] %zu/%zu packages, %zu/%zu modules",
			bar, pl->pkgs_done, pl->n_todo, pl->mods_done, pl->mods_seen);
	}
	fflush(stderr);
}

static void decode(const struct audit *a, struct dtask *t)
{
	struct tg_error err = { 0 };
	struct audit_module *am = t->am;

	if (tg_module_open_mem(t->data, t->len, am->path, &a->o.limits, &am->m, &err) < 0) {
		am->m = NULL;
		am->error = strdup(err.msg[0] ? err.msg : "cannot read module");
	}
	free(t->data);
	t->data = NULL;
}

/* Called with pl->mu held; releases it while decoding. */
static void run_one_task(struct pool *pl)
{
	struct dtask t = pl->q[pl->qhead];

	pl->qhead = (pl->qhead + 1) % QUEUE_MAX_TASKS;
	pl->qn--;
	pl->qbytes -= t.len;
	pthread_cond_broadcast(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
	decode(pl->a, &t);
	pthread_mutex_lock(&pl->mu);
	pl->mods_done++;
	progress(pl, false);
}

static void sink_module(void *ctx, struct audit_pkg *p, const char *path, void *data, size_t len,
			const char *error)
{
	struct pool *pl = ctx;
	struct audit_module *am = calloc(1, sizeof(*am));

	if (!am || audit_pkg_add_module(p, am) < 0 || !(am->path = strdup(path))) {
		free(am);
		free(data);
		if (!p->error)
			p->error = strdup("out of memory");
		return;
	}
	pthread_mutex_lock(&pl->mu);
	pl->mods_seen++;
	if (!data) {
		am->error = strdup(error ? error : "cannot read module");
		pl->mods_done++;
		pthread_mutex_unlock(&pl->mu);
		return;
	}
	/* Full queue: help instead of waiting (bounded memory, no deadlock). */
	while (pl->qn == QUEUE_MAX_TASKS || (pl->qn && pl->qbytes + len > QUEUE_MAX_BYTES))
		run_one_task(pl);
	pl->q[(pl->qhead + pl->qn) % QUEUE_MAX_TASKS] = (struct dtask){ am, data, len };
	pl->qn++;
	pl->qbytes += len;
	pthread_cond_signal(&pl->cv);
	pthread_mutex_unlock(&pl->mu);
}

static void sink_symvers(void *ctx, struct audit_pkg *p, const char *path, const char *release,
			 int prio, void *data, size_t len)
{
	struct pool *pl = ctx;
	struct audit *a = pl->a;
	bool stored = false;

	audit_sv_add(a, release, prio, path, p);
	pthread_mutex_lock(&model_lock);
	for (size_t i = 0; i < a->n_sv; i++)
		if (a->sv[i].pkg == p && !strcmp(a->sv[i].path, path) && !a->sv[i].data) {
			a->sv[i].data = data;
			a->sv[i].len = len;
			stored = true;
			break;
		}
	pthread_mutex_unlock(&model_lock);
	if (!stored)
		free(data);
}

static void *pool_worker(void *arg)
{
	struct pool *pl = arg;
	void *ts = NULL;

	pthread_mutex_lock(&pl->mu);
	for (;;) {
		if (pl->qn) {
			run_one_task(pl);
			continue;
		}
		if (pl->next < pl->n_todo) {
			struct audit_pkg *p = pl->todo[pl->next++];

			pl->readers++;
			pthread_mutex_unlock(&pl->mu);
			if (!ts)
				ts = rpm_ts_new(pl->a);
			if (ts)
				rpm_read_package(ts, pl->a, p, &pl->sink);
			else if (!p->error)
				p->error = strdup("cannot create an rpm transaction set");
			pthread_mutex_lock(&pl->mu);
			pl->readers--;
			pl->pkgs_done++;
			progress(pl, false);
			pthread_cond_broadcast(&pl->cv);
			continue;
		}
		if (!pl->readers)
			break;
		pthread_cond_wait(&pl->cv, &pl->mu);
	}
	pthread_mutex_unlock(&pl->mu);
	rpm_ts_free(ts);
	return NULL;
}

static void pool_run(struct audit *a, struct audit_pkg **todo, size_t n, bool modules)
{
	struct pool pl = { .a = a, .todo = todo, .n_todo = n };
	pthread_t th[256];
	unsigned started = 0, jobs = a->o.jobs;

	if (!n)
		return;
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pl.sink = (struct payload_sink){ sink_module, sink_symvers, &pl, modules, true, !modules };
	pl.progress = a->progress;
	clock_gettime(CLOCK_MONOTONIC, &pl.last);
	for (unsigned t = 1; t < jobs && t < 256; t++)
		if (pthread_create(&th[started], NULL, pool_worker, &pl) == 0)
			started++;
	pool_worker(&pl);
	for (unsigned t = 0; t < started; t++)
		pthread_join(th[t], NULL);
	pthread_mutex_lock(&pl.mu);
	progress(&pl, true);
	pthread_mutex_unlock(&pl.mu);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
}

/* --------------------------------------------------------- inputs */

static int add_rpm_file(struct audit *a, const char *path)
{
	struct audit_pkg *p = audit_pkg_new(a);

	if (!p || !(p->file = strdup(path)))
		return -ENOMEM;
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

static bool has_suffix(const char *s, const char *sfx)
{
	size_t n = strlen(s), l = strlen(sfx);

	return n >= l && !strcmp(s + n - l, sfx);
}

static int walk_rpms(struct audit *a, const char *dir, int depth)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d;
	int r = 0;

	if (depth > 64)
		return 0;
	d = opendir(dir);
	if (!d) {
		cli_error("%s: %s", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nv = realloc(names, (cap = cap ? cap * 2 : 64) * sizeof(char *));

			if (!nv) {
				r = -ENOMEM;
				break;
			}
			names = nv;
		}
		names[n++] = xasprintf("%s/%s", dir, de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n && r == 0; i++) {
		struct stat st;

		if (!names[i] || lstat(names[i], &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			r = walk_rpms(a, names[i], depth + 1);
		else if (has_suffix(names[i], ".rpm") && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			r = add_rpm_file(a, names[i]);
	}
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return r;
}

static int collect_input(struct audit *a, const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode))
		return repo_detect(path) ? repo_scan(a, path) : walk_rpms(a, path, 0);
	return add_rpm_file(a, path);
}

/* ------------------------------------------------------- --installed */

static char *root_path(const struct audit *a, const char *path)
{
	const char *root = a->o.root && strcmp(a->o.root, "/") ? a->o.root : "";

	return xasprintf("%s%s", root, path);
}

/* Follow a symlink chain inside the root (absolute targets are root-relative). */
static char *resolve_in_root(const struct audit *a, const char *path, char **first_target)
{
	char *cur = strdup(path);

	*first_target = NULL;
	for (int hop = 0; cur && hop < 40; hop++) {
		char *disk = root_path(a, cur), tgt[PATH_MAX], *next;
		ssize_t n;

		if (!disk)
			break;
		n = readlink(disk, tgt, sizeof(tgt) - 1);
		free(disk);
		if (n < 0)
			break;
		tgt[n] = 0;
		if (!*first_target)
			*first_target = strdup(tgt);
		if (tgt[0] == '/') {
			next = strdup(tgt);
		} else {
			char *slash = strrchr(cur, '/');

			*slash = 0;
			next = xasprintf("%s/%s", cur, tgt);
		}
		free(cur);
		cur = next;
	}
	if (!cur)
		return NULL;
	{
		char *disk = root_path(a, cur);

		free(cur);
		return disk;
	}
}

/* /usr/lib/modules and /lib/modules are the same place on merged-/usr systems. */
static const char *norm_modpath(const char *p)
{
	return strncmp(p, "/usr/lib/modules/", 17) ? p : p + 4;
}

static int cmp_norm(const void *x, const void *y)
{
	return strcmp(norm_modpath(*(char *const *)x), norm_modpath(*(char *const *)y));
}

static void walk_modules(const struct audit *a, const char *rel, struct file_list *out, int depth)
{
	char *disk = root_path(a, rel);
	struct dirent *de;
	DIR *d;

	if (!disk || depth > 16)
		goto out;
	d = opendir(disk);
	if (!d)
		goto out;
	while ((de = readdir(d))) {
		char *child, *cdisk;
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		child = xasprintf("%s/%s", rel, de->d_name);
		cdisk = child ? root_path(a, child) : NULL;
		if (cdisk && lstat(cdisk, &st) == 0) {
			/* build/ and source/ point into kernel trees: not modules */
			if (S_ISDIR(st.st_mode))
				walk_modules(a, child, out, depth + 1);
			else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && tg_module_file_name(de->d_name)) {
				if (out->n == out->cap) {
					size_t nc = out->cap ? out->cap * 2 : 64;
					char **nv = realloc(out->v, nc * sizeof(char *));

					if (nv) {
						out->v = nv;
						out->cap = nc;
					}
				}
				if (out->n < out->cap)
					out->v[out->n++] = strdup(child);
			}
		}
		free(child);
		free(cdisk);
	}
	closedir(d);
out:
	free(disk);
}

struct inst_job {
	struct audit_module **mods;
	const struct tg_limits *lim;
};

static void open_installed(size_t i, unsigned worker, void *data)
{
	(void)worker;
	struct inst_job *j = data;
	struct audit_module *am = j->mods[i];
	struct tg_error err = { 0 };

	if (!am->disk_path) {
		am->error = strdup("out of memory");
		return;
	}
	if (tg_module_open_path(am->disk_path, j->lim, &am->m, &err) < 0) {
		am->m = NULL;
		am->error = strdup(err.msg[0] ? err.msg : "cannot read module");
	}
}

static int scan_installed(struct audit *a)
{
	struct file_list found = { 0 };
	char **owned = NULL;
	size_t n_owned = 0, n_all = 0;
	struct audit_module **all;
	struct audit_pkg *unowned = NULL;
	struct stat st1, st2;
	char *d1, *d2;
	int r = rpm_scan_installed(a);

	if (r < 0)
		return r;
	for (size_t i = 0; i < a->n_pkgs; i++)
		n_owned += a->pkgs[i]->n_mods;
	owned = calloc(n_owned ? n_owned : 1, sizeof(char *));
	if (!owned)
		return -ENOMEM;
	n_owned = 0;
	for (size_t i = 0; i < a->n_pkgs; i++)
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++)
			owned[n_owned++] = a->pkgs[i]->mods[j]->path;
	qsort(owned, n_owned, sizeof(char *), cmp_norm);

	walk_modules(a, "/lib/modules", &found, 0);
	d1 = root_path(a, "/lib/modules");
	d2 = root_path(a, "/usr/lib/modules");
	if (d1 && d2 && stat(d2, &st2) == 0 &&
	    (stat(d1, &st1) < 0 || st1.st_ino != st2.st_ino || st1.st_dev != st2.st_dev))
		walk_modules(a, "/usr/lib/modules", &found, 0);
	free(d1);
	free(d2);
	for (size_t i = 0; i < found.n; i++) {
		const char *key = found.v[i];
		struct audit_module *m;
		struct stat st;
		char *disk = root_path(a, key);
		bool is_link = disk && lstat(disk, &st) == 0 && S_ISLNK(st.st_mode);

		free(disk);
		/* A weak-updates link is never the owned file itself: always reported. */
		if (!is_link && bsearch(&key, owned, n_owned, sizeof(char *), cmp_norm))
			continue;
		if (!unowned) {
			unowned = audit_pkg_new(a);
			if (!unowned) {
				r = -ENOMEM;
				break;
			}
			unowned->unowned = true;
			unowned->installed = true;
			unowned->has_modules = true;
		}
		m = calloc(1, sizeof(*m));
		if (!m || audit_pkg_add_module(unowned, m) < 0) {
			free(m);
			r = -ENOMEM;
			break;
		}
		m->path = strdup(key);
	}
	free(owned);
	file_list_free(&found);
	if (r < 0)
		return r;

	/* Resolve disk paths and read every module (installed files, not payloads). */
	for (size_t i = 0; i < a->n_pkgs; i++)
		n_all += a->pkgs[i]->n_mods;
	all = calloc(n_all ? n_all : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	n_all = 0;
	for (size_t i = 0; i < a->n_pkgs; i++)
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++) {
			struct audit_module *m = a->pkgs[i]->mods[j];

			m->disk_path = resolve_in_root(a, m->path, &m->link_target);
			all[n_all++] = m;
		}
	tg_parallel(n_all, a->o.jobs, open_installed, &(struct inst_job){ all, &a->o.limits });
	free(all);
	return 0;
}

/* ----------------------------------------------------- target kernels */

struct kslot {
	char *release;		/* NULL = unknown */
	struct tg_kernel *k;
	char *label;		/* symvers label for reports */
	char *config_label;	/* the set's .config used, if any */
	enum sv_source source;
};

struct kernels {
	struct kslot *v;
	size_t n, cap;
};

static int cmp_sv(const void *x, const void *y)
{
	const struct sv_file *a = x, *b = y;
	const char *na = a->pkg && a->pkg->nevra ? a->pkg->nevra : "";
	const char *nb = b->pkg && b->pkg->nevra ? b->pkg->nevra : "";
	int c = strcmp(a->release, b->release);

	if (c)
		return c;
	if (a->prio != b->prio)
		return a->prio - b->prio;
	if ((c = strcmp(na, nb)))
		return c;
	if ((c = strcmp(a->path, b->path)))
		return c;
	na = a->pkg ? a->pkg->file ? a->pkg->file : a->pkg->location : NULL;
	nb = b->pkg ? b->pkg->file ? b->pkg->file : b->pkg->location : NULL;
	return strcmp(na ? na : "", nb ? nb : "");
}

static bool release_needed(struct audit *a, const char *rel)
{
	for (size_t i = 0; i < a->n_pkgs; i++)
		for (size_t j = 0; j < a->pkgs[i]->n_mods; j++) {
			const char *r = a->pkgs[i]->mods[j]->release;

			if (r && !strcmp(r, rel))
				return true;
		}
	return false;
}

static bool release_has_data(struct audit *a, const char *rel)
{
	for (size_t i = 0; i < a->n_sv; i++)
		if (!strcmp(a->sv[i].release, rel) && a->sv[i].data && !a->sv[i].config)
			return true;
	return false;
}

/* Load the kernel for @rel: exports from the audited set, else host, else --symvers. */
static struct kslot *kernel_for(struct audit *a, struct kernels *ks, const char *rel)
{
	struct tg_kernel_opts ko = { 0 };
	struct tg_error err = { 0 };
	struct kslot *s;

	for (size_t i = 0; i < ks->n; i++)
		if (ks->v[i].release == rel || (rel && ks->v[i].release && !strcmp(ks->v[i].release, rel)))
			return &ks->v[i];
	if (ks->n == ks->cap) {
		size_t nc = ks->cap ? ks->cap * 2 : 4;
		struct kslot *nv = realloc(ks->v, nc * sizeof(*nv));

		if (!nv)
			return NULL;
		ks->v = nv;
		ks->cap = nc;
	}
	s = &ks->v[ks->n++];
	memset(s, 0, sizeof(*s));
	s->release = rel ? strdup(rel) : NULL;
	ko.root = a->o.root;
	ko.release = rel;
	ko.config_path = a->o.config;
	ko.limits = &a->o.limits;

	if (rel) {
		/* The set's own .config (kernel-devel, kernel-core) beats the host's. */
		for (size_t i = 0; i < a->n_sv && !ko.config_data && !ko.config_path; i++) {
			struct sv_file *f = &a->sv[i];

			if (f->config && f->data && !strcmp(f->release, rel)) {
				s->config_label = xasprintf("%s:%s", f->pkg && f->pkg->nevra ?
							    f->pkg->nevra : "?", f->path);
				ko.config_data = f->data;
				ko.config_len = f->len;
				ko.config_label = s->config_label;
			}
		}
		/* 1. the audited set (sv is sorted: best candidate first) */
		for (size_t i = 0; i < a->n_sv; i++) {
			struct sv_file *f = &a->sv[i];
			struct tg_symvers *sv = NULL;
			char *label;

			if (strcmp(f->release, rel) || !f->data || f->config)
				continue;
			label = xasprintf("%s:%s", f->pkg && f->pkg->nevra ? f->pkg->nevra : "?", f->path);
			if (tg_symvers_load_mem(f->data, f->len, label ? label : f->path, &a->o.limits,
						&sv, &err) < 0) {
				cli_error("%s", err.msg);
				free(label);
				continue;
			}
			if (tg_kernel_load(&ko, &s->k, &err) < 0) {
				cli_error("%s", err.msg);
				tg_symvers_free(sv);
				free(label);
				break;
			}
			/* Replace whatever the host had with the set's own table. */
			tg_symvers_free(s->k->symvers);
			s->k->symvers = sv;
			free(s->k->symvers_path);
			s->k->symvers_path = label ? strdup(label) : NULL;
			s->label = label;
			s->source = SV_PACKAGE;
			return s;
		}
		/* 2. the host (or --root) */
		if (!s->k && tg_kernel_load(&ko, &s->k, &err) < 0)
			cli_error("%s", err.msg);
		if (s->k && s->k->symvers) {
			s->label = s->k->symvers_path ? strdup(s->k->symvers_path) : strdup("host");
			s->source = SV_HOST;
			return s;
		}
	}
	/* 3. --symvers */
	if (a->o.symvers) {
		tg_kernel_free(s->k);
		s->k = NULL;
		ko.symvers_path = a->o.symvers;
		if (tg_kernel_load(&ko, &s->k, &err) < 0) {
			cli_error("%s", err.msg);
			return NULL;
		}
		s->label = strdup(a->o.symvers);
		s->source = SV_OPTION;
	}
	return s;
}

static void kernels_free(struct kernels *ks)
{
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->v[i].release);
		free(ks->v[i].label);
		free(ks->v[i].config_label);
		tg_kernel_free(ks->v[i].k);
	}
	free(ks->v);
}

/* --------------------------------------------------------- sorting */

static int cmp_pkg(const void *x, const void *y)
{
	const struct audit_pkg *a = *(struct audit_pkg *const *)x, *b = *(struct audit_pkg *const *)y;
	int c;

	if (a->unowned != b->unowned)
		return a->unowned ? 1 : -1;
	if (!a->nevra != !b->nevra)
		return a->nevra ? -1 : 1;
	if (a->nevra && (c = strcmp(a->nevra, b->nevra)))
		return c;
	return strcmp(a->file ? a->file : "", b->file ? b->file : "");
}

static int cmp_mod(const void *x, const void *y)
{
	const struct audit_module *a = *(struct audit_module *const *)x;
	const struct audit_module *b = *(struct audit_module *const *)y;

	return strcmp(a->path, b->path);
}

static void add_target(struct audit_pkg *p, const struct kslot *s)
{
	const char *rel = s ? s->release : NULL;
	struct target *nt;

	for (size_t i = 0; i < p->n_targets; i++)
		if (p->targets[i].release == rel ||
		    (rel && p->targets[i].release && !strcmp(p->targets[i].release, rel)))
			return;
	nt = realloc(p->targets, (p->n_targets + 1) * sizeof(*nt));
	if (!nt)
		return;
	p->targets = nt;
	p->targets[p->n_targets++] = (struct target){ rel, s ? s->label : NULL,
						       s ? s->source : SV_NONE,
						       s && s->k ? s->k->config_path : NULL };
}

static int cmp_target(const void *x, const void *y)
{
	const struct target *a = x, *b = y;

	if (!a->release || !b->release)
		return !a->release - !b->release;
	return strcmp(a->release, b->release);
}

/* ------------------------------------------------------------ main */

static int judge(struct audit *a, struct tg_ctx *ctx, struct kernels *ks)
{
	struct tg_set *set = tg_set_new(ctx);
	struct tg_verdict *v = NULL;
	size_t n = 0, k = 0;
	int r = -ENOMEM;

	if (!set)
		return -ENOMEM;
	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		for (size_t j = 0; j < p->n_mods; j++) {
			struct audit_module *m = p->mods[j];
			struct kslot *s = kernel_for(a, ks, m->release);

			if (!s && a->o.symvers) {
				r = -EINVAL;
				goto out;
			}
			add_target(p, s);
			if (tg_set_add(set, m->path, m->m, s ? s->k : NULL,
				       p->unowned ? NULL : p->name,
				       m->error ? m->error : m->m ? NULL : "cannot read module") < 0)
				goto out;
			n++;
		}
		if (p->n_targets > 1)
			qsort(p->targets, p->n_targets, sizeof(*p->targets), cmp_target);
	}
	v = calloc(n ? n : 1, sizeof(*v));
	if (!v || tg_set_predict(set, v) < 0)
		goto out;
	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		p->action = TG_ACTION_ALLOW;
		p->had_error = p->error != NULL;
		for (size_t j = 0; j < p->n_mods; j++) {
			struct audit_module *m = p->mods[j];

			m->v = v[k++];
			if (m->v.error)
				p->had_error = true;
			if (m->v.action > p->action)
				p->action = m->v.action;
			if (m->v.action == TG_ACTION_DENY)
				p->n_deny++;
			else if (m->v.action == TG_ACTION_MARK)
				p->n_mark++;
			if (!m->v.error && !m->v.loads)
				p->n_refused++;
			p->taint |= m->v.taint_kernel;
		}
	}
	r = 0;
out:
	if (r < 0 && v)
		for (size_t i = 0; i < n; i++)
			tg_verdict_free_contents(&v[i]);
	free(v);
	tg_set_free(set);
	return r;
}

int cmd_audit(int argc, char **argv)
{
	enum { OPT_INSTALLED = 256, OPT_DBPATH };
	static const struct option longopts[] = {
		{ "kernel", required_argument, NULL, 'k' },
		{ "symvers", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "root", required_argument, NULL, 'r' },
		{ "policy", required_argument, NULL, 'p' },
		{ "format", required_argument, NULL, 'f' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "max-module-size", required_argument, NULL, 'M' },
		{ "limit", required_argument, NULL, 'L' },
		{ "excludes", no_argument, NULL, 'x' },
		{ "installed", no_argument, NULL, OPT_INSTALLED },
		{ "dbpath", required_argument, NULL, OPT_DBPATH },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct audit a = { 0 };
	struct kernels ks = { 0 };
	struct tg_ctx *ctx = NULL;
	struct audit_pkg **todo = NULL;
	size_t n_todo = 0;
	enum tg_action worst = TG_ACTION_ALLOW;
	bool had_error = false, rpm_ready = false;
	int opt, rc = TG_EXIT_ERROR, r;

	cli_opts_init(&a.o);
	while ((opt = getopt_long(argc, argv, "k:s:c:r:p:f:j:M:L:xqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			audit_usage(stdout);
			return 0;
		case 'x':
			a.excludes = true;
			continue;
		case OPT_INSTALLED:
			a.installed = true;
			continue;
		case OPT_DBPATH:
			a.dbpath = optarg;
			continue;
		}
		if (cli_common_option(&a.o, opt, optarg) != 1) {
			if (opt == '?' || opt == ':')
				audit_usage(stderr);
			return TG_EXIT_ERROR;
		}
	}
	if (a.installed == (optind < argc)) {
		cli_error(a.installed ? "audit --installed takes no PATH"
				      : "audit needs a package, a directory or a repository (or --installed)");
		audit_usage(stderr);
		return TG_EXIT_ERROR;
	}
	a.progress = !a.o.quiet && isatty(STDERR_FILENO);
	/*
	 * Module images (up to ~20 MB decompressed) come and go thousands of
	 * times: a fixed mmap threshold returns each one to the system on free
	 * instead of letting glibc's sliding threshold keep them in the heap.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 4 << 20);

	ctx = cli_ctx_new(&a.o);
	if (!ctx)
		goto out;
	if (rpm_setup(&a) < 0)
		goto out;
	rpm_ready = true;

	if (a.installed) {
		if (scan_installed(&a) < 0)
			goto out;
	} else {
		for (int i = optind; i < argc; i++)
			if (collect_input(&a, argv[i]) < 0)
				goto out;
		/* Phase A: every package that may carry modules. */
		todo = calloc(a.n_pkgs ? a.n_pkgs : 1, sizeof(*todo));
		if (!todo)
			goto out;
		for (size_t i = 0; i < a.n_pkgs; i++) {
			struct audit_pkg *p = a.pkgs[i];

			if (p->error)
				continue;
			/* repodata told us: a symvers-only package waits for phase B */
			if (p->location && !p->has_modules)
				continue;
			todo[n_todo++] = p;
		}
		pool_run(&a, todo, n_todo, true);
	}

	/* Target release of every module. */
	for (size_t i = 0; i < a.n_pkgs; i++)
		for (size_t j = 0; j < a.pkgs[i]->n_mods; j++) {
			struct audit_module *m = a.pkgs[i]->mods[j];
			char buf[256];
			const char *rel = cli_module_release(&a.o, m->path, m->m, buf, sizeof(buf));

			m->release = rel ? strdup(rel) : NULL;
		}

	/* Phase B: packages carrying the symvers of a targeted kernel (kernel-devel ...). */
	if (!a.installed) {
		n_todo = 0;
		if (a.n_sv)
			qsort(a.sv, a.n_sv, sizeof(*a.sv), cmp_sv);
		for (size_t i = 0; i < a.n_sv; i++) {
			struct sv_file *f = &a.sv[i];
			bool taken = false;

			if (f->pkg->error || !release_needed(&a, f->release) ||
			    release_has_data(&a, f->release))
				continue;
			/* sorted best first: one package per release */
			for (size_t j = 0; j < a.n_sv; j++)
				if (!strcmp(a.sv[j].release, f->release) && a.sv[j].pkg->read_payload)
					taken = true;
			if (taken)
				continue;
			f->pkg->read_payload = true;
			todo[n_todo++] = f->pkg;
		}
		pool_run(&a, todo, n_todo, false);
	}
	/*
	 * Packages without modules are not listed; those that carry symvers stay
	 * alive (the table labels and sv entries point to them) but hidden.
	 */
	{
		size_t w = 0;

		for (size_t i = 0; i < a.n_pkgs; i++) {
			struct audit_pkg *p = a.pkgs[i];

			if (!audit_pkg_listed(p))
				a.n_skipped++;
			if (audit_pkg_listed(p) || p->has_symvers)
				a.pkgs[w++] = p;
			else
				audit_pkg_free(p);
		}
		a.n_pkgs = w;
	}
	qsort(a.pkgs, a.n_pkgs, sizeof(*a.pkgs), cmp_pkg);
	for (size_t i = 0; i < a.n_pkgs; i++)
		if (a.pkgs[i]->n_mods > 1)
			qsort(a.pkgs[i]->mods, a.pkgs[i]->n_mods, sizeof(struct audit_module *), cmp_mod);
	if (a.n_sv)
		qsort(a.sv, a.n_sv, sizeof(*a.sv), cmp_sv);

	r = judge(&a, ctx, &ks);
	if (r < 0) {
		if (r == -ENOMEM)
			cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < a.n_pkgs; i++) {
		struct audit_pkg *p = a.pkgs[i];

		if (!audit_pkg_listed(p))
			continue;	/* symvers carrier only */
		if (p->error)
			cli_error("%s: %s", p->file ? p->file : p->nevra ? p->nevra : "?", p->error);
		if (p->had_error)
			had_error = true;
		if (p->action > worst)
			worst = p->action;
	}
	/* one lock for the whole report: stdio would take it per character otherwise */
	flockfile(stdout);
	if (a.excludes)
		r = report_excludes(&a, stdout);
	else if (a.o.format == FMT_JSON)
		r = report_json(&a, stdout);
	else if (a.o.format == FMT_JUNIT)
		r = report_junit(&a, stdout);
	else if (a.o.format == FMT_SARIF)
		r = report_sarif(&a, stdout);
	else
		r = report_text(&a, stdout);
	funlockfile(stdout);
	if (r < 0 || fflush(stdout) != 0) {
		cli_error("write error on standard output");
		goto out;
	}
	rc = cli_exit_for(worst, had_error);
out:
	free(todo);
	kernels_free(&ks);
	for (size_t i = 0; i < a.n_pkgs; i++)
		audit_pkg_free(a.pkgs[i]);
	free(a.pkgs);
	for (size_t i = 0; i < a.n_sv; i++) {
		free(a.sv[i].release);
		free(a.sv[i].path);
		free(a.sv[i].data);
	}
	free(a.sv);
	tg_ctx_free(ctx);
	if (rpm_ready)
		rpm_teardown();
	return rc;
}
