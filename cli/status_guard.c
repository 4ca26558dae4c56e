/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard status: is taintguard still on guard?  What rpm and dkms would
 * do now, asked the way they decide it:
 *
 *   plugin  rpm loads NAME.so from %{__plugindir} when %__transaction_NAME
 *           expands to its path (docs/rpm.md): the rpm command is asked
 *           (rpm --eval), the macro files are read to say which one set it
 *   mode    %_taintguard_mode is the mode the admin accepted (enforce unless
 *           `status --accept` recorded another)
 *   dkms    the sign_file dkms uses is our hook (the last framework file that
 *           sets it is ours), nothing switches signing off or touches the
 *           directive our PRE_INSTALL travels in, the dkms wrapper is ours
 *   policy  the policy in use loads, no other package owns it, and it is the
 *           one accepted (digest recorded by `status --accept` or make
 *           install) or, never accepted, unchanged since our package
 *           installed it (rpm -V)
 *
 * Each finding names the file and the package owning it (rpm -qf, else dpkg's database).  No
 * librpm: the rpm command is run as for the mark records (cmd_status.c).
 * The files are parsed, never run (guard/).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "cli.h"
#include "guard.h"
#include "hex.h"
#include "strf.h"

#define RECORD TG_LOCALSTATEDIR "/guard.conf"
#define RECORD_FORMAT "taintguard-guard/1"
#define SNIPPET "/etc/dkms/framework.conf.d/zz-taintguard.conf"
#define FRAMEWORK "/etc/dkms/framework.conf"
#define SIGN_HOOK TG_LIBEXECDIR "/taintguard-dkms-sign"
#define HOOK TG_LIBEXECDIR "/taintguard-dkms"
#define WRAPPER_MARK "taintguard-dkms-wrapper"
/* the packages built from taintguard.spec */
#define OUR_PREFIX "taintguard"

/* ------------------------------------------------------------ the accepted state */

struct rec_file {
	char *path;
	char digest[65];
};

struct record {
	bool present;
	long long time;
	char *mode;
	bool plugin, dkms;
	struct rec_file *files;
	size_t n_files;
};

static void record_free(struct record *r)
{
	for (size_t i = 0; i < r->n_files; i++)
		free(r->files[i].path);
	free(r->files);
	free(r->mode);
	memset(r, 0, sizeof(*r));
}

static const struct rec_file *record_file(const struct record *r, const char *path)
{
	for (size_t i = 0; path && i < r->n_files; i++)
		if (!strcmp(r->files[i].path, path))
			return &r->files[i];
	return NULL;
}

static int record_add_file(struct record *r, const char *path, const char *digest)
{
	struct rec_file *n = realloc(r->files, (r->n_files + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->files = n;
	if (!(n[r->n_files].path = strdup(path)))
		return -ENOMEM;
	snprintf(n[r->n_files].digest, sizeof(n[r->n_files].digest), "%s", digest);
	r->n_files++;
	return 0;
}

/* ROOT/var/lib/taintguard/guard.conf: "KEY VALUE" lines; unknown keys are skipped. */
static int record_read(const char *root, struct record *r, char *err, size_t errlen)
{
	char path[PATH_MAX], *text = NULL, *line, *save = NULL;
	size_t len;
	bool format = false;
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s%s", root, RECORD);
	ret = guard_read_file(path, &text, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0) {
		snprintf(err, errlen, "%.400s: %s", path, strerror(-ret));
		return ret;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');

		if (*line == '#' || !val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "format"))
			format = !strcmp(val, RECORD_FORMAT);
		else if (!strcmp(line, "time"))
			r->time = strtoll(val, NULL, 10);
		else if (!strcmp(line, "mode")) {
			free(r->mode);
			r->mode = strdup(val);
		} else if (!strcmp(line, "component")) {
			r->plugin |= !strcmp(val, "plugin");
			r->dkms |= !strcmp(val, "dkms");
		} else if (!strcmp(line, "file")) {
			char *p = strchr(val, ' ');

			if (p && !strncmp(val, "sha256:", 7) && p - val == 7 + 64) {
				*p++ = '\0';
				if (record_add_file(r, p, val + 7) < 0)
					ret = -ENOMEM;
			}
		}
	}
	free(text);
	if (!format) {
		snprintf(err, errlen, "%.400s: not a %s record", path, RECORD_FORMAT);
		record_free(r);
		return -EBADMSG;
	}
	r->present = true;
	return ret < 0 ? ret : 0;
}

/* ------------------------------------------------------------ small helpers */

static bool exists(const char *root, const char *path)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, path);
	return stat(p, &st) == 0;
}

