/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The loader's rules of lib/predict.c, one by one, on hand-made facts: a
 * module and a target kernel built here field by field (no kbuild, no file
 * of the host), the symbol table a resolver of this file.  Every test starts
 * from a module the kernel loads without a taint and changes the facts of
 * one rule (docs/loader-rules.md, R1-R14), on both sides of the kernel
 * release that brought it where it has one.
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

#include "module_internal.h"
#include "predict.h"
#include "vendor_rhel.h"

#define EM_X86_64_ 62
#define EM_AARCH64_ 183
#define RELEASE "6.1.0-57-amd64"
#define VERMAGIC RELEASE " SMP preempt mod_unload modversions "
#define LAYOUT_CRC 0x9060323fu

/* One export the resolver knows, as find_symbol() would find it. */
struct sym {
	const char *name;
	struct tg_resolved r;
};

static struct {
	struct tg_module_priv mp;	/* what the module reader allocates */
	struct tg_modinfo mi[16];
	struct tg_import imp[16];
	struct tg_version ver[16];
	struct tg_export exp[8];
	char *problems[2];
	struct tg_kernel k;
	struct sym syms[16];
	size_t n_syms;
	bool no_table;		/* the resolver knows nothing (no Module.symvers) */
	const char *dup_name, *dup_owner;
	struct tg_verdict v;
} fx;

#define M (&fx.mp.pub)

/* ------------------------------------------------------------ the facts */

static void set_info(const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < M->n_modinfo && strcmp(M->modinfo[i].key, key); i++)
		;
	if (!value) {
		if (i < M->n_modinfo) {
			memmove(&M->modinfo[i], &M->modinfo[i + 1],
				(M->n_modinfo - i - 1) * sizeof(M->modinfo[0]));
			M->n_modinfo--;
		}
		return;
	}
	assert_true(i < TG_ARRAY_SIZE(fx.mi));
	M->modinfo[i] = (struct tg_modinfo){ .key = (char *)key, .value = (char *)value };
	if (i == M->n_modinfo)
		M->n_modinfo++;
}

static void add_info(const char *key, const char *value)
{
	assert_true(M->n_modinfo < TG_ARRAY_SIZE(fx.mi));
	M->modinfo[M->n_modinfo++] = (struct tg_modinfo){ .key = (char *)key, .value = (char *)value };
}

static void add_import(const char *name, bool weak)
{
	assert_true(M->n_imports < TG_ARRAY_SIZE(fx.imp));
	M->imports[M->n_imports++] = (struct tg_import){ .name = (char *)name, .weak = weak };
}

static void add_version(const char *name, uint32_t crc)
{
	assert_true(M->n_versions < TG_ARRAY_SIZE(fx.ver));
	M->versions[M->n_versions++] = (struct tg_version){ .name = (char *)name, .crc = crc };
}

static void add_export(const char *name, bool has_crc)
{
	assert_true(M->n_exports < TG_ARRAY_SIZE(fx.exp));
	M->exports[M->n_exports++] = (struct tg_export){ .name = (char *)name, .has_crc = has_crc };
	M->exports_have_crcs = has_crc;
}

/* An export of vmlinux (or of @owner), with its CRC and namespace. */
static struct tg_resolved *add_sym(const char *name, bool gpl_only, uint32_t crc, const char *ns)
{
	struct sym *s;

	assert_true(fx.n_syms < TG_ARRAY_SIZE(fx.syms));
	s = &fx.syms[fx.n_syms++];
	s->name = name;
	s->r = (struct tg_resolved){ .found = true, .gpl_only = gpl_only, .has_crc = crc != 0,
				     .crc = crc, .ns = ns, .owner = "vmlinux", .owner_loads = true };
	return &s->r;
}

/* A symbol this module imports, its version record and the kernel's export. */
static struct tg_resolved *use_sym(const char *name, bool gpl_only, uint32_t crc)
{
	add_import(name, false);
	add_version(name, crc);
	return add_sym(name, gpl_only, crc, NULL);
}

static void set_kv(unsigned a, unsigned b, unsigned c)
{
	fx.k.version = TG_KVER(a, b, c);
}

static int setup(void **state)
{
	memset(&fx, 0, sizeof(fx));
	M->label = "/tmp/tgtest.ko";
	M->file_modname = "tgtest";
	M->name = "tgtest";
	M->elf_class = 64;
	M->e_machine = EM_X86_64_;
	M->arch = "x86_64";
	M->this_module_size = 896;
	M->n_this_module_sections = M->n_modinfo_sections = M->n_symtab_sections = 1;
	M->modinfo = fx.mi;
	M->imports = fx.imp;
	M->versions = fx.ver;
	M->exports = fx.exp;
	M->versions_kind = TG_VERS_BASIC;
	add_info("license", "GPL");
	add_info("intree", "Y");
	add_info("retpoline", "Y");
	add_info("vermagic", VERMAGIC);
	add_version("module_layout", LAYOUT_CRC);

	/* Debian 12's 6.1 as its .config says, modules unsigned-tolerant */
	fx.k.release = RELEASE;
	fx.k.version = TG_KVER(6, 1, 0);
	fx.k.modversions = TG_YES;
	fx.k.module_sig = TG_NO;
	fx.k.sig_force = TG_NO;
	fx.k.force_load = TG_YES;
	fx.k.allow_missing_ns = TG_NO;
	fx.k.livepatch = TG_YES;
	fx.k.retpoline = TG_YES;
	fx.k.vermagic = VERMAGIC;
	fx.k.this_module_size = 896;
	fx.k.e_machine = EM_X86_64_;
	return 0;
}

