/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The state the admin accepted (taintguard status --accept, make install):
 * ROOT/var/lib/taintguard/guard.conf, "KEY VALUE" lines naming the components
 * installed, the rpm plugin's mode and the sha256 of the files that decide
 * whether taintguard runs.  taintguard status compares with it.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "guard_status.h"
#include "hex.h"

void gs_record_free(struct gs_record *r)
{
	for (size_t i = 0; i < r->n_files; i++)
		free(r->files[i].path);
	free(r->files);
	free(r->mode);
	memset(r, 0, sizeof(*r));
}

const struct gs_file *gs_record_file(const struct gs_record *r, const char *path)
{
	for (size_t i = 0; path && i < r->n_files; i++)
		if (!strcmp(r->files[i].path, path))
			return &r->files[i];
	return NULL;
}

static int record_add_file(struct gs_record *r, const char *path, const char *digest)
{
	struct gs_file *n = realloc(r->files, (r->n_files + 1) * sizeof(*n));

	if (!n)
		return -ENOMEM;
	r->files = n;
	if (!(n[r->n_files].path = strdup(path)))
		return -ENOMEM;
	snprintf(n[r->n_files].digest, sizeof(n[r->n_files].digest), "%s", digest);
	r->n_files++;
	return 0;
}

/* ROOT/var/lib/taintguard/guard.conf: "KEY VALUE" lines; unknown keys are skipped. */
int gs_record_read(const char *root, struct gs_record *r, char *err, size_t errlen)
{
	char path[PATH_MAX], *text = NULL, *line, *save = NULL;
	size_t len;
	bool format = false;
	int ret;

	memset(r, 0, sizeof(*r));
	snprintf(path, sizeof(path), "%s%s", root, GS_RECORD);
	ret = guard_read_file(path, &text, &len);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0) {
		snprintf(err, errlen, "%.400s: %s", path, strerror(-ret));
		return ret;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *val = strchr(line, ' ');

		if (*line == '#' || !val)
			continue;
		*val++ = '\0';
		if (!strcmp(line, "format"))
			format = !strcmp(val, GS_RECORD_FORMAT);
		else if (!strcmp(line, "time"))
			r->time = strtoll(val, NULL, 10);
		else if (!strcmp(line, "mode")) {
			free(r->mode);
			r->mode = strdup(val);
		} else if (!strcmp(line, "component")) {
			r->plugin |= !strcmp(val, "plugin");
			r->dkms |= !strcmp(val, "dkms");
		} else if (!strcmp(line, "file")) {
			char *p = strchr(val, ' ');

			if (p && !strncmp(val, "sha256:", 7) && p - val == 7 + 64) {
				*p++ = '\0';
				if (record_add_file(r, p, val + 7) < 0)
					ret = -ENOMEM;
			}
		}
	}
	free(text);
	if (!format) {
		snprintf(err, errlen, "%.400s: not a %s record", path, GS_RECORD_FORMAT);
		gs_record_free(r);
		return -EBADMSG;
	}
	r->present = true;
	return ret < 0 ? ret : 0;
}

int gs_record_add_digest(const char *root, FILE *f, const char *path)
{
	char d[65];

	if (!path || gs_digest(root, path, d) < 0)
		return 0;
	fprintf(f, "file sha256:%s %s\n", d, path);
	printf("accepted %s (sha256 %.16s...)\n", path, d);
	return 0;
}

/* ------------------------------------------------------------ small helpers */

bool gs_exists(const char *root, const char *path)
{
	char p[PATH_MAX];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", root, path);
	return stat(p, &st) == 0;
}

int gs_digest(const char *root, const char *path, char out[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char full[PATH_MAX], *text;
	size_t len;
	int r;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if ((r = guard_read_file(full, &text, &len)) < 0)
		return r;
	r = EVP_Digest(text, len, md, &mdlen, EVP_sha256(), NULL) == 1 ? 0 : -EIO;
	free(text);
	if (r == 0)
		hex_lower(out, md, mdlen < 32 ? mdlen : 32);
	return r;
}

int gs_path_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}
