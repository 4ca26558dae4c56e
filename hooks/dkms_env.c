/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What dkms tells a hook: environment, cwd, the command that runs it, its tree. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hook.h"

bool hk_safe_name(const char *s)
{
	if (!s || !*s || strstr(s, "..") || *s == '.' || *s == '-')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.+-~", *s)))
			return false;
	return true;
}

static const char *env_word(const char *name)
{
	const char *v = getenv(name);

	return v && *v && !strchr(v, '/') ? v : NULL;
}

/* NUL-separated argv of @pid into @buf; returns its length, 0 on failure. */
static size_t read_cmdline(pid_t pid, char *buf, size_t len)
{
	char path[64];
	ssize_t n;
	int fd;

	hk_bfmt(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return (size_t)n;
}

static pid_t parent_of(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	hk_bfmt(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* comm may contain spaces */
	if (!p)
		return 0;
	return (pid_t)strtol(p + 3 + 1, NULL, 10);	/* ") S PPID" */
}

/* Is @pid running dkms with an action that installs for whole kernels? */
static bool is_dkms_autoinstall(pid_t pid)
{
	char buf[4096];
	size_t n = read_cmdline(pid, buf, sizeof(buf));
	bool dkms = false, action = false;

	for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
		const char *w = buf + i, *base = strrchr(w, '/');

		base = base ? base + 1 : w;
		if (!strncmp(base, "dkms", 4) && !dkms)
			dkms = true;
		else if (dkms && (!strcmp(w, "autoinstall") || !strcmp(w, "kernel_postinst")))
			action = true;
	}
	return dkms && action;
}

void hk_dkms_ctx_get(struct dkms_ctx *c)
{
	const char *forced = getenv("TAINTGUARD_DKMS_CONTEXT");
	const char *d = getenv(DIRECTIVE_ENV);
	size_t ln = strlen("/" PREINSTALL_NAME);
	pid_t pid = getppid();

	memset(c, 0, sizeof(*c));
	c->kernelver = env_word("kernelver");
	c->arch = env_word("arch");
	c->module = env_word("module");
	c->module_version = env_word("module_version");
	c->wrapped = d && !strncmp(d, "PRE_INSTALL=", 12) && strlen(d) > ln &&
		     !strcmp(d + strlen(d) - ln, "/" PREINSTALL_NAME);
	if (forced && *forced) {
		c->autoinstall = !strcmp(forced, "autoinstall");
		return;
	}
	/* sign_file and PRE_INSTALL run from dkms's shell or a subshell of it. */
	for (int depth = 0; depth < 8 && pid > 1; depth++) {
		if (is_dkms_autoinstall(pid)) {
			c->autoinstall = true;
			return;
		}
		pid = parent_of(pid);
	}
}

int hk_logical_cwd(char *buf, size_t len)
{
	const char *pwd = getenv("PWD");
	struct stat a, b;

	if (pwd && pwd[0] == '/' && strlen(pwd) < len && stat(pwd, &a) == 0 &&
	    stat(".", &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino) {
		hk_bfmt(buf, len, "%s", pwd);
		return 0;
	}
	return getcwd(buf, len) ? 0 : -errno;
}

bool hk_dkms_is_installed(const char *tree, const char *m, const char *v, const char *k, const char *a)
{
	char link[PATH_MAX], dir[PATH_MAX];
	struct stat sl, sd;

	if (hk_bfmt(link, sizeof(link), "%s/%s/kernel-%s-%s", tree, m, k, a) < 0 ||
	    hk_bfmt(dir, sizeof(dir), "%s/%s/%s/%s/%s", tree, m, v, k, a) < 0)
		return false;
	if (stat(link, &sl) < 0 || stat(dir, &sd) < 0)
		return false;
	return sl.st_dev == sd.st_dev && sl.st_ino == sd.st_ino;
}
