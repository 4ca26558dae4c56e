/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Options, kernel cache and file collection shared by the subcommands. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

void cli_error(const char *fmt, ...)
{
	va_list ap;

	fputs("taintguard: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_opts_init(struct cli_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->format = FMT_TEXT;
	o->jobs = tg_default_jobs();
	tg_limits_default(&o->limits);
}

int cli_parse_format(const char *s, enum tg_format *f)
{
	static const char *const names[] = { "text", "json", "junit", "sarif" };

	for (size_t i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*f = (enum tg_format)i;
			return 0;
		}
	return -EINVAL;
}

int cli_common_option(struct cli_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case 'k': o->kernel = arg; return 1;
	case 's': o->symvers = arg; return 1;
	case 'c': o->config = arg; return 1;
	case 'p': o->policy = arg; return 1;
	case 'r': o->root = arg; return 1;
	case 'v': o->verbose = true; return 1;
	case 'q': o->quiet = true; return 1;
	case 'f':
		if (cli_parse_format(arg, &o->format) < 0) {
			cli_error("unknown format '%s'", arg);
			return -1;
		}
		return 1;
	case 'j': {
		char *end;
		unsigned long j = strtoul(arg, &end, 10);

		if (*end || j == 0 || j > 256) {
			cli_error("--jobs needs a number from 1 to 256, not '%s'", arg);
			return -1;
		}
		o->jobs = (unsigned)j;
		return 1;
	}
	case 'M':
		if (tg_parse_size(arg, &o->limits.max_module_size) < 0) {
			cli_error("invalid size '%s' for --max-module-size", arg);
			return -1;
		}
		return 1;
	case 'L': {
		struct tg_error err = { 0 };

		if (tg_limits_set(&o->limits, arg, &err) < 0) {
			cli_error("%s", err.msg);
			return -1;
		}
		return 1;
	}
	}
	return 0;
}

struct tg_ctx *cli_ctx_new(const struct cli_opts *o)
{
	struct tg_ctx *ctx = NULL;
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };

	if (tg_ctx_new(&ctx) < 0 || tg_ctx_set_root(ctx, o->root) < 0 ||
	    tg_ctx_set_kernel_files(ctx, o->symvers, o->config) < 0) {
		cli_error("out of memory");
		tg_ctx_free(ctx);
		return NULL;
	}
	*tg_ctx_limits(ctx) = o->limits;
	tg_ctx_set_jobs(ctx, o->jobs);
	/* run from a build tree, nothing installed: the default compiled in */
	if (tg_policy_open(o->policy, &o->limits, TG_POLICY_BUILTIN_IF_ABSENT, &p, &err) < 0) {
		cli_error("%s", err.msg[0] ? err.msg : "out of memory");
		tg_ctx_free(ctx);
		return NULL;
	}
	tg_ctx_set_policy(ctx, p);
	return ctx;
}

/* ------------------------------------------------------------ file list */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int walk(struct strv *fl, const char *dir, int depth)
{
	struct dirent *de;
	size_t start = fl->n;
	DIR *d;
	int r = 0;

	if (depth > 64)
		return -ELOOP;
	d = opendir(dir);
	if (!d) {
		cli_error("%s: %s", dir, strerror(errno));
		return -errno;
	}
	while (r == 0 && (de = readdir(d))) {
		struct stat st;
		char *p;

		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		p = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!p) {
			r = -ENOMEM;
			break;
		}
		sprintf(p, "%s/%s", dir, de->d_name);
		/* lstat: never follow directory symlinks (loops); module symlinks are followed on open. */
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			r = walk(fl, p, depth + 1);
		else if (tg_module_file_name(de->d_name))
			r = strv_push(fl, p);
		free(p);
	}
	closedir(d);
	if (fl->n > start)
		qsort(fl->v + start, fl->n - start, sizeof(char *), cmp_str);
	return r;
}

int file_list_collect(struct strv *fl, const char *path, bool explicit_file)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return -errno;
	}
	if (S_ISDIR(st.st_mode))
		return walk(fl, path, 0);
	(void)explicit_file;
	return strv_push(fl, path);
}

int cli_exit_for(enum tg_action worst, bool had_error)
{
	if (had_error)
		return TG_EXIT_ERROR;
	switch (worst) {
	case TG_ACTION_DENY: return TG_EXIT_DENY;
	case TG_ACTION_MARK: return TG_EXIT_MARK;
	default: return TG_EXIT_ALLOW;
	}
}
