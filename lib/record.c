/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mark records (docs/records.md): the one writer and the one reader of the
 * files the rpm plugin and the DKMS hook keep for "taintguard status".
 *
 * The writer writes TG_RECORD_FORMAT only.  The reader also reads the two
 * "taintguard-mark/1" variants, which are on users' disks: the rpm plugin's
 * (pretty, "nevra", "time" in seconds) and the DKMS hook's (compact,
 * "package", "kernel", "recorded" as an ISO time).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "dirs.h"
#include "internal.h"

#define FORMAT_V1 "taintguard-mark/1"
/* a verdict object nests four deep inside a record (modules/refusal/symbols) */
#define RECORD_MAX_DEPTH 16
/* temporary names tried before giving up (each O_EXCL) */
#define TMP_TRIES 100

/* A record of the reader: the public part, and what it owns. */
struct record_priv {
	struct tg_record pub;
	struct tg_strpool *pool;
	struct tg_record_module *mods;
	const char ***reasons;	/* per module, malloc'ed */
	size_t n_alloc;		/* entries of mods and reasons */
};

const char *tg_record_source_name(enum tg_record_source s)
{
	return s == TG_RECORD_DKMS ? "dkms" : "rpm";
}

/* ------------------------------------------------------------ package ids */

/*
 * Ids become file names, paths below the dkms tree and arguments of
 * "rpm -q" (package names): printable ASCII without spaces or '/', not starting with '-'
 * (an option) or '.' (".", "..", hidden files).
 */
static bool id_ok(const char *s, size_t len)
{
	if (len == 0 || s[0] == '-' || s[0] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c > '~' || c == '/')
			return false;
	}
	return true;
}

/* Length of MODULE in MODULE/VERSION, 0 when @pkg is not one. */
static size_t dkms_split(const char *pkg)
{
	const char *slash = strchr(pkg, '/');

	if (!slash || !id_ok(pkg, (size_t)(slash - pkg)) || !id_ok(slash + 1, strlen(slash + 1)))
		return 0;
	return (size_t)(slash - pkg);
}

/* Is (source, package, name, kernel) usable?  NULL, or why not. */
static const char *ids_problem(enum tg_record_source source, const char *package,
			       const char *name, const char *kernel)
{
	if (!package || !*package)
		return "no package";
	/* "taintguard status" passes the name to rpm -q */
	if (name && !id_ok(name, strlen(name)))
		return "not a usable package name";
	if (source == TG_RECORD_RPM)
		return id_ok(package, strlen(package)) ? NULL : "not a usable rpm NEVRA";
	if (source != TG_RECORD_DKMS)
		return "unknown source";
	if (!dkms_split(package))
		return "not a usable DKMS MODULE/VERSION";
	if (kernel && !id_ok(kernel, strlen(kernel)))
		return "not a usable kernel release";
	return NULL;
}

int tg_record_path(const char *dir, const struct tg_record *rec, char **out,
		   struct tg_error *err)
{
	const char *why = ids_problem(rec->source, rec->package, rec->name, rec->kernel);

	*out = NULL;
	if (!why && rec->source == TG_RECORD_DKMS && !rec->kernel)
		why = "a DKMS record needs a kernel";
	if (why)
		return tg_fail(err, -EINVAL, "%s: no record file for package \"%s\": %s", dir,
			       rec->package ? rec->package : "", why);
	if (rec->source == TG_RECORD_RPM) {
		*out = strf("%s/%s.json", dir, rec->package);
	} else {
		size_t ml = dkms_split(rec->package);

		*out = strf("%s/dkms-%.*s-%s-%s.json", dir, (int)ml, rec->package,
				   rec->package + ml + 1, rec->kernel);
	}
	return *out ? 0 : tg_fail(err, -ENOMEM, "%s: out of memory", dir);
}

/* ------------------------------------------------------------ writer */

