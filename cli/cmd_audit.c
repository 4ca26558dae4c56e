/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: judge every kernel module in a set of packages (.rpm
 * files, directories of them, yum/dnf repositories, or the installed system)
 * as one set, offline, and report per package.  This file holds the options
 * and the order of the phases; audit.h says which file does the rest.
 *
 *   A  read the packages that may carry modules (headers, file lists,
 *      payloads streamed in memory on --jobs threads)
 *   B  read the kernel files (Module.symvers, .config) of the packages that
 *      carry the best ones of the kernels targeted
 *   C  judge every module as one set; report
 */
#include <errno.h>
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"

static void audit_usage(FILE *out)
{
	fputs("Usage: taintguard audit [OPTIONS] PATH|URL...\n"
	      "       taintguard audit [OPTIONS] --metalink URL | --mirrorlist URL\n"
	      "       taintguard audit [OPTIONS] --installed [--root DIR]\n\n"
	      "Audit the kernel modules carried by packages: a .rpm file, a directory of .rpm\n"
	      "files (recursive), a yum/dnf repository (a directory with repodata/), or a\n"
	      "repository where it lives: its base URL (http://, https://, ftp://, file://),\n"
	      "metalink or mirrorlist.  A repository's filelists metadata says which packages\n"
	      "carry modules or kernel files: only those are opened, or downloaded (into\n"
	      "memory, each verified against the repository's checksum).  Payloads are\n"
	      "streamed in memory, never extracted.  All modules of all packages are judged\n"
	      "as one set: a GPL module importing from a proprietary module in another\n"
	      "package is refused as the kernel (5.9+) would.\n\n"
	      "What reading a repository's package found is cached under its checksum: a\n"
	      "re-audit downloads and decompresses nothing it has seen, and a changed policy\n"
	      "or kernel is judged again from the cache.\n\n"
	      "A package whose payload is corrupt (archive error, file digest mismatch), whose\n"
	      "header digest fails, whose module cannot be read, or that cannot be downloaded\n"
	      "or does not match its repository's checksum is an error, never clean.\n"
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
	      "      --installed          audit the installed system: packages that own modules\n"
	      "                           (the rpmdb; dpkg's database; DKMS's modules, named\n"
	      "                           NAME/VERSION (dkms)), and modules no package owns\n"
	      "                           (weak-updates links, copies), reported as unowned;\n"
	      "                           each file once, however many paths reach it (/lib ->\n"
	      "                           usr/lib); then a table: each installed kernel\n"
	      "                           (--kernel KVER: that one) and the out-of-tree modules\n"
	      "                           it would load (its extra/, updates/, weak-updates/,\n"
	      "                           and what weak-modules would link), judged against it:\n"
	      "                           allow/mark/deny with the taint, refused, or missing\n"
	      "                           (weak-modules would not link it); in JSON \"kernels\",\n"
	      "                           in JUnit a second suite\n"
	      "      --dbpath DIR         rpm database (keyring for signatures; --installed)\n"
	      "  -p, --policy FILE        policy (default: " TG_SYSCONFDIR "/policy.yaml, else\n"
	      "                           " TG_DATADIR "/default.yaml)\n"
	      "  -f, --format FMT         text (default), json, jsonl (a line per package),\n"
	      "                           junit or sarif\n"
	      "      --metalink URL       audit the repository a metalink describes (repeatable)\n"
	      "      --mirrorlist URL     audit the repository a mirrorlist lists (repeatable)\n"
	      "      --ca-cert FILE       trust these CA certificates for https, not the system's\n"
	      "      --cache DIR          cache of package facts (default: /var/cache/taintguard\n"
	      "                           as root, else $XDG_CACHE_HOME/taintguard)\n"
	      "      --no-cache           neither read nor write the cache\n"
	      "      --cached-only        the arguments are repository checksums (TYPE:HEX):\n"
	      "                           judge the packages the cache has read before, skip\n"
	      "                           the others (what the dnf plugins know before a\n"
	      "                           download)\n"
	      "  -x, --excludes           print only 'excludepkgs=NEVRA,...' of denied packages\n"
	      "                           (a line for dnf.conf or a .repo file)\n"
	      "  -j, --jobs N             threads (default: number of CPUs)\n"
	      "  -M, --max-module-size N  refuse modules larger than N bytes decompressed\n"
	      "  -L, --limit NAME=N       set a resource limit (repeatable; names and defaults\n"
	      "                           in taintguard(1), LIMITS)\n"
	      "  -q, --quiet              no progress bar\n"
	      "      --all                text: list every module (default: the summary and the\n"
	      "                           modules not allowed, by package; the rest counted)\n"
	      "  -v, --verbose            list every module, symbol and remedy (implies --all);\n"
	      "                           show librpm messages\n"
	      "  -h, --help               show this help\n\n"
	      "The text output shows the problems first: every package and module that is not\n"
	      "allowed, or could not be read, and the summary; --all lists everything.  JSON,\n"
	      "JSON lines, JUnit and SARIF always carry every module.\n\n"
	      "Exit codes: 0 all allowed, 1 something marked and nothing denied,\n"
	      "2 something denied, 3 usage error or a package/module that could not be read.\n", out);
}

