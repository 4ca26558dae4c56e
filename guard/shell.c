/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * dkms's framework files and dkms.conf are bash, sourced by dkms.  From
 * 3.0.9 a framework file runs in a subshell and only dkms's listed
 * variables come back (sign_file, mok_signing_key, mok_certificate, since
 * 3.3 try_sign_modules, since 3.2 post_transaction, and the directory
 * settings); before, it ran in dkms's own shell.  A dkms.conf runs in a
 * subshell in every release, which then prints each DKMS_DIRECTIVE_*
 * variable it still sees as a directive assignment: that is where the dkms
 * wrapper's PRE_INSTALL travels (docs/dkms.md).  We do not run them: we
 * look for the names, outside comments, and treat any mention as a use.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "guard.h"

static bool name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Where a '#' starts a comment: at the start of a word. */
static bool word_start(const char *text, const char *p)
{
	return p == text || strchr(" \t\n;&|()<>", p[-1]);
}

static unsigned find(const char *text, size_t len, const char *word, bool prefix, bool icase)
{
	const char *p = text, *end = text + len;
	size_t wl = strlen(word);
	unsigned line = 1;
	char quote = 0;

	for (; p < end; p++) {
		if (*p == '\n')
			line++;
		if (quote == '\'') {
			if (*p == '\'')
				quote = 0;
		} else if (*p == '\\' && p + 1 < end) {
			if (*++p == '\n')
				line++;
			continue;
		} else if (quote == '"') {
			if (*p == '"')
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '#' && word_start(text, p)) {
			while (p + 1 < end && p[1] != '\n')
				p++;
			continue;
		}
		/* a mention in quotes counts too: eval runs strings */
		if ((size_t)(end - p) >= wl &&
		    !(icase ? strncasecmp(p, word, wl) : strncmp(p, word, wl)) &&
		    (p == text || !name_char(p[-1])) &&
		    (prefix || p + wl == end || !name_char(p[wl])))
			return line;
	}
	return 0;
}

unsigned guard_shell_mention(const char *text, size_t len, const char *word, bool prefix)
{
	return find(text, len, word, prefix, false);
}

/* bash names are case-sensitive; "taintguard" in a path or name is any case */
static const char *mention(const char *text, size_t len, const char *word, bool prefix,
			   const char *what, char *buf, size_t size)
{
	unsigned line = find(text, len, word, prefix, !strcmp(word, "taintguard"));

	if (!line)
		return NULL;
	snprintf(buf, size, "%s (line %u)", what, line);
	return buf;
}

const char *guard_dkms_framework_reason(const char *text, size_t len, char *buf, size_t size)
{
	const char *r;

	if ((r = mention(text, len, "sign_file", false,
			 "it sets sign_file, which replaces taintguard's DKMS hook when read after it",
			 buf, size)) ||
	    (r = mention(text, len, "try_sign_modules", false,
			 "it sets try_sign_modules, with which dkms 3.3+ may skip sign_file, "
			 "taintguard's DKMS hook", buf, size)) ||
	    (r = mention(text, len, "DKMS_DIRECTIVE", true,
			 "it touches DKMS_DIRECTIVE_*, which carry taintguard's PRE_INSTALL check",
			 buf, size)) ||
	    (r = mention(text, len, "taintguard", true,
			 "it names taintguard (dkms < 3.0.9 runs framework files as code)", buf,
			 size)))
		return r;
	return NULL;
}

const char *guard_dkms_conf_reason(const char *text, size_t len, char *buf, size_t size)
{
	return mention(text, len, "DKMS_DIRECTIVE", true,
		       "it touches DKMS_DIRECTIVE_*: dkms turns those into directives after "
		       "sourcing it, so it can replace or drop taintguard's PRE_INSTALL check",
		       buf, size);
}
