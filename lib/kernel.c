/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target kernel: what a module is judged against.
 *
 * Facts come from the files a distro installs for a kernel release KVER,
 * below a root (the host "/" or an rpm --root / image directory):
 *
 *   Module.symvers   exports, GPL-ness, CRCs, namespaces (symvers.c)
 *   .config          MODVERSIONS, MODULE_SIG, FORCE_LOAD ...
 *   in-tree modules  VERMAGIC_STRING, sizeof(struct module), the signing key
 *
 * The in-tree modules are the most faithful source: they were built by the
 * very kernel build, so their vermagic is the kernel's VERMAGIC_STRING byte
 * for byte.  Without them the string is composed from .config as
 * include/linux/vermagic.h does.
 *
 * Everything but an explicitly named file is optional: a missing piece
 * becomes "unknown" and the verdicts say so.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

#define RELEASE_MAX 256
/* In-tree modules opened for vermagic / struct module size / signing keys. */
#define INTREE_MAX 8
/* How deep below ROOT/lib/modules/KVER/kernel the fallback walk goes. */
#define INTREE_DEPTH 6
/* Symlinks followed while resolving a path inside a root (as the kernel's MAXSYMLINKS). */
#define ROOT_MAXLINKS 40

/* ------------------------------------------------------------ releases */

/* Decimal number of at most 9 digits; -1 if none. */
static long parse_num(const char **sp)
{
	const char *s = *sp;
	long v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > 9)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	if (!n)
		return -1;
	*sp = s;
	return v;
}

/*
 * "6.1.0-57-amd64", "5.14.0-362.el9.x86_64", "4.18.0-553.el8_10.x86_64",
 * "6.8.0+": MAJOR.MINOR[.SUBLEVEL] then the end or a separator.  The
 * sublevel saturates at 255 like the kernel's own KERNEL_VERSION() since
 * 4.9.256 (it has 8 bits).
 */
unsigned tg_kernel_version_parse(const char *release)
{
	const char *s = release;
	long a, b, c = 0;

	if (!s)
		return 0;
	a = parse_num(&s);
	if (a < 0 || a > 255 || *s++ != '.')
		return 0;
	b = parse_num(&s);
	if (b < 0 || b > 255)
		return 0;
	if (*s == '.') {
		s++;
		c = parse_num(&s);
		if (c < 0)
			return 0;
		if (c > 255)
			c = 255;
		if (*s == '.')	/* 2.6.32.71: a fourth number */
			s++;
	}
	if (*s && !strchr("-+_~", *s) && !(s[-1] == '.' && isdigit((unsigned char)*s)))
		return 0;
	return TG_KVER(a, b, c);
}

