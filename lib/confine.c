/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Untrusted module bytes are parsed by confined worker processes.
 *
 * The rpm plugin runs inside rpm as root, the DKMS hook as root, and audit
 * and check read modules of packages anyone can build: a bug in a
 * decompressor, libelf, OpenSSL's DER parser or our own readers must not
 * give a hostile module the caller's privileges.  So tg_module_open_mem()
 * and tg_decompress(), where every front end's module bytes pass, hand the
 * bytes to a worker process that may only compute: seccomp allows reading
 * its request socket, writing its answer, memory management and dying
 * (docs/confinement.md lists the calls and why).  It cannot open a file,
 * execute, connect, signal another process or ptrace.
 *
 * The worker answers with the module's facts (module_facts.c), which are
 * read back here as untrusted bytes; the fields that describe the input
 * rather than its contents (label, size, compression) are the parent's own.
 * A worker that dies, is killed by seccomp, answers nonsense or does not
 * answer within TG_CONFINE_TIMEOUT_S is killed and the module is unreadable
 * (TG_CONFINE_FAILED), which every front end refuses as any unreadable
 * module; the thread's next module gets a new worker.
 *
 * Signatures: the PKCS#7 is parsed in the worker (tg_signature_read() ->
 * tg_sigdata_read(): signer, key id, digest algorithm, digests of the signed
 * bytes), so DER that crashes or subverts OpenSSL does so there.  Checking
 * it against a kernel's keys (tg_sig_check()) needs the keys of each target
 * kernel, which are gathered after the worker exists; it runs in the caller
 * and parses the DER the worker returned, which a subverted worker chooses.
 * That re-parse is not confined yet (docs/confinement.md, "Not confined").
 *
 * Speed: one worker per thread, started when the thread first reads a
 * module and kept (an audit reads thousands): a request costs a copy of the
 * compressed bytes through a socket and the facts back.
 *
 * Workers are not forked by the caller but by a spawner: a process forked
 * once (tg_reader_init(), which front ends call while they have a single
 * thread), that loads OpenSSL's configuration and digests and then only
 * forks workers and reaps them.  A worker forked by a thread of the caller
 * inherits every lock another thread holds at that moment (OpenSSL's method
 * stores while a signature is checked, libcurl's ...) and waits for it for
 * ever: seen as an audit that hung under load.  The spawner has one thread
 * and holds no lock when it forks.
 *
 * TG_CONFINE=off in the environment parses in the calling process, for
 * programs that cannot fork or run under valgrind.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include "confine_proto.h"

struct worker {
	pid_t pid;		/* 0: none running (a child of the spawner) */
	pid_t owner;		/* the process that started it (a forked child has its own) */
	int fd;
	uint64_t budget;	/* the inputs its memory limit was sized for */
	char *abuf;		/* ANSWER_CHUNK bytes: answers land here, a batch's mostly at once */
	char *shm;		/* SHM_SIZE bytes it maps too: requests' bytes go there (NULL: none) */
	size_t aoff, alen;	/* abuf[aoff..alen): received, not yet taken */
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_key_t key;
/* The spawner of this process (a forked child of ours gets its own). */
static struct {
	pthread_mutex_t mu;
	pid_t pid, owner;
	int fd;
} sp = { PTHREAD_MUTEX_INITIALIZER, 0, 0, -1 };
static bool enabled;
static int timeout_s = TG_CONFINE_TIMEOUT_S;

/* ------------------------------------------------------------ the caller */

/* Start the spawner (sp.mu held). */
static int spawner_start(void)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		int e = errno;

		close(sv[0]);
		close(sv[1]);
		return -e;
	}
	if (pid == 0) {
		close(sv[0]);
		tg_confine_spawner_main(sv[1]);
	}
	close(sv[1]);
	sp.pid = pid;
	sp.owner = getpid();
	sp.fd = sv[0];
	return 0;
}

