/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Mark records (lib/record.c): write/read round trips for both sources, the
 * two "taintguard-mark/1" variants front ends wrote before, broken, foreign,
 * huge and linked files, and the atomic writer's failures.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "taintguard.h"

/* ------------------------------------------------------------ helpers */

struct fixture {
	char dir[64];		/* a fresh directory for the test */
	char marks[128];	/* DIR/var/lib/taintguard/marks (not created) */
};

static int setup(void **state)
{
	struct fixture *fx = calloc(1, sizeof(*fx));

	if (!fx)
		return -1;
	strcpy(fx->dir, "/tmp/tg-test-record-XXXXXX");
	if (!mkdtemp(fx->dir))
		return -1;
	snprintf(fx->marks, sizeof(fx->marks), "%s/var/lib/taintguard/marks", fx->dir);
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
	if (system(cmd) != 0)
		return -1;
	free(fx);
	return 0;
}

static void write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	static char buf[65536];
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static int parse(const char *text, struct tg_record **rec, struct tg_error *err)
{
	return tg_record_parse(text, strlen(text), "t.json", rec, err);
}

/* Two verdicts as the predictor leaves them: a marked module and an allowed one. */
static char *mark_reasons[] = { "taint P: proprietary license 'Proprietary'", "second reason" };
static struct tg_verdict verdicts[2];

static void make_verdicts(const char *kernel2)
{
	memset(verdicts, 0, sizeof(verdicts));
	verdicts[0].path = "/lib/modules/6.1.0-57-amd64/extra/propplain.ko";
	verdicts[0].module = "propplain";
	verdicts[0].license = "Proprietary";
	verdicts[0].kernel = "6.1.0-57-amd64";
	verdicts[0].loads = true;
	verdicts[0].taint_kernel = TG_TAINT_BIT(TG_TAINT_PROPRIETARY) | TG_TAINT_BIT(TG_TAINT_OOT);
	verdicts[0].action = TG_ACTION_MARK;
	verdicts[0].rule = "proprietary";
	verdicts[0].reasons = mark_reasons;
	verdicts[0].n_reasons = 2;
	verdicts[1].path = "/lib/modules/6.1.0-57-amd64/extra/gplok.ko";
	verdicts[1].module = "gplok";
	verdicts[1].kernel = (char *)kernel2;
	verdicts[1].loads = true;
	verdicts[1].action = TG_ACTION_ALLOW;
	verdicts[1].rule = "default";
}

static const struct tg_verdict *const vp[] = { &verdicts[0], &verdicts[1] };

static struct tg_record rpm_record(void)
{
	struct tg_record rec = {
		.source = TG_RECORD_RPM,
		.package = "tg-prop-1:1.0-1.noarch",
		.name = "tg-prop",
		.epoch = "1",
		.version = "1.0",
		.release = "1",
		.arch = "noarch",
		.action = TG_ACTION_MARK,
		.mode = "enforce",
		.policy = "/etc/taintguard/policy.yaml",
		.time = 1796289600,
	};
	return rec;
}

/* ------------------------------------------------------------ round trips */