/* A kernel file of the audited set that is skipped (an export table that does not parse). */
static void warn_kernel_file(void *ctx, const char *msg)
{
	(void)ctx;
	cli_error("%s", msg);
}

/* ---------------------------------------------------------- sorting */

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

/*
 * Packages without modules are not listed; those that carry kernel files
 * stay alive (the kernel set points to them) but hidden.  Then everything
 * sorted, so that the report never depends on the reading order.
 */
static void settle(struct audit *a)
{
	size_t w = 0;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		if (!audit_pkg_listed(p))
			a->n_skipped++;
		if (audit_pkg_listed(p) || p->has_kernel_files)
			a->pkgs[w++] = p;
		else
			audit_pkg_free(p);
	}
	a->n_pkgs = w;
	qsort(a->pkgs, a->n_pkgs, sizeof(*a->pkgs), cmp_pkg);
	for (size_t i = 0; i < a->n_pkgs; i++)
		if (a->pkgs[i]->n_mods > 1)
			qsort(a->pkgs[i]->mods, a->pkgs[i]->n_mods, sizeof(struct audit_module *),
			      cmp_mod);
}

/* ------------------------------------------------------------ phases */

/* Downloads held in memory at once, at most (a larger package goes alone). */
#define BATCH_BYTES (256ull << 20)

/* --format jsonl: a package that failed with nothing read is final now: its line goes out. */
static void early_lines(struct audit *a, struct audit_pkg **v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct audit_pkg *p = v[i];

		if (!a->jsonl || !p->error || p->n_mods || p->reported || !audit_pkg_listed(p))
			continue;
		p->had_error = true;
		p->action = TG_ACTION_ALLOW;
		report_jsonl_package(a, p, stdout);
		p->reported = true;
	}
}

/*
 * Read @todo: what the cache has is taken from it; the rest is downloaded
 * (remote packages, in batches that bound the memory held) and read on the
 * pool, and what was read completely goes into the cache.
 */
static void process(struct audit *a, struct audit_pkg **todo, size_t n, bool modules)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (!audit_cache_load(a, todo[i]))
			todo[k++] = todo[i];
	if (a->cached_only) {
		/* nothing is read: what the cache lacks stays unknown, unlisted */
		for (size_t i = 0; i < k; i++)
			todo[i]->has_modules = false;
		return;
	}
	for (size_t start = 0, end; start < k; start = end) {
		uint64_t bytes = 0;

		for (end = start; end < k; end++) {
			uint64_t sz = todo[end]->remote ? todo[end]->size : 0;

			if (end > start && bytes + sz > BATCH_BYTES)
				break;
			bytes += sz;
		}
		audit_fetch(a, todo + start, end - start);
		audit_read(a, todo + start, end - start, modules);
		for (size_t i = start; i < end; i++) {
			if (todo[i]->fd >= 0) {
				close(todo[i]->fd);	/* read: the memory goes back */
				todo[i]->fd = -1;
			}
			audit_cache_store(a, todo[i]);
		}
		early_lines(a, todo + start, end - start);
	}
}

/* --cached-only: a package known only by its repository checksum, as the cache keys it. */
static int by_checksum(struct audit *a, const char *sum)
{
	struct audit_pkg *p;

	if (!pkg_checksum_type(sum)) {
		cli_error("%s: not a checksum (TYPE:HEX, e.g. sha256:...)", sum);
		return -EINVAL;
	}
	audit_cache_open(a);
	p = audit_pkg_new(a);
	if (!p || !(p->checksum = strdup(sum)))
		return -ENOMEM;
	p->has_modules = true;
	return 0;
}

