/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Target kernel facts: release parsing, file search, .config, in-tree modules. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include <zlib.h>

#include "taintguard.h"
#include "target.h"

/* A release for the tests of release strings (no file is read) */
#define DEB_RELEASE "6.1.0-57-amd64"
#define DEB_VERMAGIC DEB_RELEASE " SMP preempt mod_unload modversions "
/* The suite's target kernel and its own files (target.h) */
#define HOST_RELEASE target_release()
#define HOST_CONFIG target_path("/boot/config-%s")
#define HOST_SYMVERS target_path("/usr/src/linux-headers-%s/Module.symvers")

/* ------------------------------------------------------------ helpers */

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;

	va_start(ap, fmt);
	assert_true(vasprintf(&s, fmt, ap) >= 0);
	va_end(ap);
	return s;
}

/* mkdir -p for the parent of @path, then write @len bytes */
static void mkparents(const char *path)
{
	char *p = strdup(path);

	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	free(p);
}

static void put_file(const char *root, const char *rel, const void *data, size_t len)
{
	char *path = xasprintf("%s%s", root, rel);
	FILE *f;

	mkparents(path);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
	free(path);
}

static void put_text(const char *root, const char *rel, const char *text)
{
	put_file(root, rel, text, strlen(text));
}

static void put_link(const char *root, const char *rel, const char *target)
{
	char *path = xasprintf("%s%s", root, rel);

	mkparents(path);
	assert_int_equal(symlink(target, path), 0);
	free(path);
}

static char *make_root(void)
{
	char tmpl[] = "/tmp/tg-kroot-XXXXXX";

	assert_non_null(mkdtemp(tmpl));
	return strdup(tmpl);
}

static void remove_root(char *root)
{
	char *cmd = xasprintf("rm -rf '%s'", root);

	assert_int_equal(system(cmd), 0);
	free(cmd);
	free(root);
}

static struct tg_kernel *load(const char *root, const char *release, const char *symvers,
			      const char *config)
{
	struct tg_kernel_opts o = { .root = root, .release = release, .symvers_path = symvers,
				    .config_path = config };
	struct tg_error err = { 0 };
	struct tg_kernel *k = NULL;
	int r = tg_kernel_load(&o, &k, &err);

	if (r < 0)
		fail_msg("tg_kernel_load: %d %s", r, err.msg);
	assert_non_null(k);
	return k;
}

static void expect_load_error(const struct tg_kernel_opts *o, int code, const char *msg)
{
	struct tg_error err = { 0 };
	struct tg_kernel *k = (struct tg_kernel *)1;

	assert_int_equal(tg_kernel_load(o, &k, &err), code);
	assert_null(k);
	assert_int_equal(err.code, code);
	assert_string_equal(err.msg, msg);
}

static bool host_kernel_present(void)
{
	return target_has("/lib/modules/%s/kernel") && target_has("/boot/config-%s");
}

/* ------------------------------------------------------------ releases */

static void test_version_parse(void **state)
{
	assert_int_equal(tg_kernel_version_parse("6.1.0-57-amd64"), TG_KVER(6, 1, 0));
	assert_int_equal(tg_kernel_version_parse("5.14.0-362.el9.x86_64"), TG_KVER(5, 14, 0));
	assert_int_equal(tg_kernel_version_parse("4.18.0-553.el8_10.x86_64"), TG_KVER(4, 18, 0));
	assert_int_equal(tg_kernel_version_parse("6.8.0"), TG_KVER(6, 8, 0));
	assert_int_equal(tg_kernel_version_parse("6.8.0+"), TG_KVER(6, 8, 0));
	assert_int_equal(tg_kernel_version_parse("6.10"), TG_KVER(6, 10, 0));
	assert_int_equal(tg_kernel_version_parse("6.10-rc1"), TG_KVER(6, 10, 0));
	assert_int_equal(tg_kernel_version_parse("2.6.32.71-0.1-default"), TG_KVER(2, 6, 32));
	/* the sublevel saturates at 255 as in KERNEL_VERSION() */
	assert_int_equal(tg_kernel_version_parse("4.9.337-1"), TG_KVER(4, 9, 255));
	assert_int_equal(tg_kernel_version_parse("3.10.0-1160.el7.x86_64"), TG_KVER(3, 10, 0));

	assert_int_equal(tg_kernel_version_parse(NULL), 0);
	assert_int_equal(tg_kernel_version_parse(""), 0);
	assert_int_equal(tg_kernel_version_parse("abc"), 0);
	assert_int_equal(tg_kernel_version_parse("v6.1.0"), 0);
	assert_int_equal(tg_kernel_version_parse("6"), 0);
	assert_int_equal(tg_kernel_version_parse("6."), 0);
	assert_int_equal(tg_kernel_version_parse("6.x"), 0);
	assert_int_equal(tg_kernel_version_parse("6.1.x"), 0);
	assert_int_equal(tg_kernel_version_parse("6.1.0abc"), 0);
	assert_int_equal(tg_kernel_version_parse("6.1 SMP"), 0);
	assert_int_equal(tg_kernel_version_parse("256.1.0"), 0);
	assert_int_equal(tg_kernel_version_parse("6.256.0"), 0);
	assert_int_equal(tg_kernel_version_parse("99999999999.1.0"), 0);
	assert_int_equal(tg_kernel_version_parse("modprobe.d"), 0);
}

