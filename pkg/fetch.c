/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Remote repositories, through librepo (what dnf fetches with): a base URL
 * (http, https, ftp, file), a metalink or a mirrorlist.  repomd.xml first
 * (verified against the metalink's hashes when there is one), then, only
 * when needed, primary and filelists (verified against repomd.xml), then
 * the packages that matter, each into memory: a sealed memfd, verified
 * against primary's checksum and size before anyone reads it.  A package
 * that fails (HTTP error, truncated transfer, checksum mismatch, every
 * mirror tried) gets the last mirror's reason; nothing of it is used.
 *
 * The metadata goes to a directory the caller provides (librepo writes
 * files); the caller removes it.
 */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <librepo/librepo.h>

#include "pkg.h"

struct pkg_remote {
	LrHandle *h;
	LrResult *res;
	char *url;		/* as given, for messages */
	char *base;		/* the mirror repomd.xml came from */
	char *why;		/* the last mirror's reason for a failed metadata download */
	bool local_ok;		/* file:// locations allowed (the repository itself is file://) */
	uint64_t max_size;
	bool have_metadata;
};

static void quiet_log(const gchar *domain, GLogLevelFlags level, const gchar *msg, gpointer data)
{
	(void)domain, (void)level, (void)msg, (void)data;
}

/* librepo's g_warning()s would reach stderr beside our own message of the same failure. */
static void quiet(void)
{
	static bool done;

	if (!done) {
		g_log_set_handler("librepo", G_LOG_LEVEL_MASK, quiet_log, NULL);
		done = true;
	}
}

static int on_md_failure(void *data, const char *msg, const char *url, const char *metadata)
{
	struct pkg_remote *r = data;

	(void)metadata;
	free(r->why);
	r->why = strf("%s%s%s", msg ? msg : "failed", url && (!msg || !strstr(msg, url)) ? " at " : "",
			  url && (!msg || !strstr(msg, url)) ? url : "");
	return LR_CB_OK;
}

static char *gerror_take(GError **e, const char *fallback)
{
	char *s = strdup(*e && (*e)->message ? (*e)->message : fallback);

	g_clear_error(e);
	return s;
}

/* librepo's message, and the last mirror's own reason when librepo's says less ("All mirrors were tried") */
static char *reason(struct pkg_remote *r, GError **e, const char *fallback)
{
	char *why = gerror_take(e, fallback);
	char *s = r->why && why && !strstr(why, r->why) ? strf("%s (last: %s)", why, r->why) : NULL;

	if (s) {
		free(why);
		return s;
	}
	return why;
}

static bool setopt_ok(LrHandle *h, GError **e, LrHandleOption opt, ...)
{
	va_list ap;
	gboolean ok;

	va_start(ap, opt);
	/* librepo's setopt is variadic itself: pass the one argument on */
	switch (opt) {
	case LRO_URLS:
	case LRO_YUMDLIST:
		ok = lr_handle_setopt(h, e, opt, va_arg(ap, char **));
		break;
	case LRO_MIRRORLISTURL:
	case LRO_METALINKURL:
	case LRO_DESTDIR:
	case LRO_USERAGENT:
	case LRO_SSLCACERT:
		ok = lr_handle_setopt(h, e, opt, va_arg(ap, const char *));
		break;
	case LRO_REPOTYPE:
		ok = lr_handle_setopt(h, e, opt, va_arg(ap, LrRepotype));
		break;
	case LRO_HMFCB:
		ok = lr_handle_setopt(h, e, opt, va_arg(ap, LrHandleMirrorFailureCb));
		break;
	case LRO_PROGRESSDATA:
		ok = lr_handle_setopt(h, e, opt, va_arg(ap, void *));
		break;
	default:
		ok = lr_handle_setopt(h, e, opt, va_arg(ap, long));
		break;
	}
	va_end(ap);
	return ok;
}

int pkg_remote_open(const struct pkg_remote_opts *o, struct pkg_remote **out, char **error)
{
	char *urls[] = { (char *)o->url, NULL };
	char *none[] = { NULL };
	struct pkg_remote *r;
	GError *e = NULL;
	bool ok;

	*out = NULL;
	*error = NULL;
	quiet();
	r = calloc(1, sizeof(*r));
	if (!r || !(r->url = strdup(o->url))) {
		free(r);
		return -ENOMEM;
	}
	r->local_ok = !strncmp(o->url, "file:", 5);
	r->max_size = o->max_size;
	r->h = lr_handle_init();
	r->res = lr_result_init();
	if (!r->h || !r->res) {
		pkg_remote_free(r);
		return -ENOMEM;
	}
	ok = setopt_ok(r->h, &e, LRO_REPOTYPE, LR_YUMREPO) &&
	     (o->kind == PKG_REMOTE_METALINK	 ? setopt_ok(r->h, &e, LRO_METALINKURL, o->url)
	      : o->kind == PKG_REMOTE_MIRRORLIST ? setopt_ok(r->h, &e, LRO_MIRRORLISTURL, o->url)
						 : setopt_ok(r->h, &e, LRO_URLS, urls)) &&
	     setopt_ok(r->h, &e, LRO_DESTDIR, o->destdir) &&
	     /* repomd.xml alone first: primary and filelists only if no scan of them is cached */
	     setopt_ok(r->h, &e, LRO_YUMDLIST, none) && setopt_ok(r->h, &e, LRO_CHECKSUM, 1L) &&
	     setopt_ok(r->h, &e, LRO_INTERRUPTIBLE, 1L) &&
	     setopt_ok(r->h, &e, LRO_USERAGENT, "taintguard/" TG_VERSION_STRING) &&
	     setopt_ok(r->h, &e, LRO_MAXPARALLELDOWNLOADS, 4L) &&
	     setopt_ok(r->h, &e, LRO_CONNECTTIMEOUT, 30L) &&
	     setopt_ok(r->h, &e, LRO_PROGRESSDATA, r) && setopt_ok(r->h, &e, LRO_HMFCB, on_md_failure) &&
	     (!o->ca_cert || setopt_ok(r->h, &e, LRO_SSLCACERT, o->ca_cert));
	if (ok)
		ok = lr_handle_perform(r->h, r->res, &e);
	if (!ok) {
		char *why = reason(r, &e, "cannot be fetched");

		*error = strf("%s: %s", o->url, why ? why : "cannot be fetched");
		free(why);
		pkg_remote_free(r);
		return -EIO;
	}
	{
		LrYumRepo *repo = NULL;

		if (lr_result_getinfo(r->res, &e, LRR_YUM_REPO, &repo) && repo && repo->url)
			r->base = strdup(repo->url);
		g_clear_error(&e);
	}
	*out = r;
	return 0;
}

const char *pkg_remote_base(const struct pkg_remote *r)
{
	return r->base ? r->base : r->url;
}

void pkg_remote_free(struct pkg_remote *r)
{
	if (!r)
		return;
	if (r->res)
		lr_result_free(r->res);
	if (r->h)
		lr_handle_free(r->h);
	free(r->url);
	free(r->base);
	free(r->why);
	free(r);
}

const char *pkg_remote_url(const struct pkg_remote *r)
{
	return r->url;
}

static int record_sum(LrYumRepoMd *md, const char *type, char **sum, char **error,
		      const char *url)
{
	LrYumRepoMdRecord *rec = lr_yum_repomd_get_record(md, type);

	if (!rec || !rec->location_href) {
		*error = strf("%s: repomd.xml names no %s metadata", url, type);
		return -EINVAL;
	}
	*sum = strf("%s:%s", rec->checksum_type ? rec->checksum_type : "",
			rec->checksum ? rec->checksum : "");
	if (!*sum)
		return -ENOMEM;
	if (!pkg_checksum_type(*sum)) {
		*error = strf("%s: %s metadata has no usable checksum ('%s')", url, type, *sum);
		return -EINVAL;
	}
	return 0;
}

static char *repo_path(LrYumRepo *repo, const char *type)
{
	const char *p = lr_yum_repo_path(repo, type);

	return p ? strdup(p) : NULL;
}

int pkg_remote_repodata(struct pkg_remote *r, bool download, struct pkg_repodata *rd, char **error)
{
	char *dl[] = { "primary", "filelists", NULL };
	LrYumRepoMd *md = NULL;
	LrYumRepo *repo = NULL;
	GError *e = NULL;
	int rc;

	memset(rd, 0, sizeof(*rd));
	*error = NULL;
	if (!lr_result_getinfo(r->res, &e, LRR_YUM_REPOMD, &md) || !md) {
		char *why = gerror_take(&e, "no repomd.xml");

		*error = strf("%s: %s", r->url, why ? why : "no repomd.xml");
		free(why);
		return -EINVAL;
	}
	rc = record_sum(md, "primary", &rd->primary_sum, error, r->url);
	if (rc == 0)
		rc = record_sum(md, "filelists", &rd->filelists_sum, error, r->url);
	if (rc < 0 || !download)
		goto out;
	if (!r->have_metadata) {
		if (!setopt_ok(r->h, &e, LRO_YUMDLIST, dl) || !setopt_ok(r->h, &e, LRO_UPDATE, 1L) ||
		    !lr_handle_perform(r->h, r->res, &e)) {
			char *why = reason(r, &e, "cannot be fetched");

			*error = strf("%s: metadata: %s", r->url, why ? why : "cannot be fetched");
			free(why);
			rc = -EIO;
			goto out;
		}
		r->have_metadata = true;
	}
	if (!lr_result_getinfo(r->res, &e, LRR_YUM_REPO, &repo) || !repo) {
		g_clear_error(&e);
		*error = strf("%s: metadata not downloaded", r->url);
		rc = -EIO;
		goto out;
	}
	rd->primary = repo_path(repo, "primary");
	rd->filelists = repo_path(repo, "filelists");
	if (!rd->primary || !rd->filelists) {
		*error = strf("%s: primary or filelists metadata not downloaded", r->url);
		rc = -EIO;
	}
out:
	if (rc < 0)
		pkg_repodata_free(rd);
	return rc;
}

/* ------------------------------------------------------------ packages */

struct target {
	struct pkg_fetch *f;
	struct fetch_run *run;
	char *why;		/* the last mirror's reason */
	double now;
	bool too_big;
};

struct fetch_run {
	pkg_fetch_progress_fn fn;
	void *ctx;
	struct target *t;
	size_t n;
	uint64_t total, base_done;
	uint64_t max_size;
};

static int on_progress(void *data, double total, double now)
{
	struct target *t = data;
	struct fetch_run *run = t->run;
	uint64_t done = run->base_done;

	(void)total;
	if (now > (double)run->max_size) {
		t->too_big = true;
		return LR_CB_ABORT;	/* a server that sends more than the cap: stop it */
	}
	t->now = now;
	if (run->fn) {
		for (size_t i = 0; i < run->n; i++)
			done += (uint64_t)run->t[i].now;
		run->fn(run->ctx, done, run->total);
	}
	return LR_CB_OK;
}

static int on_mirror_failure(void *data, const char *msg, const char *url)
{
	struct target *t = data;

	(void)url;
	free(t->why);
	t->why = strdup(msg ? msg : "download failed");
	return LR_CB_OK;
}

static bool scheme_ok(const struct pkg_remote *r, const char *base)
{
	static const char *const ok[] = { "http://", "https://", "ftp://" };

	if (!base)
		return true;
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
		if (!strncmp(base, ok[i], strlen(ok[i])))
			return true;
	/* a remote repository never sends us to this machine's files */
	return r->local_ok && !strncmp(base, "file://", 7);
}

/* The download of @f, verified: a sealed memfd positioned at 0. */
static void finish(struct pkg_fetch *f, LrDownloadTarget *dt, struct target *t, int fd)
{
	struct stat st;

	if (dt->rcode != LRE_OK || dt->err) {
		f->error = t->too_big ? strf("larger than the package size cap (%llu bytes)",
						 (unsigned long long)t->run->max_size)
			   : strf("%s", t->why ? t->why : dt->err ? dt->err : lr_strerror(dt->rcode));
		return;
	}
	if (fstat(fd, &st) < 0 || (f->size && (uint64_t)st.st_size != f->size)) {
		f->error = strf("%lld bytes downloaded, the repository says %llu",
				    (long long)st.st_size, (unsigned long long)f->size);
		return;
	}
	/* what was verified is what will be read: nobody can change it now */
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL) < 0 ||
	    lseek(fd, 0, SEEK_SET) < 0) {
		f->error = strf("cannot seal the download: %s", strerror(errno));
		return;
	}
	f->url = dt->effectiveurl ? strdup(dt->effectiveurl) : NULL;
	f->fd = fd;
}