static int teardown(void **state)
{
	free(fx.mp.versions_slots);
	tg_symvers_free(fx.k.symvers);
	tg_verdict_free_contents(&fx.v);
	return 0;
}

/* -------------------------------------------------------- the resolver */

static bool resolve(void *data, const char *name, struct tg_resolved *r)
{
	if (fx.no_table)
		return false;
	for (size_t i = 0; i < fx.n_syms; i++)
		if (!strcmp(fx.syms[i].name, name)) {
			*r = fx.syms[i].r;
			return true;
		}
	r->found = false;
	return true;
}

static bool duplicate(void *data, const char *name, const char **owner)
{
	if (!fx.dup_name || strcmp(fx.dup_name, name))
		return false;
	*owner = fx.dup_owner;
	return true;
}

/* --------------------------------------------------------- predictions */

static void predict(void)
{
	static const struct tg_predict_ctx ctx = { resolve, duplicate, NULL };

	free(fx.mp.versions_slots);
	fx.mp.versions_slots = NULL;
	assert_int_equal(tg_module_index_versions(M), 0);
	tg_verdict_free_contents(&fx.v);
	memset(&fx.v, 0, sizeof(fx.v));
	assert_int_equal(tg_predict_module(NULL, M, &fx.k, NULL, &ctx, &fx.v), 0);
}

static const char *taints(unsigned mask)
{
	static char buf[2][32];
	static int n;

	n ^= 1;
	return tg_taint_string(mask, buf[n], sizeof(buf[n]));
}

static void expect_loads(const char *kernel, const char *module)
{
	if (fx.v.n_refusals)
		fail_msg("refused: %s (%s)", fx.v.refusals[0].code, fx.v.refusals[0].reason);
	assert_true(fx.v.loads);
	assert_int_equal(fx.v.err, 0);
	assert_string_equal(taints(fx.v.taint_kernel), kernel);
	assert_string_equal(taints(fx.v.taint_module), module);
}

/* Refused: the kernel's first refusal, its errno and what stays in the kernel's mask. */
static void expect_refused(const char *code, int step, int err, const char *kernel)
{
	assert_false(fx.v.loads);
	assert_true(fx.v.n_refusals >= 1);
	assert_string_equal(fx.v.refusals[0].code, code);
	assert_int_equal(fx.v.refusals[0].step, step);
	assert_int_equal(fx.v.err, err);
	assert_string_equal(taints(fx.v.taint_kernel), kernel);
	assert_int_equal(fx.v.taint_module, 0);
}

static bool reason_has(const char *code, const char *text)
{
	for (size_t i = 0; i < fx.v.n_refusals; i++)
		if (!strcmp(fx.v.refusals[i].code, code))
			return strstr(fx.v.refusals[i].reason, text) != NULL;
	return false;
}

static bool has_flag(char letter)
{
	for (size_t i = 0; i < fx.v.n_flags; i++)
		if (fx.v.flags[i].letter == letter)
			return true;
	return false;
}

static bool has_note(const char *text)
{
	for (size_t i = 0; i < fx.v.n_notes; i++)
		if (strstr(fx.v.notes[i], text))
			return true;
	return false;
}

static void expect_symbols(size_t refusal, const char *first, size_t n)
{
	assert_true(refusal < fx.v.n_refusals);
	assert_int_equal(fx.v.refusals[refusal].n_symbols, n);
	assert_string_equal(fx.v.refusals[refusal].symbols[0], first);
}

/* ---------------------------------------------------------- the rules */

/* The starting point of every test: an in-tree GPL module for its own kernel. */
static void test_clean(void **state)
{
	use_sym("_printk", false, 0x11111111);
	predict();
	expect_loads("", "");
	assert_int_equal(fx.v.n_flags, 0);
	assert_false(fx.v.incomplete);
	assert_true(fx.v.gpl_only_known);
	assert_string_equal(fx.v.signature, "none");
	assert_string_equal(fx.v.module, "tgtest");
	assert_string_equal(fx.v.kernel, RELEASE);
}

/* R1: a compression the target's kmod cannot read reaches the kernel as bytes. */
static void test_compression(void **state)
{
	M->compression = TG_COMP_XZ;
	fx.k.loadable_compressions = 1u << TG_COMP_NONE | 1u << TG_COMP_ZSTD;
	fx.k.loadable_compressions_source = "/usr/bin/kmod";
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_true(reason_has("invalid-elf", "cannot load xz-compressed modules (/usr/bin/kmod"));

	fx.k.loadable_compressions |= 1u << TG_COMP_XZ;
	predict();
	expect_loads("", "");
	fx.k.loadable_compressions = 0;		/* unknown: every format assumed loadable */
	predict();
	expect_loads("", "");
}