static void test_rpm_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct tg_record rec = rpm_record(), *got = NULL;
	struct tg_error err = { 0 };
	char *path = NULL;
	struct stat st;

	make_verdicts("6.1.0-57-amd64");
	/* the directory and its parents do not exist yet */
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 2, &err), 0);
	assert_int_equal(tg_record_path(fx->marks, &rec, &path, &err), 0);
	assert_non_null(strstr(path, "/marks/tg-prop-1:1.0-1.noarch.json"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_non_null(strstr(read_text(path), "\"format\": \"taintguard-mark/2\""));

	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_string_equal(got->format, TG_RECORD_FORMAT);
	assert_int_equal(got->source, TG_RECORD_RPM);
	assert_string_equal(got->package, rec.package);
	assert_string_equal(got->name, "tg-prop");
	assert_string_equal(got->epoch, "1");
	assert_string_equal(got->version, "1.0");
	assert_string_equal(got->release, "1");
	assert_string_equal(got->arch, "noarch");
	/* not given: taken from the verdicts, which agree */
	assert_string_equal(got->kernel, "6.1.0-57-amd64");
	assert_int_equal(got->action, TG_ACTION_MARK);
	assert_string_equal(got->mode, "enforce");
	assert_string_equal(got->policy, "/etc/taintguard/policy.yaml");
	assert_int_equal(got->time, 1796289600);
	assert_int_equal(got->n_modules, 2);
	assert_string_equal(got->modules[0].path, verdicts[0].path);
	assert_string_equal(got->modules[0].module, "propplain");
	assert_int_equal(got->modules[0].action, TG_ACTION_MARK);
	assert_string_equal(got->modules[0].rule, "proprietary");
	assert_string_equal(got->modules[0].taint, "PO");
	assert_int_equal(got->modules[0].n_reasons, 2);
	assert_string_equal(got->modules[0].reasons[0], mark_reasons[0]);
	assert_string_equal(got->modules[0].reasons[1], mark_reasons[1]);
	/* the stored verdict object is kept whole */
	assert_non_null(strstr(got->modules[0].json, "\"license\":\"Proprietary\""));
	assert_int_equal(got->modules[1].action, TG_ACTION_ALLOW);
	assert_string_equal(got->modules[1].taint, "");
	assert_int_equal(got->modules[1].n_reasons, 0);
	tg_record_free(got);

	/* a second write replaces the record; no temporary file is left */
	rec.action = TG_ACTION_DENY;
	rec.mode = "warn";
	rec.time = 0;	/* now */
	make_verdicts("6.2.0-1-amd64");
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 2, &err), 0);
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_int_equal(got->action, TG_ACTION_DENY);
	assert_string_equal(got->mode, "warn");
	assert_true(got->time > 1700000000);
	assert_null(got->kernel);	/* the verdicts disagree */
	tg_record_free(got);
	/* a release no record may carry (from a module's vermagic) is left out, not written */
	make_verdicts("6.1 evil");
	verdicts[0].kernel = "6.1 evil";
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 2, &err), 0);
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_null(got->kernel);
	tg_record_free(got);
	{
		char **paths;
		size_t n;

		assert_int_equal(tg_record_list(fx->marks, &paths, &n, &err), 0);
		assert_int_equal(n, 1);
		assert_string_equal(paths[0], path);
		tg_record_list_free(paths, n);
	}
	assert_int_equal(tg_record_remove(path, &err), 0);
	assert_int_equal(tg_record_remove(path, &err), -ENOENT);
	assert_int_equal(tg_record_read(path, &got, &err), -ENOENT);
	assert_non_null(strstr(err.msg, path));
	free(path);
}

static void test_dkms_round_trip(void **state)
{
	struct fixture *fx = *state;
	struct tg_record rec = {
		.source = TG_RECORD_DKMS,
		.package = "tg-prop/1.0",
		.name = "tg-prop",
		.version = "1.0",
		.arch = "x86_64",
		.kernel = "6.1.0-57-amd64",
		.action = TG_ACTION_MARK,
		.mode = "warn",
		.policy = "<built-in policy>",
	}, *got = NULL;
	struct tg_error err = { 0 };
	char *path = NULL;

	make_verdicts("6.1.0-57-amd64");
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), 0);
	assert_int_equal(tg_record_path(fx->marks, &rec, &path, &err), 0);
	assert_non_null(strstr(path, "/marks/dkms-tg-prop-1.0-6.1.0-57-amd64.json"));
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_int_equal(got->source, TG_RECORD_DKMS);
	assert_string_equal(got->package, "tg-prop/1.0");
	assert_string_equal(got->name, "tg-prop");
	assert_string_equal(got->version, "1.0");
	assert_null(got->release);
	assert_null(got->epoch);
	assert_string_equal(got->kernel, "6.1.0-57-amd64");
	assert_string_equal(got->arch, "x86_64");
	assert_string_equal(got->policy, "<built-in policy>");
	assert_int_equal(got->n_modules, 1);
	tg_record_free(got);
	free(path);

	/* no modules is still a record */
	assert_int_equal(tg_record_write(fx->marks, &rec, NULL, 0, &err), 0);
	assert_int_equal(tg_record_path(fx->marks, &rec, &path, &err), 0);
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_int_equal(got->n_modules, 0);
	tg_record_free(got);
	free(path);

	/* a DKMS record needs MODULE/VERSION and a kernel */
	rec.kernel = NULL;
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), -EINVAL);
	assert_non_null(strstr(err.msg, "needs a kernel"));
	rec.kernel = "6.1.0-57-amd64";
	rec.package = "tg-prop";
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), -EINVAL);
	rec.package = "tg-prop/../../x";
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), -EINVAL);
}