/* A: every package that may carry modules (a repository said which). */
static int read_packages(struct audit *a, struct audit_pkg **todo)
{
	size_t n = 0;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		struct audit_pkg *p = a->pkgs[i];

		if (p->error)
			continue;
		/* repodata told us: a package with kernel files only waits for phase B */
		if (p->location && !p->has_modules)
			continue;
		todo[n++] = p;
	}
	process(a, todo, n, true);
	return 0;
}

static int report(const struct audit *a)
{
	int r;

	/* one lock for the whole report: stdio would take it per character otherwise */
	flockfile(stdout);
	if (a->excludes) {
		r = report_excludes(a, stdout);
	} else if (a->jsonl) {
		r = 0;
		for (size_t i = 0; i < a->n_pkgs && r == 0; i++)
			if (audit_pkg_listed(a->pkgs[i]) && !a->pkgs[i]->reported)
				r = report_jsonl_package(a, a->pkgs[i], stdout);
		if (r == 0)
			r = report_jsonl_summary(a, stdout);
	}
	else if (a->o.format == FMT_JSON)
		r = report_json(a, stdout);
	else if (a->o.format == FMT_JUNIT)
		r = report_junit(a, stdout);
	else if (a->o.format == FMT_SARIF)
		r = report_sarif(a, stdout);
	else {
		r = report_text(a, stdout);
		if (r == 0 && a->installed)
			r = report_kernels_text(a, stdout);
	}
	funlockfile(stdout);
	if (r < 0 || fflush(stdout) != 0) {
		cli_error("write error on standard output");
		return -EIO;
	}
	return 0;
}

/* Package errors on stderr; the exit code from the worst result. */
static int outcome(const struct audit *a)
{
	enum tg_action worst = TG_ACTION_ALLOW;
	bool had_error = false;

	for (size_t i = 0; i < a->n_pkgs; i++) {
		const struct audit_pkg *p = a->pkgs[i];

		if (!audit_pkg_listed(p))
			continue;	/* a kernel-file carrier only */
		if (p->error)
			cli_error("%s: %s", p->file ? p->file : p->nevra ? p->nevra : "?", p->error);
		had_error |= p->had_error;
		if (p->action > worst)
			worst = p->action;
	}
	return cli_exit_for(worst, had_error);
}

