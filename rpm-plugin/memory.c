/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Refusals remembered across transactions.  zypper (classic commit) installs
 * one package per "rpm -U --nodeps --force": after a refused kmod, the user
 * answers "ignore" and the packages that need it come in rpm calls of their
 * own, where nothing is refused and --nodeps keeps rpm quiet.  So each
 * package taintguard refused or left out leaves a small file in the root,
 * ROOT/STATEDIR/refused/NAME, for %_taintguard_refusal_memory seconds:
 *
 *	taintguard-refused/1
 *	package	kmod-lve-1.0-1.noarch
 *	state	refused			(or "left-out")
 *	time	1796289600
 *	provide	kmod-lve	8	1.0-1	(name, rpmsense flags, EVR; tabs)
 *
 * A later transaction reads them in tsm_pre (closure.c matches them as it
 * matches this transaction's refusals); installing a package of that name
 * removes its file.  Written as the mark records are: a temporary file,
 * fsync, rename.  No directory, or an empty one, costs one opendir.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>

#include "dirs.h"
#include "grow.h"
#include "tgp.h"

#define MEMORY_FORMAT "taintguard-refused/1"
#define MEMORY_MAX_SIZE (256 * 1024)	/* a package with thousands of provides */

static char *memory_dir(struct tgp_state *st)
{
	return rstrscat(NULL, st->rootpfx ? st->rootpfx : "", st->statedir, "/refused", NULL);
}

/* A package name as a file name: no '/', no dot first, no tab or newline in it. */
static bool name_ok(const char *n)
{
	return n && *n && *n != '.' && !strpbrk(n, "/\t\n");
}

/* ------------------------------------------------------------ reading */

struct memory_rec {
	char *nevra;
	bool left_out;
	long long time;
	struct tgp_provide *p;
	size_t n, cap;
};

static void rec_clear(struct memory_rec *m)
{
	free(m->nevra);
	free(m->p);	/* the names point into the file's text */
	*m = (struct memory_rec){ 0 };
}

static int add_provide(struct memory_rec *m, char *line)
{
	char *name = line, *flags, *evr, *end;

	if (!(flags = strchr(name, '\t')) || !(evr = strchr(flags + 1, '\t')))
		return -EINVAL;
	*flags++ = '\0';
	*evr++ = '\0';
	if (!*name)
		return -EINVAL;
	if (grow_array(&m->p, &m->cap, m->n, sizeof(*m->p)) < 0)
		return -ENOMEM;
	m->p[m->n] = (struct tgp_provide){ .name = name, .evr = evr,
					   .flags = (rpmsenseFlags)strtoul(flags, &end, 10) };
	if (end == flags || *end)
		return -EINVAL;
	m->n++;
	return 0;
}

/* @text (NUL-terminated, modified in place) into @m; its provides point into @text. */
static int parse(char *text, struct memory_rec *m)
{
	char *save = NULL, *line = strtok_r(text, "\n", &save);
	bool state = false;

	if (!line || strcmp(line, MEMORY_FORMAT))
		return -EINVAL;
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char *val = strchr(line, '\t');
		int r = 0;

		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(line, "package") && !m->nevra)
			r = (m->nevra = strdup(val)) ? 0 : -ENOMEM;
		else if (!strcmp(line, "state"))
			state = true, m->left_out = !strcmp(val, "left-out");
		else if (!strcmp(line, "time"))
			m->time = strtoll(val, NULL, 10);
		else if (!strcmp(line, "provide"))
			r = add_provide(m, val);
		if (r < 0)
			return r;
	}
	return m->nevra && state ? 0 : -EINVAL;
}

/* The whole file at @dfd/@name, NUL-terminated; its modification time in *@mtime. */
static char *slurp(int dfd, const char *name, time_t *mtime)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct stat sb;
	char *text = NULL;
	ssize_t got = -1;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size < MEMORY_MAX_SIZE &&
	    (text = malloc((size_t)sb.st_size + 1)) != NULL)
		got = read(fd, text, (size_t)sb.st_size);
	close(fd);
	if (got != sb.st_size) {
		free(text);
		return NULL;
	}
	text[got] = '\0';
	*mtime = sb.st_mtime;
	return text;
}

/*
 * One record into @cl.  It is as old as the older of its time line and its
 * modification time; past %_taintguard_refusal_memory it goes.
 */
