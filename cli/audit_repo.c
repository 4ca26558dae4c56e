/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: repositories.  A local one (a directory with
 * repodata/) or a remote one (a base URL, a metalink, a mirrorlist): its
 * metadata says which packages carry module candidates or kernel files
 * (pkg/repo.c), only those become packages of the audit; the others are
 * counted.  What a scan found is kept in the cache under the checksums
 * repomd.xml states for primary and filelists, so an unchanged repository
 * costs one repomd.xml.  Remote packages are downloaded here, verified,
 * into memory (pkg/fetch.c); the metadata goes to a private temporary
 * directory that a reaper process removes even if this one is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"

struct audit_remote {
	struct pkg_remote *r;
	char *url;
};

bool audit_is_url(const char *s)
{
	const char *p = s;

	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '+' || *p == '-' || *p == '.')
		p++;
	return !strncmp(p, "://", 3);
}

/* ------------------------------------------------- the private directory */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void remove_tree(const char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A private directory for the metadata librepo writes, and a reaper: a
 * child that waits for this process to end (the pipe's write end closes
 * whatever way it ends, SIGKILL included) and removes the directory.
 * Made before any thread exists.
 */
static int tmpdir_ready(struct audit *a)
{
	const char *base = getenv("TMPDIR");
	char *dir;
	int p[2];
	pid_t pid;

	if (a->tmpdir)
		return 0;
	dir = strf("%s/taintguard-audit.XXXXXX", base && *base ? base : "/tmp");
	if (!dir)
		return -ENOMEM;
	if (!mkdtemp(dir)) {
		cli_error("%s: cannot make a private directory: %s", dir, strerror(errno));
		free(dir);
		return -errno;
	}
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		cli_error("cannot start the temporary directory's reaper: %s", strerror(errno));
		rmdir(dir);
		free(dir);
		return -errno;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);
		char c;

		/* Ctrl-C reaches the whole process group: the reaper outlives it */
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGQUIT, SIG_IGN);
		signal(SIGPIPE, SIG_IGN);
		close(p[1]);
		/* hold no pipe of a pipeline open: `audit URL | jq` ends when audit does */
		if (null >= 0) {
			dup2(null, STDIN_FILENO);
			dup2(null, STDOUT_FILENO);
			dup2(null, STDERR_FILENO);
		}
		while (read(p[0], &c, 1) < 0 && errno == EINTR)
			;
		remove_tree(dir);
		_exit(0);
	}
	close(p[0]);
	a->tmpdir = dir;
	a->reaper_fd = p[1];
	a->reaper_pid = pid;
	return 0;
}

void audit_repo_free(struct audit *a)
{
	for (size_t i = 0; i < a->n_remotes; i++) {
		pkg_remote_free(a->remotes[i]->r);
		free(a->remotes[i]->url);
		free(a->remotes[i]);
	}
	free(a->remotes);
	a->remotes = NULL;
	a->n_remotes = 0;
	if (a->tmpdir) {
		remove_tree(a->tmpdir);
		close(a->reaper_fd);
		waitpid(a->reaper_pid, NULL, 0);
		free(a->tmpdir);
		a->tmpdir = NULL;
	}
}

/* ------------------------------------------------- packages of interest */

/* Where a local repository's package is, or why it cannot be read from here. */
static char *local_file(const char *dir, const struct pkg_repo_pkg *e, char **error)
{
	*error = NULL;
	if (!e->base)
		return strf("%s/%s", dir, e->location);
	if (!strncmp(e->base, "file://", 7))
		return strf("%s/%s", e->base + 7, e->location);
	if (e->base[0] == '/')
		return strf("%s/%s", e->base, e->location);
	*error = strf("location %s%s is not local (audit the repository by its URL)", e->base,
			  e->location);
	return strf("%s%s", e->base, e->location);
}

/* "/" when @base does not end with one */
static const char *slash(const char *base)
{
	size_t n = strlen(base);

	return n && base[n - 1] == '/' ? "" : "/";
}

static char *dup_opt(const char *s, bool *oom)
{
	char *d = s ? strdup(s) : NULL;

	if (s && !d)
		*oom = true;
	return d;
}

/* The scan's packages become packages of the audit; their kernel files are noted. */
static int add_entries(struct audit *a, const struct pkg_repo_list *l, const char *dir,
		       struct audit_remote *rem)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct pkg_repo_pkg *e = &l->v[i];
		struct audit_pkg *p = audit_pkg_new(a);
		char *error = NULL;
		bool oom = !p;

		if (oom)
			return -ENOMEM;
		p->location = dup_opt(e->location, &oom);
		p->name = dup_opt(e->name, &oom);
		p->nevra = dup_opt(e->nevra, &oom);
		p->license = dup_opt(e->license, &oom);
		p->checksum = dup_opt(e->checksum, &oom);
		p->base = dup_opt(e->base, &oom);
		p->size = e->size;
		p->remote = rem;
		if (!rem && !(p->file = local_file(dir, e, &error)))
			oom = true;
		/* where the repository keeps it (a download may come from another mirror) */
		if (rem && !(p->url = e->base ? strf("%s%s%s", e->base, slash(e->base), e->location)
					      : strf("%s%s%s", pkg_remote_base(rem->r),
							 slash(pkg_remote_base(rem->r)), e->location)))
			oom = true;
		if (oom) {
			free(error);
			return -ENOMEM;
		}
		if (error)
			audit_pkg_error(p, "%s", error);
		free(error);
		p->has_modules = e->modules;
		p->oot_modules = e->oot;
		p->has_kernel_files = e->n_kernel_files && !e->oot;
		for (size_t j = 0; j < e->n_kernel_files; j++) {
			struct pkg_class c;

			if (pkg_classify(e->kernel_files[j], &c) == PKG_SYMVERS || c.kind == PKG_CONFIG)
				audit_kernel_file(a, p, e->kernel_files[j], &c, NULL, 0);
		}
	}
	a->n_skipped += l->skipped;
	a->n_skipped_meta += l->skipped;
	return 0;
}

