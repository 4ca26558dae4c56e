/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Policy loading, kernel mirror queries, decisions, strict parsing, dump. */
#include <errno.h>
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

#include "taintguard.h"

#define DEFAULT_POLICY "policy/default.yaml"

static struct tg_policy *load_text(const char *text)
{
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL;
	int r = tg_policy_load_mem(text, strlen(text), "t.yaml", NULL, &p, &err);

	if (r < 0)
		fail_msg("load failed: %d %s", r, err.msg);
	return p;
}

/* The load must fail with @code and exactly @msg. */
static void expect_error_lim(const char *text, const struct tg_limits *lim,
			     int code, const char *msg)
{
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL;
	int r = tg_policy_load_mem(text, strlen(text), "t.yaml", lim, &p, &err);

	assert_null(p);
	assert_int_equal(r, code);
	assert_int_equal(err.code, code);
	assert_string_equal(err.msg, msg);
}

static void expect_error(const char *text, const char *msg)
{
	expect_error_lim(text, NULL, -EINVAL, msg);
}

/* Dump to a string, without the "# effective policy, from ..." line. */
static char *dump_body(const struct tg_policy *p)
{
	char *buf = NULL, *nl;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(tg_policy_dump(p, f), 0);
	fclose(f);
	assert_true(buf[0] == '#');
	nl = strchr(buf, '\n');
	assert_non_null(nl);
	memmove(buf, nl + 1, strlen(nl + 1) + 1);
	return buf;
}

/* ------------------------------------------------------------ defaults */

static void test_default_loads(void **state)
{
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL, *builtin;
	char *a, *b;

	assert_int_equal(tg_policy_load_path(DEFAULT_POLICY, NULL, &p, &err), 0);
	assert_non_null(p);
	assert_string_equal(tg_policy_source(p), DEFAULT_POLICY);
	/* A file with only the version line gets the built-in sections,
	 * which must be what default.yaml says. */
	builtin = load_text("taintguard-policy: 1\n");
	a = dump_body(p);
	b = dump_body(builtin);
	assert_string_equal(a, b);
	free(a);
	free(b);
	/* and NULL means the same built-in policy */
	a = dump_body(NULL);
	b = dump_body(p);
	assert_string_equal(a, b);
	free(a);
	free(b);
	tg_policy_free(builtin);
	tg_policy_free(p);
}

static void test_default_path(void **state)
{
	const char *path = tg_policy_default_path();

	assert_non_null(path);
	assert_true(strstr(path, "/policy.yaml") || strstr(path, "/default.yaml"));
}

static void test_gpl_compatible(void **state)
{
	static const char *const yes[] = {
		"GPL", "GPL v2", "GPL and additional rights", "Dual BSD/GPL",
		"Dual MIT/GPL", "Dual MPL/GPL",
	};
	static const char *const no[] = {
		"gpl", "GPLv2", "GPL-2.0", "GPL ", " GPL", "", "GPL v3",
		"GPL-2.0-only", "Dual MIT/GPL ", "MIT", "Proprietary", "unspecified",
		"CDDL",
	};
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL;

	assert_int_equal(tg_policy_load_path(DEFAULT_POLICY, NULL, &p, &err), 0);
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		assert_true(tg_policy_license_gpl_compatible(p, TG_KVER(6, 1, 0), yes[i]));
		assert_true(tg_policy_license_gpl_compatible(p, 0, yes[i]));
		assert_true(tg_policy_license_gpl_compatible(NULL, TG_KVER(6, 1, 0), yes[i]));
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		assert_false(tg_policy_license_gpl_compatible(p, TG_KVER(6, 1, 0), no[i]));
		assert_false(tg_policy_license_gpl_compatible(p, 0, no[i]));
	}
	assert_false(tg_policy_license_gpl_compatible(p, 0, NULL));
	/* entries are keyed by kernel version: 2.4 is outside ">= 2.6.0" */
	assert_false(tg_policy_license_gpl_compatible(p, TG_KVER(2, 4, 0), "GPL"));
	tg_policy_free(p);
}

