/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Finding kernel modules in packages: a cheap filter on header file names,
 * then the payload read in tsm_pre through the application's callback (as
 * rpm's own verify step does), so verdicts exist before anything is written.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include <rpm/header.h>
#include <rpm/rpmarchive.h>
#include <rpm/rpmfi.h>
#include <rpm/rpmio.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmstring.h>
#include <rpm/rpmts.h>

#include "tgp.h"

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

bool tgp_ko_suffix(const char *p)
{
	return ends_with(p, ".ko") || ends_with(p, ".ko.xz") || ends_with(p, ".ko.zst") ||
	       ends_with(p, ".ko.gz");
}

bool tgp_in_moddir(const char *p)
{
	return strncmp(p, "/lib/modules/", 13) == 0 || strncmp(p, "/usr/lib/modules/", 17) == 0;
}

/* Header-level filter: may this file be a module?  (Content decides later.) */
bool tgp_candidate(const char *p)
{
	return tgp_ko_suffix(p) || tgp_in_moddir(p);
}

/*
 * Module.symvers of a kernel-devel/-headers package, symvers.gz of a kernel
 * package, /boot/symvers-KVER.gz: the kernel release it describes.
 */
char *tgp_symvers_release(const char *p)
{
	char rel[256];

	return tg_kernel_symvers_place(p, rel, sizeof(rel)) >= 0 ? strdup(rel) : NULL;
}

/* The release of a kernel .config in a package (kernel-devel, kernel-core, ...). */
char *tgp_config_release(const char *p)
{
	char rel[256];

	return tg_kernel_config_place(p, rel, sizeof(rel)) >= 0 ? strdup(rel) : NULL;
}

/* Keep a transaction's kernel .config (takes @buf); the first one per release wins. */
static void add_config(struct tgp_state *st, const char *nevra, const char *path, char *rel,
		       void *buf, size_t len)
{
	struct tgp_config *n;

	for (size_t i = 0; i < st->n_configs; i++)
		if (strcmp(st->configs[i].release, rel) == 0)
			goto drop;
	n = realloc(st->configs, (st->n_configs + 1) * sizeof(*n));
	if (!n)
		goto drop;
	st->configs = n;
	n[st->n_configs++] = (struct tgp_config){ .release = rel, .data = buf, .len = len,
		.label = rstrscat(NULL, nevra, ":", path, NULL) };
	rpmlog(RPMLOG_DEBUG, "taintguard: kernel %s .config from %s:%s\n", rel, nevra, path);
	return;
drop:
	free(rel);
	free(buf);
}

/* A kernel file in a package that also ships out-of-tree modules: not used. */
static void untrusted(const struct tgp_pkg *pkg, const char *path, char *rel, void *buf)
{
	rpmlog(RPMLOG_WARNING, "taintguard: %s: %s: not used for kernel %s: the package also ships "
	       "out-of-tree modules\n", pkg->nevra, path, rel);
	free(rel);
	free(buf);
}

static bool is_elf(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, "\177ELF", 4) == 0;
}

int tgp_module_from_mem(struct tgp_state *st, const void *buf, size_t len, const char *path,
			struct tg_module **m, char **error)
{
	bool strict = tgp_ko_suffix(path) && tgp_in_moddir(path);
	enum tg_compression c = tg_compression_detect(buf, len);
	struct tg_error err = { 0 };
	void *img = NULL;
	size_t imglen = 0;
	bool modinfo;

