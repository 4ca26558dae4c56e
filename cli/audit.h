/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: the front end's data model and its files.  Package
 * reading itself is pkg/ (libtgpkg); these files only decide what to read
 * and how to report it.  Calls go one way: cmd_audit.c uses the others, the
 * others use audit_model.c and pkg/.
 *
 * cmd_audit.c     options, the order of the phases, exit code
 * audit_model.c   packages and modules of an audit
 * audit_input.c   what to audit: .rpm files, directories, the installed system
 * audit_repo.c    repositories, local and remote (URLs, metalinks, mirrorlists):
 *                 their metadata, the packages that matter, downloads
 * audit_cache.c   the cache: what reading a package found, kept by its checksum
 * audit_read.c    reading packages on the thread pool (headers, payloads, modules)
 * audit_judge.c   target kernels, the set judged as one, results per package
 * audit_report.c  text, JSON, JSON lines, JUnit and SARIF output
 * audit_kernels.c --installed: the module x installed-kernel table
 * audit_kupdate.c a kernel package in the set: what it does to the root's modules
 */
#ifndef TG_AUDIT_H
#define TG_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>
#include <time.h>

#include "cli.h"
#include "pkg.h"

/* Where a package's kernel exports came from. */
enum sv_source { SV_NONE = 0, SV_PACKAGE, SV_HOST, SV_OPTION };

struct audit_module {
	char *path;		/* path inside the package (or on disk for --installed) */
	char *disk_path;	/* --installed: file to open (root + path, links resolved) */
	char *link_target;	/* a symlink's target (weak-updates), else NULL */
	struct tg_module *m;
	char *error;		/* could not be read / integrity failure */
	bool not_module;	/* --installed: a hidden candidate that is no module (a plain .o) */
	bool vanished;		/* --installed: no such file when it was read (erased meanwhile?) */
	char *release;		/* target kernel release, NULL unknown */
	struct tg_verdict v;	/* filled by the set prediction */
};

struct target {			/* one kernel a package was judged against */
	const char *release;
	const char *symvers;	/* label of the export table, NULL none */
	enum sv_source source;
	const char *config;	/* the kernel .config used, NULL none */
};

struct audit_remote;

/* --installed: one installed kernel and the out-of-tree modules it would load. */
struct audit_krow {
	char *release;
	struct pkg_kmod *km;	/* pkg_kupdate_modules() */
	size_t n;
	struct tg_verdict *v;	/* one per km, judged as one set against release */
};

/* A kernel package of the set: the lines said of the root's modules under it. */
struct audit_kup {
	const struct audit_pkg *p;
	size_t n_modules;	/* judged: the root's and the set's for that kernel */
	char **lines;		/* pkg_kupdate_line(), one per module it will not load cleanly */
	size_t n_lines;
	char *error;		/* why the root's modules were not judged, else NULL */
};

struct audit_pkg {
	char *file;		/* .rpm file, NULL for rpmdb / unowned / remote */
	char *location;		/* repodata location (for messages) */
	/* from repository metadata */
	char *checksum;		/* "TYPE:HEX" of the .rpm: verified when read, the cache's key */
	uint64_t size;		/* bytes of the .rpm (0 unknown) */
	char *base;		/* xml:base of its location, NULL when none */
	struct audit_remote *remote;	/* where to download it from, NULL when local */
	char *url;		/* where it was downloaded from */
	int fd;			/* downloaded: the verified package in memory, else -1 */
	bool cached;		/* its facts came from the cache: not read */
	bool reported;		/* --format jsonl: its line was written early */
	char *name, *nevra, *license;
	bool unowned;		/* pseudo package: modules no package owns */
	bool not_rpm;		/* a dpkg package or a DKMS module/version: no license tag, no signature */
	bool installed;
	unsigned rpmdb_instance;	/* --installed: its header's number in the rpmdb (0 none) */
	enum pkg_sig sig;
	char *sig_info;		/* "RSA/SHA256, <date>, Key ID ..." */
	char *error;		/* package-level error (never clean) */