/* Forget the spawner (sp.mu held): @end: close its socket and reap it (it then reaps its workers). */
static void spawner_end(bool kill_it)
{
	if (sp.pid && sp.owner == getpid()) {
		close(sp.fd);
		if (kill_it)
			kill(sp.pid, SIGKILL);
		while (waitpid(sp.pid, NULL, 0) < 0 && errno == EINTR)
			;
	} else if (sp.fd >= 0) {
		close(sp.fd);	/* a forked child's copy of its parent's */
	}
	sp.pid = 0;
	sp.fd = -1;
}

/* @q to the spawner with @npass (at most 2) descriptors */
static int spawner_send(const struct sp_req *q, const int *pass, size_t npass)
{
	union {
		char buf[CMSG_SPACE(2 * sizeof(int))];
		struct cmsghdr align;
	} u = { 0 };
	struct iovec iov = { (void *)q, sizeof(*q) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t k;

	if (npass) {
		struct cmsghdr *c;

		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(npass * sizeof(int));
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(npass * sizeof(int));
		memcpy(CMSG_DATA(c), pass, npass * sizeof(int));
	}
	do
		k = sendmsg(sp.fd, &mh, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)sizeof(*q) ? 0 : k < 0 ? -errno : -EPIPE;
}

static int xfer(int fd, bool out, void *p, size_t n, const struct timespec *deadline);

/*
 * One exchange with the spawner, started first when there is none and
 * @start.  A spawner that does not answer in time is killed (its workers
 * die with it) and the next call starts another.
 */
static int spawner_call(const struct sp_req *q, const int *pass, size_t npass, bool start,
			struct sp_rep *rep)
{
	struct timespec deadline;
	int r = 0;

	pthread_mutex_lock(&sp.mu);
	if (sp.pid && sp.owner != getpid())
		spawner_end(false);
	if (!sp.pid)
		r = start ? spawner_start() : -ECHILD;
	if (!r)
		r = spawner_send(q, pass, npass);
	if (!r) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout_s;
		r = xfer(sp.fd, false, rep, sizeof(*rep), &deadline);
	}
	if (r < 0 && r != -ECHILD)
		spawner_end(true);
	pthread_mutex_unlock(&sp.mu);
	return r;
}

/* Reap worker @pid through the spawner; its waitpid() status in *st, or -errno. */
static int worker_reap(pid_t pid, bool kill_it, int *st)
{
	struct sp_req q = { .op = SP_REAP, .pid = pid, .kill_it = kill_it };
	struct sp_rep rep;
	int r = spawner_call(&q, NULL, 0, false, &rep);

	if (r < 0)
		return r;
	*st = rep.status;
	return rep.r;
}

/* @w's worker ended (reaped): what it had goes with it. */
static void worker_gone(struct worker *w)
{
	w->pid = 0;
	w->fd = -1;
	w->aoff = w->alen = 0;	/* its answers */
	if (w->shm)
		munmap(w->shm, SHM_SIZE);
	w->shm = NULL;
}

static void worker_stop(struct worker *w, bool kill_it)
{
	int st;

	if (!w->pid)
		return;
	close(w->fd);		/* a healthy worker exits on EOF */
	worker_reap(w->pid, kill_it, &st);
	worker_gone(w);
}

static void worker_free(void *p)
{
	struct worker *w = p;

	worker_stop(w, false);
	free(w->abuf);
	free(w);
}

/*
 * At exit: the main thread's worker goes (the other threads' went with
 * them), then the spawner, reaped with its workers so that their time is
 * counted.  Not when another thread still talks to the spawner.
 */
__attribute__((destructor)) static void confine_fini(void)
{
	struct worker *w = enabled ? pthread_getspecific(key) : NULL;

	if (w) {
		pthread_setspecific(key, NULL);
		if (w->pid)
			close(w->fd);	/* not reaped: the spawner's end reaps it */
		worker_gone(w);
		free(w->abuf);
		free(w);
	}
	if (sp.pid && pthread_mutex_trylock(&sp.mu) == 0) {
		spawner_end(false);
		pthread_mutex_unlock(&sp.mu);
	}
}