static void expect_parse_fails(const char *text)
{
	struct tg_record *got = NULL;
	struct tg_error err = { 0 };

	assert_int_equal(parse(text, &got, &err), -EBADMSG);
	assert_null(got);
}

/*
 * Staged, then final: a staged record reads as staged, the final one
 * replaces it, and staging again never demotes a final record (a reinstall
 * that fails keeps the installed package's record).
 */
static void test_staged(void **state)
{
	struct fixture *fx = *state;
	struct tg_record rec = rpm_record(), *got = NULL;
	struct tg_error err = { 0 };
	char *path = NULL;

	make_verdicts("6.1.0-57-amd64");
	assert_int_equal(tg_record_path(fx->marks, &rec, &path, &err), 0);
	assert_int_equal(tg_record_stage(fx->marks, &rec, vp, 2, &err), 0);
	assert_non_null(strstr(read_text(path), "\"state\": \"staged\""));
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_true(got->staged);
	assert_string_equal(got->package, "tg-prop-1:1.0-1.noarch");
	assert_int_equal(got->n_modules, 2);
	tg_record_free(got);
	/* staged again (a second attempt): still staged, rewritten */
	assert_int_equal(tg_record_stage(fx->marks, &rec, vp, 1, &err), 0);
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_true(got->staged);
	assert_int_equal(got->n_modules, 1);
	tg_record_free(got);

	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 2, &err), 0);
	assert_null(strstr(read_text(path), "\"state\""));
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_false(got->staged);
	tg_record_free(got);
	assert_int_equal(tg_record_stage(fx->marks, &rec, vp, 1, &err), 1);
	assert_int_equal(tg_record_read(path, &got, &err), 0);
	assert_false(got->staged);
	assert_int_equal(got->n_modules, 2);
	tg_record_free(got);
	free(path);

	/* a state the reader does not know is a broken record, never a final one */
	expect_parse_fails("{\"format\": \"taintguard-mark/2\", \"source\": \"rpm\", "
			   "\"package\": \"a-1-1.noarch\", \"action\": \"mark\", "
			   "\"state\": \"half\", \"modules\": []}");
}

/* Ids that would be a path, an option or a hidden file are refused by both sides. */
static void test_ids(void **state)
{
	struct fixture *fx = *state;
	static const char *const bad_ids[] = { "", "-x", ".hidden", "a/b", "a b", "a\nb", "caf\xc3\xa9" };
	struct tg_record rec = rpm_record(), *got;
	struct tg_error err = { 0 };
	char text[512];

	for (size_t i = 0; i < sizeof(bad_ids) / sizeof(bad_ids[0]); i++) {
		rec.package = bad_ids[i];
		assert_int_equal(tg_record_write(fx->marks, &rec, NULL, 0, &err), -EINVAL);
		snprintf(text, sizeof(text),
			 "{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"%s\","
			 "\"action\":\"mark\",\"modules\":[]}", bad_ids[i]);
		assert_int_equal(parse(text, &got, &err), -EBADMSG);
	}
	/* the name goes to rpm -q as well */
	rec.package = "p-1-1.x";
	rec.name = "--eval=%(true)";
	assert_int_equal(tg_record_write(fx->marks, &rec, NULL, 0, &err), -EINVAL);
	expect_parse_fails("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p-1-1.x\","
			   "\"name\":\"--eval=%(true)\",\"action\":\"mark\",\"modules\":[]}");
	rec.name = "kmod-x";
	/* NEVRAs rpm prints: epoch colon, tilde and caret versions */
	rec.package = "kmod-x-2:1.0~rc1^git1-1.el9.x86_64";
	assert_int_equal(tg_record_write(fx->marks, &rec, NULL, 0, &err), 0);
}

