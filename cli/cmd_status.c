/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard status: the packages and DKMS modules that were installed with
 * a mark (or installed in warn mode although denied), from the records the
 * rpm plugin and the DKMS hook keep in ROOT/var/lib/taintguard/marks/.
 *
 * A record whose package is no longer installed (rpmdb) or whose DKMS module
 * is gone from dkms's tree is shown as stale: records are removed when the
 * package goes, so a stale one means something removed it behind our back
 * (rpm --noplugins -e, a manual rm).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rpm/rpmdb.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>

#include "cli.h"

#define MARKS_DIR "/var/lib/taintguard/marks"
/* a record is a few KB; anything much larger is not ours */
#define RECORD_MAX_SIZE (4u << 20)

struct record {
	char *file;
	json_object *j;
	const char *source;	/* "rpm" or "dkms" */
	const char *package;	/* NEVRA or module/version */
	const char *action;
	bool stale;
};

static void status_usage(FILE *out)
{
	fputs("Usage: taintguard status [--root DIR] [--format text|json]\n\n"
	      "List the installed packages (rpm) and DKMS modules that taintguard marked,\n"
	      "or let through in warn mode although the policy denies them, from the\n"
	      "records in ROOT" MARKS_DIR "/.  A record whose package is no\n"
	      "longer installed (rpmdb of ROOT) or whose DKMS module is no longer in\n"
	      "ROOT/var/lib/dkms is shown as stale.\n\n"
	      "Options:\n"
	      "  -r, --root DIR     the system below DIR instead of /\n"
	      "      --dbpath DIR   rpm database inside the root (default: rpm's %_dbpath)\n"
	      "  -f, --format FMT   text (default) or json\n"
	      "  -h, --help         show this help\n"
	      "  -V, --version      show the version\n\n"
	      "Exit codes: 0 nothing marked, 1 marked packages present (or only stale\n"
	      "records), 2 a denied package is installed (warn mode), 3 error.\n", out);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ?
	       json_object_get_string(v) : NULL;
}

static bool rpm_installed(const char *root, const char *nevra)
{
	rpmts ts = rpmtsCreate();
	rpmdbMatchIterator mi;
	bool found;

	rpmtsSetRootDir(ts, root && *root ? root : "/");
	mi = rpmtsInitIterator(ts, RPMDBI_LABEL, nevra, 0);
	found = mi && rpmdbNextIterator(mi) != NULL;
	rpmdbFreeIterator(mi);
	rpmtsFree(ts);
	return found;
}

/* dkms keeps ROOT/var/lib/dkms/MODULE/VERSION/KVER while a build exists. */
static bool dkms_present(const char *root, const char *package, const char *kernel)
{
	char path[4096];
	struct stat st;

	if (!kernel || snprintf(path, sizeof(path), "%s/var/lib/dkms/%s/%s", root, package, kernel) >=
	    (int)sizeof(path))
		return false;
	return stat(path, &st) == 0;
}

