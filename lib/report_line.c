/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one line a person reads once about a verdict: action, package, module
 * and the one reason that decided it.  Every front end (rpm plugin, DKMS
 * hook, audit) prints this line, so the words are the same everywhere; the
 * full explanation is tg_verdict_write_text() (taintguard explain).
 */
#include <stdio.h>
#include <string.h>

#include "predict.h"

/* keep the whole line near 120 characters */
#define REASON_MAX 64
#define REFUSAL_MAX 48	/* leaves room for the first symbol */

/*
 * A long reason cut at the last clause boundary (" (", ": ", "; ", ", ") in the
 * second two thirds of the room: what follows is detail the full
 * explanation gives; else at a word, with "...".  Never inside brackets: a
 * cut there would leave "(0x5002fa32" without its kernel CRC or its ")".
 */
static void clause(const char *s, size_t max, char *out, size_t len)
{
	size_t n = strlen(s), cap = len - 1 < max ? len - 1 : max, cut = 0, word = 0;
	int depth = s[0] == '(';

	if (n <= cap) {
		snprintf(out, len, "%s", s);
		return;
	}
	for (size_t i = 1; i <= cap; i++) {	/* n > cap: s[i + 1] exists */
		if (depth == 0 && i >= cap / 3 && (s[i + 1] == '(' ? s[i] == ' ' :
				     (s[i] == ':' || s[i] == ';' || s[i] == ',') && s[i + 1] == ' '))
			cut = i;
		depth += (s[i] == '(') - (s[i] == ')');
		if (s[i] == ' ')
			word = i;
	}
	if (cut)
		snprintf(out, len, "%.*s", (int)cut, s);
	else
		snprintf(out, len, "%.*s...", (int)(word ? word : cap - 3), s);
}

/* The flag that decided a taint: the forced-taint one, else P, else the first. */
static const struct tg_flag *deciding_flag(const struct tg_verdict *v)
{
	const struct tg_flag *p = NULL;

	for (size_t i = 0; i < v->n_flags; i++) {
		if (v->forced_taint && strstr(v->flags[i].reason, "forced-taint"))
			return &v->flags[i];
		if (!p && v->flags[i].letter == 'P')
			p = &v->flags[i];
	}
	return p ? p : v->n_flags ? &v->flags[0] : NULL;
}

/* The first note saying what could not be checked. */
static const char *unknown_note(const struct tg_verdict *v)
{
	for (size_t i = 0; i < v->n_notes; i++)
		if (strstr(v->notes[i], "unknown"))
			return v->notes[i];
	return v->n_notes ? v->notes[0] : NULL;
}

/*
 * In the order of the default policy's rules (unreadable, refused by the
 * kernel, forced taint, taint P, incomplete), then any other taint; an
 * exception, or the guard (a file that could switch taintguard off), decides
 * before any.
 */
int tg_verdict_reason(const struct tg_verdict *v, char *buf, size_t len)
{
	char c[REASON_MAX + 4], t[32];
	const struct tg_flag *f;
	const char *note;

	if (!len)
		return 0;
	if (v->error) {
		const char *e = v->error, *sep = strstr(e, ": ");

		if (*e == '/' && sep)	/* "PATH: why": the line names the file already */
			e = sep + 2;
		clause(e, REASON_MAX, c, sizeof(c));
		return snprintf(buf, len, "cannot be read: %s", c);
	}
	if (v->justification)
		return snprintf(buf, len, "policy exception: %s", v->justification);
	if (v->rule && !strcmp(v->rule, "guard") && v->n_reasons) {
		/* a file that could switch taintguard off decided (DKMS hook), said first */
		clause(v->reasons[0], REASON_MAX, c, sizeof(c));
		return snprintf(buf, len, "%s", c);
	}
	if (!v->loads && v->n_refusals) {
		const struct tg_refusal *r = &v->refusals[0];

		clause(r->reason, r->n_symbols ? REFUSAL_MAX : REASON_MAX, c, sizeof(c));
		return snprintf(buf, len, "the kernel would refuse it: %s%s%s%s%s", c,
				r->n_symbols ? " (" : "", r->n_symbols ? r->symbols[0] : "",
				r->n_symbols > 1 ? " ..." : "", r->n_symbols ? ")" : "");
	}
	tg_verdict_taint_string(v, v->taint_kernel | v->taint_module, t, sizeof(t));
	f = v->taint_kernel ? deciding_flag(v) : NULL;
	/* a forced taint or P first; what could not be checked before other letters */
	if (f && (v->forced_taint || f->letter == 'P' || !v->incomplete)) {
		clause(f->reason, REASON_MAX, c, sizeof(c));
		return snprintf(buf, len, "taints %s: %s", t, c);
	}
	if (v->incomplete && (note = unknown_note(v))) {
		clause(note, REASON_MAX, c, sizeof(c));
		return snprintf(buf, len, "not fully checked: %s", c);
	}
	if (f) {
		clause(f->reason, REASON_MAX, c, sizeof(c));
		return snprintf(buf, len, "taints %s: %s", t, c);
	}
	if (v->advisory)
		return snprintf(buf, len, "on an advisory list (no effect on the kernel)");
	return snprintf(buf, len, "%s", *t ? "taints the kernel" : "loads cleanly");
}

static const char *action_word(enum tg_action a)
{
	return a == TG_ACTION_DENY ? "refused" : a == TG_ACTION_MARK ? "marked" : "allowed";
}

/* The file's name when it is not MODULE.ko: compressed, renamed or hidden. */
static const char *file_if_other(const struct tg_verdict *v, const char *mod)
{
	const char *base = v->path ? strrchr(v->path, '/') : NULL;
	size_t n = strlen(mod);

	base = base ? base + 1 : v->path;
	if (!base || *base == '(' ||	/* "(package)": no file */
	    (!strncmp(base, mod, n) && !strcmp(base + n, ".ko")))
		return NULL;
	return base;
}

int tg_verdict_headline(const struct tg_verdict *v, const char *what, char *buf, size_t len)
{
	const char *mod = v->module ? v->module : v->file_module ? v->file_module : "?";
	const char *file = file_if_other(v, mod);
	char why[256];
	int n;

	tg_verdict_reason(v, why, sizeof(why));
	if (v->hidden)	/* where it lives, and that modprobe will not load it: worth the length */
		n = snprintf(buf, len, "%s %s: %s%s hidden as %s (modprobe won't find it, only "
			     "insmod): %s", what ? what : action_word(v->action),
			     v->package ? v->package : "?", v->module || v->file_module ? "module " :
			     "file", v->module || v->file_module ? mod : "", v->path, why);
	else if (!v->module && !v->file_module)	/* unreadable: the file is all we know */
		n = snprintf(buf, len, "%s %s: %s%s%s%s", what ? what : action_word(v->action),
			     v->package ? v->package : "?", file ? "file " : "", file ? file : "",
			     file ? ": " : "", why);
	else
		n = snprintf(buf, len, "%s %s: module %s%s%s%s: %s",
			     what ? what : action_word(v->action),
			     v->package ? v->package : v->path ? v->path : "?", mod,
			     file ? " (" : "", file ? file : "", file ? ")" : "", why);
	return n < 0 ? 0 : n;
}
