/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard audit lives in its own program (it links librpm and the
 * repository libraries, which `taintguard check` must not need): the
 * subcommand, and `explain` of a package file, run it.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "paths.h"

/*
 * Run taintguard-audit: the one next to this program first (a build tree,
 * or a package that puts both in one directory), else the installed one.
 */
int cmd_audit_exec(int argc, char **argv)
{
	char self[PATH_MAX], next[PATH_MAX + 32];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	const char *prog = TG_LIBEXECDIR "/taintguard-audit";

	(void)argc;
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			snprintf(next, sizeof(next), "%staintguard-audit", self);
			if (access(next, X_OK) == 0)
				prog = next;
		}
	}
	argv[0] = (char *)"taintguard audit";
	execv(prog, argv);
	cli_error("audit needs the rpm support of taintguard: cannot run %s: %s", prog,
		  strerror(errno));
	return TG_EXIT_ERROR;
}