	/* from the file list (header or filelists.xml) */
	bool has_modules;
	/* carries kernel files it may lend (not when it also ships out-of-tree modules) */
	bool has_kernel_files;
	/*
	 * Ships modules outside a kernel's own tree (extra/, updates/, /opt ...):
	 * its Module.symvers or .config are not used to judge anything (a
	 * package cannot vouch for its own modules).
	 */
	bool oot_modules;
	bool read_payload;	/* phase B: a kernel file is needed from this package */
	/*
	 * A kernel package: the release whose image, export table and .config
	 * it ships (pkg_files_kernel_release()), else NULL.
	 */
	char *krel;
	bool modules_read;	/* its payload's module candidates were all read */

	struct audit_module **mods;
	size_t n_mods, cap_mods;

	/* results */
	enum tg_action action;
	bool had_error;
	unsigned taint;
	const char *taint_letters;	/* its kernel's letters (a vendor's), NULL: upstream's */
	size_t n_refused, n_deny, n_mark;
	struct target *targets;
	size_t n_targets;
};

struct audit {
	struct cli_opts o;
	const char *dbpath;
	bool installed, excludes;
	bool no_rpmdb;		/* --installed where rpm is not set up (a dpkg-only host) */
	bool all;		/* --all (or -v): the text lists every module, not only the problems */
	bool jsonl;		/* --format jsonl */
	const char *ca_cert;	/* --ca-cert */
	const char *cache_dir;	/* --cache, NULL: the default */
	bool no_cache;		/* --no-cache */
	bool cached_only;	/* --cached-only: the arguments are checksums, judged from the cache */
	struct pkg_cache *cache;
	char *keyring_id;	/* what signatures were checked against (cached records carry it) */
	struct audit_remote **remotes;
	size_t n_remotes;
	char *tmpdir;		/* private, for remote metadata; removed by audit_free() */
	int reaper_fd;		/* its reaper removes it if this process dies first */
	pid_t reaper_pid;
	struct audit_pkg **pkgs;
	size_t n_pkgs, cap_pkgs;
	size_t n_skipped;	/* packages without modules */
	/*
	 * Of those, skipped by repository metadata: filelists carry no file
	 * classes, so a module hidden under another name there is not seen.
	 */
	size_t n_skipped_meta;
	struct pkg_kernelset *ks;	/* kernel files of the audited packages */
	bool progress;		/* the progress bar (stderr, terminal only) */
	struct audit_krow *krows;	/* --installed: the kernel table */
	size_t n_krows;
	struct audit_kup *kups;		/* kernel packages of the set (not --installed) */
	size_t n_kups;
	struct pkg_owners owners;	/* --installed: dpkg's and DKMS's module files */
};