int audit_repo_local(struct audit *a, const char *dir)
{
	struct pkg_repodata rd;
	struct pkg_repo_list l;
	char *error = NULL;
	int r;

	r = pkg_repo_local(dir, &rd, &error);
	if (r < 0)
		goto out;
	if (!audit_cache_scan_get(a, &rd, &l)) {
		r = pkg_repodata_verify(&rd, &error);
		if (r == 0)
			r = pkg_repo_scan(&rd, &l, &error);
		if (r < 0)
			goto out;
		audit_cache_scan_put(a, &rd, &l);
	}
	r = add_entries(a, &l, dir, NULL);
	pkg_repo_list_free(&l);
out:
	if (r < 0)
		cli_error("%s", error ? error : strerror(-r));
	free(error);
	pkg_repodata_free(&rd);
	return r;
}

int audit_repo_remote(struct audit *a, const char *url, enum pkg_remote_kind kind)
{
	struct pkg_remote_opts ro = { .url = url, .kind = kind, .ca_cert = a->ca_cert,
				      .max_size = a->o.limits.max_input_size };
	struct audit_remote *rem = NULL, **nv;
	struct pkg_repodata rd = { 0 };
	struct pkg_repo_list l;
	char *dest = NULL, *error = NULL;
	int r;

	r = tmpdir_ready(a);
	if (r < 0)
		return r;
	nv = realloc(a->remotes, (a->n_remotes + 1) * sizeof(*nv));
	rem = calloc(1, sizeof(*rem));
	dest = strf("%s/%zu", a->tmpdir, a->n_remotes);
	if (nv)
		a->remotes = nv;
	if (!nv || !rem || !dest || !(rem->url = strdup(url))) {
		r = -ENOMEM;
		goto fail;
	}
	if (mkdir(dest, 0700) < 0) {
		r = -errno;
		goto fail;
	}
	ro.destdir = dest;
	if (a->progress)
		fprintf(stderr, "\r\033[Kfetching %s", url);
	r = pkg_remote_open(&ro, &rem->r, &error);
	if (r == 0)
		r = pkg_remote_repodata(rem->r, false, &rd, &error);
	if (r < 0)
		goto fail;
	a->remotes[a->n_remotes++] = rem;
	if (!audit_cache_scan_get(a, &rd, &l)) {
		pkg_repodata_free(&rd);
		r = pkg_remote_repodata(rem->r, true, &rd, &error);
		if (r == 0)
			r = pkg_repo_scan(&rd, &l, &error);
		if (r < 0)
			goto out;
		audit_cache_scan_put(a, &rd, &l);
	}
	r = add_entries(a, &l, NULL, rem);
	pkg_repo_list_free(&l);
	goto out;
fail:
	if (rem) {
		pkg_remote_free(rem->r);
		free(rem->url);
		free(rem);
	}
out:
	if (a->progress)
		fputs("\r\033[K", stderr);
	if (r < 0)
		cli_error("%s", error ? error : strerror(-r));
	free(error);
	free(dest);
	pkg_repodata_free(&rd);
	return r;
}

/* ----------------------------------------------------------- downloads */

struct bar {
	struct audit *a;
	struct timespec last;
	size_t n;
};

static void fetch_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct bar *b = ctx;
	struct timespec now;
	unsigned width = 30, fill;
	char bar[64];

	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - b->last.tv_sec) * 1000000000L + (now.tv_nsec - b->last.tv_nsec) < 100000000L)
		return;
	b->last = now;
	fill = total ? (unsigned)(done * width / total) : 0;
	if (fill > width)
		fill = width;
	memset(bar, '#', fill);
	memset(bar + fill, '.', width - fill);
	bar[width] = 0;
	fprintf(stderr, "\r\033[Kfetch [%s] %.1f/%.1f MB, %zu package%s", bar, done / 1e6, total / 1e6,
		b->n, b->n == 1 ? "" : "s");
	fflush(stderr);
}

void audit_fetch(struct audit *a, struct audit_pkg **todo, size_t n)
{
	for (size_t ri = 0; ri < a->n_remotes; ri++) {
		struct audit_remote *rem = a->remotes[ri];
		struct pkg_fetch *v = calloc(n ? n : 1, sizeof(*v));
		struct audit_pkg **who = calloc(n ? n : 1, sizeof(*who));
		struct bar b = { .a = a };
		size_t k = 0;

		if (!v || !who) {
			for (size_t i = 0; i < n; i++)
				if (todo[i]->remote == rem)
					audit_pkg_error(todo[i], "out of memory");
			free(v), free(who);
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			struct audit_pkg *p = todo[i];

			if (p->remote != rem || p->fd >= 0 || p->error)
				continue;
			v[k] = (struct pkg_fetch){ .location = p->location, .base = p->base,
						   .checksum = p->checksum, .size = p->size };
			who[k++] = p;
		}
		b.n = k;
		if (k)
			pkg_remote_fetch(rem->r, v, k, a->progress ? fetch_progress : NULL, &b);
		if (k && a->progress) {
			fputs("\r\033[K", stderr);
			fflush(stderr);
		}
		for (size_t i = 0; i < k; i++) {
			struct audit_pkg *p = who[i];

			if (v[i].fd >= 0) {
				p->fd = v[i].fd;
			} else {
				audit_pkg_error(p, "download of %s failed: %s", p->location,
						v[i].error ? v[i].error : "unknown error");
			}
			free(v[i].url);
			free(v[i].error);
		}
		free(v);
		free(who);
	}
}