/* ------------------------------------------------------------ old formats */

/* What rpm-plugin/record.c wrote (taintguard-mark/1, pretty). */
static const char rpm_v1[] =
	"{\n"
	"  \"format\": \"taintguard-mark/1\",\n"
	"  \"source\": \"rpm\",\n"
	"  \"nevra\": \"tg-prop-1.0-1.noarch\",\n"
	"  \"name\": \"tg-prop\",\n"
	"  \"epoch\": null,\n"
	"  \"version\": \"1.0\",\n"
	"  \"release\": \"1\",\n"
	"  \"arch\": \"noarch\",\n"
	"  \"action\": \"mark\",\n"
	"  \"mode\": \"enforce\",\n"
	"  \"policy\": \"/etc/taintguard/policy.yaml\",\n"
	"  \"time\": 1796289600,\n"
	"  \"modules\": [\n"
	"    {\"path\": \"/lib/modules/6.1.0-57-amd64/extra/propplain.ko\", \"module\": \"propplain\", "
	"\"file_module\": \"propplain\", \"license\": \"Proprietary\", \"kernel\": \"6.1.0-57-amd64\", "
	"\"error\": null, \"loads\": true, \"taint\": \"POE\", \"module_taint\": \"POE\", \"errno\": 0, "
	"\"refusal\": [], \"action\": \"mark\", \"rule\": \"proprietary\", \"justification\": null, "
	"\"reasons\": [\"taint P: proprietary license 'Proprietary'\"]}\n"
	"  ]\n"
	"}\n";

/* What hooks/mark_record.c wrote (taintguard-mark/1, compact). */
static const char dkms_v1[] =
	"{\"format\":\"taintguard-mark/1\",\"source\":\"dkms\",\"package\":\"tg-prop/1.0\","
	"\"kernel\":\"6.1.0-57-amd64\",\"arch\":\"x86_64\",\"action\":\"mark\","
	"\"recorded\":\"2026-12-03T10:00:00Z\",\"modules\":[\n"
	" {\"path\": \"/var/lib/dkms/tg-prop/1.0/6.1.0-57-amd64/x86_64/module/tgprop.ko\", "
	"\"module\": \"tgprop\", \"kernel\": \"6.1.0-57-amd64\", \"taint\": \"POE\", \"action\": \"mark\", "
	"\"rule\": \"proprietary\", \"reasons\": [\"taint P\"]}\n]}\n";

