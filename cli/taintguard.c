/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard — the command: dispatch to subcommands.  `audit` reads rpm
 * packages and lives in its own program, taintguard-audit (the only part
 * linked with librpm), which this one runs.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
} commands[] = {
	{ "check", cmd_check, "predict what the kernel does with module files" },
	{ "audit", cmd_audit_exec, "audit the kernel modules of packages, repositories or the system" },
	{ "explain", cmd_explain, "the full explanation of a verdict: a marked package, or a file" },
	{ "status", cmd_status, "list installed packages and DKMS modules taintguard marked" },
	{ "policy", cmd_policy, "validate or show a policy" },
	{ "kernel", cmd_kernel, "show what a kernel's module loader does, read from its files" },
};

static void usage(FILE *out)
{
	fputs("Usage: taintguard COMMAND [OPTIONS] [ARGS]\n\n"
	      "Predicts what the Linux kernel's module loader does with kernel modules\n"
	      "(taint flags, refusal and why) and applies a policy: allow, mark or deny.\n\n"
	      "Commands:\n", out);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s\n", commands[i].name, commands[i].summary);
	fputs("\nRun 'taintguard COMMAND --help' for a command's options.\n"
	      "Exit codes: 0 all allowed, 1 something marked, 2 something denied,\n"
	      "3 usage error or unreadable input.\n"
	      "  -h, --help     show this help\n"
	      "  -V, --version  show the version\n", out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return TG_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("taintguard %s\n", TG_VERSION_STRING);
		return 0;
	}
	/* every command answers --version the same way */
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--version")) {
			printf("taintguard %s\n", TG_VERSION_STRING);
			return 0;
		}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			/* one thread yet: the module parsers' spawner starts with no lock held (audit execs its own program) */
			if (commands[i].fn != cmd_audit_exec)
				tg_reader_init();
			return commands[i].fn(argc - 1, argv + 1);
		}
	cli_error("unknown command '%s' (see 'taintguard --help')", argv[1]);
	return TG_EXIT_ERROR;
}