/* R2: a malformed signature is refused even when signatures are not enforced. */
static void test_signature_malformed(void **state)
{
	M->sig.present = true;
	M->sig.malformed = true;
	M->sig.id_type = TG_SIG_ID_PKCS7;
	set_info("intree", NULL);	/* O would come at step 7: never reached */
	fx.k.module_sig = TG_YES;
	predict();
	expect_refused("bad-signature", 1, -EBADMSG, "");
	assert_string_equal(fx.v.signature, "malformed");
	assert_int_equal(fx.v.n_refusals, 1);

	/* without CONFIG_MODULE_SIG the trailer is never looked at */
	fx.k.module_sig = TG_NO;
	predict();
	expect_loads("O", "O");
	assert_string_equal(fx.v.signature, "not-checked");
}

/* R2, R10: unsigned on a kernel that checks signatures: E, no refusal. */
static void test_signature_unsigned_e(void **state)
{
	fx.k.module_sig = TG_YES;
	predict();
	expect_loads("E", "E");
	assert_true(has_flag('E'));
	assert_string_equal(fx.v.signature, "none");

	/* signing configuration unknown: E assumed, and said */
	fx.k.module_sig = TG_UNKNOWN;
	predict();
	expect_loads("E", "E");
	assert_true(has_note("signing configuration is unknown"));
}

/* R2: CONFIG_MODULE_SIG_FORCE refuses an unsigned module at step 1, before any taint. */
static void test_signature_required(void **state)
{
	set_info("intree", NULL);
	fx.k.module_sig = TG_YES;
	fx.k.sig_force = TG_YES;
	predict();
	expect_refused("signature-required", 1, -EKEYREJECTED, "");
	assert_true(reason_has("signature-required", "is unsigned"));
}

/* R2: a signature that is not PKCS#7 (mod_check_sig(): -ENOPKG) counts as none. */
static void test_signature_unsupported(void **state)
{
	M->sig.present = true;
	M->sig.id_type = 1;	/* PKEY_ID_PGP */
	fx.k.module_sig = TG_YES;
	predict();
	expect_loads("E", "E");
	assert_string_equal(fx.v.signature, "unsupported");

	fx.k.sig_force = TG_YES;
	predict();
	expect_refused("signature-required", 1, -EKEYREJECTED, "");
	assert_true(reason_has("signature-required", "not PKCS#7"));
}

/* R2: a PKCS#7 signature whose bytes were not kept: taken as valid, never as proven. */
static void test_signature_unverifiable(void **state)
{
	M->sig.present = true;
	M->sig.id_type = TG_SIG_ID_PKCS7;
	M->sig.signer = "Debian Secure Boot CA";
	M->sig.key_id = "A7:46:8D";
	fx.k.module_sig = TG_YES;
	fx.k.sig_force = TG_YES;
	predict();
	expect_loads("", "");
	assert_string_equal(fx.v.signature, "unverified");
	assert_true(fx.v.incomplete);
	assert_true(has_note("signature not verified"));
}

/* R3: elf_check_arch() right after the magic. */
static void test_elf_arch(void **state)
{
	M->e_machine = EM_AARCH64_;
	M->arch = "aarch64";
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_true(reason_has("invalid-elf", "built for aarch64 (ELF machine 183)"));

	fx.k.e_machine = 0;	/* the kernel's architecture unknown: not checked */
	predict();
	expect_loads("", "");
}

/* R3: a module of the other byte order fails the e_type check, read natively, first. */
static void test_elf_byte_order(void **state)
{
	M->e_machine = 22;	/* EM_S390 */
	M->arch = "s390x";
	M->big_endian = true;
	fx.k.elf_data = 1;	/* ELFDATA2LSB: x86_64 */
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_true(reason_has("invalid-elf", "built for s390x, big-endian, but the kernel is "
			       "little-endian: it reads the ELF type as 256 (\"Invalid ELF header type: 256 != 1\")"));

	fx.k.elf_data = 0;	/* byte order unknown: the machine still differs */
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_true(reason_has("invalid-elf", "built for s390x (ELF machine 22)"));

	M->big_endian = false;	/* and a little-endian module on a big-endian kernel */
	M->e_machine = fx.k.e_machine;
	fx.k.elf_data = 2;
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_true(reason_has("invalid-elf", "little-endian, but the kernel is big-endian"));
}

/* R3: what the reader found the kernel's elf_validity checks reject. */
static void test_elf_problems(void **state)
{
	fx.problems[0] = "module has no symbols (stripped?)";
	M->problems = fx.problems;
	M->n_problems = 1;
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_true(reason_has("invalid-elf", "invalid module: module has no symbols (stripped?)"));
	assert_int_equal(fx.v.n_refusals, 1);
}

/* R3: sections that must be unique: refused since 6.4, the first one used before. */
static void test_elf_unique_sections(void **state)
{
	size_t *counts[] = { &M->n_modinfo_sections, &M->n_symtab_sections,
			     &M->n_this_module_sections };
	const char *what[] = { "more than one .modinfo section", "more than one symbol table",
			       "more than one .gnu.linkonce.this_module section" };

	for (size_t i = 0; i < TG_ARRAY_SIZE(counts); i++) {
		*counts[i] = 2;
		set_kv(6, 4, 0);
		predict();
		expect_refused("invalid-elf", 2, -ENOEXEC, "");
		assert_true(reason_has("invalid-elf", what[i]));
		set_kv(6, 3, 13);
		predict();
		expect_loads("", "");
		fx.k.version = 0;	/* unknown: the newest rules */
		predict();
		expect_refused("invalid-elf", 2, -ENOEXEC, "");
		*counts[i] = 1;
	}
}

