/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard status: the packages and DKMS modules that were installed with
 * a mark (or installed in warn mode although denied), from the records the
 * rpm plugin and the DKMS hook keep in ROOT/var/lib/taintguard/marks/
 * (read by the library: tg_record_*, docs/records.md).
 *
 * A record whose package is no longer installed or whose DKMS module is gone
 * from dkms's tree is shown as stale: records are removed when the package
 * goes, so a stale one means something removed it behind our back (rpm
 * --noplugins -e, a manual rm).  Whether an rpm package is installed is asked
 * of the rpm command, not of librpm: this command must run where librpm is
 * not installed (a DKMS-only host) and must not depend on librpm's ABI.
 *
 * A staged record (written before the package's files, never made final:
 * rpm was killed) is a mark when its package is installed and is dropped
 * when it is not.  Packages owning kernel modules without any record are
 * judged now and listed as unrecorded (status_unrecorded.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "status_unrecorded.h"

#define MARKS_DIR STATUS_MARKS_DIR
/*
 * Package names per rpm -q (each a separate argument: no shell, no ARG_MAX
 * worry).  rpm -q exits with the number of names not installed, which must
 * stay below 256 to be read back.
 */
#define RPM_BATCH 200
/*
 * rpm -q asked again when it fails, 0.2 s apart for up to 3 s: rpm may be
 * writing its database right then, and a transaction on a loaded machine
 * takes seconds.
 */
#define RPM_TRIES 15
/* the query format marks rpm's answers; its other lines ("package X is not installed") do not start so */
#define RPM_MARK "taintguard-installed "

/* ST_DROPPED: a staged record of a package rpm never installed: not a mark */
enum state { ST_INSTALLED, ST_STALE, ST_UNCHECKED, ST_DROPPED };

struct entry {
	const char *file;
	struct tg_record *rec;		/* NULL: could not be read, see error */
	char error[TG_ERRMAX];
	enum state state;
	const char *unchecked;		/* why not checked (ST_UNCHECKED) */
	bool gone;			/* removed after the listing was read */
};

static void status_usage(FILE *out)
{
	fputs("Usage: taintguard status [--root DIR] [--dbpath DIR] [--format text|json]\n"
	      "                         [--check LIST] [--skip LIST] [-v]\n"
	      "       taintguard status --accept [--root DIR] [--dbpath DIR]\n\n"
	      "Whether taintguard is still on guard, and the installed packages (rpm) and\n"
	      "DKMS modules that taintguard marked, or let through in warn mode although\n"
	      "the policy denies them.\n\n"
	      "Checks (LIST: comma-separated; guard = plugin,mode,dkms,policy):\n"
	      "  plugin   rpm loads the taintguard plugin (rpm --eval %__transaction_taintguard)\n"
	      "  mode     %_taintguard_mode is the accepted one (enforce unless accepted)\n"
	      "  dkms     dkms calls taintguard's sign_file hook; its wrapper is in place\n"
	      "  policy   the policy in use loads, is ours, and is the accepted one\n"
	      "  records  the mark records in ROOT" MARKS_DIR "/: a record whose\n"
	      "           package is gone (rpm --root ROOT -q; ROOT/var/lib/dkms) is stale,\n"
	      "           a staged one (rpm was killed) is a mark if its package is\n"
	      "           installed and dropped if not; packages (rpm -qf, dpkg) owning\n"
	      "           modules in ROOT/lib/modules/R/ outside R/kernel/ without a\n"
	      "           record are judged now and listed as unrecorded\n"
	      "Each finding names the file and the package owning it (rpm -qf, else dpkg's\n"
	      "database as dpkg-query -S reads it).\n\n"
	      "Options:\n"
	      "  -r, --root DIR     the system below DIR instead of /\n"
	      "      --dbpath DIR   rpm database inside the root (default: rpm's %_dbpath)\n"
	      "  -f, --format FMT   text (default) or json\n"
	      "      --check LIST   run only these checks\n"
	      "      --skip LIST    run all checks but these\n"
	      "      --accept       record the state as it is now as accepted (the mode,\n"
	      "                     digests of the policy, plugin and DKMS hook) in\n"
	      "                     ROOT/var/lib/taintguard/guard.conf, after checking it\n"
	      "  -v, --verbose      every reason of every module and the rule that decided\n"
	      "                     (the full explanation: taintguard explain PACKAGE)\n"
	      "  -h, --help         show this help\n"
	      "  -V, --version      show the version\n\n"
	      "Exit codes: 0 nothing marked, 1 marked packages present (or only stale\n"
	      "records), 2 a denied package is installed (warn mode; also when it could\n"
	      "not be checked), 3 error (also a record that cannot be read: the others\n"
	      "are still listed; also a check that could not be made), 4 the guard is\n"
	      "down (before any other code), 5 a package owns kernel modules, has no\n"
	      "record and is not allowed (unrecorded: installed with rpm --noplugins,\n"
	      "before taintguard, or rpm was killed; before 1 and 2, after 3 and 4).\n", out);
}

/* "plugin,mode" -> STATUS_* bits; 0 with a message for an unknown name. */
static unsigned parse_checks(const char *list)
{
	static const struct {
		const char *name;
		unsigned bits;
	} names[] = {
		{ "records", STATUS_RECORDS }, { "plugin", STATUS_PLUGIN }, { "mode", STATUS_MODE },
		{ "dkms", STATUS_DKMS }, { "policy", STATUS_POLICY }, { "guard", STATUS_GUARD },
		{ "all", STATUS_GUARD | STATUS_RECORDS },
	};
	char *copy = strdup(list), *save = NULL;
	unsigned bits = 0;

	for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
		size_t i;

		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (!strcmp(t, names[i].name))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			cli_error("status: unknown check '%s' (records, plugin, mode, dkms, policy, "
				  "guard, all)", t);
			free(copy);
			return 0;
		}
		bits |= names[i].bits;
	}
	free(copy);
	return bits;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * One "rpm -q" over @names: every installed NEVRA of those names joins
 * @installed.  NULL, or why the answer cannot be trusted (static or
 * malloc'ed into *@why_buf).
 */
static const char *rpm_query(const char *rpm, const char *root, const char *dbpath,
			     char **names, size_t n, struct strv *installed, char **why_buf)
{
	char **argv = status_rpm_argv(rpm, root, dbpath, NULL, RPM_MARK "%{NEVRA}\\n", names, n);
	char *out = NULL, *line, *next;
	size_t len, missing = 0, ni0 = installed->n;
	int st;

	if (!argv)
		return "out of memory";
	st = cli_run_capture(argv, &out, &len);
	free(argv);
	if (st < 0) {
		free(out);
		return st == -EFBIG ? "rpm -q printed too much" : "rpm -q could not be run";
	}
	if (WIFSIGNALED(st)) {
		free(out);
		return "rpm -q was killed by a signal";
	}
	/*
	 * Trusted only when every line is an answer ("package X is not installed"
	 * or ours), a warning, and the exit status counts the names not
	 * installed: a missing library, a broken database or a wrapper failing
	 * otherwise must not turn every record stale.
	 */
	for (line = out; *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else
			next = line + strlen(line);
		if (!strncmp(line, "package ", 8) && strlen(line) > 25 &&
		    !strcmp(line + strlen(line) - 17, " is not installed")) {
			missing++;
			continue;
		}
		if (!strncmp(line, "warning:", 8) || !*line)
			continue;
		if (strncmp(line, RPM_MARK, strlen(RPM_MARK))) {
			if (asprintf(why_buf, "rpm -q: %.200s", line) < 0)
				*why_buf = NULL;
			free(out);
			return *why_buf ? *why_buf : "rpm -q failed";
		}
		if (strv_push(installed, line + strlen(RPM_MARK)) < 0) {
			free(out);
			return "out of memory";
		}
	}
	/* every name gets a line: "not installed", or one per installed version */
	if (missing + (installed->n - ni0) < n) {
		free(out);
		return "rpm -q did not answer for every package";
	}
	if (!WIFEXITED(st) || (size_t)WEXITSTATUS(st) != missing) {
		if (asprintf(why_buf, "rpm -q exited with status %d", WEXITSTATUS(st)) < 0)
			*why_buf = NULL;
		free(out);
		return *why_buf ? *why_buf : "rpm -q failed";
	}
	free(out);
	return NULL;
}

/*
 * Installed or stale, for every rpm record: the names of the packages are
 * asked of rpm in batches and a record is installed when its NEVRA is among
 * the installed versions (a package with an epoch matches as rpm prints it).
 * A reason why not (for the entries) may be left in *@why_buf for the caller
 * to free.
 */
static void rpm_check(struct entry *e, size_t n, const char *root, const char *dbpath,
		      char **why_buf)
{
	char *rpm = NULL, **names = NULL;
	struct strv installed = { 0 };
	size_t nn = 0;
	const char *why = NULL;

	for (size_t i = 0; i < n; i++)
		if (e[i].rec && e[i].rec->source == TG_RECORD_RPM)
			nn++;
	if (nn == 0)
		return;
	rpm = cli_find_rpm();
	names = calloc(nn, sizeof(char *));
	if (!rpm)
		why = "no rpm command";
	else if (!names)
		why = "out of memory";
	nn = 0;
	for (size_t i = 0; !why && i < n; i++)
		if (e[i].rec && e[i].rec->source == TG_RECORD_RPM)
			names[nn++] = (char *)(e[i].rec->name ? e[i].rec->name : e[i].rec->package);
	if (!why && nn) {
		size_t u = 1;

		qsort(names, nn, sizeof(char *), str_cmp);
		for (size_t i = 1; i < nn; i++)
			if (strcmp(names[i], names[u - 1]))
				names[u++] = names[i];
		nn = u;
	}
	/*
	 * A transaction running meanwhile can make rpm -q miss a package or
	 * fail outright (an rpmdb being rewritten): asked again before the
	 * records are shown as not checked.
	 */
	for (int t = 0; t < RPM_TRIES && rpm && names; t++) {
		if (t) {
			struct timespec pause = { 0, 200 * 1000 * 1000 };

			strv_free(&installed);
			free(*why_buf);
			*why_buf = NULL;
			nanosleep(&pause, NULL);
		}
		why = NULL;
		for (size_t i = 0; !why && i < nn; i += RPM_BATCH)
			why = rpm_query(rpm, root, dbpath, names + i,
					nn - i < RPM_BATCH ? nn - i : RPM_BATCH, &installed, why_buf);
		if (!why || !strcmp(why, "out of memory") || !strcmp(why, "rpm -q could not be run"))
			break;
	}
	if (!why && installed.n)
		qsort(installed.v, installed.n, sizeof(char *), str_cmp);
	if (why)
		cli_error("cannot tell which rpm packages are installed: %s; their records are shown as not checked",
			  why);
	for (size_t i = 0; i < n; i++) {
		const char *key;

		if (!e[i].rec || e[i].rec->source != TG_RECORD_RPM)
			continue;
		if (why) {
			e[i].state = ST_UNCHECKED;
			e[i].unchecked = why;
			continue;
		}
		key = e[i].rec->package;
		e[i].state = installed.n && bsearch(&key, installed.v, installed.n, sizeof(char *), str_cmp)
				     ? ST_INSTALLED : e[i].rec->staged ? ST_DROPPED : ST_STALE;
	}
	strv_free(&installed);
	free(names);
	free(rpm);
}

/* dkms keeps ROOT/var/lib/dkms/MODULE/VERSION/KVER while a build exists. */
static bool dkms_present(const char *root, const char *package, const char *kernel)
{
	char path[4096];
	struct stat st;

	if (!kernel || snprintf(path, sizeof(path), "%s/var/lib/dkms/%s/%s", root, package, kernel) >=
	    (int)sizeof(path))
		return false;
	return stat(path, &st) == 0;
}

/*
 * Installed, not only built: dkms links ROOT/var/lib/dkms/MODULE/kernel-KVER-ARCH
 * to VERSION/KVER/ARCH when it has installed that build into the kernel's
 * tree (dkms status reads the same link).  A staged record (written before
 * the install; dkms was killed before taintguard's after-dkms made it final)
 * is a mark only then: a build that never got installed is no mark.
 */
static bool dkms_installed(const char *root, const struct tg_record *rec)
{
	char link[4096], want[4096], got[4096];
	ssize_t n;

	if (!rec->name || !rec->version || !rec->kernel || !rec->arch ||
	    snprintf(link, sizeof(link), "%s/var/lib/dkms/%s/kernel-%s-%s", root, rec->name,
		     rec->kernel, rec->arch) >= (int)sizeof(link) ||
	    snprintf(want, sizeof(want), "%s/%s/%s", rec->version, rec->kernel, rec->arch) >=
		    (int)sizeof(want))
		return false;
	n = readlink(link, got, sizeof(got) - 1);
	if (n < 0)
		return false;
	got[n] = '\0';
	/* dkms writes it relative ("1.0/KVER/ARCH"); older ones with a leading "./" */
	return !strcmp(got, want) || (!strncmp(got, "./", 2) && !strcmp(got + 2, want));
}

static enum state dkms_state(const char *root, const struct tg_record *rec)
{
	if (rec->staged)
		return dkms_installed(root, rec) ? ST_INSTALLED : ST_DROPPED;
	return dkms_present(root, rec->package, rec->kernel) ? ST_INSTALLED : ST_STALE;
}

/*
 * rpm installs and erases while status runs.  A record removed after the
 * directory was listed is gone, not unreadable; one that reads as stale and
 * whose file is gone by now was removed by the erasure that made it stale.
 * Neither is listed.  The entries left, compacted; their count.
 */
static size_t drop_gone(struct entry *e, size_t n)
{
	struct stat st;
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (e[i].gone || (e[i].state == ST_STALE && lstat(e[i].file, &st) < 0 &&
				  errno == ENOENT)) {
			tg_record_free(e[i].rec);
			continue;
		}
		e[k++] = e[i];
	}
	return k;
}

