/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Opening a kernel module from a path, an fd or memory: the one place every
 * front end's module bytes pass (the rpm plugin, the DKMS hook, audit,
 * check).  The file is read here; its bytes are parsed by this thread's
 * confined worker (confine.c), or by module.c in this process when
 * TG_CONFINE=off.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "confine.h"

int tg_module_open_mem(const void *data, size_t len, const char *label,
		       const struct tg_limits *lim, struct tg_module **out,
		       struct tg_error *err)
{
	/* untrusted bytes: every front end's modules are read here, confined (confine.c) */
	if (tg_confine_enabled())
		return tg_confine_open(data, len, label, lim, out, err);
	return tg_module_parse_mem(data, len, label, lim, out, err);
}

int tg_module_open_mem_many(size_t n, const void *const *data, const size_t *len,
			    const char *const *label, const struct tg_limits *lim,
			    struct tg_module **out, struct tg_error *err, int *r)
{
	if (tg_confine_enabled())
		return tg_confine_open_many(n, data, len, label, lim, out, err, r);
	for (size_t i = 0; i < n; i++)
		r[i] = tg_module_parse_mem(data[i], len[i], label[i], lim, &out[i],
					   err ? &err[i] : NULL);
	return 0;
}

int tg_module_open_fd(int fd, const char *label, const struct tg_limits *lim,
		      struct tg_module **out, struct tg_error *err)
{
	struct tg_limits def;
	void *buf = NULL;
	size_t len = 0;
	int r;

	*out = NULL;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	if (!label)
		label = "<fd>";
	r = tg_read_fd(fd, label, lim->max_input_size, &buf, &len, err);
	if (r < 0)
		return r;
	r = tg_module_open_mem(buf, len, label, lim, out, err);
	free(buf);
	return r;
}

int tg_module_open_path(const char *path, const struct tg_limits *lim,
			struct tg_module **out, struct tg_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	*out = NULL;
	if (fd < 0)
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	r = tg_module_open_fd(fd, path, lim, out, err);
	close(fd);
	return r;
}
