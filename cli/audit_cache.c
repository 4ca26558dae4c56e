/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: the cache (--cache DIR; by default /var/cache/taintguard
 * for root, $XDG_CACHE_HOME/taintguard otherwise; --no-cache).  What reading
 * a repository's package found — its header facts, its modules' facts
 * (tg_module_facts_write: everything a prediction reads), its kernel files'
 * contents — is kept under the package's checksum from the repository
 * metadata, which is verified whenever the package itself is read.  A
 * re-audit with the same cache downloads and decompresses nothing it has
 * seen; it judges again from the records, so a changed policy or kernel
 * needs no package.  What a repository's metadata scan found is kept under
 * the checksums of its primary and filelists.
 *
 * Only complete readings are kept: a package with an error, or a module
 * that could not be read, is read again next time.  A record is believed
 * only when it decodes completely (pkg/cache.c checked its integrity), was
 * made under the same limits, and — for a signed package — against the same
 * keyring.  docs/cache.md has the record formats.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rpm/rpmts.h>

#include "audit.h"

#define RECORD_VERSION 1u
#define MAX_FIELD (64u << 10)
#define MAX_MODULES (1u << 20)
#define MAX_KFILES 4096u

static bool tried;

void audit_cache_open(struct audit *a)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *dir = NULL, *error = NULL;
	int r;

	if (tried || a->no_cache)
		return;
	tried = true;
	if (a->cache_dir)
		dir = strdup(a->cache_dir);
	else if (geteuid() == 0)
		dir = strdup("/var/cache/taintguard");
	else if (xdg && xdg[0] == '/')
		dir = strf("%s/taintguard", xdg);
	else if (home && home[0] == '/')
		dir = strf("%s/.cache/taintguard", home);
	if (!dir)
		return;		/* no cache directory known (and no --cache): read everything */
	r = pkg_cache_open(dir, &a->cache, &error);
	if (r < 0)
		cli_error("cache %s: %s; auditing without it", dir, error ? error : strerror(-r));
	free(error);
	free(dir);
}

void audit_cache_close(struct audit *a)
{
	struct pkg_cache_stats st;

	if (!a->cache)
		return;
	pkg_cache_stats(a->cache, &st);
	if (st.corrupt)
		cli_error("cache %s: %zu corrupt entr%s not believed; %s read again (first: %s)",
			  pkg_cache_dir(a->cache), st.corrupt, st.corrupt == 1 ? "y was" : "ies were",
			  st.corrupt == 1 ? "its package was" : "their packages were", st.first_corrupt);
	if (st.write_errors)
		cli_error("cache %s: %zu entr%s could not be written (first: %s)",
			  pkg_cache_dir(a->cache), st.write_errors, st.write_errors == 1 ? "y" : "ies",
			  st.first_write_error);
	if (a->o.verbose)
		cli_error("cache %s: %zu hit%s, %zu miss%s, %zu written", pkg_cache_dir(a->cache),
			  st.hits, st.hits == 1 ? "" : "s", st.misses, st.misses == 1 ? "" : "es",
			  st.writes);
	pkg_cache_free(a->cache);
	a->cache = NULL;
	free(a->keyring_id);
	a->keyring_id = NULL;
}

/* ----------------------------------------------------------- scans */

static char *scan_key(const struct pkg_repodata *rd)
{
	return strf("%s\n%s", rd->primary_sum, rd->filelists_sum);
}

bool audit_cache_scan_get(struct audit *a, const struct pkg_repodata *rd, struct pkg_repo_list *l)
{
	char *key;
	void *body;
	size_t len;
	bool hit = false;

	audit_cache_open(a);
	if (!a->cache || !(key = scan_key(rd)))
		return false;
	if (pkg_cache_get(a->cache, "repodata", key, &body, &len) == 0) {
		hit = pkg_repo_list_decode(body, len, l) == 0;
		if (!hit)
			pkg_cache_reject(a->cache, "repodata", key, "record does not decode");
		free(body);
	}
	free(key);
	return hit;
}

