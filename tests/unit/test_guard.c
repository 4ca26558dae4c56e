/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * guard/: rpm macro files read as rpm's loader reads them (continuations,
 * rpm's 16 KiB line buffer, NUL bytes), the winning definitions over a macro
 * path and the names %__plugindir is built from, where files are, rpmrc and
 * dkms files.  tests/guard/run.sh checks the macro reader against the real
 * rpm as well.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "guard.h"

/* ------------------------------------------------------------ helpers */

/* "name=body@line;" for each definition */
static int collect(void *ctx, const struct guard_macro_def *d)
{
	char **out = ctx, *n;

	assert_true(asprintf(&n, "%s%.*s=%.*s@%u;", *out ? *out : "", (int)d->name_len, d->name,
			     (int)d->body_len, d->body, d->line) > 0);
	free(*out);
	*out = n;
	return 0;
}

static char *defs_len(const char *text, size_t len)
{
	char *out = NULL;

	assert_int_equal(guard_macro_each(text, len, collect, &out), 0);
	return out ? out : strdup("");
}

static char *defs(const char *text)
{
	return defs_len(text, strlen(text));
}

static void expect_defs(const char *text, const char *want)
{
	char *got = defs(text);

	assert_string_equal(got, want);
	free(got);
}

/* ------------------------------------------------------------ macro files */

static void test_macro_lines(void **state)
{
	expect_defs("%_a 1\n%_b   two words  \n", "_a=1@1;_b=two words@2;");
	/* blanks before % and between % and the name (rpm's COPYNAME skips them) */
	expect_defs("  \t%  __transaction_taintguard %{nil}\n",
		    "__transaction_taintguard=%{nil}@1;");
	/* not definitions: text, comments, %{...}, "%%" */
	expect_defs("# %_c 1\nx %_d 2\n%{_e} 3\n%%f 4\n", "");
	/* options */
	expect_defs("%_f(a:b) body %1\n%_g(x 1\n", "_f=body %1@1;");
	/* a trailing backslash joins the next line, which defines nothing then */
	expect_defs("%_h one \\\n%__plugindir /x\n%_i 2\n",
		    "_h=one \\\n%__plugindir /x@1;_i=2@3;");
	/* unbalanced %{ %( %[ join lines too */
	expect_defs("%_j %{lua:\n%_k 1\n}\n%_l 3\n", "_j=%{lua:\n%_k 1\n}@1;_l=3@4;");
	expect_defs("%_m %(echo\n%_n)\n", "_m=%(echo\n%_n)@1;");
	expect_defs("%_o %[1 +\n%_p]\n", "_o=%[1 +\n%_p]@1;");
	/* an escaped brace does not count; a backslash-escaped newline on a text line does not join */
	expect_defs("%_q \\%{\n%_r 2\n", "_q=\\%{@1;_r=2@2;");
	expect_defs("text \\\n%_s 1\n", "_s=1@2;");
	/* CRLF */
	expect_defs("%_t a\r\n%_u b\r\n", "_t=a@1;_u=b@2;");
	/* the last line needs no newline */
	expect_defs("%_v a\n%_w b", "_v=a@1;_w=b@2;");
}

/* rpm reads lines with fgets() into a 16 KiB buffer: a longer line is split. */
static void test_macro_long_lines(void **state)
{
	size_t pad = 16383;	/* fgets(buf, 16384) returns 16383 bytes without a newline */
	char *text = malloc(pad + 64), *got;

	assert_non_null(text);
	text[0] = '#';
	memset(text + 1, 'x', pad - 1);
	strcpy(text + pad, "%__transaction_taintguard %{nil}\n");
	got = defs(text);
	assert_string_equal(got, "__transaction_taintguard=%{nil}@2;");
	free(got);
	/* one byte shorter: the whole line is a comment */
	text[0] = '#';
	memmove(text + pad - 1, text + pad, strlen(text + pad) + 1);
	got = defs(text);
	assert_string_equal(got, "");
	free(got);
	free(text);
}

/* A NUL byte ends what rpm sees of a line (strlen); the rest of that line is gone. */
static void test_macro_nul(void **state)
{
	static const char text[] = "%_a 1\0%_b 2\n%_c 3\n";
	char *got = defs_len(text, sizeof(text) - 1);

	assert_string_equal(got, "_a=1@1;_c=3@2;");	/* rpm read two lines */
	free(got);
}

static int collect_ref(void *ctx, const char *name, size_t len)
{
	char **out = ctx, *n;

	assert_true(asprintf(&n, "%s%.*s,", *out ? *out : "", (int)len, name) > 0);
	free(*out);
	*out = n;
	return 0;
}

static void test_macro_refs(void **state)
{
	static const char body[] = "%{_libdir}/x %_lib %{?_a} %{!?_b:y} %%_c %{?!_d} %{expand:%e}";
	char *out = NULL;

	assert_int_equal(guard_macro_refs(body, strlen(body), collect_ref, &out), 0);
	assert_string_equal(out, "_libdir,_lib,_a,_b,_d,expand,e,");
	free(out);
}