static void test_forced_taint(void **state)
{
	const struct tg_forced_taint *ft;
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL;
	unsigned k61 = TG_KVER(6, 1, 0);

	assert_int_equal(tg_policy_load_path(DEFAULT_POLICY, NULL, &p, &err), 0);

	ft = tg_policy_forced_taint(p, k61, "lve");
	assert_non_null(ft);
	assert_string_equal(ft->name, "lve");
	assert_int_equal(ft->flag, 'P');
	assert_true(ft->module_scope);
	assert_false(ft->advisory);
	assert_string_equal(ft->kernels, ">= 3.5");
	assert_string_equal(ft->reason, "lve claims to be GPL but upstream won't provide source");

	ft = tg_policy_forced_taint(p, k61, "driverloader");
	assert_non_null(ft);
	assert_true(ft->module_scope);
	assert_false(ft->advisory);
	assert_string_equal(ft->reason, "driverloader was caught wrongly pretending to be under GPL");

	ft = tg_policy_forced_taint(p, k61, "ndiswrapper");
	assert_non_null(ft);
	assert_false(ft->module_scope);
	assert_false(ft->advisory);
	assert_int_equal(ft->flag, 'P');

	/* strcmp, like the kernel */
	assert_null(tg_policy_forced_taint(p, k61, "LVE"));
	assert_null(tg_policy_forced_taint(p, k61, "lve "));
	assert_null(tg_policy_forced_taint(p, k61, "lv"));
	assert_null(tg_policy_forced_taint(p, k61, "e1000e"));
	assert_null(tg_policy_forced_taint(p, k61, NULL));
	/* lve joined the list in 3.5; unknown kernel (0) matches every range */
	assert_null(tg_policy_forced_taint(p, TG_KVER(3, 4, 0), "lve"));
	assert_non_null(tg_policy_forced_taint(p, 0, "lve"));

	/* advisory names are reported, flagged as such */
	ft = tg_policy_forced_taint(p, k61, "clevo_acpi");
	assert_non_null(ft);
	assert_true(ft->advisory);
	assert_string_equal(ft->name, "clevo_acpi");
	assert_int_equal(ft->flag, 'P');
	ft = tg_policy_forced_taint(p, k61, "tuxedo_keyboard");
	assert_non_null(ft);
	assert_true(ft->advisory);
	assert_null(tg_policy_forced_taint(p, k61, "tuxedo-keyboard"));

	/* NULL policy = built-in */
	ft = tg_policy_forced_taint(NULL, k61, "lve");
	assert_non_null(ft);
	assert_true(ft->module_scope);
	tg_policy_free(p);
}

static void test_kernel_entries_in_range_win(void **state)
{
	struct tg_policy *p = load_text(
		"taintguard-policy: 1\n"
		"kernel:\n"
		"  forced_taint:\n"
		"    - {name: foo, scope: kernel, kernels: \"< 5.0\", reason: old}\n"
		"    - {name: foo, scope: module, kernels: \">= 5.0\", reason: new}\n"
		"  advisory:\n"
		"    - {names: [foo, bar], reason: hist, status: proposed}\n");
	const struct tg_forced_taint *ft;

	ft = tg_policy_forced_taint(p, TG_KVER(4, 19, 0), "foo");
	assert_string_equal(ft->reason, "old");
	assert_false(ft->module_scope);
	ft = tg_policy_forced_taint(p, TG_KVER(6, 1, 0), "foo");
	assert_string_equal(ft->reason, "new");
	assert_true(ft->module_scope);
	ft = tg_policy_forced_taint(p, TG_KVER(6, 1, 0), "bar");
	assert_true(ft->advisory);
	assert_true(ft->module_scope);
	assert_string_equal(ft->kernels, "any");
	/* the file replaced the built-in list */
	assert_null(tg_policy_forced_taint(p, TG_KVER(6, 1, 0), "lve"));
	/* but kept the built-in licence strings */
	assert_true(tg_policy_license_gpl_compatible(p, TG_KVER(6, 1, 0), "GPL"));
	tg_policy_free(p);
}

/* ----------------------------------------------------------- decisions */

static void decide(const struct tg_policy *p, const struct tg_facts *f,
		   enum tg_action action, const char *rule)
{
	struct tg_decision d = { 0 };

	tg_policy_decide(p, f, &d);
	assert_string_equal(tg_action_name(d.action), tg_action_name(action));
	assert_string_equal(d.rule, rule);
}