/* sha256 of ROOT@path as 64 hex digits; -errno. */
static int digest_of(const char *root, const char *path, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char full[PATH_MAX], *text;
	size_t len;
	int r;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if ((r = guard_read_file(full, &text, &len)) < 0)
		return r;
	r = EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) == 1 ? 0 : -EIO;
	free(text);
	if (r == 0)
		hex_lower(out, md, mdlen < 32 ? mdlen : 32);
	return r;
}

/* ------------------------------------------------------------ asking rpm */

struct gctx {
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
	struct record rec;
};

/* rpm ARGS...: its output, or NULL with @why set. */
static char *rpm_run(struct gctx *g, const char *const *args, int *status, char **why)
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
static char *owner_of(struct gctx *g, const char *path)
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

static bool ours(const char *owner)
{
	return owner && !strncmp(owner, OUR_PREFIX, strlen(OUR_PREFIX));
}

/*
 * rpm -V of the package owning @path, for that file: 1 unchanged, 0
 * changed or missing (*@how says which), -1 unknown.
 */
static int verify_file(struct gctx *g, const char *owner, const char *path, char **how)
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
static int ask_macro_path(struct gctx *g)
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
static int ask_macros(struct gctx *g)
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

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The macro files of rpm's macro path, read in rpm's order (to say which file set what). */
static int read_macro_files(struct gctx *g)
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
			qsort(gl.gl_pathv, gl.gl_pathc, sizeof(char *), path_cmp);
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
static const char *set_by(struct gctx *g, const char *name, unsigned *line)
{
	const struct guard_win *w = guard_wins_find(&g->wins, name);

	if (!w)
		return NULL;
	*line = w->line;
	return g->files[w->file].path;
}

/* ------------------------------------------------------------ the checks */

static void check_set(struct status_check *c, enum guard_state s, char *file, const char *fmt,
		      ...) __attribute__((format(printf, 4, 5)));
static void check_set(struct status_check *c, enum guard_state s, char *file, const char *fmt,
		      ...)
{
	va_list ap;

	c->state = s;
	free(c->summary);
	va_start(ap, fmt);
	if (vasprintf(&c->summary, fmt, ap) < 0)
		c->summary = NULL;
	va_end(ap);
	free(c->file);
	c->file = file;
}

/* The first word of %__transaction_taintguard: the path rpm loads. */
static char *first_word(const char *s)
{
	size_t skip = strspn(s, " \t");

	return strndup(s + skip, strcspn(s + skip, " \t"));
}

/* Is our plugin installed here at all (or was it, when the state was accepted)? */
static bool plugin_expected(struct gctx *g, const char *so)
{
	if (g->rec.plugin || (so && exists(g->root, so)) || *g->transaction)
		return true;
	for (size_t i = 0; i < g->n_files; i++)
		if (guard_named_like_macros(g->files[i].path))
			return true;
	return false;
}

