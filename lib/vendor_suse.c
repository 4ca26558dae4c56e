/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SUSE's "supported" module flag, as openSUSE's kernel-source carries it in
 * patches.suse/supported-flag (read at commits 0598608cd7 and ad215ed4f6;
 * docs/loader-rules.md, "V5 SUSE: the supported flag"):
 *
 *   - modpost writes MODULE_INFO(supported, "yes"|"external") from
 *     Module.supported; an out-of-tree build has none, so its module says
 *     nothing;
 *   - at load, setup_modinfo() sets the module's own taint: "external" ->
 *     TAINT_EXTERNAL_SUPPORT, "yes" -> nothing, anything else or nothing ->
 *     TAINT_NO_SUPPORT; mod_sysfs_setup() then adds it to the kernel's mask,
 *     or, for an unsupported module while kernel.unsupported is 0, refuses
 *     it (-ENOEXEC, "module not supported by SUSE, refusing to load");
 *   - modprobe (SUSE's kmod) refuses unsupported modules on its own when
 *     modprobe.d says "allow_unsupported_modules 0"; insmod does not.
 *
 * The kernel's sysctl is known offline only from the root's sysctl files;
 * the boot command line (unsupported=) is not, and the verdict says so.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vendor_suse.h"

/* sysctl.d(5) and modprobe.d(5): a file name in an earlier directory masks the later ones. */
static const char *const sysctl_dirs[] = {
	"/etc/sysctl.d", "/run/sysctl.d", "/usr/local/lib/sysctl.d", "/usr/lib/sysctl.d",
	"/lib/sysctl.d",
};
static const char *const modprobe_dirs[] = {
	"/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d", "/usr/lib/modprobe.d",
	"/lib/modprobe.d",
};
/* read after the directories, as "sysctl --system" does */
#define SYSCTL_CONF "/etc/sysctl.conf"
#define SYSCTL_WHERE "/etc/sysctl.d, /run/sysctl.d, /usr/local/lib/sysctl.d, " \
		     "/usr/lib/sysctl.d, /lib/sysctl.d, " SYSCTL_CONF
#define MODPROBE_WHERE "/etc/modprobe.d, /run/modprobe.d, /usr/local/lib/modprobe.d, " \
		       "/usr/lib/modprobe.d, /lib/modprobe.d"

/* the compiled default of kernel.unsupported (no UNSUPPORTED_MODULES): load, silently */
#define UNSUPPORTED_DEFAULT 2
/* the config files are a few lines; a bigger one is not read */
#define CONF_CAP (1u << 20)

/* ------------------------------------------------------ the root's files */

struct conf_file {
	char *name;	/* base name: the sort key */
	char *path;	/* host path */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct conf_file *)a)->name, ((const struct conf_file *)b)->name);
}

static bool seen(const struct conf_file *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return true;
	return false;
}

static void conf_files_free(struct conf_file *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].path);
	}
	free(v);
}

/* The *.conf files of @dirs under @root, masked by name and sorted by it. */
static int conf_files(const char *root, const char *const *dirs, size_t ndirs,
		      struct conf_file **out, size_t *n)
{
	struct conf_file *v = NULL;
	size_t cap = 0;
	int r = 0;

	*n = 0;
	for (size_t d = 0; d < ndirs && r == 0; d++) {
		char *dir = strf("%s%s", root, dirs[d]);
		DIR *dh = dir ? opendir(dir) : NULL;
		struct dirent *de;

		if (!dir)
			r = -ENOMEM;
		while (dh && r == 0 && (de = readdir(dh))) {
			size_t len = strlen(de->d_name);

			if (len <= 5 || strcmp(de->d_name + len - 5, ".conf") ||
			    seen(v, *n, de->d_name))
				continue;
			if (*n == cap) {
				struct conf_file *nv = realloc(v, (cap = cap ? 2 * cap : 8) * sizeof(*v));

				if (!nv) {
					r = -ENOMEM;
					break;
				}
				v = nv;
			}
			v[*n].name = strdup(de->d_name);
			v[*n].path = strf("%s/%s", dir, de->d_name);
			if (!v[(*n)++].name || !v[*n - 1].path)
				r = -ENOMEM;
		}
		if (dh)
			closedir(dh);
		free(dir);
	}
	if (r < 0) {
		conf_files_free(v, *n);
		*n = 0;
		return r;
	}
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	*out = v;
	return 0;
}

/* A whole decimal number, nothing else but blanks around it. */
static bool parse_int(const char *s, size_t len, int *out)
{
	char buf[16];
	char *end;
	long v;

	while (len && (*s == ' ' || *s == '\t'))
		s++, len--;
	while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
		len--;
	if (!len || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || *end || v < 0 || v > 1000)
		return false;
	*out = (int)v;
	return true;
}

