/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the package reader (pkg/): rpm header, file list and the streamed
 * payload with digests checked, and every module candidate read, as
 * `taintguard audit` and the rpm plugin read a .rpm.  The input goes to a
 * memfd because librpm reads packages from files.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rpm/rpmts.h>

#include "pkg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tg_limits lim;

static int take_member(void *ctx, struct pkg_member *m)
{
	struct tg_module *mod = NULL;
	char *error = NULL;

	(void)ctx;
	if (m->data && m->cls->kind == PKG_MODULE &&
	    pkg_module_from_mem(m->data, m->len, m->path, &lim, &mod, &error) == 1)
		tg_module_free(mod);
	free(error);
	free(m->data);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static rpmts ts;
	struct pkg_payload_opts po = {
		.kinds = PKG_KIND_BIT(PKG_MODULE) | PKG_KIND_BIT(PKG_SYMVERS) | PKG_KIND_BIT(PKG_CONFIG),
		.check_digests = true,
	};
	struct pkg_files_facts f;
	struct pkg_file pf;
	char path[64], *error = NULL;
	int fd;

	if (!ts) {
		tg_limits_default(&lim);
		if (pkg_rpm_setup(NULL, false, &error) < 0)
			abort();
		ts = pkg_ts_new(NULL);
	}
	for (int k = 0; k <= PKG_CONFIG; k++)
		po.max_size[k] = lim.max_input_size;
	fd = memfd_create("fuzz.rpm", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (pkg_file_open(ts, path, &pf, &error) == 0) {
		struct pkg_ftypes *types = pkg_ftypes_new(pf.h);	/* hostile tag data too */

		pkg_files_scan(pf.files, types, &f);
		po.types = types;
		pkg_payload_read(pf.fd, pf.h, pf.files, &po, take_member, NULL, &error);
		pkg_ftypes_free(types);
		pkg_file_close(&pf);
	}
	free(error);
	close(fd);
	return 0;
}
