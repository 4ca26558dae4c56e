/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard-dkms: apply the taintguard policy to every kernel module DKMS
 * builds.  See taintguard-dkms(8) and hooks/README.md.
 */
#include <stdio.h>
#include <string.h>

#include "hook.h"

static void usage(FILE *out)
{
	fputs("Usage: taintguard-dkms MODE [ARGS]\n\n"
	      "Applies the taintguard policy to the kernel modules DKMS builds.  dkms runs\n"
	      "it; see taintguard-dkms(8).  Modes:\n"
	      "  sign-file HASH KEY CERT MODULE   dkms's sign_file callback (also run as\n"
	      "                                   " SIGN_NAME "): sign with the real\n"
	      "                                   signer, then judge MODULE\n"
	      "  pre-install [SCRIPT ARGS...]     a dkms PRE_INSTALL script (also run as\n"
	      "                                   " PREINSTALL_NAME "): refuse the\n"
	      "                                   install of a denied module (exit 1)\n"
	      "  kernel-postinst KVER [IMAGE]     /etc/kernel/postinst.d hook: uninstall denied\n"
	      "                                   DKMS modules of KVER (exit 0 unless\n"
	      "                                   fail_kernel_upgrade=yes)\n"
	      "  after-dkms DKMS-ARGS...          run by the dkms wrapper after dkms\n"
	      "  sync                             drop records and modprobe.d rules of\n"
	      "                                   DKMS modules that are gone\n"
	      "  audit KVER                       like kernel-postinst, with a summary line\n\n"
	      "Settings: " TG_SYSCONFDIR "/dkms.conf (or $TAINTGUARD_DKMS_CONF):\n"
	      "  mode=enforce|warn  fail_kernel_upgrade=no|yes  sign_file_deny=auto|unlink|keep\n"
	      "  policy=FILE  sign_file=PROG  dkms=PROG  dkms_tree=DIR  install_tree=DIR\n"
	      "  modprobe_dir=DIR  marks_dir=DIR  framework_conf=FILE\n", out);
}

static int mode_audit_cmd(int argc, char **argv)
{
	struct settings s;
	int denied;

	if (argc != 2) {
		usage(stderr);
		return 2;
	}
	hk_settings_load(&s);
	denied = hk_audit_kernel(&s, argv[1], true);
	hk_rule_sync(&s, true);
	hk_record_sync(&s, true);
	if (denied < 0)
		return 2;
	printf("%d denied DKMS module(s) for kernel %s\n", denied, argv[1]);
	return denied ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} modes[] = {
		{ "sign-file", hk_mode_sign },
		{ "pre-install", hk_mode_preinstall },
		{ "kernel-postinst", hk_mode_kernel_postinst },
		{ "after-dkms", hk_mode_after_dkms },
		{ "sync", hk_mode_sync },
		{ "audit", mode_audit_cmd },
	};
	const char *base = strrchr(argv[0], '/');

	base = base ? base + 1 : argv[0];
	/* one thread yet: the module parsers' spawner starts with no lock held */
	tg_reader_init();
	if (!strcmp(base, SIGN_NAME))
		return hk_mode_sign(argc, argv);
	if (!strcmp(base, PREINSTALL_NAME))
		return hk_mode_preinstall(argc, argv);
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("taintguard-dkms %s\n", TG_VERSION_STRING);
		return 0;
	}
	for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(argv[1], modes[i].name))
			return modes[i].fn(argc - 1, argv + 1);
	hk_msg("unknown mode '%s'", argv[1]);
	usage(stderr);
	return 2;
}