/*
 * "kernel.unsupported = N" (sysctl.d(5): '/' may separate the words, a
 * leading '-' only silences errors), or "allow_unsupported_modules N"
 * (modprobe.d).  The value of @line, or false when the line sets another key.
 */
static bool sysctl_line(const char *line, size_t len, int *value)
{
	static const char key[] = "kernel.unsupported";
	const char *eq = memchr(line, '=', len);
	size_t i = 0, k = 0;

	if (!eq)
		return false;
	while (line + i < eq && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (line + i < eq && line[i] == '-')
		i++;
	for (; line + i < eq && k < sizeof(key) - 1; i++, k++)
		if ((line[i] == '/' ? '.' : line[i]) != key[k])
			return false;
	while (line + i < eq && (line[i] == ' ' || line[i] == '\t'))
		i++;
	return k == sizeof(key) - 1 && line + i == eq &&
	       parse_int(eq + 1, len - (size_t)(eq + 1 - line), value);
}

static bool modprobe_line(const char *line, size_t len, int *value)
{
	static const char key[] = "allow_unsupported_modules";
	size_t i = 0;

	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	if (len - i <= sizeof(key) - 1 || memcmp(line + i, key, sizeof(key) - 1) ||
	    (line[i + sizeof(key) - 1] != ' ' && line[i + sizeof(key) - 1] != '\t'))
		return false;
	i += sizeof(key) - 1;
	if (!parse_int(line + i, len - i, value))
		return false;
	*value = *value != 0;
	return true;
}

typedef bool (*line_fn)(const char *line, size_t len, int *value);

/* The last assignment of @path's lines wins: into @set as "PATH:LINE" (@label: path in the root). */
static int scan_file(const char *path, const char *label, line_fn fn, struct tg_suse_setting *set)
{
	void *buf = NULL;
	size_t len = 0, lineno = 0;
	const char *p, *end;
	int v, r = 0;

	if (tg_read_path(path, CONF_CAP, &buf, &len, NULL) < 0)
		return 0;	/* unreadable: as modprobe and sysctl, skipped */
	for (p = buf, end = p + len; p < end && r == 0; p++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

		lineno++;
		if (*p != '#' && *p != ';' && fn(p, n, &v)) {
			free(set->file);
			set->value = v;
			set->file = strf("%s:%zu", label, lineno);
			r = set->file ? 0 : -ENOMEM;
		}
		p += n;
	}
	free(buf);
	return r;
}

static int scan(const char *root, const char *const *dirs, size_t ndirs, const char *last,
		line_fn fn, struct tg_suse_setting *set)
{
	struct conf_file *files = NULL;
	size_t n = 0;
	int r = conf_files(root, dirs, ndirs, &files, &n);

	for (size_t i = 0; r == 0 && i < n; i++)
		r = scan_file(files[i].path, files[i].path + strlen(root), fn, set);
	conf_files_free(files, n);
	if (r == 0 && last) {
		char *p = strf("%s%s", root, last);

		r = p ? scan_file(p, last, fn, set) : -ENOMEM;
		free(p);
	}
	return r;
}

int tg_suse_root_load(const char *root, const struct tg_limits *lim, struct tg_suse_root **out)
{
	struct tg_suse_root *s = calloc(1, sizeof(*s));
	int r;

	(void)lim;
	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->unsupported.value = s->allow.value = -1;
	r = scan(root, sysctl_dirs, TG_ARRAY_SIZE(sysctl_dirs), SYSCTL_CONF, sysctl_line,
		 &s->unsupported);
	if (r == 0)
		r = scan(root, modprobe_dirs, TG_ARRAY_SIZE(modprobe_dirs), NULL, modprobe_line,
			 &s->allow);
	if (r < 0) {
		tg_suse_root_free(s);
		return r;
	}
	*out = s;
	return 0;
}

void tg_suse_root_free(struct tg_suse_root *s)
{
	if (!s)
		return;
	free(s->unsupported.file);
	free(s->allow.file);
	free(s);
}

/* ---------------------------------------------------------------- facts */

void tg_suse_fact(const struct tg_kernel *k, enum tg_lf id, struct tg_lfact *f)
{
	const struct tg_suse_root *s = k->suse;
	const struct tg_suse_setting *set;
	bool sysctl = id == TG_LF_SUSE_UNSUPPORTED_SYSCTL;

	if (!s) {
		f->value = TG_UNKNOWN;
		f->source = TG_LFS_NONE;
		f->why = "not read: .config says the kernel has no CONFIG_SUSE_KERNEL_SUPPORTED";
		return;
	}
	set = sysctl ? &s->unsupported : &s->allow;
	f->source = TG_LFS_ROOTCONF;
	f->value = TG_YES;
	f->file = set->file;
	/* modprobe loads unsupported modules unless told not to */
	f->size = set->value >= 0 ? (size_t)set->value : sysctl ? UNSUPPORTED_DEFAULT : 1;
	f->why = sysctl ? SYSCTL_WHERE : MODPROBE_WHERE;
}

char *tg_suse_evidence(enum tg_lf id, const struct tg_lfact *f)
{
	if (f->file)
		return strf("%s %s%zu in %s", f->what, id == TG_LF_SUSE_UNSUPPORTED_SYSCTL ? "= " : "",
			    f->size, f->file);
	if (id == TG_LF_SUSE_UNSUPPORTED_SYSCTL)
		return strf("%s set in none of %s: the kernel's compiled default %zu; the boot "
			    "command line's unsupported= cannot be known before boot", f->what,
			    f->why, f->size);
	return strf("%s set in none of %s: modprobe's default (load)", f->what, f->why);
}

/* ------------------------------------------------------------- judging */

/*
 * The taint letters by bit.  The flag took bits 30 (N) and 31 (X) first;
 * once upstream had TAINT_AUX (4.15, 'X') the patch used it for external
 * support and bit 31 'N' for no support (the version "refreshed for Linux
 * 5.2"); 6.0 gave upstream's 'N' to TAINT_TEST, and SUSE's kernels print
 * bit 31 as 'n' since.
 */
static const struct {
	unsigned since;
	unsigned ext_bit, no_bit;
	const char *letters;
	const char *from;
} generations[] = {
	{ TG_KVER(6, 0, 0), 16, 31, "PFSRMBUDAWCIOELKXTNJ           n",
	  "SUSE kernels 6.0 and later: X (TAINT_AUX, bit 16) and n (bit 31)" },
	{ TG_KVER(4, 15, 0), 16, 31, "PFSRMBUDAWCIOELKXTNJ           N",
	  "SUSE kernels 4.15 to 5.19: X (TAINT_AUX, bit 16) and N (bit 31)" },
	{ 0, 31, 30, "PFSRMBUDAWCIOELKXTNJ          NX",
	  "SUSE kernels before 4.15: N (bit 30) and X (bit 31)" },
};

bool tg_suse_kernel(const struct tg_loader_facts *lf, enum tg_lf *by)
{
	/* .config is the switch itself; the image and System.map stand in without one */
	static const enum tg_lf order[] = {
		TG_LF_SUSE_KERNEL_SUPPORTED, TG_LF_SUSE_SUPPORTED, TG_LF_SUSE_SYSMAP,
	};

	for (size_t i = 0; i < TG_ARRAY_SIZE(order); i++) {
		const struct tg_lfact *f = &lf->f[order[i]];

		if (f->source == TG_LFS_NONE || f->source == TG_LFS_RELEASE)
			continue;
		if (by)
			*by = order[i];
		return f->value == TG_YES;
	}
	return false;
}

void tg_suse_judge(const struct tg_kernel *k, const struct tg_loader_facts *lf,
		   const struct tg_module *m, struct tg_suse_verdict *out)
{
	size_t g = 0;

	memset(out, 0, sizeof(*out));
	if (!k || !tg_suse_kernel(lf, NULL))
		return;
	/* release unknown: the newest generation */
	while (k->version && g + 1 < TG_ARRAY_SIZE(generations) && k->version < generations[g].since)
		g++;
	out->letters = generations[g].letters;
	out->letters_from = generations[g].from;
	out->value = m ? tg_module_get(m, "supported") : NULL;
	if (out->value && !strcmp(out->value, "yes")) {
		out->support = TG_SUSE_YES;
		return;
	}
	if (out->value && !strcmp(out->value, "external")) {
		out->support = TG_SUSE_EXTERNAL;
		out->bit = generations[g].ext_bit;
	} else {
		out->support = TG_SUSE_UNSUPPORTED;
		out->bit = generations[g].no_bit;
		if (k->suse && k->suse->unsupported.value == 0) {
			out->refused = true;
			out->refused_by = k->suse->unsupported.file;
		}
		if (k->suse && k->suse->allow.value == 0) {
			out->modprobe_refuses = true;
			out->modprobe_by = k->suse->allow.file;
		}
	}
	out->letter = out->letters[out->bit];
}
