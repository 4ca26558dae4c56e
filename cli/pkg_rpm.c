/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: reading packages with librpm, offline.
 *
 * rpmReadPackageFile() checks the header digests (and signatures when a key
 * is known); the payload is streamed with rpmfiNewArchiveReader() straight
 * into memory, never to disk.  librpm does not check payload integrity on
 * this path, so every regular file read from the archive is hashed and
 * compared with the header's file digest, and the archive iteration must end
 * with RPMERR_ITER_END: anything else makes the package an error, never clean.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmarchive.h>
#include <rpm/rpmcrypto.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmfi.h>
#include <rpm/rpmfiles.h>
#include <rpm/rpmio.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>

#include "audit.h"

/* librpm logs through one global callback; keep each thread's last message. */
static __thread char tls_log[512];
static bool log_verbose;

static int log_cb(rpmlogRec rec, rpmlogCallbackData data)
{
	const char *msg = rpmlogRecMessage(rec);
	size_t n;

	(void)data;
	if (rpmlogRecPriority(rec) <= RPMLOG_WARNING && msg) {
		snprintf(tls_log, sizeof(tls_log), "%s", msg);
		n = strlen(tls_log);
		while (n && (tls_log[n - 1] == '\n' || tls_log[n - 1] == ' '))
			tls_log[--n] = 0;
	}
	return log_verbose ? RPMLOG_DEFAULT : 0;
}

int rpm_setup(const struct audit *a)
{
	if (rpmReadConfigFiles(NULL, NULL) != 0) {
		cli_error("cannot read the rpm configuration");
		return -1;
	}
	if (a->dbpath) {
		char *def = xasprintf("_dbpath %s", a->dbpath);

		if (!def)
			return -1;
		rpmDefineMacro(NULL, def, RMIL_CMDLINE);
		free(def);
	}
	log_verbose = a->o.verbose;
	rpmlogSetCallback(log_cb, NULL);
	return 0;
}

void rpm_teardown(void)
{
	rpmFreeMacros(NULL);
	rpmFreeRpmrc();
}

void *rpm_ts_new(const struct audit *a)
{
	rpmts ts = rpmtsCreate();

	if (!ts)
		return NULL;
	if (a->o.root)
		rpmtsSetRootDir(ts, a->o.root);
	/* Enforce digests only: an unknown or untrusted key is reported, not fatal. */
	rpmtsSetVfyLevel(ts, RPMSIG_DIGEST_TYPE);
	return ts;
}

void rpm_ts_free(void *ts)
{
	if (ts)
		rpmtsFree(ts);
}

const char *sig_status_name(enum sig_status s)
{
	switch (s) {
	case SIG_UNSIGNED: return "unsigned";
	case SIG_OK: return "ok";
	case SIG_NOKEY: return "nokey";
	case SIG_NOTTRUSTED: return "nottrusted";
	case SIG_BAD: return "bad";
	case SIG_INSTALLED: return "installed";
	default: return "unknown";
	}
}

/* ------------------------------------------------------------ paths */

int classify_path(const char *path, char *rel, size_t rlen, int *prio)
{
	const char *base = strrchr(path, '/');
	int place;

	base = base ? base + 1 : path;
	if (tg_module_file_name(base))
		return 1;
	/* the library's search order ranks the carriers (kernel-devel before /boot, ...) */
	if (strstr(base, "symvers") && (place = tg_kernel_symvers_place(path, rel, rlen)) >= 0) {
		*prio = place;
		return 2;
	}
	/* kernel .config: ranked after every symvers, so a symvers carrier is read first */
	if (strstr(base, "config") && (place = tg_kernel_config_place(path, rel, rlen)) >= 0) {
		*prio = 100 + place;
		return 3;
	}
	return 0;
}

/* ----------------------------------------------------------- header */

static char *hstr(Header h, rpmTagVal tag)
{
	const char *s = headerGetString(h, tag);

	return s ? strdup(s) : NULL;
}

