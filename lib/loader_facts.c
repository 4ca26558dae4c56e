/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target kernel's loader, read from its own files.
 *
 * A vendor kernel keeps its release number and changes its loader: every
 * RHEL 9 kernel says 5.14.0, and 9.5 has 6.0's test-module taint and 6.4's
 * ELF checks that 9.4 lacks.  So a rule is not switched on the release
 * when a file of the kernel says whether the loader has it:
 *
 *   - the decompressed image holds the loader's own messages, and a message
 *     exists exactly where its rule does (most loader helpers are static and
 *     inlined: no symbol shows them);
 *   - System.map shows the vendors' global functions;
 *   - .config, the export list's format, and sizeof(struct module) as the
 *     kernel's in-tree modules carry it in .gnu.linkonce.this_module.
 *
 * The release decides only where no file answers, and then the fact says
 * so.  The strings and where they were read: docs/loader-rules.md
 * ("Detecting the rules").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "keyring.h"
#include "loader_facts.h"
#include "vendor_suse.h"

/* -------------------------------------------------------------- gathering */

static int yes_no(bool b)
{
	return b ? TG_YES : TG_NO;
}

/* No file answers: the release decides (unknown: the newest rules). */
static void from_release(struct tg_lfact *f, const struct tg_lf_desc *d, unsigned kv, const char *why)
{
	f->source = TG_LFS_RELEASE;
	f->value = yes_no(!kv || kv >= d->since);
	f->why = why;
}

static void config_fact(struct tg_lfact *f, const struct tg_kernel *k, int tristate)
{
	f->value = tristate;
	f->source = tristate == TG_UNKNOWN ? TG_LFS_NONE : TG_LFS_CONFIG;
	f->file = k->config_path;
	f->why = "no .config";
}

void tg_loader_facts_get(const struct tg_kernel *k, struct tg_loader_facts *lf)
{
	char *why = lf->why;
	const int config[TG_LF__N] = {
		[TG_LF_MODVERSIONS] = k->modversions, [TG_LF_FORCE_LOAD] = k->force_load,
		[TG_LF_SIG_FORCE] = k->sig_force, [TG_LF_LIVEPATCH] = k->livepatch,
		[TG_LF_ALLOW_MISSING_NS] = k->allow_missing_ns,
		[TG_LF_PLATFORM_KEYRING] = k->platform_keyring,
		[TG_LF_RHEL_DIFFERENCES] = k->rhel_differences,
		[TG_LF_SUSE_KERNEL_SUPPORTED] = k->suse_supported,
	};
	unsigned bits = 0, cols = tg_symvers_columns(k->symvers);
	bool have_map = false;

	memset(lf, 0, sizeof(*lf));
	lf->kv = k->version;
	if (k->keyring)
		bits = tg_keyring_loader_bits(k->keyring, lf->why, sizeof(lf->why));
	else
		snprintf(lf->why, sizeof(lf->why), "no image");
	have_map = k->sysmap_path && (bits & TG_LF_SYSMAP_REAL);
	for (unsigned i = 0; i < TG_LF__N; i++) {
		const struct tg_lf_desc *d = &tg_lf_desc[i];
		struct tg_lfact *f = &lf->f[i];

		f->what = d->what;
		switch (d->source) {
		case TG_LFS_IMAGE:
			f->file = k->image_path ? k->image_path : tg_keyring_source(k->keyring);
			if (bits & TG_LF_SCANNED) {
				f->source = TG_LFS_IMAGE;
				f->value = yes_no(bits & (1u << i));
				f->cached = tg_keyring_cache_entry(k->keyring);
			} else if (d->since) {
				from_release(f, d, k->version, why);
			} else {
				f->value = TG_UNKNOWN;
				f->why = why;
			}
			break;
		case TG_LFS_SYSMAP:
			f->file = k->sysmap_path;
			f->value = have_map ? yes_no(bits & (1u << i)) : TG_UNKNOWN;
			f->source = have_map ? TG_LFS_SYSMAP : TG_LFS_NONE;
			f->why = !k->sysmap_path ? "no System.map" : (bits & TG_LF_SCANNED) ?
				 "System.map has no symbols (a placeholder)" : why;
			break;
		case TG_LFS_CONFIG:
			config_fact(f, k, config[i]);
			break;
		case TG_LFS_EXPORTS:
			f->file = k->symvers_path;
			if (cols) {
				f->source = TG_LFS_EXPORTS;
				f->value = yes_no(cols >= 5);
				f->size = cols;
			} else {
				from_release(f, d, k->version, "no export list");
			}
			break;
		case TG_LFS_INTREE:
			f->file = k->this_module_size_source;
			f->size = k->this_module_size;
			f->value = k->this_module_size ? TG_YES : TG_UNKNOWN;
			f->source = k->this_module_size ? TG_LFS_INTREE : TG_LFS_NONE;
			f->why = "no in-tree module";
			break;
		case TG_LFS_ROOTCONF:
			tg_suse_fact(k, i, f);
			break;
		default:
			break;
		}
	}
}