/* ----------------------------------------------------- audit_model.c */
struct audit_pkg *audit_pkg_new(struct audit *a);
/* Listed in reports: carries modules, or is an error.  Others only lend kernel files. */
bool audit_pkg_listed(const struct audit_pkg *p);
void audit_pkg_free(struct audit_pkg *p);
/* A new module entry of @p for @path; NULL on ENOMEM. */
struct audit_module *audit_pkg_add_module(struct audit_pkg *p, const char *path);
void audit_module_free(struct audit_module *m);
/* The package's error, unless it has one already (the first cause is kept). */
void audit_pkg_error(struct audit_pkg *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record a kernel file of @p's (file list or payload); says why when it is not used. */
void audit_kernel_file(struct audit *a, struct audit_pkg *p, const char *path,
		       const struct pkg_class *c, void *data, size_t len);
void audit_free(struct audit *a);
/* A progress line is due: 100 ms since the last one (then @last becomes @now). */
bool audit_progress_due(struct timespec *last, const struct timespec *now);

/* ----------------------------------------------------- audit_input.c */
/* A .rpm file, a directory of them (recursive), a repository or a URL. */
int audit_collect(struct audit *a, const char *path);

/* ------------------------------------------------------ audit_repo.c */
/* True for scheme://... */
bool audit_is_url(const char *s);
/* A local repository (a directory with repodata/). */
int audit_repo_local(struct audit *a, const char *dir);
/* A remote repository: base URL, metalink or mirrorlist. */
int audit_repo_remote(struct audit *a, const char *url, enum pkg_remote_kind kind);
/*
 * Download the remote packages among @todo (verified, into memory: p->fd),
 * or say why not in p->error.
 */
void audit_fetch(struct audit *a, struct audit_pkg **todo, size_t n);
/* The remote repositories and the private directory. */
void audit_repo_free(struct audit *a);

/* ----------------------------------------------------- audit_cache.c */
/* The cache directory (--cache, the default, or none): a warning when unusable. */
void audit_cache_open(struct audit *a);
/* The package's record, when the cache has a valid one: p filled, p->cached set. */
bool audit_cache_load(struct audit *a, struct audit_pkg *p);
/* The record of a package that was read completely without an error. */
void audit_cache_store(struct audit *a, struct audit_pkg *p);
/* A repository's scan by its metadata's checksums (pkg_repodata sums). */
bool audit_cache_scan_get(struct audit *a, const struct pkg_repodata *rd, struct pkg_repo_list *l);
void audit_cache_scan_put(struct audit *a, const struct pkg_repodata *rd, const struct pkg_repo_list *l);
/* Corrupt entries and write failures, said once; statistics with --verbose. */
void audit_cache_close(struct audit *a);
/* --installed: the rpmdb's packages owning modules, unowned modules, all read from disk. */
int audit_scan_installed(struct audit *a);

/* ------------------------------------------------------ audit_read.c */
/*
 * Read @n packages on --jobs threads: header, file list and (@modules) the
 * module candidates of the payload, or (!@modules) the kernel files of the
 * packages marked read_payload.  Errors land in each package.
 */
void audit_read(struct audit *a, struct audit_pkg **todo, size_t n, bool modules);

/* ----------------------------------------------------- audit_judge.c */
/* Target release of every module, then the packages to read for their kernel files. */
size_t audit_kernel_carriers(struct audit *a, struct audit_pkg **todo);
/* Judge every module as one set; fills verdicts, targets and per-package results. */
int audit_judge(struct audit *a, struct tg_ctx *ctx);

/* ---------------------------------------------------- audit_report.c */
int report_text(const struct audit *a, FILE *out);
int report_json(const struct audit *a, FILE *out);
int report_junit(const struct audit *a, FILE *out);
int report_sarif(const struct audit *a, FILE *out);
int report_excludes(const struct audit *a, FILE *out);
/* --format jsonl: one package's line (flushed), and the closing summary line. */
int report_jsonl_package(const struct audit *a, const struct audit_pkg *p, FILE *out);
int report_jsonl_summary(const struct audit *a, FILE *out);

/* --------------------------------------------------- audit_kernels.c */
/* --installed: every installed kernel (or --kernel) and the modules it would load, judged. */
int audit_installed_kernels(struct audit *a, struct tg_ctx *ctx);
void audit_kernels_free(struct audit *a);
const char *audit_kcell(const struct audit_krow *row, size_t j, char *buf, size_t len);
const char *audit_kreason(const struct audit_krow *row, size_t j);
bool audit_kbad(const struct audit_krow *row, size_t j);
int report_kernels_text(const struct audit *a, FILE *out);
/* ",\n \"kernels\": [...]": a member of report_json()'s object */
int report_kernels_json(const struct audit *a, FILE *out);
/* a second <testsuite> of report_junit() */
int report_kernels_junit(const struct audit *a, FILE *out);

/* --------------------------------------------------- audit_kupdate.c */
/*
 * Each kernel package of the set against the root's out-of-tree modules and
 * the set's own for its release; while audit_judge()'s kernel loader is set.
 */
int audit_kernel_updates(struct audit *a, struct tg_ctx *ctx);
void audit_kups_free(struct audit *a);
int report_kups_text(const struct audit *a, FILE *out);
/* ",\n \"kernel_updates\": [...]": a member of report_json()'s object */
int report_kups_json(const struct audit *a, FILE *out);
/* audit_xml.c: XML-escaped text (untrusted strings; controls as ?, bytes >= 0x80 as &#xNN;) */
void report_xml_text(FILE *out, const char *s);

#endif
