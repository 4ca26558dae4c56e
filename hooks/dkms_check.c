/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Judging the modules of a DKMS build, and saying so in dkms's output. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "hook.h"

void hk_judgement_free(struct judgement *j)
{
	for (size_t i = 0; j->v && i < j->n; i++)
		tg_verdict_free_contents(&j->v[i]);
	free(j->v);
	free(j->release);
	tg_ctx_free(j->ctx);	/* and the policy and the kernel */
	memset(j, 0, sizeof(*j));
}

/*
 * The policy: settings' file, else the installed default.  One that cannot
 * be loaded fails closed as far as the kernel goes, as the rpm plugin does
 * (tg_policy_open()): the built-in policy still denies what the kernel
 * refuses or force-taints and marks the rest.
 */
static int open_policy(const struct settings *s, struct judgement *j)
{
	struct tg_policy *policy = NULL;
	struct tg_error err = { 0 };
	int r;

	r = tg_policy_open(s->policy[0] ? s->policy : NULL, &s->limits, TG_POLICY_FALLBACK,
			   &policy, &err);
	if (r < 0)
		return r;
	if (r == 1) {
		hk_bfmt(j->policy_error, sizeof(j->policy_error), "%s", err.msg);
		hk_msg("cannot load the policy: %s; judging with the built-in policy until this is "
		       "fixed (exceptions do not apply)",
		       err.msg);
	}
	tg_ctx_set_policy(j->ctx, policy);
	j->policy = tg_ctx_policy(j->ctx);
	return 0;
}

/* Open @n targets and the installed @context modules as items to judge. */
static int open_items(const struct settings *s, const struct target *targets, size_t n,
		      const struct strv *context, struct tg_judge_item *items,
		      struct tg_module **mods, char **errs)
{
	size_t total = n + (context ? context->n : 0);

	for (size_t i = 0; i < total; i++) {
		const char *path = i < n ? targets[i].path : context->v[i - n];
		struct tg_error err = { 0 };

		if (tg_module_open_path(path, &s->limits, &mods[i], &err) < 0) {
			mods[i] = NULL;
			errs[i] = strdup(err.msg[0] ? err.msg : "cannot read module");
			if (!errs[i])
				return -ENOMEM;
		}
		items[i] = (struct tg_judge_item){ .path = path, .m = mods[i], .error = errs[i],
						   .package = i < n ? targets[i].package : NULL,
						   .context = i >= n };
	}
	return 0;
}

/*
 * The release the build is for: dkms names it; else the first target's (a
 * module built outside /lib/modules says it in its vermagic).  Every module,
 * the installed ones beside it too, is judged against that one kernel.
 */
static int pick_release(const char *release, const struct tg_judge_item *items, size_t n,
			struct judgement *j)
{
	char buf[256];

	for (size_t i = 0; i < n && !release; i++)
		release = tg_target_release(NULL, items[i].path, items[i].m, buf, sizeof(buf));
	if (release && !(j->release = strdup(release)))
		return -ENOMEM;
	return 0;
}

int hk_judge(const struct settings *s, const char *release, const struct target *targets, size_t n,
	     const struct strv *context, struct judgement *j)
{
	size_t total = n + (context ? context->n : 0);
	struct tg_judge_item *items = calloc(total ? total : 1, sizeof(*items));
	struct tg_module **mods = calloc(total ? total : 1, sizeof(*mods));
	char **errs = calloc(total ? total : 1, sizeof(*errs));
	struct tg_verdict *all = calloc(total ? total : 1, sizeof(*all));
	struct tg_error err = { 0 };
	int r = -ENOMEM;

	memset(j, 0, sizeof(*j));
	j->worst = TG_ACTION_ALLOW;
	if (!items || !mods || !errs || !all || tg_ctx_new(&j->ctx) < 0)
		goto out;
	*tg_ctx_limits(j->ctx) = s->limits;
	if ((r = open_policy(s, j)) < 0)
		goto out;
	r = -ENOMEM;
	if (s->root[0] && tg_ctx_set_root(j->ctx, s->root) < 0)
		goto out;
	if (open_items(s, targets, n, context, items, mods, errs) < 0 ||
	    pick_release(release, items, n, j) < 0)
		goto out;
	r = tg_judge(j->ctx, j->release, items, total, 0, all, &err);
	if (r < 0)
		goto out;
	if (r == 1)
		hk_msg("%s (judging without its facts)", err.msg);
	if (!(j->v = calloc(n ? n : 1, sizeof(*j->v)))) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		j->v[i] = all[i];
		memset(&all[i], 0, sizeof(all[i]));
		if (j->v[i].action > j->worst)
			j->worst = j->v[i].action;
	}
	j->n = n;
	hk_guard_judge(s, targets, n, j);
	r = 0;