static void init(void)
{
	const char *e = getenv("TG_CONFINE");

	const char *t = getenv("TG_CONFINE_TIMEOUT");

	enabled = !e || !(!strcmp(e, "off") || !strcmp(e, "0") || !strcmp(e, "no"));
	if (t && atoi(t) > 0)
		timeout_s = atoi(t);
	if (enabled && pthread_key_create(&key, worker_free) != 0)
		enabled = false;
}

bool tg_confine_enabled(void)
{
	pthread_once(&once, init);
	return enabled;
}

/*
 * Memory to share with a new worker: its descriptor (the worker maps it),
 * mapped in *@shm; -1 where there is none (no memfd: the bytes go through
 * the socket).
 */
static int shared_memory(char **shm)
{
	int fd = memfd_create("taintguard-module", MFD_CLOEXEC);
	void *p;

	*shm = NULL;
	if (fd < 0)
		return -1;
	if (ftruncate(fd, SHM_SIZE) < 0 ||
	    (p = mmap(NULL, SHM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
		close(fd);
		return -1;
	}
	*shm = p;
	return fd;
}

/* A new worker for @w: the spawner forks it on a socket (and shared memory) we give it. */
static int worker_start(struct worker *w, uint64_t budget)
{
	struct sp_req q = { .op = SP_START, .budget = budget };
	struct sp_rep rep;
	int sv[2], pass[2], r;
	char *shm;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	pass[0] = sv[1];
	pass[1] = shared_memory(&shm);
	r = spawner_call(&q, pass, pass[1] >= 0 ? 2 : 1, true, &rep);
	close(sv[1]);
	if (pass[1] >= 0)
		close(pass[1]);	/* the mapping stays */
	if (r == 0 && rep.r <= 0)
		r = rep.r < 0 ? rep.r : -EPROTO;
	if (r < 0) {
		close(sv[0]);
		if (shm)
			munmap(shm, SHM_SIZE);
		return r;
	}
	/* an answer is waited for in one blocking recvmsg(), for at most the timeout */
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_sec = timeout_s },
		   sizeof(struct timeval));
	w->pid = rep.r;
	w->owner = getpid();
	w->fd = sv[0];
	w->shm = shm;
	w->budget = budget;
	return 0;
}

int tg_reader_init(void)
{
	int r = 0;

	if (!tg_confine_enabled())
		return 0;
	pthread_mutex_lock(&sp.mu);
	if (sp.pid && sp.owner != getpid())
		spawner_end(false);
	if (!sp.pid)
		r = spawner_start();
	pthread_mutex_unlock(&sp.mu);
	return r;
}

/* The memory a worker may use: one input and two images (the module and a decompression). */
static uint64_t worker_budget(const struct tg_limits *lim)
{
	return lim->max_input_size + 2 * lim->max_module_size;
}

/* @w running and ours, with @budget; started when it is not.  0 or -errno. */
static int worker_ready(struct worker *w, uint64_t budget)
{
	if (w->pid && w->owner != getpid()) {
		/* a forked child's copy of its parent's worker: the parent's, not ours to use */
		close(w->fd);
		worker_gone(w);
	}
	if (w->pid && w->budget != budget)
		worker_stop(w, false);	/* its memory limit was sized for other limits */
	return w->pid ? 0 : worker_start(w, budget);
}

static struct worker *this_worker(void)
{
	struct worker *w = pthread_getspecific(key);

	if (!w && (w = calloc(1, sizeof(*w)))) {
		w->fd = -1;
		if (pthread_setspecific(key, w) != 0) {
			free(w);
			w = NULL;
		}
	}
	return w;
}