int pkg_remote_fetch(struct pkg_remote *r, struct pkg_fetch *v, size_t n, pkg_fetch_progress_fn fn,
		     void *ctx)
{
	struct fetch_run run = { .fn = fn, .ctx = ctx, .n = n, .max_size = r->max_size };
	LrDownloadTarget **dts = calloc(n ? n : 1, sizeof(*dts));
	int *fds = malloc((n ? n : 1) * sizeof(int));
	GSList *list = NULL;
	GError *e = NULL;
	int rc = 0;

	run.t = calloc(n ? n : 1, sizeof(*run.t));
	if (!dts || !fds || !run.t) {
		free(dts), free(fds), free(run.t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		struct pkg_fetch *f = &v[i];
		const char *type = pkg_checksum_type(f->checksum);
		GSList *sums = NULL;

		fds[i] = -1;
		f->fd = -1;
		f->url = f->error = NULL;
		run.t[i] = (struct target){ .f = f, .run = &run };
		if (!type) {
			f->error = strf("the repository gives no usable checksum ('%s')",
					    f->checksum ? f->checksum : "");
			continue;
		}
		if (f->size > r->max_size) {
			f->error = strf("%llu bytes: larger than the package size cap (%llu)",
					    (unsigned long long)f->size, (unsigned long long)r->max_size);
			continue;
		}
		if (!scheme_ok(r, f->base)) {
			f->error = strf("location %s%s: not fetched from a remote repository's "
					    "metadata (http, https and ftp only)", f->base, f->location);
			continue;
		}
		fds[i] = memfd_create("taintguard-package", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (fds[i] < 0) {
			f->error = strf("memfd: %s", strerror(errno));
			continue;
		}
		sums = g_slist_append(NULL, lr_downloadtargetchecksum_new(lr_checksum_type(type),
									  strchr(f->checksum, ':') + 1));
		dts[i] = lr_downloadtarget_new(r->h, f->location, f->base, fds[i], NULL, sums,
					       (gint64)f->size, FALSE, on_progress, &run.t[i], NULL,
					       on_mirror_failure, NULL, 0, 0, NULL, FALSE, FALSE);
		if (!dts[i]) {
			f->error = strdup("out of memory");
			continue;
		}
		run.total += f->size;
		list = g_slist_prepend(list, dts[i]);
	}
	list = g_slist_reverse(list);
	if (list && !lr_download(list, FALSE, &e)) {
		char *why = gerror_take(&e, "download failed");

		/* interrupted, or librepo itself failed: nothing of this batch is used */
		for (size_t i = 0; i < n; i++)
			if (dts[i] && !v[i].error)
				v[i].error = strf("%s", why ? why : "download failed");
		free(why);
		rc = -EINTR;
	}
	for (size_t i = 0; i < n; i++) {
		if (dts[i] && !v[i].error)
			finish(&v[i], dts[i], &run.t[i], fds[i]);
		if (v[i].fd < 0 && fds[i] >= 0)
			close(fds[i]);
		if (dts[i])
			lr_downloadtarget_free(dts[i]);
		free(run.t[i].why);
	}
	g_slist_free(list);
	free(dts);
	free(fds);
	free(run.t);
	return rc;
}
