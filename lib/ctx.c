/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A judging context: what every judgement of one front end shares (limits,
 * threads, policy, the target root) and the kernels met so far, each release
 * gathered once.  How a release is gathered is the front end's to say (the
 * rpm plugin and audit add facts from packages); by default it is
 * tg_kernel_load() below the root.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "internal.h"

struct kentry {
	char *release;		/* NULL: the kernel of an unknown release */
	struct tg_kernel *k;	/* NULL: none (failed or nothing to load) */
	int error;		/* negative errno of the failed load, else 0 */
	char msg[TG_ERRMAX];
};

struct tg_ctx {
	struct tg_limits limits;
	unsigned jobs;
	char *root;		/* NULL: the host */
	struct tg_policy *policy;	/* owned; NULL: the built-in policy */
	char *symvers_path, *config_path;	/* the default loader's explicit files */
	tg_kernel_loader_fn loader;
	void *loader_data;
	pthread_mutex_t mu;	/* the kernel cache */
	struct kentry *kv;
	size_t n_kv, cap_kv;
};

int tg_ctx_new(struct tg_ctx **out)
{
	struct tg_ctx *c = calloc(1, sizeof(*c));

	*out = NULL;
	if (!c)
		return -ENOMEM;
	tg_limits_default(&c->limits);
	c->jobs = tg_default_jobs();
	pthread_mutex_init(&c->mu, NULL);
	*out = c;
	return 0;
}

void tg_ctx_free(struct tg_ctx *c)
{
	if (!c)
		return;
	tg_ctx_forget_kernels(c);
	free(c->kv);
	tg_policy_free(c->policy);
	free(c->root);
	free(c->symvers_path);
	free(c->config_path);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

struct tg_limits *tg_ctx_limits(struct tg_ctx *c)
{
	return &c->limits;
}

void tg_ctx_set_jobs(struct tg_ctx *c, unsigned jobs)
{
	c->jobs = jobs ? jobs : 1;
}

unsigned tg_ctx_jobs(const struct tg_ctx *c)
{
	return c ? c->jobs : 1;
}

/* Replace *@slot with a copy of @s (NULL allowed); 0 or -ENOMEM. */
static int set_str(char **slot, const char *s)
{
	char *d = tg_strdup0(s);

	if (s && !d)
		return -ENOMEM;
	free(*slot);
	*slot = d;
	return 0;
}

int tg_ctx_set_root(struct tg_ctx *c, const char *root)
{
	return set_str(&c->root, root && strcmp(root, "/") ? root : NULL);
}

const char *tg_ctx_root(const struct tg_ctx *c)
{
	return c && c->root ? c->root : "/";
}

void tg_ctx_set_policy(struct tg_ctx *c, struct tg_policy *p)
{
	if (c->policy != p)
		tg_policy_free(c->policy);
	c->policy = p;
}

const struct tg_policy *tg_ctx_policy(const struct tg_ctx *c)
{
	return c && c->policy ? c->policy : tg_policy_builtin();
}

int tg_ctx_set_kernel_files(struct tg_ctx *c, const char *symvers_path, const char *config_path)
{
	if (set_str(&c->symvers_path, symvers_path) < 0 || set_str(&c->config_path, config_path) < 0)
		return -ENOMEM;
	return 0;
}

void tg_ctx_set_kernel_loader(struct tg_ctx *c, tg_kernel_loader_fn fn, void *data)
{
	c->loader = fn;
	c->loader_data = data;
}

int tg_ctx_load_kernel(const struct tg_ctx *c, const char *release, struct tg_kernel **out,
		       struct tg_error *err)
{
	struct tg_kernel_opts o = {
		.root = c->root, .release = release, .symvers_path = c->symvers_path,
		.config_path = c->config_path, .limits = &c->limits,
	};

	*out = NULL;
	if (!release && !c->symvers_path)
		return 0;	/* an unknown release and no table given: nothing to know */
	return tg_kernel_load(&o, out, err);
}

static bool same_release(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Called with c->mu held: the entry for @release, loaded on first use. */
static struct kentry *kernel_entry(struct tg_ctx *c, const char *release)
{
	struct tg_error e = { 0 };
	struct kentry *k;

	for (size_t i = 0; i < c->n_kv; i++)
		if (same_release(c->kv[i].release, release))
			return &c->kv[i];
	if (grow_array(&c->kv, &c->cap_kv, c->n_kv, sizeof(*c->kv)) < 0)
		return NULL;
	k = &c->kv[c->n_kv];
	memset(k, 0, sizeof(*k));
	if (set_str(&k->release, release) < 0)
		return NULL;
	k->error = c->loader ? c->loader(c->loader_data, release, &k->k, &e)
			     : tg_ctx_load_kernel(c, release, &k->k, &e);
	if (k->error < 0) {
		tg_kernel_free(k->k);
		k->k = NULL;
		snprintf(k->msg, sizeof(k->msg), "%s", e.msg[0] ? e.msg : strerror(-k->error));
	}
	c->n_kv++;
	return k;
}

int tg_ctx_kernel(struct tg_ctx *c, const char *release, const struct tg_kernel **out,
		  struct tg_error *err)
{
	struct kentry *k;
	int r;

	*out = NULL;
	pthread_mutex_lock(&c->mu);
	k = kernel_entry(c, release);
	if (!k) {
		r = tg_fail(err, -ENOMEM, "kernel %s: out of memory", release ? release : "?");
	} else if (k->error < 0) {
		r = k->error;
		if (err) {
			err->code = r;
			snprintf(err->msg, sizeof(err->msg), "%s", k->msg);
		}
	} else {
		*out = k->k;
		r = 0;
	}
	pthread_mutex_unlock(&c->mu);
	return r;
}

void tg_ctx_forget_kernels(struct tg_ctx *c)
{
	pthread_mutex_lock(&c->mu);
	for (size_t i = 0; i < c->n_kv; i++) {
		free(c->kv[i].release);
		tg_kernel_free(c->kv[i].k);
	}
	c->n_kv = 0;
	pthread_mutex_unlock(&c->mu);
}