/* An installed program or library: the digest accepted, else rpm -V of its (our) package. */
static bool integrity(struct gctx *g, const char *path, char **owner, char **why)
{
	const struct rec_file *rf = record_file(&g->rec, path);
	char d[65];
	int v;

	*why = NULL;
	if (rf) {
		if (digest_of(g->root, path, d) < 0 || strcmp(d, rf->digest)) {
			*why = strf("%s changed since it was accepted", path);
			return false;
		}
		return true;
	}
	if (!*owner)
		*owner = owner_of(g, path);
	if (ours(*owner) && (v = verify_file(g, *owner, path, why)) == 0) {
		char *w = strf("%s: %s since package %s installed it", path, *why, *owner);

		free(*why);
		*why = w;
		return false;
	}
	return true;
}

static void check_plugin(struct gctx *g, struct status_check *c)
{
	char *so, *loads = NULL, *why = NULL, *owner = NULL;
	unsigned line = 0;
	const char *by;

	if (!g->rpm) {
		check_set(c, GS_ABSENT, NULL, "no rpm command: the rpm plugin does not apply");
		return;
	}
	if (!g->evaluated) {
		check_set(c, GS_UNKNOWN, NULL, "cannot ask rpm: %s", g->rpm_error ? g->rpm_error : "?");
		return;
	}
	so = *g->plugindir ? strf("%s/taintguard.so", g->plugindir) : NULL;
	if (!plugin_expected(g, so)) {
		check_set(c, GS_ABSENT, NULL, "the rpm plugin is not installed");
		free(so);
		return;
	}
	by = set_by(g, "__transaction_taintguard", &line);
	if (!*g->transaction) {
		check_set(c, GS_DOWN, by ? strdup(by) : NULL,
			  "%%__transaction_taintguard is empty: rpm does not load the plugin%s%s%s",
			  by ? " (set in " : " (no macro file sets it: the plugin's macro file "
			  "macros.transaction_taintguard is gone)", by ? by : "", by ? ")" : "");
		if (by)
			c->line = line;
		goto out;
	}
	if (!so || !exists(g->root, so)) {
		const char *pby = set_by(g, "__plugindir", &line);

		if (so)
			check_set(c, GS_DOWN, pby ? strdup(pby) : strdup(so),
				  "rpm loads plugins from %%{__plugindir} '%s', which has no "
				  "taintguard.so", g->plugindir);
		else
			check_set(c, GS_DOWN, pby ? strdup(pby) : NULL, "%%{__plugindir} is not "
				  "set: rpm loads no plugin");
		if (pby)
			c->line = line;
		goto out;
	}
	loads = first_word(g->transaction);
	if (!loads || strcmp(loads, so)) {
		char a[PATH_MAX], b[PATH_MAX], *ra, *rb;

		snprintf(a, sizeof(a), "%s%s", g->root, loads ? loads : "");
		snprintf(b, sizeof(b), "%s%s", g->root, so);
		ra = realpath(a, NULL);
		rb = realpath(b, NULL);
		if (!ra || !rb || strcmp(ra, rb)) {
			check_set(c, GS_DOWN, by ? strdup(by) : NULL,
				  "rpm loads '%s' as the taintguard plugin, not %s",
				  loads ? loads : "?", so);
			if (by)
				c->line = line;
			free(ra);
			free(rb);
			goto out;
		}
		free(ra);
		free(rb);
	}
	if (!integrity(g, so, &owner, &why)) {
		check_set(c, GS_DOWN, strdup(so), "%s", why);
		goto out;
	}
	check_set(c, GS_UP, by ? strdup(by) : NULL, "rpm loads %s", so);
	if (by)
		c->line = line;
out:
	free(why);
	free(owner);
	free(loads);
	free(so);
}