static void set_error(struct audit_pkg *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void set_error(struct audit_pkg *p, const char *fmt, ...)
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

static void header_facts(Header h, struct audit_pkg *p)
{
	if (!p->name)
		p->name = hstr(h, RPMTAG_NAME);
	free(p->nevra);
	p->nevra = headerGetAsString(h, RPMTAG_NEVRA);
	if (!p->license)
		p->license = hstr(h, RPMTAG_LICENSE);
	if (!p->sig_info && (headerIsEntry(h, RPMTAG_RSAHEADER) || headerIsEntry(h, RPMTAG_DSAHEADER))) {
		char *s = headerFormat(h, "%|DSAHEADER?{%{DSAHEADER:pgpsig}}:{%{RSAHEADER:pgpsig}}|", NULL);

		if (s && *s)
			p->sig_info = s;
		else
			free(s);
	}
}

static bool header_signed(Header h)
{
	return headerIsEntry(h, RPMTAG_RSAHEADER) || headerIsEntry(h, RPMTAG_DSAHEADER) ||
	       headerIsEntry(h, RPMTAG_SIGPGP) || headerIsEntry(h, RPMTAG_SIGGPG);
}

/*
 * Looks at the file list; records the kernel files (symvers, .config) it
 * carries (audit_sv_add() refuses them from a package with out-of-tree
 * modules, so those are registered after every module was seen).  Returns
 * the module count.
 */
static size_t scan_files(struct audit *a, rpmfiles files, struct audit_pkg *p)
{
	rpm_count_t fc = rpmfilesFC(files);
	size_t nmod = 0;
	bool kernel_files = false;

	/* a second pass only for the rare package that carries kernel files */
	for (int pass = 0; pass < 1 + kernel_files; pass++)
		for (rpm_count_t i = 0; i < fc; i++) {
			char rel[256];
			int prio = 0, kind;
			char *fn;

			if (!S_ISREG(rpmfilesFMode(files, i)) ||
			    (rpmfilesFFlags(files, i) & RPMFILE_GHOST))
				continue;
			fn = rpmfilesFN(files, i);
			if (!fn)
				continue;
			kind = classify_path(fn, rel, sizeof(rel), &prio);
			if (pass == 0 && kind == 1) {
				nmod++;
				p->oot_modules |= !tg_kernel_path_in_tree(fn);
			} else if (pass == 0 && kind >= 2) {
				kernel_files = true;
			} else if (pass == 1 && kind >= 2 && a) {
				audit_sv_add(a, rel, prio, fn, p);
			}
			free(fn);
		}
	/* only usable kernel files make the payload worth streaming for them */
	p->has_symvers = kernel_files && !p->oot_modules;
	p->has_modules = nmod > 0;
	return nmod;
}

/* ----------------------------------------------------------- payload */

static const char *compr_mode(const char *c)
{
	/* rpmio knows both its io names and the compressor names. */
	if (!c || !*c || !strcmp(c, "gzip"))
		return "r.gzdio";
	if (!strcmp(c, "bzip2"))
		return "r.bzdio";
	if (!strcmp(c, "xz"))
		return "r.xzdio";
	if (!strcmp(c, "lzma"))
		return "r.lzdio";
	if (!strcmp(c, "zstd"))
		return "r.zstdio";
	return NULL;
}

static int read_content(rpmfi fi, bool keep, uint64_t cap, void **out, size_t *outlen,
			DIGEST_CTX dig, const char **why)
{
	rpm_loff_t size = rpmfiFSize(fi);
	char chunk[65536];
	char *buf = NULL;
	rpm_loff_t done = 0;

	*out = NULL;
	*outlen = 0;
	if (keep) {
		if ((uint64_t)size > cap) {
			*why = "file larger than the input size limit";
			keep = false;
		} else {
			buf = malloc(size + 1);
			if (!buf) {
				*why = "out of memory";
				return -ENOMEM;
			}
		}
	}
	while (done < size) {
		size_t want = size - done;
		char *dst = buf ? buf + done : chunk;
		ssize_t r;

		if (!buf && want > sizeof(chunk))
			want = sizeof(chunk);
		r = rpmfiArchiveRead(fi, dst, want);
		if (r <= 0) {
			free(buf);
			*why = "archive read error";
			return -EIO;
		}
		if (dig)
			rpmDigestUpdate(dig, dst, (size_t)r);
		done += r;
	}
	if (buf) {
		buf[size] = 0;
		*out = buf;
		*outlen = (size_t)size;
	}
	return 0;
}

static void stream_payload(const struct audit *a, FD_t fd, Header h, rpmfiles files,
			   struct audit_pkg *p, const struct payload_sink *sink, size_t nmod)
{
	const char *mode = compr_mode(headerGetString(h, RPMTAG_PAYLOADCOMPRESSOR));
	bool want_mod = sink->want_modules && p->has_modules;
	bool want_sv = sink->want_symvers && p->has_symvers;
	size_t seen_mod = 0;
	FD_t pfd;
	rpmfi fi;
	int rc;

	if (!mode) {
		set_error(p, "unsupported payload compressor '%s'",
			  headerGetString(h, RPMTAG_PAYLOADCOMPRESSOR));
		return;
	}
	pfd = Fdopen(fd, mode);
	if (!pfd) {
		set_error(p, "cannot open the payload (%s)", mode + 2);
		return;
	}
	fi = rpmfiNewArchiveReader(pfd, files, RPMFI_ITER_READ_ARCHIVE_CONTENT_FIRST);
	if (!fi) {
		set_error(p, "cannot read the payload archive");
		return;
	}
	while ((rc = rpmfiNext(fi)) >= 0) {
		char rel[256];
		int prio = 0, kind;
		const char *fn, *why = NULL;
		const unsigned char *want_dig;
		size_t diglen = 0, len = 0;
		int algo = 0;
		DIGEST_CTX dig = NULL;
		void *data = NULL;
		bool keep;

		if (!S_ISREG(rpmfiFMode(fi)) || !rpmfiArchiveHasContent(fi))
			continue;
		fn = rpmfiFN(fi);
		kind = classify_path(fn, rel, sizeof(rel), &prio);
		keep = (kind == 1 && want_mod) || (kind >= 2 && want_sv);
		if (kind == 1)
			seen_mod++;
		want_dig = rpmfiFDigest(fi, &algo, &diglen);
		if (!keep && !want_dig)
			continue;	/* rpmfiNext skips the content */
		if (want_dig && diglen)
			dig = rpmDigestInit(algo, RPMDIGEST_NONE);
		if (read_content(fi, keep, a->o.limits.max_input_size, &data, &len, dig, &why) < 0) {
			if (dig)
				rpmDigestFinal(dig, NULL, NULL, 0);
			set_error(p, "payload: %s: %s", fn, why);
			if (kind == 1 && want_mod)
				sink->module(sink->ctx, p, fn, NULL, 0, p->error);
			break;
		}
		if (dig) {
			void *got = NULL;
			size_t gotlen = 0;

			rpmDigestFinal(dig, &got, &gotlen, 0);
			if (!got || gotlen != diglen || memcmp(got, want_dig, diglen)) {
				char *msg = xasprintf("payload: %s: file digest mismatch (corrupted package)", fn);

				set_error(p, "%s", msg ? msg : "file digest mismatch");
				free(data);
				data = NULL;
				why = msg;
				if (kind == 1 && want_mod)
					sink->module(sink->ctx, p, fn, NULL, 0, msg ? msg : "file digest mismatch");
				free(msg);
				free(got);
				continue;
			}
			free(got);
		}
		if (kind == 1 && want_mod)
			sink->module(sink->ctx, p, fn, data, len, why);
		else if (kind >= 2 && want_sv && data)
			sink->symvers(sink->ctx, p, fn, rel, prio, data, len);
		else
			free(data);
	}
	if (rc != RPMERR_ITER_END && !p->error) {
		char *e = rpmfileStrerror(rc);

		set_error(p, "payload: archive error: %s (%d)", e ? e : "unknown", rc);
		free(e);
	}
	if (!p->error && seen_mod < nmod)
		set_error(p, "payload: %zu of %zu module files listed in the header are missing",
			  nmod - seen_mod, nmod);
	rpmfiFree(fi);
	/* Fdopen() returned the same FD_t: the caller closes it once. */
	(void)pfd;
}

void rpm_read_package(void *tsp, const struct audit *ac, struct audit_pkg *p,
		      const struct payload_sink *sink)
{
	struct audit *a = (struct audit *)ac;
	rpmts ts = tsp;
	Header h = NULL;
	rpmfiles files = NULL;
	FD_t fd;
	rpmRC rc;
	size_t nmod;

	tls_log[0] = 0;
	fd = Fopen(p->file, "r.ufdio");
	if (!fd || Ferror(fd)) {
		set_error(p, "%s", fd ? Fstrerror(fd) : strerror(errno));
		if (fd)
			Fclose(fd);
		return;
	}
	rc = rpmReadPackageFile(ts, fd, p->file, &h);
	switch (rc) {
	case RPMRC_OK:
		p->sig = h && header_signed(h) ? SIG_OK : SIG_UNSIGNED;
		break;
	case RPMRC_NOKEY:
		p->sig = SIG_NOKEY;
		break;
	case RPMRC_NOTTRUSTED:
		p->sig = SIG_NOTTRUSTED;
		break;
	case RPMRC_NOTFOUND:
		set_error(p, "not an rpm package%s%s", tls_log[0] ? ": " : "", tls_log);
		goto out;
	default:
		p->sig = SIG_BAD;
		set_error(p, "header digest or signature check failed%s%s",
			  tls_log[0] ? ": " : "", tls_log);
		goto out;
	}
	if (!h) {
		set_error(p, "no header");
		goto out;
	}
	header_facts(h, p);
	files = rpmfilesNew(NULL, h, 0, RPMFI_KEEPHEADER);
	if (!files) {
		set_error(p, "cannot read the file list");
		goto out;
	}
	nmod = scan_files(a, files, p);
	if (sink && ((sink->want_modules && p->has_modules) ||
		     (sink->stream_for_symvers && p->read_payload && p->has_symvers)))
		stream_payload(a, fd, h, files, p, sink, nmod);
out:
	rpmfilesFree(files);
	headerFree(h);
	Fclose(fd);
}

/* ------------------------------------------------------------ rpmdb */

int rpm_scan_installed(struct audit *a)
{
	rpmts ts = rpm_ts_new(a);
	rpmdbMatchIterator mi;
	Header h;
	int r = 0;

	if (!ts)
		return -ENOMEM;
	mi = rpmtsInitIterator(ts, RPMDBI_PACKAGES, NULL, 0);
	while (mi && (h = rpmdbNextIterator(mi))) {
		rpmfiles files = rpmfilesNew(NULL, h, 0, RPMFI_KEEPHEADER);
		struct audit_pkg tmp = { 0 }, *p;
		size_t nmod;

		if (!files)
			continue;
		nmod = scan_files(NULL, files, &tmp);
		if (!nmod) {
			rpmfilesFree(files);
			a->n_skipped++;
			continue;
		}
		p = audit_pkg_new(a);
		if (!p) {
			rpmfilesFree(files);
			r = -ENOMEM;
			break;
		}
		p->installed = true;
		p->has_modules = true;
		header_facts(h, p);
		p->sig = header_signed(h) ? SIG_INSTALLED : SIG_UNSIGNED;
		for (rpm_count_t i = 0; i < rpmfilesFC(files); i++) {
			char rel[256], *fn;
			int prio;
			struct audit_module *m;

			if (!S_ISREG(rpmfilesFMode(files, i)) || (rpmfilesFFlags(files, i) & RPMFILE_GHOST))
				continue;
			fn = rpmfilesFN(files, i);
			if (!fn || classify_path(fn, rel, sizeof(rel), &prio) != 1) {
				free(fn);
				continue;
			}
			m = calloc(1, sizeof(*m));
			if (!m || audit_pkg_add_module(p, m) < 0) {
				free(m);
				free(fn);
				r = -ENOMEM;
				break;
			}
			m->path = fn;
		}
		rpmfilesFree(files);
		if (r < 0)
			break;
	}
	rpmdbFreeIterator(mi);
	rpm_ts_free(ts);
	return r;
}
