/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The kernel .config read: which of the options the loader's behaviour
 * depends on are set (MODVERSIONS, MODULE_SIG, MODULE_COMPRESS_* ...), and
 * what follows from them alone: VERMAGIC_STRING composed as
 * include/linux/vermagic.h does, the ELF machine.  Nothing here knows the
 * kernel being gathered: kernel.c applies the answers to it.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>

#include "kernel_internal.h"


static const char *const cfg_names[CFG__N] = {
	[CFG_MODVERSIONS] = "MODVERSIONS",
	[CFG_MODULE_SIG] = "MODULE_SIG",
	[CFG_MODULE_SIG_FORCE] = "MODULE_SIG_FORCE",
	[CFG_MODULE_FORCE_LOAD] = "MODULE_FORCE_LOAD",
	[CFG_MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS] = "MODULE_ALLOW_MISSING_NAMESPACE_IMPORTS",
	[CFG_LIVEPATCH] = "LIVEPATCH",
	[CFG_RETPOLINE] = "RETPOLINE",
	[CFG_MITIGATION_RETPOLINE] = "MITIGATION_RETPOLINE",
	[CFG_SMP] = "SMP",
	[CFG_PREEMPT_BUILD] = "PREEMPT_BUILD",
	[CFG_PREEMPT] = "PREEMPT",
	[CFG_PREEMPT_RT] = "PREEMPT_RT",
	[CFG_MODULE_UNLOAD] = "MODULE_UNLOAD",
	[CFG_RANDSTRUCT] = "RANDSTRUCT",		/* 5.19+: FULL or PERFORMANCE */
	[CFG_GCC_PLUGIN_RANDSTRUCT] = "GCC_PLUGIN_RANDSTRUCT",	/* 4.13 - 5.18 */
	[CFG_X86_64] = "X86_64",
	[CFG_ARM64] = "ARM64",
	[CFG_S390] = "S390",
	[CFG_PPC] = "PPC",
	[CFG_MPROFILE_KERNEL] = "MPROFILE_KERNEL",
	[CFG_RELOCATABLE] = "RELOCATABLE",
	[CFG_RISCV] = "RISCV",
	[CFG_PPC64] = "PPC64",
	[CFG_CPU_BIG_ENDIAN] = "CPU_BIG_ENDIAN",
	[CFG_CPU_LITTLE_ENDIAN] = "CPU_LITTLE_ENDIAN",
	[CFG_MODULE_DECOMPRESS] = "MODULE_DECOMPRESS",
	[CFG_MODULE_COMPRESS_GZIP] = "MODULE_COMPRESS_GZIP",
	[CFG_MODULE_COMPRESS_XZ] = "MODULE_COMPRESS_XZ",
	[CFG_MODULE_COMPRESS_ZSTD] = "MODULE_COMPRESS_ZSTD",
	[CFG_INTEGRITY_PLATFORM_KEYRING] = "INTEGRITY_PLATFORM_KEYRING",
	[CFG_RHEL_DIFFERENCES] = "RHEL_DIFFERENCES",
	[CFG_SUSE_KERNEL_SUPPORTED] = "SUSE_KERNEL_SUPPORTED",
};


static void config_line(struct tg_kconfig *c, const char *line, size_t len)
{
	const char *name = line + 7, *eq;

	if (len < 9 || memcmp(line, "CONFIG_", 7))
		return;
	eq = memchr(name, '=', len - 7);
	if (!eq || eq + 1 >= line + len || (eq[1] != 'y' && eq[1] != 'm'))
		return;
	for (int i = 0; i < CFG__N; i++) {
		size_t n = strlen(cfg_names[i]);

		if ((size_t)(eq - name) == n && !memcmp(name, cfg_names[i], n)) {
			c->on[i] = true;
			return;
		}
	}
}

void tg_config_parse(const char *buf, size_t len, struct tg_kconfig *c)
{
	const char *p, *end;

	memset(c, 0, sizeof(*c));
	for (p = buf, end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);

		config_line(c, p, l);
		p += l + 1;
	}
}