void audit_cache_scan_put(struct audit *a, const struct pkg_repodata *rd, const struct pkg_repo_list *l)
{
	struct buf b = { 0 };
	char *key;

	if (!a->cache || !(key = scan_key(rd)))
		return;
	pkg_repo_list_encode(l, &b);
	if (!b.oom)
		pkg_cache_put(a->cache, "repodata", key, b.p, b.n);
	free(b.p);
	free(key);
}

/* -------------------------------------------------------- packages */

/* The package's key: its checksum and the limits it was read under. */
static char *pkg_key(const struct audit *a, const struct audit_pkg *p)
{
	const struct tg_limits *l = &a->o.limits;

	return strf("%s\nlimits %llu %llu %u %u %u %llu", p->checksum,
			(unsigned long long)l->max_input_size, (unsigned long long)l->max_module_size,
			l->max_sections, l->max_symbols, l->max_modinfo,
			(unsigned long long)l->max_symvers_size);
}

static const char *keyring(struct audit *a)
{
	if (!a->keyring_id) {
		rpmts ts = pkg_ts_new(a->o.root);

		if (ts) {
			a->keyring_id = pkg_keyring_id(ts);
			rpmtsFree(ts);
		}
	}
	return a->keyring_id ? a->keyring_id : "";
}

static bool is_signed(enum pkg_sig s)
{
	return s != PKG_SIG_UNSIGNED;
}

/* What a record holds, decoded before anything of it reaches the package. */
struct record {
	char *checksum, *keyring, *name, *nevra, *license, *sig_info;
	uint8_t sig, flags;
	char **paths;
	struct tg_module **mods;
	uint32_t n_mods;
	char **kpaths;
	void **kdata;
	size_t *klen;
	uint32_t n_k;
};

static void record_free(struct record *r)
{
	free(r->checksum), free(r->keyring), free(r->name), free(r->nevra), free(r->license);
	free(r->sig_info);
	for (uint32_t i = 0; i < r->n_mods; i++) {
		free(r->paths[i]);
		tg_module_free(r->mods[i]);
	}
	free(r->paths);
	free(r->mods);
	for (uint32_t i = 0; i < r->n_k; i++) {
		free(r->kpaths[i]);
		free(r->kdata[i]);
	}
	free(r->kpaths);
	free(r->kdata);
	free(r->klen);
}

/* Module facts decoded on the pool: a kernel package's record holds thousands. */
struct facts_job {
	const struct tg_limits *lim;
	const void **facts;
	size_t *flen;
	struct tg_module **mods;
	bool *bad;
};

static void facts_one(size_t i, unsigned worker, void *data)
{
	struct facts_job *j = data;
	struct tg_error err = { 0 };

	(void)worker;
	if (tg_module_facts_read(j->facts[i], j->flen[i], j->lim, &j->mods[i], &err) < 0)
		j->bad[i] = true;
}

