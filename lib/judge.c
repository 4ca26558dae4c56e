/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one way to judge.  Every front end (check, audit, the rpm plugin and
 * its kernel updates, the DKMS hook) knows different things — a root, a
 * release named on the command line or by dkms, module files or package
 * payloads — but asks the same question, and the answers to "which kernel
 * does this module target?" and "what if the policy cannot be read?" must
 * not depend on which front end asked.  They are decided here, once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/*
 * The release a module targets: what the caller names wins (the user or
 * dkms knows better than the file); else the /lib/modules/R/ directory the
 * module sits in, because that is the only kernel modprobe will ever load
 * it into; else its vermagic, the kernel it was built for.
 */
const char *tg_target_release(const char *override, const char *path, const struct tg_module *m,
			      char *buf, size_t len)
{
	const char *vm;

	if (override && *override)
		return override;
	if (path && tg_kernel_release_from_path(path, buf, len) == 0)
		return buf;
	vm = m ? tg_module_get(m, "vermagic") : NULL;
	if (vm && tg_kernel_release_from_vermagic(vm, buf, len) == 0)
		return buf;
	return NULL;
}

/*
 * A policy that is not installed is the built-in one only when the caller
 * did not name it and says it may run uninstalled (a build tree); one named
 * or installed but unreadable is an error, never silently replaced — except
 * where stopping is worse than judging with the built-in rules: inside an
 * rpm transaction or a dkms build, which would otherwise let every module
 * through or block every package.  The built-in policy still denies what the
 * kernel refuses or force-taints, so that fallback fails closed.
 */
int tg_policy_open(const char *path, const struct tg_limits *lim, unsigned flags,
		   struct tg_policy **out, struct tg_error *err)
{
	const char *p = path ? path : tg_policy_default_path();
	int r;

	*out = NULL;
	if (!path && (flags & TG_POLICY_BUILTIN_IF_ABSENT) && access(p, F_OK) != 0 &&
	    errno == ENOENT)
		return 0;
	r = tg_policy_load_path(p, lim, out, err);
	if (r == 0)
		return 0;
	*out = NULL;
	if (r == -ENOMEM || !(flags & TG_POLICY_FALLBACK))
		return r;
	return 1;
}

static void kernel_failed(struct tg_error *err, const char *release, const char *msg, int *seen)
{
	if (!(*seen)++)
		tg_fail(err, -ENOENT, "kernel %s: %s", release ? release : "(unknown)", msg);
}

/* The verdict slot of a context member: nothing to hand back. */
static void drop(struct tg_verdict *v)
{
	tg_verdict_free_contents(v);
	memset(v, 0, sizeof(*v));
}

int tg_judge(struct tg_ctx *ctx, const char *release, const struct tg_judge_item *items,
	     size_t n, unsigned flags, struct tg_verdict *out, struct tg_error *err)
{
	struct tg_set *set = tg_set_new(ctx);
	struct tg_verdict *all = NULL;
	size_t *slot = calloc(n ? n : 1, sizeof(*slot));
	size_t count;
	int failed = 0, r = -ENOMEM;

	memset(out, 0, n * sizeof(*out));
	if (!set || !slot)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const struct tg_judge_item *it = &items[i];
		const struct tg_kernel *k = NULL;
		struct tg_error kerr = { 0 };
		const char *rel = it->release;
		char buf[256];

		slot[i] = SIZE_MAX;
		/* an unreadable neighbour cannot resolve anything */
		if (it->context && !it->m)
			continue;
		if (!rel)
			rel = tg_target_release(release, it->path, it->m, buf, sizeof(buf));
		if (tg_ctx_kernel(ctx, rel, &k, &kerr) < 0) {
			if (flags & TG_JUDGE_KERNEL_STRICT) {
				r = tg_fail(err, -EINVAL, "%s", kerr.msg);
				goto out;
			}
			kernel_failed(err, rel, kerr.msg, &failed);
			k = NULL;	/* judged as an unknown kernel */
		}
		slot[i] = tg_set_count(set);
		r = tg_set_add(set, it->path, it->m, k, it->package,
			       it->error || it->m ? it->error : "cannot read module");
		if (r < 0)
			goto out;
	}
	count = tg_set_count(set);
	r = -ENOMEM;
	if (!(all = calloc(count ? count : 1, sizeof(*all))))
		goto out;
	if ((r = tg_set_predict(set, all)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		if (slot[i] == SIZE_MAX)
			continue;
		out[i] = all[slot[i]];
		memset(&all[slot[i]], 0, sizeof(all[slot[i]]));
		if (items[i].context)
			drop(&out[i]);
	}
	r = failed ? 1 : 0;
out:
	for (size_t i = 0; all && i < tg_set_count(set); i++)
		tg_verdict_free_contents(&all[i]);
	free(all);
	free(slot);
	tg_set_free(set);
	return r;
}