/* Copy @len bytes of @s into @buf as a string; -ENAMETOOLONG if it does not fit. */
static int copy_word(const char *s, size_t n, char *buf, size_t len)
{
	if (!buf || n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

/* A release is used as one path component: it must be one. */
static bool release_is_sane(const char *r)
{
	size_t n = strlen(r);

	return n > 0 && n < RELEASE_MAX && !strchr(r, '/') && strcmp(r, ".") && strcmp(r, "..");
}

/* @n bytes at @s: a sane release with a parseable version? */
static bool release_word_ok(const char *s, size_t n)
{
	char tmp[RELEASE_MAX];

	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return release_is_sane(tmp) && tg_kernel_version_parse(tmp) != 0;
}

/*
 * The first "lib/modules/KVER/" (so also "usr/lib/modules/KVER/", and under
 * any --root prefix) whose KVER looks like a kernel release.  Checking KVER
 * skips "/lib/modules/modprobe.d/"-like look-alikes.
 */
int tg_kernel_release_from_path(const char *path, char *buf, size_t len)
{
	static const char key[] = "lib/modules/";
	const char *p = path;

	if (!path)
		return -EINVAL;
	while ((p = strstr(p, key))) {
		const char *rel = p + sizeof(key) - 1, *slash = strchr(rel, '/');
		bool at_segment = p == path || p[-1] == '/';

		p = rel;
		if (at_segment && slash && release_word_ok(rel, (size_t)(slash - rel)))
			return copy_word(rel, (size_t)(slash - rel), buf, len);
	}
	return -ENOENT;
}

/* vermagic = UTS_RELEASE " " flags...: the release is the first word. */
int tg_kernel_release_from_vermagic(const char *vermagic, char *buf, size_t len)
{
	const char *s = vermagic;
	size_t n;

	if (!s)
		return -EINVAL;
	s += strspn(s, " \t");
	n = strcspn(s, " \t\n");
	if (!release_word_ok(s, n))
		return -ENOENT;
	return copy_word(s, n, buf, len);
}

/* --------------------------------------------------------------- roots */

/* "" for the host, else @root without trailing slashes; NULL on ENOMEM. */
static char *root_prefix(const char *root)
{
	size_t n;

	if (!root)
		return strdup("");
	n = strlen(root);
	while (n > 0 && root[n - 1] == '/')
		n--;
	return strndup(root, n);
}

/*
 * Host path of @path (absolute, inside @root) with every symlink resolved
 * inside the root: /lib/modules/KVER/build -> /usr/src/kernels/KVER is an
 * absolute link, and below an rpm --root it must not lead to the host's own
 * headers.  Missing components are kept as they are (the caller's stat()
 * then fails).  NULL when the result does not fit PATH_MAX or on a link loop.
 */
static char *resolve_in_root(const char *root, const char *path)
{
	char cur[PATH_MAX] = "", rest[PATH_MAX], full[PATH_MAX], tgt[PATH_MAX];
	int links = 0;

	if (snprintf(rest, sizeof(rest), "%s", path) >= (int)sizeof(rest))
		return NULL;
	for (;;) {
		char *c = rest + strspn(rest, "/"), *next;
		size_t clen = strcspn(c, "/"), curlen = strlen(cur);
		struct stat st;
		ssize_t tl;

		if (!clen)
			break;
		next = c + clen;
		if (clen == 1 && c[0] == '.') {
			memmove(rest, next, strlen(next) + 1);
			continue;
		}
		if (clen == 2 && c[0] == '.' && c[1] == '.') {
			char *slash = strrchr(cur, '/');

			if (slash)	/* ".." never leaves the root */
				*slash = '\0';
			memmove(rest, next, strlen(next) + 1);
			continue;
		}
		if (curlen + 1 + clen >= sizeof(cur))
			return NULL;
		if (snprintf(full, sizeof(full), "%s%s/%.*s", root, cur, (int)clen, c) >= (int)sizeof(full))
			return NULL;
		if (lstat(full, &st) == 0 && S_ISLNK(st.st_mode)) {
			if (++links > ROOT_MAXLINKS)
				return NULL;
			tl = readlink(full, tgt, sizeof(tgt) - 1);
			if (tl < 0)
				return NULL;
			tgt[tl] = '\0';
			if (tgt[0] == '/')
				cur[0] = '\0';
			if (snprintf(full, sizeof(full), "%s%s", tgt, next) >= (int)sizeof(full))
				return NULL;
			memcpy(rest, full, strlen(full) + 1);
			continue;
		}
		cur[curlen] = '/';
		memcpy(cur + curlen + 1, c, clen);
		cur[curlen + 1 + clen] = '\0';
		memmove(rest, next, strlen(next) + 1);
	}
	return tg_asprintf("%s%s", root, cur[0] ? cur : "/");
}

/*
 * Host path of PRE KVER POST inside @root ("" = host); NULL on failure.
 * The places below are such pairs rather than format strings so that the
 * compiler checks every printf format in this file.
 */
struct kplace {
	const char *pre, *post;
};

static char *root_kpath(const char *root, const struct kplace *pl, const char *release)
{
	char *p = tg_asprintf("%s%s%s", pl->pre, release, pl->post), *r;

	if (!p || !*root)
		return p;
	r = resolve_in_root(root, p);
	free(p);
	return r;
}

static bool is_readable_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* Where distros put Module.symvers, most specific first (§7). */
static const struct kplace symvers_places[] = {
	{ "/lib/modules/", "/build/Module.symvers" },	/* Debian, Fedora -devel */
	{ "/usr/src/kernels/", "/Module.symvers" },	/* Fedora/RHEL kernel-devel */
	{ "/usr/src/linux-headers-", "/Module.symvers" },	/* Debian/Ubuntu headers */
	{ "/boot/symvers-", ".gz" },			/* Fedora/RHEL/SUSE */
	{ "/lib/modules/", "/symvers.gz" },		/* newer Fedora kernel-core */
	{ "/usr/lib/modules/", "/symvers.gz" },
	{ "/boot/symvers-", ".xz" },
	{ "/lib/modules/", "/symvers.xz" },
	{ "/usr/lib/modules/", "/symvers.xz" },
	{ "/lib/modules/", "/symvers.zst" },
	{ "/usr/lib/modules/", "/symvers.zst" },
};

static const struct kplace config_places[] = {
	{ "/boot/config-", "" },
	{ "/lib/modules/", "/build/.config" },
	{ "/usr/src/kernels/", "/.config" },
	{ "/usr/src/linux-headers-", "/.config" },
	{ "/lib/modules/", "/config" },		/* Fedora kernel-core */
	{ "/usr/lib/modules/", "/config" },
};

/* The kernel image (for its built-in certificates) and a System.map to find them. */
static const struct kplace image_places[] = {
	{ "/boot/vmlinuz-", "" },
	{ "/usr/lib/modules/", "/vmlinuz" },	/* Fedora/RHEL kernel-core, Debian 13 */
	{ "/lib/modules/", "/vmlinuz" },
	{ "/boot/vmlinux-", "" },		/* ppc64le, s390x elsewhere */
	{ "/boot/Image-", "" },
};

static const struct kplace sysmap_places[] = {
	{ "/boot/System.map-", "" },
	{ "/usr/lib/modules/", "/System.map" },
	{ "/lib/modules/", "/System.map" },
};

/* @path is PRE RELEASE POST of one of @pl[]: its index, the release in @buf. */
static int place_match(const struct kplace *pl, size_t n_pl, const char *path, char *buf,
		       size_t len)
{
	size_t n = path ? strlen(path) : 0;

	for (size_t i = 0; i < n_pl; i++) {
		size_t a = strlen(pl[i].pre), b = strlen(pl[i].post);

		if (n <= a + b || strncmp(path, pl[i].pre, a) || strcmp(path + n - b, pl[i].post) ||
		    !release_word_ok(path + a, n - a - b))
			continue;
		return copy_word(path + a, n - a - b, buf, len) < 0 ? -ENAMETOOLONG : (int)i;
	}
	return -ENOENT;
}

int tg_kernel_config_place(const char *path, char *buf, size_t len)
{
	return place_match(config_places, TG_ARRAY_SIZE(config_places), path, buf, len);
}

int tg_kernel_symvers_place(const char *path, char *buf, size_t len)
{
	return place_match(symvers_places, TG_ARRAY_SIZE(symvers_places), path, buf, len);
}

bool tg_kernel_path_in_tree(const char *path)
{
	const char *p = path, *rel, *slash;

	if (!p)
		return false;
	if (!strncmp(p, "/usr/", 5))
		p += 4;
	if (strncmp(p, "/lib/modules/", 13))
		return false;
	rel = p + 13;
	slash = strchr(rel, '/');
	return slash && release_word_ok(rel, (size_t)(slash - rel)) &&
	       !strncmp(slash, "/kernel/", 8);
}

/* First existing file of @pl[] for @release under @root; malloc'ed or NULL. */
static char *find_first(const char *root, const struct kplace *pl, size_t n, const char *release)
{
	for (size_t i = 0; i < n; i++) {
		char *p = root_kpath(root, &pl[i], release);

		if (p && is_readable_file(p))
			return p;
		free(p);
	}
	return NULL;
}

int tg_kernel_find_symvers(const char *root, const char *release, char *buf, size_t len)
{
	char *pfx, *p;
	int r;

	if (!release || !release_is_sane(release))
		return -EINVAL;
	pfx = root_prefix(root);
	if (!pfx)
		return -ENOMEM;
	p = find_first(pfx, symvers_places, TG_ARRAY_SIZE(symvers_places), release);
	free(pfx);
	if (!p)
		return -ENOENT;
	r = copy_word(p, strlen(p), buf, len);
	free(p);
	return r;
}

/*
 * First of @pl[] that exists as a file, readable or not: an image only root
 * may read (Ubuntu's are 0600) must fail with "Permission denied" when its
 * keys are needed, not look absent.
 */
static char *find_existing(const char *root, const struct kplace *pl, size_t n, const char *release)
{
	struct stat st;

	for (size_t i = 0; i < n; i++) {
		char *p = root_kpath(root, &pl[i], release);

		if (p && stat(p, &st) == 0 && S_ISREG(st.st_mode))
			return p;
		free(p);
	}
	return NULL;
}

/*
 * The image is only found here; reading its certificates waits until a
 * signed module needs them (tg_kernel_keyring()).
 */
static int kernel_image(struct tg_kernel *k, const struct tg_kernel_opts *o, const char *root,
			const struct tg_limits *lim, struct tg_error *err)
{
	const char *named[] = { o->image_path, o->sysmap_path };

	for (size_t i = 0; i < TG_ARRAY_SIZE(named); i++)
		if (named[i] && !is_readable_file(named[i]))
			return tg_fail(err, -ENOENT, "%s: cannot read the kernel %s", named[i],
				       i ? "System.map" : "image");
	k->image_path = o->image_path ? strdup(o->image_path) :
			k->release ? find_existing(root, image_places, TG_ARRAY_SIZE(image_places), k->release) :
			NULL;
	if (o->image_path && !k->image_path)
		return tg_fail(err, -ENOMEM, "out of memory");
	if (!k->image_path)
		return 0;
	k->sysmap_path = o->sysmap_path ? strdup(o->sysmap_path) :
			 k->release ? find_first(root, sysmap_places, TG_ARRAY_SIZE(sysmap_places), k->release) :
			 NULL;
	k->keyring = tg_keyring_lazy(k->image_path, k->sysmap_path, lim);
	if (!k->keyring || (o->sysmap_path && !k->sysmap_path))
		return tg_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* -------------------------------------------------------------- .config */

enum cfg_key {
	CFG_MODVERSIONS,
	CFG_MODULE_SIG,
	CFG_MODULE_SIG_FORCE,
	CFG_MODULE_FORCE_LOAD,
	CFG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS,
	CFG_LIVEPATCH,
	CFG_RETPOLINE,
	CFG_MITIGATION_RETPOLINE,
	/* vermagic.h */
	CFG_SMP,
	CFG_PREEMPT_BUILD,
	CFG_PREEMPT,
	CFG_PREEMPT_RT,
	CFG_MODULE_UNLOAD,
	CFG_RANDSTRUCT,
	CFG_GCC_PLUGIN_RANDSTRUCT,
	/* MODULE_ARCH_VERMAGIC */
	CFG_X86_64,
	CFG_ARM64,
	CFG_S390,
	CFG_PPC,
	CFG_MPROFILE_KERNEL,
	CFG_RELOCATABLE,
	CFG_RISCV,
	/* in-kernel module decompression (5.17+) */
	CFG_MODULE_DECOMPRESS,
	CFG_MODULE_COMPRESS_GZIP,
	CFG_MODULE_COMPRESS_XZ,
	CFG_MODULE_COMPRESS_ZSTD,
	CFG__N
};

static const char *const cfg_names[CFG__N] = {
	[CFG_MODVERSIONS] = "MODVERSIONS",
	[CFG_MODULE_SIG] = "MODULE_SIG",
	[CFG_MODULE_SIG_FORCE] = "MODULE_SIG_FORCE",
	[CFG_MODULE_FORCE_LOAD] = "MODULE_FORCE_LOAD",
	[CFG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS] = "MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS",
	[CFG_LIVEPATCH] = "LIVEPATCH",
	[CFG_RETPOLINE] = "RETPOLINE",
	[CFG_MITIGATION_RETPOLINE] = "MITIGATION_RETPOLINE",
	[CFG_SMP] = "SMP",
	[CFG_PREEMPT_BUILD] = "PREEMPT_BUILD",
	[CFG_PREEMPT] = "PREEMPT",
	[CFG_PREEMPT_RT] = "PREEMPT_RT",
	[CFG_MODULE_UNLOAD] = "MODULE_UNLOAD",
	[CFG_RANDSTRUCT] = "RANDSTRUCT",		/* 5.19+: FULL or PERFORMANCE */
	[CFG_GCC_PLUGIN_RANDSTRUCT] = "GCC_PLUGIN_RANDSTRUCT",	/* 4.13 - 5.18 */
	[CFG_X86_64] = "X86_64",
	[CFG_ARM64] = "ARM64",
	[CFG_S390] = "S390",
	[CFG_PPC] = "PPC",
	[CFG_MPROFILE_KERNEL] = "MPROFILE_KERNEL",
	[CFG_RELOCATABLE] = "RELOCATABLE",
	[CFG_RISCV] = "RISCV",
	[CFG_MODULE_DECOMPRESS] = "MODULE_DECOMPRESS",
	[CFG_MODULE_COMPRESS_GZIP] = "MODULE_COMPRESS_GZIP",
	[CFG_MODULE_COMPRESS_XZ] = "MODULE_COMPRESS_XZ",
	[CFG_MODULE_COMPRESS_ZSTD] = "MODULE_COMPRESS_ZSTD",
};

struct kconfig {
	bool on[CFG__N];	/* =y or =m */
};

static void config_line(struct kconfig *c, const char *line, size_t len)
{
	const char *name = line + 7, *eq;

	if (len < 9 || memcmp(line, "CONFIG_", 7))
		return;
	eq = memchr(name, '=', len - 7);
	if (!eq || eq + 1 >= line + len || (eq[1] != 'y' && eq[1] != 'm'))
		return;
	for (int i = 0; i < CFG__N; i++) {
		size_t n = strlen(cfg_names[i]);

		if ((size_t)(eq - name) == n && !memcmp(name, cfg_names[i], n)) {
			c->on[i] = true;
			return;
		}
	}
}

static void config_parse(const char *buf, size_t len, struct kconfig *c)
{
	const char *p, *end;

	memset(c, 0, sizeof(*c));
	for (p = buf, end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);

		config_line(c, p, l);
		p += l + 1;
	}
}

static int config_load(const char *path, uint64_t cap, struct kconfig *c, struct tg_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int r = tg_read_path(path, cap, (void **)&buf, &len, err);

	if (r < 0)
		return r;
	config_parse(buf, len, c);
	free(buf);
	return 0;
}

static int tristate(const struct kconfig *c, enum cfg_key k)
{
	return c ? (c->on[k] ? TG_YES : TG_NO) : TG_UNKNOWN;
}

/*
 * MODULE_ARCH_VERMAGIC (arch/x/include/asm/vermagic.h, formerly asm/module.h)
 * for the architectures whose part follows from .config alone; NULL for the
 * others (i386 CPU families, 32-bit arm, mips, ...): better unknown than wrong.
 */
static const char *arch_vermagic(const struct kconfig *c, char *buf, size_t len)
{
	if (c->on[CFG_X86_64] || c->on[CFG_S390])
		return "";
	if (c->on[CFG_ARM64])
		return "aarch64";
	if (c->on[CFG_RISCV])
		return "riscv";
	if (c->on[CFG_PPC]) {
		snprintf(buf, len, "%s%s", c->on[CFG_MPROFILE_KERNEL] ? "mprofile-kernel " : "",
			 c->on[CFG_RELOCATABLE] ? "relocatable " : "");
		return buf;
	}
	return NULL;
}

/*
 * VERMAGIC_STRING as include/linux/vermagic.h builds it.  CONFIG_PREEMPT_BUILD
 * (5.16+, also set by PREEMPT_DYNAMIC) replaced CONFIG_PREEMPT in the test;
 * PREEMPT implies PREEMPT_BUILD where both exist, so either means "preempt ".
 * With randstruct the string ends in a hash of the build's seed, which no
 * .config holds: no answer then.
 */
static char *vermagic_compose(const struct kconfig *c, const char *release)
{
	char archbuf[64];
	const char *arch = arch_vermagic(c, archbuf, sizeof(archbuf));
	const char *preempt = "";

	if (!arch || c->on[CFG_RANDSTRUCT] || c->on[CFG_GCC_PLUGIN_RANDSTRUCT])
		return NULL;
	if (c->on[CFG_PREEMPT_BUILD] || c->on[CFG_PREEMPT])
		preempt = "preempt ";
	else if (c->on[CFG_PREEMPT_RT])
		preempt = "preempt_rt ";
	return tg_asprintf("%s %s%s%s%s%s", release, c->on[CFG_SMP] ? "SMP " : "", preempt,
			   c->on[CFG_MODULE_UNLOAD] ? "mod_unload " : "",
			   c->on[CFG_MODVERSIONS] ? "modversions " : "", arch);
}

/* ---------------------------------------------------- in-tree modules */

struct cand {
	char *path;
	off_t size;
};

struct candv {
	struct cand *v;
	size_t n, cap;
};

static bool is_module_name(const char *name)
{
	static const char *const sfx[] = { ".ko", ".ko.xz", ".ko.zst", ".ko.gz" };
	size_t n = strlen(name);

	for (size_t i = 0; i < TG_ARRAY_SIZE(sfx); i++) {
		size_t l = strlen(sfx[i]);

		if (n > l && !strcmp(name + n - l, sfx[i]))
			return true;
	}
	return false;
}

static int cand_cmp(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->path, y->path);
}

static bool candv_has(const struct candv *cv, const char *path)
{
	for (size_t i = 0; i < cv->n; i++)
		if (!strcmp(cv->v[i].path, path))
			return true;
	return false;
}

static void candv_free(struct candv *cv)
{
	for (size_t i = 0; i < cv->n; i++)
		free(cv->v[i].path);
	free(cv->v);
}

/*
 * Add the modules directly in @dir, smallest first (quick to read), ties by
 * name; then walk the subdirectories in name order while @depth allows.
 * Stops once @cv holds @max.  Errors just mean fewer candidates.
 */
static void collect_modules(const char *dir, int depth, struct candv *cv, size_t max)
{
	struct dirent **ents = NULL;
	struct candv here = { 0 };
	int n = scandir(dir, &ents, NULL, alphasort);

	if (n < 0)
		return;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;
		char *p;

		if (name[0] == '.' || !is_module_name(name))
			continue;
		p = tg_asprintf("%s/%s", dir, name);
		if (!p || lstat(p, &st) < 0 || !S_ISREG(st.st_mode) ||
		    tg_grow(&here.v, &here.cap, here.n, sizeof(*here.v)) < 0) {
			free(p);
			continue;
		}
		here.v[here.n++] = (struct cand){ .path = p, .size = st.st_size };
	}
	if (here.n)
		qsort(here.v, here.n, sizeof(*here.v), cand_cmp);
	for (size_t i = 0; i < here.n; i++) {
		if (cv->n < max && !candv_has(cv, here.v[i].path) &&
		    tg_grow(&cv->v, &cv->cap, cv->n, sizeof(*cv->v)) == 0) {
			cv->v[cv->n++] = here.v[i];
			here.v[i].path = NULL;
		}
		free(here.v[i].path);
	}
	free(here.v);
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		struct stat st;
		char *p;

		if (depth > 0 && cv->n < max && name[0] != '.' && !is_module_name(name)) {
			p = tg_asprintf("%s/%s", dir, name);
			if (p && lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
				collect_modules(p, depth - 1, cv, max);
			free(p);
		}
		free(ents[i]);
	}
	free(ents);
}

