/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Directories of the files taintguard writes: made on demand, their renames made durable. */
#ifndef TG_UTIL_DIRS_H
#define TG_UTIL_DIRS_H

#include <sys/types.h>

/* mkdir -p @path: parents 0755, the last component @mode; 0 (also when it exists) or -errno. */
int make_dirs(const char *path, mode_t mode);
/* fsync @dir, so that a rename into it survives a crash; a directory that cannot be synced is no error. */
void sync_dir(const char *dir);

#endif
