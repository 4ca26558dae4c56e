/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The suite's target kernel, for the unit tests that read a kernel's own
 * files (its .config, image, in-tree modules, Module.symvers): the release
 * tests/lib/kernel.sh picks and exports as TG_KERNEL (tests/run-all.sh unit
 * does).  A test whose files of that release are absent is skipped, and
 * prints why first ("skip: ...", which the suite reports with the skip).
 * Include after <cmocka.h>.
 */
#ifndef TG_TEST_TARGET_H
#define TG_TEST_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The target release, or NULL when the environment names none. */
static inline const char *target_release(void)
{
	const char *r = getenv("TG_KERNEL");

	return r && *r ? r : NULL;
}

/*
 * @fmt with the target release in place of its "%s" ("/boot/config-%s"), in
 * one of a few static buffers (valid until the eighth call after).  The
 * release of an unset TG_KERNEL is one no host has.
 */
static inline const char *target_path(const char *fmt)
{
	static char buf[8][PATH_MAX];
	static unsigned n;
	const char *r = target_release();
	const char *at = strstr(fmt, "%s");
	char *b = buf[n++ % 8];

	snprintf(b, PATH_MAX, "%.*s%s%s", at ? (int)(at - fmt) : (int)strlen(fmt), fmt,
		 at ? (r ? r : "0.0.0-no-target-kernel") : "", at ? at + 2 : "");
	return b;
}

/*
 * The first of @fmt's ".ko", ".ko.xz", ".ko.zst", ".ko.gz" that exists
 * (distributions compress their modules since 6.x), or the plain one.
 */
static inline const char *target_module(const char *fmt)
{
	static const char *const ext[] = { "", ".xz", ".zst", ".gz" };
	static char buf[4][PATH_MAX];
	static unsigned n;
	char *b = buf[n++ % 4];

	for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++) {
		snprintf(b, PATH_MAX, "%s%s", target_path(fmt), ext[i]);
		if (access(b, R_OK) == 0)
			return b;
	}
	snprintf(b, PATH_MAX, "%s", target_path(fmt));
	return b;
}

/* Is the file (or the module) target_path(@fmt) readable?  If not, say why the test skips. */
static inline bool target_has(const char *fmt)
{
	if (!target_release()) {
		print_message("skip: TG_KERNEL is not set (tests/run-all.sh unit sets it: "
			      "tests/lib/kernel.sh)\n");
		return false;
	}
	if (access(target_path(fmt), R_OK) != 0 && access(target_module(fmt), R_OK) != 0) {
		print_message("skip: target kernel %s: no %s\n", target_release(), target_path(fmt));
		return false;
	}
	return true;
}

#endif