/* R3: string tables typed SHT_STRTAB, checked by 7.2 loaders (7.2.13 does, 6.12 does not). */
static void test_elf_typed_strtabs(void **state)
{
	bool *flags[] = { &M->shstrtab_untyped, &M->strtab_untyped };
	const char *what[] = { "the section name table is not a string table",
			       "the symbol table's string table is not a string table" };

	for (size_t i = 0; i < TG_ARRAY_SIZE(flags); i++) {
		*flags[i] = true;
		set_kv(7, 2, 0);
		predict();
		expect_refused("invalid-elf", 2, -ENOEXEC, "");
		assert_true(reason_has("invalid-elf", what[i]));
		set_kv(7, 1, 99);
		predict();
		expect_loads("", "");
		set_kv(6, 12, 95);
		predict();
		expect_loads("", "");
		*flags[i] = false;
	}
}

/* R4: .gnu.linkonce.this_module against sizeof(struct module), since 6.4. */
static void test_struct_module_size(void **state)
{
	M->this_module_size = 1344;
	set_kv(6, 4, 0);
	predict();
	expect_refused("struct-module-mismatch", 2, -ENOEXEC, "");
	assert_true(reason_has("struct-module-mismatch", "struct module is 1344 bytes in the module, 896 in the kernel"));
	set_kv(6, 3, 0);
	predict();
	expect_loads("", "");
	/* the kernel's size unknown: not checked */
	set_kv(6, 4, 0);
	fx.k.this_module_size = 0;
	predict();
	expect_loads("", "");
}

/*
 * R3 order: elf_check_arch() alone, else the reader's problems, then the
 * section checks in the kernel's order; all of them are listed (a report names
 * every problem), the first is what the kernel reports.
 */
static void test_elf_order(void **state)
{
	fx.problems[0] = "no .modinfo";
	M->problems = fx.problems;
	M->n_problems = 1;
	M->n_symtab_sections = 2;
	M->this_module_size = 1;
	set_kv(6, 4, 0);
	predict();
	expect_refused("invalid-elf", 2, -ENOEXEC, "");
	assert_string_equal(fx.v.refusals[0].reason, "invalid module: no .modinfo");
	assert_int_equal(fx.v.n_refusals, 3);
	assert_non_null(strstr(fx.v.refusals[1].reason, "more than one symbol table"));
	assert_string_equal(fx.v.refusals[2].code, "struct-module-mismatch");
	M->e_machine = EM_AARCH64_;
	predict();
	assert_int_equal(fx.v.n_refusals, 1);
	assert_true(reason_has("invalid-elf", "ELF machine 183"));
	/* and the signature (step 1) before all of it */
	M->sig.present = M->sig.malformed = true;
	fx.k.module_sig = TG_YES;
	predict();
	expect_refused("bad-signature", 1, -EBADMSG, "");
	assert_int_equal(fx.v.n_refusals, 1);
}

/* R5: no __versions on a MODVERSIONS kernel: F if forced loads are allowed, else refused. */
static void test_no_modversions(void **state)
{
	M->versions_kind = TG_VERS_NONE;
	predict();
	expect_loads("F", "F");
	assert_true(has_flag('F'));

	fx.k.force_load = TG_NO;
	set_info("intree", NULL);
	predict();
	expect_refused("no-modversions", 4, -ENOEXEC, "");

	fx.k.modversions = TG_NO;
	predict();
	expect_loads("O", "O");
}

/* R5: module_layout's CRC against the kernel's, from its export table. */
static void test_module_layout(void **state)
{
	static const char symvers[] = "0x9060323f\tmodule_layout\tvmlinux\tEXPORT_SYMBOL\t\n";

	assert_int_equal(tg_symvers_load_mem(symvers, strlen(symvers), "symvers", NULL,
					     &fx.k.symvers, NULL), 0);
	predict();
	expect_loads("", "");
	M->versions[0].crc = 0x12345678;
	predict();
	expect_refused("module-layout-mismatch", 4, -ENOEXEC, "");
	assert_true(reason_has("module-layout-mismatch", "(0x12345678, kernel 0x9060323f)"));
}

/* R6: vermagic; with CRCs on both sides the release word is not compared. */
static void test_vermagic(void **state)
{
	set_info("vermagic", "6.1.0-99-amd64 SMP preempt mod_unload modversions ");
	predict();
	expect_loads("", "");

	set_info("vermagic", "6.1.0-57-amd64 SMP mod_unload modversions ");
	predict();
	expect_refused("vermagic-mismatch", 5, -ENOEXEC, "");

	/* without MODVERSIONS the whole string counts */
	set_info("vermagic", "6.1.0-99-amd64 SMP preempt mod_unload modversions ");
	fx.k.modversions = TG_NO;
	predict();
	expect_refused("vermagic-mismatch", 5, -ENOEXEC, "");
	assert_true(reason_has("vermagic-mismatch", "should be '" VERMAGIC "'"));

	/* the kernel's vermagic unknown: not checked, incomplete */
	fx.k.vermagic = NULL;
	predict();
	expect_loads("", "");
	assert_true(fx.v.incomplete);
}