static void check_mode(struct gctx *g, struct status_check *c, const struct status_check *plugin)
{
	const char *want = g->rec.mode ? g->rec.mode : "enforce", *by;
	char *have, *opts;
	unsigned line = 0;

	if (plugin->state == GS_ABSENT || plugin->state == GS_UNKNOWN) {
		check_set(c, plugin->state, NULL, "%s", plugin->summary ? plugin->summary : "");
		return;
	}
	/* the plugin's reading: the macro, else the options after the path, else enforce */
	opts = g->transaction + strspn(g->transaction, " \t");
	opts += strcspn(opts, " \t");
	opts += strspn(opts, " \t");
	have = strdup(*g->mode ? g->mode : *opts ? opts : "enforce");
	if (!have) {
		check_set(c, GS_UNKNOWN, NULL, "out of memory");
		return;
	}
	/* the plugin enforces what it does not understand */
	if (strcmp(have, "warn") && strcmp(have, "off") && strcmp(have, "enforce")) {
		free(have);
		have = strdup("enforce");
	}
	by = set_by(g, "_taintguard_mode", &line);
	if (have && strcmp(have, want))
		check_set(c, GS_DOWN, by ? strdup(by) : NULL,
			  "%%_taintguard_mode is '%s', accepted: '%s'", have, want);
	else
		check_set(c, GS_UP, by ? strdup(by) : NULL, "%%_taintguard_mode is '%s'%s", want,
			  g->rec.mode ? " (accepted)" : "");
	if (by)
		c->line = line;
	free(have);
}

/* The policy the rpm plugin uses: %_taintguard_policy, else the site's, else the default. */
static char *policy_path(struct gctx *g)
{
	if (g->policy_macro && *g->policy_macro)
		return strdup(g->policy_macro);
	if (exists(g->root, TG_SYSCONFDIR "/policy.yaml"))
		return strdup(TG_SYSCONFDIR "/policy.yaml");
	return strdup(TG_DATADIR "/default.yaml");
}

static void check_policy(struct gctx *g, struct status_check *c)
{
	char *path = policy_path(g), full[PATH_MAX], d[65], *how = NULL;
	const struct rec_file *rf;
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	int v;

	if (!path) {
		check_set(c, GS_UNKNOWN, NULL, "out of memory");
		return;
	}
	rf = record_file(&g->rec, path);
	snprintf(full, sizeof(full), "%s%s", g->root, path);
	if (!exists(g->root, path)) {
		if (rf)
			check_set(c, GS_DOWN, path, "the accepted policy %s is gone: the built-in "
				  "policy is used, without its exceptions", path);
		else
			check_set(c, GS_ABSENT, path, "no policy installed (%s): the built-in policy "
				  "is used", path);
		return;
	}
	c->owner = owner_of(g, path);
	if (tg_policy_load_path(full, NULL, &p, &err) < 0) {
		check_set(c, GS_DOWN, path, "the policy cannot be loaded, so the built-in one is "
			  "used without its exceptions: %s", err.msg);
		return;
	}
	tg_policy_free(p);
	if (c->owner && *c->owner && !ours(c->owner)) {
		check_set(c, GS_DOWN, path, "the policy belongs to package %s, not to taintguard",
			  c->owner);
		return;
	}
	if (rf) {
		if (digest_of(g->root, path, d) < 0 || strcmp(d, rf->digest))
			check_set(c, GS_DOWN, path, "the policy changed since it was accepted (if "
				  "you changed it: taintguard status --accept)");
		else
			check_set(c, GS_UP, path, "the policy is the one accepted");
		return;
	}
	if (ours(c->owner) && (v = verify_file(g, c->owner, path, &how)) != 0) {
		check_set(c, v > 0 ? GS_UP : GS_UNKNOWN, path, v > 0
			  ? "the policy is as package %s installed it"
			  : "the policy cannot be verified against package %s", c->owner);
		return;
	}
	if (how)
		check_set(c, GS_DOWN, path, "the policy changed since package %s installed it and "
			  "was never accepted (if you changed it: taintguard status --accept)",
			  c->owner);
	else	/* nothing to compare with: say so, without calling it down */
		check_set(c, GS_UNKNOWN, path, "cannot tell whether this is the policy the admin "
			  "installed: it was never accepted and no taintguard package installed it "
			  "(taintguard status --accept records it)");
	free(how);
}