static void test_decide_default(void **state)
{
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL;
	struct tg_facts f;
	unsigned P = TG_TAINT_BIT(TG_TAINT_PROPRIETARY);
	unsigned OE = TG_TAINT_BIT(TG_TAINT_OOT) | TG_TAINT_BIT(TG_TAINT_UNSIGNED);

	assert_int_equal(tg_policy_load_path(DEFAULT_POLICY, NULL, &p, &err), 0);

	f = (struct tg_facts){ .module = "e1000e", .kversion = TG_KVER(6, 1, 0) };
	decide(p, &f, TG_ACTION_ALLOW, "default");
	f.taint = OE;
	decide(p, &f, TG_ACTION_ALLOW, "default");
	f.taint = P | OE;
	decide(p, &f, TG_ACTION_MARK, "proprietary");
	f.incomplete = true;
	decide(p, &f, TG_ACTION_MARK, "proprietary");
	f.taint = OE;
	decide(p, &f, TG_ACTION_MARK, "incomplete-check");
	f.forced_taint = true;
	decide(p, &f, TG_ACTION_DENY, "forced-taint-list");
	f.refused = true;
	decide(p, &f, TG_ACTION_DENY, "refused-by-kernel");
	f = (struct tg_facts){ .error = true };
	decide(p, &f, TG_ACTION_DENY, "unreadable");
	/* advisory names are not acted on by default */
	f = (struct tg_facts){ .module = "clevo_acpi", .advisory = true };
	decide(p, &f, TG_ACTION_ALLOW, "default");
	decide(NULL, &f, TG_ACTION_ALLOW, "default");
	tg_policy_free(p);
}

static void test_decide_rules(void **state)
{
	struct tg_policy *p = load_text(
		"taintguard-policy: 1\n"
		"rules:\n"
		"  - name: tuxedo\n"
		"    when: {advisory: true}\n"
		"    action: mark\n"
		"  - name: nvidia-new\n"
		"    when: {module: \"nvidia*\", package: \"kmod-nvidia*\", kernels: \">= 6.6\"}\n"
		"    action: deny\n"
		"  - name: staging-or-test\n"
		"    when: {taint: CN}\n"
		"    action: mark\n"
		"  - name: clean-only\n"
		"    when: {refused: false, error: false}\n"
		"    action: allow\n"
		"default: deny\n");
	struct tg_facts f = { .module = "nvidia", .package = "kmod-nvidia-535",
			      .kversion = TG_KVER(6, 6, 1) };

	decide(p, &f, TG_ACTION_DENY, "nvidia-new");
	f.kversion = TG_KVER(6, 1, 0);
	decide(p, &f, TG_ACTION_ALLOW, "clean-only");
	f.kversion = 0;		/* unknown kernel: ranges match */
	decide(p, &f, TG_ACTION_DENY, "nvidia-new");
	f.package = NULL;	/* a package glob never matches a plain file */
	decide(p, &f, TG_ACTION_ALLOW, "clean-only");
	f.taint = TG_TAINT_BIT(TG_TAINT_TEST);
	decide(p, &f, TG_ACTION_MARK, "staging-or-test");
	f.advisory = true;
	decide(p, &f, TG_ACTION_MARK, "tuxedo");
	f = (struct tg_facts){ .refused = true };
	decide(p, &f, TG_ACTION_DENY, "default");
	tg_policy_free(p);
}

static void test_exceptions(void **state)
{
	struct tg_policy *p = load_text(
		"taintguard-policy: 1\n"
		"exceptions:\n"
		"  - package: \"zfs-dkms*\"\n"
		"    module: \"z*\"\n"
		"    kernels: \">= 5.0\"\n"
		"    action: mark\n"
		"    justification: \"CDDL, known and accepted\"\n"
		"  - module: openafs\n"
		"    action: mark\n"
		"    justification: \"IBM Public License 1.0, long tolerated\"\n"
		"  - package: \"broadcom-sta*\"\n"
		"    action: deny\n"
		"    justification: \"site rule: no wl.ko\"\n"
		"  - name: lab-lve\n"
		"    module: lve\n"
		"    action: allow\n"
		"    justification: \"lab machines only\"\n");
	struct tg_decision d = { 0 };
	struct tg_facts f = { .package = "zfs-dkms", .module = "zfs",
			      .kversion = TG_KVER(6, 1, 0),
			      .taint = TG_TAINT_BIT(TG_TAINT_PROPRIETARY) };

	tg_policy_decide(p, &f, &d);
	assert_int_equal(d.action, TG_ACTION_MARK);
	assert_string_equal(d.rule, "exception:z*");
	assert_string_equal(d.justification, "CDDL, known and accepted");

	/* all given fields must match: kernel 4.19 is outside the range */
	f.kversion = TG_KVER(4, 19, 0);
	tg_policy_decide(p, &f, &d);
	assert_string_equal(d.rule, "proprietary");
	assert_null(d.justification);
	/* and so must the package */
	f = (struct tg_facts){ .package = "other", .module = "zfs" };
	decide(p, &f, TG_ACTION_ALLOW, "default");

	f = (struct tg_facts){ .module = "openafs", .taint = TG_TAINT_BIT(TG_TAINT_PROPRIETARY) };
	decide(p, &f, TG_ACTION_MARK, "exception:openafs");
	f = (struct tg_facts){ .package = "broadcom-sta-dkms", .module = "wl" };
	decide(p, &f, TG_ACTION_DENY, "exception:3");
	/* exceptions come before the rules */
	f = (struct tg_facts){ .module = "lve", .forced_taint = true };
	tg_policy_decide(p, &f, &d);
	assert_int_equal(d.action, TG_ACTION_ALLOW);
	assert_string_equal(d.rule, "exception:lab-lve");
	assert_string_equal(d.justification, "lab machines only");
	tg_policy_free(p);
}