/* 0, or a reason it is not a valid record. */
static const char *decode(struct audit *a, const void *body, size_t len, struct record *r)
{
	struct pkg_rbuf b = { .p = body, .n = len };
	struct facts_job job = { .lim = &a->o.limits };
	const char *why = NULL;
	uint32_t n;

	if (pkg_r_u32(&b) != RECORD_VERSION)
		return "another record version";
	r->checksum = pkg_r_str(&b, MAX_FIELD);
	r->keyring = pkg_r_str(&b, MAX_FIELD);
	r->name = pkg_r_str(&b, MAX_FIELD);
	r->nevra = pkg_r_str(&b, MAX_FIELD);
	r->license = pkg_r_str(&b, MAX_FIELD);
	r->sig_info = pkg_r_str(&b, MAX_FIELD);
	r->sig = pkg_r_u8(&b);
	r->flags = pkg_r_u8(&b);
	if (b.bad || !r->checksum || !r->nevra || r->sig > PKG_SIG_INSTALLED || r->flags > 7 ||
	    r->sig == PKG_SIG_BAD || r->sig == PKG_SIG_INSTALLED || r->sig == PKG_SIG_UNKNOWN)
		return "bad package fields";
	n = pkg_r_u32(&b);
	if (b.bad || n > MAX_MODULES || n > len / 8)
		return "bad module count";
	r->paths = calloc(n ? n : 1, sizeof(*r->paths));
	r->mods = calloc(n ? n : 1, sizeof(*r->mods));
	job.facts = calloc(n ? n : 1, sizeof(*job.facts));
	job.flen = calloc(n ? n : 1, sizeof(*job.flen));
	job.bad = calloc(n ? n : 1, sizeof(*job.bad));
	job.mods = r->mods;
	if (!r->paths || !r->mods || !job.facts || !job.flen || !job.bad) {
		why = "out of memory";
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		r->n_mods++;
		r->paths[i] = pkg_r_str(&b, MAX_FIELD);
		job.facts[i] = pkg_r_bytes(&b, &job.flen[i], a->o.limits.max_module_size);
		if (b.bad || !r->paths[i]) {
			why = "bad module entry";
			goto out;
		}
	}
	if (n && tg_parallel(n, a->o.jobs, facts_one, &job) < 0) {
		why = "out of memory";
		goto out;
	}
	for (uint32_t i = 0; i < n && !why; i++)
		if (job.bad[i])
			why = "module facts do not decode";
out:
	free(job.facts);
	free(job.flen);
	free(job.bad);
	if (why)
		return why;
	n = pkg_r_u32(&b);
	if (b.bad || n > MAX_KFILES || n > len / 8)
		return "bad kernel file count";
	r->kpaths = calloc(n ? n : 1, sizeof(*r->kpaths));
	r->kdata = calloc(n ? n : 1, sizeof(*r->kdata));
	r->klen = calloc(n ? n : 1, sizeof(*r->klen));
	if (!r->kpaths || !r->kdata || !r->klen)
		return "out of memory";
	for (uint32_t i = 0; i < n; i++) {
		const void *d;
		uint8_t has;

		r->n_k++;
		r->kpaths[i] = pkg_r_str(&b, MAX_FIELD);
		has = pkg_r_u8(&b);
		d = pkg_r_bytes(&b, &r->klen[i], a->o.limits.max_input_size);
		if (b.bad || !r->kpaths[i] || has > 1)
			return "bad kernel file entry";
		if (has && !(r->kdata[i] = malloc(r->klen[i] ? r->klen[i] : 1)))
			return "out of memory";
		if (has)
			memcpy(r->kdata[i], d, r->klen[i]);
	}
	if (b.off != b.n)
		return "bytes after the record";
	return NULL;
}

static void take(char **dst, char **src)
{
	free(*dst);
	*dst = *src;
	*src = NULL;
}

bool audit_cache_load(struct audit *a, struct audit_pkg *p)
{
	struct record r = { 0 };
	const char *why;
	char *key;
	void *body;
	size_t len;
	bool ok = false;

	if (p->cached)
		return true;
	if (!a->cache || !p->checksum || p->error || !(key = pkg_key(a, p)))
		return false;
	if (pkg_cache_get(a->cache, "packages", key, &body, &len) < 0) {
		free(key);
		return false;
	}
	why = decode(a, body, len, &r);
	free(body);
	if (!why && strcmp(r.checksum, p->checksum))
		why = "names another package";
	if (why) {
		if (strcmp(why, "out of memory"))
			pkg_cache_reject(a->cache, "packages", key, why);
		goto out;
	}
	/* a signature checked against another keyring is checked again: the package is read */
	if (is_signed(r.sig) && (!r.keyring || strcmp(r.keyring, keyring(a))))
		goto out;
	take(&p->name, &r.name);
	take(&p->nevra, &r.nevra);
	take(&p->license, &r.license);
	take(&p->sig_info, &r.sig_info);
	p->sig = r.sig;
	p->has_modules = r.flags & 1;
	p->oot_modules = r.flags & 2;
	p->has_kernel_files = r.flags & 4;
	for (uint32_t i = 0; i < r.n_mods; i++) {
		struct audit_module *am = audit_pkg_add_module(p, r.paths[i]);

		if (!am) {
			audit_pkg_error(p, "out of memory");
			break;
		}
		am->m = r.mods[i];
		r.mods[i] = NULL;
	}
	for (uint32_t i = 0; i < r.n_k; i++) {
		struct pkg_class c;

		if (pkg_classify(r.kpaths[i], &c) != PKG_SYMVERS && c.kind != PKG_CONFIG)
			continue;
		audit_kernel_file(a, p, r.kpaths[i], &c, r.kdata[i], r.klen[i]);
		r.kdata[i] = NULL;	/* taken */
	}
	p->cached = ok = true;
out:
	record_free(&r);
	free(key);
	return ok;
}

