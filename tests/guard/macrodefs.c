/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tests/guard/run.sh: the names guard/ reads as defined in a macro file, one
 * per line, to compare with what the real rpm defines from the same file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

static int print(void *ctx, const struct guard_macro_def *d)
{
	(void)ctx;
	printf("%.*s\n", (int)d->name_len, d->name);
	return 0;
}

int main(int argc, char **argv)
{
	char *text;
	size_t len;
	int r;

	if (argc != 2) {
		fprintf(stderr, "usage: %s MACROFILE\n", argv[0]);
		return 2;
	}
	if ((r = guard_read_file(argv[1], &text, &len)) < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-r));
		return 2;
	}
	r = guard_macro_each(text, len, print, NULL);
	free(text);
	return r < 0 ? 2 : 0;
}
