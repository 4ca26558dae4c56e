/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The confined worker (docs/confinement.md): a process forked by the
 * spawner that drops everything it was given, applies a seccomp filter
 * that leaves it reading its socket, writing its answers, managing memory
 * and dying, and then parses the module bytes it is sent: decompression,
 * the ELF reader and the signature's PKCS#7 (module.c, decompress.c).
 * Its answers are read back by the caller as untrusted bytes (confine.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include <gelf.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <seccomp.h>

#include "confine_proto.h"

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

/*
 * Answers wait in out_buf until the worker has served every request it has
 * read (a batch), so that the caller wakes once per batch, not once per
 * module.  A large answer goes at once; held answers go before the next
 * module when a second has passed since the worker last read or wrote
 * (the caller gives each answer its timeout from the one before).
 */
static char out_buf[OUT_HOLD_MAX];
static size_t out_len;
static struct timespec quiet_since;

static bool flush_answers(void)
{
	bool ok = write_full(WORKER_FD, out_buf, out_len);

	out_len = 0;
	clock_gettime(CLOCK_MONOTONIC, &quiet_since);
	return ok;
}

static bool answer(int r, const void *body, size_t len)
{
	struct rep rep = { .r = r, .len = len };
	size_t n = sizeof(rep) + len;

	if (out_len + n > OUT_HOLD_MAX && out_len && !flush_answers())
		return false;
	if (n > OUT_HOLD_MAX)
		return write_full(WORKER_FD, &rep, sizeof(rep)) && write_full(WORKER_FD, body, len);
	memcpy(out_buf + out_len, &rep, sizeof(rep));
	memcpy(out_buf + out_len + sizeof(rep), body, len);
	out_len += n;
	return true;
}

/* Held answers go now if the caller has waited a second. */
static bool flush_if_waited(void)
{
	struct timespec now;

	if (!out_len)
		return true;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - quiet_since.tv_sec) * 1000000000ll + now.tv_nsec - quiet_since.tv_nsec <
	    1000000000ll)
		return true;
	return flush_answers();
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

/*
 * The address space the fork gave us, from /proc (0 when there is none: a
 * chroot).  Unused under ASan, whose shadow memory no limit allows for.
 */
static __attribute__((unused)) uint64_t vm_size(void)
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
void tg_confine_warm(void)
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

/*
 * @fd moved to fd 3 (WORKER_FD, SPAWNER_FD), /dev/null on 0 and 1, every
 * other descriptor above 3 closed; stderr stays (a sanitizer's report).
 * false when @fd cannot be moved.
 */
bool tg_confine_keep_only(int fd)
{
	int null;

	if (fd != WORKER_FD && (dup2(fd, WORKER_FD) < 0 || close(fd) < 0))
		return false;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	dup2(null >= 0 ? null : WORKER_FD, 0);
	dup2(null >= 0 ? null : WORKER_FD, 1);
	if (close_range(WORKER_FD + 1, ~0u, 0) < 0)
		for (int i = WORKER_FD + 1; i < 65536; i++)
			close(i);
	return true;
}

/* The memory the caller shares with us, read-only: where requests' bytes are. */
static const char *shm_base;
static size_t shm_len;

/* @shm mapped (read-only) and closed; without it every request brings its bytes in the socket. */
static void map_shared(int shm)
{
	struct stat st;
	void *p;

	if (shm < 0)
		return;
	if (fstat(shm, &st) == 0 && st.st_size > 0 && (uint64_t)st.st_size <= SHM_SIZE) {
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, shm, 0);
		if (p != MAP_FAILED) {
			shm_base = p;
			shm_len = (size_t)st.st_size;
		}
	}
	close(shm);
}

/* The worker, before the filter: its socket at WORKER_FD and nothing else open, its limits. */
static void prepare(int fd, int shm, uint64_t budget)
{
	struct rlimit no_core = { 0, 0 };

	/* first: its address space counts in the limit below, and fd 3 may be its number */
	map_shared(shm);
	/* nothing of the parent's (an rpm database, a record being written) stays reachable */
	if (!tg_confine_keep_only(fd))
		_exit(EXIT_NOCONFINE);
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

	/* about to wait for the caller: it gets the answers it is waiting for first */
	if (out_len && !flush_answers())
		return false;

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
	clock_gettime(CLOCK_MONOTONIC, &quiet_since);
	return true;
}

/*
 * Requests are read with as few system calls as it takes (each is a kernel
 * entry, the dearest part of a request on a virtual machine): what the
 * socket holds, a whole batch of small modules mostly, in one read() into
 * a buffer kept for the next; served one after the other.
 */
void tg_confine_worker_main(int fd, int shm, pid_t parent, uint64_t budget)
{
	char *buf = NULL;
	size_t cap = 0, have = 0, off = 0;
	char label[TG_CONFINE_LABEL_MAX + 1];

	/* dies with the spawner (which ends with the caller) */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(0);
	prepare(fd, shm, budget);
	for (;;) {
		struct req q;
		size_t need;
		const char *data;

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
		need = REQ_SIZE(q.label_len, q.shm_off == IN_SOCKET ? q.len : 0);
		if (have - off < need) {
			memmove(buf, buf + off, have - off);
			have -= off;
			off = 0;
			if (!read_more(&buf, &cap, &have, need - have))
				_exit(0);
		}
		if (!flush_if_waited())
			_exit(0);
		memcpy(label, buf + off + sizeof(q), q.label_len);
		label[q.label_len] = '\0';
		data = buf + off + sizeof(q) + LABEL_PAD(q.label_len);
		if (q.shm_off != IN_SOCKET) {
			if (!shm_base || q.shm_off > shm_len || q.len > shm_len - q.shm_off || q.shm_off % 8)
				_exit(0);
			data = shm_base + q.shm_off;
		}
		serve_one(&q, label, data);
		off += need;
	}
}