/* mkdir -p @dir; an existing component must be a directory. */
static int mkdirs(const char *dir, struct tg_error *err)
{
	char *p = strdup(dir);
	struct stat st;
	int r = 0;

	if (!p)
		return tg_fail(err, -ENOMEM, "%s: out of memory", dir);
	for (char *s = p + 1; r == 0; s++) {
		char c = *s;

		if (c != '/' && c != '\0')
			continue;
		*s = '\0';
		if (mkdir(p, 0755) < 0) {
			if (errno != EEXIST)
				r = tg_fail(err, -errno, "%s: cannot create the directory: %s", p,
					    strerror(errno));
			else if (stat(p, &st) < 0)
				r = tg_fail(err, -errno, "%s: %s", p, strerror(errno));
			else if (!S_ISDIR(st.st_mode))
				r = tg_fail(err, -ENOTDIR, "%s: not a directory", p);
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	return r;
}

/*
 * A new temporary file next to @path: O_EXCL never opens what exists, a
 * planted link included (O_NOFOLLOW says so once more).  The name does not
 * end in ".json", so a reader listing the directory never sees it.
 */
static int open_tmp(const char *path, char **tmp, struct tg_error *err)
{
	static unsigned counter;

	for (int i = 0; i < TMP_TRIES; i++) {
		unsigned c = __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED);
		int fd;

		*tmp = strf("%s.tmp-%ld-%u", path, (long)getpid(), c);
		if (!*tmp)
			return tg_fail(err, -ENOMEM, "%s: out of memory", path);
		fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd >= 0) {
			/* the records are for every user to read, whatever our umask */
			(void)fchmod(fd, 0644);
			return fd;
		}
		int e = errno;
		free(*tmp);
		*tmp = NULL;
		if (e != EEXIST)
			return tg_fail(err, -e, "%s: %s", path, strerror(e));
	}
	return tg_fail(err, -EEXIST, "%s: no free temporary file name", path);
}

static void put_str(FILE *f, const char *key, const char *val)
{
	fprintf(f, "  \"%s\": ", key);
	tg_json_string(f, val);
	fputs(",\n", f);
}

/*
 * The kernel all verdicts name, NULL when they differ, name none, or name one
 * no record may carry (a release from a hostile module's vermagic).
 */
static const char *common_kernel(const struct tg_verdict *const *v, size_t n)
{
	const char *k = NULL;

	for (size_t i = 0; i < n; i++) {
		if (!v[i]->kernel || (k && strcmp(k, v[i]->kernel)))
			return NULL;
		k = v[i]->kernel;
	}
	return k && id_ok(k, strlen(k)) ? k : NULL;
}

static void write_json(FILE *f, const struct tg_record *rec, const struct tg_verdict *const *v,
		       size_t n, bool staged)
{
	fputs("{\n", f);
	put_str(f, "format", TG_RECORD_FORMAT);
	/* absent in a final record: what readers before staging read is final */
	if (staged)
		put_str(f, "state", "staged");
	put_str(f, "source", tg_record_source_name(rec->source));
	put_str(f, "package", rec->package);
	put_str(f, "name", rec->name);
	put_str(f, "epoch", rec->epoch);
	put_str(f, "version", rec->version);
	put_str(f, "release", rec->release);
	put_str(f, "arch", rec->arch);
	put_str(f, "kernel", rec->kernel ? rec->kernel : common_kernel(v, n));
	put_str(f, "action", tg_action_name(rec->action));
	put_str(f, "mode", rec->mode);
	put_str(f, "policy", rec->policy);
	fprintf(f, "  \"time\": %lld,\n", (long long)(rec->time > 0 ? rec->time : time(NULL)));
	fputs("  \"modules\": [", f);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",\n    " : "\n    ", f);
		tg_verdict_write_json(v[i], f);
	}
	fputs(n ? "\n  ]\n}\n" : "]\n}\n", f);
}

static int write_record(const char *dir, const struct tg_record *rec,
			const struct tg_verdict *const *v, size_t n, bool staged,
			struct tg_error *err)
{
	char *path = NULL, *tmp = NULL;
	FILE *f = NULL;
	int fd, r;

