/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * .modinfo: NUL-separated "key=value" strings, possibly NUL-padded.
 *
 * The kernel's get_modinfo() walks the strings and returns the first whose
 * text starts with "key=".  A string without '=' is never a match, which is
 * what the driverloader trick relies on: MODULE_LICENSE("GPL\0for files in
 * ...") stores "license=GPL" and a stray "for files in ..." string.  We keep
 * such strings as the previous entry's `trailing` text so reports can show it.
 */
#include <errno.h>
#include <string.h>

#include "module_internal.h"

void tg_modinfo_free(struct tg_modinfo *mi, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(mi[i].key);
		free(mi[i].value);
		free(mi[i].trailing);
	}
	free(mi);
}

static int append_trailing(struct tg_modinfo *prev, const char *s, size_t len)
{
	char *t;

	if (prev->trailing)
		t = strf("%s %.*s", prev->trailing, (int)len, s);
	else
		t = strndup(s, len);
	if (!t)
		return -ENOMEM;
	free(prev->trailing);
	prev->trailing = t;
	return 0;
}

static int add_entry(struct tg_elf *e, size_t *cap, const char *s, size_t len)
{
	struct tg_module *m = e->m;
	const char *eq = memchr(s, '=', len);
	struct tg_modinfo *mi;

	if (!eq)
		return m->n_modinfo ? append_trailing(&m->modinfo[m->n_modinfo - 1], s, len) : 0;
	if (m->n_modinfo >= e->lim->max_modinfo)
		return tg_fail(e->err, -E2BIG, "%s: more than %u .modinfo entries", e->label,
			       e->lim->max_modinfo);
	if (grow_array(&m->modinfo, cap, m->n_modinfo + 1, sizeof(*m->modinfo)) < 0)
		return -ENOMEM;
	mi = &m->modinfo[m->n_modinfo];
	memset(mi, 0, sizeof(*mi));
	mi->key = strndup(s, (size_t)(eq - s));
	mi->value = strndup(eq + 1, len - (size_t)(eq - s) - 1);
	if (!mi->key || !mi->value) {
		free(mi->key);
		free(mi->value);
		return -ENOMEM;
	}
	m->n_modinfo++;
	return 0;
}

int tg_modinfo_read(struct tg_elf *e)
{
	/* the kernel only sees SHF_ALLOC sections (find_sec) */
	size_t idx = tg_elf_find(e, ".modinfo", true), size = 0, cap = 0, pos = 0;
	const char *p;
	int r;

	if (!idx)
		return 0;
	p = (const char *)tg_elf_section(e, idx, NULL, &size);
	if (!p)
		return 0;	/* out of bounds: already a problem */
	while (pos < size) {
		size_t len;

		if (p[pos] == '\0') {	/* padding between entries */
			pos++;
			continue;
		}
		len = strnlen(p + pos, size - pos);
		if ((r = add_entry(e, &cap, p + pos, len)) < 0)
			return r;
		pos += len;
	}
	return 0;
}
