/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Running other programs (dkms, depmod, bash, the real module signer). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hook.h"

static FILE *msg_out;

FILE *hk_msg_stream(void)
{
	return msg_out ? msg_out : stderr;
}

void hk_msg_stderr_fallback(void)
{
	struct stat a, b;

	/* dkms 3.1.0-3.1.5 run sign_file with 2>/dev/null: say it on stdout then. */
	if (fstat(STDERR_FILENO, &a) == 0 && stat("/dev/null", &b) == 0 && S_ISCHR(a.st_mode) &&
	    a.st_rdev == b.st_rdev)
		msg_out = stdout;
}

void hk_msg(const char *fmt, ...)
{
	FILE *out = hk_msg_stream();
	va_list ap;

	fflush(stdout);
	fputs(PROG ": ", out);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
	fflush(out);
}

int hk_bfmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int status_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -EIO;
}

static int spawn(char *const argv[], int out_fd)
{
	pid_t pid;
	int st;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (out_fd >= 0 && dup2(out_fd, STDOUT_FILENO) < 0)
			_exit(127);
		signal(SIGPIPE, SIG_DFL);
		execvp(argv[0], argv);
		fprintf(stderr, PROG ": cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return status_of(st);
}

int hk_run_wait(char *const argv[])
{
	return spawn(argv, -1);
}

int hk_run_capture(char *const argv[], char *buf, size_t len)
{
	char tmpl[] = "/tmp/taintguard-dkms.XXXXXX";
	int fd = mkostemp(tmpl, O_CLOEXEC), r;
	ssize_t got;

	if (fd < 0)
		return -errno;
	unlink(tmpl);
	r = spawn(argv, fd);
	buf[0] = '\0';
	if (lseek(fd, 0, SEEK_SET) == 0) {
		got = read(fd, buf, len - 1);
		if (got < 0)
			got = 0;
		buf[got] = '\0';
		while (got > 0 && buf[got - 1] == '\n')
			buf[--got] = '\0';
	}
	close(fd);
	return r;
}
