/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A librpm application (the real library, no mock) whose notify callback
 * hands out no package fd between rpm's verify step and the transaction
 * proper.  The taintguard plugin's tsm_pre prescan then gets none, so its
 * fsm_file_prepare backstop has to judge the unpacked files.
 *
 *   tg-nofd [-U] ROOT PLUGINDIR POLICY PACKAGE.rpm...  (exit 0 ok, 1 failed)
 *   -U: upgrade (the packages replace installed versions of the same name)
 *   environment: TG_PKGVERIFY_LEVEL  %_pkgverify_level for the transaction
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/header.h>
#include <rpm/rpmlib.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmts.h>

static int phase;	/* 0: verify step, 1: between (tsm_pre), 2: transaction */
static FD_t cur;

static void *notify(const void *h, const rpmCallbackType what, const rpm_loff_t amount,
		    const rpm_loff_t total, fnpyKey key, rpmCallbackData data)
{
	const char *fn = key;

	switch (what) {
	case RPMCALLBACK_VERIFY_STOP:
		phase = 1;
		break;
	case RPMCALLBACK_TRANS_START:
		phase = 2;
		break;
	case RPMCALLBACK_INST_OPEN_FILE:
		if (phase == 1) {
			fprintf(stderr, "tg-nofd: no fd for %s\n", fn);
			return NULL;
		}
		cur = Fopen(fn, "r.ufdio");
		return cur;
	case RPMCALLBACK_INST_CLOSE_FILE:
		if (cur)
			Fclose(cur);
		cur = NULL;
		break;
	default:
		break;
	}
	return NULL;
}

static void define(const char *name, const char *value)
{
	char *d = malloc(strlen(name) + strlen(value) + 2);
	sprintf(d, "%s %s", name, value);
	rpmDefineMacro(NULL, d, RMIL_CMDLINE);
	free(d);
}

int main(int argc, char **argv)
{
	int rc, upgrade = 0;
	rpmts ts;

	if (argc > 1 && strcmp(argv[1], "-U") == 0) {
		upgrade = 1;
		argv++;
		argc--;
	}
	if (argc < 5) {
		fprintf(stderr, "usage: tg-nofd [-U] ROOT PLUGINDIR POLICY PACKAGE...\n");
		return 2;
	}
	if (rpmReadConfigFiles(NULL, NULL) != 0)
		return 2;
	define("_dbpath", "/var/lib/rpm");
	define("__plugindir", argv[2]);
	define("__transaction_taintguard", "%{__plugindir}/taintguard.so");
	define("_taintguard_policy", argv[3]);
	/* the suite's signature level (tests/rpm/run.sh TG_PKGVERIFY_LEVEL) */
	if (getenv("TG_PKGVERIFY_LEVEL") && *getenv("TG_PKGVERIFY_LEVEL"))
		define("_pkgverify_level", getenv("TG_PKGVERIFY_LEVEL"));
	ts = rpmtsCreate();
	rpmtsSetRootDir(ts, argv[1]);
	rpmtsSetNotifyCallback(ts, notify, NULL);
	for (int i = 4; i < argc; i++) {
		Header h = NULL;
		FD_t fd = Fopen(argv[i], "r.ufdio");
		if (!fd || rpmReadPackageFile(ts, fd, argv[i], &h) != RPMRC_OK) {
			fprintf(stderr, "tg-nofd: cannot read %s\n", argv[i]);
			return 2;
		}
		Fclose(fd);
		if (rpmtsAddInstallElement(ts, h, argv[i], upgrade, NULL) != 0)
			return 2;
		headerFree(h);
	}
	rpmtsOrder(ts);
	rc = rpmtsRun(ts, NULL, RPMPROB_FILTER_NONE);
	printf("tg-nofd: rpmtsRun returned %d\n", rc);
	rpmtsFree(ts);
	rpmFreeMacros(NULL);
	rpmFreeRpmrc();
	return rc == 0 ? 0 : 1;
}