static void load_one(struct tgp_state *st, struct tgp_closure *cl, int dfd, const char *name)
{
	struct memory_rec m = { 0 };
	time_t mtime = 0, now = time(NULL);
	char *text = slurp(dfd, name, &mtime);
	long long when;

	if (!text || parse(text, &m) < 0) {
		rpmlog(RPMLOG_DEBUG, "taintguard: %s/refused/%s: not a record, ignored\n",
		       st->statedir, name);
		goto out;
	}
	when = m.time > 0 && m.time < (long long)mtime ? m.time : (long long)mtime;
	if (now - when > (long long)st->memory) {
		if (!st->test)
			(void)unlinkat(dfd, name, 0);
		goto out;
	}
	if (tgp_closure_earlier(cl, m.nevra, m.left_out, (time_t)when, m.p, m.n) < 0)
		rpmlog(RPMLOG_ERR, "taintguard: out of memory; %s, refused earlier, is not "
		       "remembered\n", m.nevra);
out:
	rec_clear(&m);
	free(text);
}

bool tgp_memory_load(struct tgp_state *st, struct tgp_closure *cl)
{
	char *dir = memory_dir(st);
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *de;

	st->memory_seen = false;
	free(dir);
	if (!d)
		return false;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')	/* ".", "..", temporary files */
			continue;
		st->memory_seen = true;
		if (cl)
			load_one(st, cl, dirfd(d), de->d_name);
	}
	closedir(d);
	return st->memory_seen;
}

/* ------------------------------------------------------------ writing */

static void write_rec(FILE *f, rpmte te, bool left_out, const struct tgp_provide *p, size_t n)
{
	fprintf(f, MEMORY_FORMAT "\npackage\t%s\nstate\t%s\ntime\t%lld\n", rpmteNEVRA(te),
		left_out ? "left-out" : "refused", (long long)time(NULL));
	for (size_t i = 0; i < n; i++)
		if (name_ok(p[i].name) && !strpbrk(p[i].evr ? p[i].evr : "", "\t\n"))
			fprintf(f, "provide\t%s\t%u\t%s\n", p[i].name, (unsigned)p[i].flags,
				p[i].evr ? p[i].evr : "");
}

/* A new temporary file ".NAME.XXXXXX" in @dfd (readers skip dot files). */
static FILE *open_tmp(const char *dir, const char *name, char **tmp)
{
	int fd;
	FILE *f;

	if (!(*tmp = rstrscat(NULL, dir, "/.", name, ".XXXXXX", NULL)))
		return NULL;
	if ((fd = mkostemp(*tmp, O_CLOEXEC)) < 0) {
		free(*tmp);
		*tmp = NULL;
		return NULL;
	}
	(void)fchmod(fd, 0644);
	if (!(f = fdopen(fd, "w"))) {
		close(fd);
		(void)unlink(*tmp);
		free(*tmp);
		*tmp = NULL;
	}
	return f;
}

static void save_one(struct tgp_state *st, rpmte te, bool left_out, const struct tgp_provide *p,
		     size_t n)
{
	const char *name = rpmteN(te);
	char *dir = memory_dir(st), *path = NULL, *tmp = NULL;
	FILE *f = NULL;
	int e = 0;

	if (!name_ok(name) || !dir)
		goto out;
	path = rstrscat(NULL, dir, "/", name, NULL);
	if ((e = make_dirs(dir, 0755)) < 0 || !(f = open_tmp(dir, name, &tmp))) {
		e = e ? e : -errno;
		goto out;
	}
	errno = 0;
	write_rec(f, te, left_out, p, n);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0)
		e = errno ? -errno : -EIO;
	if (fclose(f) != 0 && !e)
		e = -errno;
	if (!e && rename(tmp, path) < 0)
		e = -errno;
	if (e)
		(void)unlink(tmp);
	else
		sync_dir(dir);
out:
	if (e)
		rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot remember the refusal in %s: %s; a "
		       "later transaction may install what needs it\n", rpmteNEVRA(te), dir,
		       strerror(-e));
	else if (path)
		rpmlog(RPMLOG_DEBUG, "taintguard: remembered %s in %s\n", rpmteNEVRA(te), path);
	free(tmp);
	free(path);
	free(dir);
}

void tgp_memory_save(struct tgp_state *st, struct tgp_closure *cl)
{
	struct tgp_provide *p = NULL;
	size_t i = 0, n = 0;
	bool left_out;
	rpmte te;

	while ((te = tgp_closure_next_out(cl, &i, &left_out, &p, &n)) != NULL) {
		save_one(st, te, left_out, p, n);
		free(p);
	}
}

void tgp_memory_forget(struct tgp_state *st, const char *name)
{
	char *dir, *path;

	if (!st->memory_seen || !name_ok(name) || !(dir = memory_dir(st)))
		return;
	path = rstrscat(NULL, dir, "/", name, NULL);
	if (unlink(path) == 0)
		rpmlog(RPMLOG_DEBUG, "taintguard: %s installed: forgot its refusal\n", name);
	free(path);
	free(dir);
}
