/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz repository metadata as `taintguard audit` reads it (pkg/repo.c):
 * repomd.xml, filelists and primary through createrepo_c's parsers, the
 * classification of every file, and the scan's cache record.
 *
 *   "TGRL" + bytes      a cached scan record: decode it; when accepted,
 *                       encode it again: the same bytes must come out
 *   anything else       u32 LE length of repomd.xml, u32 LE length of
 *                       filelists, then the three files' bytes (primary
 *                       last), written into a private repository directory
 *                       and scanned; an accepted scan is encoded, decoded
 *                       and encoded again (the same bytes must come out)
 *
 * Files go to a private directory because createrepo_c reads metadata from
 * files (a part starting with the zstd magic also exercises the
 * decompression into an unlinked temporary file).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pkg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void cleanup(void)
{
	char p[128];

	snprintf(p, sizeof(p), "%s/repodata/repomd.xml", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/repodata", dir);
	rmdir(p);
	snprintf(p, sizeof(p), "%s/filelists.xml", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/primary.xml", dir);
	unlink(p);
	rmdir(dir);
}

static void put(const char *name, const uint8_t *p, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f) != 0)
		abort();
}

static void same_or_abort(const struct buf *a, const struct buf *b)
{
	if (a->oom || b->oom)
		return;
	if (a->n != b->n || memcmp(a->p, b->p, a->n)) {
		fprintf(stderr, "fuzz_repodata: scan record does not survive a round trip\n");
		abort();
	}
}

/* Encode @l, decode it, encode again: equal. */
static void round_trip(const struct pkg_repo_list *l)
{
	struct buf w1 = { 0 }, w2 = { 0 };
	struct pkg_repo_list back;

	pkg_repo_list_encode(l, &w1);
	if (!w1.oom) {
		if (pkg_repo_list_decode(w1.p, w1.n, &back) < 0) {
			fprintf(stderr, "fuzz_repodata: an encoded scan does not decode\n");
			abort();
		}
		pkg_repo_list_encode(&back, &w2);
		same_or_abort(&w1, &w2);
		pkg_repo_list_free(&back);
	}
	free(w1.p);
	free(w2.p);
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pkg_repodata rd = { 0 };
	struct pkg_repo_list l;
	char *error = NULL, path[128];
	uint32_t lm, lf;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/tg-fuzz-repodata.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		snprintf(path, sizeof(path), "%s/repodata", dir);
		mkdir(path, 0700);
	}
	if (size >= 4 && !memcmp(data, "TGRL", 4)) {
		if (pkg_repo_list_decode(data + 4, size - 4, &l) == 0) {
			round_trip(&l);
			pkg_repo_list_free(&l);
		}
		return 0;
	}
	if (size < 8)
		return 0;
	lm = le32(data);
	lf = le32(data + 4);
	data += 8;
	size -= 8;
	if (lm > size || lf > size - lm)
		return 0;
	put("repodata/repomd.xml", data, lm);
	put("filelists.xml", data + lm, lf);
	put("primary.xml", data + lm + lf, size - lm - lf);
	/* repomd.xml parsed for itself; the scan reads our two files whatever it names */
	if (pkg_repo_local(dir, &rd, &error) == 0)
		pkg_repodata_free(&rd);
	free(error);
	error = NULL;
	snprintf(path, sizeof(path), "%s/primary.xml", dir);
	rd.primary = strdup(path);
	snprintf(path, sizeof(path), "%s/filelists.xml", dir);
	rd.filelists = strdup(path);
	if (rd.primary && rd.filelists && pkg_repo_scan(&rd, &l, &error) == 0) {
		round_trip(&l);
		pkg_repo_list_free(&l);
	}
	free(error);
	pkg_repodata_free(&rd);
	return 0;
}
