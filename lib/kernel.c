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
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "kernel_internal.h"
#include "vendor_rhel.h"
#include "vendor_suse.h"

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
	free(k->this_module_size_source);
	strv_free_array(k->trusted_keys, k->n_trusted_keys);
	free(k->trusted_keys_source);
	free(k->image_path);
	free(k->sysmap_path);
	tg_suse_root_free(k->suse);
	tg_keyring_free(k->keyring);
	free(k->loadable_compressions_source);
	strv_free_array(k->notes, k->n_notes);
	tg_rhel_free(k->rhel);
	free(k);
}

static int kernel_note(struct tg_kernel *k, const char *msg)
{
	struct strv sv = { .v = k->notes, .n = k->n_notes, .cap = k->n_notes };
	int r = strv_push(&sv, msg);

	k->notes = sv.v;
	k->n_notes = sv.n;
	return r;
}

/*
 * One of the places a kernel's file may be below @root; *p NULL when the
 * place cannot be resolved there (noted: a link loop in the root is a broken
 * root to say, not "out of memory").
 */
static int kernel_place(struct tg_kernel *k, const char *root, const struct tg_kplace *pl,
			char **p, struct tg_error *err)
{
	char *note = NULL;
	int r = tg_root_kpath_try(root, pl, k->release, p, &note);

	if (r == 0 && note)
		r = kernel_note(k, note);
	free(note);
	return r < 0 ? tg_fail(err, -ENOMEM, "out of memory") : 0;
}