/* ------------------------------------------------------------ output */

static const char *state_text(const struct entry *e)
{
	static char buf[TG_ERRMAX + 32];

	switch (e->state) {
	case ST_STALE:
		return " [stale: no longer installed]";
	case ST_UNCHECKED:
		snprintf(buf, sizeof(buf), " [not checked (%s)]", e->unchecked);
		return buf;
	case ST_DROPPED:
		return " [staged, never installed: dropped]";
	case ST_INSTALLED:
		if (!e->rec->staged)
			return "";
		return e->rec->source == TG_RECORD_DKMS ? " [staged: installed, dkms did not finish]"
							 : " [staged: installed, rpm did not finish]";
	}
	return "";
}

/* One record; @verbose: every reason of every module and the rule (taintguard explain). */
void status_print_record(const struct tg_record *rec, const char *state, bool verbose)
{
	printf("%s (%s): %s%s\n", rec->package, tg_record_source_name(rec->source),
	       tg_action_name(rec->action), state);
	if (rec->kernel)
		printf("  kernel %s\n", rec->kernel);
	for (size_t i = 0; i < rec->n_modules; i++) {
		const struct tg_record_module *m = &rec->modules[i];

		printf("  %s: module %s, taint %s", m->path ? m->path : "?", m->module ? m->module : "?",
		       *m->taint ? m->taint : "none");
		if (verbose) {
			printf(", rule %s -> %s\n", m->rule ? m->rule : "?", tg_action_name(m->action));
			for (size_t k = 0; k < m->n_reasons; k++)
				printf("    %s\n", m->reasons[k]);
			continue;
		}
		if (m->n_reasons > 0)
			printf(": %s", m->reasons[0]);
		putchar('\n');
	}
}

