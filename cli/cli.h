/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared pieces of the taintguard command's subcommands. */
#ifndef TG_CLI_H
#define TG_CLI_H

#include <stdbool.h>
#include <stddef.h>

#include "paths.h"
#include "strv.h"
#include "taintguard.h"

/* Exit codes (documented in --help and taintguard(1)); stable for scripts. */
enum {
	TG_EXIT_ALLOW = 0,	/* everything allowed */
	TG_EXIT_MARK = 1,	/* something marked, nothing denied */
	TG_EXIT_DENY = 2,	/* something denied */
	TG_EXIT_ERROR = 3,	/* usage error, or an input could not be read */
	TG_EXIT_GUARD = 4,	/* status: the guard is down (taintguard would not run as accepted) */
	TG_EXIT_UNRECORDED = 5,	/* status: a package with modules not allowed has no record */
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
 * A judging context from the options (limits, jobs, root, kernel files) and
 * the policy named by --policy, or the installed default, or (nothing
 * installed) the built-in one: tg_policy_open().  NULL after saying why.
 */
struct tg_ctx *cli_ctx_new(const struct cli_opts *o);

/* Expand directories into module files (sorted, recursive), appended to @fl. */
int file_list_collect(struct strv *fl, const char *path, bool explicit_file);

/* Worst action -> exit code. */
int cli_exit_for(enum tg_action worst, bool had_error);

/* rpm_command.c: the first "rpm" on $PATH we may execute (malloc'ed), NULL when there is none. */
char *cli_find_rpm(void);
/*
 * Run @argv (argv[0] a path) with stdin /dev/null, an environment of PATH,
 * HOME and LC_ALL=C, stdout and stderr captured into *@out (NUL-terminated,
 * at most 16 MiB).  The wait status, or -errno.
 */
int cli_run_capture(char *const argv[], char **out, size_t *len);

/* status_guard.c: is taintguard still on guard (taintguard status) */
enum guard_state { GS_UP, GS_DOWN, GS_ABSENT, GS_UNKNOWN };
struct status_check {
	const char *name;	/* "plugin", "mode", "dkms", "policy" */
	enum guard_state state;
	char *summary;
	char *file;		/* the file that decides, or is at fault; NULL none */
	unsigned line;		/* in @file, 0 unknown */
	char *owner;		/* the package owning @file: NEVRA, "" none, NULL unknown */
};
#define STATUS_RECORDS 0x01u
#define STATUS_PLUGIN 0x02u
#define STATUS_MODE 0x04u
#define STATUS_DKMS 0x08u
#define STATUS_POLICY 0x10u
#define STATUS_GUARD (STATUS_PLUGIN | STATUS_MODE | STATUS_DKMS | STATUS_POLICY)
/* The selected guard checks of @root ("" for /), in that order, into @out (room for 4). */
int status_guard(const char *root, const char *dbpath, unsigned which, struct status_check *out,
		 size_t *n);
/* Record the state as it is now as accepted (ROOT/var/lib/taintguard/guard.conf). */
int status_guard_accept(const char *root, const char *dbpath);
void status_checks_free(struct status_check *c, size_t n);

/* cmd_status.c: one mark record as status prints it; @verbose: all reasons (explain). */
void status_print_record(const struct tg_record *rec, const char *state, bool verbose);
/* cmd_audit_exec.c: run taintguard-audit with @argv (argv[0] replaced); returns only on failure. */
int cmd_audit_exec(int argc, char **argv);

int cmd_check(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_policy_sync(int argc, char **argv, const struct tg_limits *lim);

#endif
