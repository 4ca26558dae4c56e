/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /etc/modprobe.d/taintguard-NAME.conf: keep modprobe from loading a module
 * the policy denied, even if a copy reached the disk.  One file per module
 * name; it lists the DKMS builds (module/version, kernel, arch) that were
 * denied and disappears with the last of them.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook.h"

#define MARKER "# Written by taintguard-dkms"
#define ENTRY "# taintguard-dkms-entry: "
#define REASON "# reason: "
#define MAX_ENTRIES 256

struct rule {
	char entries[MAX_ENTRIES][3][128];	/* package, kernel, arch */
	size_t n;
	char reason[400];
};

void hk_rule_path(const struct settings *s, const char *name, char *buf, size_t len)
{
	hk_bfmt(buf, len, "%s/taintguard-%s.conf", s->modprobe_dir, name);
}

/* 1: ours, read; 0: no file; -EEXIST: a file we did not write; <0 error. */
static int rule_read(const char *path, struct rule *r)
{
	char line[1024];
	bool ours = false;
	FILE *f = fopen(path, "re");

	memset(r, 0, sizeof(*r));
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, MARKER, strlen(MARKER))) {
			ours = true;
		} else if (!strncmp(line, ENTRY, strlen(ENTRY)) && r->n < MAX_ENTRIES) {
			char p[128], k[128], a[128];

			if (sscanf(line + strlen(ENTRY), "%127s %127s %127s", p, k, a) == 3) {
				memcpy(r->entries[r->n][0], p, sizeof(p));
				memcpy(r->entries[r->n][1], k, sizeof(k));
				memcpy(r->entries[r->n][2], a, sizeof(a));
				r->n++;
			}
		} else if (!strncmp(line, REASON, strlen(REASON))) {
			hk_bfmt(r->reason, sizeof(r->reason), "%s", line + strlen(REASON));
		}
	}
	fclose(f);
	return ours ? 1 : -EEXIST;
}

static int rule_write(const char *path, const char *name, const struct rule *r)
{
	char tmp[PATH_MAX];
	FILE *f;
	int fd;

	if (r->n == 0)
		return unlink(path) == 0 || errno == ENOENT ? 0 : -errno;
	if (hk_bfmt(tmp, sizeof(tmp), "%s.tmp-XXXXXX", path) < 0)
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	fchmod(fd, 0644);
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -ENOMEM;
	}
	fprintf(f, MARKER ": the taintguard policy denies kernel module %s.\n"
		   "# It is removed when the denied DKMS builds below are removed (dkms remove,\n"
		   "# then \"taintguard-dkms sync\", run by the dkms wrapper and the kernel hook)\n"
		   "# or allowed by a policy exception.  See taintguard-dkms(8).\n", name);
	for (size_t i = 0; i < r->n; i++)
		fprintf(f, ENTRY "%s %s %s\n", r->entries[i][0], r->entries[i][1], r->entries[i][2]);
	if (r->reason[0])
		fprintf(f, REASON "%s\n", r->reason);
	fprintf(f, "install %s /bin/false\nblacklist %s\n", name, name);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0 || fclose(f) != 0) {
		unlink(tmp);
		return -EIO;
	}
	if (rename(tmp, path) < 0) {
		int e = -errno;

		unlink(tmp);
		return e;
	}
	return 0;
}

static ssize_t find_entry(const struct rule *r, const char *p, const char *k, const char *a)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->entries[i][0], p) && !strcmp(r->entries[i][1], k) &&
		    !strcmp(r->entries[i][2], a))
			return (ssize_t)i;
	return -1;
}

static void drop_at(struct rule *r, size_t i)
{
	memmove(r->entries[i], r->entries[i + 1], (r->n - i - 1) * sizeof(r->entries[0]));
	r->n--;
}

static bool ok_fields(const char *name, const char *package, const char *kernel, const char *arch)
{
	const char *slash = package ? strchr(package, '/') : NULL;

	return hk_safe_name(name) && slash && slash != package && !strchr(slash + 1, '/') &&
	       strlen(package) < 128 && hk_safe_name(kernel) && strlen(kernel) < 128 &&
	       hk_safe_name(arch) && strlen(arch) < 128;
}

