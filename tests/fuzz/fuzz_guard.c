/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Fuzz guard/'s readers of untrusted files (package payloads, a system's
 * configuration): the first byte picks the reader, the rest is the file.
 *   0 rpm macro file (definitions, the names their bodies refer to, winners)
 *   1 rpmrc   2 dkms framework file   3 dkms.conf
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t sum;

static int on_ref(void *ctx, const char *name, size_t len)
{
	(void)ctx;
	sum += len + (unsigned char)name[0];
	return 0;
}

static int on_def(void *ctx, const struct guard_macro_def *d)
{
	(void)ctx;
	sum += d->name_len + d->line;
	return guard_macro_refs(d->body, d->body_len, on_ref, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data + 1;
	size_t len = size ? size - 1 : 0;
	char buf[512], *sig;

	if (size == 0)
		return 0;
	switch (data[0] % 4) {
	case 0: {
		struct guard_mfile f = { .path = "/etc/rpm/macros.fuzz", .text = (char *)text,
					 .len = len };
		struct guard_names nm;
		struct guard_wins w;

		guard_macro_each(text, len, on_def, NULL);
		if (guard_names_init(&nm) == 0) {
			if (guard_names_close(&nm, &f, 1) == 0 && guard_wins_get(&f, 1, &nm, &w) == 0) {
				for (size_t i = 0; i < w.n; i++)
					sum += strlen(w.v[i].body);
				guard_wins_free(&w);
			}
			guard_names_free(&nm);
		}
		break;
	}
	case 1:
		if ((sig = guard_rpmrc_significant(text, len)) != NULL) {
			sum += strlen(sig);
			free(sig);
		}
		break;
	case 2:
		sum += guard_dkms_framework_reason(text, len, buf, sizeof(buf)) != NULL;
		break;
	default:
		sum += guard_dkms_conf_reason(text, len, buf, sizeof(buf)) != NULL;
		break;
	}
	return sum == 1;	/* never: keeps the work from being optimized away */
}