int tg_reader_warm(const struct tg_limits *lim)
{
	struct tg_limits def;
	struct worker *w;

	if (!tg_confine_enabled())
		return 0;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	w = this_worker();
	return w ? worker_ready(w, worker_budget(lim)) : -ENOMEM;
}

static int64_t ms_left(const struct timespec *deadline)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)(deadline->tv_sec - now.tv_sec) * 1000 +
	       (deadline->tv_nsec - now.tv_nsec) / 1000000;
}

/* Send or receive @n bytes before @deadline; -ETIMEDOUT, -EPIPE (EOF) or -errno. */
static int xfer(int fd, bool out, void *p, size_t n, const struct timespec *deadline)
{
	/* the operation first: a poll() only when it would block (a kernel entry saved) */
	bool wait = false;

	while (n) {
		ssize_t k;

		if (wait) {
			struct pollfd pf = { .fd = fd, .events = out ? POLLOUT : POLLIN };
			int64_t left = ms_left(deadline);

			if (left <= 0)
				return -ETIMEDOUT;
			if (poll(&pf, 1, left > INT32_MAX ? INT32_MAX : (int)left) < 0) {
				if (errno == EINTR)
					continue;
				return -errno;
			}
			if (!pf.revents)
				continue;
		}
		k = out ? send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT) : recv(fd, p, n, MSG_DONTWAIT);
		wait = k < 0 && errno == EAGAIN;
		if (k < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (k < 0)
			return errno == ECONNRESET ? -EPIPE : -errno;
		if (k == 0)
			return -EPIPE;
		p = (char *)p + k;
		n -= (size_t)k;
	}
	return 0;
}

/* One module to read (or bytes to decompress) and what became of it. */
struct job {
	struct req q;
	const char *label;
	const void *data;
	uint64_t max;		/* the answer's size at most */
	char *body;		/* the answer (r = 0) */
	size_t blen;
	int r;
	struct tg_error err;
};

/*
 * The jobs' bytes into @w's shared memory, one after the other, as far as
 * they fit; the worker has answered every request before (exchange() waits
 * for a whole batch), so nothing it reads is overwritten.  Bytes that do
 * not fit stay IN_SOCKET, SOCKET_BATCH_BYTES of them at most (one job's
 * whatever its size).  Returns how many of the jobs go now.
 */
static size_t place(struct worker *w, struct job *jobs, size_t k)
{
	size_t off = 0, in_socket = 0;

	for (size_t i = 0; i < k; i++) {
		struct req *q = &jobs[i].q;

		q->shm_off = IN_SOCKET;
		/* off and SHM_SIZE are multiples of 8: what fits, fits padded */
		if (w->shm && q->len <= SHM_SIZE - off) {
			memcpy(w->shm + off, jobs[i].data, q->len);
			q->shm_off = off;
			off += LABEL_PAD(q->len);
			continue;
		}
		if (i && in_socket + q->len > SOCKET_BATCH_BYTES)
			return i;
		in_socket += q->len;
	}
	return k;
}

/*
 * The requests of @k jobs in one sendmsg() when the socket takes them
 * (place() keeps a batch small enough there: it always does), the rest
 * piece by piece.
 */
static int send_requests(int fd, struct job *jobs, size_t k, const struct timespec *deadline)
{
	static const char zeros[8];
	struct iovec iov[5 * BATCH_MAX];
	struct msghdr mh = { .msg_iov = iov };
	size_t n = 0, sent;
	ssize_t got;

	for (size_t i = 0; i < k; i++) {
		struct req *q = &jobs[i].q;

		iov[n++] = (struct iovec){ q, sizeof(*q) };
		iov[n++] = (struct iovec){ (void *)jobs[i].label, q->label_len };
		iov[n++] = (struct iovec){ (void *)zeros, LABEL_PAD(q->label_len) - q->label_len };
		if (q->shm_off != IN_SOCKET)
			continue;
		iov[n++] = (struct iovec){ (void *)jobs[i].data, q->len };
		iov[n++] = (struct iovec){ (void *)zeros, LABEL_PAD(q->len) - q->len };
	}
	mh.msg_iovlen = n;
	do
		got = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	while (got < 0 && errno == EINTR);
	if (got < 0 && errno != EAGAIN)
		return errno == ECONNRESET ? -EPIPE : -errno;
	sent = got < 0 ? 0 : (size_t)got;
	for (size_t i = 0; i < n; i++) {
		size_t skip = sent < iov[i].iov_len ? sent : iov[i].iov_len;
		int r = xfer(fd, true, (char *)iov[i].iov_base + skip, iov[i].iov_len - skip, deadline);

		if (r < 0)
			return r;
		sent -= skip;
	}
	return 0;
}

