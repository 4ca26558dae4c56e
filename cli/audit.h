/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit: shared data model of the audit front end.
 *
 * cmd_audit.c    options, orchestration, threads, target kernels, set analysis
 * pkg_rpm.c      librpm: package headers, payload streaming, rpmdb (the only
 *                part that knows rpm, together with pkg_repo.c)
 * pkg_repo.c     repodata: repomd.xml, primary and filelists (minimal scanner)
 * audit_report.c text, JSON, JUnit and SARIF output
 */
#ifndef TG_AUDIT_H
#define TG_AUDIT_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

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

/* A symvers-like file seen in a package file list or payload. */
struct sv_file {
	char *release;
	int prio;		/* lower wins: kernel-devel, kernel-core, /boot, Debian, build/ */
	char *path;
	struct audit_pkg *pkg;	/* the carrying package */
	void *data;		/* payload bytes once read, else NULL */
	size_t len;
	bool config;		/* a kernel .config, not an export table */
};

enum sig_status {
	SIG_UNKNOWN = 0,	/* not looked at (repodata only, or unreadable) */
	SIG_UNSIGNED,		/* no header signature */
	SIG_OK,			/* signed, key known and valid */
	SIG_NOKEY,		/* signed, key not in the keyring */
	SIG_NOTTRUSTED,		/* signed, key known but not trusted */
	SIG_BAD,		/* digest or signature check failed */
	SIG_INSTALLED,		/* from the rpmdb: signed (not re-verified) */
};
const char *sig_status_name(enum sig_status s);

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
	enum sig_status sig;
	char *sig_info;		/* "RSA/SHA256, <date>, Key ID ..." */
	char *error;		/* package-level error (never clean) */

	/* from the file list (header or filelists.xml) */
	bool has_modules;
	bool has_symvers;
	/*
	 * Ships modules outside a kernel's own tree (extra/, updates/, /opt ...):
	 * its Module.symvers or .config are not used to judge anything (a
	 * package cannot vouch for its own modules).
	 */
	bool oot_modules;
	bool read_payload;	/* phase B: symvers needed from this package */

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
	struct sv_file *sv;
	size_t n_sv, cap_sv;
	/* the progress bar (stderr, terminal only) */
	bool progress;
};

/* ------------------------------------------------------- pkg_rpm.c */
int rpm_setup(const struct audit *a);	/* rpmReadConfigFiles once, before threads */
void rpm_teardown(void);
void *rpm_ts_new(const struct audit *a);	/* one rpmts per thread */
void rpm_ts_free(void *ts);

/* Callbacks while streaming a payload. */
struct payload_sink {
	/* Called for module files; takes ownership of @data. */
	void (*module)(void *ctx, struct audit_pkg *p, const char *path, void *data, size_t len,
		       const char *error);
	/* Called for symvers files; takes ownership of @data. */
	void (*symvers)(void *ctx, struct audit_pkg *p, const char *path, const char *release,
			int prio, void *data, size_t len);
	void *ctx;
	bool want_modules;
	bool want_symvers;	/* keep symvers files met while streaming */
	bool stream_for_symvers; /* stream packages marked read_payload for their symvers */
};
/*
 * Read the header of @p->file (fill name, nevra, license, signature, file
 * flags); when the file list warrants it and @sink is given, stream the
 * payload through the sink.  Errors are recorded in @p->error.
 */
void rpm_read_package(void *ts, const struct audit *a, struct audit_pkg *p,
		      const struct payload_sink *sink);
/* --installed: packages owning modules, with their module paths. */
int rpm_scan_installed(struct audit *a);

/*
 * Classify a packaged path: 1 module, 2 symvers, 3 kernel .config (2 and 3:
 * release and prio set; configs sort after every symvers), 0 other.
 */
int classify_path(const char *path, char *release, size_t rlen, int *prio);

/* ------------------------------------------------------ pkg_repo.c */
/* true if @dir contains repodata/repomd.xml */
bool repo_detect(const char *dir);
/* Add the repository's packages that carry modules or symvers files. */
int repo_scan(struct audit *a, const char *dir);

/* ------------------------------------------------------- cmd_audit.c */
struct audit_pkg *audit_pkg_new(struct audit *a);
/* Listed in reports: carries modules, or is an error.  Others only lend symvers. */
bool audit_pkg_listed(const struct audit_pkg *p);
void audit_pkg_free(struct audit_pkg *p);
int audit_pkg_add_module(struct audit_pkg *p, struct audit_module *m);
/* Thread-safe; de-duplicates (pkg, path). */
int audit_sv_add(struct audit *a, const char *release, int prio, const char *path,
		 struct audit_pkg *pkg);
/* malloc'ed "%s" helpers */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* --------------------------------------------------- audit_report.c */
int report_text(const struct audit *a, FILE *out);
int report_json(const struct audit *a, FILE *out);
int report_junit(const struct audit *a, FILE *out);
int report_sarif(const struct audit *a, FILE *out);
int report_excludes(const struct audit *a, FILE *out);

#endif