	if ((unsigned)rec->action > TG_ACTION_DENY)
		return tg_fail(err, -EINVAL, "%s: record for %s: invalid action", dir,
			       rec->package ? rec->package : "?");
	r = tg_record_path(dir, rec, &path, err);
	if (r < 0)
		return r;
	r = mkdirs(dir, err);
	if (r < 0)
		goto out;
	fd = open_tmp(path, &tmp, err);
	if (fd < 0) {
		r = fd;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		r = tg_fail(err, -errno, "%s: %s", tmp, strerror(errno));
		close(fd);
		goto out;
	}
	errno = 0;
	write_json(f, rec, v, n, staged);
	/* a full disk shows at fflush, a failing one often only at fsync */
	if (fflush(f) != 0 || ferror(f) || fsync(fileno(f)) < 0) {
		int e = errno ? errno : EIO;

		r = tg_fail(err, -e, "%s: %s", path, strerror(e));
		goto out;
	}
	/* never leave a record behind that the reader refuses */
	if (ftello(f) > (off_t)TG_RECORD_MAX_SIZE) {
		r = tg_fail(err, -EFBIG, "%s: %lld bytes, more than the limit of %u for a record", path,
			    (long long)ftello(f), TG_RECORD_MAX_SIZE);
		goto out;
	}
	r = fclose(f);
	f = NULL;
	if (r != 0) {
		r = tg_fail(err, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	/* rename() replaces a link at @path, it never writes through it */
	if (rename(tmp, path) < 0) {
		r = tg_fail(err, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	sync_dir(dir);
out:
	if (f)
		fclose(f);
	if (tmp) {
		(void)unlink(tmp);
		free(tmp);
	}
	free(path);
	return r;
}

int tg_record_write(const char *dir, const struct tg_record *rec,
		    const struct tg_verdict *const *v, size_t n, struct tg_error *err)
{
	return write_record(dir, rec, v, n, false, err);
}

/*
 * A final record already there (a reinstall of the same version) is kept:
 * should this install fail, the installed package keeps its record.
 */
int tg_record_stage(const char *dir, const struct tg_record *rec,
		    const struct tg_verdict *const *v, size_t n, struct tg_error *err)
{
	struct tg_record *old = NULL;
	struct tg_error rerr = { 0 };
	char *path = NULL;
	bool final;
	int r;

	r = tg_record_path(dir, rec, &path, err);
	if (r < 0)
		return r;
	final = tg_record_read(path, &old, &rerr) == 0 && !old->staged;
	tg_record_free(old);
	free(path);
	if (final)
		return 1;
	return write_record(dir, rec, v, n, true, err);
}

int tg_record_remove(const char *path, struct tg_error *err)
{
	if (unlink(path) == 0)
		return 0;
	if (errno == ENOENT)
		return tg_fail(err, -ENOENT, "%s: no such record", path);
	return tg_fail(err, -errno, "%s: cannot remove: %s", path, strerror(errno));
}

/* ------------------------------------------------------------ reader */

struct reader {
	const char *label;
	struct tg_error *err;
	struct record_priv *rp;
};

static int bad(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct reader *rd, const char *fmt, ...)
{
	char what[TG_ERRMAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return tg_fail(rd->err, -EBADMSG, "%s: broken mark record: %s", rd->label, what);
}

/*
 * String member @key of @o (@where names @o in messages): *out NULL when
 * absent or null; -EBADMSG when @required and missing, or not a string, or
 * holding a NUL byte.
 */
static int get_str(struct reader *rd, json_object *o, const char *where, const char *key,
		   bool required, const char **out)
{
	json_object *v;
	const char *s;
	int len;

	*out = NULL;
	if (!json_object_object_get_ex(o, key, &v) || json_object_is_type(v, json_type_null))
		return required ? bad(rd, "%s\"%s\" is missing", where, key) : 0;
	if (!json_object_is_type(v, json_type_string))
		return bad(rd, "%s\"%s\" is not a string", where, key);
	s = json_object_get_string(v);
	len = json_object_get_string_len(v);
	if (len < 0 || strlen(s) != (size_t)len)
		return bad(rd, "%s\"%s\" holds a NUL character", where, key);
	*out = tg_strpool_dup(&rd->rp->pool, s, (size_t)len);
	return *out ? 0 : tg_fail(rd->err, -ENOMEM, "%s: out of memory", rd->label);
}

static int parse_action(struct reader *rd, const char *where, const char *s, enum tg_action *a)
{
	static const enum tg_action all[] = { TG_ACTION_ALLOW, TG_ACTION_MARK, TG_ACTION_DENY };

	for (size_t i = 0; i < TG_ARRAY_SIZE(all); i++)
		if (!strcmp(s, tg_action_name(all[i]))) {
			*a = all[i];
			return 0;
		}
	return bad(rd, "%s\"action\" is \"%.40s\", not allow, mark or deny", where, s);
}

/* "2026-12-03T10:00:00Z" (the DKMS hook's /1 "recorded") -> seconds; 0 when unreadable. */
static int64_t iso_time(const char *s)
{
	struct tm tm;
	const char *end;

	memset(&tm, 0, sizeof(tm));
	end = s ? strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm) : NULL;
	return end && !*end ? (int64_t)timegm(&tm) : 0;
}

static int parse_module(struct reader *rd, json_object *m, size_t i, const char **kernel)
{
	struct record_priv *rp = rd->rp;
	struct tg_record_module *out = &rp->mods[i];
	char where[48];
	const char *action, *json;
	json_object *rs;
	size_t nr;
	int r;

	snprintf(where, sizeof(where), "modules[%zu]: ", i);
	if (!json_object_is_type(m, json_type_object))
		return bad(rd, "modules[%zu] is not an object", i);
	if ((r = get_str(rd, m, where, "path", false, &out->path)) < 0 ||
	    (r = get_str(rd, m, where, "module", false, &out->module)) < 0 ||
	    (r = get_str(rd, m, where, "rule", false, &out->rule)) < 0 ||
	    (r = get_str(rd, m, where, "taint", false, &out->taint)) < 0 ||
	    (r = get_str(rd, m, where, "kernel", false, kernel)) < 0 ||
	    (r = get_str(rd, m, where, "action", true, &action)) < 0 ||
	    (r = parse_action(rd, where, action, &out->action)) < 0)
		return r;
	if (!out->taint)
		out->taint = "";
	if (json_object_object_get_ex(m, "reasons", &rs) && !json_object_is_type(rs, json_type_null)) {
		if (!json_object_is_type(rs, json_type_array))
			return bad(rd, "%s\"reasons\" is not a list", where);
		nr = json_object_array_length(rs);
		rp->reasons[i] = calloc(nr ? nr : 1, sizeof(char *));
		if (!rp->reasons[i])
			return tg_fail(rd->err, -ENOMEM, "%s: out of memory", rd->label);
		for (size_t k = 0; k < nr; k++) {
			json_object *e = json_object_array_get_idx(rs, k);
			const char *s = json_object_get_string(e);

			if (!json_object_is_type(e, json_type_string) ||
			    strlen(s) != (size_t)json_object_get_string_len(e))
				return bad(rd, "%s\"reasons\"[%zu] is not a string", where, k);
			rp->reasons[i][k] = tg_strpool_dup(&rp->pool, s, strlen(s));
			if (!rp->reasons[i][k])
				return tg_fail(rd->err, -ENOMEM, "%s: out of memory", rd->label);
		}
		out->reasons = rp->reasons[i];
		out->n_reasons = nr;
	}
	json = json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	out->json = json ? tg_strpool_dup(&rp->pool, json, strlen(json)) : NULL;
	return out->json ? 0 : tg_fail(rd->err, -ENOMEM, "%s: out of memory", rd->label);
}

static int parse_modules(struct reader *rd, json_object *root)
{
	struct record_priv *rp = rd->rp;
	const char *kernel = NULL;
	bool same = true;
	json_object *mods;
	size_t n;
	int r;

	if (!json_object_object_get_ex(root, "modules", &mods))
		return bad(rd, "\"modules\" is missing");
	if (!json_object_is_type(mods, json_type_array))
		return bad(rd, "\"modules\" is not a list");
	n = json_object_array_length(mods);
	rp->mods = calloc(n ? n : 1, sizeof(*rp->mods));
	rp->reasons = calloc(n ? n : 1, sizeof(*rp->reasons));
	if (!rp->mods || !rp->reasons)
		return tg_fail(rd->err, -ENOMEM, "%s: out of memory", rd->label);
	rp->n_alloc = n;
	rp->pub.modules = rp->mods;
	for (size_t i = 0; i < n; i++) {
		const char *k;

		r = parse_module(rd, json_object_array_get_idx(mods, i), i, &k);
		if (r < 0)
			return r;
		rp->pub.n_modules = i + 1;
		if (!k || (kernel && strcmp(kernel, k)))
			same = false;
		kernel = k;
	}
	/* /1 rpm records did not name the kernel: the verdicts do, when they agree */
	if (!rp->pub.kernel && same && kernel && id_ok(kernel, strlen(kernel)))
		rp->pub.kernel = kernel;
	return 0;
}

static int get_time(struct reader *rd, json_object *root, int64_t *out)
{
	json_object *v;

	*out = 0;
	if (!json_object_object_get_ex(root, "time", &v) || json_object_is_type(v, json_type_null))
		return 0;
	if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0)
		return bad(rd, "\"time\" is not a number of seconds");
	*out = json_object_get_int64(v);
	return 0;
}

/* "taintguard-mark/2", and the rpm plugin's /1 (the same fields, "nevra" for "package"). */
static int parse_fields(struct reader *rd, json_object *root, bool v1)
{
	struct tg_record *rec = &rd->rp->pub;
	const char *source = NULL, *state = NULL;
	int r;

	if ((r = get_str(rd, root, "", "source", !v1, &source)) < 0)
		return r;
	if (!source || !strcmp(source, "rpm"))
		rec->source = TG_RECORD_RPM;
	else if (!strcmp(source, "dkms"))
		rec->source = TG_RECORD_DKMS;
	else
		return bad(rd, "\"source\" is \"%.40s\", not rpm or dkms", source);
	if ((r = get_str(rd, root, "", v1 ? "nevra" : "package", true, &rec->package)) < 0 ||
	    (r = get_str(rd, root, "", "name", false, &rec->name)) < 0 ||
	    (r = get_str(rd, root, "", "epoch", false, &rec->epoch)) < 0 ||
	    (r = get_str(rd, root, "", "version", false, &rec->version)) < 0 ||
	    (r = get_str(rd, root, "", "release", false, &rec->release)) < 0 ||
	    (r = get_str(rd, root, "", "arch", false, &rec->arch)) < 0 ||
	    (r = get_str(rd, root, "", "kernel", false, &rec->kernel)) < 0 ||
	    (r = get_str(rd, root, "", "mode", false, &rec->mode)) < 0 ||
	    (r = get_str(rd, root, "", "policy", false, &rec->policy)) < 0 ||
	    (r = get_str(rd, root, "", "state", false, &state)) < 0)
		return r;
	if (state && strcmp(state, "staged") && strcmp(state, "final"))
		return bad(rd, "\"state\" is \"%.40s\", not staged or final", state);
	rec->staged = state && !strcmp(state, "staged");
	return get_time(rd, root, &rec->time);
}

/* The DKMS hook's /1: "package", "kernel", "arch", "recorded"; name and version from the package. */
static int parse_dkms_v1(struct reader *rd, json_object *root)
{
	struct tg_record *rec = &rd->rp->pub;
	const char *recorded;
	size_t ml;
	int r;

	rec->source = TG_RECORD_DKMS;
	if ((r = get_str(rd, root, "", "package", true, &rec->package)) < 0 ||
	    (r = get_str(rd, root, "", "kernel", false, &rec->kernel)) < 0 ||
	    (r = get_str(rd, root, "", "arch", false, &rec->arch)) < 0 ||
	    (r = get_str(rd, root, "", "recorded", false, &recorded)) < 0)
		return r;
	if (rec->arch && !*rec->arch)
		rec->arch = NULL;	/* written as "" when dkms did not say */
	rec->time = iso_time(recorded);
	ml = dkms_split(rec->package);
	if (ml) {
		rec->name = tg_strpool_dup(&rd->rp->pool, rec->package, ml);
		rec->version = tg_strpool_dup(&rd->rp->pool, rec->package + ml + 1,
					      strlen(rec->package + ml + 1));
		if (!rec->name || !rec->version)
			return tg_fail(rd->err, -ENOMEM, "%s: out of memory", rd->label);
	}
	return 0;
}

static int parse_root(struct reader *rd, json_object *root)
{
	struct tg_record *rec = &rd->rp->pub;
	const char *action, *why, *source;
	json_object *fv;
	int r;

	if (!json_object_is_type(root, json_type_object))
		return tg_fail(rd->err, -EPROTONOSUPPORT,
			       "%s: not a taintguard mark record (JSON, but not an object)", rd->label);
	if (!json_object_object_get_ex(root, "format", &fv) ||
	    !json_object_is_type(fv, json_type_string))
		return tg_fail(rd->err, -EPROTONOSUPPORT,
			       "%s: not a taintguard mark record (no \"format\")", rd->label);
	if ((r = get_str(rd, root, "", "format", true, &rec->format)) < 0)
		return r;
	if (!strcmp(rec->format, TG_RECORD_FORMAT)) {
		r = parse_fields(rd, root, false);
	} else if (!strcmp(rec->format, FORMAT_V1)) {
		r = get_str(rd, root, "", "source", false, &source);
		if (r == 0)
			r = source && !strcmp(source, "dkms") ? parse_dkms_v1(rd, root)
							      : parse_fields(rd, root, true);
	} else {
		return tg_fail(rd->err, -EPROTONOSUPPORT,
			       "%s: format \"%.60s\" is not one this taintguard reads (%s, %s)",
			       rd->label, rec->format, FORMAT_V1, TG_RECORD_FORMAT);
	}
	if (r < 0)
		return r;
	if ((r = get_str(rd, root, "", "action", true, &action)) < 0 ||
	    (r = parse_action(rd, "", action, &rec->action)) < 0)
		return r;
	why = ids_problem(rec->source, rec->package, rec->name, rec->kernel);
	if (why)
		return bad(rd, "package \"%.80s\": %s", rec->package, why);
	return parse_modules(rd, root);
}

void tg_record_free(struct tg_record *rec)
{
	struct record_priv *rp = (struct record_priv *)rec;

	if (!rp)
		return;
	for (size_t i = 0; rp->reasons && i < rp->n_alloc; i++)
		free(rp->reasons[i]);
	free(rp->reasons);
	free(rp->mods);
	tg_strpool_free(rp->pool);
	free(rp);
}

int tg_record_parse(const void *data, size_t len, const char *label, struct tg_record **out,
		    struct tg_error *err)
{
	struct reader rd = { .label = label ? label : "<record>", .err = err };
	enum json_tokener_error jerr;
	json_tokener *tok = NULL;
	json_object *root = NULL;
	size_t end;
	int r;

	*out = NULL;
	if (len > TG_RECORD_MAX_SIZE)
		return tg_fail(err, -EFBIG, "%s: %zu bytes, larger than the limit of %u for a record",
			       rd.label, len, TG_RECORD_MAX_SIZE);
	if (len == 0)
		return tg_fail(err, -EBADMSG, "%s: broken mark record: empty", rd.label);
	if (memchr(data, '\0', len))
		return tg_fail(err, -EBADMSG, "%s: broken mark record: holds a NUL byte", rd.label);
	rd.rp = calloc(1, sizeof(*rd.rp));
	tok = json_tokener_new_ex(RECORD_MAX_DEPTH);
	if (!rd.rp || !tok) {
		r = tg_fail(err, -ENOMEM, "%s: out of memory", rd.label);
		goto out;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	root = json_tokener_parse_ex(tok, data, (int)len);
	jerr = json_tokener_get_error(tok);
#if JSON_C_VERSION_NUM >= ((0 << 16) | (15 << 8))
	end = json_tokener_get_parse_end(tok);
#else
	end = (size_t)tok->char_offset;
#endif
	if (!root) {
		if (jerr == json_tokener_continue)
			r = tg_fail(err, -EBADMSG, "%s: broken mark record: truncated (the JSON ends early)",
				    rd.label);
		else
			r = tg_fail(err, -EBADMSG, "%s: broken mark record: not JSON (%s at byte %zu)",
				    rd.label, json_tokener_error_desc(jerr), end);
		goto out;
	}
	for (; end < len; end++)
		if (!strchr(" \t\r\n", ((const char *)data)[end])) {
			r = tg_fail(err, -EBADMSG, "%s: broken mark record: text after the JSON at byte %zu",
				    rd.label, end);
			goto out;
		}
	r = parse_root(&rd, root);
out:
	json_object_put(root);
	if (tok)
		json_tokener_free(tok);
	if (r < 0) {
		tg_record_free(rd.rp ? &rd.rp->pub : NULL);
		return r;
	}
	*out = &rd.rp->pub;
	return 0;
}

int tg_record_read(const char *path, struct tg_record **out, struct tg_error *err)
{
	struct stat st;
	void *buf = NULL;
	size_t len = 0;
	int fd, r;

	*out = NULL;
	/* O_NONBLOCK: a FIFO in the record's place must not hang the reader */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		if (errno == ELOOP && lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			return tg_fail(err, -ELOOP, "%s: a symbolic link, not a record (never followed)",
				       path);
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		r = tg_fail(err, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		r = tg_fail(err, -EINVAL, "%s: not a regular file, not a record", path);
		goto out;
	}
	r = tg_read_fd(fd, path, TG_RECORD_MAX_SIZE, &buf, &len, err);
	if (r == 0)
		r = tg_record_parse(buf, len, path, out, err);
out:
	close(fd);
	free(buf);
	return r;
}

/* ------------------------------------------------------------ listing */

static int path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void tg_record_list_free(char **paths, size_t n)
{
	strv_free_array(paths, n);
}

int tg_record_list(const char *dir, char ***paths, size_t *n, struct tg_error *err)
{
	struct strv sv = { 0 };
	struct dirent *e;
	DIR *d;
	int r = 0;

	*paths = NULL;
	*n = 0;
	d = opendir(dir);
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return tg_fail(err, -errno, "%s: %s", dir, strerror(errno));
	}
	for (;;) {
		size_t len;

		errno = 0;
		e = readdir(d);
		if (!e) {
			if (errno)
				r = tg_fail(err, -errno, "%s: %s", dir, strerror(errno));
			break;
		}
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len <= 5 || strcmp(e->d_name + len - 5, ".json"))
			continue;
		if (strv_pushf(&sv, "%s/%s", dir, e->d_name) < 0) {
			r = tg_fail(err, -ENOMEM, "%s: out of memory", dir);
			break;
		}
	}
	closedir(d);
	if (r < 0) {
		strv_free(&sv);
		return r;
	}
	if (sv.n)
		qsort(sv.v, sv.n, sizeof(char *), path_cmp);
	*paths = sv.v;
	*n = sv.n;
	return 0;
}
