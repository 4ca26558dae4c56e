/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Small helpers of the library: errors, whole-file reads, version ranges. */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

/*
 * Memory for @n bytes about to be filled whole (a file read, a module's or
 * an image's decompressed bytes, a symbol table), freed with free().
 * Filling fresh memory 4 KiB page by page takes a fault and a zeroing each,
 * and on a virtual machine the faults are what a large module, image or
 * Module.symvers costs most (8 MiB faulted in: 30 ms; a third of that in
 * 2 MiB pages).  So from 1 MiB on, the block is 2 MiB-aligned and asks for
 * huge pages (transparent huge pages, "madvise"); nothing changes where the
 * kernel says no.
 */
void *tg_alloc_big(size_t n)
{
	const size_t huge = 2u << 20, page = (size_t)sysconf(_SC_PAGESIZE);
	void *p;

	if (n < (1u << 20) || n > SIZE_MAX - huge)
		return malloc(n ? n : 1);
	if (posix_memalign(&p, huge, n) != 0)
		return NULL;
	madvise(p, (n + page - 1) & ~(page - 1), MADV_HUGEPAGE);	/* its own pages, none past it */
	return p;
}

int tg_fail(struct tg_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		err->code = code;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
		va_end(ap);
	}
	return code;
}

char *tg_strdup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/*
 * Hash of @len bytes at @s, eight at a time: the tables (Module.symvers, a
 * module's version records) are rebuilt on every run and a byte-serial hash
 * was a third of the symvers load time.  Only the distribution matters (the
 * tables hold indices, keys are compared).
 */
uint32_t tg_name_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 29;
	return (uint32_t)h;
}

int tg_read_fd(int fd, const char *label, uint64_t cap, void **buf, size_t *len,
	       struct tg_error *err)
{
	size_t bcap = 0, n = 0;
	char *b = NULL;
	struct stat st;
	int r;

	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > cap)
			return tg_fail(err, -EFBIG, "%s: file is %lld bytes, larger than the limit of %llu",
				       label, (long long)st.st_size, (unsigned long long)cap);
		/* + 2: the size, its NUL, and the byte that lets the read of EOF not grow the buffer */
		bcap = (size_t)st.st_size + 2;
	}
	if (bcap < 4096)
		bcap = 4096;
	b = tg_alloc_big(bcap);
	if (!b)
		return tg_fail(err, -ENOMEM, "%s: out of memory", label);
	for (;;) {
		ssize_t got;

		if (n + 1 >= bcap) {
			if ((uint64_t)bcap > cap + 1) {
				r = tg_fail(err, -EFBIG, "%s: larger than the limit of %llu bytes",
					    label, (unsigned long long)cap);
				goto fail;
			}
			char *nb = realloc(b, bcap * 2);
			if (!nb) {
				r = tg_fail(err, -ENOMEM, "%s: out of memory", label);
				goto fail;
			}
			b = nb;
			bcap *= 2;
		}
		got = read(fd, b + n, bcap - n - 1);
		if (got < 0) {
			if (errno == EINTR)
				continue;
			r = tg_fail(err, -errno, "%s: read failed: %s", label, strerror(errno));
			goto fail;
		}
		if (got == 0)
			break;
		n += (size_t)got;
		if ((uint64_t)n > cap) {
			r = tg_fail(err, -EFBIG, "%s: larger than the limit of %llu bytes",
				    label, (unsigned long long)cap);
			goto fail;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
fail:
	free(b);
	return r;
}

int tg_read_path(const char *path, uint64_t cap, void **buf, size_t *len,
		 struct tg_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	r = tg_read_fd(fd, path, cap, buf, len, err);
	close(fd);
	return r;
}

bool tg_glob_match(const char *pattern, const char *s)
{
	if (!pattern)
		return true;
	if (!s)
		return false;
	return fnmatch(pattern, s, 0) == 0;
}

/* Parse "6.1", "6.1.0", "5.4.0-150" into TG_KVER; 0 on error. */
static unsigned parse_version(const char *s, const char **end)
{
	unsigned part[3] = { 0, 0, 0 };
	int i = 0;

	if (*s < '0' || *s > '9')
		return 0;
	while (i < 3) {
		unsigned long v = strtoul(s, (char **)&s, 10);

		if (v > 255)
			v = 255;
		part[i++] = (unsigned)v;
		if (*s != '.' || s[1] < '0' || s[1] > '9')
			break;
		s++;
	}
	if (end)
		*end = s;
	return TG_KVER(part[0], part[1], part[2]);
}

/* One clause "OP VERSION"; returns 1 match, 0 no match, -1 syntax error. */
static int clause_match(unsigned kv, const char *c, const char **end)
{
	char op[3] = "";
	unsigned v;
	int n = 0;

	while (*c == ' ')
		c++;
	while ((*c == '<' || *c == '>' || *c == '=' || *c == '!') && n < 2)
		op[n++] = *c++;
	op[n] = '\0';
	while (*c == ' ')
		c++;
	v = parse_version(c, &c);
	if (!v)
		return -1;
	while (*c == ' ')
		c++;
	*end = c;
	if (!strcmp(op, ">="))
		return kv >= v;
	if (!strcmp(op, ">"))
		return kv > v;
	if (!strcmp(op, "<="))
		return kv <= v;
	if (!strcmp(op, "<"))
		return kv < v;
	if (!strcmp(op, "==") || !strcmp(op, "=") || !strcmp(op, ""))
		return kv == v;
	if (!strcmp(op, "!="))
		return kv != v;
	return -1;
}

static int range_eval(unsigned kv, const char *range)
{
	const char *c = range;
	int all = 1;

	if (!range || !*range || !strcmp(range, "any") || !strcmp(range, "*"))
		return 1;
	for (;;) {
		int m = clause_match(kv, c, &c);

		if (m < 0)
			return -1;
		all = all && m;
		if (*c == '\0')
			return all;
		if (*c != ',')
			return -1;
		c++;
	}
}

int tg_version_range_check(const char *range)
{
	return range_eval(TG_KVER(1, 0, 0), range) < 0 ? -EINVAL : 0;
}

/*
 * An unknown kernel version (0) matches every range: rules then apply as for
 * the newest kernels, and the verdict says the target was unknown.
 */
bool tg_version_in_range(unsigned kversion, const char *range)
{
	if (!kversion)
		return true;
	return range_eval(kversion, range) == 1;
}
