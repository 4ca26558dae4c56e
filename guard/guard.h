/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtgguard: the files that decide whether taintguard runs at all, read the
 * way the programs that read them do.  rpm reads its macro files and rpmrc
 * files at start (never from --root): a macro file can switch the rpm plugin
 * off (%__transaction_taintguard), move rpm's plugin directory
 * (%__plugindir) or change the plugin's settings (%_taintguard_*).  dkms
 * sources its framework files and each package's dkms.conf: a framework
 * file can replace the sign_file our hook is, a dkms.conf can override the
 * PRE_INSTALL our wrapper sets (docs/rpm.md, docs/dkms.md).
 *
 * No librpm and no libtaintguard: the rpm plugin (which asks librpm for the
 * places), `taintguard status` (which asks the rpm command) and the DKMS hook
 * share it.  A private static library, never installed.
 *
 *   macrofile.c  rpm macro files: the definitions rpm's loader sees
 *   macroset.c   which file's definition of a name wins, over rpm's macro path
 *   places.c     where rpm and dkms read these files; what a path is
 *   rpmrc.c      rpmrc files: the lines that change what rpm loads
 *   shell.c      dkms's framework files and dkms.conf: names they mention
 *
 * Untrusted input: a file's text is any bytes; every reader is bounded by
 * the length given and never reads past it.
 */
#ifndef TG_GUARD_H
#define TG_GUARD_H

#include <stdbool.h>
#include <stddef.h>

#include "paths.h"
#include "strv.h"

/* Largest file read as a macro, rpmrc or dkms file (rpm reads any size; we refuse more). */
#define GUARD_MAX_FILE (16u << 20)

/* ------------------------------------------------------------ macrofile.c */

/* One definition at the top level of a macro file, as rpm's loader sees it. */
struct guard_macro_def {
	const char *name;	/* not NUL-terminated: name_len bytes */
	size_t name_len;
	/*
	 * The text after the name (and its "(opts)"), leading and trailing
	 * blanks trimmed, as written: two equal texts give rpm equal
	 * definitions.  Not NUL-terminated.
	 */
	const char *body;
	size_t body_len;
	unsigned line;		/* the first line of the logical line, 1-based */
};
typedef int (*guard_macro_fn)(void *ctx, const struct guard_macro_def *d);

/*
 * Each definition of macro file @text (@len bytes), in file order, as rpm's
 * loader reads it (rdcl(): logical lines joined by a trailing backslash or
 * unbalanced %{ %( %[, at most 16 KiB each, a NUL ends a line; a line whose
 * first non-blank is '%' defines the name that follows).  Definitions rpm
 * would reject for an empty or unterminated body are still reported: for a
 * guard, a maybe is a yes.  Returns 0, or what @fn returned when < 0.
 */
int guard_macro_each(const char *text, size_t len, guard_macro_fn fn, void *ctx);

/*
 * Each macro name body @body refers to: %name, %{name}, %{?name}, %{!?name},
 * %{name:...}, %{?name:...}.  @fn gets the name (not NUL-terminated).
 */
int guard_macro_refs(const char *body, size_t len,
		     int (*fn)(void *ctx, const char *name, size_t len), void *ctx);

/* ------------------------------------------------------------- macroset.c */

/* A macro file in rpm's load order: its path and text (NULL text: not readable). */
struct guard_mfile {
	char *path;
	char *text;
	size_t len;
	void *tag;		/* the caller's: where the text came from */
};

/* The names whose definitions decide whether and how the plugin runs. */
struct guard_names {
	struct strv names;
};
/*
 * The plugin's names: __transaction_taintguard, __plugindir and every
 * _taintguard_* (guard_names_match); 0 or -ENOMEM.
 */
int guard_names_init(struct guard_names *nm);
void guard_names_free(struct guard_names *nm);
bool guard_names_match(const struct guard_names *nm, const char *name, size_t len);
/*
 * Add the names that the winning definitions of @nm's names in @files refer
 * to, until nothing new comes: %__plugindir is "%{_libdir}/rpm-plugins",
 * so a file defining %_libdir moves the plugin directory too.  0 or -ENOMEM.
 */
int guard_names_close(struct guard_names *nm, const struct guard_mfile *files, size_t n);

/* The definition of a name that wins (the last one rpm loads). */
struct guard_win {
	char *name;
	char *body;
	size_t file;		/* index into the files */
	unsigned line;
};
struct guard_wins {
	struct guard_win *v;
	size_t n, cap;
};
/* The winner of each name of @nm (by guard_names_match) defined in @files. */
int guard_wins_get(const struct guard_mfile *files, size_t n, const struct guard_names *nm,
		   struct guard_wins *out);
