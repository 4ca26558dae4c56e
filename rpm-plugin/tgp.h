/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Internal state of the taintguard rpm plugin; see taintguard.c. */
#ifndef TGP_H
#define TGP_H

#include <stdbool.h>
#include <stddef.h>
#include <rpm/rpmts.h>
#include <rpm/rpmte.h>

#include "taintguard.h"

/* Only the hook table is exported from the .so. */
#pragma GCC visibility push(hidden)

enum tgp_mode { TGP_ENFORCE, TGP_WARN, TGP_OFF };

/* A module file of a package, read from the payload or from disk. */
struct tgp_mod {
	char *path;			/* final path inside the root */
	struct tg_module *m;		/* NULL: unreadable, see error */
	char *error;
};

/* One added package (transaction element) that carries module candidates. */
struct tgp_pkg {
	rpmte te;
	char *nevra;
	char *name;
	bool scanned;		/* payload read in tsm_pre */
	bool psm_seen;		/* first psm_pre done */
	bool refused;		/* we failed it */
	bool recorded;		/* mark record written */
	bool oot;		/* ships modules outside a kernel's own tree: its
				   Module.symvers/.config are not used */
	struct tgp_mod *mods;	/* modules read so far (freed after a prescan) */
	size_t n_mods;
	size_t bs_expected, bs_seen;
	struct tg_verdict *v;	/* verdicts for its modules */
	size_t nv;
	enum tg_action action;	/* worst of v[] */
};

struct tgp_kernel {
	char *release;
	struct tg_kernel *k;	/* NULL: unknown */
};

/* Module.symvers found in the payload of a package of this transaction. */
struct tgp_symvers {
	char *release;
	char *label;
	struct tg_symvers *sv;	/* owned until handed to a tg_kernel */
};

/* A kernel .config found in the payload of a package of this transaction. */
struct tgp_config {
	char *release;
	char *label;
	char *data;
	size_t len;
};

struct tgp_state {
	enum tgp_mode mode;
	struct tg_limits lim;
	size_t max_modules;	/* module files per package (%_taintguard_max_modules) */
	unsigned jobs;		/* threads reading modules and judging (%_taintguard_jobs) */
	unsigned max_seconds;	/* payload reading per package (%_taintguard_max_seconds) */
	struct tg_ctx *ctx;		/* limits, jobs and the policy below (owned by it) */
	struct tg_policy *policy;
	char *policy_path;	/* the file we tried */
	bool policy_fallback;	/* it failed: built-in policy in use */
	char *statedir;

	bool test;		/* RPMTRANS_FLAG_TEST: report only */
	char *root;		/* rpmtsRootDir at tsm_pre */
	char *rootpfx;		/* the same without trailing '/' ("" for "/") */
	bool chrooted;		/* psm/fsm hooks: paths are inside the root */
	struct tgp_pkg *pkgs;
	size_t n_pkgs;
	struct tgp_pkg *cur;	/* element being processed (psm_pre .. psm_post) */
	struct tgp_kernel *kernels;
	size_t n_kernels;
	struct tgp_symvers *symvers;
	size_t n_symvers;
	struct tgp_config *configs;
	size_t n_configs;
};

/* scan.c: which files may be modules, reading them */
bool tgp_ko_suffix(const char *path);
bool tgp_in_moddir(const char *path);
bool tgp_candidate(const char *path);
/* Release a Module.symvers/symvers.gz path belongs to (malloc'ed), else NULL. */
char *tgp_symvers_release(const char *path);
/* Release a kernel .config path belongs to (malloc'ed), else NULL. */
char *tgp_config_release(const char *path);
/*
 * 1: a kernel module (*m set); 0: not a module (text, vdso, ...);
 * -1: looks like a module but cannot be read (*error set, malloc'ed).
 */
int tgp_module_from_mem(struct tgp_state *st, const void *buf, size_t len, const char *path,
			struct tg_module **m, char **error);
/* Read the payloads of the transaction's added packages. */
void tgp_prescan(struct tgp_state *st, rpmts ts);

/*
 * decode.c: a package's modules read on st->jobs threads while the payload
 * streams in; entries keep payload order.
 */
struct decode_item;
struct tgp_decode_list {
	struct decode_item **v;
	size_t n;
	bool oom;	/* an entry could not be kept: the package gets an error */
};
/* Compressed module bytes waiting for a worker, at most (bounds rpm's memory). */
#define TGP_DECODE_QUEUE_BYTES (32u << 20)
/* Queue @buf (taken) for reading on a worker. */
void tgp_decode_push(struct tgp_state *st, struct tg_workq *q, struct tgp_decode_list *l,
		     const char *path, void *buf, size_t len);
/* An error entry, in its place among the modules. */
void tgp_decode_error(struct tgp_decode_list *l, struct tgp_state *st, const char *path,
		      const char *msg);
/* Wait for every queued module (frees @q); add the entries to @pkg in payload order. */
void tgp_decode_finish(struct tgp_pkg *pkg, struct tg_workq *q, struct tgp_decode_list *l);

/* judge.c: kernels, predictions, messages */
struct tgp_pkg *tgp_pkg_add(struct tgp_state *st, rpmte te);
struct tgp_pkg *tgp_pkg_find(struct tgp_state *st, rpmte te);
int tgp_mod_add(struct tgp_mod **mods, size_t *n, const char *path, struct tg_module *m,
		const char *error);
void tgp_mods_free(struct tgp_mod *mods, size_t n);
void tgp_reset(struct tgp_state *st);
struct tg_kernel *tgp_kernel_get(struct tgp_state *st, const char *release);
/* Judge all modules of @n packages together; verdicts go to each pkg. */
int tgp_judge(struct tgp_state *st, struct tgp_pkg **pkgs, size_t n);
/* Log the verdicts of @pkg; @refuse: rpmlog errors + how to override. */
void tgp_report(struct tgp_state *st, struct tgp_pkg *pkg, bool refuse);
bool tgp_deny_definite(const struct tg_verdict *v);

/* record.c: mark records under ROOT/STATEDIR/marks/ (not chrooted) */
int tgp_record_write(struct tgp_state *st, struct tgp_pkg *pkg);
void tgp_record_remove(struct tgp_state *st, const char *nevra);
char *tgp_record_path(struct tgp_state *st, const char *nevra);

#pragma GCC visibility pop

#endif
