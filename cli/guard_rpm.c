/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Asking rpm what it would do now, for taintguard status: its macro path and
 * the macros that decide whether the plugin runs (rpm --showrc, --eval), the
 * macro files read in rpm's order to say which one set what (guard/), the
 * package owning a file (rpm -qf) and whether it changed (rpm -V).  No
 * librpm: the rpm command is run as for the mark records (cmd_status.c).
 */
#include <errno.h>
#include <glob.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "guard_status.h"
#include "strf.h"

/* rpm ARGS...: its output, or NULL with @why set. */
static char *rpm_run(struct gs_ctx *g, const char *const *args, int *status, char **why)
{
	const char *argv[32];
	size_t a = 0, len;
	char *out = NULL;
	int st;

	argv[a++] = g->rpm;
	for (size_t i = 0; args[i] && a < 31; i++)
		argv[a++] = args[i];
	argv[a] = NULL;
	st = cli_run_capture((char *const *)argv, &out, &len);
	if (st < 0 || WIFSIGNALED(st)) {
		free(out);
		*why = strf("rpm could not be run%s%s", st < 0 ? ": " : "",
			    st < 0 ? strerror(-st) : "");
		return NULL;
	}
	*status = WEXITSTATUS(st);
	return out;
}

/* The value after "MARK" on a line of @out, up to the next MARK line. */
static char *marked(const char *out, const char *mark)
{
	const char *p = strstr(out, mark), *e;

	if (!p)
		return NULL;
	p += strlen(mark);
	e = strstr(p, "\nTGV-");
	if (!e)
		e = p + strlen(p);
	while (e > p && (e[-1] == '\n' || e[-1] == '\r'))
		e--;
	return strndup(p, (size_t)(e - p));
}

/* The package owning ROOT@path: "NEVRA" (several joined by ", "), "" for none, NULL unknown. */
char *gs_owner_of(struct gs_ctx *g, const char *path)
{
	const char *args[12];
	char *out, *why = NULL, *res = NULL, *line, *save = NULL;
	size_t a = 0;
	int st = 0;

	if (!g->rpm || !path)
		return NULL;
	args[a++] = "--root";
	args[a++] = *g->root ? g->root : "/";
	if (g->dbpath) {
		args[a++] = "--dbpath";
		args[a++] = g->dbpath;
	}
	args[a++] = "-qf";
	args[a++] = "--qf";
	args[a++] = "TGV-OWNER %{NEVRA}\\n";
	args[a++] = "--";
	args[a++] = path;
	args[a] = NULL;
	if (!(out = rpm_run(g, args, &st, &why))) {
		free(why);
		return NULL;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "TGV-OWNER ", 10)) {
			char *n = res ? strf("%s, %s", res, line + 10) : strdup(line + 10);

			free(res);
			res = n;
		} else if (strstr(line, "is not owned by any package") && !res) {
			res = strdup("");
		}
	}
	free(out);
	return res;
}

bool gs_ours(const char *owner)
{
	return owner && !strncmp(owner, GS_OUR_PREFIX, strlen(GS_OUR_PREFIX));
}

/*
 * rpm -V of the package owning @path, for that file: 1 unchanged, 0
 * changed or missing (*@how says which), -1 unknown.
 */
int gs_verify_file(struct gs_ctx *g, const char *owner, const char *path, char **how)
{
	const char *args[12];
	char *out, *why = NULL, *line, *save = NULL, *first;
	size_t a = 0;
	int st = 0, res = 1;

	*how = NULL;
	if (!g->rpm || !owner || !*owner)
		return -1;
	first = strndup(owner, strcspn(owner, ","));
	args[a++] = "--root";
	args[a++] = *g->root ? g->root : "/";
	if (g->dbpath) {
		args[a++] = "--dbpath";
		args[a++] = g->dbpath;
	}
	args[a++] = "-V";
	args[a++] = "--nomtime";
	args[a++] = "--";
	args[a++] = first;
	args[a] = NULL;
	out = rpm_run(g, args, &st, &why);
	free(why);
	if (!out) {
		free(first);
		return -1;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		size_t l = strlen(line), pl = strlen(path);

		if (l <= pl || strcmp(line + l - pl, path) || line[l - pl - 1] != ' ')
			continue;
		if (!strncmp(line, "missing", 7))
			*how = strdup("missing");
		else if (strchr("S5", line[0]) && (line[0] == 'S' || line[2] == '5'))
			*how = strdup("its content changed (rpm -V)");
		else
			continue;
		res = 0;
	}
	free(out);
	free(first);
	return res;
}

/* rpm's macro path ("Macro path:" of rpm --showrc); for a --root, inside it. */
static int ask_macro_path(struct gs_ctx *g)
{
	const char *args[] = { "--showrc", NULL };
	char *out, *why = NULL, *p, *e, *copy, *save = NULL, *res = NULL;
	int st = 0;

	if (!(out = rpm_run(g, args, &st, &why))) {
		g->rpm_error = why;
		return -EIO;
	}
	p = strstr(out, "\nMacro path: ");
	if (!p) {
		g->rpm_error = strdup("rpm --showrc printed no macro path");
		free(out);
		return -EIO;
	}
	p += 13;
	e = strchr(p, '\n');
	copy = strndup(p, e ? (size_t)(e - p) : strlen(p));
	free(out);
	if (!copy)
		return -ENOMEM;
	if (!*g->root) {
		g->macro_path = copy;
		return 0;
	}
	/* rpm in the root would read its own files: the same list, below ROOT ("~": its /root) */
	for (char *t = strtok_r(copy, ":", &save); t; t = strtok_r(NULL, ":", &save)) {
		char *n = strf("%s%s%s%s", res ? res : "", res ? ":" : "", g->root,
			       t[0] == '~' ? "" : t);

		if (n && t[0] == '~') {
			char *m = strf("%s/root%s", n, t + 1);

			free(n);
			n = m;
		}
		free(res);
		res = n;
		if (!res)
			break;
	}
	free(copy);
	g->macro_path = res;
	return res ? 0 : -ENOMEM;
}