/* Guard findings: the guard action, and only exceptions that name a file. */
static void test_guard(void **state)
{
	struct tg_policy *p = load_text(
		"taintguard-policy: 1\n"
		"rules:\n"
		"  - {name: everything, action: allow}\n"
		"exceptions:\n"
		"  - package: \"site-rpm-config\"\n"
		"    action: allow\n"
		"    justification: \"for its modules only\"\n"
		"  - name: site-macros\n"
		"    package: \"site-rpm-config\"\n"
		"    file: \"/etc/rpm/macros.site*\"\n"
		"    action: allow\n"
		"    justification: \"sets %_taintguard_jobs\"\n"
		"  - file: \"/usr/lib/rpm/macros.d/macros.vendor\"\n"
		"    action: mark\n"
		"    justification: \"vendor tuning\"\n");
	struct tg_decision d = { 0 };
	struct tg_facts f = { .package = "site-rpm-config", .module = "x" };

	/* a policy without guard: keeps the built-in deny, whatever its rules say */
	tg_policy_decide_file(p, "innocent-tuning", "/etc/rpm/macros.zz-tuning", &d);
	assert_int_equal(d.action, TG_ACTION_DENY);
	assert_string_equal(d.rule, "guard");
	assert_null(d.justification);
	/* the package-only exception is for its modules, never for its files */
	tg_policy_decide(p, &f, &d);
	assert_string_equal(d.rule, "exception:1");
	tg_policy_decide_file(p, "site-rpm-config", "/etc/rpm/macros.zz", &d);
	assert_int_equal(d.action, TG_ACTION_DENY);
	assert_string_equal(d.rule, "guard");
	/* file and package must both match */
	tg_policy_decide_file(p, "site-rpm-config", "/etc/rpm/macros.site", &d);
	assert_int_equal(d.action, TG_ACTION_ALLOW);
	assert_string_equal(d.rule, "exception:site-macros");
	assert_string_equal(d.justification, "sets %_taintguard_jobs");
	tg_policy_decide_file(p, "other", "/etc/rpm/macros.site", &d);
	assert_int_equal(d.action, TG_ACTION_DENY);
	/* a file-only exception, any package (and an unknown one) */
	tg_policy_decide_file(p, NULL, "/usr/lib/rpm/macros.d/macros.vendor", &d);
	assert_int_equal(d.action, TG_ACTION_MARK);
	assert_string_equal(d.rule, "exception:/usr/lib/rpm/macros.d/macros.vendor");
	/* a file exception never decides for a module */
	f = (struct tg_facts){ .package = "x", .module = "/usr/lib/rpm/macros.d/macros.vendor" };
	tg_policy_decide(p, &f, &d);
	assert_string_equal(d.rule, "everything");
	tg_policy_free(p);

	p = load_text("taintguard-policy: 1\nguard: {action: mark}\n");
	tg_policy_decide_file(p, "a", "/etc/taintguard/policy.yaml", &d);
	assert_int_equal(d.action, TG_ACTION_MARK);
	tg_policy_free(p);
	/* the built-in policy denies */
	tg_policy_decide_file(NULL, "a", "/etc/taintguard/policy.yaml", &d);
	assert_int_equal(d.action, TG_ACTION_DENY);
	assert_string_equal(d.rule, "guard");
}

/* refuse_scope: package unless a policy says transaction; anything else is an error. */
static void test_refuse_scope(void **state)
{
	struct tg_policy *p = load_text("taintguard-policy: 1\n");

	(void)state;
	assert_int_equal(tg_policy_refuse_scope(p), TG_SCOPE_PACKAGE);
	tg_policy_free(p);
	p = load_text("taintguard-policy: 1\nrefuse_scope: transaction\n");
	assert_int_equal(tg_policy_refuse_scope(p), TG_SCOPE_TRANSACTION);
	assert_string_equal(tg_refuse_scope_name(tg_policy_refuse_scope(p)), "transaction");
	tg_policy_free(p);
	p = load_text("taintguard-policy: 1\nrefuse_scope: package\n");
	assert_int_equal(tg_policy_refuse_scope(p), TG_SCOPE_PACKAGE);
	tg_policy_free(p);
	assert_int_equal(tg_policy_refuse_scope(NULL), TG_SCOPE_PACKAGE);
	expect_error("taintguard-policy: 1\nrefuse_scope: all\n",
		     "t.yaml:2:15: refuse_scope must be package or transaction, not 'all'");
}

