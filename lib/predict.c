/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel module loader's rules, in the kernel's own order.
 *
 * Each step mirrors a function of load_module() (kernel/module/main.c,
 * version.c, signing.c); the rules, the kernel versions that brought them
 * and the test cases that prove them are in docs/loader-rules.md, whose R0
 * gives the step numbers used here.  Taints set before a refusal stay
 * in the kernel's global mask, so every taint remembers the step that set it
 * and only those before the first refusal survive a refused load.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "keyring.h"
#include "loader_facts.h"
#include "module_internal.h"
#include "predict.h"
#include "vendor_rhel.h"
#include "vendor_suse.h"

enum {
	STEP_SIG = 1,
	STEP_ELF = 2,
	STEP_MODSTRUCT = 4,
	STEP_MODINFO = 5,
	STEP_TAINTS = 7,
	STEP_EXPORT_CRCS = 8,
	STEP_SETUP_MODINFO = 9,
	STEP_SYMBOLS = 10,
	STEP_DUPLICATES = 11,
	STEP_SYSFS = 12,	/* mod_sysfs_setup(): SUSE's supported flag */
};

/* A taint as the kernel adds it: which bit, where, and at which step. */
struct taint_event {
	unsigned bit;
	bool module;		/* add_taint_module(): also in mod->taints */
	bool global;		/* add_taint(): in /proc/sys/kernel/tainted */
	int step;
	bool before_refusal;	/* set in its step ahead of that step's own refusal */
};

struct state {
	const struct tg_module *m;
	const struct tg_kernel *k;
	const struct tg_policy *p;
	const struct tg_predict_ctx *ctx;
	struct tg_verdict *v;
	unsigned kv;
	const char *name;
	struct taint_event ev[32];
	size_t n_ev;
	unsigned mod_taint;	/* mod->taints as the loader sees it right now */
	bool sig_ok;
	char sig_why[512];	/* why the signature does not count (E), when it does not */
	const char *p_inherited_from;	/* P came from a proprietary provider's symbol */
	struct tg_loader_facts lf;	/* the target's loader, read from its files */
	unsigned assumed_noted;		/* rules whose release fallback the verdict names */
};

static int add_taint(struct state *s, unsigned bit, bool module, bool global, int step)
{
	if (s->n_ev < TG_ARRAY_SIZE(s->ev))
		s->ev[s->n_ev++] = (struct taint_event){ bit, module, global, step, false };
	if (module)
		s->mod_taint |= TG_TAINT_BIT(bit);
	return 0;
}

static bool is_yes(int tristate)
{
	return tristate == TG_YES;
}

/*
 * Does the target's loader have rule @id?  Its files say (loader_facts.c);
 * where none answers the release does, and when the rule decides something
 * for this module (@matters) the verdict says it was assumed.  No kernel:
 * the newest rules.
 */
static bool loader_has(struct state *s, enum tg_lf id, bool matters)
{
	char *why;

	if (!s->k)
		return true;
	if (matters && !(s->assumed_noted & (1u << id)) && (why = tg_lf_assumed(&s->lf, id))) {
		s->assumed_noted |= 1u << id;
		tg_verdict_add_note(s->v, "%s", why);
		free(why);
	}
	return tg_lf_on(&s->lf, id);
}

/* Kernel features default to Debian/Fedora practice when the config is unknown. */
static bool feature(int tristate, bool when_unknown)
{
	return tristate == TG_UNKNOWN ? when_unknown : tristate == TG_YES;
}

/* ---------------------------------------------------------- step 1: signature */
/* docs/loader-rules.md#r2-signature */

/*
 * The signer's identity ("issuer/serial") is one the policy lists in
 * trusted_keys, or (@intree, when the kernel's own keys are unknown) one its
 * in-tree modules use.  An identity is a claim, not a proof: it only stands
 * in when no certificate can settle the question, and then the verdict is
 * incomplete.
 */
static bool identity_listed(const struct state *s, bool intree)
{
	const struct tg_signature *sig = &s->m->sig;
	const char *const *pk = NULL;
	size_t npk;
	char *id;
	bool ok = false;

	if (!sig->key_id)
		return false;
	id = sig->signer ? strf("%s/%s", sig->signer, sig->key_id) : NULL;
	for (size_t i = 0; intree && id && s->k && i < s->k->n_trusted_keys && !ok; i++)
		ok = !strcmp(s->k->trusted_keys[i], id);
	npk = s->p ? tg_policy_trusted_keys(s->p, &pk) : 0;
	for (size_t i = 0; i < npk && !ok; i++)
		ok = (id && !strcasecmp(pk[i], id)) || !strcasecmp(pk[i], sig->key_id);
	free(id);
	return ok;
}

/* "'CN' (key SERIAL)", or the key identifier alone (sign-file -k) */
static const char *signer_text(const struct tg_signature *sig, char *buf, size_t len)
{
	if (sig->signer)
		snprintf(buf, len, "'%s' (key %s)", sig->signer, sig->key_id ? sig->key_id : "unknown");
	else
		snprintf(buf, len, "the key with identifier %s", sig->key_id ? sig->key_id : "unknown");
	return buf;
}

/* The kernel image the kernel's keys came from (a keyring given by a caller may have no path). */
static const char *kernel_keys_from(const struct tg_kernel *k)
{
	return k->image_path ? k->image_path : tg_keyring_source(k->keyring);
}

