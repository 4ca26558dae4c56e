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
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <gelf.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <seccomp.h>

#include "confine.h"

#define REQ_MAGIC 0x52434754u	/* "TGCR" */
#define OP_OPEN 1
#define OP_DECOMPRESS 2
/* The worker's request socket, wherever socketpair() put it. */
#define WORKER_FD 3
/* The worker exits with this when it could not confine itself. */
#define EXIT_NOCONFINE 70
/* A label (the module's name in messages) is cut there. */
#define TG_CONFINE_LABEL_MAX 4096
/*
 * The label and the bytes are padded to 8, so that the module's bytes, and
 * the next request of a batch, are aligned for the ELF reader.
 */
#define LABEL_PAD(n) (((size_t)(n) + 7) & ~(size_t)7)
#define REQ_SIZE(label_len, len) (sizeof(struct req) + LABEL_PAD(label_len) + LABEL_PAD(len))
/* Small modules go to the worker in batches: this many at most, of at most so many bytes. */
#define BATCH_MAX 8
#define BATCH_BYTES (96u << 10)
/* What a worker reads, and the caller receives, at once: a typical request or answer. */
#define READ_CHUNK (256u << 10)
#define ANSWER_CHUNK (64u << 10)
/* The spawner's end of its control socket. */
#define SPAWNER_FD 3
/* How long a worker that lost its socket may take to exit before it is killed. */
#define REAP_GRACE_MS 1000
/* Address space a worker may add to what the fork gave it, beyond its inputs. */
#define AS_SLACK (128ull << 20)

struct req {
	uint32_t magic, op, kind, label_len;
	uint64_t len, cap;
	struct tg_limits lim;
};

/* the module's bytes follow it (and the padded label): aligned for the ELF reader */
_Static_assert(sizeof(struct req) % 8 == 0, "struct req keeps what follows it aligned");

struct rep {
	int32_t r;
	uint32_t pad;
	uint64_t len;		/* facts, the decompressed bytes, or the message */
};

/* To the spawner: start a worker on the attached socket, or reap one. */
#define SP_START 1
#define SP_REAP 2
struct sp_req {
	uint32_t op, kill_it;
	int32_t pid, pad;
	uint64_t budget;	/* SP_START: the inputs the worker's memory limit is sized for */
};

struct sp_rep {
	int32_t r;		/* SP_START: the worker's pid; SP_REAP: 0; or -errno */
	int32_t status;		/* SP_REAP: waitpid()'s */
};

struct worker {
	pid_t pid;		/* 0: none running (a child of the spawner) */
	int fd;
	uint64_t budget;	/* the inputs its memory limit was sized for */
	char *abuf;		/* ANSWER_CHUNK bytes: answers land here, a batch's mostly at once */
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

/* ------------------------------------------------------------ the worker */

static bool write_full(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			return false;
		}
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return true;
}

/* The answer in one system call when the socket takes it (each one is a kernel entry). */
static bool answer(int r, const void *body, size_t len)
{
	struct rep rep = { .r = r, .len = len };
	struct iovec iov[2] = { { &rep, sizeof(rep) }, { (void *)body, len } };
	ssize_t k;

	do
		k = writev(WORKER_FD, iov, len ? 2 : 1);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return false;
	if ((size_t)k < sizeof(rep))
		return write_full(WORKER_FD, (char *)&rep + k, sizeof(rep) - (size_t)k) &&
		       write_full(WORKER_FD, body, len);
	k -= (ssize_t)sizeof(rep);
	return write_full(WORKER_FD, (const char *)body + k, len - (size_t)k);
}

/*
 * The system calls reading a module needs, and nothing else.  Memory may
 * not be made executable; only the request socket is read; only it and
 * stderr (sanitizer reports) are written.  abort() needs its own signal.
 */
static int confine_self(void)
{
	static const int plain[] = {
		SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
		SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(rt_sigreturn),
		SCMP_SYS(rt_sigprocmask), SCMP_SYS(futex), SCMP_SYS(getpid), SCMP_SYS(gettid),
		SCMP_SYS(clock_gettime), SCMP_SYS(getrandom),
	};
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_KILL_PROCESS);
	int r = c ? 0 : -ENOMEM;

	for (size_t i = 0; !r && i < TG_ARRAY_SIZE(plain); i++)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, plain[i], 0);
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(read), 1,
				     SCMP_A0(SCMP_CMP_EQ, WORKER_FD));
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(write), 1,
				     SCMP_A0(SCMP_CMP_EQ, WORKER_FD));
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(write), 1, SCMP_A0(SCMP_CMP_EQ, 2));
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(writev), 1,
				     SCMP_A0(SCMP_CMP_EQ, WORKER_FD));
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
				     SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0));
	if (!r)
		r = seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 1,
				     SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid()));
	if (!r)
		r = seccomp_load(c);
	seccomp_release(c);
	return r;
}

