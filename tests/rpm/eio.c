/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection for tests/rpm/run.sh: preloaded into rpm, fails fsync(2)
 * with EIO for files under a ".../marks/" directory (the plugin's mark
 * records) and passes every other call through, so the real rpm and the
 * real plugin meet a disk error exactly where a record is committed.
 * Records are also written inside the chroot of rpm --root, where there is
 * no /proc to name a descriptor's file: the descriptors are remembered when
 * open(2) creates them.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define MAX_FD 4096
static bool marks_fd[MAX_FD];

static int track(const char *path, int fd)
{
	if (fd >= 0 && fd < MAX_FD)
		marks_fd[fd] = strstr(path, "/marks/") != NULL;
	return fd;
}

#define OPEN_SHIM(name)                                                         \
	int name(const char *path, int flags, ...)                              \
	{                                                                       \
		static int (*real)(const char *, int, ...);                     \
		mode_t mode = 0;                                                \
		va_list ap;                                                     \
									\
		if (flags & (O_CREAT | O_TMPFILE)) {                            \
			va_start(ap, flags);                                    \
			mode = va_arg(ap, mode_t);                              \
			va_end(ap);                                             \
		}                                                               \
		if (!real)                                                      \
			real = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, #name); \
		return track(path, real(path, flags, mode));                   \
	}
OPEN_SHIM(open)
OPEN_SHIM(open64)

int fsync(int fd)
{
	static int (*real_fsync)(int);

	if (fd >= 0 && fd < MAX_FD && marks_fd[fd]) {
		errno = EIO;
		return -1;
	}
	if (!real_fsync)
		real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return real_fsync ? real_fsync(fd) : 0;
}