/* RHEL's platform keys and kABI stablelist (vendor_rhel.c), its problems as notes */
static int kernel_rhel(struct tg_kernel *k, const char *root, const struct tg_limits *lim)
{
	struct strv notes = { 0 };
	int r = tg_rhel_kernel_load(k, root, lim, &notes);

	for (size_t i = 0; r == 0 && i < notes.n; i++)
		r = kernel_note(k, notes.v[i]);
	strv_free(&notes);
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
	for (size_t i = 0; i < tg_n_symvers_places; i++) {
		struct tg_error e = { 0 };
		char *p;

		r = kernel_place(k, root, &tg_symvers_places[i], &p, err);
		if (r < 0)
			return r;
		if (!p || !tg_is_readable_file(p)) {
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
			 const struct tg_limits *lim, struct tg_kconfig *c, bool *have,
			 struct tg_error *err)
{
	int r;

	*have = false;
	if (o->config_data) {
		if ((uint64_t)o->config_len > lim->max_input_size)
			return tg_fail(err, -EFBIG, "%s: larger than the input size limit",
				       o->config_label ? o->config_label : ".config");
		tg_config_parse(o->config_data, o->config_len, c);
		k->config_path = strdup(o->config_label ? o->config_label : "<.config in memory>");
		*have = true;
		return k->config_path ? 0 : tg_fail(err, -ENOMEM, "out of memory");
	}
	if (o->config_path) {
		r = tg_config_load(o->config_path, lim->max_input_size, c, err);
		if (r < 0)
			return r;
		k->config_path = strdup(o->config_path);
		*have = true;
		return k->config_path ? 0 : tg_fail(err, -ENOMEM, "out of memory");
	}
	if (!k->release)
		return 0;
	for (size_t i = 0; i < tg_n_config_places; i++) {
		struct tg_error e = { 0 };
		char *p;

		r = kernel_place(k, root, &tg_config_places[i], &p, err);
		if (r < 0)
			return r;
		if (!p)
			continue;
		if (tg_is_readable_file(p) && tg_config_load(p, lim->max_input_size, c, &e) == 0) {
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

static int tristate(const struct tg_kconfig *c, enum cfg_key key)
{
	return c ? (c->on[key] ? TG_YES : TG_NO) : TG_UNKNOWN;
}

/* The loader's switches of @c (NULL: no .config, all unknown). */
static void kernel_apply_config(struct tg_kernel *k, const struct tg_kconfig *c)
{
	k->e_machine = tg_config_machine(c);
	k->elf_data = tg_config_elf_data(c);
	k->modversions = tristate(c, CFG_MODVERSIONS);
	k->module_sig = tristate(c, CFG_MODULE_SIG);
	k->sig_force = tristate(c, CFG_MODULE_SIG_FORCE);
	k->force_load = tristate(c, CFG_MODULE_FORCE_LOAD);
	k->allow_missing_ns = tristate(c, CFG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS);
	k->livepatch = tristate(c, CFG_LIVEPATCH);
	k->platform_keyring = tristate(c, CFG_INTEGRITY_PLATFORM_KEYRING);
	k->rhel_differences = tristate(c, CFG_RHEL_DIFFERENCES);
	k->suse_supported = tristate(c, CFG_SUSE_KERNEL_SUPPORTED);
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
static void kernel_loader(struct tg_kernel *k, const char *root, const struct tg_kconfig *c)
{
	unsigned kmod = tg_kmod_compressions(root, &k->loadable_compressions_source);
	unsigned inkernel = 0;

	if (!kmod)
		return;
	if (c && c->on[CFG_MODULE_DECOMPRESS])
		inkernel = (c->on[CFG_MODULE_COMPRESS_GZIP] ? 1u << TG_COMP_GZIP : 0) |
			   (c->on[CFG_MODULE_COMPRESS_XZ] ? 1u << TG_COMP_XZ : 0) |
			   (c->on[CFG_MODULE_COMPRESS_ZSTD] ? 1u << TG_COMP_ZSTD : 0);
	k->loadable_compressions = kmod | inkernel | 1u << TG_COMP_NONE;
}

/* VERMAGIC_STRING from .config when no in-tree module gave it. */
static int kernel_vermagic_from_config(struct tg_kernel *k, const struct tg_kconfig *c)
{
	if (k->vermagic || !k->release || !c)
		return 0;
	k->vermagic = tg_config_vermagic(c, k->release);
	if (!k->vermagic) {
		return kernel_note(k, "vermagic unknown: no in-tree module, and .config does not "
				      "determine it (architecture or randstruct)");
	}
	k->vermagic_source = strdup(k->config_path);
	return k->vermagic_source ? 0 : -ENOMEM;
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
		if (named[i] && !tg_is_readable_file(named[i]))
			return tg_fail(err, -ENOENT, "%s: cannot read the kernel %s", named[i],
				       i ? "System.map" : "image");
	k->image_path = o->image_path ? strdup(o->image_path) :
			k->release ? tg_kplace_find_existing(root, tg_image_places,
							     tg_n_image_places, k->release) :
			NULL;
	if (o->image_path && !k->image_path)
		return tg_fail(err, -ENOMEM, "out of memory");
	if (!k->image_path)
		return 0;
	k->sysmap_path = o->sysmap_path ? strdup(o->sysmap_path) :
			 k->release ? tg_kplace_find_first(root, tg_sysmap_places,
							   tg_n_sysmap_places, k->release) :
			 NULL;
	k->keyring = tg_keyring_lazy(k->image_path, k->sysmap_path, lim);
	if (!k->keyring || (o->sysmap_path && !k->sysmap_path))
		return tg_fail(err, -ENOMEM, "out of memory");
	return 0;
}

/* What the release's in-tree modules say (vermagic, struct module size, keys). */
static int kernel_intree(struct tg_kernel *k, const char *root, const struct tg_limits *lim,
			 struct tg_error *err)
{
	static const struct tg_kplace dirs[] = {
		{ "/lib/modules/", "/kernel" },
		{ "/usr/lib/modules/", "/kernel" },
	};
	char *d1 = NULL, *d2 = NULL;
	int r = kernel_place(k, root, &dirs[0], &d1, err);

	if (r == 0)
		r = kernel_place(k, root, &dirs[1], &d2, err);
	if (r == 0)
		r = tg_kernel_learn_from_intree(k, d1, d2, lim);
	free(d1);
	free(d2);
	return r;
}

int tg_kernel_load(const struct tg_kernel_opts *opts, struct tg_kernel **out,
		   struct tg_error *err)
{
	struct tg_limits def;
	const struct tg_limits *lim;
	struct tg_kernel *k = NULL;
	struct tg_kconfig cfg;
	bool have_cfg = false;
	char *root = NULL;
	int r;

	if (out)
		*out = NULL;
	if (!opts || !out)
		return tg_fail(err, -EINVAL, "kernel: no options");
	if (!opts->release && !opts->symvers_path)
		return tg_fail(err, -EINVAL, "kernel: neither a release nor a Module.symvers given");
	if (opts->release && !tg_release_is_sane(opts->release))
		return tg_fail(err, -EINVAL, "%s: not a kernel release", opts->release);
	if (opts->limits) {
		lim = opts->limits;
	} else {
		tg_limits_default(&def);
		lim = &def;
	}
	root = tg_root_prefix(opts->root);
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
	/* SUSE's settings count only where the loader has the supported flag */
	if (k->suse_supported != TG_NO && (r = tg_suse_root_load(root, lim, &k->suse)) < 0) {
		r = tg_fail(err, r, "kernel: out of memory");
		goto fail;
	}
	r = kernel_image(k, opts, root, lim, err);
	if (r < 0)
		goto fail;
	if (k->release) {
		r = kernel_intree(k, root, lim, err);
		if (r == 0)
			r = kernel_vermagic_from_config(k, have_cfg ? &cfg : NULL);
		if (r == 0)
			kernel_loader(k, root, have_cfg ? &cfg : NULL);
		if (r == 0)
			r = kernel_rhel(k, root, lim);
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
