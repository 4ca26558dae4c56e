/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What each loader fact is read from (the image's loader messages, System.map
 * symbols, .config options; the reasons are in loader_facts.c and
 * docs/loader-rules.md), and the searches of the image and of System.map.
 * Kept apart from the gathering: the image and System.map are searched while
 * the keyring reads them (keyring.c, kimage_certs.c), and the gathering asks
 * the keyring for the result.
 */
#include <stdbool.h>
#include <string.h>

#include "loader_facts.h"

const struct tg_lf_desc tg_lf_desc[TG_LF__N] = {
	[TG_LF_TEST_TAINT] = { "test-module-taint", TG_LFS_IMAGE,
			       "loading test module taints kernel.", TG_KVER(6, 0, 0) },
	[TG_LF_ELF_UNIQUE] = { "unique-sections", TG_LFS_IMAGE,
			       "Only one .modinfo section must exist.", TG_KVER(6, 4, 0) },
	[TG_LF_MODSTRUCT_CHECK] = { "struct-module-size-check", TG_LFS_IMAGE,
				    "struct module size at run time", TG_KVER(6, 4, 0) },
	/*
	 * No message tells where the taints are applied: "module: converge
	 * taint work together" came in the same 6.4 merge as the ELF checks,
	 * whose message stands for it.
	 */
	[TG_LF_LATE_TAINTS] = { "taints-after-checks", TG_LFS_IMAGE,
				"Only one .modinfo section must exist.", TG_KVER(6, 4, 0) },
	[TG_LF_STRTAB_TYPED] = { "string-tables-typed", TG_LFS_IMAGE,
				 "Invalid ELF section name table type", TG_KVER(7, 2, 0) },
	[TG_LF_INHERIT_TAINT] = { "proprietary-taint-inherited", TG_LFS_IMAGE,
				  "inheriting taint", TG_KVER(5, 9, 0) },
	[TG_LF_MODULE_NS] = { "module-namespaces", TG_LFS_IMAGE,
			      "module tries to import module namespace", TG_KVER(6, 16, 0) },
	[TG_LF_NS_IMPORTS] = { "namespace-imports-checked", TG_LFS_IMAGE,
			       "but does not import it", TG_KVER(5, 4, 0) },
	[TG_LF_SUSE_SUPPORTED] = { "suse-supported-flag", TG_LFS_IMAGE,
				   "module not supported by SUSE", 0 },
	[TG_LF_RHEL_CHECK_STATUS] = { "rhel-check-status", TG_LFS_SYSMAP,
				      "module_rh_check_status", 0 },
	[TG_LF_RHEL_PARTNER] = { "rhel-partner-supported", TG_LFS_SYSMAP,
				 "mark_partner_supported", 0 },
	[TG_LF_MODVERSIONS] = { "modversions", TG_LFS_CONFIG, "CONFIG_MODVERSIONS", 0 },
	[TG_LF_FORCE_LOAD] = { "force-load", TG_LFS_CONFIG, "CONFIG_MODULE_FORCE_LOAD", 0 },
	[TG_LF_SIG_FORCE] = { "signatures-enforced", TG_LFS_CONFIG, "CONFIG_MODULE_SIG_FORCE", 0 },
	[TG_LF_LIVEPATCH] = { "livepatch", TG_LFS_CONFIG, "CONFIG_LIVEPATCH", 0 },
	[TG_LF_ALLOW_MISSING_NS] = { "missing-namespace-imports-allowed", TG_LFS_CONFIG,
				     "CONFIG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS", 0 },
	[TG_LF_PLATFORM_KEYRING] = { "platform-keyring", TG_LFS_CONFIG,
				     "CONFIG_INTEGRITY_PLATFORM_KEYRING", 0 },
	[TG_LF_RHEL_DIFFERENCES] = { "rhel-differences", TG_LFS_CONFIG,
				     "CONFIG_RHEL_DIFFERENCES", 0 },
	[TG_LF_SUSE_KERNEL_SUPPORTED] = { "suse-kernel-supported", TG_LFS_CONFIG,
					  "CONFIG_SUSE_KERNEL_SUPPORTED", 0 },
	[TG_LF_EXPORT_NS_COLUMN] = { "export-namespace-column", TG_LFS_EXPORTS,
				     "a namespace column (5 tab-separated fields)", TG_KVER(5, 4, 0) },
	[TG_LF_STRUCT_MODULE_SIZE] = { "struct-module-size", TG_LFS_INTREE,
				       ".gnu.linkonce.this_module", 0 },
	[TG_LF_SUSE_SYSMAP] = { "suse-unsupported-symbol", TG_LFS_SYSMAP, "suse_unsupported", 0 },
	[TG_LF_SUSE_UNSUPPORTED_SYSCTL] = { "suse-unsupported-sysctl", TG_LFS_ROOTCONF,
					    "kernel.unsupported", 0 },
	[TG_LF_SUSE_ALLOW_UNSUPPORTED] = { "suse-allow-unsupported-modules", TG_LFS_ROOTCONF,
					   "allow_unsupported_modules", 0 },
};

const char *tg_lf_name(enum tg_lf id)
{
	return id < TG_LF__N ? tg_lf_desc[id].name : "unknown";
}

/* ------------------------------------------------------------ searching */

unsigned tg_lf_scan_image(const unsigned char *p, size_t len)
{
	unsigned bits = TG_LF_SCANNED;

	for (unsigned i = 0; i < TG_LF__N; i++)
		if (tg_lf_desc[i].source == TG_LFS_IMAGE && p &&
		    memmem(p, len, tg_lf_desc[i].what, strlen(tg_lf_desc[i].what)))
			bits |= 1u << i;
	return bits;
}

/* "ADDRESS T NAME" lines: a symbol named exactly @name, of any type. */
static bool sysmap_has(const char *map, size_t len, const char *name)
{
	size_t n = strlen(name);
	const char *p = map, *end = map + len;

	while (p < end && (p = memmem(p, (size_t)(end - p), name, n))) {
		bool starts = p - map >= 3 && p[-1] == ' ' && p[-3] == ' ';
		bool ends = p + n == end || p[n] == '\n' || p[n] == '\t' || p[n] == '\r';

		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}

unsigned tg_lf_scan_sysmap(const char *map, size_t len)
{
	/* Debian ships a one-line placeholder: absent symbols mean nothing there */
	unsigned bits = map && sysmap_has(map, len, "_text") ? TG_LF_SYSMAP_REAL : 0;

	for (unsigned i = 0; i < TG_LF__N; i++)
		if (tg_lf_desc[i].source == TG_LFS_SYSMAP && map && sysmap_has(map, len, tg_lf_desc[i].what))
			bits |= 1u << i;
	return bits;
}