static void test_trusted_keys(void **state)
{
	struct tg_policy *p = load_text(
		"taintguard-policy: 1\n"
		"trusted_keys: [\"Example Corp kmod signing/1A:2b:3C\", \"a/b/CC\", \"0F:A1\"]\n");
	const char *const *keys;

	assert_int_equal(tg_policy_trusted_keys(p, &keys), 3);
	assert_string_equal(keys[2], "0F:A1");
	assert_string_equal(keys[0], "Example Corp kmod signing/1A:2b:3C");
	assert_string_equal(keys[1], "a/b/CC");
	tg_policy_free(p);
	assert_int_equal(tg_policy_trusted_keys(NULL, &keys), 0);
}

/* -------------------------------------------------------------- errors */

static void test_err_structure(void **state)
{
	expect_error("", "t.yaml:1:1: empty policy");
	expect_error("- a\n", "t.yaml:1:1: the policy must be a mapping, not a list");
	expect_error("rules: []\n",
		     "t.yaml:1:1: the policy: missing required key 'taintguard-policy'");
	expect_error("taintguard-policy: 2\n",
		     "t.yaml:1:20: unsupported policy version '2' (expected 1)");
	expect_error("taintguard-policy: \"1\"\n",
		     "t.yaml:1:20: unsupported policy version '1' (expected 1)");
	expect_error("taintguard-policy: 1\nfoo: bar\n",
		     "t.yaml:2:1: unknown key 'foo' in the policy");
	expect_error("taintguard-policy: 1\nkernel:\n  forced_taints: []\n",
		     "t.yaml:3:3: unknown key 'forced_taints' in kernel");
	expect_error("taintguard-policy: 1\nrules:\n  - name: a\n    action: deny\n    whne: {}\n",
		     "t.yaml:5:5: unknown key 'whne' in a rule");
	expect_error("taintguard-policy: 1\ndefault: allow\ndefault: deny\n",
		     "t.yaml:3:1: duplicate key 'default' (first at line 2)");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny, when: {error: true, error: false}}\n",
		     "t.yaml:3:49: duplicate key 'error' (first at line 3)");
	expect_error("taintguard-policy: 1\n---\ntaintguard-policy: 1\n",
		     "t.yaml:2:1: a policy must be exactly one YAML document");
}

static void test_err_types(void **state)
{
	expect_error("taintguard-policy: 1\nrules: 5\n",
		     "t.yaml:2:8: rules must be a list, not a scalar");
	expect_error("taintguard-policy: 1\nrules:\n  - name: a\n    action: deny\n    when: error\n",
		     "t.yaml:5:11: when must be a mapping, not a scalar");
	expect_error("taintguard-policy: 1\nrules:\n  - name: a\n    action: deny\n    when:\n",
		     "t.yaml:5:10: when must be a mapping, not empty");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny, when: {error: yes}}\n",
		     "t.yaml:3:43: error must be true or false");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny, when: {error: \"true\"}}\n",
		     "t.yaml:3:43: error must be true or false");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: [a], action: deny}\n",
		     "t.yaml:3:12: name must be a string, not a list");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: ~, action: deny}\n",
		     "t.yaml:3:12: name must be a string, not empty");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: \"\", action: deny}\n",
		     "t.yaml:3:12: name must not be empty");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a}\n",
		     "t.yaml:3:5: a rule: missing required key 'action'");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny}\n  - {name: a, action: mark}\n",
		     "t.yaml:4:5: duplicate rule name 'a'");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: default, action: deny}\n",
		     "t.yaml:3:5: rule name 'default' is reserved");
	expect_error("taintguard-policy: 1\n{a: 1}: 2\n",
		     "t.yaml:2:1: mapping keys must be plain strings");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: \"a\\0b\", action: deny}\n",
		     "t.yaml:3:12: NUL character in a string");
}