/* ------------------------------------------------------------ winners */

static void test_winners(void **state)
{
	struct guard_mfile files[] = {
		{ .path = "/usr/lib/rpm/macros",
		  .text = "%_prefix /usr\n%_libdir %{_prefix}/lib\n%__plugindir %{_libdir}/rpm-plugins\n"
		  "%_bindir /usr/bin\n" },
		{ .path = "/usr/lib/rpm/macros.d/macros.transaction_taintguard",
		  .text = "%__transaction_taintguard %{__plugindir}/taintguard.so\n%_taintguard_mode enforce\n" },
		{ .path = "/usr/lib/rpm/platform/x86_64-linux/macros", .text = "%_lib lib64\n%_libdir %{_prefix}/%{_lib}\n" },
		{ .path = "/etc/rpm/macros.zz" },	/* unreadable: skipped */
	};
	struct guard_names nm;
	struct guard_wins w;
	const struct guard_win *x;

	for (size_t i = 0; i < 4; i++)
		if (files[i].text)
			files[i].len = strlen(files[i].text);
	assert_int_equal(guard_names_init(&nm), 0);
	assert_true(guard_names_match(&nm, "_taintguard_anything", 20));
	assert_false(guard_names_match(&nm, "_taintguard_", 12));
	assert_false(guard_names_match(&nm, "_libdir", 7));
	assert_int_equal(guard_names_close(&nm, files, 4), 0);
	/* __plugindir -> _libdir (the platform's) -> _prefix, _lib */
	assert_true(guard_names_match(&nm, "_libdir", 7));
	assert_true(guard_names_match(&nm, "_lib", 4));
	assert_true(guard_names_match(&nm, "_prefix", 7));
	assert_false(guard_names_match(&nm, "_bindir", 7));
	assert_int_equal(guard_wins_get(files, 4, &nm, &w), 0);
	x = guard_wins_find(&w, "_libdir");
	assert_non_null(x);
	assert_string_equal(x->body, "%{_prefix}/%{_lib}");
	assert_int_equal(x->file, 2);
	assert_int_equal(x->line, 2);
	x = guard_wins_find(&w, "_taintguard_mode");
	assert_non_null(x);
	assert_string_equal(x->body, "enforce");
	assert_null(guard_wins_find(&w, "_bindir"));
	guard_wins_free(&w);
	guard_names_free(&nm);
}

/* ------------------------------------------------------------ places */

