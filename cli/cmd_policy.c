/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taintguard policy check|show: validate or print a policy. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void policy_usage(FILE *out)
{
	fputs("Usage: taintguard policy check [FILE...]\n"
	      "       taintguard policy show [FILE]\n"
	      "       taintguard policy sync --kernel-source DIR [--policy FILE] [--write]\n\n"
	      "check  validate policy files (default: the installed policy); errors are\n"
	      "       reported as FILE:LINE:COLUMN: message\n"
	      "show   print the effective policy (the installed one unless FILE is given)\n"
	      "sync   compare the policy's forced-taint names and license strings with a\n"
	      "       kernel source tree; --write updates the policy (see taintguard(1))\n\n"
	      "Exit codes: 0 valid, 3 invalid or unreadable.\n", out);
}

static int policy_check(int argc, char **argv, const struct tg_limits *lim)
{
	int rc = 0;

	if (argc == 0) {
		static const char *def[1];

		def[0] = tg_policy_default_path();
		argv = (char **)def;
		argc = 1;
	}
	for (int i = 0; i < argc; i++) {
		struct tg_policy *p = NULL;
		struct tg_error err = { 0 };

		if (tg_policy_load_path(argv[i], lim, &p, &err) < 0) {
			cli_error("%s", err.msg);
			rc = TG_EXIT_ERROR;
			continue;
		}
		printf("%s: valid\n", argv[i]);
		tg_policy_free(p);
	}
	return rc;
}

static int policy_show(int argc, char **argv, const struct tg_limits *lim)
{
	const char *path = argc > 0 ? argv[0] : tg_policy_default_path();
	struct tg_policy *p = NULL;
	struct tg_error err = { 0 };
	int rc = 0;

	if (tg_policy_load_path(path, lim, &p, &err) < 0) {
		cli_error("%s", err.msg);
		return TG_EXIT_ERROR;
	}
	printf("# effective policy, from %s\n", path);
	if (tg_policy_dump(p, stdout) < 0)
		rc = TG_EXIT_ERROR;
	tg_policy_free(p);
	return rc;
}

int cmd_policy(int argc, char **argv)
{
	struct tg_limits lim;

	tg_limits_default(&lim);
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		policy_usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? TG_EXIT_ERROR : 0;
	}
	if (!strcmp(argv[1], "check"))
		return policy_check(argc - 2, argv + 2, &lim);
	if (!strcmp(argv[1], "show"))
		return policy_show(argc - 2, argv + 2, &lim);
	if (!strcmp(argv[1], "sync"))
		return cmd_policy_sync(argc - 1, argv + 1, &lim);
	cli_error("unknown policy command '%s'", argv[1]);
	policy_usage(stderr);
	return TG_EXIT_ERROR;
}