/* The address space the fork gave us, from /proc (0 when there is none: a chroot). */
static uint64_t vm_size(void)
{
	unsigned long long pages = 0;
	FILE *f = fopen("/proc/self/statm", "re");

	if (f) {
		if (fscanf(f, "%llu", &pages) != 1)
			pages = 0;
		fclose(f);
	}
	return pages * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * What needs a file: OpenSSL's configuration and digests are loaded by
 * using them.  Done once in the spawner, so that every worker has them.
 */
static void warm(void)
{
	static const int digests[] = { NID_sha1, NID_sha224, NID_sha256, NID_sha384, NID_sha512,
				       NID_sha3_256, NID_sha3_384, NID_sha3_512, NID_sm3 };
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned mdlen;

	elf_version(EV_CURRENT);
	OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG | OPENSSL_INIT_ADD_ALL_DIGESTS, NULL);
	for (size_t i = 0; i < TG_ARRAY_SIZE(digests); i++) {
		const EVP_MD *t = EVP_get_digestbynid(digests[i]);

		if (t)
			EVP_Digest("", 0, md, &mdlen, t, NULL);
	}
}

/* The worker, before the filter: its socket at WORKER_FD and nothing else open, its limits. */
static void prepare(int fd, uint64_t budget)
{
	struct rlimit no_core = { 0, 0 };
	int null;

	if (fd != WORKER_FD && (dup2(fd, WORKER_FD) < 0 || close(fd) < 0))
		_exit(EXIT_NOCONFINE);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	dup2(null >= 0 ? null : WORKER_FD, 0);
	dup2(null >= 0 ? null : WORKER_FD, 1);
	/* nothing of the parent's (an rpm database, a record being written) stays reachable */
	if (close_range(WORKER_FD + 1, ~0u, 0) < 0)
		for (int i = WORKER_FD + 1; i < 65536; i++)
			close(i);
	setrlimit(RLIMIT_CORE, &no_core);
#ifndef __SANITIZE_ADDRESS__	/* ASan reserves terabytes of shadow address space */
	{
		uint64_t vm = vm_size();
		struct rlimit as = { vm + budget + AS_SLACK, vm + budget + AS_SLACK };

		if (vm)
			setrlimit(RLIMIT_AS, &as);
	}
#endif
	/*
	 * Keep what malloc gets: glibc would mmap each large buffer (a module,
	 * its decompressed image) and unmap it when freed, so every module
	 * would fault in and zero its pages afresh, and page faults are what
	 * a worker costs most.  Freed memory stays for the next module.
	 */
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 512 << 20);
	tg_decompress_forget();
	if (confine_self() < 0)
		_exit(EXIT_NOCONFINE);
}

static void serve_one(const struct req *q, const char *label, const void *data)
{
	struct tg_error err = { 0 };
	int r;

	if (q->op == OP_OPEN) {
		struct tg_module *m = NULL;
		void *facts = NULL;
		size_t flen = 0;

		r = tg_module_parse_mem(data, q->len, label, &q->lim, &m, &err);
		if (r == 0 && (r = tg_module_facts_write(m, &facts, &flen)) < 0)
			tg_fail(&err, r, "%s: out of memory", label);
		if (!(r == 0 ? answer(0, facts, flen) : answer(r, err.msg, strlen(err.msg))))
			_exit(0);
		free(facts);
		tg_module_free(m);
	} else {
		void *out = NULL;
		size_t olen = 0;

		r = tg_decompress_here((enum tg_compression)q->kind, data, q->len, q->cap, &out, &olen,
				       label, &err);
		if (!(r == 0 ? answer(0, out, olen) : answer(r, err.msg, strlen(err.msg))))
			_exit(0);
		free(out);
	}
}

/* @buf grown to hold @n bytes (never shrunk: the next module reuses it) */
static bool room(char **buf, size_t *cap, size_t n)
{
	char *b;

	if (n <= *cap)
		return true;
	b = realloc(*buf, n);
	if (!b)
		return false;
	*buf = b;
	*cap = n;
	return true;
}