/*
 * Known small, always-built modules first (drivers/net has dummy.ko), so
 * that the choice is cheap and the same from run to run; then anything.
 */
static void intree_candidates(const char *kdir, struct candv *cv)
{
	static const char *const known[] = { "drivers/net", "fs", "lib", "crypto" };

	for (size_t i = 0; i < TG_ARRAY_SIZE(known) && cv->n < INTREE_MAX; i++) {
		char *d = tg_asprintf("%s/%s", kdir, known[i]);

		if (d)
			collect_modules(d, 0, cv, INTREE_MAX);
		free(d);
	}
	if (cv->n < INTREE_MAX)
		collect_modules(kdir, INTREE_DEPTH, cv, INTREE_MAX);
}

static int strv_push_unique(struct tg_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 0;
	return tg_strv_push(sv, s);
}

/*
 * Learn from one in-tree module.  Only modules that say "intree" count: an
 * out-of-tree build dropped into kernel/ (old DKMS DEST_MODULE_LOCATION)
 * carries its builder's vermagic and key, not the kernel's.
 */
static int learn_from_module(struct tg_kernel *k, const char *path, const struct tg_module *m,
			     struct tg_strv *keys)
{
	const char *vm = tg_module_get(m, "vermagic");
	const struct tg_signature *sig = &m->sig;