static void test_v1_formats(void **state)
{
	struct tg_record *got = NULL;
	struct tg_error err = { 0 };
	char *text;

	(void)state;
	assert_int_equal(parse(rpm_v1, &got, &err), 0);
	assert_string_equal(got->format, "taintguard-mark/1");
	assert_int_equal(got->source, TG_RECORD_RPM);
	assert_string_equal(got->package, "tg-prop-1.0-1.noarch");
	assert_string_equal(got->name, "tg-prop");
	assert_null(got->epoch);
	assert_string_equal(got->release, "1");
	assert_string_equal(got->kernel, "6.1.0-57-amd64");	/* from the verdict */
	assert_int_equal(got->action, TG_ACTION_MARK);
	assert_int_equal(got->time, 1796289600);
	assert_int_equal(got->n_modules, 1);
	assert_string_equal(got->modules[0].module, "propplain");
	assert_string_equal(got->modules[0].taint, "POE");
	assert_string_equal(got->modules[0].reasons[0], "taint P: proprietary license 'Proprietary'");
	tg_record_free(got);

	/* the first /1 records had no "source": rpm */
	text = strdup(rpm_v1);
	assert_non_null(text);
	memcpy(strstr(text, "\"source\": \"rpm\",\n"), "                \n", 17);
	assert_int_equal(parse(text, &got, &err), 0);
	assert_int_equal(got->source, TG_RECORD_RPM);
	tg_record_free(got);
	free(text);

	assert_int_equal(parse(dkms_v1, &got, &err), 0);
	assert_int_equal(got->source, TG_RECORD_DKMS);
	assert_string_equal(got->package, "tg-prop/1.0");
	assert_string_equal(got->name, "tg-prop");
	assert_string_equal(got->version, "1.0");
	assert_string_equal(got->kernel, "6.1.0-57-amd64");
	assert_string_equal(got->arch, "x86_64");
	assert_null(got->mode);
	assert_null(got->policy);
	assert_int_equal(got->time, 1796292000);	/* 2026-12-03T10:00:00Z */
	assert_int_equal(got->n_modules, 1);
	assert_string_equal(got->modules[0].module, "tgprop");
	tg_record_free(got);
}

/* ------------------------------------------------------------ bad files */

static void expect(const char *text, int code, const char *msg_part)
{
	struct tg_record *got = (struct tg_record *)1;
	struct tg_error err = { 0 };

	assert_int_equal(parse(text, &got, &err), code);
	assert_null(got);
	assert_int_equal(err.code, code);
	assert_non_null(strstr(err.msg, "t.json: "));
	if (!strstr(err.msg, msg_part))
		fail_msg("'%s' not in '%s'", msg_part, err.msg);
}

static void test_broken(void **state)
{
	const char *v2 = "{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p-1-1.x\","
			 "\"action\":\"mark\",\"modules\":[{\"path\":\"/a.ko\",\"action\":\"mark\"}]}";
	struct tg_record *got;
	struct tg_error err = { 0 };
	size_t len = strlen(v2);

	(void)state;
	assert_int_equal(parse(v2, &got, &err), 0);
	tg_record_free(got);
	/* every truncation is broken, never a record */
	for (size_t i = 0; i < len; i++) {
		got = NULL;
		assert_int_equal(tg_record_parse(v2, i, "t.json", &got, &err), -EBADMSG);
		assert_null(got);
	}
	expect("", -EBADMSG, "empty");
	expect("{\"format\":\"taintguard-mark/2\",", -EBADMSG, "truncated");
	expect("not json at all", -EBADMSG, "not JSON");
	expect("{\"format\":'taintguard-mark/2'}", -EBADMSG, "not JSON");
	expect("{} {}", -EBADMSG, "at byte 3");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"action\":\"mark\",\"modules\":[]}",
	       -EBADMSG, "\"package\" is missing");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"yum\",\"package\":\"p\",\"action\":\"mark\","
	       "\"modules\":[]}", -EBADMSG, "\"source\" is \"yum\"");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"maybe\","
	       "\"modules\":[]}", -EBADMSG, "\"action\" is \"maybe\"");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":7,\"action\":\"mark\","
	       "\"modules\":[]}", -EBADMSG, "\"package\" is not a string");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"mark\"}",
	       -EBADMSG, "\"modules\" is missing");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"mark\","
	       "\"modules\":{}}", -EBADMSG, "\"modules\" is not a list");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"mark\","
	       "\"modules\":[3]}", -EBADMSG, "modules[0] is not an object");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"mark\","
	       "\"modules\":[{\"path\":\"/a.ko\"}]}", -EBADMSG, "modules[0]: \"action\" is missing");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"mark\","
	       "\"modules\":[{\"action\":\"mark\",\"reasons\":[1]}]}", -EBADMSG, "\"reasons\"[0] is not a string");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\",\"action\":\"mark\","
	       "\"time\":\"yesterday\",\"modules\":[]}", -EBADMSG, "\"time\"");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"rpm\",\"package\":\"p\\u0000q\",\"action\":\"mark\","
	       "\"modules\":[]}", -EBADMSG, "NUL");
	expect("{\"format\":\"taintguard-mark/2\",\"source\":\"dkms\",\"package\":\"m/v\",\"kernel\":\"../k\","
	       "\"action\":\"mark\",\"modules\":[]}", -EBADMSG, "kernel release");
	/* a raw NUL byte */
	got = NULL;
	assert_int_equal(tg_record_parse("{}\0{}", 5, "t.json", &got, &err), -EBADMSG);
	assert_null(got);
	/* nested past any record's depth */
	{
		char deep[200];

		memset(deep, '[', 100);
		memset(deep + 100, ']', 99);
		deep[199] = '\0';
		expect(deep, -EBADMSG, "not JSON");
	}
}

