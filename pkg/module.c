/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Is a payload file a kernel module?  A file is a candidate by its name or
 * place, or hidden: by the header's file class alone (classify.c); its
 * content decides: text files named .ko (vim's tutor.ko), modules.dep and a
 * vdso are not modules, while anything that claims to be one and cannot be
 * read is a finding, never "clean".
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg.h"

static bool is_elf(const void *buf, size_t len)
{
	return len >= 4 && memcmp(buf, "\177ELF", 4) == 0;
}

/*
 * A hidden candidate (any ELF relocatable object outside the module
 * directories) is a module only when it holds a struct module: the kernel
 * refuses an object without a .gnu.linkonce.this_module that has contents
 * ("No module found in object", docs/loader-rules.md#r3-elf-validity) before it reads
 * anything else.  So a plain .o, kbuild's intermediate foo.o (it has
 * .modinfo, not yet the struct module) and a module's separate debug file
 * (.ko.debug: the section is NOBITS) are no modules and are not judged.
 */
static bool holds_struct_module(const struct tg_module *m)
{
	return m->n_this_module_sections > 0 && m->this_module_size > 0;
}

/* Bytes that cannot be a module at all (text, modules.dep ...): never sent to the reader. */
static bool never_module(const void *buf, size_t len)
{
	return tg_compression_detect(buf, len) == TG_COMP_NONE && !is_elf(buf, len);
}

/* What the reader's answer (@opened, *m, @err) makes of the bytes: pkg_module_from_mem()'s result. */
static int classify(const void *buf, size_t len, const char *path, const struct tg_limits *lim,
		    int opened, struct tg_module **m, const struct tg_error *err, char **error)
{
	bool named = tg_module_file_name(path);
	bool strict = named && pkg_in_module_dir(path);
	bool hidden = !named && !pkg_in_module_dir(path);
	enum tg_compression c = tg_compression_detect(buf, len);
	void *img = NULL;
	size_t imglen = 0;
	bool modinfo;

	if (opened == 0) {
		if (hidden ? holds_struct_module(*m) : (*m)->n_modinfo > 0 || strict)
			return 1;
		tg_module_free(*m);	/* an ELF file, but no module (vdso .so) */
		*m = NULL;
		return 0;
	}
	/* the confined reader died on these bytes (taintguard.h): hostile, always a finding */
	if (err->code == -ECHILD) {
		*error = strdup(err->msg);
		return -1;
	}
	/* Unreadable: a finding if it is (or claims to be) a module. */
	if (c != TG_COMP_NONE) {
		struct tg_error derr = { 0 };
		int dr = tg_decompress(c, buf, len, lim->max_module_size, &img, &imglen, path, &derr);

		if (dr < 0) {
			/*
			 * Corrupt data kmod cannot decompress either: no module.  A
			 * hidden one past our caps could still be one: a finding.
			 */
			if (!named && !(hidden && (dr == -EFBIG || dr == -ENOMEM)))
				return 0;
			*error = strdup(derr.msg[0] ? derr.msg : err->msg);
			return -1;
		}
		buf = img;
		len = imglen;
	}
	/* the section's name in the name table: what the kernel would look for */
	modinfo = is_elf(buf, len) && (hidden ? memmem(buf, len, ".gnu.linkonce.this_module", 26)
					      : memmem(buf, len, ".modinfo", 9)) != NULL;
	if (is_elf(buf, len) && (strict || modinfo)) {
		*error = strdup(err->msg[0] ? err->msg : "unreadable kernel module");
		free(img);
		return -1;
	}
	free(img);
	return 0;
}

int pkg_module_from_mem(const void *buf, size_t len, const char *path,
			const struct tg_limits *lim, struct tg_module **m, char **error)
{
	struct tg_error err = { 0 };
	int r;

	*m = NULL;
	*error = NULL;
	if (never_module(buf, len))
		return 0;
	r = tg_module_open_mem(buf, len, path, lim, m, &err);
	return classify(buf, len, path, lim, r, m, &err, error);
}

int pkg_modules_from_mem(size_t n, const void *const *buf, const size_t *len,
			 const char *const *path, const struct tg_limits *lim,
			 struct tg_module **m, char **error, int *r)
{
	const void **b = calloc(n ? n : 1, sizeof(*b));
	const char **p = calloc(n ? n : 1, sizeof(*p));
	size_t *l = calloc(n ? n : 1, sizeof(*l));
	struct tg_module **mm = calloc(n ? n : 1, sizeof(*mm));
	struct tg_error *err = calloc(n ? n : 1, sizeof(*err));
	int *opened = calloc(n ? n : 1, sizeof(*opened));
	size_t k = 0;

	if (!b || !p || !l || !mm || !err || !opened) {	/* one by one, then */
		for (size_t i = 0; i < n; i++)
			r[i] = pkg_module_from_mem(buf[i], len[i], path[i], lim, &m[i], &error[i]);
		goto out;
	}
	/* the reader gets the possible modules, all at once */
	for (size_t i = 0; i < n; i++)
		if (!never_module(buf[i], len[i])) {
			b[k] = buf[i];
			l[k] = len[i];
			p[k++] = path[i];
		}
	tg_module_open_mem_many(k, b, l, p, lim, mm, err, opened);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		m[i] = NULL;
		error[i] = NULL;
		if (never_module(buf[i], len[i])) {
			r[i] = 0;
			continue;
		}
		m[i] = mm[k];
		r[i] = classify(buf[i], len[i], path[i], lim, opened[k], &m[i], &err[k], &error[i]);
		k++;
	}
out:
	free(b);
	free(p);
	free(l);
	free(mm);
	free(err);
	free(opened);
	return 0;
}

int pkg_module_from_fd(int fd, const char *path, const struct tg_limits *lim,
		       struct tg_module **m, char **error)
{
	struct stat sb;
	size_t got = 0;
	char *buf;
	int r;

	*m = NULL;
	*error = NULL;
	if (fstat(fd, &sb) < 0) {
		*error = strf("cannot read: %s", strerror(errno));
		return -1;
	}
	if (!S_ISREG(sb.st_mode)) {
		*error = strdup("cannot read: not a regular file");
		return -1;
	}
	if ((uint64_t)sb.st_size > lim->max_input_size) {
		*error = strf("cannot read: %lld bytes, larger than the input size limit "
				  "(input-size %llu)", (long long)sb.st_size,
				  (unsigned long long)lim->max_input_size);
		return -1;
	}
	if (!(buf = malloc(sb.st_size ? (size_t)sb.st_size : 1))) {
		*error = strdup("cannot read: out of memory");
		return -1;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = pread(fd, buf + got, (size_t)sb.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {	/* an error, or shorter than fstat said */
			*error = strf("cannot read: %s", n < 0 ? strerror(errno) : "file shrank");
			free(buf);
			return -1;
		}
		got += (size_t)n;
	}
	r = pkg_module_from_mem(buf, got, path, lim, m, error);
	free(buf);
	return r;
}