	if (!tg_module_has(m, "intree"))
		return 0;
	if (!k->vermagic && vm) {
		k->vermagic = strdup(vm);
		k->vermagic_source = strdup(path);
		if (!k->vermagic || !k->vermagic_source)
			return -ENOMEM;
	}
	if (!k->this_module_size && m->this_module_size)
		k->this_module_size = m->this_module_size;
	if (sig->present && !sig->malformed && sig->signer && sig->key_id) {
		char *id = tg_asprintf("%s/%s", sig->signer, sig->key_id);
		int r = id ? strv_push_unique(keys, id) : -ENOMEM;

		free(id);
		return r;
	}
	return 0;
}

/* Open up to INTREE_MAX modules of @kdir; 1 if one was usable, 0 if none. */
static int learn_from_dir(struct tg_kernel *k, const char *kdir, const struct tg_limits *lim)
{
	struct candv cv = { 0 };
	struct tg_strv keys = { 0 };
	bool used = false;
	int r = 0;

	intree_candidates(kdir, &cv);
	for (size_t i = 0; i < cv.n && r == 0; i++) {
		struct tg_module *m = NULL;
		struct tg_error e = { 0 };

		if (tg_module_open_path(cv.v[i].path, lim, &m, &e) < 0)
			continue;
		used = used || tg_module_has(m, "intree");
		r = learn_from_module(k, cv.v[i].path, m, &keys);
		tg_module_free(m);
	}
	candv_free(&cv);
	if (r == 0 && keys.n) {
		k->trusted_keys_source = strdup(kdir);
		if (!k->trusted_keys_source)
			r = -ENOMEM;
	}
	if (r < 0) {
		tg_strv_free(&keys);
		return r;
	}
	k->trusted_keys = keys.v;
	k->n_trusted_keys = keys.n;
	return used;
}