static void test_foreign(void **state)
{
	(void)state;
	expect("[]", -EPROTONOSUPPORT, "not an object");
	expect("\"taintguard-mark/2\"", -EPROTONOSUPPORT, "not an object");
	expect("{\"name\":\"some other tool's file\"}", -EPROTONOSUPPORT, "no \"format\"");
	expect("{\"format\":2}", -EPROTONOSUPPORT, "no \"format\"");
	expect("{\"format\":\"taintguard-mark/3\",\"package\":\"p\"}", -EPROTONOSUPPORT,
	       "format \"taintguard-mark/3\" is not one this taintguard reads");
	expect("{\"format\":\"composer-lock/1\"}", -EPROTONOSUPPORT, "not one this taintguard reads");
}

static void test_huge(void **state)
{
	struct fixture *fx = *state;
	struct tg_record *got = NULL;
	struct tg_error err = { 0 };
	char path[256];
	int fd;

	(void)state;
	assert_int_equal(tg_record_parse("{}", (size_t)TG_RECORD_MAX_SIZE + 1, "t.json", &got, &err),
			 -EFBIG);
	/* a sparse file past the cap is refused before it is read */
	snprintf(path, sizeof(path), "%s/huge.json", fx->dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)TG_RECORD_MAX_SIZE + 1), 0);
	close(fd);
	assert_int_equal(tg_record_read(path, &got, &err), -EFBIG);
	assert_null(got);
	assert_non_null(strstr(err.msg, path));
}

/* ------------------------------------------------------------ links and odd files */

static void test_links(void **state)
{
	struct fixture *fx = *state;
	struct tg_record rec = rpm_record(), *got = NULL;
	struct tg_error err = { 0 };
	char *path = NULL, target[256], fifo[256];
	struct stat st;

	make_verdicts("6.1.0-57-amd64");
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), 0);
	assert_int_equal(tg_record_path(fx->marks, &rec, &path, &err), 0);
	/* a valid record elsewhere, linked into the record's place */
	snprintf(target, sizeof(target), "%s/elsewhere.json", fx->dir);
	assert_int_equal(rename(path, target), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(tg_record_read(path, &got, &err), -ELOOP);
	assert_null(got);
	assert_non_null(strstr(err.msg, "symbolic link"));
	assert_non_null(strstr(err.msg, path));
	/* the writer replaces the link; the file it pointed to is untouched */
	write_file(target, "precious", 8);
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), 0);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_string_equal(read_text(target), "precious");
	/* a dangling link is not followed either, and the remover removes the link only */
	assert_int_equal(unlink(path), 0);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(tg_record_remove(path, &err), 0);
	assert_int_equal(lstat(path, &st), -1);
	assert_string_equal(read_text(target), "precious");
	/* a FIFO does not hang the reader; a directory is no record */
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", fx->marks);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(tg_record_read(fifo, &got, &err), -EINVAL);
	assert_int_equal(tg_record_read(fx->marks, &got, &err), -EINVAL);
	free(path);
}

