/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rpm transaction-plugin ABI.  rpm < 4.20 does not install its plugin
 * header (lib/rpmplugin.h), so the hook table is declared here, member for
 * member as rpm declares it; >= 4.20 ships <rpm/rpmplugin.h> and we use that.
 *
 * The one ABI break that matters to us: rpm 4.18.0 added "int fd" as the
 * third argument of fsm_file_prepare (rpm commit 35195684d).  One .so cannot
 * serve both, so the variant is chosen from the rpm version found by
 * pkg-config at build time (TG_RPM_VERSION_NUM = major*10000+minor*100+patch),
 * and unknown versions are refused.  tests/rpm/matrix.sh builds and tests
 * the variants against rpm 4.16.1.2, 4.18.0, 4.20.1 and 6.1.0.
 */
#ifndef TG_PLUGIN_ABI_H
#define TG_PLUGIN_ABI_H

#include <sys/types.h>
#include <rpm/rpmtypes.h>
#include <rpm/rpmfiles.h>

#ifndef TG_RPM_VERSION_NUM
#error "TG_RPM_VERSION_NUM is not set: build through the Makefile (pkg-config --modversion rpm)"
#endif

#if TG_RPM_VERSION_NUM < 41400
#error "rpm < 4.14 is not supported (no fsm_file_prepare hook, no archive reader)"
#elif TG_RPM_VERSION_NUM < 41800
#define TG_PREPARE_HAS_FD 0	/* 4.14 .. 4.17 */
#elif TG_RPM_VERSION_NUM < 42100 || (TG_RPM_VERSION_NUM >= 60000 && TG_RPM_VERSION_NUM < 60200)
#define TG_PREPARE_HAS_FD 1	/* 4.18, 4.19, 4.20, 6.0, 6.1: checked against rpm's sources */
#else
#error "unknown rpm version: check the plugin hook table of this rpm before building"
#endif

#if defined(__has_include)
#if __has_include(<rpm/rpmplugin.h>)
#define TG_HAVE_RPMPLUGIN_H 1
#endif
#endif

#ifdef TG_HAVE_RPMPLUGIN_H
#include <rpm/rpmplugin.h>
#else
#ifdef __cplusplus
extern "C" {
#endif

typedef rpmFlags rpmFsmOp;

typedef rpmRC (*plugin_init_func)(rpmPlugin plugin, rpmts ts);
typedef void (*plugin_cleanup_func)(rpmPlugin plugin);
typedef rpmRC (*plugin_tsm_pre_func)(rpmPlugin plugin, rpmts ts);
typedef rpmRC (*plugin_tsm_post_func)(rpmPlugin plugin, rpmts ts, int res);
typedef rpmRC (*plugin_psm_pre_func)(rpmPlugin plugin, rpmte te);
typedef rpmRC (*plugin_psm_post_func)(rpmPlugin plugin, rpmte te, int res);
typedef rpmRC (*plugin_scriptlet_pre_func)(rpmPlugin plugin, const char *s_name, int type);
typedef rpmRC (*plugin_scriptlet_fork_post_func)(rpmPlugin plugin, const char *path, int type);
typedef rpmRC (*plugin_scriptlet_post_func)(rpmPlugin plugin, const char *s_name, int type,
					    int res);
typedef rpmRC (*plugin_fsm_file_pre_func)(rpmPlugin plugin, rpmfi fi, const char *path,
					  mode_t file_mode, rpmFsmOp op);
typedef rpmRC (*plugin_fsm_file_post_func)(rpmPlugin plugin, rpmfi fi, const char *path,
					   mode_t file_mode, rpmFsmOp op, int res);
#if TG_PREPARE_HAS_FD
typedef rpmRC (*plugin_fsm_file_prepare_func)(rpmPlugin plugin, rpmfi fi, int fd,
					      const char *path, const char *dest,
					      mode_t file_mode, rpmFsmOp op);
#else
typedef rpmRC (*plugin_fsm_file_prepare_func)(rpmPlugin plugin, rpmfi fi, const char *path,
					      const char *dest, mode_t file_mode, rpmFsmOp op);
#endif

typedef struct rpmPluginHooks_s *rpmPluginHooks;
struct rpmPluginHooks_s {
	plugin_init_func init;
	plugin_cleanup_func cleanup;
	plugin_tsm_pre_func tsm_pre;
	plugin_tsm_post_func tsm_post;
	plugin_psm_pre_func psm_pre;
	plugin_psm_post_func psm_post;
	plugin_scriptlet_pre_func scriptlet_pre;
	plugin_scriptlet_fork_post_func scriptlet_fork_post;
	plugin_scriptlet_post_func scriptlet_post;
	plugin_fsm_file_pre_func fsm_file_pre;
	plugin_fsm_file_post_func fsm_file_post;
	plugin_fsm_file_prepare_func fsm_file_prepare;
};

/* Exported by librpm since 4.12, declared only in the private header. */
const char *rpmPluginName(rpmPlugin plugin);
const char *rpmPluginOpts(rpmPlugin plugin);
void *rpmPluginGetData(rpmPlugin plugin);
void rpmPluginSetData(rpmPlugin plugin, void *data);

#ifdef __cplusplus
}
#endif
#endif /* !TG_HAVE_RPMPLUGIN_H */

/* lib/fsm.h in 4.18; public with rpmplugin.h later (same values). */
#ifndef XFO_ACTION
#define XFO_ACTION(_a) ((_a) & 0x0000ffff)
#endif
#ifndef TG_FAF_UNOWNED
#define TG_FAF_UNOWNED (1U << 31)
#endif

#endif