static void test_err_values(void **state)
{
	expect_error("taintguard-policy: 1\ndefault: block\n",
		     "t.yaml:2:10: invalid action 'block' (expected allow, mark or deny)");
	expect_error("taintguard-policy: 1\ndefault: Deny\n",
		     "t.yaml:2:10: invalid action 'Deny' (expected allow, mark or deny)");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny, when: {taint: PX}}\n",
		     "t.yaml:3:43: invalid taint letter 'X' (expected some of PFCOEKN)");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny, when: {taint: p}}\n",
		     "t.yaml:3:43: invalid taint letter 'p' (expected some of PFCOEKN)");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: a, action: deny, when: {kernels: \"~> 5\"}}\n",
		     "t.yaml:3:45: invalid kernel version range '~> 5' (expected e.g. \">= 5.4, < 6.8\")");
	expect_error("taintguard-policy: 1\nexceptions:\n  - {module: zfs, action: mark, kernels: \">= five\", justification: x}\n",
		     "t.yaml:3:42: invalid kernel version range '>= five' (expected e.g. \">= 5.4, < 6.8\")");
	expect_error("taintguard-policy: 1\nkernel:\n  forced_taint:\n    - {name: x, scope: global, reason: r}\n",
		     "t.yaml:4:24: invalid scope 'global' (expected module or kernel)");
	expect_error("taintguard-policy: 1\nkernel:\n  forced_taint:\n    - {name: x, flag: PO, scope: module, reason: r}\n",
		     "t.yaml:4:23: invalid taint flag 'PO' (expected one of PFCOEKN)");
	expect_error("taintguard-policy: 1\nkernel:\n  forced_taint:\n    - {name: x, scope: module}\n",
		     "t.yaml:4:7: a forced_taint entry: missing required key 'reason'");
	expect_error("taintguard-policy: 1\nkernel:\n  advisory:\n    - {names: [], reason: r}\n",
		     "t.yaml:4:7: an advisory entry needs at least one name");
	expect_error("taintguard-policy: 1\ntrusted_keys: [\"nokeyid\"]\n",
		     "t.yaml:2:16: trusted key 'nokeyid' must be \"SIGNER/KEYID\" or \"KEYID\", KEYID as hex bytes \"AA:BB:...\"");
	expect_error("taintguard-policy: 1\ntrusted_keys: [\"me/GG:00\"]\n",
		     "t.yaml:2:16: trusted key 'me/GG:00' must be \"SIGNER/KEYID\" or \"KEYID\", KEYID as hex bytes \"AA:BB:...\"");
	expect_error("taintguard-policy: 1\ntrusted_keys: [\"/AB\"]\n",
		     "t.yaml:2:16: trusted key '/AB' must be \"SIGNER/KEYID\" or \"KEYID\", KEYID as hex bytes \"AA:BB:...\"");
}

static void test_err_exceptions(void **state)
{
	expect_error("taintguard-policy: 1\n"
		     "exceptions:\n"
		     "  - package: \"zfs-dkms*\"\n"
		     "    action: mark\n",
		     "t.yaml:3:5: an exception: missing required key 'justification'");
	expect_error("taintguard-policy: 1\n"
		     "exceptions:\n"
		     "  - package: \"zfs-dkms*\"\n"
		     "    action: mark\n"
		     "    justification:\n",
		     "t.yaml:5:19: justification must be a string, not empty");
	expect_error("taintguard-policy: 1\n"
		     "exceptions:\n"
		     "  - {action: allow, justification: \"everything\"}\n",
		     "t.yaml:3:5: an exception needs 'package', 'module' or 'file'");
	expect_error("taintguard-policy: 1\n"
		     "exceptions:\n"
		     "  - {file: \"/etc/rpm/*\", module: lve, action: allow, justification: \"x\"}\n",
		     "t.yaml:3:5: an exception with 'file' (a guard finding) cannot have 'module' or 'kernels'");
	expect_error("taintguard-policy: 1\nguard: {action: maybe}\n",
		     "t.yaml:2:17: invalid action 'maybe' (expected allow, mark or deny)");
	expect_error("taintguard-policy: 1\nguard: {}\n",
		     "t.yaml:2:8: guard: missing required key 'action'");
	expect_error("taintguard-policy: 1\nguard: {action: deny, files: x}\n",
		     "t.yaml:2:23: unknown key 'files' in guard");
	expect_error("taintguard-policy: 1\nrules:\n  - {name: guard, action: deny}\n",
		     "t.yaml:3:5: rule name 'guard' is reserved");
	expect_error("taintguard-policy: 1\n"
		     "exceptions:\n"
		     "  - {module: zfs, justification: \"CDDL\"}\n",
		     "t.yaml:3:5: an exception: missing required key 'action'");
}

