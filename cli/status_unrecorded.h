/* SPDX-License-Identifier: GPL-2.0-or-later */
/* taintguard status: packages owning kernel modules that have no mark record. */
#ifndef TG_STATUS_UNRECORDED_H
#define TG_STATUS_UNRECORDED_H

#include "strv.h"
#include "taintguard.h"

/* the records' directory inside a root */
#define STATUS_MARKS_DIR "/var/lib/taintguard/marks"

struct unrecorded {
	char *package;		/* rpm: NEVRA; dpkg: NAME_VERSION_ARCH */
	const char *source;	/* "rpm", "dpkg" */
	struct strv files;	/* its module files, paths inside the root */
	struct tg_verdict *v;	/* one per file, judged now */
	size_t nv;
	enum tg_action action;	/* worst of v */
};

struct unrecorded_list {
	struct unrecorded *v;
	size_t n;
};

/*
 * The packages of @root owning module files outside the kernels' own trees
 * whose NEVRA is not in @recorded and whose modules, judged now, are not
 * all allowed.  An rpm that does not answer is said on stderr and leaves
 * its packages out.  0, or a negative errno after saying why on stderr.
 */
int status_unrecorded(const char *root, const char *dbpath, const struct strv *recorded,
		      struct unrecorded_list *l);
void unrecorded_list_free(struct unrecorded_list *l);
/*
 * argv of "rpm --root ROOT [--dbpath DIR] -q [@mode] --qf @qf -- @args..."
 * (the strings are the caller's; free the array only), NULL on ENOMEM.
 */
char **status_rpm_argv(const char *rpm, const char *root, const char *dbpath, const char *mode,
		       const char *qf, char **args, size_t n);

#endif