static int record_load(const char *root, const char *dir, const char *name, struct record *rec)
{
	struct stat st;

	memset(rec, 0, sizeof(*rec));
	if (asprintf(&rec->file, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	if (stat(rec->file, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > RECORD_MAX_SIZE) {
		cli_error("%s: not a readable record", rec->file);
		return -EINVAL;
	}
	rec->j = json_object_from_file(rec->file);
	if (!rec->j || !json_object_is_type(rec->j, json_type_object)) {
		cli_error("%s: not a taintguard record (%s)", rec->file, json_util_get_last_err());
		return -EINVAL;
	}
	rec->source = jstr(rec->j, "source");
	rec->action = jstr(rec->j, "action");
	if (rec->source && !strcmp(rec->source, "dkms")) {
		rec->package = jstr(rec->j, "package");
		rec->stale = !rec->package ||
			     !dkms_present(root, rec->package, jstr(rec->j, "kernel"));
	} else {
		rec->source = "rpm";
		rec->package = jstr(rec->j, "nevra");
		rec->stale = !rec->package || !rpm_installed(root, rec->package);
	}
	if (!rec->package || !rec->action) {
		cli_error("%s: record without package or action", rec->file);
		return -EINVAL;
	}
	return 0;
}

static void record_free(struct record *rec)
{
	free(rec->file);
	json_object_put(rec->j);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Record file names, sorted (deterministic output); *n = 0 if the directory is absent. */
static int list_records(const char *dir, char ***names, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char **nv;

		if (len < 6 || strcmp(e->d_name + len - 5, ".json") || e->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(*names, cap * sizeof(char *));
			if (!nv)
				break;
			*names = nv;
		}
		(*names)[(*n)++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(*names, *n, sizeof(char *), name_cmp);
	return 0;
}

static void print_text(const struct record *rec)
{
	json_object *mods;

	printf("%s (%s): %s%s\n", rec->package, rec->source, rec->action,
	       rec->stale ? " [stale: no longer installed]" : "");
	if (jstr(rec->j, "kernel"))
		printf("  kernel %s\n", jstr(rec->j, "kernel"));
	if (!json_object_object_get_ex(rec->j, "modules", &mods) ||
	    !json_object_is_type(mods, json_type_array))
		return;
	for (size_t i = 0; i < json_object_array_length(mods); i++) {
		json_object *m = json_object_array_get_idx(mods, i), *reasons;
		const char *taint = jstr(m, "taint");

		printf("  %s: module %s, taint %s", jstr(m, "path") ?: "?", jstr(m, "module") ?: "?",
		       taint && *taint ? taint : "none");
		if (json_object_object_get_ex(m, "reasons", &reasons) &&
		    json_object_array_length(reasons) > 0)
			printf(": %s", json_object_get_string(json_object_array_get_idx(reasons, 0)));
		putchar('\n');
	}
}

static void print_json(const struct record *recs, size_t n)
{
	json_object *arr = json_object_new_array();

	for (size_t i = 0; i < n; i++) {
		json_object *o = json_object_new_object(), *mods;

		json_object_object_add(o, "source", json_object_new_string(recs[i].source));
		json_object_object_add(o, "package", json_object_new_string(recs[i].package));
		json_object_object_add(o, "action", json_object_new_string(recs[i].action));
		json_object_object_add(o, "stale", json_object_new_boolean(recs[i].stale));
		json_object_object_add(o, "record", json_object_new_string(recs[i].file));
		if (json_object_object_get_ex(recs[i].j, "modules", &mods))
			json_object_object_add(o, "modules", json_object_get(mods));
		json_object_array_add(arr, o);
	}
	puts(json_object_to_json_string_ext(arr, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(arr);
}

static int exit_code(const struct record *recs, size_t n)
{
	int rc = TG_EXIT_ALLOW;

	for (size_t i = 0; i < n; i++) {
		int c = !recs[i].stale && !strcmp(recs[i].action, "deny") ? TG_EXIT_DENY : TG_EXIT_MARK;

		rc = c > rc ? c : rc;
	}
	return rc;
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "dbpath", required_argument, NULL, 'D' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "", *dbpath = NULL;
	enum tg_format fmt = FMT_TEXT;
	struct record *recs = NULL;
	char **names = NULL, *dir = NULL;
	size_t n = 0, nrec = 0;
	int opt, rc = TG_EXIT_ERROR, r;

	while ((opt = getopt_long(argc, argv, "r:f:hV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': root = optarg; break;
		case 'D': dbpath = optarg; break;
		case 'f':
			if (cli_parse_format(optarg, &fmt) < 0 || fmt == FMT_JUNIT || fmt == FMT_SARIF) {
				cli_error("status: unknown format '%s' (text or json)", optarg);
				return TG_EXIT_ERROR;
			}
			break;
		case 'h': status_usage(stdout); return 0;
		case 'V': printf("taintguard %s\n", TG_VERSION_STRING); return 0;
		default: status_usage(stderr); return TG_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		cli_error("status: unexpected argument '%s'", argv[optind]);
		return TG_EXIT_ERROR;
	}
	if (!strcmp(root, "/"))
		root = "";
	if (asprintf(&dir, "%s" MARKS_DIR, root) < 0)
		return TG_EXIT_ERROR;
	r = list_records(dir, &names, &n);
	if (r < 0) {
		cli_error("%s: %s", dir, strerror(-r));
		goto out;
	}
	if (rpmReadConfigFiles(NULL, NULL) != 0) {
		cli_error("cannot read the rpm configuration");
		goto out;
	}
	if (dbpath)
		rpmPushMacro(NULL, "_dbpath", NULL, dbpath, RMIL_CMDLINE);
	recs = calloc(n ? n : 1, sizeof(*recs));
	if (!recs)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (record_load(root, dir, names[i], &recs[nrec]) < 0) {
			record_free(&recs[nrec]);
			goto out;
		}
		nrec++;
	}
	if (fmt == FMT_JSON)
		print_json(recs, nrec);
	else if (nrec == 0)
		printf("no marked packages (%s)\n", dir);
	else
		for (size_t i = 0; i < nrec; i++)
			print_text(&recs[i]);
	rc = exit_code(recs, nrec);
out:
	for (size_t i = 0; i < nrec; i++)
		record_free(&recs[i]);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(recs);
	free(dir);
	return rc;
}
