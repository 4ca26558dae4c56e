/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taintguard check: predict the kernel's verdict on module files. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

struct item {
	const char *path;
	struct tg_module *m;
	char *error;
};

struct open_job {
	struct item *items;
	const struct tg_limits *lim;
};

static void check_usage(FILE *out)
{
	fputs("Usage: taintguard check [OPTIONS] PATH...\n\n"
	      "Predict, for each kernel module file (.ko, .ko.xz, .ko.zst, .ko.gz; directories\n"
	      "are searched recursively), what the target kernel's loader does: the taint\n"
	      "flags it sets, whether it refuses the module and why; then apply the policy.\n"
	      "All files are judged as one set, loaded in the order given: imports resolve\n"
	      "against each other first; a second exporter of a symbol is refused.\n\n"
	      "Options:\n"
	      "  -k, --kernel KVER        judge against kernel release KVER (default: from the\n"
	      "                           module's /lib/modules/KVER/ path, else its vermagic)\n"
	      "  -s, --symvers FILE       the kernel's Module.symvers (plain or compressed)\n"
	      "  -c, --config FILE        the kernel's .config (default: /boot/config-KVER, ...)\n"
	      "  -r, --root DIR           look for kernel files below DIR instead of /\n"
	      "  -p, --policy FILE        policy (default: " TG_SYSCONFDIR "/policy.yaml, else\n"
	      "                           " TG_DATADIR "/default.yaml)\n"
	      "  -f, --format FMT         text (default) or json\n"
	      "  -j, --jobs N             threads reading and judging modules\n"
	      "                           (default: number of CPUs)\n"
	      "  -M, --max-module-size N  refuse modules larger than N bytes decompressed\n"
	      "                           (suffixes K, M, G; default 256M)\n"
	      "  -L, --limit NAME=N       set a resource limit (repeatable; names and defaults\n"
	      "                           in taintguard(1), LIMITS)\n"
	      "  -v, --verbose            list every symbol and remedy\n"
	      "  -h, --help               show this help\n\n"
	      "Exit codes: 0 all allowed, 1 something marked and nothing denied,\n"
	      "2 something denied, 3 usage error or a file that could not be read.\n", out);
}

static void open_one(size_t i, unsigned worker, void *data)
{
	struct open_job *j = data;
	struct item *it = &j->items[i];
	struct tg_error err = { 0 };

	(void)worker;
	if (tg_module_open_path(it->path, j->lim, &it->m, &err) < 0)
		it->error = strdup(err.msg[0] ? err.msg : "cannot read module");
}

static int print_verdicts(const struct cli_opts *o, struct tg_verdict *v, size_t n)
{
	if (o->format == FMT_JSON) {
		fputs("[", stdout);
		for (size_t i = 0; i < n; i++) {
			fputs(i ? ",\n " : "\n ", stdout);
			tg_verdict_write_json(&v[i], stdout);
		}
		fputs(n ? "\n]\n" : "]\n", stdout);
	} else {
		for (size_t i = 0; i < n; i++)
			tg_verdict_write_text(&v[i], stdout, o->verbose);
	}
	return ferror(stdout) ? -1 : 0;
}

/* Judge all opened items as one set; returns the exit code. */
static int judge(const struct cli_opts *o, struct tg_ctx *ctx, struct item *items, size_t n)
{
	struct tg_judge_item *ji = calloc(n ? n : 1, sizeof(*ji));
	struct tg_verdict *v = calloc(n ? n : 1, sizeof(*v));
	enum tg_action worst = TG_ACTION_ALLOW;
	struct tg_error err = { 0 };
	bool had_error = false;
	int r, rc = TG_EXIT_ERROR;

	if (!ji || !v) {
		cli_error("out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		ji[i] = (struct tg_judge_item){ .path = items[i].path, .m = items[i].m,
						.error = items[i].error };
	r = tg_judge(ctx, o->kernel, ji, n, TG_JUDGE_KERNEL_STRICT, v, &err);
	if (r < 0) {
		cli_error("%s", r == -ENOMEM ? "out of memory" : err.msg);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (v[i].error)
			had_error = true;
		if (v[i].action > worst)
			worst = v[i].action;
	}
	if (print_verdicts(o, v, n) < 0) {
		cli_error("write error on standard output");
		goto out;
	}
	rc = cli_exit_for(worst, had_error);
out:
	for (size_t i = 0; v && i < n; i++)
		tg_verdict_free_contents(&v[i]);
	free(v);
	free(ji);
	return rc;
}

int cmd_check(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_COMMON_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct strv fl = { 0 };
	struct cli_opts o;
	struct tg_ctx *ctx = NULL;
	struct item *items = NULL;
	int opt, rc = TG_EXIT_ERROR;

	cli_opts_init(&o);
	while ((opt = getopt_long(argc, argv, "k:s:c:r:p:f:j:M:L:vh", longopts, NULL)) != -1) {
		if (opt == 'h') {
			check_usage(stdout);
			return 0;
		}
		if (cli_common_option(&o, opt, optarg) != 1) {
			if (opt == '?' || opt == ':')
				check_usage(stderr);
			return TG_EXIT_ERROR;
		}
	}
	if (o.format != FMT_TEXT && o.format != FMT_JSON) {
		cli_error("check supports --format text or json");
		return TG_EXIT_ERROR;
	}
	if (optind >= argc) {
		cli_error("check needs at least one module file or directory");
		check_usage(stderr);
		return TG_EXIT_ERROR;
	}
	for (int i = optind; i < argc; i++)
		if (file_list_collect(&fl, argv[i], true) < 0)
			goto out;
	ctx = cli_ctx_new(&o);
	if (!ctx)
		goto out;
	items = calloc(fl.n ? fl.n : 1, sizeof(*items));
	if (!items)
		goto out;
	for (size_t i = 0; i < fl.n; i++)
		items[i].path = fl.v[i];
	if (tg_parallel(fl.n, o.jobs, open_one, &(struct open_job){ items, &o.limits }) < 0) {
		cli_error("out of memory");
		goto out;
	}
	rc = judge(&o, ctx, items, fl.n);
out:
	for (size_t i = 0; items && i < fl.n; i++) {
		tg_module_free(items[i].m);
		free(items[i].error);
	}
	free(items);
	tg_ctx_free(ctx);
	strv_free(&fl);
	return rc;
}