/* R6: no vermagic at all: a forced load (F) or, without MODULE_FORCE_LOAD, refused. */
static void test_missing_vermagic(void **state)
{
	set_info("vermagic", NULL);
	predict();
	expect_loads("F", "F");
	fx.k.force_load = TG_NO;
	predict();
	expect_refused("missing-vermagic", 5, -ENOEXEC, "");
}

/* R7: a livepatch module on a kernel without CONFIG_LIVEPATCH; up to 6.3 O stays. */
static void test_livepatch(void **state)
{
	add_info("livepatch", "Y");
	predict();
	expect_loads("K", "K");
	assert_true(has_flag('K'));

	set_info("intree", NULL);
	fx.k.livepatch = TG_NO;
	predict();
	expect_refused("livepatch-unsupported", 5, -ENOEXEC, "O");
	set_kv(6, 4, 0);
	predict();
	expect_refused("livepatch-unsupported", 5, -ENOEXEC, "");
	/* staging: C was tainted before the question too, up to 6.3 */
	add_info("staging", "Y");
	set_kv(6, 3, 0);
	predict();
	expect_refused("livepatch-unsupported", 5, -ENOEXEC, "CO");
}

/* R8: the licence is matched exactly; anything else (or none) is P. */
static void test_license(void **state)
{
	static const struct { const char *lic; const char *taint; } cases[] = {
		{ "GPL v2", "" }, { "Dual MIT/GPL", "" }, { "GPL and additional rights", "" },
		{ "Proprietary", "P" }, { "gpl", "P" }, { "GPLv2", "P" }, { "GPL-2.0", "P" },
		{ NULL, "P" },
	};

	for (size_t i = 0; i < TG_ARRAY_SIZE(cases); i++) {
		set_info("license", cases[i].lic);
		predict();
		expect_loads(cases[i].taint, cases[i].taint);
		assert_int_equal(has_flag('P'), *cases[i].taint != '\0');
	}
}

/* R9: the forced-taint list: module scope (lve) loses GPL-only symbols, kernel scope does not. */
static void test_forced_taint(void **state)
{
	M->name = "lve";
	predict();
	expect_loads("P", "P");
	assert_true(fx.v.forced_taint);

	use_sym("sysfs_create_bin_file", true, 0x22222222);
	predict();
	expect_refused("gpl-only-denied", 10, -ENOENT, "P");
	assert_true(reason_has("gpl-only-denied", "lve is on the kernel's forced-taint list"));
	expect_symbols(0, "sysfs_create_bin_file", 1);

	/* lve is on the list since 3.5 */
	set_kv(3, 4, 0);
	predict();
	expect_loads("", "");
	assert_false(fx.v.forced_taint);

	/* ndiswrapper: the kernel gets P, the module keeps its GPL-only symbols */
	set_kv(6, 1, 0);
	M->name = "ndiswrapper";
	predict();
	expect_loads("P", "");
	assert_true(fx.v.forced_taint);
}

/* R9: an advisory name (proposed, never merged): a note, no taint. */
static void test_forced_taint_advisory(void **state)
{
	M->name = "tuxedo_io";
	predict();
	expect_loads("", "");
	assert_true(fx.v.advisory);
	assert_false(fx.v.forced_taint);
	assert_true(has_note("advisory list"));
}

/* R10: O for a module without the intree key (its value does not count). */
static void test_out_of_tree(void **state)
{
	set_info("intree", "N");
	predict();
	expect_loads("", "");
	set_info("intree", NULL);
	predict();
	expect_loads("O", "O");
	assert_true(has_flag('O'));
}

/* R10: C for a staging driver. */
static void test_staging(void **state)
{
	add_info("staging", "Y");
	predict();
	expect_loads("C", "C");
}

/* R10: N for a test module, since 6.0. */
static void test_test_module(void **state)
{
	add_info("test", "Y");
	set_kv(6, 0, 0);
	predict();
	expect_loads("N", "N");
	set_kv(5, 19, 0);
	predict();
	expect_loads("", "");
	fx.k.version = 0;
	predict();
	expect_loads("N", "N");
}

/* R10: no retpoline key on a retpoline kernel: a warning, never a taint. */
static void test_retpoline(void **state)
{
	set_info("retpoline", NULL);
	predict();
	expect_loads("", "");
	assert_true(has_note("not compiled with retpoline"));
	fx.k.retpoline = TG_NO;
	predict();
	assert_false(has_note("retpoline"));
}

/* R11: exports without CRCs on a MODVERSIONS kernel; step 7's taints survive the refusal. */
static void test_exports_without_crc(void **state)
{
	add_export("tg_fn", false);
	set_info("intree", NULL);
	predict();
	expect_loads("FO", "FO");

	fx.k.force_load = TG_NO;
	predict();
	expect_refused("exports-without-crc", 8, -ENOEXEC, "O");

	M->exports_have_crcs = true;
	predict();
	expect_loads("O", "O");
}

/* R12c: import_ns=module:... is refused in setup_modinfo() since 6.16. */
static void test_module_namespace_import(void **state)
{
	add_info("import_ns", "module:tgother");
	set_info("intree", NULL);
	set_kv(6, 16, 0);
	predict();
	expect_refused("module-namespace-import", 9, -EPERM, "O");
	set_kv(6, 15, 0);
	predict();
	expect_loads("O", "O");
}

