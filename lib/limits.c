/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Resource limits for untrusted input: the defaults, and setting them by
 * name so that every front end (command line, rpm macros, DKMS settings)
 * offers the same names.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void tg_limits_default(struct tg_limits *lim)
{
	lim->max_input_size = 512ull << 20;
	/* The largest Debian 6.1 module is ~20 MiB decoded; leave headroom. */
	lim->max_module_size = 256ull << 20;
	lim->max_sections = 65535;
	lim->max_symbols = 1u << 20;
	lim->max_modinfo = 1u << 16;
	lim->max_symvers_size = 64ull << 20;
	lim->max_policy_size = 1u << 20;
	lim->max_policy_depth = 32;
	/* Debian 12's x86 vmlinux decodes to 63 MiB, its arm64 Image to ~40 MiB */
	lim->max_kernel_image_size = 256ull << 20;
}

int tg_parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || *s < '0' || *s > '9')		/* strtoull would accept " -1" */
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	}
	if (*end || v > (UINT64_MAX >> shift))
		return -EINVAL;
	*out = (uint64_t)v << shift;
	return 0;
}

static const struct {
	const char *name;
	size_t off;
	bool wide;	/* uint64_t, else uint32_t */
} limit_names[] = {
	{ "input-size", offsetof(struct tg_limits, max_input_size), true },
	{ "module-size", offsetof(struct tg_limits, max_module_size), true },
	{ "sections", offsetof(struct tg_limits, max_sections), false },
	{ "symbols", offsetof(struct tg_limits, max_symbols), false },
	{ "modinfo", offsetof(struct tg_limits, max_modinfo), false },
	{ "symvers-size", offsetof(struct tg_limits, max_symvers_size), true },
	{ "policy-size", offsetof(struct tg_limits, max_policy_size), true },
	{ "policy-depth", offsetof(struct tg_limits, max_policy_depth), false },
	{ "kernel-image-size", offsetof(struct tg_limits, max_kernel_image_size), true },
};

int tg_limits_set(struct tg_limits *lim, const char *assignment, struct tg_error *err)
{
	const char *eq = assignment ? strchr(assignment, '=') : NULL;
	size_t n = eq ? (size_t)(eq - assignment) : 0;
	uint64_t v;

	if (!eq)
		return tg_fail(err, -EINVAL, "limit '%s': expected NAME=VALUE",
			       assignment ? assignment : "");
	for (size_t i = 0; i < TG_ARRAY_SIZE(limit_names); i++) {
		if (strlen(limit_names[i].name) != n || strncmp(assignment, limit_names[i].name, n))
			continue;
		if (tg_parse_size(eq + 1, &v) < 0 || v == 0 ||
		    (!limit_names[i].wide && v > UINT32_MAX))
			return tg_fail(err, -EINVAL, "limit '%s': not a positive number%s", assignment,
				       limit_names[i].wide ? " (suffixes K, M, G)" : " below 2^32");
		if (limit_names[i].wide)
			*(uint64_t *)((char *)lim + limit_names[i].off) = v;
		else
			*(uint32_t *)((char *)lim + limit_names[i].off) = (uint32_t)v;
		return 0;
	}
	return tg_fail(err, -EINVAL, "limit '%s': unknown name (known: input-size, module-size, "
		       "sections, symbols, modinfo, symvers-size, policy-size, policy-depth, "
		       "kernel-image-size)",
		       assignment);
}