/* Where a key of ring @ring comes from, for the verdict. */
static char *key_origin(const struct state *s, const struct tg_sigresult *res)
{
	if (res->ring == 2)	/* docs/loader-rules.md#vendor-rules */
		return strf("%s, enrolled in the platform keyring (UEFI db/MOK), which RHEL's "
			    "module_sig_check() falls back to (%s)", res->why,
			    tg_keyring_source(tg_rhel_platform_ring(s->k, &s->lf)));
	return strf("%s, %s%s)", res->why, res->ring == 0 ? "built into the kernel (" :
			   "named in the policy's trusted_certificates (",
			   res->ring == 0 ? kernel_keys_from(s->k) :
			   tg_keyring_source(tg_policy_trusted_certificates(s->p)));
}

/*
 * mod_verify_sig() with the target kernel's keys (its image) and the
 * certificates the policy names.  Sets s->sig_ok; a signature that does not
 * verify is refused here, enforced or not.
 */
static int verify_signature(struct state *s)
{
	const struct tg_signature *sig = &s->m->sig;
	const struct tg_keyring *rings[3] = { NULL, tg_policy_trusted_certificates(s->p),
					      tg_rhel_platform_ring(s->k, &s->lf) };
	struct tg_error e = { 0 };
	struct tg_sigresult res;
	bool keys_known = tg_kernel_keyring(s->k, &rings[0], &e) == 0;
	char who[256];
	int r = 0;

	tg_sig_check(sig, tg_module_priv(s->m)->sigdata, rings, TG_ARRAY_SIZE(rings), &res);
	switch (res.state) {
	case TG_SIGST_TRUSTED:
		s->sig_ok = true;
		s->v->signature = "verified";
		s->v->signature_detail = key_origin(s, &res);
		return s->v->signature_detail ? 0 : -ENOMEM;
	case TG_SIGST_REJECTED:
		s->v->signature = "rejected";
		s->v->signature_detail = res.without_keys ? strdup(res.why) : key_origin(s, &res);
		if (!s->v->signature_detail)
			return -ENOMEM;
		return tg_verdict_add_refusal(s->v, STEP_SIG, -EKEYREJECTED, "bad-signature",
			res.remedy ? res.remedy : "the module was changed after it was signed (editing or "
			"stripping a signed module breaks the signature): sign it again after the last "
			"change, or remove the signature",
			"bad module signature: %s; the kernel rejects it even when signatures are not "
			"enforced (EKEYREJECTED, \"Key was rejected by service\")", s->v->signature_detail);
	case TG_SIGST_NOPKG:
		s->v->signature = "unsupported";
		snprintf(s->sig_why, sizeof(s->sig_why), "signature of an unsupported kind: %s", res.why);
		s->v->signature_detail = strdup(s->sig_why);
		return s->v->signature_detail ? 0 : -ENOMEM;
	case TG_SIGST_UNVERIFIABLE:
		/* the key is there: the kernel verifies it; taken as valid, not proven */
		s->sig_ok = true;
		s->v->signature = "unverified";
		s->v->incomplete = true;
		return tg_verdict_add_note(s->v, "signature not verified, its result unknown: %s", res.why);
	case TG_SIGST_NOKEY:
		break;
	}
	if (keys_known && !identity_listed(s, false)) {
		s->v->signature = "unknown-key";
		snprintf(s->sig_why, sizeof(s->sig_why), "signed by %s, which is not a key the target "
			 "kernel has (%zu built into %s%s)", signer_text(sig, who, sizeof(who)),
			 tg_keyring_count(rings[0]), kernel_keys_from(s->k),
			 rings[1] ? ", none in trusted_certificates" : "");
		s->v->signature_detail = strdup(s->sig_why);
		return s->v->signature_detail ? 0 : -ENOMEM;
	}
	/*
	 * No certificate decides: the kernel's keys could not be read, or only
	 * an identity string vouches for the signer.  Predict from the identity,
	 * and say the verdict is incomplete: a forged signature carries the
	 * same identity.
	 */
	s->sig_ok = identity_listed(s, !keys_known);
	s->v->signature = "unverified";
	s->v->incomplete = true;
	if (keys_known)
		r = tg_verdict_add_note(s->v, "signature not verified: %s is listed in the policy's "
					"trusted_keys, but no certificate of it is known: its validity is "
					"unknown (name the certificate in trusted_certificates)",
					signer_text(sig, who, sizeof(who)));
	else
		r = tg_verdict_add_note(s->v, "signature not verified: the target kernel's trusted keys "
					"are unknown (%s)", e.msg);
	if (!s->sig_ok)
		snprintf(s->sig_why, sizeof(s->sig_why), "signed by %s; the target kernel's built-in "
			 "keys could not be read and none of its in-tree modules is signed by that key: "
			 "taken as a key it does not have", signer_text(sig, who, sizeof(who)));
	return r;
}

/*
 * A compressed module the target's kmod cannot decompress (and the kernel
 * cannot either) reaches finit_module() as compressed bytes: no signature
 * trailer at the end, and no ELF magic.
 */
static bool reaches_kernel_compressed(const struct state *s)
{
	unsigned ok = s->k ? s->k->loadable_compressions : 0;

	return ok && s->m->compression != TG_COMP_NONE && !(ok & (1u << s->m->compression));
}