/* R12a: a namespaced export needs MODULE_IMPORT_NS, unless the kernel allows it. */
static void test_namespace_not_imported(void **state)
{
	use_sym("crypto_cipher_setkey", true, 0x33333333)->ns = "CRYPTO_INTERNAL";
	predict();
	expect_refused("namespace-not-imported", 10, -EINVAL, "");
	expect_symbols(0, "crypto_cipher_setkey", 1);

	add_info("import_ns", "crypto_internal");	/* strcmp(): case matters */
	predict();
	expect_refused("namespace-not-imported", 10, -EINVAL, "");
	set_info("import_ns", "CRYPTO_INTERNAL");
	predict();
	expect_loads("", "");

	set_info("import_ns", NULL);
	fx.k.allow_missing_ns = TG_YES;
	predict();
	expect_loads("", "");
	assert_true(has_note("without importing it"));
}

/* R12b: module:NAME,... namespaces admit the modules they name, since 6.16. */
static void test_module_namespace_export(void **state)
{
	struct tg_resolved *r = use_sym("tg_modns_fn", true, 0x44444444);

	r->ns = "module:tgother,tgt*";
	r->owner = "modnsexp";
	set_kv(6, 16, 0);
	predict();
	expect_loads("", "");
	/* '-' and '_' are one character to it */
	r->ns = "module:tg-test";
	M->name = "tg_test";
	predict();
	expect_loads("", "");
	M->name = "tgtest";
	r->ns = "module:tgother,tgt*";
	/* before 6.16 it is a namespace like any other */
	set_kv(6, 15, 0);
	predict();
	expect_refused("namespace-not-imported", 10, -EINVAL, "");
	/* a module it does not name */
	set_kv(6, 16, 0);
	r->ns = "module:tgother,tgtes";
	predict();
	expect_refused("namespace-not-imported", 10, -EINVAL, "");
	assert_true(reason_has("namespace-not-imported", "and it is module tgtest"));
}

/* R13a: GPL-only exports are hidden from a proprietary module; weak imports survive. */
static void test_gpl_only_denied(void **state)
{
	set_info("license", "Proprietary");
	use_sym("ktime_get", true, 0x55555555);
	use_sym("_printk", false, 0x11111111);
	predict();
	expect_refused("gpl-only-denied", 10, -ENOENT, "P");
	expect_symbols(0, "ktime_get", 1);
	assert_int_equal(fx.v.n_gpl_only_imports, 1);
	assert_true(reason_has("gpl-only-denied", "not GPL-compatible"));

	M->imports[0].weak = true;
	predict();
	expect_loads("P", "P");

	/* the same import by a GPL module */
	M->imports[0].weak = false;
	set_info("license", "GPL");
	predict();
	expect_loads("", "");
	assert_int_equal(fx.v.n_gpl_only_imports, 1);
	assert_string_equal(fx.v.gpl_only_imports[0], "ktime_get");
}

/* R13b: a symbol of a proprietary module passes P on (module only), since 5.9. */
static void test_proprietary_inheritance(void **state)
{
	struct tg_resolved *prop = use_sym("tg_prop_fn", false, 0x66666666);

	prop->owner = "propexp";
	prop->owner_proprietary = true;
	predict();
	expect_loads("", "P");
	assert_true(has_flag('P'));

	/* then a GPL-only import is denied */
	use_sym("ktime_get", true, 0x55555555);
	predict();
	expect_refused("gpl-only-denied", 10, -ENOENT, "");
	assert_true(reason_has("gpl-only-denied", "symbol of proprietary module propexp"));

	/* before 5.9 nothing is inherited */
	set_kv(5, 8, 0);
	predict();
	expect_loads("", "");
}

/* R13b: the GPL-only symbol first: the proprietary one is refused instead. */
static void test_proprietary_conflict(void **state)
{
	struct tg_resolved *prop;

	use_sym("sysfs_create_bin_file", true, 0x22222222);
	prop = use_sym("tg_prop_fn", false, 0x66666666);
	prop->owner = "propexp";
	prop->owner_proprietary = true;
	predict();
	expect_refused("proprietary-symbol-conflict", 10, -ENOENT, "");
	expect_symbols(0, "tg_prop_fn", 1);
	assert_true(reason_has("proprietary-symbol-conflict", "proprietary module propexp"));
}

/* R13c: no provider (or a provider the kernel refuses): unknown; a weak import is accepted. */
static void test_unknown_symbol(void **state)
{
	add_import("tg_missing_fn", false);
	predict();
	expect_refused("unknown-symbol", 10, -ENOENT, "");
	expect_symbols(0, "tg_missing_fn", 1);

	M->imports[0].weak = true;
	predict();
	expect_loads("", "");

	/* a provider that is itself refused exports nothing */
	M->imports[0].weak = false;
	add_sym("tg_missing_fn", false, 0, NULL)->owner_loads = false;
	predict();
	expect_refused("unknown-symbol", 10, -ENOENT, "");

	/* _GLOBAL_OFFSET_TABLE_ is accepted on x86_64 only */
	M->n_imports = 0;
	add_import("_GLOBAL_OFFSET_TABLE_", false);
	predict();
	expect_loads("", "");
	M->e_machine = fx.k.e_machine = EM_AARCH64_;
	M->arch = "aarch64";
	predict();
	expect_refused("unknown-symbol", 10, -ENOENT, "");
}

