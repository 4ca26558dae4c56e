/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The spawner (docs/confinement.md): forked once from the caller while it
 * has a single thread, it forks the confined workers the caller asks for
 * and reaps them, reporting how each ended.  With one thread it holds no
 * lock when it forks: a worker forked by a thread of the caller could
 * inherit a lock another thread held (OpenSSL's) and wait for it for ever.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "confine_proto.h"

static void close_passed(const int fd[2])
{
	for (int i = 0; i < 2; i++)
		if (fd[i] >= 0)
			close(fd[i]);
}

/*
 * One request from the caller, with the descriptors it passes (-1: none):
 * a worker's socket and its shared memory; false at EOF.
 */
static bool spawner_recv(struct sp_req *q, int fd[2])
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { q, sizeof(*q) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t k;

	fd[0] = fd[1] = -1;
	do
		k = recvmsg(SPAWNER_FD, &mh, MSG_CMSG_CLOEXEC);
	while (k < 0 && errno == EINTR);
	c = k > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len >= CMSG_LEN(sizeof(int)) && c->cmsg_len <= CMSG_LEN(2 * sizeof(int)))
		memcpy(fd, CMSG_DATA(c), c->cmsg_len - CMSG_LEN(0));
	if (k != (ssize_t)sizeof(*q) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		close_passed(fd);
		return false;
	}
	return true;
}

/* The spawner's live children, so that none outlives it. */
static pid_t *kids;
static size_t n_kids, kids_cap;

static void kid_forget(pid_t pid)
{
	for (size_t i = 0; i < n_kids; i++)
		if (kids[i] == pid) {
			kids[i] = kids[--n_kids];
			return;
		}
}

/*
 * Reap @pid, a worker of ours: killed first when asked; otherwise given
 * REAP_GRACE_MS to exit (it lost its socket, or is dying) before it is.
 */
static struct sp_rep spawner_reap(pid_t pid, bool kill_it)
{
	struct sp_rep rep = { 0 };
	pid_t got = waitpid(pid, &rep.status, WNOHANG);

	if (got < 0) {		/* not our child: never signal a stranger */
		rep.r = -errno;
		return rep;
	}
	if (!got && kill_it)
		kill(pid, SIGKILL);
	/*
	 * A worker that lost its socket exits within a millisecond or so, and
	 * the caller waits for this answer: look again soon, then less often.
	 */
	for (long us = 0, step = 100; !got && !kill_it && us < REAP_GRACE_MS * 1000L; us += step) {
		if (step < 10000 && us >= step)
			step *= 2;
		usleep((useconds_t)step);
		got = waitpid(pid, &rep.status, WNOHANG);
	}
	if (!got) {
		kill(pid, SIGKILL);
		while ((got = waitpid(pid, &rep.status, 0)) < 0 && errno == EINTR)
			;
	}
	rep.r = got < 0 ? -errno : 0;
	kid_forget(pid);
	return rep;
}

static struct sp_rep spawner_start_worker(int fd, int shm, uint64_t budget)
{
	struct sp_rep rep = { 0 };
	pid_t self = getpid(), pid;

	if (fd < 0 || grow_array(&kids, &kids_cap, n_kids, sizeof(*kids)) < 0) {
		rep.r = fd < 0 ? -EINVAL : -ENOMEM;
		return rep;
	}
	pid = fork();
	if (pid == 0)
		tg_confine_worker_main(fd, shm, self, budget);
	rep.r = pid < 0 ? -errno : pid;
	if (pid > 0)
		kids[n_kids++] = pid;
	return rep;
}

/*
 * The spawner: one thread, nothing of the caller's open but its control
 * socket (an rpm database's lock must not live on here), the caller's
 * signal handlers reset (rpm's must not run, nor reap our workers).  It
 * ends when the caller closes the socket (the caller ended), killing and
 * reaping its workers first, so that their time is counted as the caller's.
 */
void tg_confine_spawner_main(int ctl)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (!tg_confine_keep_only(ctl))
		_exit(0);
	tg_confine_warm();
	for (;;) {
		struct sp_req q;
		struct sp_rep rep = { .r = -EINVAL };
		int fd[2];
		ssize_t k;

		if (!spawner_recv(&q, fd))
			break;
		if (q.op == SP_START)
			rep = spawner_start_worker(fd[0], fd[1], q.budget);
		else if (q.op == SP_REAP && q.pid > 0)
			rep = spawner_reap(q.pid, q.kill_it);
		close_passed(fd);
		do
			k = send(SPAWNER_FD, &rep, sizeof(rep), MSG_NOSIGNAL);
		while (k < 0 && errno == EINTR);
		if (k != (ssize_t)sizeof(rep))
			break;
	}
	while (n_kids)
		spawner_reap(kids[n_kids - 1], true);
	_exit(0);
}