static void expect_path_release(const char *path, const char *want)
{
	char buf[256] = "";
	int r = tg_kernel_release_from_path(path, buf, sizeof(buf));

	if (!want) {
		assert_int_equal(r, -ENOENT);
		return;
	}
	if (r != 0)
		fail_msg("%s: %d", path, r);
	assert_string_equal(buf, want);
}

static void test_release_from_path(void **state)
{
	char small[8];

	expect_path_release("/lib/modules/6.1.0-57-amd64/kernel/drivers/net/dummy.ko", DEB_RELEASE);
	expect_path_release("/usr/lib/modules/5.14.0-362.el9.x86_64/extra/foo.ko.xz",
			    "5.14.0-362.el9.x86_64");
	/* below an rpm --root / image directory */
	expect_path_release("/var/tmp/root/usr/lib/modules/4.18.0-553.el8_10.x86_64/updates/a.ko",
			    "4.18.0-553.el8_10.x86_64");
	expect_path_release("/srv/img/lib/modules/6.8.0+/a.ko", "6.8.0+");
	expect_path_release("lib/modules/6.1.0-57-amd64/a.ko", DEB_RELEASE);
	expect_path_release("./lib/modules/6.1.0-57-amd64/a.ko", DEB_RELEASE);
	/* not a release: keep looking */
	expect_path_release("/lib/modules/extra/lib/modules/6.1.0-57-amd64/x.ko", DEB_RELEASE);
	expect_path_release("/etc/modprobe.d/x.conf", NULL);
	expect_path_release("/lib/modules/modprobe.d/x.conf", NULL);
	expect_path_release("/lib/modules/6.1.0-57-amd64", NULL);	/* nothing below it */
	expect_path_release("/lib/modules//kernel/x.ko", NULL);
	expect_path_release("/usr/xlib/modules/6.1.0/x.ko", NULL);
	expect_path_release("/opt/driver/foo.ko", NULL);
	expect_path_release("", NULL);
	assert_int_equal(tg_kernel_release_from_path(NULL, small, sizeof(small)), -EINVAL);
	assert_int_equal(tg_kernel_release_from_path("/lib/modules/6.1.0-57-amd64/a.ko", small,
						     sizeof(small)), -ENAMETOOLONG);
}