static int check_signature(struct state *s)
{
	static const struct tg_signature none;
	const struct tg_signature *sig = reaches_kernel_compressed(s) ? &none : &s->m->sig;
	int module_sig = s->k ? s->k->module_sig : TG_UNKNOWN;
	int r;

	s->v->signature = sig->present ? "not-checked" : "none";
	if (module_sig == TG_NO)
		return 0;
	if (sig->present && sig->malformed) {
		s->v->signature = "malformed";
		return tg_verdict_add_refusal(s->v, STEP_SIG, -EBADMSG, "bad-signature",
			"re-sign the module or strip the broken signature",
			"the appended module signature is malformed; the kernel rejects it "
			"even when signatures are not enforced (EBADMSG)");
	}
	if (sig->present && sig->id_type != TG_SIG_ID_PKCS7) {	/* mod_check_sig(): -ENOPKG */
		s->v->signature = "unsupported";
		snprintf(s->sig_why, sizeof(s->sig_why), "signature of an unsupported type (id_type %u; "
			 "the kernel verifies only PKCS#7 signatures): counted as unsigned", sig->id_type);
	} else if (sig->present) {
		if ((r = verify_signature(s)) < 0 || s->v->n_refusals)
			return r;
	}
	if (!s->sig_ok && s->k && is_yes(s->k->sig_force))
		return tg_verdict_add_refusal(s->v, STEP_SIG, -EKEYREJECTED, "signature-required",
			"sign the module with a key the kernel trusts",
			"the kernel enforces module signatures (CONFIG_MODULE_SIG_FORCE) and this "
			"module is %s", !sig->present ? "unsigned" : sig->id_type != TG_SIG_ID_PKCS7 ?
			"signed with an unsupported kind of signature (not PKCS#7)" :
			!strcmp(s->v->signature, "unsupported") ?
			"signed with algorithms the kernel does not support" :
			"signed by a key it does not trust");
	if (!s->sig_ok && !s->v->incomplete && module_sig == TG_UNKNOWN)
		tg_verdict_add_note(s->v, "the target kernel's signing configuration is unknown; "
				    "E (unsigned module) assumed as with CONFIG_MODULE_SIG=y");
	return 0;
}

/* ------------------------------------------------------ step 2: ELF structure */
/* docs/loader-rules.md#r3-elf-validity */

/* More than one section that must be unique (6.4+ loaders). */
static int refuse_twice(struct state *s, size_t n, const char *what)
{
	if (n <= 1)
		return 0;
	return tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf", NULL,
				      "invalid module: more than one %s (refused since kernel 6.4)",
				      what);
}

static int check_elf(struct state *s)
{
	const struct tg_module *m = s->m;
	bool unique = loader_has(s, TG_LF_ELF_UNIQUE, m->n_modinfo_sections > 1 ||
				 m->n_symtab_sections > 1 || m->n_this_module_sections > 1);
	bool sized = loader_has(s, TG_LF_MODSTRUCT_CHECK, s->k && s->k->this_module_size &&
				m->this_module_size && m->this_module_size != s->k->this_module_size);
	/*
	 * String tables typed SHT_STRTAB: 6.12.95 does not check, 7.2.13 and 7.3.4 do
	 * (docs/loader-rules.md#r3); the image's message says which.
	 */
	bool typed = loader_has(s, TG_LF_STRTAB_TYPED, m->shstrtab_untyped || m->strtab_untyped);
	int r = 0;

	if (reaches_kernel_compressed(s))
		return tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf",
			"ship the module uncompressed or in a format the system's kmod reads",
			"the target system cannot load %s-compressed modules (%s has no %s support "
			"and the kernel does not decompress modules itself): the kernel receives "
			"the compressed bytes and rejects them as an invalid ELF",
			tg_compression_name(s->m->compression),
			s->k->loadable_compressions_source ? s->k->loadable_compressions_source : "kmod",
			tg_compression_name(s->m->compression));
	/*
	 * elf_validity_check() (kernel/module/main.c) reads the header as native
	 * integers, EI_DATA unread: in the other byte order ET_REL (1) is 256, so
	 * the e_type check refuses the module before elf_check_arch() looks.
	 */
	if (s->k && s->k->elf_data && (s->m->big_endian ? ELFDATA2MSB : ELFDATA2LSB) != s->k->elf_data)
		return tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf",
			"build the module for the target kernel's architecture and byte order",
			"invalid module: built for %s, %s-endian, but the kernel is %s-endian: it reads "
			"the ELF type as %u (\"Invalid ELF header type: %u != 1\")",
			s->m->arch ? s->m->arch : "unknown", s->m->big_endian ? "big" : "little",
			s->m->big_endian ? "little" : "big", ET_REL << 8, ET_REL << 8);
	/* then elf_check_arch() */
	if (s->k && s->k->e_machine && s->m->e_machine != s->k->e_machine)
		return tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf",
			"build the module for the target kernel's architecture",
			"invalid module: built for %s (ELF machine %u) but the kernel's architecture is "
			"ELF machine %u (\"Invalid architecture in ELF header\")",
			s->m->arch ? s->m->arch : "unknown", s->m->e_machine, s->k->e_machine);
	for (size_t i = 0; i < s->m->n_problems && r == 0; i++)
		r = tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf", NULL,
					   "invalid module: %s", s->m->problems[i]);
	/*
	 * 6.4 added the uniqueness checks and the struct module size check; older
	 * loaders use the first section found, and module_layout's CRC did the rest.
	 */
	if (r == 0 && typed && s->m->shstrtab_untyped)
		r = tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf", NULL,
			"invalid module: the section name table is not a string table "
			"(SHT_STRTAB; refused since kernel 7.2 at the latest)");
	if (r == 0 && unique)
		r = refuse_twice(s, s->m->n_modinfo_sections, ".modinfo section");
	if (r == 0 && unique)
		r = refuse_twice(s, s->m->n_symtab_sections, "symbol table");
	if (r == 0 && typed && s->m->strtab_untyped)
		r = tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "invalid-elf", NULL,
			"invalid module: the symbol table's string table is not a string table "
			"(SHT_STRTAB; refused since kernel 7.2 at the latest)");
	if (r == 0 && unique)
		r = refuse_twice(s, s->m->n_this_module_sections, ".gnu.linkonce.this_module section");
	if (r == 0 && sized && s->k && s->k->this_module_size && s->m->this_module_size &&
	    s->m->this_module_size != s->k->this_module_size)
		r = tg_verdict_add_refusal(s->v, STEP_ELF, -ENOEXEC, "struct-module-mismatch",
			"rebuild the module against the target kernel's headers",
			/* both sizes first: the one-line reason keeps what fits in 64 characters */
			"struct module is %zu bytes in the module, %zu in the kernel "
			"(.gnu.linkonce.this_module): built for another kernel",
			s->m->this_module_size, s->k->this_module_size);
	return r;
}