static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* ROOT/lib/modules/KVER/kernel, else ROOT/usr/lib/modules/KVER/kernel (when not the same). */
static int learn_from_intree(struct tg_kernel *k, const char *root, const struct tg_limits *lim)
{
	static const struct kplace dirs[] = {
		{ "/lib/modules/", "/kernel" },
		{ "/usr/lib/modules/", "/kernel" },
	};
	char *d1 = root_kpath(root, &dirs[0], k->release);
	char *d2 = root_kpath(root, &dirs[1], k->release);
	int r = 0;

	if (!d1 || !d2) {
		r = -ENOMEM;
		goto out;
	}
	r = learn_from_dir(k, d1, lim);
	if (r == 0 && !same_dir(d1, d2))
		r = learn_from_dir(k, d2, lim);
out:
	free(d1);
	free(d2);
	return r < 0 ? r : 0;
}

/* ------------------------------------------------------------- loading */

void tg_kernel_free(struct tg_kernel *k)
{
	if (!k)
		return;
	free(k->release);
	tg_symvers_free(k->symvers);
	free(k->symvers_path);
	free(k->config_path);
	free(k->vermagic);
	free(k->vermagic_source);
	tg_strv_free_array(k->trusted_keys, k->n_trusted_keys);
	free(k->trusted_keys_source);
	free(k->image_path);
	free(k->sysmap_path);
	tg_keyring_free(k->keyring);
	free(k->loadable_compressions_source);
	tg_strv_free_array(k->notes, k->n_notes);
	free(k);
}