/* The framework files dkms reads, in its order (framework.conf, then framework.conf.d/ *.conf). */
static int framework_files(const char *root, struct strv *v)
{
	char pat[PATH_MAX];
	glob_t gl;
	int r = 0;

	if (exists(root, FRAMEWORK))
		r = strv_push(v, FRAMEWORK);
	snprintf(pat, sizeof(pat), "%s/etc/dkms/framework.conf.d/*.conf", root);
	memset(&gl, 0, sizeof(gl));
	if (r == 0 && glob(pat, 0, NULL, &gl) == 0) {
		qsort(gl.gl_pathv, gl.gl_pathc, sizeof(char *), path_cmp);
		for (size_t i = 0; i < gl.gl_pathc && r == 0; i++)
			r = strv_push(v, gl.gl_pathv[i] + strlen(root));
	}
	globfree(&gl);
	return r;
}

/* The value of the last "try_sign_modules=" in @text, quotes removed ("" if none). */
static void assigned(const char *text, const char *var, char *out, size_t size)
{
	size_t vl = strlen(var);

	out[0] = '\0';
	for (const char *p = text; (p = strstr(p, var)) != NULL; p += vl) {
		const char *v = p + vl;
		size_t l;

		if ((p > text && !strchr(" \t\n;", p[-1])) || *v != '=')
			continue;
		v++;
		if (*v == '"' || *v == '\'')
			v++;
		l = strcspn(v, "\"' \t\n;");
		snprintf(out, size, "%.*s", (int)(l < size ? l : size - 1), v);
	}
}

static void check_dkms(struct gctx *g, struct status_check *c)
{
	char full[PATH_MAX], *why = NULL, *owner = NULL;
	struct strv fw = { 0 };
	const char *last_sign = NULL;
	bool ours_last = false;

	if (!g->rec.dkms && !exists(g->root, SNIPPET) && !exists(g->root, HOOK)) {
		check_set(c, GS_ABSENT, NULL, "the DKMS hook is not installed");
		return;
	}
	if (framework_files(g->root, &fw) < 0) {
		check_set(c, GS_UNKNOWN, NULL, "out of memory");
		return;
	}
	for (size_t i = 0; i < fw.n; i++) {
		char *text = NULL, val[64];
		size_t len = 0;
		unsigned line;

		snprintf(full, sizeof(full), "%s%s", g->root, fw.v[i]);
		if (guard_read_file(full, &text, &len) < 0)
			continue;
		if (!strcmp(fw.v[i], SNIPPET)) {
			if (guard_shell_mention(text, len, "sign_file", false)) {
				last_sign = SNIPPET;
				ours_last = true;
			}
			free(text);
			continue;
		}
		if ((line = guard_shell_mention(text, len, "sign_file", false))) {
			last_sign = fw.v[i];
			ours_last = false;
		}
		assigned(text, "try_sign_modules", val, sizeof(val));
		if (!strcmp(val, "false")) {
			check_set(c, GS_DOWN, strdup(fw.v[i]), "try_sign_modules=false: dkms 3.3+ never "
				  "calls sign_file, taintguard's DKMS hook");
			c->line = guard_shell_mention(text, len, "try_sign_modules", false);
		} else if ((line = guard_shell_mention(text, len, "DKMS_DIRECTIVE", true))) {
			check_set(c, GS_DOWN, strdup(fw.v[i]), "it touches DKMS_DIRECTIVE_*, which carry "
				  "taintguard's PRE_INSTALL check");
			c->line = line;
		}
		free(text);
		if (c->state == GS_DOWN)
			goto out;
	}
	if (!exists(g->root, SNIPPET)) {
		check_set(c, GS_DOWN, strdup(SNIPPET), "taintguard's framework snippet is gone: dkms "
			  "no longer calls taintguard-dkms-sign");
		goto out;
	}
	if (!ours_last) {
		check_set(c, GS_DOWN, last_sign ? strdup(last_sign) : strdup(SNIPPET),
			  last_sign ? "it sets sign_file after taintguard's snippet: dkms calls that "
			  "instead of taintguard-dkms-sign" : "taintguard's snippet no longer sets "
			  "sign_file");
		goto out;
	}
	snprintf(full, sizeof(full), "%s%s", g->root, SNIPPET);
	{
		char *text = NULL;
		size_t len = 0;

		if (guard_read_file(full, &text, &len) < 0 || !strstr(text, SIGN_HOOK)) {
			check_set(c, GS_DOWN, strdup(SNIPPET), "taintguard's snippet does not name %s",
				  SIGN_HOOK);
			free(text);
			goto out;
		}
		free(text);
	}
	snprintf(full, sizeof(full), "%s%s", g->root, HOOK);
	if (access(full, X_OK) != 0) {
		check_set(c, GS_DOWN, strdup(HOOK), "the DKMS hook program is missing");
		goto out;
	}
	if (!integrity(g, HOOK, &owner, &why)) {
		check_set(c, GS_DOWN, strdup(HOOK), "%s", why);
		goto out;
	}
	/* Debian: the dkms wrapper over dpkg-divert carries PRE_INSTALL */
	if (exists(g->root, "/usr/sbin/dkms.distrib")) {
		char *text = NULL;
		size_t len = 0;

		snprintf(full, sizeof(full), "%s/usr/sbin/dkms", g->root);
		if (guard_read_file(full, &text, &len) < 0 || !strstr(text, WRAPPER_MARK)) {
			check_set(c, GS_DOWN, strdup("/usr/sbin/dkms"), "/usr/sbin/dkms is no longer "
				  "taintguard's wrapper (dkms.distrib is): PRE_INSTALL is not checked");
			free(text);
			goto out;
		}
		free(text);
	}
	check_set(c, GS_UP, strdup(SNIPPET), "dkms calls %s for every module it builds", SIGN_HOOK);
out:
	free(why);
	free(owner);
	strv_free(&fw);
}

