/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard status: is taintguard still on guard?  What rpm and dkms would
 * do now, asked the way they decide it:
 *
 *   plugin  rpm loads NAME.so from %{__plugindir} when %__transaction_NAME
 *           expands to its path (docs/rpm.md): the rpm command is asked
 *           (rpm --eval), the macro files are read to say which one set it
 *   mode    %_taintguard_mode is the mode the admin accepted (enforce unless
 *           `status --accept` recorded another)
 *   dkms    the sign_file dkms uses is our hook (the last framework file that
 *           sets it is ours), nothing switches signing off or touches the
 *           directive our PRE_INSTALL travels in, the dkms wrapper is ours
 *   policy  the policy in use loads, no other package owns it, and it is the
 *           one accepted (digest recorded by `status --accept` or make
 *           install) or, never accepted, unchanged since our package
 *           installed it (rpm -V)
 *
 * Each finding names the file and the package owning it (rpm -qf, else
 * dpkg's database).  No
 * librpm: the rpm command is run as for the mark records (cmd_status.c).
 * The files are parsed, never run (guard/).  guard_status.h says which
 * file does what; this one runs the checks and writes --accept's record.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "guard_status.h"
#include "owners.h"
#include "strf.h"

void status_checks_free(struct status_check *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].summary);
		free(c[i].file);
		free(c[i].owner);
	}
}

/* A Debian host: the owner rpm did not know, named as dpkg-query -S names it. */
static void dpkg_owner(const char *root, const char *path, char **owner)
{
	char *d = pkg_dpkg_owner(root && *root ? root : "/", path);

	if (d && *d) {
		free(*owner);
		*owner = d;
		return;
	}
	free(d);
}

int status_guard(const char *root, const char *dbpath, unsigned which, struct status_check *out,
		 size_t *n)
{
	struct gs_ctx g;
	char err[TG_ERRMAX] = "";
	struct status_check plugin = { .name = "plugin" }, mode = { .name = "mode" };
	int r;

	*n = 0;
	r = gs_ctx_init(&g, root, dbpath, err, sizeof(err));
	if (r < 0) {
		cli_error("%s", *err ? err : strerror(-r));
		gs_ctx_free(&g);
		return r;
	}
	if (which & (STATUS_PLUGIN | STATUS_MODE))
		gs_check_plugin(&g, &plugin);
	if (which & STATUS_MODE)
		gs_check_mode(&g, &mode, &plugin);
	if (which & STATUS_PLUGIN) {
		out[(*n)++] = plugin;
		memset(&plugin, 0, sizeof(plugin));
	}
	if (which & STATUS_MODE) {
		out[(*n)++] = mode;
		memset(&mode, 0, sizeof(mode));
	}
	if (which & STATUS_DKMS) {
		out[*n] = (struct status_check){ .name = "dkms" };
		gs_check_dkms(&g, &out[(*n)++]);
	}
	if (which & STATUS_POLICY) {
		out[*n] = (struct status_check){ .name = "policy" };
		gs_check_policy(&g, &out[(*n)++]);
	}
	/* the package owning each file named */
	for (size_t i = 0; i < *n; i++) {
		if (out[i].file && !out[i].owner)
			out[i].owner = gs_owner_of(&g, out[i].file);
		if (out[i].file && (!out[i].owner || !*out[i].owner))
			dpkg_owner(g.root, out[i].file, &out[i].owner);
	}
	status_checks_free(&plugin, 1);
	status_checks_free(&mode, 1);
	gs_ctx_free(&g);
	return 0;
}

/* ------------------------------------------------------------ --accept */

int status_guard_accept(const char *root, const char *dbpath)
{
	struct gs_ctx g;
	char err[TG_ERRMAX] = "", path[PATH_MAX], tmp[PATH_MAX + 16];
	struct status_check plugin = { .name = "plugin" };
	char *pol = NULL, *mode = NULL;
	FILE *f;
	int r, fd;

	r = gs_ctx_init(&g, root, dbpath, err, sizeof(err));
	if (r < 0 && r != -EBADMSG) {
		cli_error("%s", *err ? err : strerror(-r));
		gs_ctx_free(&g);
		return r;
	}
	gs_record_free(&g.rec);	/* what is there now, not what was accepted before */
	snprintf(path, sizeof(path), "%s%s", root, GS_RECORD);
	snprintf(tmp, sizeof(tmp), "%s.tmp-%d", path, (int)getpid());
	snprintf(err, sizeof(err), "%s%s", root, TG_LOCALSTATEDIR);
	mkdir(err, 0755);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		cli_error("%s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		gs_ctx_free(&g);
		return -errno;
	}
	fprintf(f, "# What the admin accepted: taintguard status compares with it (taintguard(1)).\n"
		   "# Written by taintguard status --accept (and make install); do not edit.\n"
		   "format " GS_RECORD_FORMAT "\ntime %lld\n", (long long)time(NULL));
	if (g.evaluated) {
		gs_check_plugin(&g, &plugin);
		if (plugin.state != GS_ABSENT) {
			char *so = strf("%s/taintguard.so", g.plugindir);
			const char *opts = g.transaction + strspn(g.transaction, " \t");

			opts += strcspn(opts, " \t");
			opts += strspn(opts, " \t");
			mode = strdup(*g.mode ? g.mode : *opts ? opts : "enforce");
			fprintf(f, "component plugin\nmode %s\n", mode ? mode : "enforce");
			printf("accepted the rpm plugin, mode %s\n", mode ? mode : "enforce");
			gs_record_add_digest(root, f, so);
			for (size_t i = 0; i < g.n_files; i++)
				if (guard_named_like_macros(g.files[i].path))
					gs_record_add_digest(root, f, g.files[i].path);
			free(so);
		}
	}
	if (gs_exists(root, GS_SNIPPET) || gs_exists(root, GS_HOOK)) {
		fputs("component dkms\n", f);
		printf("accepted the DKMS hook\n");
		gs_record_add_digest(root, f, GS_SNIPPET);
		gs_record_add_digest(root, f, GS_HOOK);
	}
	pol = gs_policy_path(&g);
	gs_record_add_digest(root, f, pol);
	r = fflush(f) == 0 && fsync(fileno(f)) == 0 ? 0 : -errno;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && rename(tmp, path) < 0)
		r = -errno;
	if (r < 0) {
		cli_error("%s: %s", path, strerror(-r));
		unlink(tmp);
	} else {
		printf("recorded in %s\n", path);
	}
	free(pol);
	free(mode);
	status_checks_free(&plugin, 1);
	gs_ctx_free(&g);
	return r;
}