static int kernel_note(struct tg_kernel *k, const char *msg)
{
	struct tg_strv sv = { .v = k->notes, .n = k->n_notes, .cap = k->n_notes };
	int r = tg_strv_push(&sv, msg);

	k->notes = sv.v;
	k->n_notes = sv.n;
	return r;
}

/*
 * An explicit Module.symvers must load.  A searched one that does not is
 * noted and the search goes on: a broken Module.symvers from -devel must not
 * hide a good symvers.gz, and the kernel's other facts still count.
 */
static int kernel_symvers(struct tg_kernel *k, const struct tg_kernel_opts *o, const char *root,
			  const struct tg_limits *lim, struct tg_error *err)
{
	int r;

	if (o->symvers_path) {
		r = tg_symvers_load_path(o->symvers_path, lim, &k->symvers, err);
		if (r < 0)
			return r;
		k->symvers_path = strdup(o->symvers_path);
		return k->symvers_path ? 0 : tg_fail(err, -ENOMEM, "%s: out of memory", o->symvers_path);
	}
	if (!k->release)
		return 0;
	for (size_t i = 0; i < TG_ARRAY_SIZE(symvers_places); i++) {
		struct tg_error e = { 0 };
		char *p = root_kpath(root, &symvers_places[i], k->release);

		if (!p)
			return tg_fail(err, -ENOMEM, "out of memory");
		if (!is_readable_file(p)) {
			free(p);
			continue;
		}
		r = tg_symvers_load_path(p, lim, &k->symvers, &e);
		if (r == 0) {
			k->symvers_path = p;
			return 0;
		}
		free(p);
		if (r == -ENOMEM || kernel_note(k, e.msg) < 0)
			return tg_fail(err, -ENOMEM, "out of memory");
	}
	return 0;
}

