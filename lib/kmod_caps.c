/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the target system's kmod can decompress.
 *
 * insmod/modprobe decompress a .ko.xz/.ko.zst/.ko.gz in userspace only when
 * kmod was built with that library (Debian 12's kmod 30: "+ZSTD +XZ -ZLIB");
 * otherwise the compressed bytes go to finit_module() and the kernel refuses
 * them ("Invalid ELF header magic", -ENOEXEC).  kmod links the libraries
 * (kmod <= 33) or dlopens them by soname (34+); either way the soname string
 * is in the binary or in libkmod, so we look for it there.  We never run the
 * target's kmod: the root may be another architecture or a half-installed
 * chroot.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

/* kmod is one binary; libkmod is linked statically (Debian) or shared (Fedora). */
static const char *const kmod_files[] = {
	"/usr/bin/kmod", "/bin/kmod", "/usr/sbin/kmod", "/sbin/kmod",
	"/usr/lib/x86_64-linux-gnu/libkmod.so.2", "/lib/x86_64-linux-gnu/libkmod.so.2",
	"/usr/lib/aarch64-linux-gnu/libkmod.so.2", "/usr/lib64/libkmod.so.2",
	"/lib64/libkmod.so.2", "/usr/lib/libkmod.so.2",
};

static const struct {
	const char *soname;
	enum tg_compression kind;
} libs[] = {
	{ "liblzma.so.5", TG_COMP_XZ },
	{ "libzstd.so.1", TG_COMP_ZSTD },
	{ "libz.so.1", TG_COMP_GZIP },
};

/* a binary is small; anything bigger is not the kmod we know */
#define KMOD_MAX_SIZE (32u << 20)

static unsigned scan_file(const char *path)
{
	void *buf = NULL;
	size_t len = 0;
	unsigned found = 0;

	if (tg_read_path(path, KMOD_MAX_SIZE, &buf, &len, NULL) < 0)
		return 0;
	for (size_t i = 0; i < TG_ARRAY_SIZE(libs); i++)
		if (memmem(buf, len, libs[i].soname, strlen(libs[i].soname) + 1))
			found |= 1u << libs[i].kind;
	free(buf);
	return found;
}

unsigned tg_kmod_compressions(const char *root, char **source)
{
	struct strv seen = { 0 };
	const char *first = NULL;	/* as a path inside the root, for messages */
	unsigned caps = 0;

	*source = NULL;
	for (size_t i = 0; i < TG_ARRAY_SIZE(kmod_files); i++) {
		char *p = strf("%s%s", root ? root : "", kmod_files[i]);
		char *real = p ? realpath(p, NULL) : NULL;
		bool dup = false;

		free(p);
		if (!real)
			continue;
		for (size_t j = 0; j < seen.n && !dup; j++)
			dup = !strcmp(seen.v[j], real);
		if (!dup && strv_push(&seen, real) == 0) {
			caps |= scan_file(real);
			first = first ? first : kmod_files[i];
		}
		free(real);
	}
	if (seen.n) {
		/* finding kmod at all is the fact: it loads uncompressed modules */
		caps |= 1u << TG_COMP_NONE;
		*source = strf("kmod: %s", first);
	}
	strv_free(&seen);
	return caps;
}
