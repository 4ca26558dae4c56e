/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fault injection for tests/rpm/run.sh: preloaded into rpm, fails fsync(2)
 * with EIO for files under a ".../marks/" directory (the plugin's mark
 * records) and passes every other call through, so the real rpm and the
 * real plugin meet a disk error exactly where a record is committed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int fsync(int fd)
{
	static int (*real_fsync)(int);
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n > 0) {
		path[n] = '\0';
		if (strstr(path, "/marks/")) {
			errno = EIO;
			return -1;
		}
	}
	if (!real_fsync)
		real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
	return real_fsync ? real_fsync(fd) : 0;
}