static void print_text(const struct entry *e, bool verbose)
{
	status_print_record(e->rec, state_text(e), verbose);
}

static void json_field(const char *key, const char *val, bool last)
{
	printf("    \"%s\": ", key);
	tg_json_string(stdout, val);
	fputs(last ? "\n" : ",\n", stdout);
}

static void print_json_entry(const struct entry *e)
{
	const struct tg_record *rec = e->rec;

	fputs("  {\n", stdout);
	json_field("source", rec ? tg_record_source_name(rec->source) : NULL, false);
	json_field("package", rec ? rec->package : NULL, false);
	json_field("action", rec ? tg_action_name(rec->action) : NULL, false);
	printf("    \"stale\": %s,\n", !rec || e->state == ST_UNCHECKED ? "null"
				   : e->state == ST_STALE ? "true" : "false");
	json_field("not_checked", rec && e->state == ST_UNCHECKED ? e->unchecked : NULL, false);
	json_field("record", e->file, false);
	json_field("error", rec ? NULL : e->error, false);
	json_field("format", rec ? rec->format : NULL, false);
	json_field("kernel", rec ? rec->kernel : NULL, false);
	json_field("mode", rec ? rec->mode : NULL, false);
	printf("    \"staged\": %s,\n", rec && rec->staged ? "true" : "false");
	printf("    \"dropped\": %s,\n", e->state == ST_DROPPED ? "true" : "false");
	fputs("    \"unrecorded\": false,\n", stdout);
	fputs("    \"modules\": [", stdout);
	for (size_t i = 0; rec && i < rec->n_modules; i++)
		printf("%s\n      %s", i ? "," : "", rec->modules[i].json);
	fputs(rec && rec->n_modules ? "\n    ]\n  }" : "]\n  }", stdout);
}