/* %{__plugindir} and friends as rpm expands them now. */
static int ask_macros(struct gs_ctx *g)
{
	const char *args[16];
	char *out, *why = NULL;
	size_t a = 0;
	int st = 0;

	if (*g->root) {
		args[a++] = "--macros";
		args[a++] = g->macro_path;
	}
	args[a++] = "--eval";
	args[a++] = "TGV-P %{?__plugindir}";
	args[a++] = "--eval";
	args[a++] = "TGV-T %{?__transaction_taintguard}";
	args[a++] = "--eval";
	args[a++] = "TGV-M %{?_taintguard_mode}";
	args[a++] = "--eval";
	args[a++] = "TGV-Y %{?_taintguard_policy}";
	args[a] = NULL;
	if (!(out = rpm_run(g, args, &st, &why))) {
		g->rpm_error = why;
		return -EIO;
	}
	if (st != 0 || !strstr(out, "TGV-P ")) {
		char *nl = strchr(out, '\n');

		g->rpm_error = strf("rpm --eval failed: %.*s", nl ? (int)(nl - out) : 200, out);
		free(out);
		return -EIO;
	}
	g->plugindir = marked(out, "TGV-P ");
	g->transaction = marked(out, "TGV-T ");
	g->mode = marked(out, "TGV-M ");
	g->policy_macro = marked(out, "TGV-Y ");
	free(out);
	g->evaluated = g->plugindir && g->transaction && g->mode && g->policy_macro;
	return g->evaluated ? 0 : -ENOMEM;
}

/* The macro files of rpm's macro path, read in rpm's order (to say which file set what). */
static int read_macro_files(struct gs_ctx *g)
{
	char *copy = strdup(g->macro_path ? g->macro_path : ""), *save = NULL;
	char *target = NULL;
	size_t cap = 0;
	int r = 0;

	if (!copy)
		return -ENOMEM;
	{
		const char *args[] = { "--eval", "%{_target}", NULL };
		char *why = NULL;
		int st = 0;

		target = rpm_run(g, args, &st, &why);
		free(why);
		if (target)
			target[strcspn(target, "\n")] = '\0';
	}
	for (char *t = strtok_r(copy, ":", &save); t && r == 0; t = strtok_r(NULL, ":", &save)) {
		struct guard_places pl = { 0 };
		glob_t gl;

		/* one entry: %{_target} and ~ as rpm expands them */
		if (guard_places_set_macro_path(&pl, t, target ? target : "", getenv("HOME")) < 0)
			continue;
		for (size_t e = 0; e < pl.macro.n && r == 0; e++) {
			memset(&gl, 0, sizeof(gl));
			if (glob(pl.macro.v[e], 0, NULL, &gl) != 0) {
				globfree(&gl);
				continue;
			}
			qsort(gl.gl_pathv, gl.gl_pathc, sizeof(char *), gs_path_cmp);
			for (size_t j = 0; j < gl.gl_pathc && r == 0; j++) {
				const char *full = gl.gl_pathv[j];
				struct guard_mfile *f;

				if (guard_macro_skipped(full))
					continue;
				if (g->n_files == cap) {
					size_t nc = cap ? cap * 2 : 32;
					struct guard_mfile *nv = realloc(g->files, nc * sizeof(*nv));

					if (!nv) {
						r = -ENOMEM;
						break;
					}
					g->files = nv;
					cap = nc;
				}
				f = &g->files[g->n_files];
				memset(f, 0, sizeof(*f));
				f->path = strdup(full + (strncmp(full, g->root, strlen(g->root)) ? 0
								: strlen(g->root)));
				if (!f->path) {
					r = -ENOMEM;
					break;
				}
				guard_read_file(full, &f->text, &f->len);
				g->n_files++;
			}
			globfree(&gl);
		}
		guard_places_free(&pl);
	}
	free(copy);
	free(target);
	if (r == 0)
		r = guard_names_init(&g->names);
	if (r == 0)
		r = guard_names_close(&g->names, g->files, g->n_files);
	if (r == 0)
		r = guard_wins_get(g->files, g->n_files, &g->names, &g->wins);
	return r;
}

/* "FILE (line N)" of the macro file that set @name last, or NULL. */
const char *gs_set_by(struct gs_ctx *g, const char *name, unsigned *line)
{
	const struct guard_win *w = guard_wins_find(&g->wins, name);

	if (!w)
		return NULL;
	*line = w->line;
	return g->files[w->file].path;
}

void gs_ctx_free(struct gs_ctx *g)
{
	free(g->rpm);
	free(g->macro_path);
	free(g->plugindir);
	free(g->transaction);
	free(g->mode);
	free(g->policy_macro);
	free(g->rpm_error);
	for (size_t i = 0; i < g->n_files; i++) {
		free(g->files[i].path);
		free(g->files[i].text);
	}
	free(g->files);
	guard_names_free(&g->names);
	guard_wins_free(&g->wins);
	gs_record_free(&g->rec);
}

int gs_ctx_init(struct gs_ctx *g, const char *root, const char *dbpath, char *err,
		     size_t errlen)
{
	int r;

	memset(g, 0, sizeof(*g));
	g->root = root;
	g->dbpath = dbpath;
	if ((r = gs_record_read(root, &g->rec, err, errlen)) < 0)
		return r;
	g->rpm = cli_find_rpm();
	if (g->rpm && ask_macro_path(g) == 0 && ask_macros(g) == 0)
		r = read_macro_files(g);
	return r;
}
