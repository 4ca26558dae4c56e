/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz the audit's package reader: rpm header, file list and the streamed
 * payload (librpm), as `taintguard audit` reads a .rpm.  The input goes to a
 * memfd because librpm reads packages from files.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "audit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void take_module(void *ctx, struct audit_pkg *p, const char *path, void *buf, size_t len,
			const char *error)
{
	struct tg_module *m = NULL;

	(void)ctx, (void)p, (void)error;
	if (buf && tg_module_open_mem(buf, len, path, NULL, &m, NULL) == 0)
		tg_module_free(m);
	free(buf);
}

static void take_symvers(void *ctx, struct audit_pkg *p, const char *path, const char *release,
			 int prio, void *buf, size_t len)
{
	(void)ctx, (void)p, (void)path, (void)release, (void)prio, (void)len;
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct audit a;
	static void *ts;
	struct payload_sink sink = { take_module, take_symvers, NULL, true, true, false };
	struct audit_pkg *p;
	char path[64];
	int fd;

	if (!ts) {
		cli_opts_init(&a.o);
		a.o.quiet = true;
		if (rpm_setup(&a) < 0)
			abort();
		ts = rpm_ts_new(&a);
	}
	fd = memfd_create("fuzz.rpm", 0);
	if (fd < 0 || write(fd, data, size) != (ssize_t)size)
		abort();
	p = calloc(1, sizeof(*p));
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	p->file = path;
	rpm_read_package(ts, &a, p, &sink);
	p->file = NULL;
	audit_pkg_free(p);
	close(fd);
	return 0;
}