	*m = NULL;
	*error = NULL;
	if (c == TG_COMP_NONE && !is_elf(buf, len))
		return 0;	/* text (vim's tutor.ko), modules.dep ... */
	if (tg_module_open_mem(buf, len, path, &st->lim, m, &err) == 0) {
		if ((*m)->n_modinfo > 0 || strict)
			return 1;
		tg_module_free(*m);	/* an ELF file, but no module (vdso .so) */
		*m = NULL;
		return 0;
	}
	/* Unreadable: a finding if it is (or claims to be) a module. */
	if (c != TG_COMP_NONE) {
		struct tg_error derr = { 0 };

		if (tg_decompress(c, buf, len, st->lim.max_module_size, &img, &imglen, path,
				  &derr) < 0) {
			if (!tgp_ko_suffix(path))
				return 0;
			*error = strdup(derr.msg[0] ? derr.msg : err.msg);
			return -1;
		}
		buf = img;
		len = imglen;
	}
	modinfo = is_elf(buf, len) && memmem(buf, len, ".modinfo", 9) != NULL;
	if (is_elf(buf, len) && (strict || modinfo)) {
		*error = strdup(err.msg[0] ? err.msg : "unreadable kernel module");
		free(img);
		return -1;
	}
	free(img);
	return 0;
}

static void add_symvers(struct tgp_state *st, const char *nevra, const char *path,
			const void *buf, size_t len)
{
	char *rel = tgp_symvers_release(path);
	struct tgp_symvers *n;
	struct tg_error err = { 0 };
	struct tg_symvers *sv = NULL;

	if (!rel)
		return;
	for (size_t i = 0; i < st->n_symvers; i++)
		if (strcmp(st->symvers[i].release, rel) == 0)
			goto out;	/* first one wins (kernel-devel and kernel-core agree) */
	char *label = rstrscat(NULL, nevra, ":", path, NULL);
	if (tg_symvers_load_mem(buf, len, label, &st->lim, &sv, &err) < 0) {
		rpmlog(RPMLOG_WARNING, "taintguard: %s\n", err.msg);
		free(label);
		goto out;
	}
	n = realloc(st->symvers, (st->n_symvers + 1) * sizeof(*n));
	if (!n) {
		tg_symvers_free(sv);
		free(label);
		goto out;
	}
	st->symvers = n;
	n[st->n_symvers++] = (struct tgp_symvers){ .release = rel, .label = label, .sv = sv };
	rpmlog(RPMLOG_DEBUG, "taintguard: kernel %s exports from %s\n", rel, label);
	return;
out:
	free(rel);
}

/* Read one archive member completely; a capped size is an error, never truncation. */
static int read_member(rpmfi fi, uint64_t cap, void **out, size_t *outlen, char **error)
{
	rpm_loff_t size = rpmfiFSize(fi);
	size_t got = 0;
	char *buf;

	*out = NULL;
	if (size > cap) {
		*error = rstrscat(NULL, "file is larger than the cap %_taintguard_max_module_size",
				  NULL);
		return -1;
	}
	buf = malloc(size ? size : 1);
	if (!buf) {
		*error = strdup("out of memory");
		return -1;
	}
	while (got < size) {
		ssize_t r = rpmfiArchiveRead(fi, buf + got, size - got);
		if (r <= 0) {
			free(buf);
			*error = strdup("payload ends inside the file (corrupt package?)");
			return -1;
		}
		got += (size_t)r;
	}
	*out = buf;
	*outlen = got;
	return 0;
}

