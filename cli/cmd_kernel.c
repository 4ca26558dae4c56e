/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard kernel show: what a kernel's module loader does, each fact with
 * the file that says so (the image's loader messages, System.map, .config,
 * the export list, an in-tree module) or "release" where none does and the
 * release number was taken instead.  The facts the verdicts of check, audit,
 * the rpm plugin and the DKMS hook are decided with.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void kernel_usage(FILE *out)
{
	fputs("Usage: taintguard kernel show [--root DIR] [--json] KVER\n\n"
	      "List what the module loader of kernel KVER does (the rules taintguard judges\n"
	      "its modules by) and where each fact was read: a string of the decompressed\n"
	      "image, a System.map symbol, a .config option, the export list's format, an\n"
	      "in-tree module's struct module size; \"release\" where no file answers and the\n"
	      "release number decides.\n\n"
	      "Options:\n"
	      "  -r, --root DIR  the kernel's files below DIR (DIR/boot, DIR/lib/modules)\n"
	      "  -j, --json      JSON instead of text\n"
	      "  -h, --help      show this help\n\n"
	      "Exit codes: 0 listed, 3 usage error or the kernel's files could not be read.\n",
	      out);
}

static void print_text(const struct tg_kernel *k, const struct tg_kernel_fact *f, size_t n)
{
	printf("kernel %s\n", k->release);
	printf("  image:      %s\n", k->image_path ? k->image_path : "(none)");
	printf("  System.map: %s\n", k->sysmap_path ? k->sysmap_path : "(none)");
	printf("  .config:    %s\n", k->config_path ? k->config_path : "(none)");
	printf("  exports:    %s\n", k->symvers_path ? k->symvers_path : "(none)");
	for (size_t i = 0; i < n; i++)
		printf("%-36s %-8s %-15s %s\n", f[i].name, f[i].value, f[i].source, f[i].evidence);
}

static void json_field(const char *key, const char *val, bool last)
{
	printf("\"%s\":", key);
	if (val)
		tg_json_string(stdout, val);
	else
		fputs("null", stdout);
	fputs(last ? "" : ",", stdout);
}

static void print_json(const struct tg_kernel *k, const struct tg_kernel_fact *f, size_t n)
{
	putchar('{');
	json_field("kernel", k->release, false);
	json_field("image", k->image_path, false);
	json_field("system_map", k->sysmap_path, false);
	json_field("config", k->config_path, false);
	json_field("symvers", k->symvers_path, false);
	fputs("\"facts\":[", stdout);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",{" : "{", stdout);
		json_field("name", f[i].name, false);
		json_field("value", f[i].value, false);
		json_field("source", f[i].source, false);
		json_field("evidence", f[i].evidence, true);
		putchar('}');
	}
	puts("]}");
}

static int kernel_show(const char *root, const char *release, bool json)
{
	struct tg_kernel_opts ko = { .root = root, .release = release };
	struct tg_error err = { 0 };
	struct tg_kernel_fact *f = NULL;
	struct tg_kernel *k = NULL;
	size_t n = 0;

	if (tg_kernel_load(&ko, &k, &err) < 0 || tg_kernel_facts(k, &f, &n, &err) < 0) {
		cli_error("%s", err.msg);
		tg_kernel_free(k);
		return TG_EXIT_ERROR;
	}
	if (json)
		print_json(k, f, n);
	else
		print_text(k, f, n);
	tg_kernel_facts_free(f, n);
	tg_kernel_free(k);
	return TG_EXIT_ALLOW;
}

int cmd_kernel(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = NULL;
	bool json = false;
	int c;

	if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		kernel_usage(stdout);
		return TG_EXIT_ALLOW;
	}
	if (argc < 2 || strcmp(argv[1], "show")) {
		kernel_usage(stderr);
		return TG_EXIT_ERROR;
	}
	argc--;
	argv++;
	while ((c = getopt_long(argc, argv, "r:jh", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			kernel_usage(stdout);
			return TG_EXIT_ALLOW;
		default:
			kernel_usage(stderr);
			return TG_EXIT_ERROR;
		}
	}
	if (optind + 1 != argc) {
		kernel_usage(stderr);
		return TG_EXIT_ERROR;
	}
	return kernel_show(root, argv[optind], json);
}