/* The worker's answers that have arrived into abuf (empty before): one blocking recv(), SO_RCVTIMEO bounds it. */
static int refill(struct worker *w, const struct timespec *deadline)
{
	ssize_t k;

	if (ms_left(deadline) <= 0)
		return -ETIMEDOUT;
	do
		k = recv(w->fd, w->abuf, ANSWER_CHUNK, 0);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -ETIMEDOUT :
		       errno == ECONNRESET ? -EPIPE : -errno;
	if (k == 0)
		return -EPIPE;
	w->aoff = 0;
	w->alen = (size_t)k;
	return 0;
}

/* @n bytes of the answers into @dst: what abuf holds first, a large rest straight from the socket. */
static int take(struct worker *w, void *dst, size_t n, const struct timespec *deadline)
{
	char *d = dst;

	while (n) {
		size_t k = w->alen - w->aoff < n ? w->alen - w->aoff : n;
		int r;

		memcpy(d, w->abuf + w->aoff, k);
		w->aoff += k;
		d += k;
		n -= k;
		if (w->aoff == w->alen)
			w->aoff = w->alen = 0;
		if (n >= ANSWER_CHUNK / 2)
			return xfer(w->fd, false, d, n, deadline);
		if (n && (r = refill(w, deadline)) < 0)
			return r;
	}
	return 0;
}

/* One answer: its head, then its body (at most @max bytes, NUL-terminated) in *body. */
static int recv_answer(struct worker *w, uint64_t max, struct rep *rep, char **body,
		       const struct timespec *deadline)
{
	int r = take(w, rep, sizeof(*rep), deadline);

	if (r < 0)
		return r;
	if (rep->r > 0 || (rep->r == 0 && rep->len > max) || (rep->r < 0 && rep->len >= TG_ERRMAX))
		return -EBADMSG;
	if (!(*body = malloc(rep->len + 1)))
		return -ENOMEM;
	r = take(w, *body, rep->len, deadline);
	if (r < 0) {
		free(*body);
		*body = NULL;
		return r;
	}
	(*body)[rep->len] = '\0';
	return 0;
}

/* Why the worker ended, as the module's error; the worker is gone afterwards. */
static int worker_failed(struct worker *w, int why, const char *label, struct tg_error *err)
{
	int st = 0;
	/* an answer cut short: the worker is dying, the spawner gives it a moment to end */
	bool got = false;

	close(w->fd);
	got = worker_reap(w->pid, why != -EPIPE, &st) == 0;
	worker_gone(w);
	if (why == -ETIMEDOUT)
		return tg_fail(err, TG_CONFINE_FAILED, "%s: the confined parser took more than %d s "
			       "and was killed", label, timeout_s);
	if (got && WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS)
		return tg_fail(err, TG_CONFINE_FAILED, "%s: the confined parser was killed for a "
			       "forbidden system call (seccomp)", label);
	if (got && WIFSIGNALED(st) && !(why != -EPIPE && WTERMSIG(st) == SIGKILL))
		return tg_fail(err, TG_CONFINE_FAILED, "%s: the confined parser died of signal %d (%s)",
			       label, WTERMSIG(st), strsignal(WTERMSIG(st)));
	if (got && WIFEXITED(st) && WEXITSTATUS(st) == EXIT_NOCONFINE)
		return tg_fail(err, TG_CONFINE_FAILED, "%s: the parser cannot be confined (seccomp "
			       "unavailable); TG_CONFINE=off reads modules unconfined", label);
	if (why == -EBADMSG)
		return tg_fail(err, TG_CONFINE_FAILED, "%s: the confined parser answered nonsense", label);
	return tg_fail(err, TG_CONFINE_FAILED, "%s: the confined parser ended without an answer (%s)",
		       label, strerror(-why));
}

