/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Policy: what the kernel's module loader is known to do by name or licence
 * string (the "kernel:" mirror used for prediction), which signing keys the
 * target trusts, and the site's rules (allow | mark | deny).
 *
 * This file loads a policy (file or memory: size cap, YAML tree, schema),
 * fills the sections a file leaves out from the built-in policy, keeps the
 * built-in policy object, and frees a policy; policy_internal.h says which
 * file does the rest.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "policy_internal.h"


#define POLICY_VERSION "1"

void tg_policy_free(struct tg_policy *p)
{
	if (!p || tg_policy_is_builtin(p))
		return;	/* the built-in object lives as long as the process */
	tg_policy_destroy(p);
}

/* Move section @field (array + counters) from @from to @to. */
#define TAKE(to, from, arr, n, cap)                                            \
	do {                                                                   \
		(to)->arr = (from)->arr; (to)->n = (from)->n; (to)->cap = (from)->cap; \
		(from)->arr = NULL; (from)->n = (from)->cap = 0;               \
	} while (0)

/* Sections the file left out are taken from the built-in policy. */
static void take_missing(struct tg_policy *p, struct tg_policy *b)
{
	if (!p->has_lic)
		TAKE(p, b, lic, n_lic, cap_lic);
	if (!p->has_ft)
		TAKE(p, b, ft, n_ft, cap_ft);
	if (!p->has_adv)
		TAKE(p, b, adv, n_adv, cap_adv);
	if (!p->has_keys) {
		p->keys = b->keys;
		b->keys = (struct strv){ NULL, 0, 0 };
	}
	if (!p->has_certs) {	/* the built-in list is empty */
		p->certpaths = b->certpaths;
		b->certpaths = (struct strv){ NULL, 0, 0 };
	}
	if (!p->has_rules)
		TAKE(p, b, rules, n_rules, cap_rules);
	if (!p->has_exc)
		TAKE(p, b, exc, n_exc, cap_exc);
	if (!p->has_def)
		p->def = b->def;
	if (!p->has_guard)
		p->guard_action = b->guard_action;
	if (!p->has_scope)
		p->scope = b->scope;
}

static int policy_parse(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, bool builtin,
			struct tg_policy **out, struct tg_error *err);

static int fill_defaults(struct tg_policy *p, struct tg_error *err)
{
	struct tg_policy *b = NULL;
	struct tg_limits lim;
	int r;

	if (p->has_lic && p->has_ft && p->has_adv && p->has_keys && p->has_certs && p->has_rules &&
	    p->has_def && p->has_exc && p->has_guard && p->has_scope)
		return 0;
	tg_limits_default(&lim);
	r = policy_parse(tg_policy_builtin_yaml, tg_policy_builtin_yaml_len, "<built-in policy>",
			 &lim, true, &b, err);
	if (r < 0)
		return r;
	take_missing(p, b);
	tg_policy_free(b);
	return 0;
}

static int policy_parse(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, bool builtin,
			struct tg_policy **out, struct tg_error *err)
{
	struct tg_ydoc doc;
	int r;

	*out = NULL;
	if ((uint64_t)len > lim->max_policy_size)
		return tg_fail(err, -EFBIG, "%s: policy is %zu bytes, larger than the limit of %llu",
			       label, len, (unsigned long long)lim->max_policy_size);
	r = tg_ydoc_parse(&doc, data, len, label, lim->max_policy_depth, err);
	if (r < 0)
		return r;
	r = tg_policy_from_doc(&doc, label, out, err);
	tg_ydoc_free(&doc);
	if (r == 0 && !builtin) {
		r = fill_defaults(*out, err);
		if (r < 0) {
			tg_policy_free(*out);
			*out = NULL;
		}
	}
	return r;
}

int tg_policy_load_mem(const void *data, size_t len, const char *label,
		       const struct tg_limits *lim, struct tg_policy **out,
		       struct tg_error *err)
{
	struct tg_limits def;

	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	return policy_parse(data, len, label ? label : "<policy>", lim, false, out, err);
}

int tg_policy_load_path(const char *path, const struct tg_limits *lim,
			struct tg_policy **out, struct tg_error *err)
{
	struct tg_limits def;
	void *buf;
	size_t len;
	int r, fd;

	*out = NULL;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return tg_fail(err, -errno, "%s: %s", path, strerror(errno));
	/* checked on the open file: what is trusted is what is read */
	r = tg_policy_trust_check(fd, path, err);
	if (r == 0)
		r = tg_read_fd(fd, path, lim->max_policy_size, &buf, &len, err);
	close(fd);
	if (r < 0)
		return r;
	r = policy_parse(buf, len, path, lim, false, out, err);
	free(buf);
	return r;
}

/*
 * The built-in policy object: one accessor, tg_policy_builtin(), serves every
 * front end (a policy that cannot be loaded, a build tree with nothing
 * installed); a NULL policy given to the library means the same object.
 * Parsed once and kept for the life of the process (pthread_once: thread-safe).
 */
static struct tg_policy *builtin_policy;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void builtin_init(void)
{
	if (tg_policy_load_mem(tg_policy_builtin_yaml, tg_policy_builtin_yaml_len,
			       "<built-in policy>", NULL, &builtin_policy, NULL) < 0)
		builtin_policy = NULL;
}

const struct tg_policy *tg_policy_builtin(void)
{
	pthread_once(&builtin_once, builtin_init);
	return builtin_policy;
}

const struct tg_policy *tg_policy_or_builtin(const struct tg_policy *p)
{
	return p ? p : tg_policy_builtin();
}

bool tg_policy_is_builtin(const struct tg_policy *p)
{
	return p && p == builtin_policy;
}