/* ------------------------------------------------------------ entry points */

static void gctx_free(struct gctx *g)
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
	record_free(&g->rec);
}

static int gctx_init(struct gctx *g, const char *root, const char *dbpath, char *err,
		     size_t errlen)
{
	int r;

	memset(g, 0, sizeof(*g));
	g->root = root;
	g->dbpath = dbpath;
	if ((r = record_read(root, &g->rec, err, errlen)) < 0)
		return r;
	g->rpm = cli_find_rpm();
	if (g->rpm && ask_macro_path(g) == 0 && ask_macros(g) == 0)
		r = read_macro_files(g);
	return r;
}

void status_checks_free(struct status_check *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].summary);
		free(c[i].file);
		free(c[i].owner);
	}
}

int status_guard(const char *root, const char *dbpath, unsigned which, struct status_check *out,
		 size_t *n)
{
	struct gctx g;
	char err[TG_ERRMAX] = "";
	struct status_check plugin = { .name = "plugin" }, mode = { .name = "mode" };
	int r;

	*n = 0;
	r = gctx_init(&g, root, dbpath, err, sizeof(err));
	if (r < 0) {
		cli_error("%s", *err ? err : strerror(-r));
		gctx_free(&g);
		return r;
	}
	if (which & (STATUS_PLUGIN | STATUS_MODE))
		check_plugin(&g, &plugin);
	if (which & STATUS_MODE)
		check_mode(&g, &mode, &plugin);
	if (which & STATUS_PLUGIN) {
		out[(*n)++] = plugin;
		memset(&plugin, 0, sizeof(plugin));
	}
	if (which & STATUS_MODE) {
		out[(*n)++] = mode;
		memset(&mode, 0, sizeof(mode));
	}
	if (which & STATUS_DKMS) {
		out[*n] = (struct status_check){ .name = "dkms" };
		check_dkms(&g, &out[(*n)++]);
	}
	if (which & STATUS_POLICY) {
		out[*n] = (struct status_check){ .name = "policy" };
		check_policy(&g, &out[(*n)++]);
	}
	/* the package owning each file named */
	for (size_t i = 0; i < *n; i++) {
		if (out[i].file && !out[i].owner)
			out[i].owner = owner_of(&g, out[i].file);
		if (out[i].file && (!out[i].owner || !*out[i].owner))
			status_dpkg_owner(g.root, out[i].file, &out[i].owner);
	}
	status_checks_free(&plugin, 1);
	status_checks_free(&mode, 1);
	gctx_free(&g);
	return 0;
}