static const char *guard_state_name(enum guard_state s)
{
	static const char *const names[] = { "up", "down", "absent", "unknown" };

	return names[s];
}

static void print_guard_text(const struct status_check *c, size_t n)
{
	size_t down = 0, active = 0;

	for (size_t i = 0; i < n; i++) {
		down += c[i].state == GS_DOWN;
		active += c[i].state != GS_ABSENT;
	}
	if (!n)
		return;
	if (!active)
		printf("guard: nothing of taintguard is installed here\n");
	else if (down)
		printf("guard: DOWN (%zu of %zu checks)\n", down, n);
	else
		printf("guard: up\n");
	for (size_t i = 0; i < n; i++) {
		if (c[i].state == GS_ABSENT)
			printf("  %s: %s\n", c[i].name, c[i].summary ? c[i].summary : "not installed");
		else
			printf("  %s: %s: %s\n", c[i].name, guard_state_name(c[i].state),
			       c[i].summary ? c[i].summary : "");
		if (c[i].file && c[i].state != GS_ABSENT) {
			printf("    file %s", c[i].file);
			if (c[i].line)
				printf(" (line %u)", c[i].line);
			if (!c[i].owner)
				printf(", package not known\n");
			else if (!*c[i].owner)
				printf(", not owned by any package\n");
			else
				printf(", package %s\n", c[i].owner);
		}
	}
}

