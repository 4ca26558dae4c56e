/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: the front end's data model and its files.  Package
 * reading itself is pkg/ (libtgpkg); these files only decide what to read
 * and how to report it.  Calls go one way: cmd_audit.c uses the others, the
 * others use audit_model.c and pkg/.
 *
 * cmd_audit.c     options, the order of the phases, exit code
 * audit_model.c   packages and modules of an audit
 * audit_input.c   what to audit: .rpm files, directories, repositories, the installed system
 * audit_read.c    reading packages on the thread pool (headers, payloads, modules)
 * audit_judge.c   target kernels, the set judged as one, results per package
 * audit_report.c  text, JSON, JUnit and SARIF output
 */
#ifndef TG_AUDIT_H
#define TG_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

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
	char *release;		/* target kernel release, NULL unknown */
	struct tg_verdict v;	/* filled by the set prediction */
};

struct target {			/* one kernel a package was judged against */
	const char *release;
	const char *symvers;	/* label of the export table, NULL none */
	enum sv_source source;
	const char *config;	/* the kernel .config used, NULL none */
};

struct audit_pkg {
	char *file;		/* .rpm file, NULL for rpmdb / unowned */
	char *location;		/* repodata location (for messages) */
	char *name, *nevra, *license;
	bool unowned;		/* pseudo package: modules no package owns */
	bool installed;
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

	struct audit_module **mods;
	size_t n_mods, cap_mods;

	/* results */
	enum tg_action action;
	bool had_error;
	unsigned taint;
	size_t n_refused, n_deny, n_mark;
	struct target *targets;
	size_t n_targets;
};

struct audit {
	struct cli_opts o;
	const char *dbpath;
	bool installed, excludes;
	struct audit_pkg **pkgs;
	size_t n_pkgs, cap_pkgs;
	size_t n_skipped;	/* packages without modules */
	struct pkg_kernelset *ks;	/* kernel files of the audited packages */
	bool progress;		/* the progress bar (stderr, terminal only) */
};

/* ----------------------------------------------------- audit_model.c */
struct audit_pkg *audit_pkg_new(struct audit *a);
/* Listed in reports: carries modules, or is an error.  Others only lend kernel files. */
bool audit_pkg_listed(const struct audit_pkg *p);
void audit_pkg_free(struct audit_pkg *p);
/* A new module entry of @p for @path; NULL on ENOMEM. */
struct audit_module *audit_pkg_add_module(struct audit_pkg *p, const char *path);
/* The package's error, unless it has one already (the first cause is kept). */
void audit_pkg_error(struct audit_pkg *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Record a kernel file of @p's (file list or payload); says why when it is not used. */
void audit_kernel_file(struct audit *a, struct audit_pkg *p, const char *path,
		       const struct pkg_class *c, void *data, size_t len);
void audit_free(struct audit *a);

/* ----------------------------------------------------- audit_input.c */
/* A .rpm file, a directory of them (recursive) or a repository. */
int audit_collect(struct audit *a, const char *path);
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

#endif