bool tg_lf_on(const struct tg_loader_facts *lf, enum tg_lf id)
{
	return lf->f[id].value == TG_YES;
}

char *tg_lf_assumed(const struct tg_loader_facts *lf, enum tg_lf id)
{
	const struct tg_lfact *f = &lf->f[id];
	unsigned kv = lf->kv;

	if (f->source != TG_LFS_RELEASE)
		return NULL;
	if (!kv)
		return strf("rule %s assumed from the newest kernels: release unknown, %s",
			    tg_lf_desc[id].name, f->why ? f->why : "no file");
	return strf("rule %s assumed from release %u.%u: %s", tg_lf_desc[id].name, kv >> 16,
		    (kv >> 8) & 0xff, f->why ? f->why : "no file");
}

/* ------------------------------------------------------------- reporting */

static const char *source_name(enum tg_lf_source s)
{
	static const char *const names[] = {
		[TG_LFS_NONE] = "none", [TG_LFS_IMAGE] = "image", [TG_LFS_SYSMAP] = "System.map",
		[TG_LFS_CONFIG] = ".config", [TG_LFS_EXPORTS] = "export list",
		[TG_LFS_INTREE] = "in-tree module", [TG_LFS_RELEASE] = "release",
		[TG_LFS_ROOTCONF] = "root configuration",
	};

	return names[s];
}

static char *evidence(const struct tg_loader_facts *lf, enum tg_lf id)
{
	const struct tg_lfact *f = &lf->f[id];
	const char *file = f->file ? f->file : "?";
	bool yes = f->value == TG_YES;

	switch (f->source) {
	case TG_LFS_IMAGE:
		/* the cache is said: the image was not decoded in this run */
		return strf("string \"%s\" %s in %s%s%s%s", f->what, yes ? "found" : "absent", file,
			    f->cached ? " (cache " : "", f->cached ? f->cached : "", f->cached ? ")" : "");
	case TG_LFS_SYSMAP:
		return strf("symbol %s %s in %s", f->what, yes ? "found" : "absent", file);
	case TG_LFS_CONFIG:
		return strf("%s %s in %s", f->what, yes ? "set" : "not set", file);
	case TG_LFS_EXPORTS:
		return strf("%zu columns in %s", f->size, file);
	case TG_LFS_INTREE:
		return strf("size of %s in %s", f->what, file);
	case TG_LFS_RELEASE:
		return tg_lf_assumed(lf, id);
	case TG_LFS_ROOTCONF:
		return tg_suse_evidence(id, f);
	case TG_LFS_NONE:
		break;
	}
	return strf("unknown: %s", f->why ? f->why : "no file answers");
}

void tg_kernel_facts_free(struct tg_kernel_fact *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		free(f[i].evidence);
	free(f);
}

int tg_kernel_facts(const struct tg_kernel *k, struct tg_kernel_fact **out, size_t *n,
		    struct tg_error *err)
{
	struct tg_loader_facts lf;
	struct tg_kernel_fact *v;

	*out = NULL;
	*n = 0;
	if (!k)
		return tg_fail(err, -EINVAL, "kernel facts: no kernel");
	v = calloc(TG_LF__N, sizeof(*v));
	if (!v)
		return tg_fail(err, -ENOMEM, "kernel facts: out of memory");
	tg_loader_facts_get(k, &lf);
	for (unsigned i = 0; i < TG_LF__N; i++) {
		const struct tg_lfact *f = &lf.f[i];

		v[i].name = tg_lf_desc[i].name;
		v[i].source = source_name(f->source);
		if ((i == TG_LF_STRUCT_MODULE_SIZE && f->size) || f->source == TG_LFS_ROOTCONF)
			snprintf(v[i].value, sizeof(v[i].value), "%zu", f->size);
		else
			snprintf(v[i].value, sizeof(v[i].value), "%s", f->value == TG_YES ? "yes" :
				 f->value == TG_NO ? "no" : "unknown");
		v[i].evidence = evidence(&lf, i);
		if (!v[i].evidence) {
			tg_kernel_facts_free(v, i);
			return tg_fail(err, -ENOMEM, "kernel facts: out of memory");
		}
	}
	*out = v;
	*n = TG_LF__N;
	return 0;
}