int hk_rule_add(const struct settings *s, const char *name, const char *package, const char *kernel,
		const char *arch, const char *reason)
{
	char path[PATH_MAX];
	struct rule *r;
	int rc;

	if (!ok_fields(name, package, kernel, arch)) {
		hk_msg("no modprobe.d rule for '%s': unusable name", name ? name : "?");
		return -EINVAL;
	}
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	hk_rule_path(s, name, path, sizeof(path));
	rc = rule_read(path, r);
	if (rc == -EEXIST) {
		hk_msg("%s exists and was not written by taintguard; left alone", path);
		free(r);
		return rc;
	}
	if (rc < 0) {
		hk_msg("%s: %s", path, strerror(-rc));
		free(r);
		return rc;
	}
	if (find_entry(r, package, kernel, arch) < 0 && r->n < MAX_ENTRIES) {
		hk_bfmt(r->entries[r->n][0], 128, "%s", package);
		hk_bfmt(r->entries[r->n][1], 128, "%s", kernel);
		hk_bfmt(r->entries[r->n][2], 128, "%s", arch);
		r->n++;
	}
	if (reason) {
		hk_bfmt(r->reason, sizeof(r->reason), "%s", reason);
		for (char *p = r->reason; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = ' ';
	}
	mkdir(s->modprobe_dir, 0755);
	rc = rule_write(path, name, r);
	if (rc < 0)
		hk_msg("cannot write %s: %s", path, strerror(-rc));
	free(r);
	return rc;
}

int hk_rule_drop(const struct settings *s, const char *name, const char *package,
		 const char *kernel, const char *arch)
{
	char path[PATH_MAX];
	struct rule *r;
	ssize_t i;
	int rc;

	if (!ok_fields(name, package, kernel, arch))
		return 0;
	r = malloc(sizeof(*r));
	if (!r)
		return -ENOMEM;
	hk_rule_path(s, name, path, sizeof(path));
	rc = rule_read(path, r);
	if (rc == 1 && (i = find_entry(r, package, kernel, arch)) >= 0) {
		drop_at(r, (size_t)i);
		rc = rule_write(path, name, r);
		if (rc == 0 && r->n == 0)
			hk_msg("removed %s: module %s is no longer denied", path, name);
	} else if (rc == 1) {
		rc = 0;
	}
	free(r);
	return rc < 0 && rc != -EEXIST ? rc : 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/*
 * dkms 3.0.x-3.1.6 after sign-file deleted a module: the build dir
 * <tree>/<m>/<v>/<k>/<a>/ with an empty module/ and a dangling
 * kernel-<k>-<a> link, which make "dkms remove" skip and "dkms install" say
 * "already built".  Put dkms's tree back to "added".  Returns true if cleaned.
 */
static bool clean_debris(const char *tree, const char *m, const char *v, const char *k,
			 const char *a, const char *dir)
{
	char mod[PATH_MAX], link[PATH_MAX], target[PATH_MAX], want[PATH_MAX], kdir[PATH_MAX];
	struct strv files = { 0 };
	struct stat st;
	ssize_t n;
	bool empty;

	if (hk_bfmt(mod, sizeof(mod), "%s/module", dir) < 0 ||
	    hk_bfmt(link, sizeof(link), "%s/%s/kernel-%s-%s", tree, m, k, a) < 0 ||
	    hk_bfmt(want, sizeof(want), "%s/%s/%s", v, k, a) < 0 ||
	    hk_bfmt(kdir, sizeof(kdir), "%s/%s/%s/%s", tree, m, v, k) < 0)
		return false;
	if (stat(mod, &st) < 0 || !S_ISDIR(st.st_mode))
		return false;
	hk_collect_modules(&files, mod, true);
	empty = files.n == 0;
	strv_free(&files);
	if (!empty)
		return false;
	n = readlink(link, target, sizeof(target) - 1);
	if (n > 0) {
		target[n] = '\0';
		if (strcmp(target, want))
			return false;	/* another version is installed: not ours to touch */
		unlink(link);
	}
	if (nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS) < 0)
		return false;
	rmdir(kdir);
	return true;
}

int hk_rule_sync(struct settings *s, bool verbose)
{
	const char *tree = hk_settings_dkms_tree(s);
	DIR *d = opendir(s->modprobe_dir);
	struct dirent *e;
	struct rule *r;
	int removed = 0;

	if (!d)
		return 0;
	r = malloc(sizeof(*r));
	if (!r) {
		closedir(d);
		return -ENOMEM;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		char path[PATH_MAX], name[128];
		bool changed = false;

		if (strncmp(e->d_name, "taintguard-", 11) || len < 17 ||
		    strcmp(e->d_name + len - 5, ".conf") || len - 16 >= sizeof(name))
			continue;
		memcpy(name, e->d_name + 11, len - 16);
		name[len - 16] = '\0';
		if (!hk_safe_name(name))
			continue;
		hk_rule_path(s, name, path, sizeof(path));
		if (rule_read(path, r) != 1)
			continue;
		for (size_t i = 0; i < r->n;) {
			char dir[PATH_MAX];
			struct stat st;

			char m[128], *v;

			hk_bfmt(m, sizeof(m), "%s", r->entries[i][0]);
			v = strchr(m, '/');
			if (!v || hk_bfmt(dir, sizeof(dir), "%s/%s/%s/%s", tree, r->entries[i][0],
					  r->entries[i][1], r->entries[i][2]) < 0) {
				i++;
				continue;
			}
			*v++ = '\0';
			if (stat(dir, &st) == 0) {
				if (!clean_debris(tree, m, v, r->entries[i][1], r->entries[i][2], dir)) {
					i++;
					continue;
				}
				hk_msg("cleaned up what dkms left of the denied build %s for %s (%s): "
				       "dkms status now says \"added\"",
				       r->entries[i][0], r->entries[i][1], dir);
			}
			drop_at(r, i);
			changed = true;
		}
		if (changed && rule_write(path, name, r) == 0 && r->n == 0) {
			removed++;
			if (verbose)
				hk_msg("removed %s: the denied DKMS build of %s is gone", path, name);
		}
	}
	closedir(d);
	free(r);
	return removed;
}