/* Complete: no error, every module read, every kernel file it may lend with its content. */
static bool complete(const struct audit *a, const struct audit_pkg *p)
{
	const struct pkg_kfile *const *kf;
	size_t n;

	if (p->error || p->cached || !p->checksum || !p->nevra || p->unowned || p->installed)
		return false;
	if (p->sig == PKG_SIG_BAD || p->sig == PKG_SIG_UNKNOWN || p->sig == PKG_SIG_INSTALLED)
		return false;
	for (size_t i = 0; i < p->n_mods; i++)
		if (p->mods[i]->error || !p->mods[i]->m)
			return false;
	if (p->has_modules && !p->modules_read)
		return false;	/* read for its kernel files only: its modules are not here */
	n = pkg_kernelset_files(a->ks, &kf);
	for (size_t i = 0; i < n; i++)
		if (kf[i]->owner == p && p->has_kernel_files && !kf[i]->data)
			return false;
	return true;
}

void audit_cache_store(struct audit *a, struct audit_pkg *p)
{
	const struct pkg_kfile *const *kf;
	struct buf b = { 0 };
	size_t n_kf, mine = 0;
	char *key;

	if (!a->cache || !complete(a, p) || !(key = pkg_key(a, p)))
		return;
	buf_put_u32(&b, RECORD_VERSION);
	buf_put_str(&b, p->checksum);
	buf_put_str(&b, is_signed(p->sig) ? keyring(a) : NULL);
	buf_put_str(&b, p->name);
	buf_put_str(&b, p->nevra);
	buf_put_str(&b, p->license);
	buf_put_str(&b, p->sig_info);
	buf_put_u8(&b, (uint8_t)p->sig);
	buf_put_u8(&b, (uint8_t)(p->has_modules | p->oot_modules << 1 | p->has_kernel_files << 2));
	buf_put_u32(&b, (uint32_t)p->n_mods);
	for (size_t i = 0; i < p->n_mods && !b.oom; i++) {
		void *facts;
		size_t flen;

		buf_put_str(&b, p->mods[i]->path);
		if (tg_module_facts_write(p->mods[i]->m, &facts, &flen) < 0) {
			b.oom = true;
			break;
		}
		buf_put_blob(&b, facts, flen);
		free(facts);
	}
	n_kf = pkg_kernelset_files(a->ks, &kf);
	for (size_t i = 0; i < n_kf; i++)
		mine += kf[i]->owner == p;
	buf_put_u32(&b, (uint32_t)mine);
	for (size_t i = 0; i < n_kf; i++) {
		if (kf[i]->owner != p)
			continue;
		buf_put_str(&b, kf[i]->path);
		buf_put_u8(&b, kf[i]->data != NULL);
		buf_put_blob(&b, kf[i]->data, kf[i]->data ? kf[i]->len : 0);
	}
	if (!b.oom)
		pkg_cache_put(a->cache, "packages", key, b.p, b.n);
	free(b.p);
	free(key);
}
