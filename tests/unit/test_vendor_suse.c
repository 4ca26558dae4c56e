/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SUSE's supported flag (lib/vendor_suse.c) on synthetic inputs: a root's
 * sysctl and modprobe files in their reading order, the facts they give,
 * and the taint bit and letter each patch generation uses.
 */
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

#include "dirs.h"
#include "vendor_suse.h"

static char root[] = "/tmp/tg-suse-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512], dir[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	*strrchr(dir, '/') = '\0';
	assert_int_equal(make_dirs(dir, 0755), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static struct tg_suse_root *load(void)
{
	struct tg_suse_root *s = NULL;

	assert_int_equal(tg_suse_root_load(root, NULL, &s), 0);
	assert_non_null(s);
	return s;
}

static void test_root_files(void **state)
{
	struct tg_suse_root *s;

	(void)state;
	assert_non_null(mkdtemp(root));
	s = load();
	assert_int_equal(s->unsupported.value, -1);
	assert_int_equal(s->allow.value, -1);
	assert_null(s->unsupported.file);
	tg_suse_root_free(s);

	/* sorted by name across directories; /etc masks /usr/lib's file of the same name */
	put("/etc/sysctl.d/50-a.conf", "kernel.unsupported=1\n");
	put("/usr/lib/sysctl.d/90-z.conf", "kernel.unsupported = 0\n");
	put("/etc/sysctl.d/90-z.conf", "# masks the one in /usr/lib\n");
	put("/usr/lib/sysctl.d/60-b.conf", "kernel.unsupportedx = 0\n -kernel/unsupported = 2 \n");
	put("/etc/modprobe.d/10-unsupported-modules.conf", "allow_unsupported_modules 0\n");
	put("/lib/modprobe.d/20-x.conf", "allow_unsupported_modules_x 1\nallow_unsupported_modules\n");
	s = load();
	assert_int_equal(s->unsupported.value, 2);
	assert_string_equal(s->unsupported.file, "/usr/lib/sysctl.d/60-b.conf:2");
	assert_int_equal(s->allow.value, 0);
	assert_string_equal(s->allow.file, "/etc/modprobe.d/10-unsupported-modules.conf:1");
	tg_suse_root_free(s);

	/* /etc/sysctl.conf is read last; a file not named .conf is not read */
	put("/etc/sysctl.conf", "kernel.unsupported = 0\n");
	put("/etc/modprobe.d/99-late.conf.rpmsave", "allow_unsupported_modules 1\n");
	s = load();
	assert_int_equal(s->unsupported.value, 0);
	assert_string_equal(s->unsupported.file, "/etc/sysctl.conf:1");
	assert_int_equal(s->allow.value, 0);
	tg_suse_root_free(s);
}

static void kernel_with(struct tg_kernel *k, struct tg_loader_facts *lf, unsigned kv, int cfg)
{
	memset(k, 0, sizeof(*k));
	k->release = "r";
	k->version = kv;
	k->suse_supported = cfg;
	k->modversions = k->module_sig = k->sig_force = k->force_load = k->allow_missing_ns =
		k->livepatch = k->retpoline = k->platform_keyring = k->rhel_differences = TG_NO;
	k->config_path = "/boot/config-r";
	tg_loader_facts_get(k, lf);
}

static void test_generations(void **state)
{
	static const struct {
		unsigned kv;
		unsigned ext_bit, no_bit;
		char ext, no;
	} want[] = {
		{ TG_KVER(6, 4, 0), 16, 31, 'X', 'n' },
		{ TG_KVER(5, 14, 21), 16, 31, 'X', 'N' },
		{ TG_KVER(4, 12, 14), 31, 30, 'X', 'N' },
		{ 0, 16, 31, 'X', 'n' },	/* release unknown: the newest */
	};
	struct tg_loader_facts lf;
	struct tg_kernel k;
	struct tg_suse_verdict v;
	enum tg_lf by = TG_LF__N;
	char t[40];

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		kernel_with(&k, &lf, want[i].kv, TG_YES);
		assert_true(tg_suse_kernel(&lf, &by));
		assert_int_equal(by, TG_LF_SUSE_KERNEL_SUPPORTED);
		tg_suse_judge(&k, &lf, NULL, &v);
		assert_int_equal(v.support, TG_SUSE_UNSUPPORTED);
		assert_int_equal(v.bit, want[i].no_bit);
		assert_int_equal(v.letter, want[i].no);
		assert_int_equal(strlen(v.letters), 32);
		assert_false(v.refused);
		/* the verdict prints the kernel's letters */
		{
			struct tg_verdict tv = { .taint_letters = v.letters };

			tg_verdict_taint_string(&tv, TG_TAINT_BIT(12) | TG_TAINT_BIT(want[i].ext_bit),
						t, sizeof(t));
			assert_int_equal(t[0], 'O');
			assert_int_equal(t[1], want[i].ext);
		}
	}
	/* .config answers no: not a SUSE kernel, whatever else */
	kernel_with(&k, &lf, TG_KVER(6, 4, 0), TG_NO);
	assert_false(tg_suse_kernel(&lf, NULL));
	tg_suse_judge(&k, &lf, NULL, &v);
	assert_int_equal(v.support, TG_SUSE_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_files),
		cmocka_unit_test(test_generations),
	};
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (root[strlen(root) - 1] != 'X' && system(cmd) != 0)
		r = 1;
	return r;
}