static void test_write_failures(void **state)
{
	struct fixture *fx = *state;
	struct tg_record rec = rpm_record();
	struct tg_error err = { 0 };
	char file[256], dir[300];

	make_verdicts("6.1.0-57-amd64");
	/* "marks" is a file */
	snprintf(file, sizeof(file), "%s/marks", fx->dir);
	write_file(file, "x", 1);
	assert_int_equal(tg_record_write(file, &rec, vp, 1, &err), -ENOTDIR);
	assert_non_null(strstr(err.msg, file));
	assert_string_equal(read_text(file), "x");
	/* below a file */
	snprintf(dir, sizeof(dir), "%s/sub", file);
	assert_int_equal(tg_record_write(dir, &rec, vp, 1, &err), -ENOTDIR);
	/* a record the reader would refuse is not written: 17 verdicts of 1 MiB */
	{
		static const struct tg_verdict *many[17];
		char *big = malloc(1u << 20), *reasons[1];
		struct tg_verdict huge = verdicts[0];
		char path[300];

		assert_non_null(big);
		memset(big, 'x', (1u << 20) - 1);
		big[(1u << 20) - 1] = '\0';
		reasons[0] = big;
		huge.reasons = reasons;
		huge.n_reasons = 1;
		for (size_t i = 0; i < 17; i++)
			many[i] = &huge;
		snprintf(path, sizeof(path), "%s/big", fx->dir);
		assert_int_equal(tg_record_write(path, &rec, many, 17, &err), -EFBIG);
		assert_non_null(strstr(err.msg, "more than the limit"));
		/* nothing left behind, not even the temporary file */
		{
			char **paths;
			size_t n;
			char cmd[400];

			assert_int_equal(tg_record_list(path, &paths, &n, &err), 0);
			assert_int_equal(n, 0);
			tg_record_list_free(paths, n);
			snprintf(cmd, sizeof(cmd), "test -z \"$(ls -A '%s')\"", path);
			assert_int_equal(system(cmd), 0);
		}
		free(big);
	}
	/* an invalid action */
	rec.action = (enum tg_action)7;
	assert_int_equal(tg_record_write(fx->marks, &rec, vp, 1, &err), -EINVAL);
}

static void test_list(void **state)
{
	struct fixture *fx = *state;
	char **paths = NULL, p[256];
	struct tg_error err = { 0 };
	size_t n = 7;

	/* no directory: no records */
	assert_int_equal(tg_record_list(fx->marks, &paths, &n, &err), 0);
	assert_int_equal(n, 0);
	tg_record_list_free(paths, n);
	snprintf(p, sizeof(p), "%s/var", fx->dir);
	assert_int_equal(tg_record_list(p, &paths, &n, &err), 0);
	assert_int_equal(n, 0);
	tg_record_list_free(paths, n);
	{
		static const char *const names[] = { "b.json", "a.json", ".hidden.json", ".json",
						     "x.json.tmp-1-0", "notes.txt", "c.json" };

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			snprintf(p, sizeof(p), "%s/%s", fx->dir, names[i]);
			write_file(p, "{}", 2);
		}
	}
	assert_int_equal(tg_record_list(fx->dir, &paths, &n, &err), 0);
	assert_int_equal(n, 3);
	assert_non_null(strstr(paths[0], "/a.json"));
	assert_non_null(strstr(paths[1], "/b.json"));
	assert_non_null(strstr(paths[2], "/c.json"));
	tg_record_list_free(paths, n);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rpm_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dkms_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ids, setup, teardown),
		cmocka_unit_test_setup_teardown(test_staged, setup, teardown),
		cmocka_unit_test(test_v1_formats),
		cmocka_unit_test(test_broken),
		cmocka_unit_test(test_foreign),
		cmocka_unit_test_setup_teardown(test_huge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_links, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_failures, setup, teardown),
		cmocka_unit_test_setup_teardown(test_list, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