/* ----------------------------------------------------- step 4: module_layout */
/* docs/loader-rules.md#r4-struct-module, #r5-modversions */

/* try_to_force_load(): F taint with CONFIG_MODULE_FORCE_LOAD, else -ENOEXEC. */
static int force_load(struct state *s, int step, const char *code, const char *why)
{
	if (s->k && s->k->force_load == TG_NO)
		return tg_verdict_add_refusal(s->v, step, -ENOEXEC, code,
			"rebuild the module against the target kernel",
			"%s and the kernel does not allow forced loads (CONFIG_MODULE_FORCE_LOAD off)", why);
	add_taint(s, TG_TAINT_FORCED_MODULE, true, true, step);
	return tg_verdict_add_flag(s->v, 'F', true, "rebuild the module with kbuild against the target kernel",
				   "forced load: %s", why);
}

static int check_modstruct(struct state *s)
{
	const struct tg_ksym *ks;
	uint32_t crc;

	if (!s->k || !feature(s->k->modversions, true))
		return 0;
	if (s->m->versions_kind == TG_VERS_NONE)
		return force_load(s, STEP_MODSTRUCT, "no-modversions",
				  "the module has no symbol versions (__versions) but the kernel uses MODVERSIONS");
	ks = s->k->symvers ? tg_symvers_lookup(s->k->symvers, "module_layout") : NULL;
	if (ks && ks->crc && tg_module_version_crc(s->m, "module_layout", &crc) && crc != ks->crc)
		return tg_verdict_add_refusal(s->v, STEP_MODSTRUCT, -ENOEXEC, "module-layout-mismatch",
			"rebuild the module against the target kernel's headers",
			"disagrees about version of symbol module_layout (0x%08x, kernel 0x%08x): "
			"built for another kernel", crc, ks->crc);
	return 0;
}

/* ------------------------------------------------------ step 5: vermagic */
/* docs/loader-rules.md#r6-vermagic, #r7-livepatch */

/*
 * check_modinfo_livepatch() on a kernel without CONFIG_LIVEPATCH (arm64 6.1).
 * Up to 6.3 check_modinfo() had tainted O (no intree key) and C (staging)
 * just before it asked, and add_taint() is never undone: a refused livepatch
 * module leaves them in the kernel's mask.  6.4 moved every taint after the
 * checks (module_augment_kernel_taints()), so newer kernels keep none.
 */
static int refuse_livepatch(struct state *s)
{
	static const struct {
		const char *key;
		bool present;
		unsigned bit;
		char flag;
		const char *why;
	} early[] = {
		{ "intree", false, TG_TAINT_OOT, 'O', "out-of-tree module: tainted before the livepatch check refused it" },
		{ "staging", true, TG_TAINT_CRAP, 'C', "staging driver: tainted before the livepatch check refused it" },
	};
	bool late = loader_has(s, TG_LF_LATE_TAINTS, true);
	size_t n;

	for (size_t i = 0; !late && i < TG_ARRAY_SIZE(early); i++) {
		if (tg_module_has(s->m, early[i].key) != early[i].present)
			continue;
		n = s->n_ev;
		add_taint(s, early[i].bit, true, true, STEP_MODINFO);
		if (s->n_ev > n)
			s->ev[n].before_refusal = true;
		tg_verdict_add_flag(s->v, early[i].flag, true, NULL, "%s", early[i].why);
	}
	return tg_verdict_add_refusal(s->v, STEP_MODINFO, -ENOEXEC, "livepatch-unsupported", NULL,
		"module is marked as livepatch module, but livepatch support is disabled");
}

/* version.c same_magic(): with CRCs the release part is not compared. */
static bool same_magic(const char *a, const char *b, bool has_crcs)
{
	if (has_crcs) {
		a += strcspn(a, " ");
		b += strcspn(b, " ");
	}
	return strcmp(a, b) == 0;
}

static int check_vermagic(struct state *s)
{
	const char *vm = tg_module_get(s->m, "vermagic");
	bool has_crcs;
	int r;

	if (!vm || !*vm) {
		r = force_load(s, STEP_MODINFO, "missing-vermagic", "the module has no vermagic");
		if (r || tg_verdict_find_refusal(s->v, "missing-vermagic"))
			return r;
	} else if (!s->k || !s->k->vermagic) {
		s->v->incomplete = true;
		tg_verdict_add_note(s->v, "the target kernel's vermagic is unknown; version magic not checked");
	} else {
		has_crcs = s->m->versions_kind != TG_VERS_NONE && s->k->modversions != TG_NO;
		if (!same_magic(vm, s->k->vermagic, has_crcs))
			return tg_verdict_add_refusal(s->v, STEP_MODINFO, -ENOEXEC, "vermagic-mismatch",
				"rebuild the module against the target kernel",
				"version magic '%s' should be '%s'", vm, s->k->vermagic);
	}
	if (tg_module_has(s->m, "livepatch") && s->k && s->k->livepatch == TG_NO)
		return refuse_livepatch(s);
	return 0;
}

/* --------------------------------------------------- step 7: taints */
/* docs/loader-rules.md#r8-licence, #r9-forced-taint-list, #r10-taints */

static bool looks_like_gpl(const char *lic)
{
	return strcasestr(lic, "gpl") != NULL;
}