int tg_config_load(const char *path, uint64_t cap, struct tg_kconfig *c, struct tg_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int r = tg_read_path(path, cap, (void **)&buf, &len, err);

	if (r < 0)
		return r;
	tg_config_parse(buf, len, c);
	free(buf);
	return 0;
}

/*
 * MODULE_ARCH_VERMAGIC (arch/x/include/asm/vermagic.h, formerly asm/module.h)
 * for the architectures whose part follows from .config alone; NULL for the
 * others (i386 CPU families, 32-bit arm, mips, ...): better unknown than wrong.
 */
static const char *arch_vermagic(const struct tg_kconfig *c, char *buf, size_t len)
{
	if (c->on[CFG_X86_64] || c->on[CFG_S390])
		return "";
	if (c->on[CFG_ARM64])
		return "aarch64";
	if (c->on[CFG_RISCV])
		return "riscv";
	if (c->on[CFG_PPC]) {
		snprintf(buf, len, "%s%s", c->on[CFG_MPROFILE_KERNEL] ? "mprofile-kernel " : "",
			 c->on[CFG_RELOCATABLE] ? "relocatable " : "");
		return buf;
	}
	return NULL;
}

/*
 * VERMAGIC_STRING as include/linux/vermagic.h builds it.  CONFIG_PREEMPT_BUILD
 * (5.16+, also set by PREEMPT_DYNAMIC) replaced CONFIG_PREEMPT in the test;
 * PREEMPT implies PREEMPT_BUILD where both exist, so either means "preempt ".
 * With randstruct the string ends in a hash of the build's seed, which no
 * .config holds: no answer then.
 */
char *tg_config_vermagic(const struct tg_kconfig *c, const char *release)
{
	char archbuf[64];
	const char *arch = arch_vermagic(c, archbuf, sizeof(archbuf));
	const char *preempt = "";

	if (!arch || c->on[CFG_RANDSTRUCT] || c->on[CFG_GCC_PLUGIN_RANDSTRUCT])
		return NULL;
	if (c->on[CFG_PREEMPT_BUILD] || c->on[CFG_PREEMPT])
		preempt = "preempt ";
	else if (c->on[CFG_PREEMPT_RT])
		preempt = "preempt_rt ";
	return strf("%s %s%s%s%s%s", release, c->on[CFG_SMP] ? "SMP " : "", preempt,
			   c->on[CFG_MODULE_UNLOAD] ? "mod_unload " : "",
			   c->on[CFG_MODVERSIONS] ? "modversions " : "", arch);
}

/*
 * elf_check_arch() of the architectures the config alone tells apart
 * (arch/x/include/asm/elf.h: e_machine == EM_X86_64, EM_AARCH64, EM_S390,
 * EM_RISCV, ELF_ARCH = EM_PPC64 with CONFIG_PPC64); 0 for the others
 * (32-bit ppc and arm, mips, ...): unknown is never refused.
 */
unsigned tg_config_machine(const struct tg_kconfig *c)
{
	if (!c)
		return 0;
	if (c->on[CFG_X86_64])
		return EM_X86_64;
	if (c->on[CFG_ARM64])
		return EM_AARCH64;
	if (c->on[CFG_S390])
		return EM_S390;
	if (c->on[CFG_RISCV])
		return EM_RISCV;
	if (c->on[CFG_PPC64])
		return EM_PPC64;
	return 0;
}

/*
 * The byte order the kernel reads a module's ELF header in (its own:
 * kernel/module/main.c reads e_type and e_machine as native integers):
 * ELFDATA2MSB or ELFDATA2LSB, 0 when the config does not say.  arm64,
 * ppc64 and mips choose with CPU_BIG_ENDIAN / CPU_LITTLE_ENDIAN; s390 is
 * big-endian only, x86 and riscv little-endian only.
 */
unsigned tg_config_elf_data(const struct tg_kconfig *c)
{
	if (!c)
		return 0;
	if (c->on[CFG_CPU_BIG_ENDIAN] || c->on[CFG_S390])
		return ELFDATA2MSB;
	if (c->on[CFG_CPU_LITTLE_ENDIAN] || c->on[CFG_X86_64] || c->on[CFG_RISCV] || c->on[CFG_ARM64])
		return ELFDATA2LSB;
	return 0;
}
