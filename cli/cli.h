/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared pieces of the taintguard command's subcommands. */
#ifndef TG_CLI_H
#define TG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "taintguard.h"

/* Exit codes (documented in --help and taintguard(1)); stable for scripts. */
enum {
	TG_EXIT_ALLOW = 0,	/* everything allowed */
	TG_EXIT_MARK = 1,	/* something marked, nothing denied */
	TG_EXIT_DENY = 2,	/* something denied */
	TG_EXIT_ERROR = 3,	/* usage error, or an input could not be read */
};

enum tg_format { FMT_TEXT, FMT_JSON, FMT_JUNIT, FMT_SARIF };

/* Options common to check/audit/status. */
struct cli_opts {
	const char *kernel;
	const char *symvers;
	const char *config;
	const char *policy;
	const char *root;
	enum tg_format format;
	bool verbose;
	bool quiet;
	unsigned jobs;
	struct tg_limits limits;
};

/* The long options cli_common_option() handles, for a command's option table. */
#define CLI_COMMON_LONGOPTS                                                    \
	{ "kernel", required_argument, NULL, 'k' },                            \
	{ "symvers", required_argument, NULL, 's' },                           \
	{ "config", required_argument, NULL, 'c' },                            \
	{ "root", required_argument, NULL, 'r' },                              \
	{ "policy", required_argument, NULL, 'p' },                            \
	{ "format", required_argument, NULL, 'f' },                            \
	{ "jobs", required_argument, NULL, 'j' },                              \
	{ "max-module-size", required_argument, NULL, 'M' },                   \
	{ "limit", required_argument, NULL, 'L' },                             \
	{ "verbose", no_argument, NULL, 'v' }

void cli_opts_init(struct cli_opts *o);
/* Handles one common option; returns 1 if consumed, 0 if not ours, -1 on error. */
int cli_common_option(struct cli_opts *o, int opt, const char *arg);
int cli_parse_format(const char *s, enum tg_format *f);
/* "taintguard: " + message on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The policy named by --policy, or the installed default, or (nothing
 * installed) the built-in policy; NULL after saying why on stderr.
 */
struct tg_policy *cli_load_policy(const struct cli_opts *o);
/* A judging context from the options (limits, jobs, root, kernel files, policy). */
struct tg_ctx *cli_ctx_new(const struct cli_opts *o);

/* Release a module targets: --kernel, else its path, else its vermagic. */
const char *cli_module_release(const struct cli_opts *o, const char *path,
			       const struct tg_module *m, char *buf, size_t len);

/* Expand directories into module files (sorted, recursive). */
struct file_list {
	char **v;
	size_t n, cap;
};
int file_list_collect(struct file_list *fl, const char *path, bool explicit_file);
void file_list_free(struct file_list *fl);

/* Worst action -> exit code. */
int cli_exit_for(enum tg_action worst, bool had_error);

int cmd_check(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_policy_sync(int argc, char **argv, const struct tg_limits *lim);

#endif
