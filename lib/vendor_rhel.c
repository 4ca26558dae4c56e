/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Red Hat Enterprise Linux's loader differences, each from RHEL's kernel
 * source as AlmaLinux publishes it per minor release (the unpacked SRPMs;
 * docs/loader-rules.md#vendor-rules names the files and releases):
 *
 *   - module_sig_check(): a signature whose key is in neither the built-in
 *     nor the secondary keyring (-ENOKEY) is verified again against the
 *     platform keyring, the UEFI db and MOK keys, when the kernel has
 *     CONFIG_INTEGRITY_PLATFORM_KEYRING (kernel/module_signing.c in 8.10 and
 *     9.0-9.4, kernel/module/signing.c in 9.5, 9.6 and 10.0).  Upstream has
 *     no such retry, so the rule is RHEL's alone.
 *   - taint letters (include/linux/panic.h, kernel/panic.c): 16 'X'
 *     TAINT_AUX (mark_tech_preview()), 26 'p' TAINT_PARTNER_SUPPORTED (9.2+,
 *     mark_partner_supported()), 27 'h' TAINT_SUPPORT_REMOVED, 31 'u'
 *     TAINT_UNPRIVILEGED_BPF (kernel/rh_messages.c sets X and p).
 *   - modpost writes rhelversion= into every module (scripts/mod/modpost.c).
 *   - exports: /boot/symvers-R.gz (kernel_places.c already searches it), and
 *     the kABI stablelists of package kernel-abi-stablelists:
 *     /lib/modules/kabi-rhelMN/kabi_stablelist_ARCH, kabi-current a link to
 *     the newest (redhat/Makefile, kernel.spec: %files -n kernel-abi-stablelists).
 *
 * The platform keyring cannot be read from the kernel's files: it is what
 * the machine's firmware and shim hold.  The administrator names it as the
 * certificates in TAINTGUARD_PLATFORM_KEYS (a directory), else in
 * ROOT/etc/taintguard/platform-keys/ (what "mokutil --export" writes).
 */
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_internal.h"
#include "predict.h"
#include "vendor_rhel.h"

#define PLATFORM_KEYS_DIR "/etc/taintguard/platform-keys"

/* bits 0-19 as upstream; RHEL's own at 26, 27 and 31 */
const char tg_rhel_taint_letters[] = "PFSRMBUDAWCIOELKXTNJ      ph   u";

void tg_rhel_free(struct tg_rhel *r)
{
	if (!r)
		return;
	tg_keyring_free(r->platform);
	strv_free_array(r->kabi, r->n_kabi);
	free(r->kabi_path);
	free(r);
}

/* ------------------------------------------------------------ detection */

bool tg_rhel_detect(const struct tg_kernel *k, const struct tg_loader_facts *lf, const char **why)
{
	const char *w = NULL;

	if (!k)
		return false;
	if (lf && tg_lf_on(lf, TG_LF_RHEL_DIFFERENCES))
		w = ".config: CONFIG_RHEL_DIFFERENCES";
	else if (lf && (tg_lf_on(lf, TG_LF_RHEL_PARTNER) || tg_lf_on(lf, TG_LF_RHEL_CHECK_STATUS)))
		w = "System.map: RHEL's mark_partner_supported/module_rh_check_status";
	else if (k->symvers && tg_symvers_lookup(k->symvers, "mark_tech_preview"))
		w = "export list: mark_tech_preview (kernel/rh_messages.c)";
	if (why)
		*why = w;
	return w != NULL;
}

const struct tg_keyring *tg_rhel_platform_ring(const struct tg_kernel *k,
					       const struct tg_loader_facts *lf)
{
	if (!k || !k->rhel || !k->rhel->platform || k->platform_keyring != TG_YES)
		return NULL;
	return tg_rhel_detect(k, lf, NULL) ? k->rhel->platform : NULL;
}

/* ---------------------------------------------------- the platform keys */

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

/* Every certificate file of @dir; a file that does not read is a note. */
static int platform_keys(struct strv *notes, struct tg_rhel *rh, const char *dir)
{
	struct dirent **ents = NULL;
	int n = scandir(dir, &ents, NULL, by_name), r = 0;

	if (n < 0)
		return errno == ENOENT ? 0 : strv_push(notes, "platform keys: cannot read directory");
	for (int i = 0; i < n && r >= 0; i++) {
		struct tg_error e = { 0 };
		char *p = ents[i]->d_name[0] == '.' ? NULL : strf("%s/%s", dir, ents[i]->d_name);

		if (p && tg_is_readable_file(p)) {
			if (!rh->platform && tg_keyring_new(&rh->platform) < 0)
				r = -ENOMEM;
			else if (tg_keyring_add_trusted_file(rh->platform, p, &e) < 0)
				r = strv_push(notes, e.msg);
		}
		free(p);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return r;
}

/* ------------------------------------------------- kABI stablelists */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* kabi_stablelist_ARCH: "[rhel9_x86_64_stablelist]" headers, one symbol a line (redhat/kabi/show-kabi) */
int tg_rhel_kabi_parse(const char *text, size_t len, char ***out, size_t *n)
{
	struct strv sv = { 0 };
	size_t i = 0;

	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t end = nl ? (size_t)(nl - text) : len, a = i, b = end;

		while (a < b && (text[a] == ' ' || text[a] == '\t'))
			a++;
		while (b > a && (text[b - 1] == ' ' || text[b - 1] == '\t' || text[b - 1] == '\r'))
			b--;
		if (b > a && text[a] != '[' && text[a] != '#' && strv_pushf(&sv, "%.*s", (int)(b - a), text + a) < 0) {
			strv_free(&sv);
			return -ENOMEM;
		}
		i = end + 1;
	}
	if (sv.n)
		qsort(sv.v, sv.n, sizeof(*sv.v), cmp_str);
	*out = sv.v;
	*n = sv.n;
	return 0;
}

bool tg_rhel_kabi_has(const struct tg_rhel *r, const char *sym)
{
	return r && r->n_kabi && bsearch(&sym, r->kabi, r->n_kabi, sizeof(*r->kabi), cmp_str);
}

/* "x86_64" of "....el9_6.x86_64", else from the kernel's ELF machine */
static const char *kabi_arch(const struct tg_kernel *k)
{
	static const char *const arches[] = { "x86_64", "aarch64", "ppc64le", "s390x" };
	const char *dot = strrchr(k->release, '.'), *name;

	for (size_t i = 0; dot && i < TG_ARRAY_SIZE(arches); i++)
		if (!strcmp(dot + 1, arches[i]))
			return arches[i];
	/* RHEL builds 64-bit kernels only; ppc64 is little-endian there */
	name = tg_arch_name(k->e_machine, true, k->elf_data == ELFDATA2MSB);
	for (size_t i = 0; i < TG_ARRAY_SIZE(arches); i++)
		if (!strcmp(name, arches[i]))
			return arches[i];
	return NULL;
}

/* The stablelist of the release's minor ("el9_6": kabi-rhel96), else kabi-current. */
static char *kabi_find(const char *root, const struct tg_kernel *k)
{
	const char *arch = kabi_arch(k), *el = strstr(k->release, ".el");
	const char *pre[] = { "/lib/modules/", "/usr/lib/modules/" };
	unsigned major = 0, minor = 0;
	char dir[32] = "kabi-current";

	if (!arch)
		return NULL;
	if (el && sscanf(el, ".el%u_%u", &major, &minor) == 2)
		snprintf(dir, sizeof(dir), "kabi-rhel%u%u", major, minor);
	for (int cur = 0; cur < 2; cur++) {
		for (size_t i = 0; i < TG_ARRAY_SIZE(pre); i++) {
			char *p = strf("%s%s%s/kabi_stablelist_%s", root, pre[i],
				       cur ? "kabi-current" : dir, arch);

			if (p && tg_is_readable_file(p))
				return p;
			free(p);
		}
	}
	return NULL;
}

static int kabi_load(const struct tg_kernel *k, struct tg_rhel *rh, const char *root,
		     const struct tg_limits *lim, struct strv *notes)
{
	struct tg_error e = { 0 };
	char *path = kabi_find(root, k);
	void *buf = NULL;
	size_t len;
	int r;

	if (!path)
		return 0;
	r = tg_read_path(path, lim->max_symvers_size, &buf, &len, &e);
	if (r == 0)
		r = tg_rhel_kabi_parse(buf, len, &rh->kabi, &rh->n_kabi);
	else
		r = strv_push(notes, e.msg);
	free(buf);
	if (rh->n_kabi) {
		rh->kabi_path = path;
		return r;
	}
	free(path);
	return r;
}

int tg_rhel_kernel_load(struct tg_kernel *k, const char *root, const struct tg_limits *lim,
			struct strv *notes)
{
	const char *env = getenv("TAINTGUARD_PLATFORM_KEYS");
	struct tg_rhel *rh;
	char *dir;
	int r;

	if (!k->release)
		return 0;
	rh = calloc(1, sizeof(*rh));
	dir = env && *env ? strdup(env) : strf("%s" PLATFORM_KEYS_DIR, root);
	if (!rh || !dir) {
		free(rh);
		free(dir);
		return -ENOMEM;
	}
	r = platform_keys(notes, rh, dir);
	if (r >= 0)
		r = kabi_load(k, rh, root, lim, notes);
	free(dir);
	if (r < 0 || (!rh->platform && !rh->kabi_path)) {
		tg_rhel_free(rh);
		return r < 0 ? r : 0;
	}
	k->rhel = rh;
	return 0;
}

/* ------------------------------------------------------------- verdicts */

/* Exported by kernel/rh_messages.c; a module that imports one calls it from its init. */
static const struct {
	const char *sym;
	unsigned bit;
	char letter;
	const char *why;
} rh_marks[] = {
	{ "mark_tech_preview", 16, 'X', "calls mark_tech_preview(): a Technology Preview driver" },
	{ "mark_partner_supported", 26, 'p', "calls mark_partner_supported(): supported by a "
	  "partner, not by Red Hat" },
};

static int kabi_lists(const struct tg_rhel *rh, const struct tg_module *m, struct tg_verdict *v)
{
	struct strv on = { 0 }, off = { 0 };
	int r = 0;

	if (!(v->kabi_stablelist = strdup(rh->kabi_path)))
		return -ENOMEM;
	for (size_t i = 0; i < m->n_imports && r == 0; i++)
		r = strv_push(tg_rhel_kabi_has(rh, m->imports[i].name) ? &on : &off, m->imports[i].name);
	v->kabi_on = on.v;
	v->n_kabi_on = on.n;
	v->kabi_off = off.v;
	v->n_kabi_off = off.n;
	return r;
}

int tg_rhel_verdict(const struct tg_kernel *k, const struct tg_loader_facts *lf,
		    const struct tg_module *m, struct tg_verdict *v)
{
	const char *rv = tg_module_get(m, "rhelversion"), *why;
	int r;

	if (rv && !(v->rhelversion = strdup(rv)))
		return -ENOMEM;
	if (!tg_rhel_detect(k, lf, &why))
		return 0;
	v->taint_letters = tg_rhel_taint_letters;
	if (k->rhel && k->rhel->kabi_path && (r = kabi_lists(k->rhel, m, v)) < 0)
		return r;
	if (!v->loads)
		return 0;
	for (size_t i = 0; i < TG_ARRAY_SIZE(rh_marks); i++) {
		bool calls = false;

		for (size_t j = 0; j < m->n_imports && !calls; j++)
			calls = !strcmp(m->imports[j].name, rh_marks[i].sym);
		if (!calls)
			continue;
		/* at the module's init (step 12), so only on a load */
		v->taint_kernel |= TG_TAINT_BIT(rh_marks[i].bit);
		v->taint_module |= TG_TAINT_BIT(rh_marks[i].bit);
		if ((r = tg_verdict_add_flag(v, rh_marks[i].letter, true, NULL,
					     "%s (RHEL kernel, %s): its init function taints %c",
					     rh_marks[i].why, why, rh_marks[i].letter)) < 0)
			return r;
	}
	return 0;
}