static int taint_license(struct state *s)
{
	const char *lic = tg_module_get(s->m, "license");

	if (lic && tg_policy_license_gpl_compatible(s->p, s->kv, lic))
		return 0;
	add_taint(s, TG_TAINT_PROPRIETARY, true, true, STEP_TAINTS);
	if (!lic)
		return tg_verdict_add_flag(s->v, 'P', true, "declare MODULE_LICENSE(\"GPL\") if the code is GPL",
			"no MODULE_LICENSE: the kernel treats it as 'unspecified' (proprietary) "
			"and denies it GPL-only symbols");
	return tg_verdict_add_flag(s->v, 'P', true,
		looks_like_gpl(lic) ? "the kernel matches exactly: use \"GPL\", \"GPL v2\", "
				      "\"Dual BSD/GPL\", \"Dual MIT/GPL\", \"Dual MPL/GPL\" or "
				      "\"GPL and additional rights\"" : NULL,
		"license '%s' is not GPL-compatible for the kernel (exact match against "
		"include/linux/license.h): proprietary, denied GPL-only symbols", lic);
}

static int taint_forced(struct state *s)
{
	const struct tg_forced_taint *ft = tg_policy_forced_taint(s->p, s->kv, s->name);
	int bit;

	if (!ft)
		return 0;
	if (ft->advisory) {
		s->v->forced_taint = false;
		s->v->advisory = true;
		return tg_verdict_add_note(s->v, "'%s' is on an advisory list (not enforced by the kernel): %s",
					   s->name, ft->reason ? ft->reason : "");
	}
	bit = tg_taint_bit_from_letter(ft->flag);
	if (bit < 0)
		bit = TG_TAINT_PROPRIETARY;
	s->v->forced_taint = true;
	add_taint(s, (unsigned)bit, ft->module_scope, true, STEP_TAINTS);
	if (ft->module_scope)
		return tg_verdict_add_flag(s->v, ft->flag, true, NULL,
			"%s is on the kernel's forced-taint list: %s; the kernel taints it and "
			"denies it GPL-only symbols", s->name, ft->reason ? ft->reason : "");
	return tg_verdict_add_flag(s->v, ft->flag, false, NULL,
		"%s is on the kernel's forced-taint list: %s; the kernel is tainted, the "
		"module keeps GPL-only symbols", s->name, ft->reason ? ft->reason : "");
}

static int taint_signature(struct state *s)
{
	const struct tg_signature *sig = &s->m->sig;
	int module_sig = s->k ? s->k->module_sig : TG_UNKNOWN;

	if (module_sig == TG_NO || s->sig_ok)
		return 0;
	add_taint(s, TG_TAINT_UNSIGNED, true, true, STEP_TAINTS);
	if (!sig->present || reaches_kernel_compressed(s) || !s->sig_why[0])
		return tg_verdict_add_flag(s->v, 'E', true,
			"sign the module with a key the kernel trusts (e.g. an enrolled MOK)",
			"unsigned module: the kernel verifies module signatures");
	if (!strcmp(s->v->signature, "unsupported"))
		return tg_verdict_add_flag(s->v, 'E', true,
			"sign the module with scripts/sign-file (PKCS#7) and a key the kernel trusts",
			"%s", s->sig_why);
	return tg_verdict_add_flag(s->v, 'E', true,
		"enroll the signing key (MOK) and name its certificate under trusted_certificates "
		"in the policy", "%s", s->sig_why);
}

static int apply_taints(struct state *s)
{
	const struct tg_module *m = s->m;
	int r;

	if (!tg_module_has(m, "intree")) {
		add_taint(s, TG_TAINT_OOT, true, true, STEP_TAINTS);
		tg_verdict_add_flag(s->v, 'O', true, NULL, "out-of-tree module (not built inside the kernel tree)");
	}
	if (tg_module_has(m, "staging")) {
		add_taint(s, TG_TAINT_CRAP, true, true, STEP_TAINTS);
		tg_verdict_add_flag(s->v, 'C', true, NULL, "staging driver: the quality is unknown");
	}
	if (tg_module_has(m, "livepatch") && (!s->k || s->k->livepatch != TG_NO)) {
		add_taint(s, TG_TAINT_LIVEPATCH, true, true, STEP_TAINTS);
		tg_verdict_add_flag(s->v, 'K', true, NULL, "live patch module");
	}
	if ((r = taint_license(s)) < 0)
		return r;
	if (tg_module_has(m, "test") && loader_has(s, TG_LF_TEST_TAINT, true)) {
		add_taint(s, TG_TAINT_TEST, true, true, STEP_TAINTS);
		tg_verdict_add_flag(s->v, 'N', true, NULL, "test module (KUnit or tools/testing)");
	}
	if ((r = taint_signature(s)) < 0)
		return r;
	if ((r = taint_forced(s)) < 0)
		return r;
	if (!tg_module_has(m, "retpoline") && s->k && is_yes(s->k->retpoline))
		tg_verdict_add_note(s->v, "not compiled with retpoline: the kernel warns "
				    "(\"loading module not compiled with retpoline compiler\"), no taint");
	return 0;
}

/* ---------------------------------------- step 8: exports without CRCs */
/* docs/loader-rules.md#r11-exports-without-crcs */

static int check_export_crcs(struct state *s)
{
	if (!s->m->n_exports || s->m->exports_have_crcs || !s->k || !is_yes(s->k->modversions))
		return 0;
	return force_load(s, STEP_EXPORT_CRCS, "exports-without-crc",
			  "the module exports symbols without versions (no __kcrctab)");
}

/* ---------------------------------------- step 9: module: namespaces (6.16+) */
/* docs/loader-rules.md#r12-namespaces */