static void test_err_yaml_features(void **state)
{
	expect_error("taintguard-policy: 1\ndefault: &a allow\n",
		     "t.yaml:2:10: anchors are not allowed in a policy");
	expect_error("taintguard-policy: 1\nrules: &r []\nexceptions: *r\n",
		     "t.yaml:2:8: anchors are not allowed in a policy");
	expect_error("taintguard-policy: 1\ndefault: *a\n",
		     "t.yaml:2:10: aliases are not allowed in a policy");
	/* the classic alias bomb dies at its first anchor */
	expect_error("a: &a [\"lol\",\"lol\"]\nb: &b [*a,*a,*a,*a]\nc: [*b,*b,*b,*b]\n",
		     "t.yaml:1:4: anchors are not allowed in a policy");
	expect_error("taintguard-policy: 1\ndefault: !!str allow\n",
		     "t.yaml:2:10: tags are not allowed in a policy");
	expect_error("taintguard-policy: 1\nrules: !!seq []\n",
		     "t.yaml:2:8: tags are not allowed in a policy");
	expect_error("%TAG ! tag:example.com,2000:\n---\ntaintguard-policy: 1\n",
		     "t.yaml:1:1: %TAG directives are not allowed in a policy");
}

static void test_err_libyaml(void **state)
{
	expect_error("taintguard-policy: 1\ndefault: allow: deny\n",
		     "t.yaml:2:15: mapping values are not allowed in this context");
	expect_error("taintguard-policy: 1\nrules: [\n",
		     "t.yaml:3:1: did not find expected node content (while parsing a flow node at line 3)");
	expect_error("taintguard-policy: 1\ndefault: \"allow\n",
		     "t.yaml:3:1: found unexpected end of stream (while scanning a quoted scalar at line 2)");
	expect_error("taintguard-policy: 1\ndefault: @allow\n",
		     "t.yaml:2:10: found character that cannot start any token (while scanning for the next token at line 2)");
	expect_error("taintguard-policy: 1\ndefault: \xff\n",
		     "t.yaml:2:10: invalid leading UTF-8 octet");
}

static void test_err_limits(void **state)
{
	struct tg_limits lim;
	char *deep;
	size_t n = 0;

	tg_limits_default(&lim);
	lim.max_policy_size = 10;
	expect_error_lim("taintguard-policy: 1\n", &lim, -EFBIG,
			 "t.yaml: policy is 21 bytes, larger than the limit of 10");

	/* 100 nested flow sequences: refused at the depth limit (32) */
	deep = malloc(300);
	n += (size_t)sprintf(deep, "taintguard-policy: 1\nrules: ");
	for (int i = 0; i < 100; i++)
		deep[n++] = '[';
	for (int i = 0; i < 100; i++)
		deep[n++] = ']';
	deep[n++] = '\n';
	deep[n] = '\0';
	expect_error_lim(deep, NULL, -E2BIG, "t.yaml:2:39: nested deeper than 32 levels");
	free(deep);

	/* block style nesting counts the same way */
	{
		char buf[8192];
		size_t o = 0;

		for (int i = 0; i < 100; i++)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%*sk%d:\n", i, "", i);
		expect_error_lim(buf, NULL, -E2BIG, "t.yaml:33:33: nested deeper than 32 levels");
	}
}

/* ---------------------------------------------------------- round trip */

static void test_round_trip(void **state)
{
	static const char text[] =
		"taintguard-policy: 1\n"
		"kernel:\n"
		"  gpl_compatible_licenses:\n"
		"    - strings: [\"GPL\"]\n"
		"    - kernels: \">= 6.0, < 7\"\n"
		"      strings: [\"Dual \\\"odd\\\" \\\\ one\", \"tab\\there\", \"ünï\"]\n"
		"  forced_taint: []\n"
		"  advisory:\n"
		"    - names: [a, b]\n"
		"      scope: kernel\n"
		"      flag: O\n"
		"      kernels: \"< 6.1\"\n"
		"      reason: \"# not a comment: really\"\n"
		"trusted_keys: [\"MOK signer/AB:CD\"]\n"
		"rules:\n"
		"  - name: always\n"
		"    action: mark\n"
		"  - name: mixed\n"
		"    when: {refused: false, taint: NOP, module: \"x*\", package: \"y?\", kernels: any}\n"
		"    action: deny\n"
		"  - name: only-glob\n"
		"    when: {module: \"[ab]*\"}\n"
		"    action: allow\n"
		"default: mark\n"
		"exceptions:\n"
		"  - {name: n, module: m, action: allow, justification: \"j: yes\"}\n"
		"  - {package: \"p*\", kernels: \"== 5.10.0\", action: deny, justification: 'it''s'}\n"
		"  - {package: \"q\", file: \"/etc/rpm/*\", action: mark, justification: f}\n"
		"guard:\n"
		"  action: mark\n";
	struct tg_policy *p = load_text(text), *q;
	struct tg_facts f = { .module = "mod" };
	struct tg_decision d;
	char *a, *b;

	a = dump_body(p);
	q = load_text(a);
	b = dump_body(q);
	assert_string_equal(a, b);
	/* the reloaded policy behaves the same */
	tg_policy_decide(q, &f, &d);
	assert_string_equal(d.rule, "always");
	f.module = "m";
	tg_policy_decide(q, &f, &d);
	assert_string_equal(d.rule, "exception:n");
	assert_string_equal(d.justification, "j: yes");
	assert_true(tg_policy_license_gpl_compatible(q, TG_KVER(6, 5, 0), "tab\there"));
	assert_true(tg_policy_license_gpl_compatible(q, TG_KVER(6, 5, 0), "Dual \"odd\" \\ one"));
	assert_false(tg_policy_license_gpl_compatible(q, TG_KVER(5, 5, 0), "tab\there"));
	assert_true(tg_policy_forced_taint(q, TG_KVER(6, 0, 0), "b")->advisory);
	assert_null(tg_policy_forced_taint(q, TG_KVER(6, 1, 0), "b"));
	free(a);
	free(b);
	tg_policy_free(q);
	tg_policy_free(p);

	/* the default policy round-trips too */
	p = load_text("taintguard-policy: 1\n");
	a = dump_body(p);
	q = load_text(a);
	b = dump_body(q);
	assert_string_equal(a, b);
	free(a);
	free(b);
	tg_policy_free(q);
	tg_policy_free(p);
}

