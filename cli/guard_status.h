/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard status's guard checks (status_guard.c), shared by its files:
 *
 *   guard_state.c   the accepted state: ROOT/var/lib/taintguard/guard.conf
 *                   read, file digests, the record's lines written
 *   guard_rpm.c     asking rpm: its macros, the macro files that set them,
 *                   owners (rpm -qf) and verification (rpm -V)
 *   guard_checks.c  the four checks: plugin, mode, dkms, policy
 *   status_guard.c  taintguard status (the checks) and status --accept
 *
 * Calls go one way, up this list: each file uses only those above it.
 */
#ifndef TG_GUARD_STATUS_H
#define TG_GUARD_STATUS_H

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "guard.h"

#define GS_RECORD TG_LOCALSTATEDIR "/guard.conf"
#define GS_RECORD_FORMAT "taintguard-guard/1"
#define GS_SNIPPET "/etc/dkms/framework.conf.d/zz-taintguard.conf"
#define GS_FRAMEWORK "/etc/dkms/framework.conf"
#define GS_SIGN_HOOK TG_LIBEXECDIR "/taintguard-dkms-sign"
#define GS_HOOK TG_LIBEXECDIR "/taintguard-dkms"
#define GS_WRAPPER_MARK "taintguard-dkms-wrapper"
/* the packages built from taintguard.spec */
#define GS_OUR_PREFIX "taintguard"

/* ------------------------------------------------------------ guard_state.c */

struct gs_file {
	char *path;
	char digest[65];
};

struct gs_record {
	bool present;
	long long time;
	char *mode;
	bool plugin, dkms;
	struct gs_file *files;
	size_t n_files;
};

/* ROOT/var/lib/taintguard/guard.conf into @r (not there: r->present false); -errno with @err. */
int gs_record_read(const char *root, struct gs_record *r, char *err, size_t errlen);
void gs_record_free(struct gs_record *r);
/* The accepted digest of @path, or NULL. */
const struct gs_file *gs_record_file(const struct gs_record *r, const char *path);
/* A "file sha256:DIGEST PATH" line of ROOT@path into @f (said on stdout); nothing if unreadable. */
int gs_record_add_digest(const char *root, FILE *f, const char *path);
/* sha256 of ROOT@path as 64 hex digits; -errno. */
int gs_digest(const char *root, const char *path, char out[65]);
bool gs_exists(const char *root, const char *path);
/* qsort() of paths (char *) in byte order, as rpm and dkms glob them. */
int gs_path_cmp(const void *a, const void *b);

/* ------------------------------------------------------------ guard_rpm.c */

struct gs_ctx {
	const char *root;	/* "" for / */
	const char *dbpath;
	char *rpm;		/* the rpm command, NULL: none */
	char *macro_path;	/* rpm's, from rpm --showrc (root-prefixed for a --root) */
	char *plugindir, *transaction, *mode, *policy_macro;
	bool evaluated;		/* rpm answered */
	char *rpm_error;
	struct guard_mfile *files;	/* rpm's macro files, in load order (paths without root) */
	size_t n_files;
	struct guard_names names;
	struct guard_wins wins;
	struct gs_record rec;	/* what the admin accepted */
};

/* Read the accepted state, then ask rpm (when there is one) and read its macro files. */
int gs_ctx_init(struct gs_ctx *g, const char *root, const char *dbpath, char *err, size_t errlen);
void gs_ctx_free(struct gs_ctx *g);
/* The package owning ROOT@path: "NEVRA" (several joined by ", "), "" for none, NULL unknown. */
char *gs_owner_of(struct gs_ctx *g, const char *path);
/* Is @owner one of our packages? */
bool gs_ours(const char *owner);
/* rpm -V of @owner for @path: 1 unchanged, 0 changed or missing (*@how says which), -1 unknown. */
int gs_verify_file(struct gs_ctx *g, const char *owner, const char *path, char **how);
/* The macro file that set @name last (*@line its line), or NULL. */
const char *gs_set_by(struct gs_ctx *g, const char *name, unsigned *line);

/* ------------------------------------------------------------ guard_checks.c */

void gs_check_plugin(struct gs_ctx *g, struct status_check *c);
/* Needs the plugin's check: without a plugin, the mode is not asked. */
void gs_check_mode(struct gs_ctx *g, struct status_check *c, const struct status_check *plugin);
void gs_check_dkms(struct gs_ctx *g, struct status_check *c);
void gs_check_policy(struct gs_ctx *g, struct status_check *c);
/* The policy the rpm plugin uses: %_taintguard_policy, else the site's, else the default. */
char *gs_policy_path(struct gs_ctx *g);

#endif