static int check_import_ns_prefix(struct state *s)
{
	for (size_t i = 0; i < s->m->n_modinfo; i++) {
		const struct tg_modinfo *e = &s->m->modinfo[i];

		if (!strcmp(e->key, "import_ns") && !strncmp(e->value, "module:", 7) &&
		    loader_has(s, TG_LF_MODULE_NS, true))
			return tg_verdict_add_refusal(s->v, STEP_SETUP_MODINFO, -EPERM, "module-namespace-import",
				NULL, "module tries to import module namespace: %s", e->value);
	}
	return 0;
}

/* ---------------------------------------------- step 10: symbol resolution */
/* docs/loader-rules.md#r13-symbol-resolution (a-e) */

static bool imports_ns(const struct tg_module *m, const char *ns)
{
	for (size_t i = 0; i < m->n_modinfo; i++)
		if (!strcmp(m->modinfo[i].key, "import_ns") && !strcmp(m->modinfo[i].value, ns))
			return true;
	return false;
}

/* 6.16+ "module:" namespaces: comma list with tail-'*' globs, '-' == '_'. */
static bool module_ns_allows(const char *ns, const char *name)
{
	const char *p;

	if (strncmp(ns, "module:", 7))
		return false;
	for (p = ns + 7; *p;) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < len; i++) {
			char a = p[i] == '-' ? '_' : p[i];
			char b = name[i] == '-' ? '_' : name[i];

			if (a == '*' && i + 1 == len)
				return true;
			if (a != b || !b)
				break;
		}
		if (i == len && name[len] == '\0')
			return true;
		p += len + (p[len] == ',');
	}
	return false;
}

/* Refusal of this code+errno, created on first use; symbols appended. */
static int refuse_symbol(struct state *s, const char *code, int err, const char *sym,
			 const char *remedy, const char *what)
{
	struct tg_refusal *r = tg_verdict_find_refusal(s->v, code);
	int ret;

	if (!r) {
		ret = tg_verdict_add_refusal(s->v, STEP_SYMBOLS, err, code, remedy, "%s", what);
		if (ret < 0)
			return ret;
		r = &s->v->refusals[s->v->n_refusals - 1];
	}
	s->v->err = err;	/* simplify_symbols() returns the last failure */
	return tg_refusal_add_symbol(r, sym);
}

static int deny_gpl(struct state *s, const char *sym)
{
	char *what;
	int r;

	const char *remedy = "declare a GPL-compatible license only if the code really is GPL, "
			     "or stop using GPL-only symbols";

	if (s->v->forced_taint && tg_policy_forced_taint(s->p, s->kv, s->name)) {
		what = strf("GPL-only symbols denied: %s is on the kernel's forced-taint list, "
				   "so the kernel withholds them and refuses the load (\"Unknown symbol\")", s->name);
	} else if (s->p_inherited_from) {
		/* the license is fine; the taint came with a proprietary provider's symbol */
		what = strf("GPL-only symbols denied: the module became proprietary by using a "
				   "symbol of proprietary module %s (the kernel reports \"Unknown symbol\")",
				   s->p_inherited_from);
		remedy = "do not use symbols exported by a proprietary module in a module that needs "
			 "GPL-only symbols";
	} else
		what = strf("GPL-only symbols denied to a module that is not GPL-compatible "
				   "(the kernel reports \"Unknown symbol\")");
	if (!what)
		return -ENOMEM;
	r = refuse_symbol(s, "gpl-only-denied", -ENOENT, sym, remedy, what);
	free(what);
	return r;
}

/* One undefined symbol, as resolve_symbol() + check_version() + namespace check. */
static int resolve_one(struct state *s, const struct tg_import *imp, bool *using_gpl)
{
	struct tg_resolved rs = { 0 };
	bool known = s->ctx->resolve(s->ctx->data, imp->name, &rs);
	bool gplok = !(s->mod_taint & TG_TAINT_BIT(TG_TAINT_PROPRIETARY));
	uint32_t mycrc;
	bool modns;

	if (imp->common)
		return refuse_symbol(s, "common-symbol", -ENOEXEC, imp->name, "compile with -fno-common",
				     "common (uninitialised global) symbols are not allowed in modules");
	if (!strcmp(imp->name, "_GLOBAL_OFFSET_TABLE_") && (!s->m->arch || !strcmp(s->m->arch, "x86_64")))
		return 0;
	if (!known) {
		s->v->gpl_only_known = false;
		s->v->incomplete = true;
		return 0;
	}
	if (rs.found && !rs.owner_loads)
		rs.found = false;
	if (rs.found && rs.gpl_only && !gplok) {
		if (imp->weak)
			return 0;
		tg_verdict_add_gpl_import(s->v, imp->name);
		return deny_gpl(s, imp->name);
	}
	if (!rs.found)
		return imp->weak ? 0 : refuse_symbol(s, "unknown-symbol", -ENOENT, imp->name,
			"install or load the module that provides it, or rebuild against the target kernel",
			"unknown symbols: neither the kernel nor another module of the set exports them");
	if (rs.gpl_only) {
		*using_gpl = true;
		tg_verdict_add_gpl_import(s->v, imp->name);
	}
	/* 5.9+ inherit_taint(): the "GPL condom" rule. */
	if (rs.owner_proprietary && loader_has(s, TG_LF_INHERIT_TAINT, true)) {
		if (*using_gpl) {
			char *what = strf("module using GPL-only symbols uses symbols from proprietary "
						 "module %s (the kernel refuses this since 5.9)", rs.owner);
			int r = what ? refuse_symbol(s, "proprietary-symbol-conflict", -ENOENT, imp->name,
						     NULL, what) : -ENOMEM;
			free(what);
			return r;
		}
		if (!(s->mod_taint & TG_TAINT_BIT(TG_TAINT_PROPRIETARY))) {
			s->mod_taint |= TG_TAINT_BIT(TG_TAINT_PROPRIETARY);
			s->p_inherited_from = rs.owner;
			tg_verdict_add_flag(s->v, 'P', true, NULL,
				"uses symbol %s from proprietary module %s and inherits its taint "
				"(module only; GPL-only symbols are then denied)", imp->name, rs.owner);
		}
	}
	if (s->k && is_yes(s->k->modversions) && rs.has_crc && rs.crc &&
	    s->m->versions_kind != TG_VERS_NONE && tg_module_version_crc(s->m, imp->name, &mycrc) &&
	    mycrc != rs.crc)
		return refuse_symbol(s, "crc-mismatch", -EINVAL, imp->name,
				     "rebuild the module against the target kernel's headers",
				     "disagrees about version of symbols (CRC mismatch: built against another kernel)");
	/* module:NAME,... namespaces name the modules they admit (6.16+) */
	modns = rs.ns && !strncmp(rs.ns, "module:", 7) && loader_has(s, TG_LF_MODULE_NS, true);
	if (rs.ns && *rs.ns && !(modns && module_ns_allows(rs.ns, s->name)) && !imports_ns(s->m, rs.ns)) {
		char *what;
		int r;

		if (s->k && is_yes(s->k->allow_missing_ns))
			return tg_verdict_add_note(s->v, "uses %s from namespace %s without importing it "
						   "(allowed by CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS)",
						   imp->name, rs.ns);
		what = modns ? strf("uses symbols exported only for the modules %s, and it is "
					   "module %s (namespace %s)", rs.ns + 7, s->name, rs.ns) :
			strf("uses symbols from a namespace it does not import (%s)", rs.ns);
		r = what ? refuse_symbol(s, "namespace-not-imported", -EINVAL, imp->name, modns ?
					 "only the modules the export names may use these symbols "
					 "(an import of a module: namespace is refused)" :
					 "add MODULE_IMPORT_NS() for the namespace", what) : -ENOMEM;
		free(what);
		return r;
	}
	return 0;
}