/* No export table at all: imports are unknown, never clean. */
static void test_no_symbol_table(void **state)
{
	use_sym("ktime_get", true, 0x55555555);
	set_info("license", "Proprietary");
	fx.no_table = true;
	predict();
	expect_loads("P", "P");
	assert_false(fx.v.gpl_only_known);
	assert_true(fx.v.incomplete);
	assert_true(has_note("no symbol table"));
}

/* R13d: the module's CRC against the exporter's; only with MODVERSIONS and a CRC. */
static void test_crc_mismatch(void **state)
{
	use_sym("_printk", false, 0x11111111);
	M->versions[1].crc = ~0x11111111u;
	predict();
	expect_refused("crc-mismatch", 10, -EINVAL, "");
	expect_symbols(0, "_printk", 1);

	fx.k.modversions = TG_NO;
	predict();
	expect_loads("", "");
	/* an exporter without CRC is accepted */
	fx.k.modversions = TG_YES;
	fx.syms[0].r.has_crc = false;
	predict();
	expect_loads("", "");
}

/* R13d before R12: the CRC check wins the errno of a symbol that fails both. */
static void test_crc_before_namespace(void **state)
{
	use_sym("crypto_cipher_setkey", true, 0x33333333)->ns = "CRYPTO_INTERNAL";
	M->versions[1].crc = 0x1;
	predict();
	expect_refused("crc-mismatch", 10, -EINVAL, "");
	assert_int_equal(fx.v.n_refusals, 1);
}

/* R13: the loop goes on after a failing symbol; errno is the last failure's. */
static void test_symbol_errno_last(void **state)
{
	add_import("tg_missing_fn", false);
	use_sym("_printk", false, 0x11111111);
	M->versions[1].crc = 0x2;
	predict();
	expect_refused("unknown-symbol", 10, -EINVAL, "");
	assert_int_equal(fx.v.n_refusals, 2);
	assert_string_equal(fx.v.refusals[1].code, "crc-mismatch");

	/* the other order: ENOENT last */
	M->n_imports = 0;
	add_import("_printk", false);
	add_import("tg_missing_fn", false);
	predict();
	expect_refused("crc-mismatch", 10, -ENOENT, "");
}

/* R13e: common symbols are refused (-fcommon). */
static void test_common_symbol(void **state)
{
	add_import("tg_counter", false);
	M->imports[0].common = true;
	predict();
	expect_refused("common-symbol", 10, -ENOEXEC, "");
	expect_symbols(0, "tg_counter", 1);
}

/* R14: an export vmlinux or a loaded module already has: refused after everything else. */
static void test_duplicate_export(void **state)
{
	add_export("ktime_get", true);
	add_export("tg_own_fn", true);
	fx.dup_name = "ktime_get";
	fx.dup_owner = "vmlinux";
	set_info("intree", NULL);
	predict();
	expect_refused("duplicate-export", 11, -ENOEXEC, "O");
	expect_symbols(0, "ktime_get", 1);
	assert_true(reason_has("duplicate-export", "that vmlinux already exports"));

	fx.dup_owner = "exporter";
	predict();
	assert_true(reason_has("duplicate-export", "refuses the second of two modules"));

	/* a refusal at step 10 comes first, and its errno is the kernel's */
	add_import("tg_missing_fn", false);
	predict();
	expect_refused("unknown-symbol", 10, -ENOENT, "O");
	assert_string_equal(fx.v.refusals[1].code, "duplicate-export");
}

/* R0: refusals from step 7 on are all listed; a refusal before step 7 keeps no taint. */
static void test_order_and_taints(void **state)
{
	set_info("license", "Proprietary");
	set_info("intree", NULL);
	fx.k.module_sig = TG_YES;
	add_export("tg_fn", false);
	fx.k.force_load = TG_NO;
	use_sym("ktime_get", true, 0x55555555);
	predict();
	/* step 8 first, then step 10; step 7's P, O and E stay */
	expect_refused("exports-without-crc", 8, -ENOEXEC, "POE");
	assert_int_equal(fx.v.n_refusals, 2);
	assert_string_equal(fx.v.refusals[1].code, "gpl-only-denied");

	/* the same module refused at step 5: nothing of step 7 */
	set_info("vermagic", "7.0.0 SMP mod_unload ");
	predict();
	expect_refused("vermagic-mismatch", 5, -ENOEXEC, "");
	assert_int_equal(fx.v.n_refusals, 1);
	assert_int_equal(fx.v.n_flags, 0);
}

/*
 * RHEL (docs/loader-rules.md#vendor-rules): rhelversion read, each import's
 * kABI stablelist membership, and mark_tech_preview()/mark_partner_supported()
 * callers tainted X and p at init, in RHEL's letters, only on a kernel its
 * files say is RHEL.
 */