static void print_guard_json_entry(const struct status_check *c)
{
	fputs("  {\n", stdout);
	json_field("source", "guard", false);
	json_field("check", c->name, false);
	json_field("state", guard_state_name(c->state), false);
	json_field("summary", c->summary, false);
	json_field("file", c->file, false);
	if (c->line)
		printf("    \"line\": %u,\n", c->line);
	else
		fputs("    \"line\": null,\n", stdout);
	json_field("owner", c->owner && *c->owner ? c->owner : NULL, false);
	printf("    \"owned\": %s\n  }", !c->owner ? "null" : *c->owner ? "true" : "false");
}

/* A package owning modules without a record: its verdict, judged now. */
static void print_unrecorded_text(const struct unrecorded *u, bool verbose)
{
	printf("%s (%s): %s [unrecorded: judged now]\n", u->package, u->source,
	       tg_action_name(u->action));
	for (size_t i = 0; i < u->nv; i++) {
		const struct tg_verdict *v = &u->v[i];
		char t[32];

		if (v->error) {
			printf("  %s: %s\n", u->files.v[i], v->error);
			continue;
		}
		tg_taint_string(v->taint_kernel, t, sizeof(t));
		printf("  %s: module %s, taint %s", u->files.v[i], v->module ? v->module : "?",
		       *t ? t : "none");
		if (verbose) {
			printf(", rule %s -> %s\n", v->rule ? v->rule : "?", tg_action_name(v->action));
			for (size_t k = 0; k < v->n_reasons; k++)
				printf("    %s\n", v->reasons[k]);
			continue;
		}
		printf("%s%s\n", v->n_reasons ? ": " : "", v->n_reasons ? v->reasons[0] : "");
	}
}