static void test_release_from_vermagic(void **state)
{
	char buf[256], small[4];

	assert_int_equal(tg_kernel_release_from_vermagic(DEB_VERMAGIC, buf, sizeof(buf)), 0);
	assert_string_equal(buf, DEB_RELEASE);
	assert_int_equal(tg_kernel_release_from_vermagic("5.14.0-362.el9.x86_64 SMP mod_unload modversions ",
							 buf, sizeof(buf)), 0);
	assert_string_equal(buf, "5.14.0-362.el9.x86_64");
	assert_int_equal(tg_kernel_release_from_vermagic("6.8.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "6.8.0");
	assert_int_equal(tg_kernel_release_from_vermagic("", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(tg_kernel_release_from_vermagic("SMP mod_unload", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(tg_kernel_release_from_vermagic("6.1.0/../../x SMP", buf, sizeof(buf)), -ENOENT);
	assert_int_equal(tg_kernel_release_from_vermagic(NULL, buf, sizeof(buf)), -EINVAL);
	assert_int_equal(tg_kernel_release_from_vermagic(DEB_VERMAGIC, small, sizeof(small)),
			 -ENAMETOOLONG);
}

/* -------------------------------------------------------- file search */

static const char symvers_text[] =
	"0x9060323f\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n"
	"0xb43f9365\tktime_get\tvmlinux\tEXPORT_SYMBOL_GPL\t\n";

static void *gzip_text(const char *text, size_t *olen)
{
	size_t len = strlen(text);
	uLongf cap = compressBound(len) + 64;
	unsigned char *out = malloc(cap);
	z_stream zs = { 0 };

	assert_int_equal(deflateInit2(&zs, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = (unsigned char *)text;
	zs.avail_in = (uInt)len;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
	*olen = zs.total_out;
	deflateEnd(&zs);
	return out;
}

static void expect_found_as(const char *root, const char *rel, const char *want_root,
			    const char *want_rel)
{
	char buf[PATH_MAX], *want = xasprintf("%s%s", want_root, want_rel);

	assert_int_equal(tg_kernel_find_symvers(root, rel, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	free(want);
}

static void expect_found(const char *root, const char *rel, const char *want_rel)
{
	expect_found_as(root, rel, root, want_rel);
}

/* Files are added from the last place to the first: each must win over the previous. */
static void test_find_symvers_order(void **state)
{
	static const char *const places[] = {
		"/usr/lib/modules/9.9.9/symvers.gz",
		"/lib/modules/9.9.9/symvers.gz",
		"/boot/symvers-9.9.9.gz",
		"/usr/src/linux-headers-9.9.9/Module.symvers",
		"/usr/src/kernels/9.9.9/Module.symvers",
		"/lib/modules/9.9.9/build/Module.symvers",
	};
	char *root = make_root(), buf[PATH_MAX];

	assert_int_equal(tg_kernel_find_symvers(root, "9.9.9", buf, sizeof(buf)), -ENOENT);
	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		put_text(root, places[i], symvers_text);
		expect_found(root, "9.9.9", places[i]);
	}
	/* a trailing slash on the root changes nothing */
	{
		char *r2 = xasprintf("%s/", root);

		expect_found_as(r2, "9.9.9", root, "/lib/modules/9.9.9/build/Module.symvers");
		free(r2);
	}
	assert_int_equal(tg_kernel_find_symvers(root, "9.9.9", buf, 10), -ENAMETOOLONG);
	assert_int_equal(tg_kernel_find_symvers(root, "../9.9.9", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(tg_kernel_find_symvers(root, NULL, buf, sizeof(buf)), -EINVAL);
	remove_root(root);
}

/*
 * build -> /usr/src/linux-headers-KVER is an absolute link: below a root it
 * must lead into the root, not to the host's headers.
 */
static void test_find_symvers_root_symlink(void **state)
{
	char *root = make_root(), buf[PATH_MAX], *want;

	put_text(root, "/usr/src/kernels/9.9.9/Module.symvers", symvers_text);
	put_link(root, "/lib/modules/9.9.9/build", "/usr/src/kernels/9.9.9");
	want = xasprintf("%s/usr/src/kernels/9.9.9/Module.symvers", root);
	assert_int_equal(tg_kernel_find_symvers(root, "9.9.9", buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
	free(want);
	remove_root(root);

	/* the same for the host's real release, whose headers exist on the host only */
	if (access(HOST_SYMVERS, R_OK) == 0) {
		root = make_root();
		put_link(root, target_path("/lib/modules/%s/build"),
			 target_path("/usr/src/linux-headers-%s"));
		assert_int_equal(tg_kernel_find_symvers(root, HOST_RELEASE, buf, sizeof(buf)), -ENOENT);
		remove_root(root);
	}

	/* merged /usr with a relative link, a ".." and a link loop */
	root = make_root();
	put_link(root, "/lib", "usr/lib");
	put_text(root, "/usr/lib/modules/9.9.9/../9.9.9/symvers.gz", "x");
	put_link(root, "/boot", "/boot");
	put_link(root, "/usr/src/kernels/9.9.9", "../../../../../../usr/src/kernels/9.9.9");
	expect_found(root, "9.9.9", "/usr/lib/modules/9.9.9/symvers.gz");
	remove_root(root);
}

static void test_find_symvers_host(void **state)
{
	char buf[PATH_MAX];

	if (!target_has("/usr/src/linux-headers-%s/Module.symvers"))
		skip();
	assert_int_equal(tg_kernel_find_symvers(NULL, HOST_RELEASE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, target_path("/lib/modules/%s/build/Module.symvers"));
	assert_int_equal(tg_kernel_find_symvers("/", HOST_RELEASE, buf, sizeof(buf)), 0);
	assert_string_equal(buf, target_path("/lib/modules/%s/build/Module.symvers"));
	assert_int_equal(tg_kernel_find_symvers("/", "0.0.0-none", buf, sizeof(buf)), -ENOENT);
}

/* ----------------------------------------------------------- load: host */

/*
 * A switch of the target's .config as the library reports it: TG_YES when one
 * of the names is =y or =m.
 */
static int config_says(const char *cfg, const char *name, const char *name2)
{
	const char *names[] = { name, name2 };

	for (size_t i = 0; i < 2 && names[i]; i++) {
		char *y = xasprintf("\n%s=y\n", names[i]), *m = xasprintf("\n%s=m\n", names[i]);
		bool on = strstr(cfg, y) || strstr(cfg, m);

		free(y);
		free(m);
		if (on)
			return TG_YES;
	}
	return TG_NO;
}

static char *host_config(size_t *len);

/* The loader switches of @k against the target's own .config. */
static void expect_host_switches(const struct tg_kernel *k)
{
	size_t len;
	char *cfg = host_config(&len);

	assert_int_equal(k->modversions, config_says(cfg, "CONFIG_MODVERSIONS", NULL));
	assert_int_equal(k->module_sig, config_says(cfg, "CONFIG_MODULE_SIG", NULL));
	assert_int_equal(k->sig_force, config_says(cfg, "CONFIG_MODULE_SIG_FORCE", NULL));
	assert_int_equal(k->force_load, config_says(cfg, "CONFIG_MODULE_FORCE_LOAD", NULL));
	assert_int_equal(k->allow_missing_ns,
			 config_says(cfg, "CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS", NULL));
	free(cfg);
}

/* The vermagic of one of the target's in-tree modules, malloc'ed: what the kernel checks. */
static char *host_module_vermagic(size_t *this_module_size)
{
	struct tg_module *m = NULL;
	struct tg_error e = { 0 };
	char *vm;

	if (tg_module_open_path(target_module("/lib/modules/%s/kernel/drivers/net/dummy.ko"), NULL,
				&m, &e) < 0)
		fail_msg("%s", e.msg);
	assert_non_null(tg_module_get(m, "vermagic"));
	vm = strdup(tg_module_get(m, "vermagic"));
	if (this_module_size)
		*this_module_size = m->this_module_size;
	tg_module_free(m);
	return vm;
}

static void test_load_host(void **state)
{
	struct tg_kernel *k;
	char *vm;
	size_t size;

	if (!host_kernel_present() || !target_has("/lib/modules/%s/kernel/drivers/net/dummy.ko"))
		skip();
	vm = host_module_vermagic(&size);
	k = load(NULL, HOST_RELEASE, NULL, NULL);
	assert_string_equal(k->release, HOST_RELEASE);
	assert_int_equal(k->version, tg_kernel_version_parse(HOST_RELEASE));
	assert_true(k->version >= TG_KVER(3, 0, 0));
	assert_string_equal(k->vermagic, vm);
	assert_true(!strncmp(k->vermagic, HOST_RELEASE, strlen(HOST_RELEASE)) &&
		    k->vermagic[strlen(HOST_RELEASE)] == ' ');
	assert_non_null(strstr(k->vermagic_source, target_path("/lib/modules/%s/kernel/")));
	assert_int_equal(k->this_module_size, size);
	assert_true(size > 0);
	assert_string_equal(k->config_path, HOST_CONFIG);
	expect_host_switches(k);
	assert_true(k->n_trusted_keys >= 1);
	for (size_t i = 0; i < k->n_trusted_keys; i++) {
		print_message("trusted key: %s\n", k->trusted_keys[i]);
		assert_non_null(strchr(k->trusted_keys[i], '/'));
	}
	assert_string_equal(k->trusted_keys_source, target_path("/lib/modules/%s/kernel"));
	if (access(HOST_SYMVERS, R_OK) == 0) {
		assert_non_null(k->symvers);
		assert_string_equal(k->symvers_path, target_path("/lib/modules/%s/build/Module.symvers"));
		assert_true(tg_symvers_count(k->symvers) > 1000);
		assert_non_null(tg_symvers_lookup(k->symvers, "_printk"));
	}
	/* what Debian's 6.1.0-57-amd64 is known to have */
	if (!strcmp(HOST_RELEASE, DEB_RELEASE)) {
		assert_string_equal(k->vermagic, DEB_VERMAGIC);
		assert_int_equal(k->this_module_size, 896);
		if (k->symvers) {
			assert_int_equal(tg_symvers_count(k->symvers), 24683);
			assert_int_equal(tg_symvers_lookup(k->symvers, "module_layout")->crc, 0x9060323f);
		}
	}
	assert_int_equal(k->n_notes, 0);
	tg_kernel_free(k);

	/* the same with root "/" */
	k = load("/", HOST_RELEASE, NULL, NULL);
	assert_string_equal(k->vermagic, vm);
	tg_kernel_free(k);
	free(vm);
}

/* --------------------------------------------------- load: fake roots */

static char *host_config(size_t *len)
{
	FILE *f = fopen(HOST_CONFIG, "r");
	char *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Only /boot/config-KVER: vermagic is composed and equals the real one. */
static void test_load_config_only(void **state)
{
	char *root, *cfg, *want, *vm;
	struct tg_kernel *k;
	size_t len;

	if (!host_kernel_present() || !target_has("/lib/modules/%s/kernel/drivers/net/dummy.ko"))
		skip();
	vm = host_module_vermagic(NULL);
	root = make_root();
	cfg = host_config(&len);
	put_file(root, target_path("/boot/config-%s"), cfg, len);
	free(cfg);
	k = load(root, HOST_RELEASE, NULL, NULL);
	assert_string_equal(k->vermagic, vm);
	free(vm);
	want = xasprintf("%s%s", root, target_path("/boot/config-%s"));
	assert_string_equal(k->vermagic_source, want);
	assert_string_equal(k->config_path, want);
	free(want);
	assert_null(k->symvers);
	assert_null(k->symvers_path);
	assert_int_equal(k->this_module_size, 0);
	assert_int_equal(k->n_trusted_keys, 0);
	assert_null(k->trusted_keys_source);
	expect_host_switches(k);
	assert_int_equal(k->n_notes, 0);
	tg_kernel_free(k);
	remove_root(root);
}

static struct tg_kernel *load_with_config(const char *config, char **rootp)
{
	char *root = make_root();

	put_text(root, "/lib/modules/9.9.9-test/build/.config", config);
	*rootp = root;
	return load(root, "9.9.9-test", NULL, NULL);
}

static void expect_composed(const char *config, const char *vermagic)
{
	char *root;
	struct tg_kernel *k = load_with_config(config, &root);

	if (vermagic) {
		assert_non_null(k->vermagic);
		assert_string_equal(k->vermagic, vermagic);
	} else {
		assert_null(k->vermagic);
		assert_null(k->vermagic_source);
		assert_int_equal(k->n_notes, 1);
	}
	tg_kernel_free(k);
	remove_root(root);
}

static void test_compose_vermagic(void **state)
{
	/* RHEL 8/9: no preempt */
	expect_composed("CONFIG_X86_64=y\nCONFIG_SMP=y\nCONFIG_MODULE_UNLOAD=y\nCONFIG_MODVERSIONS=y\n"
			"# CONFIG_PREEMPT is not set\nCONFIG_PREEMPT_VOLUNTARY=y\n",
			"9.9.9-test SMP mod_unload modversions ");
	/* pre-5.16: CONFIG_PREEMPT itself */
	expect_composed("CONFIG_X86_64=y\nCONFIG_SMP=y\nCONFIG_PREEMPT=y\nCONFIG_MODULE_UNLOAD=y\n",
			"9.9.9-test SMP preempt mod_unload ");
	expect_composed("CONFIG_X86_64=y\nCONFIG_PREEMPT_RT=y\nCONFIG_MODVERSIONS=y\n",
			"9.9.9-test preempt_rt modversions ");
	expect_composed("CONFIG_ARM64=y\nCONFIG_SMP=y\nCONFIG_MODULE_UNLOAD=y\nCONFIG_MODVERSIONS=y\n",
			"9.9.9-test SMP mod_unload modversions aarch64");
	expect_composed("CONFIG_PPC=y\nCONFIG_PPC64=y\nCONFIG_SMP=y\nCONFIG_MODULE_UNLOAD=y\n"
			"CONFIG_MODVERSIONS=y\nCONFIG_MPROFILE_KERNEL=y\nCONFIG_RELOCATABLE=y\n",
			"9.9.9-test SMP mod_unload modversions mprofile-kernel relocatable ");
	expect_composed("CONFIG_S390=y\nCONFIG_SMP=y\nCONFIG_MODULE_UNLOAD=y\n",
			"9.9.9-test SMP mod_unload ");
	expect_composed("CONFIG_RISCV=y\nCONFIG_SMP=y\n", "9.9.9-test SMP riscv");
	/* "=m" counts as set, "=n" and strings do not; RANDSTRUCT_NONE is not RANDSTRUCT */
	expect_composed("CONFIG_X86_64=y\nCONFIG_SMP=m\nCONFIG_MODVERSIONS=n\nCONFIG_MODULE_UNLOAD=\"y\"\n"
			"CONFIG_RANDSTRUCT_NONE=y\n",
			"9.9.9-test SMP ");
	/* unknown: the arch part or a randstruct seed hash is not in .config */
	expect_composed("CONFIG_X86_32=y\nCONFIG_SMP=y\n", NULL);
	expect_composed("CONFIG_X86_64=y\nCONFIG_RANDSTRUCT=y\nCONFIG_RANDSTRUCT_FULL=y\n", NULL);
	expect_composed("CONFIG_X86_64=y\nCONFIG_GCC_PLUGIN_RANDSTRUCT=y\n", NULL);
}

static void test_config_tristates(void **state)
{
	char *root;
	struct tg_kernel *k = load_with_config(
		"CONFIG_X86_64=y\n"
		"CONFIG_MODVERSIONS=y\n"
		"# CONFIG_MODULE_SIG is not set\n"
		"CONFIG_MODULE_SIG_FORCE=y\n"
		"CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS=y\n"
		"CONFIG_MITIGATION_RETPOLINE=y\n"
		"CONFIG_MODULE_SIG_KEY=\"certs/signing_key.pem\"\n"
		"CONFIG_LIVEPATCH", &root);

	assert_int_equal(k->modversions, TG_YES);
	assert_int_equal(k->module_sig, TG_NO);
	assert_int_equal(k->sig_force, TG_YES);
	assert_int_equal(k->force_load, TG_NO);
	assert_int_equal(k->allow_missing_ns, TG_YES);
	assert_int_equal(k->livepatch, TG_NO);
	assert_int_equal(k->retpoline, TG_YES);
	assert_int_equal(k->version, TG_KVER(9, 9, 9));
	assert_string_equal(k->release, "9.9.9-test");
	tg_kernel_free(k);
	remove_root(root);
}

/* The ELF machine the loader's elf_check_arch() accepts, from the .config. */
static void expect_machine(const char *config, unsigned machine, unsigned elf_data)
{
	char *root;
	struct tg_kernel *k = load_with_config(config, &root);

	assert_int_equal(k->e_machine, machine);
	assert_int_equal(k->elf_data, elf_data);
	tg_kernel_free(k);
	remove_root(root);
}

static void test_config_machine(void **state)
{
	(void)state;
	expect_machine("CONFIG_X86_64=y\n", EM_X86_64, ELFDATA2LSB);
	expect_machine("CONFIG_ARM64=y\nCONFIG_MODVERSIONS=y\n", EM_AARCH64, ELFDATA2LSB);
	expect_machine("CONFIG_ARM64=y\nCONFIG_CPU_BIG_ENDIAN=y\n", EM_AARCH64, ELFDATA2MSB);
	expect_machine("CONFIG_S390=y\n", EM_S390, ELFDATA2MSB);
	expect_machine("CONFIG_RISCV=y\n", EM_RISCV, ELFDATA2LSB);
	/* ppc64 (ELF_ARCH EM_PPC64 with __powerpc64__), either byte order */
	expect_machine("CONFIG_PPC=y\nCONFIG_PPC64=y\nCONFIG_CPU_LITTLE_ENDIAN=y\n", EM_PPC64, ELFDATA2LSB);
	expect_machine("CONFIG_PPC=y\nCONFIG_PPC64=y\nCONFIG_CPU_BIG_ENDIAN=y\n", EM_PPC64, ELFDATA2MSB);
	/* 32-bit x86 and ppc are not told apart here: not checked */
	expect_machine("CONFIG_X86_32=y\n", 0, 0);
	expect_machine("CONFIG_PPC=y\n", 0, 0);
}

static void test_config_search_order(void **state)
{
	static const char *const places[] = {
		"/usr/lib/modules/9.9.9/config",
		"/lib/modules/9.9.9/config",
		"/usr/src/linux-headers-9.9.9/.config",
		"/usr/src/kernels/9.9.9/.config",
		"/lib/modules/9.9.9/build/.config",
		"/boot/config-9.9.9",
	};
	char *root = make_root();

	for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
		struct tg_kernel *k;
		char *want = xasprintf("%s%s", root, places[i]);

		put_text(root, places[i], "CONFIG_MODVERSIONS=y\n");
		k = load(root, "9.9.9", NULL, NULL);
		assert_string_equal(k->config_path, want);
		tg_kernel_free(k);
		free(want);
	}
	remove_root(root);
}

/* Nothing at all for the release: everything unknown, and no error. */
static void test_load_nothing(void **state)
{
	char *root = make_root();
	struct tg_kernel *k = load(root, "9.9.9", NULL, NULL);

	assert_string_equal(k->release, "9.9.9");
	assert_int_equal(k->version, TG_KVER(9, 9, 9));
	assert_null(k->symvers);
	assert_null(k->config_path);
	assert_null(k->vermagic);
	assert_int_equal(k->this_module_size, 0);
	assert_int_equal(k->modversions, TG_UNKNOWN);
	assert_int_equal(k->module_sig, TG_UNKNOWN);
	assert_int_equal(k->sig_force, TG_UNKNOWN);
	assert_int_equal(k->force_load, TG_UNKNOWN);
	assert_int_equal(k->allow_missing_ns, TG_UNKNOWN);
	assert_int_equal(k->livepatch, TG_UNKNOWN);
	assert_int_equal(k->retpoline, TG_UNKNOWN);
	assert_int_equal(k->n_trusted_keys, 0);
	tg_kernel_free(k);
	/* a release that is not a version still loads, version unknown */
	k = load(root, "custom", NULL, NULL);
	assert_int_equal(k->version, 0);
	tg_kernel_free(k);
	remove_root(root);
	tg_kernel_free(NULL);
}

/*
 * A root whose module tree is an absolute link to the host's own tree points at
 * itself inside the root: the kernel still loads, the loop is a note naming the
 * place (once "out of memory", which no one could act on), and a link loop in
 * the root resolves to ELOOP, not ENOMEM.
 */
static void test_load_root_link_loop(void **state)
{
	char *root = make_root(), *want;
	struct tg_kernel *k;
	bool noted = false;

	put_link(root, "/lib/modules/9.9.9/kernel", "/lib/modules/9.9.9/kernel");
	put_link(root, "/boot/config-9.9.9", "/boot/config-9.9.9");
	errno = 0;
	want = xasprintf("/lib/modules/9.9.9/kernel");
	assert_null(tg_root_resolve(root, want));
	assert_int_equal(errno, ELOOP);
	free(want);
	k = load(root, "9.9.9", NULL, NULL);
	assert_null(k->config_path);
	want = xasprintf("%s/lib/modules/9.9.9/kernel: %s inside the root: not used", root,
			 strerror(ELOOP));
	for (size_t i = 0; i < k->n_notes; i++)
		noted = noted || !strcmp(k->notes[i], want);
	assert_true(noted);
	free(want);
	tg_kernel_free(k);
	remove_root(root);
}

/* A broken Module.symvers found by the search: noted, the next place is used. */
static void test_load_symvers_fallback(void **state)
{
	char *root = make_root(), *want;
	struct tg_kernel *k;
	size_t gzlen;
	void *gz = gzip_text(symvers_text, &gzlen);

	put_text(root, "/usr/src/kernels/9.9.9/Module.symvers", "0x1\tbroken\n");
	put_file(root, "/boot/symvers-9.9.9.gz", gz, gzlen);
	free(gz);
	k = load(root, "9.9.9", NULL, NULL);
	assert_non_null(k->symvers);
	want = xasprintf("%s/boot/symvers-9.9.9.gz", root);
	assert_string_equal(k->symvers_path, want);
	free(want);
	assert_int_equal(tg_symvers_count(k->symvers), 2);
	assert_int_equal(k->n_notes, 1);
	want = xasprintf("%s/usr/src/kernels/9.9.9/Module.symvers:1: expected 3 to 5 tab-separated fields",
			 root);
	assert_string_equal(k->notes[0], want);
	free(want);
	tg_kernel_free(k);
	remove_root(root);
}

/* Package paths that hold a kernel's .config or exports, ranked in the search order. */
static void test_config_place(void **state)
{
	char rel[64];

	(void)state;
	assert_int_equal(tg_kernel_config_place("/boot/config-6.1.0-57-amd64", rel, sizeof(rel)), 0);
	assert_string_equal(rel, "6.1.0-57-amd64");
	assert_true(tg_kernel_config_place("/usr/src/kernels/5.14.0-362.el9.x86_64/.config", rel,
					   sizeof(rel)) > 0);
	assert_string_equal(rel, "5.14.0-362.el9.x86_64");
	assert_true(tg_kernel_config_place("/lib/modules/6.8.0-1/config", rel, sizeof(rel)) >
		    tg_kernel_config_place("/usr/src/linux-headers-6.8.0-1/.config", rel, sizeof(rel)));
	/* look-alikes: not a release, more than one component, another file */
	assert_int_equal(tg_kernel_config_place("/boot/config-", rel, sizeof(rel)), -ENOENT);
	assert_int_equal(tg_kernel_config_place("/lib/modules/modprobe.d/config", rel, sizeof(rel)),
			 -ENOENT);
	assert_int_equal(tg_kernel_config_place("/lib/modules/6.1.0/extra/config", rel, sizeof(rel)),
			 -ENOENT);
	assert_int_equal(tg_kernel_config_place("/usr/src/kernels/6.1.0/Module.symvers", rel,
						sizeof(rel)), -ENOENT);
	assert_int_equal(tg_kernel_config_place("/boot/config-6.1.0", rel, 4), -ENAMETOOLONG);

	/* export tables: every carrier, ranked as the on-disk search */
	assert_int_equal(tg_kernel_symvers_place("/lib/modules/6.1.0-57-amd64/build/Module.symvers",
						 rel, sizeof(rel)), 0);
	assert_string_equal(rel, "6.1.0-57-amd64");
	assert_true(tg_kernel_symvers_place("/usr/src/kernels/5.14.0-362.el9.x86_64/Module.symvers",
					    rel, sizeof(rel)) <
		    tg_kernel_symvers_place("/boot/symvers-5.14.0-362.el9.x86_64.gz", rel, sizeof(rel)));
	assert_string_equal(rel, "5.14.0-362.el9.x86_64");
	assert_true(tg_kernel_symvers_place("/usr/src/linux-headers-6.1.0-57-amd64/Module.symvers",
					    rel, sizeof(rel)) >= 0);
	assert_true(tg_kernel_symvers_place("/usr/lib/modules/6.8.5-301.fc40.x86_64/symvers.xz",
					    rel, sizeof(rel)) >= 0);
	assert_string_equal(rel, "6.8.5-301.fc40.x86_64");
	assert_int_equal(tg_kernel_symvers_place("/usr/src/kernels/6.1.0/extra/Module.symvers", rel,
						 sizeof(rel)), -ENOENT);
	assert_int_equal(tg_kernel_symvers_place("/lib/modules/6.1.0/symvers.bz2", rel,
						 sizeof(rel)), -ENOENT);
	/* a kernel package's own module tree, and what is not */
	assert_true(tg_kernel_path_in_tree("/lib/modules/6.1.0-57-amd64/kernel/fs/ext4/ext4.ko"));
	assert_true(tg_kernel_path_in_tree("/usr/lib/modules/6.8.5-301.fc40.x86_64/kernel/a.ko.xz"));
	assert_false(tg_kernel_path_in_tree("/lib/modules/6.1.0-57-amd64/extra/lve.ko"));
	assert_false(tg_kernel_path_in_tree("/lib/modules/6.1.0-57-amd64/updates/dkms/x.ko"));
	assert_false(tg_kernel_path_in_tree("/lib/modules/modprobe.d/kernel/x.ko"));
	assert_false(tg_kernel_path_in_tree("/opt/lib/modules/6.1.0/kernel/x.ko"));
	assert_false(tg_kernel_path_in_tree("/lib/modules/6.1.0/kernelx/x.ko"));
	assert_false(tg_kernel_path_in_tree(NULL));
}

/* A .config in memory (a kernel-devel being installed) beats the one on disk. */
static void test_load_config_mem(void **state)
{
	static const char cfg[] = "CONFIG_X86_64=y\nCONFIG_SMP=y\nCONFIG_MODULE_UNLOAD=y\n"
				  "CONFIG_MODVERSIONS=y\nCONFIG_MODULE_SIG=y\n";
	char *root = make_root();
	struct tg_kernel_opts o = { 0 };
	struct tg_kernel *k = NULL;
	struct tg_error err = { 0 };
	struct tg_limits lim;

	(void)state;
	put_text(root, "/boot/config-9.9.9", "CONFIG_S390=y\n");
	o.root = root;
	o.release = "9.9.9";
	o.config_data = cfg;
	o.config_len = sizeof(cfg) - 1;
	o.config_label = "kernel-devel-9.9.9:/usr/src/kernels/9.9.9/.config";
	assert_int_equal(tg_kernel_load(&o, &k, &err), 0);
	assert_string_equal(k->config_path, o.config_label);
	assert_int_equal(k->modversions, TG_YES);
	assert_int_equal(k->module_sig, TG_YES);
	assert_string_equal(k->vermagic, "9.9.9 SMP mod_unload modversions ");
	assert_string_equal(k->vermagic_source, o.config_label);
	tg_kernel_free(k);

	/* the size cap applies as to a file */
	tg_limits_default(&lim);
	lim.max_input_size = 8;
	o.limits = &lim;
	expect_load_error(&o, -EFBIG, "kernel-devel-9.9.9:/usr/src/kernels/9.9.9/.config: larger "
			  "than the input size limit");
	remove_root(root);
}

static void test_load_explicit(void **state)
{
	char *root = make_root(), *sv, *cfg;
	struct tg_kernel_opts o = { 0 };
	struct tg_kernel *k;

	sv = xasprintf("%s/my.symvers", root);
	cfg = xasprintf("%s/my.config", root);
	put_text(root, "/my.symvers", symvers_text);
	put_text(root, "/my.config", "CONFIG_X86_64=y\nCONFIG_SMP=y\nCONFIG_MODVERSIONS=y\n");

	/* no release: symvers and config only, the release stays unknown */
	k = load(NULL, NULL, sv, cfg);
	assert_null(k->release);
	assert_int_equal(k->version, 0);
	assert_string_equal(k->symvers_path, sv);
	assert_int_equal(tg_symvers_count(k->symvers), 2);
	assert_string_equal(k->config_path, cfg);
	assert_int_equal(k->modversions, TG_YES);
	assert_null(k->vermagic);
	tg_kernel_free(k);

	/* explicit files override the search */
	put_text(root, "/boot/config-9.9.9", "CONFIG_MODULE_SIG=y\n");
	k = load(root, "9.9.9", sv, cfg);
	assert_string_equal(k->config_path, cfg);
	assert_int_equal(k->module_sig, TG_NO);
	assert_string_equal(k->vermagic, "9.9.9 SMP modversions ");
	tg_kernel_free(k);

	/* an explicit file that cannot be read is an error naming it */
	o.release = "9.9.9";
	o.symvers_path = "/nonexistent/Module.symvers";
	expect_load_error(&o, -ENOENT, "/nonexistent/Module.symvers: No such file or directory");
	o.symvers_path = NULL;
	o.config_path = "/nonexistent/config";
	expect_load_error(&o, -ENOENT, "/nonexistent/config: No such file or directory");
	o.config_path = NULL;
	put_text(root, "/bad.symvers", "garbage\n");
	o.symvers_path = xasprintf("%s/bad.symvers", root);
	{
		char *msg = xasprintf("%s:1: expected 3 to 5 tab-separated fields", o.symvers_path);

		expect_load_error(&o, -EINVAL, msg);
		free(msg);
	}
	free((char *)o.symvers_path);

	free(sv);
	free(cfg);
	remove_root(root);
}

static void test_load_bad_opts(void **state)
{
	struct tg_kernel_opts o = { 0 };
	struct tg_kernel *k = NULL;

	expect_load_error(&o, -EINVAL, "kernel: neither a release nor a Module.symvers given");
	o.release = "../../etc";
	expect_load_error(&o, -EINVAL, "../../etc: not a kernel release");
	o.release = "";
	expect_load_error(&o, -EINVAL, ": not a kernel release");
	o.release = "..";
	expect_load_error(&o, -EINVAL, "..: not a kernel release");
	assert_int_equal(tg_kernel_load(NULL, &k, NULL), -EINVAL);
	assert_null(k);
}

/*
 * In-tree modules of a fake root: copies of the host's own.  A non-intree
 * module in kernel/ (old DKMS DEST_MODULE_LOCATION) must not count.
 */
static void test_load_intree_copy(void **state)
{
	const char *src = target_module("/lib/modules/%s/kernel/drivers/net/dummy.ko");
	const char *ext = strstr(src, ".ko") + 3;	/* the copy is compressed as the original */
	char *root, *cfg, *want, *vm;
	size_t size;
	struct tg_kernel *k;
	size_t len;
	void *data = NULL;
	FILE *f;
	long n;

	if (!host_kernel_present() || !target_has("/lib/modules/%s/kernel/drivers/net/dummy.ko"))
		skip();
	vm = host_module_vermagic(&size);
	f = fopen(src, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc((size_t)n);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);

	root = make_root();
	want = xasprintf("/usr/lib/modules/9.9.9/kernel/zz/a/dummy.ko%s", ext);
	put_file(root, want, data, (size_t)n);
	free(want);
	put_link(root, "/lib", "usr/lib");
	cfg = host_config(&len);
	put_file(root, "/boot/config-9.9.9", cfg, len);
	free(cfg);
	/* junk that looks like a module comes first by size and must be skipped */
	put_text(root, "/usr/lib/modules/9.9.9/kernel/drivers/net/aaa.ko", "not an ELF");
	free(data);

	k = load(root, "9.9.9", NULL, NULL);
	/* the module's own vermagic wins over the one composed from .config */
	assert_string_equal(k->vermagic, vm);
	free(vm);
	want = xasprintf("%s/usr/lib/modules/9.9.9/kernel/zz/a/dummy.ko%s", root, ext);
	assert_string_equal(k->vermagic_source, want);
	free(want);
	assert_int_equal(k->this_module_size, size);
	assert_int_equal(k->n_trusted_keys, 1);
	want = xasprintf("%s/usr/lib/modules/9.9.9/kernel", root);
	assert_string_equal(k->trusted_keys_source, want);
	free(want);
	tg_kernel_free(k);
	remove_root(root);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_release_from_path),
		cmocka_unit_test(test_release_from_vermagic),
		cmocka_unit_test(test_find_symvers_order),
		cmocka_unit_test(test_find_symvers_root_symlink),
		cmocka_unit_test(test_find_symvers_host),
		cmocka_unit_test(test_load_host),
		cmocka_unit_test(test_load_config_only),
		cmocka_unit_test(test_compose_vermagic),
		cmocka_unit_test(test_config_tristates),
		cmocka_unit_test(test_config_machine),
		cmocka_unit_test(test_config_search_order),
		cmocka_unit_test(test_load_nothing),
		cmocka_unit_test(test_load_root_link_loop),
		cmocka_unit_test(test_load_symvers_fallback),
		cmocka_unit_test(test_config_place),
		cmocka_unit_test(test_load_config_mem),
		cmocka_unit_test(test_load_explicit),
		cmocka_unit_test(test_load_bad_opts),
		cmocka_unit_test(test_load_intree_copy),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
