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

static const char *policy_path(const struct settings *s)
{
	return s->policy[0] ? s->policy : tg_policy_default_path();
}

int hk_judge(const struct settings *s, const char *release, const struct target *targets,
	  size_t n, const struct strv *context, struct judgement *j)
{
	size_t nctx = context ? context->n : 0, total = n + nctx, count;
	struct tg_module **mods = calloc(total ? total : 1, sizeof(*mods));
	char **errs = calloc(total ? total : 1, sizeof(*errs));
	struct tg_verdict *all = NULL;
	struct tg_limits lim;
	struct tg_error err = { 0 };
	struct tg_set *set = NULL;
	struct tg_policy *policy = NULL;
	int r = -ENOMEM;

	memset(j, 0, sizeof(*j));
	j->worst = TG_ACTION_ALLOW;
	if (!mods || !errs)
		goto out;
	lim = s->limits;
	if (tg_ctx_new(&j->ctx) < 0)
		goto out;
	*tg_ctx_limits(j->ctx) = lim;
	if (tg_policy_load_path(policy_path(s), &lim, &policy, &err) < 0) {
		/*
		 * Fail closed as far as the kernel goes, as the rpm plugin does: the
		 * built-in policy still denies what the kernel refuses or
		 * force-taints and marks the rest.
		 */
		hk_bfmt(j->policy_error, sizeof(j->policy_error), "%s", err.msg);
		hk_msg("cannot load the policy: %s; judging with the built-in policy until this is "
		    "fixed (exceptions do not apply)", err.msg);
		policy = NULL;
	}
	tg_ctx_set_policy(j->ctx, policy);
	j->policy = tg_ctx_policy(j->ctx);
	if (s->root[0] && tg_ctx_set_root(j->ctx, s->root) < 0)
		goto out;
	for (size_t i = 0; i < total; i++) {
		const char *path = i < n ? targets[i].path : context->v[i - n];

		memset(&err, 0, sizeof(err));
		if (tg_module_open_path(path, &lim, &mods[i], &err) < 0) {
			mods[i] = NULL;
			errs[i] = strdup(err.msg[0] ? err.msg : "cannot read module");
			if (!errs[i])
				goto out;
		}
	}
	if (!release) {
		char buf[256];

		for (size_t i = 0; i < n && !release; i++) {
			const char *vm = mods[i] ? tg_module_get(mods[i], "vermagic") : NULL;

			if (vm && tg_kernel_release_from_vermagic(vm, buf, sizeof(buf)) == 0)
				release = buf;
		}
		j->release = release ? strdup(release) : NULL;
	} else {
		j->release = strdup(release);
	}
	if (release && !j->release)
		goto out;
	if (j->release) {
		memset(&err, 0, sizeof(err));
		if (tg_ctx_kernel(j->ctx, j->release, &j->kernel, &err) < 0) {
			hk_msg("kernel %s: %s (judging without its facts)", j->release, err.msg);
			j->kernel = NULL;
		}
	}
	set = tg_set_new(j->ctx);
	if (!set)
		goto out;
	for (size_t i = 0; i < total; i++) {
		const char *path = i < n ? targets[i].path : context->v[i - n];

		if (i >= n && !mods[i])
			continue;	/* unreadable context: not our business here */
		if (tg_set_add(set, path, mods[i], j->kernel, i < n ? targets[i].package : NULL,
			       errs[i]) < 0)
			goto out;
	}
	count = tg_set_count(set);
	all = calloc(count ? count : 1, sizeof(*all));
	j->v = calloc(n ? n : 1, sizeof(*j->v));
	if (!all || !j->v)
		goto out;
	if (tg_set_predict(set, all) < 0)
		goto out;
	for (size_t i = 0; i < count; i++) {
		if (i < n) {
			j->v[i] = all[i];
			if (all[i].action > j->worst)
				j->worst = all[i].action;
		} else {
			tg_verdict_free_contents(&all[i]);
		}
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
	free(all);
	tg_set_free(set);
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
void hk_report_verdict(const struct judgement *j, const struct tg_verdict *v,
		    const char *package, const char *outcome, const char *retry)
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
	tg_taint_string(v->taint_kernel | v->taint_module, taint, sizeof(taint));
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