static void print_unrecorded_json(const struct unrecorded *u)
{
	fputs("  {\n", stdout);
	json_field("source", u->source, false);
	json_field("package", u->package, false);
	json_field("action", tg_action_name(u->action), false);
	fputs("    \"unrecorded\": true,\n    \"modules\": [", stdout);
	for (size_t i = 0; i < u->nv; i++) {
		fputs(i ? ",\n      " : "\n      ", stdout);
		tg_verdict_write_json(&u->v[i], stdout);
	}
	fputs(u->nv ? "\n    ]\n  }" : "]\n  }", stdout);
}

static void print_json(const struct entry *e, size_t n, const struct status_check *c, size_t nc,
		       const struct unrecorded_list *ul)
{
	size_t k = 0;

	fputs("[", stdout);
	for (size_t i = 0; i < nc; i++) {
		fputs(k++ ? ",\n" : "\n", stdout);
		print_guard_json_entry(&c[i]);
	}
	for (size_t i = 0; i < n; i++) {
		fputs(k++ ? ",\n" : "\n", stdout);
		print_json_entry(&e[i]);
	}
	for (size_t i = 0; ul && i < ul->n; i++) {
		fputs(k++ ? ",\n" : "\n", stdout);
		print_unrecorded_json(&ul->v[i]);
	}
	fputs(k ? "\n]\n" : "]\n", stdout);
}

/*
 * 2 when a denied package is installed (or may be: not checked), else 1 for
 * any record, 0 for none; 3 when a record could not be read; 5 (before 1 and
 * 2, after 3) when a package without a record has modules that are not
 * allowed.
 */
static int exit_code(const struct entry *e, size_t n, const struct unrecorded_list *ul)
{
	int rc = TG_EXIT_ALLOW;

	for (size_t i = 0; i < n; i++) {
		int c;

		if (e[i].state == ST_DROPPED)
			continue;
		if (!e[i].rec)
			c = TG_EXIT_ERROR;
		else if (e[i].state != ST_STALE && e[i].rec->action == TG_ACTION_DENY)
			c = TG_EXIT_DENY;
		else
			c = TG_EXIT_MARK;
		rc = c > rc ? c : rc;
	}
	for (size_t i = 0; rc != TG_EXIT_ERROR && i < ul->n; i++)
		if (ul->v[i].action != TG_ACTION_ALLOW)
			rc = TG_EXIT_UNRECORDED;
	return rc;
}