static int resolve_symbols(struct state *s)
{
	bool using_gpl = false;
	int r;

	s->v->gpl_only_known = true;
	for (size_t i = 0; i < s->m->n_imports; i++)
		if ((r = resolve_one(s, &s->m->imports[i], &using_gpl)) < 0)
			return r;
	if (!s->v->gpl_only_known)
		tg_verdict_add_note(s->v, "no symbol table (Module.symvers) for the target kernel: "
				    "GPL-only imports, unknown symbols and CRCs: unknown");
	return 0;
}

/* ------------------------------------------------ step 11: duplicate exports */
/* docs/loader-rules.md#r14-duplicate-exports */

static int check_duplicates(struct state *s)
{
	const char *owner = NULL;

	if (!s->ctx->duplicate)
		return 0;
	for (size_t i = 0; i < s->m->n_exports; i++) {
		const char *sym = s->m->exports[i].name;
		struct tg_refusal *r;

		if (!s->ctx->duplicate(s->ctx->data, sym, &owner))
			continue;
		r = tg_verdict_find_refusal(s->v, "duplicate-export");
		if (!r) {
			/* vmlinux is always there; a module only when it is loaded first */
			if (tg_verdict_add_refusal(s->v, STEP_DUPLICATES, -ENOEXEC, "duplicate-export", NULL,
						   "exports symbols that %s already exports%s", owner,
						   strcmp(owner, "vmlinux") ? " (the kernel refuses the "
						   "second of two modules exporting a name)" : "") < 0)
				return -ENOMEM;
			r = &s->v->refusals[s->v->n_refusals - 1];
		}
		if (tg_refusal_add_symbol(r, sym) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------- step 12: SUSE's supported flag */
/* docs/loader-rules.md#suse-the-supported-flag (vendor_suse.c) */

static int check_suse_supported(struct state *s)
{
	struct tg_suse_verdict sv;
	bool ext;

	tg_suse_judge(s->k, &s->lf, s->m, &sv);
	if (sv.support == TG_SUSE_NONE || sv.support == TG_SUSE_YES)
		return 0;
	ext = sv.support == TG_SUSE_EXTERNAL;
	s->v->taint_letters = sv.letters;
	s->v->modprobe_refused = sv.modprobe_refuses;
	/* setup_modinfo() marks the module; mod_sysfs_setup() taints the kernel or refuses */
	add_taint(s, sv.bit, true, false, STEP_SETUP_MODINFO);
	if (sv.refused && !s->v->n_refusals)
		return tg_verdict_add_refusal(s->v, STEP_SYSFS, -ENOEXEC, "suse-unsupported",
			"ask the vendor for a build with MODULE_INFO(supported, \"external\") under a "
			"support agreement, or set kernel.unsupported to 1",
			"module not supported by SUSE (supported=%s), and kernel.unsupported is 0 (%s): "
			"the kernel refuses it", sv.value ? sv.value : "absent", sv.refused_by);
	add_taint(s, sv.bit, false, true, STEP_SYSFS);
	tg_verdict_add_flag(s->v, sv.letter, true, NULL, "%s (supported=%s; letters of %s)",
			    ext ? "externally supported module" : "module not supported by SUSE",
			    sv.value ? sv.value : "absent", sv.letters_from);
	if (sv.modprobe_refuses)
		tg_verdict_add_note(s->v, "modprobe refuses it: allow_unsupported_modules 0 (%s); "
				    "only insmod or modprobe --allow-unsupported-modules loads it",
				    sv.modprobe_by);
	else if (!ext && s->k->suse && !s->k->suse->unsupported.file)
		tg_verdict_add_note(s->v, "kernel.unsupported is set in no sysctl file of the root: "
				    "the kernel's default (load) assumed; unsupported=0 on the boot "
				    "command line would refuse it");
	return 0;
}

/* ---------------------------------------------------------------- driver */

static int first_refusal_step(const struct tg_verdict *v)
{
	int step = 1000;

	for (size_t i = 0; i < v->n_refusals; i++)
		if (v->refusals[i].step < step)
			step = v->refusals[i].step;
	return step;
}

static void settle_taints(struct state *s)
{
	int stop = first_refusal_step(s->v);

	for (size_t i = 0; i < s->n_ev; i++)
		if ((s->ev[i].step < stop || (s->ev[i].step == stop && s->ev[i].before_refusal)) &&
		    s->ev[i].global)
			s->v->taint_kernel |= TG_TAINT_BIT(s->ev[i].bit);
	s->v->loads = s->v->n_refusals == 0;
	s->v->taint_module = s->v->loads ? s->mod_taint : 0;
	if (!s->v->loads && s->v->err == 0)
		s->v->err = s->v->refusals[0].err;
	for (size_t i = 0; i < s->v->n_refusals; i++)
		if (s->v->refusals[i].step == stop && s->v->refusals[i].step != STEP_SYMBOLS) {
			s->v->err = s->v->refusals[i].err;
			break;
		}
}

static int fill_identity(struct tg_verdict *v, const char *path, const struct tg_module *m,
			 const struct tg_kernel *k)
{
	v->path = tg_strdup0(path ? path : m->label);
	v->module = tg_strdup0(m->name ? m->name : m->file_modname);
	v->file_module = tg_strdup0(m->file_modname);
	v->license = tg_strdup0(tg_module_get(m, "license"));
	v->vermagic = tg_strdup0(tg_module_get(m, "vermagic"));
	v->depends = tg_strdup0(tg_module_get(m, "depends"));
	v->arch = tg_strdup0(m->arch);
	v->compression = tg_strdup0(tg_compression_name(m->compression));
	v->kernel = tg_strdup0(k ? k->release : NULL);
	v->signed_ = m->sig.present;
	v->signer = tg_strdup0(m->sig.signer);
	v->key_id = tg_strdup0(m->sig.key_id);
	return (path || m->label) && !v->path ? -ENOMEM : 0;
}

/* A module hidden as /opt/vendor/engine.bin. */
bool tg_path_hidden(const char *path)
{
	char rel[256];

	return path && path[0] == '/' && !tg_module_file_name(path) &&
	       tg_kernel_release_from_path(path, rel, sizeof(rel)) < 0;
}

static void identity_notes(struct state *s)
{
	const struct tg_module *m = s->m;
	const char *named = tg_module_get(m, "name");

	if (!m->name)
		tg_verdict_add_note(s->v, "no struct module name found; using the file name");
	if (m->name && m->file_modname && strcmp(m->name, m->file_modname))
		tg_verdict_add_note(s->v, "file name says '%s' but the kernel will see the module as '%s'",
				    m->file_modname, m->name);
	if (m->name && named && strcmp(m->name, named))
		tg_verdict_add_note(s->v, ".modinfo says name=%s but struct module says '%s' (the kernel uses the latter)",
				    named, m->name);
	for (size_t i = 0; i < m->n_modinfo; i++)
		if (m->modinfo[i].trailing && !strcmp(m->modinfo[i].key, "license"))
			tg_verdict_add_note(s->v, "license '%s' is followed by hidden text '%s' that the kernel "
					    "ignores (the driverloader \"GPL\\0...\" trick)",
					    m->modinfo[i].value, m->modinfo[i].trailing);
	if (!s->k || !s->k->release)
		tg_verdict_add_note(s->v, "target kernel unknown: judged by the newest kernel's rules");
	if (tg_path_hidden(s->v->path)) {
		s->v->hidden = true;
		tg_verdict_add_note(s->v, "hidden: a kernel module installed as %s, outside the "
				    "module directories and not named as a module: depmod does not "
				    "index it and modprobe never finds it; only an explicit insmod of "
				    "that path (a scriptlet, a service) loads it", s->v->path);
	}
}

int tg_predict_module(const char *path, const struct tg_module *m,
		      const struct tg_kernel *k, const struct tg_policy *p,
		      const struct tg_predict_ctx *ctx, struct tg_verdict *v)
{
	struct state s = { .m = m, .k = k, .p = p, .ctx = ctx, .v = v };
	int (*const steps[])(struct state *) = {
		check_signature, check_elf, check_modstruct, check_vermagic,
	};
	int (*const late[])(struct state *) = {
		apply_taints, check_export_crcs, check_import_ns_prefix,
		resolve_symbols, check_duplicates, check_suse_supported,
	};
	int r;

	s.kv = k ? k->version : 0;
	if (k)
		tg_loader_facts_get(k, &s.lf);
	s.name = m->name ? m->name : (m->file_modname ? m->file_modname : "");
	if ((r = fill_identity(v, path, m, k)) < 0)
		return r;
	if (!k || !k->release || !k->vermagic)
		v->incomplete = true;
	identity_notes(&s);
	/* Steps 1-5 stop the load before any taint of step 7 is applied. */
	for (size_t i = 0; i < TG_ARRAY_SIZE(steps); i++) {
		if ((r = steps[i](&s)) < 0)
			return r;
		if (v->n_refusals)
			goto out;
	}
	for (size_t i = 0; i < TG_ARRAY_SIZE(late); i++)
		if ((r = late[i](&s)) < 0)
			return r;
out:
	settle_taints(&s);
	/*
	 * What could not be read of the kernel's files is said where it is
	 * judged; last, so the first note stays the prediction's own.
	 */
	for (size_t i = 0; k && i < k->n_notes; i++)
		tg_verdict_add_note(v, "target kernel: %s", k->notes[i]);
	return tg_rhel_verdict(k, &s.lf, m, v);
}