static void test_places(void **state)
{
	struct guard_places pl;

	assert_int_equal(guard_places_init(&pl, "/srv/policy.yaml"), 0);
	assert_int_equal(guard_places_set_macro_path(&pl,
		"/usr/lib/rpm/macros:/usr/lib/rpm/macros.d/macros.*:/usr/lib/rpm/platform/%{_target}/macros:"
		"/usr/lib/rpm/fileattrs/*.attr:/usr/lib/rpm/redhat/macros:/etc/rpm/macros.*:/etc/rpm/macros:"
		"/etc/rpm/%{_target}/macros:~/.rpmmacros", "x86_64-linux", "/home/alice"), 0);
	assert_int_equal(guard_places_set_plugindir(&pl, "/usr/lib64/rpm-plugins/"), 0);
	assert_int_equal(guard_classify(&pl, "/etc/rpm/macros.zz-tuning"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/etc/rpm/macros"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/etc/rpm/macros.zz.rpmnew"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/etc/rpm/zz"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/etc/rpm/sub/macros.x"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/macros.d/macros.python"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/fileattrs/elf.attr"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/fileattrs/.x.attr"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/platform/x86_64-linux/macros"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/platform/i686-linux/macros"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/root/.rpmmacros"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/home/alice/.rpmmacros"), GUARD_MACRO);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/rpmrc"), GUARD_RPMRC);
	assert_int_equal(guard_classify(&pl, "/usr/lib/rpm/redhat/rpmrc"), GUARD_RPMRC);
	assert_int_equal(guard_classify(&pl, "/etc/rpmrc"), GUARD_RPMRC);
	assert_int_equal(guard_classify(&pl, "/root/.config/rpm/rpmrc"), GUARD_RPMRC);
	assert_int_equal(guard_classify(&pl, "/usr/lib64/rpm-plugins/taintguard.so"), GUARD_PLUGIN);
	assert_int_equal(guard_classify(&pl, "/usr/lib64/rpm-plugins/taintguard-x.so"), GUARD_PLUGIN);
	assert_int_equal(guard_classify(&pl, "/usr/lib64/rpm-plugins/selinux.so"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/etc/dkms/framework.conf"), GUARD_DKMS_FRAMEWORK);
	assert_int_equal(guard_classify(&pl, "/etc/dkms/framework.conf.d/zz.conf"), GUARD_DKMS_FRAMEWORK);
	assert_int_equal(guard_classify(&pl, "/etc/dkms/framework.conf.d/zz.txt"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, "/etc/dkms/framework.conf.d/zz-taintguard.conf"), GUARD_OWN);
	assert_int_equal(guard_classify(&pl, "/usr/src/lve-1.0/dkms.conf"), GUARD_DKMS_CONF);
	assert_int_equal(guard_classify(&pl, "/etc/dkms/lve.conf"), GUARD_DKMS_CONF);
	assert_int_equal(guard_classify(&pl, "/srv/policy.yaml"), GUARD_OWN);
	assert_int_equal(guard_classify(&pl, TG_SYSCONFDIR "/policy.yaml"), GUARD_OWN);
	assert_int_equal(guard_classify(&pl, TG_SYSCONFDIR), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, TG_SYSCONFDIR "x/y"), GUARD_NONE);
	assert_int_equal(guard_classify(&pl, TG_LOCALSTATEDIR "/marks/x.json"), GUARD_OWN);
	assert_int_equal(guard_classify(&pl, "relative"), GUARD_NONE);
	assert_true(guard_named_like_macros("/etc/rpm/macros.transaction_taintguard"));
	assert_false(guard_named_like_macros("/etc/rpm/macros.transaction_selinux"));
	guard_places_free(&pl);
}

/* ------------------------------------------------------------ rpmrc, dkms */

static void test_rpmrc(void **state)
{
	static const char ta[] = "# c\n  optflags: x86_64 -O2\narchcolor: x86_64 2\n\n"
				 "include: /usr/lib/rpm/rpmrc  \n";
	static const char tb[] = "arch_canon:\tx86_64: x86_64 1\r\n";
	char *a = guard_rpmrc_significant(ta, strlen(ta));
	char *b = guard_rpmrc_significant(tb, strlen(tb));

	assert_string_equal(a, "include: /usr/lib/rpm/rpmrc\n");
	assert_string_equal(b, "arch_canon:\tx86_64: x86_64 1\n");
	free(a);
	free(b);
	/* a last line without a newline gets one (found by fuzz_guard: one byte too few) */
	a = guard_rpmrc_significant("x", 1);
	assert_string_equal(a, "x\n");
	free(a);
}

static void expect_mention(const char *text, const char *word, bool prefix, unsigned line)
{
	assert_int_equal(guard_shell_mention(text, strlen(text), word, prefix), line);
}

static const char *fw(const char *text, char *buf, size_t size)
{
	return guard_dkms_framework_reason(text, strlen(text), buf, size);
}

static const char *dc(const char *text, char *buf, size_t size)
{
	return guard_dkms_conf_reason(text, strlen(text), buf, size);
}

static void test_shell(void **state)
{
	char buf[256];
	const char *why;

	expect_mention("# sign_file=/x\n#x\nsign_file=/bin/true\n", "sign_file", false, 3);
	expect_mention("a=1 # sign_file=/x\n", "sign_file", false, 0);
	expect_mention("a=\"1 # x\"; sign_file=/x\n", "sign_file", false, 1);
	expect_mention("a='#'; b=x#y; sign_file=/x\n", "sign_file", false, 1);
	expect_mention("my_sign_file=1\nsign_files=2\n", "sign_file", false, 0);
	expect_mention("eval \"$(echo sign_file=/x)\"\n", "sign_file", false, 1);
	expect_mention("a=\\\n#b\nsign_file=1\n", "sign_file", false, 3);
	expect_mention("unset DKMS_DIRECTIVE_TG\n", "DKMS_DIRECTIVE", true, 1);
	expect_mention("x=${y#DKMS_DIRECTIVE}\n", "DKMS_DIRECTIVE", true, 1);
	expect_mention("MY_DKMS_DIRECTIVE=1\n", "DKMS_DIRECTIVE", true, 0);

	why = fw("# sign_file=\"/x\"\nmok_signing_key=/k\n", buf, sizeof(buf));
	assert_null(why);
	why = fw("post_transaction=x\nsign_file=/bin/true\n", buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "sets sign_file"));
	assert_non_null(strstr(why, "(line 2)"));
	why = fw("try_sign_modules=false\n", buf, sizeof(buf));
	assert_non_null(why);
	why = fw("rm -f /etc/dkms/framework.conf.d/zz-TaintGuard.conf\n", buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "names taintguard"));
	why = dc("PACKAGE_NAME=x\nPRE_INSTALL=\"../../usr/libexec/taintguard/"
				     "taintguard-dkms-pre-install own.sh\"\n", buf, sizeof(buf));
	assert_null(why);
	why = dc("PACKAGE_NAME=x\nDKMS_DIRECTIVE_ZZ=PRE_INSTALL=/bin/true\n", buf, sizeof(buf));
	assert_non_null(why);
	assert_non_null(strstr(why, "(line 2)"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_macro_lines),
		cmocka_unit_test(test_macro_long_lines),
		cmocka_unit_test(test_macro_nul),
		cmocka_unit_test(test_macro_refs),
		cmocka_unit_test(test_winners),
		cmocka_unit_test(test_places),
		cmocka_unit_test(test_rpmrc),
		cmocka_unit_test(test_shell),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