int cmd_status(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "dbpath", required_argument, NULL, 'D' },
		{ "check", required_argument, NULL, 'C' },
		{ "skip", required_argument, NULL, 'S' },
		{ "accept", no_argument, NULL, 'A' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = "", *dbpath = NULL;
	enum tg_format fmt = FMT_TEXT;
	struct tg_error err = { 0 };
	struct entry *e = NULL;
	char **paths = NULL, *dir = NULL, *why = NULL, *absroot = NULL;
	struct status_check checks[4];
	struct strv recorded = { 0 };
	struct unrecorded_list ul = { 0 };
	bool unrecorded_failed = false;
	unsigned which = STATUS_GUARD | STATUS_RECORDS, skip = 0;
	bool accept = false, verbose = false;
	size_t n = 0, ne = 0, nc = 0;
	int opt, rc = TG_EXIT_ERROR;

	while ((opt = getopt_long(argc, argv, "r:f:vhV", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r': root = optarg; break;
		case 'D': dbpath = optarg; break;
		case 'C':
			if (!(which = parse_checks(optarg)))
				return TG_EXIT_ERROR;
			break;
		case 'S':
			if (!(skip = parse_checks(optarg)))
				return TG_EXIT_ERROR;
			break;
		case 'A': accept = true; break;
		case 'v': verbose = true; break;
		case 'f':
			if (cli_parse_format(optarg, &fmt) < 0 || fmt == FMT_JUNIT || fmt == FMT_SARIF) {
				cli_error("status: unknown format '%s' (text or json)", optarg);
				return TG_EXIT_ERROR;
			}
			break;
		case 'h': status_usage(stdout); return 0;
		case 'V': printf("taintguard %s\n", TG_VERSION_STRING); return 0;
		default: status_usage(stderr); return TG_EXIT_ERROR;
		}
	}
	if (optind < argc) {
		cli_error("status: unexpected argument '%s'", argv[optind]);
		return TG_EXIT_ERROR;
	}
	if (!strcmp(root, "/"))
		root = "";
	/* rpm takes only an absolute --root */
	if (*root && *root != '/' && !(absroot = realpath(root, NULL)))
		absroot = strdup(root);
	if (absroot)
		root = absroot;
	if (accept)
		return status_guard_accept(root, dbpath) < 0 ? TG_EXIT_ERROR : 0;
	which &= ~skip;
	if (which & STATUS_GUARD && status_guard(root, dbpath, which, checks, &nc) < 0)
		goto out;
	if (!(which & STATUS_RECORDS)) {
		if (fmt == FMT_JSON)
			print_json(NULL, 0, checks, nc, NULL);
		else
			print_guard_text(checks, nc);
		rc = TG_EXIT_ALLOW;
		goto exit_code;
	}
	if (asprintf(&dir, "%s" MARKS_DIR, root) < 0)
		goto out;
	if (tg_record_list(dir, &paths, &n, &err) < 0) {
		cli_error("%s", err.msg);
		goto out;
	}
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		goto out;
	/* a record that cannot be read is reported, and the others still listed */
	for (size_t i = 0; i < n; i++) {
		e[i].file = paths[i];
		if (tg_record_read(paths[i], &e[i].rec, &err) == -ENOENT) {
			e[i].gone = true;
			continue;
		}
		if (!e[i].rec) {
			snprintf(e[i].error, sizeof(e[i].error), "%s", err.msg);
			cli_error("%s", err.msg);
			continue;
		}
		if (e[i].rec->source == TG_RECORD_DKMS)
			e[i].state = dkms_state(root, e[i].rec);
	}
	rpm_check(e, n, root, dbpath, &why);
	ne = drop_gone(e, n);
	for (size_t i = 0; i < ne; i++)
		if (e[i].rec && strv_push(&recorded, e[i].rec->package) < 0)
			goto out;
	if (status_unrecorded(root, dbpath, &recorded, &ul) < 0)
		unrecorded_failed = true;
	if (fmt == FMT_JSON) {
		print_json(e, ne, checks, nc, &ul);
	} else {
		print_guard_text(checks, nc);
		if (ne == 0)
			printf("no marked packages (%s)\n", dir);
		else
			for (size_t i = 0; i < ne; i++)
				if (e[i].rec)
					print_text(&e[i], verbose);
		for (size_t i = 0; i < ul.n; i++)
			print_unrecorded_text(&ul.v[i], verbose);
	}
	rc = exit_code(e, ne, &ul);
	if (unrecorded_failed)
		rc = TG_EXIT_ERROR;
exit_code:
	/* the guard first: a host where taintguard does not run can show no marks */
	for (size_t i = 0; i < nc; i++) {
		if (checks[i].state == GS_DOWN)
			rc = TG_EXIT_GUARD;
		else if (checks[i].state == GS_UNKNOWN && rc < TG_EXIT_ERROR)
			rc = TG_EXIT_ERROR;
	}
out:
	for (size_t i = 0; e && i < ne; i++)
		tg_record_free(e[i].rec);
	tg_record_list_free(paths, n);
	status_checks_free(checks, nc);
	unrecorded_list_free(&ul);
	strv_free(&recorded);
	free(e);
	free(dir);
	free(why);
	free(absroot);
	return rc;
}
