/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Kernel release strings: version numbers, releases in paths and in vermagic. */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "kernel_internal.h"

/* Decimal number of at most 9 digits; -1 if none. */
static long parse_num(const char **sp)
{
	const char *s = *sp;
	long v = 0;
	int n = 0;

	while (*s >= '0' && *s <= '9') {
		if (++n > 9)
			return -1;
		v = v * 10 + (*s++ - '0');
	}
	if (!n)
		return -1;
	*sp = s;
	return v;
}

/*
 * "6.1.0-57-amd64", "5.14.0-362.el9.x86_64", "4.18.0-553.el8_10.x86_64",
 * "6.8.0+": MAJOR.MINOR[.SUBLEVEL] then the end or a separator.  The
 * sublevel saturates at 255 like the kernel's own KERNEL_VERSION() since
 * 4.9.256 (it has 8 bits).
 */
unsigned tg_kernel_version_parse(const char *release)
{
	const char *s = release;
	long a, b, c = 0;

	if (!s)
		return 0;
	a = parse_num(&s);
	if (a < 0 || a > 255 || *s++ != '.')
		return 0;
	b = parse_num(&s);
	if (b < 0 || b > 255)
		return 0;
	if (*s == '.') {
		s++;
		c = parse_num(&s);
		if (c < 0)
			return 0;
		if (c > 255)
			c = 255;
		if (*s == '.')	/* 2.6.32.71: a fourth number */
			s++;
	}
	if (*s && !strchr("-+_~", *s) && !(s[-1] == '.' && isdigit((unsigned char)*s)))
		return 0;
	return TG_KVER(a, b, c);
}

/* Copy @len bytes of @s into @buf as a string; -ENAMETOOLONG if it does not fit. */
int tg_copy_word(const char *s, size_t n, char *buf, size_t len)
{
	if (!buf || n >= len)
		return -ENAMETOOLONG;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return 0;
}

/* A release is used as one path component: it must be one. */
bool tg_release_is_sane(const char *r)
{
	size_t n = strlen(r);

	return n > 0 && n < TG_RELEASE_MAX && !strchr(r, '/') && strcmp(r, ".") && strcmp(r, "..");
}

/* @n bytes at @s: a sane release with a parseable version? */
bool tg_release_word_ok(const char *s, size_t n)
{
	char tmp[TG_RELEASE_MAX];

	if (!n || n >= sizeof(tmp))
		return false;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return tg_release_is_sane(tmp) && tg_kernel_version_parse(tmp) != 0;
}

/*
 * The first "lib/modules/KVER/" (so also "usr/lib/modules/KVER/", and under
 * any --root prefix) whose KVER looks like a kernel release.  Checking KVER
 * skips "/lib/modules/modprobe.d/"-like look-alikes.
 */
int tg_kernel_release_from_path(const char *path, char *buf, size_t len)
{
	static const char key[] = "lib/modules/";
	const char *p = path;

	if (!path)
		return -EINVAL;
	while ((p = strstr(p, key))) {
		const char *rel = p + sizeof(key) - 1, *slash = strchr(rel, '/');
		bool at_segment = p == path || p[-1] == '/';

		p = rel;
		if (at_segment && slash && tg_release_word_ok(rel, (size_t)(slash - rel)))
			return tg_copy_word(rel, (size_t)(slash - rel), buf, len);
	}
	return -ENOENT;
}

/* vermagic = UTS_RELEASE " " flags...: the release is the first word. */
int tg_kernel_release_from_vermagic(const char *vermagic, char *buf, size_t len)
{
	const char *s = vermagic;
	size_t n;

	if (!s)
		return -EINVAL;
	s += strspn(s, " \t");
	n = strcspn(s, " \t\n");
	if (!tg_release_word_ok(s, n))
		return -ENOENT;
	return tg_copy_word(s, n, buf, len);
}