/*
 * @n more bytes in buf[have..] from the socket: at least @n, as many as the
 * socket holds (the next requests of a batch come with it).  Requests
 * already read but not served are kept at the start of the buffer.
 */
static bool read_more(char **buf, size_t *cap, size_t *have, size_t n)
{
	size_t want = *have + n;

	if (!room(buf, cap, want > READ_CHUNK ? want : READ_CHUNK))
		return false;
	while (*have < want) {
		ssize_t k = read(WORKER_FD, *buf + *have, *cap - *have);

		if (k <= 0) {
			if (k < 0 && errno == EINTR)
				continue;
			return false;
		}
		*have += (size_t)k;
	}
	return true;
}

/*
 * Requests are read with as few system calls as it takes (each is a kernel
 * entry, the dearest part of a request on a virtual machine): what the
 * socket holds, a whole batch of small modules mostly, in one read() into
 * a buffer kept for the next; served one after the other.
 */
static __attribute__((noreturn)) void worker_main(int fd, pid_t parent, uint64_t budget)
{
	char *buf = NULL;
	size_t cap = 0, have = 0, off = 0;
	char label[TG_CONFINE_LABEL_MAX + 1];

	/* dies with the spawner (which ends with the caller) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(0);
	prepare(fd, budget);
	for (;;) {
		struct req q;
		size_t need;

		if (off && off == have)
			off = have = 0;
		if (off && have - off < sizeof(q)) {	/* a request cut short: to the front */
			memmove(buf, buf + off, have - off);
			have -= off;
			off = 0;
		}
		if (have - off < sizeof(q) && !read_more(&buf, &cap, &have, sizeof(q) - (have - off)))
			_exit(0);
		memcpy(&q, buf + off, sizeof(q));
		if (q.magic != REQ_MAGIC || q.label_len > TG_CONFINE_LABEL_MAX || q.len > SIZE_MAX / 4)
			_exit(0);
		need = REQ_SIZE(q.label_len, q.len);
		if (have - off < need) {
			memmove(buf, buf + off, have - off);
			have -= off;
			off = 0;
			if (!read_more(&buf, &cap, &have, need - have))
				_exit(0);
		}
		memcpy(label, buf + off + sizeof(q), q.label_len);
		label[q.label_len] = '\0';
		serve_one(&q, label, buf + off + sizeof(q) + LABEL_PAD(q.label_len));
		off += need;
	}
}

/* ------------------------------------------------------------ the spawner */