static int kernel_config(struct tg_kernel *k, const struct tg_kernel_opts *o, const char *root,
			 const struct tg_limits *lim, struct kconfig *c, bool *have,
			 struct tg_error *err)
{
	int r;

	*have = false;
	if (o->config_data) {
		if ((uint64_t)o->config_len > lim->max_input_size)
			return tg_fail(err, -EFBIG, "%s: larger than the input size limit",
				       o->config_label ? o->config_label : ".config");
		config_parse(o->config_data, o->config_len, c);
		k->config_path = strdup(o->config_label ? o->config_label : "<.config in memory>");
		*have = true;
		return k->config_path ? 0 : tg_fail(err, -ENOMEM, "out of memory");
	}
	if (o->config_path) {
		r = config_load(o->config_path, lim->max_input_size, c, err);
		if (r < 0)
			return r;
		k->config_path = strdup(o->config_path);
		*have = true;
		return k->config_path ? 0 : tg_fail(err, -ENOMEM, "out of memory");
	}
	if (!k->release)
		return 0;
	for (size_t i = 0; i < TG_ARRAY_SIZE(config_places); i++) {
		struct tg_error e = { 0 };
		char *p = root_kpath(root, &config_places[i], k->release);

		if (!p)
			return tg_fail(err, -ENOMEM, "out of memory");
		if (is_readable_file(p) && config_load(p, lim->max_input_size, c, &e) == 0) {
			k->config_path = p;
			*have = true;
			return 0;
		}
		if (e.code && kernel_note(k, e.msg) < 0) {
			free(p);
			return tg_fail(err, -ENOMEM, "out of memory");
		}
		free(p);
	}
	return 0;
}