/* ------------------------------------------------------------ --accept */

static int add_digest(const char *root, FILE *f, const char *path)
{
	char d[65];

	if (!path || digest_of(root, path, d) < 0)
		return 0;
	fprintf(f, "file sha256:%s %s\n", d, path);
	printf("accepted %s (sha256 %.16s...)\n", path, d);
	return 0;
}

int status_guard_accept(const char *root, const char *dbpath)
{
	struct gctx g;
	char err[TG_ERRMAX] = "", path[PATH_MAX], tmp[PATH_MAX + 16];
	struct status_check plugin = { .name = "plugin" };
	char *pol = NULL, *mode = NULL;
	FILE *f;
	int r, fd;

	r = gctx_init(&g, root, dbpath, err, sizeof(err));
	if (r < 0 && r != -EBADMSG) {
		cli_error("%s", *err ? err : strerror(-r));
		gctx_free(&g);
		return r;
	}
	record_free(&g.rec);	/* what is there now, not what was accepted before */
	snprintf(path, sizeof(path), "%s%s", root, RECORD);
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	snprintf(err, sizeof(err), "%s%s", root, TG_LOCALSTATEDIR);
	mkdir(err, 0755);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		cli_error("%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		gctx_free(&g);
		return -errno;
	}
	fprintf(f, "# What the admin accepted: taintguard status compares with it (taintguard(1)).\n"
		   "# Written by taintguard status --accept (and make install); do not edit.\n"
		   "format " RECORD_FORMAT "\ntime %lld\n", (long long)time(NULL));
	if (g.evaluated) {
		check_plugin(&g, &plugin);
		if (plugin.state != GS_ABSENT) {
			char *so = strf("%s/taintguard.so", g.plugindir);
			const char *opts = g.transaction + strspn(g.transaction, " \t");

			opts += strcspn(opts, " \t");
			opts += strspn(opts, " \t");
			mode = strdup(*g.mode ? g.mode : *opts ? opts : "enforce");
			fprintf(f, "component plugin\nmode %s\n", mode ? mode : "enforce");
			printf("accepted the rpm plugin, mode %s\n", mode ? mode : "enforce");
			add_digest(root, f, so);
			for (size_t i = 0; i < g.n_files; i++)
				if (guard_named_like_macros(g.files[i].path))
					add_digest(root, f, g.files[i].path);
			free(so);
		}
	}
	if (exists(root, SNIPPET) || exists(root, HOOK)) {
		fputs("component dkms\n", f);
		printf("accepted the DKMS hook\n");
		add_digest(root, f, SNIPPET);
		add_digest(root, f, HOOK);
	}
	pol = policy_path(&g);
	add_digest(root, f, pol);
	r = fflush(f) == 0 && fsync(fileno(f)) == 0 ? 0 : -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		cli_error("%s: %s", path, strerror(-r));
		unlink(tmp);
	} else {
		printf("recorded in %s\n", path);
	}
	free(pol);
	free(mode);
	status_checks_free(&plugin, 1);
	gctx_free(&g);
	return r;
}