/* One request from the caller, with the socket it passes (-1: none); false at EOF. */
static bool spawner_recv(struct sp_req *q, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { q, sizeof(*q) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = u.buf, .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t k;

	*fd = -1;
	do
		k = recvmsg(SPAWNER_FD, &mh, MSG_CMSG_CLOEXEC);
	while (k < 0 && errno == EINTR);
	c = k > 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	if (k != (ssize_t)sizeof(*q) || (mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		if (*fd >= 0)
			close(*fd);
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
	for (int ms = 0; !got && !kill_it && ms < REAP_GRACE_MS; ms += 10) {
		usleep(10000);
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

static struct sp_rep spawner_start_worker(int fd, uint64_t budget)
{
	struct sp_rep rep = { 0 };
	pid_t self = getpid(), pid;

	if (fd < 0 || grow_array(&kids, &kids_cap, n_kids, sizeof(*kids)) < 0) {
		rep.r = fd < 0 ? -EINVAL : -ENOMEM;
		return rep;
	}
	pid = fork();
	if (pid == 0)
		worker_main(fd, self, budget);
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
static __attribute__((noreturn)) void spawner_main(int ctl)
{
	sigset_t none;
	int null;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (ctl != SPAWNER_FD && (dup2(ctl, SPAWNER_FD) < 0 || close(ctl) < 0))
		_exit(0);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	dup2(null >= 0 ? null : SPAWNER_FD, 0);
	dup2(null >= 0 ? null : SPAWNER_FD, 1);
	if (close_range(SPAWNER_FD + 1, ~0u, 0) < 0)
		for (int i = SPAWNER_FD + 1; i < 65536; i++)
			close(i);
	warm();
	for (;;) {
		struct sp_req q;
		struct sp_rep rep = { .r = -EINVAL };
		int fd;
		ssize_t k;

		if (!spawner_recv(&q, &fd))
			break;
		if (q.op == SP_START)
			rep = spawner_start_worker(fd, q.budget);
		else if (q.op == SP_REAP && q.pid > 0)
			rep = spawner_reap(q.pid, q.kill_it);
		if (fd >= 0)
			close(fd);
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
		spawner_main(sv[1]);
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

static int spawner_send(const struct sp_req *q, int pass)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u = { 0 };
	struct iovec iov = { (void *)q, sizeof(*q) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t k;

	if (pass >= 0) {
		struct cmsghdr *c;

		mh.msg_control = u.buf;
		mh.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass, sizeof(int));
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
static int spawner_call(const struct sp_req *q, int pass, bool start, struct sp_rep *rep)
{
	struct timespec deadline;
	int r = 0;

	pthread_mutex_lock(&sp.mu);
	if (sp.pid && sp.owner != getpid())
		spawner_end(false);
	if (!sp.pid)
		r = start ? spawner_start() : -ECHILD;
	if (!r)
		r = spawner_send(q, pass);
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
	int r = spawner_call(&q, -1, false, &rep);

	if (r < 0)
		return r;
	*st = rep.status;
	return rep.r;
}

static void worker_stop(struct worker *w, bool kill_it)
{
	int st;

	if (!w->pid)
		return;
	close(w->fd);		/* a healthy worker exits on EOF */
	worker_reap(w->pid, kill_it, &st);
	w->pid = 0;
	w->fd = -1;
	w->aoff = w->alen = 0;	/* its answers are gone with it */
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
			close(w->fd);
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

/* A new worker for @w: the spawner forks it on a socket we give it. */
static int worker_start(struct worker *w, uint64_t budget)
{
	struct sp_req q = { .op = SP_START, .budget = budget };
	struct sp_rep rep;
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	r = spawner_call(&q, sv[1], true, &rep);
	close(sv[1]);
	if (r == 0 && rep.r <= 0)
		r = rep.r < 0 ? rep.r : -EPROTO;
	if (r < 0) {
		close(sv[0]);
		return r;
	}
	/* an answer is waited for in one blocking recvmsg(), for at most the timeout */
	setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_sec = timeout_s },
		   sizeof(struct timeval));
	w->pid = rep.r;
	w->fd = sv[0];
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
 * The requests of @k jobs in one sendmsg() when the socket takes them (a
 * batch is at most BATCH_BYTES: it always does), the rest piece by piece.
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
/* Why the worker ended, as the module's error; the worker is gone afterwards. */
static int worker_failed(struct worker *w, int why, const char *label, struct tg_error *err)
{
	int st = 0;
	/* an answer cut short: the worker is dying, the spawner gives it a moment to end */
	bool got = false;

	close(w->fd);
	got = worker_reap(w->pid, why != -EPIPE, &st) == 0;
	w->pid = 0;
	w->fd = -1;
	w->aoff = w->alen = 0;
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
 * the worker failed on it).  Returns how many jobs ended: after a worker
 * failed on one, the jobs behind it were not read (the caller sends them
 * again, to a new worker).
 */
static size_t exchange(struct job *jobs, size_t k)
{
	struct worker *w = this_worker();
	uint64_t budget = jobs[0].q.lim.max_input_size + 2 * jobs[0].q.lim.max_module_size;
	struct timespec deadline;
	int r;

	if (!w || (!w->abuf && !(w->abuf = malloc(ANSWER_CHUNK)))) {
		jobs[0].r = tg_fail(&jobs[0].err, -ENOMEM, "%s: out of memory", jobs[0].label);
		return 1;
	}
	if (w->pid && w->budget != budget)
		worker_stop(w, false);	/* its memory limit was sized for other limits */
	if (!w->pid && (r = worker_start(w, budget)) < 0) {
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
			return i + 1;
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

	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	for (size_t i = 0; i < n;) {
		size_t k = batch_size(len, label, i, n), done;

		for (size_t j = 0; j < k; j++)
			jobs[j] = (struct job){ .q = { .op = OP_OPEN, .len = len[i + j], .lim = *lim },
						.label = label[i + j] ? label[i + j] : "<memory>",
						.data = data[i + j], .max = lim->max_module_size };
		done = exchange(jobs, k);
		for (size_t j = 0; j < done; j++)
			r[i + j] = job_module(&jobs[j], &out[i + j], &err[i + j]);
		i += done;	/* those a failed worker did not read: again, to a new one */
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

	tg_limits_default(&j.q.lim);
	if (j.q.lim.max_input_size < inlen)
		j.q.lim.max_input_size = inlen;
	if (j.q.lim.max_module_size < cap)
		j.q.lim.max_module_size = cap;
	exchange(&j, 1);
	if (j.r < 0) {
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