static void test_load_path_errors(void **state)
{
	struct tg_error err = { 0 };
	struct tg_policy *p = (struct tg_policy *)1;

	assert_int_equal(tg_policy_load_path("/nonexistent/policy.yaml", NULL, &p, &err), -ENOENT);
	assert_null(p);
	assert_string_equal(err.msg, "/nonexistent/policy.yaml: No such file or directory");
	tg_policy_free(NULL);
	assert_string_equal(tg_action_name(TG_ACTION_ALLOW), "allow");
	assert_string_equal(tg_action_name(TG_ACTION_MARK), "mark");
	assert_string_equal(tg_action_name(TG_ACTION_DENY), "deny");
}

/* Run as root, a policy non-root users can change is refused (it decides what root installs). */
static void test_policy_trust(void **state)
{
	char dir[] = "/tmp/tg-trust.XXXXXX", file[64];
	struct tg_error err = { 0 };
	struct tg_policy *p = NULL;
	FILE *f;

	(void)state;
	if (geteuid() != 0)
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(file, sizeof(file), "%s/policy.yaml", dir);
	f = fopen(file, "w");
	fputs("taintguard-policy: 1\n", f);
	fclose(f);
	chmod(file, 0644);
	assert_int_equal(tg_policy_load_path(file, NULL, &p, &err), 0);
	tg_policy_free(p);
	chmod(file, 0664);	/* group-writable */
	assert_int_equal(tg_policy_load_path(file, NULL, &p, &err), -EPERM);
	assert_null(p);
	assert_non_null(strstr(err.msg, "policy file is writable by non-root users"));
	assert_int_equal(strncmp(err.msg, file, strlen(file)), 0);
	chmod(file, 0644);
	assert_int_equal(chown(file, 65534, 0), 0);	/* owned by nobody */
	assert_int_equal(tg_policy_load_path(file, NULL, &p, &err), -EPERM);
	assert_int_equal(chown(file, 0, 0), 0);
	chmod(dir, 0777);	/* anyone could replace it */
	assert_int_equal(tg_policy_load_path(file, NULL, &p, &err), -EPERM);
	assert_non_null(strstr(err.msg, "the directory"));
	chmod(dir, 01777);	/* sticky, like /tmp: a root-owned file stays */
	assert_int_equal(tg_policy_load_path(file, NULL, &p, &err), 0);
	tg_policy_free(p);
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_loads),
		cmocka_unit_test(test_default_path),
		cmocka_unit_test(test_gpl_compatible),
		cmocka_unit_test(test_forced_taint),
		cmocka_unit_test(test_kernel_entries_in_range_win),
		cmocka_unit_test(test_decide_default),
		cmocka_unit_test(test_decide_rules),
		cmocka_unit_test(test_exceptions),
		cmocka_unit_test(test_guard),
		cmocka_unit_test(test_refuse_scope),
		cmocka_unit_test(test_trusted_keys),
		cmocka_unit_test(test_err_structure),
		cmocka_unit_test(test_err_types),
		cmocka_unit_test(test_err_values),
		cmocka_unit_test(test_err_exceptions),
		cmocka_unit_test(test_err_yaml_features),
		cmocka_unit_test(test_err_libyaml),
		cmocka_unit_test(test_err_limits),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_load_path_errors),
		cmocka_unit_test(test_policy_trust),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