static void kernel_apply_config(struct tg_kernel *k, const struct kconfig *c)
{
	k->modversions = tristate(c, CFG_MODVERSIONS);
	k->module_sig = tristate(c, CFG_MODULE_SIG);
	k->sig_force = tristate(c, CFG_MODULE_SIG_FORCE);
	k->force_load = tristate(c, CFG_MODULE_FORCE_LOAD);
	k->allow_missing_ns = tristate(c, CFG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS);
	k->livepatch = tristate(c, CFG_LIVEPATCH);
	/* renamed MITIGATION_RETPOLINE in 6.9 */
	k->retpoline = c ? (c->on[CFG_RETPOLINE] || c->on[CFG_MITIGATION_RETPOLINE] ? TG_YES : TG_NO)
			 : TG_UNKNOWN;
}

/*
 * Which compressed modules can be loaded at all: kmod decompresses in
 * userspace what it links, and (5.17+) hands the file to the kernel when the
 * kernel's own decompressor, built for the one MODULE_COMPRESS_* format,
 * handles it.  Unknown (0) unless kmod is found: the config alone says
 * nothing about userspace.
 */
static int kernel_loader(struct tg_kernel *k, const char *root, const struct kconfig *c)
{
	unsigned kmod = tg_kmod_compressions(root, &k->loadable_compressions_source);
	unsigned inkernel = 0;

	if (!kmod)
		return 0;
	if (c && c->on[CFG_MODULE_DECOMPRESS])
		inkernel = (c->on[CFG_MODULE_COMPRESS_GZIP] ? 1u << TG_COMP_GZIP : 0) |
			   (c->on[CFG_MODULE_COMPRESS_XZ] ? 1u << TG_COMP_XZ : 0) |
			   (c->on[CFG_MODULE_COMPRESS_ZSTD] ? 1u << TG_COMP_ZSTD : 0);
	k->loadable_compressions = kmod | inkernel | 1u << TG_COMP_NONE;
	return 0;
}

static int kernel_vermagic_from_config(struct tg_kernel *k, const struct kconfig *c)
{
	if (k->vermagic || !k->release || !c)
		return 0;
	k->vermagic = vermagic_compose(c, k->release);
	if (!k->vermagic) {
		return kernel_note(k, "vermagic unknown: no in-tree module, and .config does not "
				      "determine it (architecture or randstruct)");
	}
	k->vermagic_source = strdup(k->config_path);
	return k->vermagic_source ? 0 : -ENOMEM;
}

int tg_kernel_load(const struct tg_kernel_opts *opts, struct tg_kernel **out,
		   struct tg_error *err)
{
	struct tg_limits def;
	const struct tg_limits *lim;
	struct tg_kernel *k = NULL;
	struct kconfig cfg;
	bool have_cfg = false;
	char *root = NULL;
	int r;

	if (out)
		*out = NULL;
	if (!opts || !out)
		return tg_fail(err, -EINVAL, "kernel: no options");
	if (!opts->release && !opts->symvers_path)
		return tg_fail(err, -EINVAL, "kernel: neither a release nor a Module.symvers given");
	if (opts->release && !release_is_sane(opts->release))
		return tg_fail(err, -EINVAL, "%s: not a kernel release", opts->release);
	if (opts->limits) {
		lim = opts->limits;
	} else {
		tg_limits_default(&def);
		lim = &def;
	}
	root = root_prefix(opts->root);
	k = calloc(1, sizeof(*k));
	if (!root || !k) {
		r = tg_fail(err, -ENOMEM, "kernel: out of memory");
		goto fail;
	}
	if (opts->release) {
		k->release = strdup(opts->release);
		if (!k->release) {
			r = tg_fail(err, -ENOMEM, "kernel: out of memory");
			goto fail;
		}
		k->version = tg_kernel_version_parse(k->release);
	}
	r = kernel_symvers(k, opts, root, lim, err);
	if (r < 0)
		goto fail;
	r = kernel_config(k, opts, root, lim, &cfg, &have_cfg, err);
	if (r < 0)
		goto fail;
	kernel_apply_config(k, have_cfg ? &cfg : NULL);
	r = kernel_image(k, opts, root, lim, err);
	if (r < 0)
		goto fail;
	if (k->release) {
		r = learn_from_intree(k, root, lim);
		if (r == 0)
			r = kernel_vermagic_from_config(k, have_cfg ? &cfg : NULL);
		if (r == 0)
			r = kernel_loader(k, root, have_cfg ? &cfg : NULL);
		if (r < 0) {
			r = tg_fail(err, r, "%s: out of memory", k->release);
			goto fail;
		}
	}
	free(root);
	*out = k;
	return 0;
fail:
	free(root);
	tg_kernel_free(k);
	return r;
}
