/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mark records: STATEDIR/marks/NEVRA.json, one per installed package that
 * was marked (or installed in warn mode although denied).  Written and
 * removed in tsm_post, once rpm knows which elements really succeeded; that
 * hook is not chrooted, so paths get the --root prefix.  Format:
 * rpm-plugin/README.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>

#include "tgp.h"

char *tgp_record_path(struct tgp_state *st, const char *nevra)
{
	return rstrscat(NULL, st->rootpfx ? st->rootpfx : "", st->statedir, "/marks/", nevra,
			".json", NULL);
}

static int mkdirs(const char *dir)
{
	char *p = strdup(dir);
	int r = 0;

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1; r == 0; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			r = -errno;
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return r;
}

static void jstr(FILE *f, const char *key, const char *val, bool comma)
{
	fprintf(f, "  \"%s\": ", key);
	if (val)
		tg_json_string(f, val);
	else
		fputs("null", f);
	fputs(comma ? ",\n" : "\n", f);
}

int tgp_record_write(struct tgp_state *st, struct tgp_pkg *pkg)
{
	char *dir = rstrscat(NULL, st->rootpfx ? st->rootpfx : "", st->statedir, "/marks", NULL);
	char *path = tgp_record_path(st, pkg->nevra);
	char *tmp = rstrscat(NULL, path, ".tmp", NULL);
	FILE *f = NULL;
	int fd = -1, r;
	rpmte te = pkg->te;

	r = mkdirs(dir);
	if (r < 0)
		goto exit;
	(void)unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		r = -errno;
		goto exit;
	}
	fd = -1;
	fputs("{\n", f);
	jstr(f, "format", "taintguard-mark/1", true);
	jstr(f, "source", "rpm", true);
	jstr(f, "nevra", pkg->nevra, true);
	jstr(f, "name", rpmteN(te), true);
	jstr(f, "epoch", rpmteE(te), true);
	jstr(f, "version", rpmteV(te), true);
	jstr(f, "release", rpmteR(te), true);
	jstr(f, "arch", rpmteA(te), true);
	jstr(f, "action", tg_action_name(pkg->action), true);
	jstr(f, "mode", st->mode == TGP_WARN ? "warn" : "enforce", true);
	jstr(f, "policy", st->policy_fallback ? "<built-in policy>" : st->policy_path, true);
	fprintf(f, "  \"time\": %lld,\n", (long long)time(NULL));
	fputs("  \"modules\": [", f);
	for (size_t i = 0; i < pkg->nv; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		tg_verdict_write_json(&pkg->v[i], f);
	}
	fputs("\n  ]\n}\n", f);
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0) {
		r = -errno;
		goto exit;
	}
	if (fclose(f) != 0) {
		f = NULL;
		r = -errno;
		goto exit;
	}
	f = NULL;
	if (rename(tmp, path) < 0)
		r = -errno;
exit:
	if (f)
		fclose(f);
	if (fd >= 0)
		close(fd);
	if (r < 0) {
		(void)unlink(tmp);
		/* The package is on disk by now; failing would not undo that. */
		rpmlog(RPMLOG_WARNING, "taintguard: %s: cannot write the mark record %s: %s; "
		       "'taintguard status' will not list this package, "
		       "'taintguard audit --installed' still finds it\n", pkg->nevra, path,
		       strerror(-r));
	} else {
		rpmlog(RPMLOG_DEBUG, "taintguard: recorded %s\n", path);
	}
	free(dir);
	free(path);
	free(tmp);
	return r;
}

void tgp_record_remove(struct tgp_state *st, const char *nevra)
{
	char *path = tgp_record_path(st, nevra);

	if (unlink(path) == 0)
		rpmlog(RPMLOG_DEBUG, "taintguard: removed %s\n", path);
	else if (errno != ENOENT)
		rpmlog(RPMLOG_WARNING, "taintguard: cannot remove %s: %s\n", path,
		       strerror(errno));
	free(path);
}