int cmd_audit(int argc, char **argv)
{
	enum { OPT_INSTALLED = 256, OPT_DBPATH, OPT_METALINK, OPT_MIRRORLIST, OPT_CACERT, OPT_CACHE,
	       OPT_NO_CACHE, OPT_ALL, OPT_CACHED_ONLY };
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "excludes", no_argument, NULL, 'x' },
		{ "installed", no_argument, NULL, OPT_INSTALLED },
		{ "dbpath", required_argument, NULL, OPT_DBPATH },
		{ "metalink", required_argument, NULL, OPT_METALINK },
		{ "mirrorlist", required_argument, NULL, OPT_MIRRORLIST },
		{ "ca-cert", required_argument, NULL, OPT_CACERT },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "no-cache", no_argument, NULL, OPT_NO_CACHE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "all", no_argument, NULL, OPT_ALL },
		{ "cached-only", no_argument, NULL, OPT_CACHED_ONLY },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct audit a = { .reaper_fd = -1 };
	const char **mirrors = calloc((size_t)argc + 1, sizeof(*mirrors));
	enum pkg_remote_kind *kinds = calloc((size_t)argc + 1, sizeof(*kinds));
	size_t n_mirrors = 0;
	bool no_cache = false;
	struct tg_ctx *ctx = NULL;
	struct audit_pkg **todo = NULL;
	size_t n_todo = 0;
	char *error = NULL;
	bool rpm_ready = false;
	int opt, rc = TG_EXIT_ERROR, r;

	cli_opts_init(&a.o);
	if (!mirrors || !kinds) {
		cli_error("out of memory");
		goto out;
	}
	while ((opt = getopt_long(argc, argv, "k:s:c:r:p:f:j:M:L:xqvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'h':
			audit_usage(stdout);
			rc = 0;
			goto out;
		case 'f':
			if (!strcmp(optarg, "jsonl")) {	/* audit's own: a line per package */
				a.jsonl = true;
				a.o.format = FMT_JSON;
				continue;
			}
			a.jsonl = false;
			break;
		case OPT_METALINK:
		case OPT_MIRRORLIST:
			kinds[n_mirrors] = opt == OPT_METALINK ? PKG_REMOTE_METALINK : PKG_REMOTE_MIRRORLIST;
			mirrors[n_mirrors++] = optarg;
			continue;
		case OPT_CACERT:
			a.ca_cert = optarg;
			continue;
		case OPT_CACHE:
			a.cache_dir = optarg;
			no_cache = false;
			continue;
		case OPT_NO_CACHE:
			no_cache = true;
			continue;
		case 'x':
			a.excludes = true;
			continue;
		case OPT_INSTALLED:
			a.installed = true;
			continue;
		case OPT_ALL:
			a.all = true;
			continue;
		case OPT_CACHED_ONLY:
			a.cached_only = true;
			continue;
		case OPT_DBPATH:
			a.dbpath = optarg;
			continue;
		}
		if (cli_common_option(&a.o, opt, optarg) != 1) {
			if (opt == '?' || opt == ':')
				audit_usage(stderr);
			goto out;
		}
	}
	if (a.installed == (optind < argc || n_mirrors)) {
		cli_error(a.installed ? "audit --installed takes no PATH or URL"
				      : "audit needs a package, a directory or a repository (or --installed)");
		audit_usage(stderr);
		goto out;
	}
	if (a.excludes && a.jsonl) {
		cli_error("--excludes and --format jsonl exclude each other");
		goto out;
	}
	if (no_cache)
		a.cache_dir = NULL;
	a.no_cache = no_cache;
	a.progress = !a.o.quiet && isatty(STDERR_FILENO);
	a.all |= a.o.verbose;
	/*
	 * Module images (up to ~20 MB decompressed) come and go thousands of
	 * times: a fixed mmap threshold returns each one to the system on free
	 * instead of letting glibc's sliding threshold keep them in the heap.
	 */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 4 << 20);

	ctx = cli_ctx_new(&a.o);
	a.ks = pkg_kernelset_new(warn_kernel_file, NULL);
	if (!ctx || !a.ks)
		goto out;
	if (pkg_rpm_setup(a.dbpath, a.o.verbose, &error) >= 0) {
		rpm_ready = true;
	} else if (a.installed && !a.dbpath) {
		/*
		 * Debian without the rpm package: librpm but no rpm configuration,
		 * so no rpmdb either; dpkg and DKMS still say who owns what.
		 */
		if (!a.o.quiet)
			fprintf(stderr, "audit: %s (rpm is not installed?): no rpmdb read\n",
				error ? error : "cannot set up librpm");
		a.no_rpmdb = true;
	} else {
		cli_error("%s", error ? error : "cannot set up librpm");
		goto out;
	}
	if (a.installed) {
		if (audit_scan_installed(&a) < 0) {
			cli_error("cannot read the installed system: out of memory");
			goto out;
		}
	} else {
		for (int i = optind; i < argc; i++)
			if ((a.cached_only ? by_checksum(&a, argv[i]) : audit_collect(&a, argv[i])) < 0)
				goto out;
		for (size_t i = 0; i < n_mirrors; i++)
			if (audit_repo_remote(&a, mirrors[i], kinds[i]) < 0)
				goto out;
		todo = calloc(a.n_pkgs ? a.n_pkgs : 1, sizeof(*todo));
		if (!todo || read_packages(&a, todo) < 0)
			goto out;
	}
	n_todo = audit_kernel_carriers(&a, todo);
	process(&a, todo, n_todo, false);
	settle(&a);
	r = audit_judge(&a, ctx);
	if (r == 0 && a.installed)
		r = audit_installed_kernels(&a, ctx);
	if (r < 0) {
		if (r == -ENOMEM)
			cli_error("out of memory");
		goto out;
	}
	if (report(&a) == 0)
		rc = outcome(&a);
out:
	free(todo);
	free(error);
	free(mirrors);
	free(kinds);
	audit_cache_close(&a);
	audit_repo_free(&a);
	audit_kernels_free(&a);
	audit_kups_free(&a);
	audit_free(&a);
	tg_ctx_free(ctx);
	if (rpm_ready)
		pkg_rpm_teardown();
	return rc;
}