static void test_rhel(void **state)
{
	static const char list[] = "[rhel9_x86_64_stablelist]\n\tprintk\n\tmark_tech_preview\n\n";
	struct tg_rhel rh = { .kabi_path = "/lib/modules/kabi-rhel96/kabi_stablelist_x86_64" };
	char t[32];

	set_info("rhelversion", "9.6");
	use_sym("printk", false, 0x1234);
	use_sym("mark_tech_preview", false, 0x5678);
	use_sym("mark_partner_supported", false, 0x9abc);
	use_sym("rh_private", false, 0x1111);
	assert_int_equal(tg_rhel_kabi_parse(list, sizeof(list) - 1, &rh.kabi, &rh.n_kabi), 0);
	assert_int_equal(rh.n_kabi, 2);
	fx.k.rhel = &rh;

	/* a Debian kernel: rhelversion shown, nothing else of RHEL's */
	predict();
	expect_loads("", "");
	assert_string_equal(fx.v.rhelversion, "9.6");
	assert_null(fx.v.kabi_stablelist);
	assert_null(fx.v.taint_letters);

	/* its .config says RHEL */
	fx.k.rhel_differences = TG_YES;
	predict();
	assert_true(has_flag('X'));
	assert_true(has_flag('p'));
	assert_string_equal(tg_verdict_taint_string(&fx.v, fx.v.taint_kernel, t, sizeof(t)), "Xp");
	assert_int_equal(fx.v.taint_module, TG_TAINT_BIT(16) | TG_TAINT_BIT(26));
	assert_string_equal(fx.v.kabi_stablelist, rh.kabi_path);
	assert_int_equal(fx.v.n_kabi_on, 2);
	assert_string_equal(fx.v.kabi_on[0], "printk");
	assert_string_equal(fx.v.kabi_on[1], "mark_tech_preview");
	assert_int_equal(fx.v.n_kabi_off, 2);
	assert_string_equal(fx.v.kabi_off[1], "rh_private");

	/* refused: the init never runs, no X or p */
	fx.k.sig_force = TG_YES;
	fx.k.module_sig = TG_YES;
	predict();
	assert_false(fx.v.loads);
	assert_false(has_flag('X'));
	assert_int_equal(fx.v.taint_kernel & TG_TAINT_BIT(26), 0);
	assert_int_equal(fx.v.n_kabi_on, 2);

	fx.k.rhel = NULL;
	strv_free_array(rh.kabi, rh.n_kabi);
}

/* The letters of RHEL's taint_flags[] (include/linux/panic.h, kernel/panic.c, 9.6). */
static void test_rhel_letters(void **state)
{
	struct tg_verdict v = { .taint_letters = tg_rhel_taint_letters };
	char t[32];

	assert_int_equal(strlen(tg_rhel_taint_letters), 32);
	assert_string_equal(tg_verdict_taint_string(&v, TG_TAINT_BIT(12) | TG_TAINT_BIT(13) |
						     TG_TAINT_BIT(26) | TG_TAINT_BIT(27) |
						     TG_TAINT_BIT(31), t, sizeof(t)), "OEphu");
	v.taint_letters = NULL;	/* upstream's: no letter for RHEL's bits */
	assert_string_equal(tg_verdict_taint_string(&v, TG_TAINT_BIT(12) | TG_TAINT_BIT(26), t,
						    sizeof(t)), "O");
}

/* The module's name: struct module's, not the file's. */
static void test_identity(void **state)
{
	M->name = "lve";
	M->file_modname = "renamed";
	predict();
	expect_loads("P", "P");
	assert_string_equal(fx.v.module, "lve");
	assert_true(has_note("file name says 'renamed' but the kernel will see the module as 'lve'"));
	/* without a target kernel: the newest rules, and the verdict says it is incomplete */
	tg_verdict_free_contents(&fx.v);
	memset(&fx.v, 0, sizeof(fx.v));
	{
		static const struct tg_predict_ctx ctx = { resolve, duplicate, NULL };

		assert_int_equal(tg_predict_module("/opt/vendor/engine.bin", M, NULL, NULL, &ctx, &fx.v), 0);
	}
	assert_true(fx.v.incomplete);
	assert_true(fx.v.hidden);
	assert_true(has_note("target kernel unknown"));
}

int main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_clean),
		T(test_compression),
		T(test_signature_malformed),
		T(test_signature_unsigned_e),
		T(test_signature_required),
		T(test_signature_unsupported),
		T(test_signature_unverifiable),
		T(test_elf_arch),
		T(test_elf_byte_order),
		T(test_elf_problems),
		T(test_elf_unique_sections),
		T(test_elf_typed_strtabs),
		T(test_struct_module_size),
		T(test_elf_order),
		T(test_no_modversions),
		T(test_module_layout),
		T(test_vermagic),
		T(test_missing_vermagic),
		T(test_livepatch),
		T(test_license),
		T(test_forced_taint),
		T(test_forced_taint_advisory),
		T(test_out_of_tree),
		T(test_staging),
		T(test_test_module),
		T(test_retpoline),
		T(test_exports_without_crc),
		T(test_module_namespace_import),
		T(test_namespace_not_imported),
		T(test_module_namespace_export),
		T(test_gpl_only_denied),
		T(test_proprietary_inheritance),
		T(test_proprietary_conflict),
		T(test_unknown_symbol),
		T(test_no_symbol_table),
		T(test_crc_mismatch),
		T(test_crc_before_namespace),
		T(test_symbol_errno_last),
		T(test_common_symbol),
		T(test_duplicate_export),
		T(test_order_and_taints),
		T(test_identity),
		T(test_rhel),
		T(test_rhel_letters),
	};
#undef T
	return cmocka_run_group_tests(tests, NULL, NULL);
}