/*
 * @k requests (a batch, all with the same limits) to this thread's worker,
 * sent at once, answered in order.  Each job ends with its answer in body
 * (r = 0) or its error (r < 0: the reader's own, or TG_CONFINE_FAILED when
 * the worker failed on it).  Returns how many jobs ended.  A worker holds
 * its answers back until the end of its batch, so one that fails before
 * the last answer may have failed on any of the jobs not answered: none of
 * them ends, *unsure is set, and the caller sends them again one by one.
 */
static size_t exchange(struct job *jobs, size_t k, bool *unsure)
{
	struct worker *w = this_worker();
	uint64_t budget = worker_budget(&jobs[0].q.lim);
	struct timespec deadline;
	int r;

	if (!w || (!w->abuf && !(w->abuf = malloc(ANSWER_CHUNK)))) {
		jobs[0].r = tg_fail(&jobs[0].err, -ENOMEM, "%s: out of memory", jobs[0].label);
		return 1;
	}
	if ((r = worker_ready(w, budget)) < 0) {
		jobs[0].r = tg_fail(&jobs[0].err, TG_CONFINE_FAILED, "%s: cannot start the confined "
				    "parser: %s", jobs[0].label, strerror(-r));
		return 1;
	}
	for (size_t i = 0; i < k; i++) {
		jobs[i].q.magic = REQ_MAGIC;
		jobs[i].q.label_len = (uint32_t)strnlen(jobs[i].label, TG_CONFINE_LABEL_MAX);
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += timeout_s;
	k = place(w, jobs, k);
	r = send_requests(w->fd, jobs, k, &deadline);
	for (size_t i = 0; i < k; i++) {
		struct rep rep;
		struct job *j = &jobs[i];

		/* each module of a batch has the timeout, from the answer before it */
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout_s;
		if (!r)
			r = recv_answer(w, j->max, &rep, &j->body, &deadline);
		if (r == -ENOMEM) {
			worker_stop(w, true);	/* its answer is still in the socket */
			j->r = tg_fail(&j->err, r, "%s: out of memory", j->label);
			return i + 1;
		}
		if (r < 0) {
			j->r = worker_failed(w, r, j->label, &j->err);
			if (i + 1 == k)
				return k;
			*unsure = true;
			return i;
		}
		j->blen = rep.len;
		j->r = 0;
		if (rep.r < 0) {
			/* the worker's message names the module by the label it was sent */
			j->r = tg_fail(&j->err, rep.r, "%s", j->body);
			free(j->body);
			j->body = NULL;
		}
	}
	return k;
}

/* The facts of job @j read back (untrusted bytes) into a module. */
static int job_module(struct job *j, struct tg_module **out, struct tg_error *err)
{
	struct tg_module *m = NULL;
	int r;

	*out = NULL;
	if (j->r < 0) {
		if (err)
			*err = j->err;
		return j->r;
	}
	r = tg_module_facts_read(j->body, j->blen, &j->q.lim, &m, err);
	free(j->body);
	j->body = NULL;
	if (r < 0) {
		/* a worker sending what the facts reader refuses is not to be trusted again */
		worker_stop(this_worker(), true);
		return tg_fail(err, TG_CONFINE_FAILED, "%s: the confined parser answered nonsense",
			       j->label);
	}
	/* what describes the input is ours, not the worker's to say */
	free(m->label);
	free(m->file_modname);
	m->label = strdup(j->label);
	m->file_modname = tg_module_name_from_file(j->label);
	m->file_size = j->q.len;
	m->compression = tg_compression_detect(j->data, j->q.len);
	if (!m->label) {
		tg_module_free(m);
		return tg_fail(err, -ENOMEM, "%s: out of memory", j->label);
	}
	*out = m;
	return 0;
}

/* How many of the modules from @i on go in one batch (at least one). */
static size_t batch_size(const size_t *len, const char *const *label, size_t i, size_t n)
{
	size_t k = 0, bytes = 0;

	while (i + k < n && k < BATCH_MAX) {
		size_t b = REQ_SIZE(strnlen(label[i + k] ? label[i + k] : "<memory>",
					    TG_CONFINE_LABEL_MAX), len[i + k]);

		if (k && bytes + b > BATCH_BYTES)
			break;
		bytes += b;
		k++;
		if (bytes > BATCH_BYTES)
			break;
	}
	return k;
}

int tg_confine_open_many(size_t n, const void *const *data, const size_t *len,
			 const char *const *label, const struct tg_limits *lim,
			 struct tg_module **out, struct tg_error *err, int *r)
{
	struct job jobs[BATCH_MAX];
	struct tg_limits def;
	size_t alone = 0;	/* modules before this one are sent one by one */

	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	for (size_t i = 0; i < n;) {
		size_t k = i < alone ? 1 : batch_size(len, label, i, n), done;
		bool unsure = false;

		for (size_t j = 0; j < k; j++)
			jobs[j] = (struct job){ .q = { .op = OP_OPEN, .len = len[i + j], .lim = *lim },
						.label = label[i + j] ? label[i + j] : "<memory>",
						.data = data[i + j], .max = lim->max_module_size };
		done = exchange(jobs, k, &unsure);
		for (size_t j = 0; j < done; j++)
			r[i + j] = job_module(&jobs[j], &out[i + j], err ? &err[i + j] : NULL);
		if (unsure)	/* which of them failed the worker: each alone tells */
			alone = i + k;
		i += done;	/* those a failed worker did not answer: again, to a new one */
	}
	return 0;
}

int tg_confine_open(const void *data, size_t len, const char *label,
		    const struct tg_limits *lim, struct tg_module **out, struct tg_error *err)
{
	int r;

	tg_confine_open_many(1, &data, &len, &label, lim, out, err, &r);
	return r;
}

static int confine_decompress(enum tg_compression kind, const void *in, size_t inlen,
			      uint64_t cap, void **out, size_t *outlen, const char *label,
			      struct tg_error *err)
{
	struct job j = { .q = { .op = OP_DECOMPRESS, .kind = kind, .len = inlen, .cap = cap },
			 .label = label ? label : "<memory>", .data = in, .max = cap };

	*out = NULL;
	*outlen = 0;
	tg_limits_default(&j.q.lim);
	if (j.q.lim.max_input_size < inlen)
		j.q.lim.max_input_size = inlen;
	if (j.q.lim.max_module_size < cap)
		j.q.lim.max_module_size = cap;
	exchange(&j, 1, &(bool){ false });
	if (j.r < 0) {
		if (err)
			*err = j.err;
		return j.r;
	}
	*out = j.body;
	*outlen = j.blen;
	return 0;
}

/* The public decompressor: its bytes are untrusted too (a module, a Module.symvers). */
int tg_decompress(enum tg_compression kind, const void *in, size_t inlen,
		  uint64_t cap, void **out, size_t *outlen, const char *label,
		  struct tg_error *err)
{
	if (tg_confine_enabled())
		return confine_decompress(kind, in, inlen, cap, out, outlen, label, err);
	return tg_decompress_here(kind, in, inlen, cap, out, outlen, label, err);
}