static void mod_error(struct tgp_pkg *pkg, const char *path, const char *msg)
{
	tgp_mod_add(&pkg->mods, &pkg->n_mods, path, NULL, msg);
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * Per-package limits: a package with more module files than
 * %_taintguard_max_modules, or whose payload takes longer than
 * %_taintguard_max_seconds to read, gets an error entry (judged by the
 * policy's "unreadable" rule) and the rest of its payload is not read.
 * Returns that entry's message (malloc'ed), or NULL within the limits.
 */
static char *over_limit(struct tgp_state *st, size_t nmods, double t0)
{
	char lim[32];

	if (nmods > st->max_modules) {
		snprintf(lim, sizeof(lim), "%zu", st->max_modules);
		return rstrscat(NULL, "more than ", lim, " kernel module files (limit "
				"%_taintguard_max_modules); the rest was not checked", NULL);
	}
	if (now_seconds() - t0 > (double)st->max_seconds) {
		snprintf(lim, sizeof(lim), "%u", st->max_seconds);
		return rstrscat(NULL, "reading the payload took longer than ", lim, " s (limit "
				"%_taintguard_max_seconds); the rest was not checked", NULL);
	}
	return NULL;
}

/* Read @pkg's payload from @fd (positioned at the lead). */
static void scan_payload(struct tgp_state *st, rpmts ts, struct tgp_pkg *pkg, FD_t fd)
{
	rpmVSFlags ovs = rpmtsVSFlags(ts);
	Header h = NULL;
	FD_t pfd = NULL;
	rpmfiles files = NULL;
	rpmfi fi = NULL;
	char *mode = NULL, *msg = NULL;
	size_t nmods = 0;
	double t0 = now_seconds();
	struct tg_workq *q = NULL;
	struct tgp_decode_list list = { 0 };
	int rc;

	(void)Fseek(fd, 0, SEEK_SET);	/* fails harmlessly on a pipe */
	/* rpm's verify step checked digests and signatures just before. */
	rpmtsSetVSFlags(ts, ovs | RPMVSF_MASK_NODIGESTS | RPMVSF_MASK_NOSIGNATURES);
	rc = rpmReadPackageFile(ts, fd, pkg->nevra, &h);
	rpmtsSetVSFlags(ts, ovs);
	if (rc != RPMRC_OK && rc != RPMRC_NOKEY && rc != RPMRC_NOTTRUSTED) {
		mod_error(pkg, "(package)", "cannot read the package header");
		goto exit;
	}
	const char *compr = headerGetString(h, RPMTAG_PAYLOADCOMPRESSOR);
	mode = rstrscat(NULL, "r.", compr ? compr : "gzip", NULL);
	pfd = Fdopen(fdDup(Fileno(fd)), mode);
	files = rpmteFiles(pkg->te);
	if (pfd == NULL || Ferror(pfd) || files == NULL) {
		mod_error(pkg, "(payload)", "cannot open the payload");
		goto exit;
	}
	fi = rpmfiNewArchiveReader(pfd, files, RPMFI_ITER_READ_ARCHIVE_CONTENT_FIRST);
	q = tg_workq_new(st->jobs, TGP_DECODE_QUEUE_BYTES);
	if (fi == NULL || q == NULL) {
		mod_error(pkg, "(payload)", fi ? "out of memory" : "cannot read the payload");
		goto exit;
	}
	while ((rc = rpmfiNext(fi)) >= 0) {
		const char *path = rpmfiFN(fi);
		char *rel;
		void *buf;
		size_t len;

		if (!S_ISREG(rpmfiFMode(fi)) || !rpmfiArchiveHasContent(fi))
			continue;
		rel = tgp_config_release(path);
		if (rel) {	/* a kernel .config: never a finding */
			if (read_member(fi, st->lim.max_input_size, &buf, &len, &msg) < 0) {
				rpmlog(RPMLOG_WARNING, "taintguard: %s: %s: %s\n", pkg->nevra,
				       path, msg);
				free(msg);
				msg = NULL;
				free(rel);
				continue;
			}
			if (pkg->oot)
				untrusted(pkg, path, rel, buf);
			else
				add_config(st, pkg->nevra, path, rel, buf, len);
			continue;
		}
		rel = tgp_symvers_release(path);
		if (!tgp_candidate(path) && !rel)
			continue;
		free(rel);
		if ((msg = over_limit(st, nmods + tgp_candidate(path), t0)) != NULL) {
			tgp_decode_error(&list, st, "(package)", msg);
			free(msg);
			msg = NULL;
			rc = RPMERR_ITER_END;	/* stopped on purpose; the error entry decides */
			break;
		}
		nmods += tgp_candidate(path);
		if (!tgp_candidate(path)) {	/* only a Module.symvers: never a finding */
			if (read_member(fi, st->lim.max_symvers_size, &buf, &len, &msg) < 0) {
				rpmlog(RPMLOG_WARNING, "taintguard: %s: %s: %s\n", pkg->nevra,
				       path, msg);
				free(msg);
				msg = NULL;
				continue;
			}
		} else if (read_member(fi, st->lim.max_input_size, &buf, &len, &msg) < 0) {
			tgp_decode_error(&list, st, path, msg);
			free(msg);
			msg = NULL;
			continue;
		}
		if (!pkg->oot)
			add_symvers(st, pkg->nevra, path, buf, len);
		else if ((rel = tgp_symvers_release(path)) != NULL)
			untrusted(pkg, path, rel, NULL);
		if (tgp_candidate(path)) {
			tgp_decode_push(st, q, &list, path, buf, len);
			continue;
		}
		free(buf);
	}
	tgp_decode_finish(pkg, q, &list);
	q = NULL;
	if (rc != RPMERR_ITER_END) {
		char *e = rstrscat(NULL, "payload is corrupt (", rpmfileStrerror(rc), ")", NULL);
		mod_error(pkg, "(payload)", e);
		free(e);
	}
	pkg->scanned = true;
exit:
	if (q)
		tgp_decode_finish(pkg, q, &list);
	if (!pkg->scanned)
		pkg->scanned = pkg->n_mods > 0;	/* the error entry decides */
	rpmfiFree(fi);
	rpmfilesFree(files);
	if (pfd)
		Fclose(pfd);
	headerFree(h);
	free(mode);
}

/*
 * How many candidate files the fsm will hand to fsm_file_prepare; *symvers:
 * the package carries a Module.symvers or .config (a kernel being installed).
 */
static size_t count_candidates(rpmfiles files, bool *symvers, bool *oot)
{
	size_t n = 0;
	int fc = (int)rpmfilesFC(files);

	for (int i = 0; i < fc; i++) {
		char *fn = rpmfilesFN(files, i);
		char *rel;
		const int *links = NULL;
		uint32_t nl;

		if (!fn)
			continue;
		rel = tgp_symvers_release(fn);
		if (!rel)
			rel = tgp_config_release(fn);
		if (rel)
			*symvers = true;	/* facts about a kernel: read them */
		if (tgp_ko_suffix(fn) && !tg_kernel_path_in_tree(fn))
			*oot = true;
		if (tgp_candidate(fn) && S_ISREG(rpmfilesFMode(files, i)) &&
		    !(rpmfilesFFlags(files, i) & RPMFILE_GHOST)) {
			nl = rpmfilesFLinks(files, i, &links);
			if (nl <= 1 || links[nl - 1] == i)	/* one prepare per hardlink set */
				n++;
		}
		free(rel);
		free(fn);
	}
	return n;
}

void tgp_prescan(struct tgp_state *st, rpmts ts)
{
	rpmtsi pi = rpmtsiInit(ts);
	rpmte te;

	while ((te = rpmtsiNext(pi, TR_ADDED)) != NULL) {
		rpmfiles files = rpmteFiles(te);
		bool symvers = false, oot = false;
		size_t n;
		struct tgp_pkg *pkg;
		FD_t fd;

		if (!files)
			continue;
		n = count_candidates(files, &symvers, &oot);
		rpmfilesFree(files);
		if (n == 0 && !symvers)
			continue;	/* the common case: costs one pass over names */
		pkg = tgp_pkg_add(st, te);
		if (!pkg)
			continue;
		pkg->oot = oot;
		pkg->bs_expected = n;
		fd = rpmtsNotify(ts, te, RPMCALLBACK_INST_OPEN_FILE, 0, 0);
		if (fd == NULL) {
			rpmlog(RPMLOG_DEBUG, "taintguard: %s: no package fd from the application, "
			       "checking modules as they are unpacked\n", pkg->nevra);
			continue;
		}
		scan_payload(st, ts, pkg, fd);
		rpmtsNotify(ts, te, RPMCALLBACK_INST_CLOSE_FILE, 0, 0);
	}
	rpmtsiFree(pi);
}
