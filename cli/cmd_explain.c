/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard explain: the full explanation behind the one line rpm, dnf,
 * zypper or dkms printed.  A name is looked up in the mark records (what was
 * judged when it was installed); a file is judged now: a package file by
 * taintguard audit, a module file by taintguard check, both verbose.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MARKS_DIR "/var/lib/taintguard/marks"

static void explain_usage(FILE *out)
{
	fputs("Usage: taintguard explain [--root DIR] PACKAGE|FILE\n\n"
	      "The full explanation of a verdict whose one-line summary rpm, dnf, zypper or\n"
	      "dkms printed: every reason of every module, the rule that decided, and what\n"
	      "could not be checked.\n"
	      "  PACKAGE  an installed package taintguard marked (or let through in warn\n"
	      "           mode): its name, NEVRA or DKMS MODULE/VERSION (also as audit names\n"
	      "           it, \"MODULE/VERSION (dkms)\"); read from its mark record in\n"
	      "           ROOT" MARKS_DIR "/ (what was judged at install)\n"
	      "  FILE     a package file (.rpm: judged as taintguard audit -v does) or a\n"
	      "           module file (judged as taintguard check -v does), judged now\n\n"
	      "Options:\n"
	      "  -r, --root DIR  the system below DIR instead of / (records; for a module\n"
	      "                  file, where its kernel's files are looked for)\n"
	      "  -h, --help      show this help\n\n"
	      "Exit codes: as taintguard check for a file; for a package 1 marked, 2 denied\n"
	      "(installed in warn mode), 3 no record of it or a record that cannot be read.\n",
	      out);
}

static bool is_rpm(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && !strcmp(path + n - 4, ".rpm");
}

static int explain_file(const char *root, const char *path)
{
	char *argv[] = { (char *)"", (char *)"-v", (char *)"--root", (char *)(*root ? root : "/"),
			 (char *)path, NULL };

	if (is_rpm(path)) {
		char *av[] = { (char *)"", (char *)"-v", (char *)path, NULL };

		return cmd_audit_exec(3, av);
	}
	optind = 0;	/* cmd_check parses its own options */
	return cmd_check(5, argv);
}

/*
 * By name, NEVRA or MODULE/VERSION; a DKMS record also as audit and status
 * name it, "MODULE/VERSION (dkms)".
 */
static bool matches(const struct tg_record *rec, const char *what)
{
	size_t n = strlen(what);

	if (rec->source == TG_RECORD_DKMS && n > 7 && !strcmp(what + n - 7, " (dkms)") && rec->package &&
	    strlen(rec->package) == n - 7 && !strncmp(rec->package, what, n - 7))
		return true;
	return (rec->package && !strcmp(rec->package, what)) || (rec->name && !strcmp(rec->name, what));
}

static int explain_record(const char *root, const char *what)
{
	struct tg_error err = { 0 };
	char **paths = NULL, *dir = NULL;
	size_t n = 0, found = 0;
	int rc = TG_EXIT_ERROR;

	if (asprintf(&dir, "%s" MARKS_DIR, root) < 0)
		return TG_EXIT_ERROR;
	if (tg_record_list(dir, &paths, &n, &err) < 0) {
		cli_error("%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct tg_record *rec = NULL;

		if (tg_record_read(paths[i], &rec, &err) < 0) {
			cli_error("%s", err.msg);
			continue;
		}
		if (matches(rec, what)) {
			int c = rec->action == TG_ACTION_DENY ? TG_EXIT_DENY : TG_EXIT_MARK;

			status_print_record(rec, "", true);
			printf("  record: %s\n", paths[i]);
			rc = found++ && rc > c ? rc : c;
		}
		tg_record_free(rec);
	}
	if (!found)
		cli_error("explain: no mark record of '%s' in %s: taintguard records the packages it "
			  "marked that are installed; a refused package was not installed, explain "
			  "its package file instead (taintguard explain FILE.rpm)", what, dir);
out:
	tg_record_list_free(paths, n);
	free(dir);
	return rc;
}

int cmd_explain(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "";
	struct stat st;
	int opt;

	while ((opt = getopt_long(argc, argv, "+r:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': root = optarg; break;
		case 'h': explain_usage(stdout); return 0;
		default: explain_usage(stderr); return TG_EXIT_ERROR;
		}
	}
	if (optind + 1 != argc) {
		cli_error("explain: one PACKAGE or FILE expected (see taintguard explain --help)");
		return TG_EXIT_ERROR;
	}
	if (!strcmp(root, "/"))
		root = "";
	if (stat(argv[optind], &st) == 0 && S_ISREG(st.st_mode))
		return explain_file(root, argv[optind]);
	return explain_record(root, argv[optind]);
}