out:
	if (r < 0) {
		hk_msg("out of memory while judging modules");
		free(j->v);
		j->v = NULL;
		j->n = 0;
		j->worst = TG_ACTION_DENY;
	}
	for (size_t i = 0; all && i < total; i++)
		tg_verdict_free_contents(&all[i]);
	free(all);
	free(items);
	for (size_t i = 0; mods && i < total; i++) {
		tg_module_free(mods[i]);
		if (errs)
			free(errs[i]);
	}
	free(mods);
	free(errs);
	return r;
}

const char *hk_verdict_name(const struct tg_verdict *v, char *buf, size_t len)
{
	const char *name = v->module ? v->module : v->file_module;

	if (!name && v->path) {
		const char *base = strrchr(v->path, '/');

		hk_bfmt(buf, len, "%s", base ? base + 1 : v->path);
		name = buf;
	} else if (name) {
		hk_bfmt(buf, len, "%s", name);
		name = buf;
	}
	if (!name || !hk_safe_name(name))
		return NULL;
	/* modprobe treats '-' and '_' alike; the kernel's name uses '_'. */
	for (char *p = buf; *p; p++)
		if (*p == '-')
			*p = '_';
	return buf;
}

static void line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void line(const char *fmt, ...)
{
	FILE *out = hk_msg_stream();
	va_list ap;

	fputs(PROG ":   ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

static void how_to_except(const struct judgement *j, const struct tg_verdict *v,
			  const char *package, const char *name, const char *retry)
{
	const char *site = TG_SYSCONFDIR "/policy.yaml";
	const char *src = j->policy_error[0] ? NULL : tg_policy_source(j->policy);
	char pkg[256];
	char *slash;

	hk_bfmt(pkg, sizeof(pkg), "%s", package ? package : "*");
	slash = strchr(pkg, '/');
	if (slash)
		strcpy(slash, "/*");
	/* The installed default is not to be edited: the site policy overrides it. */
	if (src && !strcmp(src, TG_DATADIR "/default.yaml") && access(site, F_OK) != 0)
		line("to allow it: copy %s to %s, then add to its \"exceptions:\" list:", src, site);
	else
		line("to allow it: add to the \"exceptions:\" list of %s:", src ? src : site);
	line("    - package: \"%s\"", pkg);
	line("      module: \"%s\"", name ? name : "*");
	line("      action: mark");
	line("      justification: \"<why this module is acceptable here>\"");
	if (retry)
		line("then run: %s", retry);
}

/*
 * The same one line as rpm and audit (tg_verdict_headline), the kernel and
 * file it is about, what dkms does now, and how to allow it: read once.
 */
void hk_report_verdict(const struct judgement *j, const struct tg_verdict *v, const char *package,
		       const char *outcome, const char *retry)
{
	char nbuf[128], head[512], taint[32];
	const char *name = hk_verdict_name(v, nbuf, sizeof(nbuf));
	const char *kernel = v->kernel ? v->kernel : j->release ? j->release : "unknown";
	struct tg_verdict shown = *v;	/* shallow: only the package differs */

	if (v->action == TG_ACTION_ALLOW)
		return;
	shown.package = (char *)package;	/* none: the path names it */
	tg_verdict_headline(&shown, NULL, head, sizeof(head));
	fflush(stdout);
	fprintf(hk_msg_stream(), PROG ": %s\n", head);
	tg_verdict_taint_string(v, v->taint_kernel | v->taint_module, taint, sizeof(taint));
	line("kernel %s, taint %s, file %s", kernel, *taint ? taint : "none", v->path ? v->path : "?");
	if (v->rule && !strcmp(v->rule, "guard") && v->n_reasons)	/* too long for the line */
		line("reason: %s", v->reasons[0]);
	if (j->policy_error[0])
		line("policy: could not be loaded (%s): judged with the built-in policy",
		     j->policy_error);
	line("policy: rule '%s' of %s -> %s%s%s%s", v->rule ? v->rule : "?",
	     tg_policy_source(j->policy), tg_action_name(v->action),
	     v->justification ? " (" : "", v->justification ? v->justification : "",
	     v->justification ? ")" : "");
	if (outcome)
		line("%s", outcome);
	if (v->action == TG_ACTION_DENY)
		how_to_except(j, v, package, name, retry);
	if (v->path)
		line("details: taintguard explain %s", v->path);

	openlog(PROG, LOG_PID, LOG_USER);
	syslog(v->action == TG_ACTION_DENY ? LOG_WARNING : LOG_NOTICE, "%s (kernel %s)%s%s", head,
	       kernel, outcome ? "; " : "", outcome ? outcome : "");
	closelog();
	fflush(hk_msg_stream());
}