void guard_wins_free(struct guard_wins *w);
const struct guard_win *guard_wins_find(const struct guard_wins *w, const char *name);

/* ---------------------------------------------------------------- places.c */

enum guard_kind {
	GUARD_NONE = 0,
	GUARD_MACRO,		/* rpm reads it as a macro file */
	GUARD_RPMRC,		/* rpm reads it as an rpmrc file */
	GUARD_PLUGIN,		/* in rpm's plugin directory, named like the plugin */
	GUARD_DKMS_FRAMEWORK,	/* dkms's framework.conf or framework.conf.d/ *.conf */
	GUARD_DKMS_CONF,	/* a dkms.conf, or /etc/dkms/MODULE*.conf dkms sources with it */
	GUARD_OWN,		/* in taintguard's own directories, or one of its files */
};
const char *guard_kind_name(enum guard_kind k);

/* Where the files are, for one system (all absolute, without a --root prefix). */
struct guard_places {
	/* rpm's macro path in load order, %{_target} and ~ expanded: globs */
	struct strv macro;
	struct strv rpmrc;	/* rpmrc files (globs) */
	char *plugindir;	/* %{__plugindir} */
	/* taintguard's own: "DIR/" for a directory and all below, else a file */
	struct strv own;
};
/*
 * Fill the parts that do not come from rpm: dkms's places are fixed,
 * taintguard's own directories come from the build (and @policy, the
 * policy file in use, may be NULL).  The rpm parts are the caller's:
 * guard_places_set_macro_path() for the macro path.
 */
int guard_places_init(struct guard_places *pl, const char *policy);
void guard_places_free(struct guard_places *pl);
/*
 * rpm's macro path (colon-separated, as rpm's "Macro path:" or the
 * `macrofiles` variable), with @target for %{_target} and each ~ for
 * @home; also sets the rpmrc places from its config directory (the first
 * entry's directory, /usr/lib/rpm).  0, -ENOMEM, -EINVAL (not absolute).
 */
int guard_places_set_macro_path(struct guard_places *pl, const char *path, const char *target,
				const char *home);
int guard_places_set_plugindir(struct guard_places *pl, const char *dir);
/* Add an own file or directory ("DIR/"). */
int guard_places_add_own(struct guard_places *pl, const char *path);

/* What @path (absolute, as installed) is; GUARD_NONE for everything else. */
enum guard_kind guard_classify(const struct guard_places *pl, const char *path);
/* Does the macro path glob @glob (one entry of pl->macro) match @path as rpm's glob would? */
bool guard_glob_match(const char *glob, const char *path);
/* rpm skips these when loading a macro path glob. */
bool guard_macro_skipped(const char *path);
/* Named like one of taintguard's rpm files: macros.transaction_taintguard*. */
bool guard_named_like_macros(const char *path);

/* ----------------------------------------------------------------- rpmrc.c */

/*
 * The lines of rpmrc text @text that can change what rpm loads (every
 * option but optflags and archcolor: arch and os tables decide %{_target},
 * hence which platform macro file is read; include reads another file),
 * blanks and comments dropped, each trimmed, "\n" after each; malloc'ed,
 * NULL on ENOMEM.
 */
char *guard_rpmrc_significant(const char *text, size_t len);

/* ----------------------------------------------------------------- shell.c */

/*
 * The first line (1-based) where @word occurs outside a shell comment in
 * @text: as a whole name (neither side continues a name) or, with @prefix,
 * at the start of a name; 0 if nowhere.  Quotes are followed so that a '#'
 * in a string starts no comment; anything unclear counts as a mention.
 */
unsigned guard_shell_mention(const char *text, size_t len, const char *word, bool prefix);

/*
 * Why a dkms framework file bypasses taintguard's hook, or NULL: it sets
 * sign_file (the last framework file's wins over ours) or try_sign_modules
 * (dkms >= 3.3 then skips sign_file), touches DKMS_DIRECTIVE_* or names
 * taintguard (dkms < 3.0.9 runs a framework file in its own shell).  @buf
 * holds the reason.
 */
const char *guard_dkms_framework_reason(const char *text, size_t len, char *buf, size_t size);
/*
 * Why a dkms.conf (or /etc/dkms/MODULE*.conf) bypasses the PRE_INSTALL
 * check, or NULL: it touches DKMS_DIRECTIVE_*, the variables dkms turns
 * into directives after sourcing it, where our PRE_INSTALL travels; or it
 * names taintguard.
 */
const char *guard_dkms_conf_reason(const char *text, size_t len, char *buf, size_t size);

/* ----------------------------------------------------------------- util */

/* Read @path whole (following links, as rpm and dkms do), at most GUARD_MAX_FILE bytes. */
int guard_read_file(const char *path, char **text, size_t *len);

#endif
