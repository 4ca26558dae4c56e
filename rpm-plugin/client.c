/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which application runs the transaction, where that decides whether our
 * rpmlog lines reach the person at the terminal.  dnf5 (libdnf5) installs
 * an rpmlog callback that prints nothing itself: it buffers every message
 * and shows the buffer only at the next element's INST_STOP, UNINST_STOP,
 * SCRIPT_STOP or UNPACK_ERROR callback.  An element refused in psm_pre gets
 * none of these (rpm calls no callback for it), so when nothing follows it
 * the reason is only in dnf5.log.  dnf 4 does the same with a file: it points
 * rpmlog at a temporary file (rpm.setLogFile) and shows that file's new lines
 * at the same callbacks.  docs/clients.md has the details.
 */
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmlog.h>

#include "tgp.h"

static int find_libdnf5(struct dl_phdr_info *info, size_t size, void *data)
{
	const char *name = info->dlpi_name, *base;

	(void)size;
	(void)data;
	if (!name || !*name)
		return 0;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	return strncmp(base, "libdnf5.so", 10) == 0;
}

/* rpmlog writes to a file of the application's, not to the terminal (dnf 4). */
static bool log_to_file(void)
{
	FILE *f = rpmlogSetFile(NULL);	/* the only way to read it: set back at once */

	rpmlogSetFile(f);
	return f && f != stderr && f != stdout;
}

bool tgp_client_hides_log(void)
{
	return log_to_file() || dl_iterate_phdr(find_libdnf5, NULL) != 0;
}

void tgp_say(struct tgp_state *st, int lvl, bool echo, const char *fmt, ...)
{
	char *msg = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	rpmlog(lvl, "%s", msg);
	/* the client would keep it in its log file only: say it on stderr too */
	if (echo && st->hidden_log) {
		fputs(msg, stderr);
		fflush(stderr);
	}
	free(msg);
}
