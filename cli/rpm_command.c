/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The rpm command, for `status` (which packages are installed, what rpm's
 * macros say now): found on PATH and run with a clean environment, its output
 * captured.  The command, not librpm: `taintguard` links no librpm.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* what rpm may print per run: a few lines per installed version of a batch */
#define RPM_OUTPUT_MAX (16u << 20)

char *cli_find_rpm(void)
{
	const char *path = getenv("PATH");
	const char *p;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	for (p = path;; p++) {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		struct stat st;
		char *cand;

		/* an empty entry is the current directory, as for execvp() */
		if (asprintf(&cand, "%.*s/rpm", (int)(len ? len : 1), len ? p : ".") < 0)
			return NULL;
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!end)
			return NULL;
		p = end;
	}
}

/*
 * Run @argv (argv[0] a path) with stdin from /dev/null and stdout and stderr
 * captured together into *@out (at most RPM_OUTPUT_MAX bytes,
 * NUL-terminated).  The environment is ours cleaned down to PATH and HOME
 * (rpm's macros may use them: Debian's %_dbpath is under $HOME) and LC_ALL=C
 * (messages we can read): no RPM_*, LD_* or other variables reach it.
 * Returns the wait status, or -errno.
 */
int cli_run_capture(char *const argv[], char **out, size_t *len)
{
	const char *path = getenv("PATH"), *home = getenv("HOME");
	char *env[4], *penv = NULL, *henv = NULL;
	size_t n = 0, cap = 0, ne = 0;
	char *buf = NULL;
	int fds[2], status = 0, r = 0;
	pid_t pid;

	*out = NULL;
	*len = 0;
	if (asprintf(&penv, "PATH=%s", path && *path ? path : "/usr/sbin:/usr/bin:/sbin:/bin") < 0)
		return -ENOMEM;
	env[ne++] = penv;
	if (home && asprintf(&henv, "HOME=%s", home) >= 0)
		env[ne++] = henv;
	env[ne++] = "LC_ALL=C";
	env[ne] = NULL;
	if (pipe2(fds, O_CLOEXEC) < 0) {
		r = -errno;
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		r = -errno;
		close(fds[0]);
		close(fds[1]);
		goto out;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (null < 0 || dup2(null, 0) < 0 || dup2(fds[1], 1) < 0 || dup2(fds[1], 2) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execve(argv[0], argv, env);
		dprintf(1, "error: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	for (;;) {
		ssize_t got;

		if (n + 4096 + 1 > cap) {
			char *nb;

			if (cap >= RPM_OUTPUT_MAX) {
				r = -EFBIG;
				break;
			}
			cap = cap ? cap * 2 : 65536;
			nb = realloc(buf, cap);
			if (!nb) {
				r = -ENOMEM;
				break;
			}
			buf = nb;
		}
		got = read(fds[0], buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (got < 0)
				r = -errno;
			break;
		}
		n += (size_t)got;
	}
	close(fds[0]);	/* a child still writing gets SIGPIPE */
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			r = r ? r : -errno;
			break;
		}
	if (r == 0) {
		buf[n] = '\0';
		*out = buf;
		*len = n;
		buf = NULL;
		r = status;
	}
out:
	free(buf);
	free(penv);
	free(henv);
	return r;
}
