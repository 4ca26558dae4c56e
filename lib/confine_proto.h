/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the confined parser's three parts share (docs/confinement.md): the
 * caller (confine.c), the spawner that forks workers (confine_spawner.c)
 * and the worker (confine_worker.c): the messages between them and their
 * sizes.  Not installed.
 */
#ifndef TG_CONFINE_PROTO_H
#define TG_CONFINE_PROTO_H

#include <stdint.h>
#include <sys/types.h>

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
/*
 * The module's bytes travel in memory the caller shares with its worker
 * (a memfd the worker maps read-only before its filter), so that a
 * request through the socket is its head and label only: a copy into
 * the kernel and out again per module saved.  Bytes that do not fit go
 * through the socket behind their label, as without the shared memory.
 */
#define SHM_SIZE (4u << 20)
/* struct req's shm_off when the bytes follow the label in the socket */
#define IN_SOCKET UINT64_MAX
/* Small modules go to the worker in batches: this many at most, of at most so many bytes. */
#define BATCH_MAX TG_MODULE_BATCH_MAX
#define BATCH_BYTES TG_MODULE_BATCH_BYTES
/*
 * Bytes of a batch that go through the socket, at most (those the shared
 * memory does not hold): the caller sends a whole batch before it reads an
 * answer, so a batch larger than the socket's buffers could leave it
 * waiting to send while the worker waits to answer.
 */
#define SOCKET_BATCH_BYTES (96u << 10)
/* What a worker reads, and the caller receives, at once: a typical request or answer. */
#define READ_CHUNK (256u << 10)
#define ANSWER_CHUNK (64u << 10)
/* Answers a worker holds back to send with the rest of its batch, at most. */
#define OUT_HOLD_MAX (64u << 10)
/* The spawner's end of its control socket. */
#define SPAWNER_FD 3
/* How long a worker that lost its socket may take to exit before it is killed. */
#define REAP_GRACE_MS 1000
/* Address space a worker may add to what the fork gave it, beyond its inputs. */
#define AS_SLACK (128ull << 20)

struct req {
	uint32_t magic, op, kind, label_len;
	uint64_t len, cap;
	uint64_t shm_off;	/* where the bytes are in the shared memory, or IN_SOCKET */
	struct tg_limits lim;
};

/* the module's bytes follow it (and the padded label): aligned for the ELF reader */
_Static_assert(sizeof(struct req) % 8 == 0, "struct req keeps what follows it aligned");

struct rep {
	int32_t r;
	uint32_t pad;
	uint64_t len;		/* facts, the decompressed bytes, or the message */
};

/* To the spawner: start a worker on the attached socket (and shared memory), or reap one. */
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

/* WORKER_FD and SPAWNER_FD are one place: what both keep of the caller's descriptors. */
_Static_assert(WORKER_FD == SPAWNER_FD, "tg_confine_keep_only() serves both");
bool tg_confine_keep_only(int fd);
/* The worker: serves requests on @fd (module bytes in @shm's memory, -1: none) until EOF; never returns. */
__attribute__((noreturn)) void tg_confine_worker_main(int fd, int shm, pid_t parent, uint64_t budget);
/* What every worker needs of a file (OpenSSL's configuration and digests): loaded once, in the spawner. */
void tg_confine_warm(void);
/* The spawner: forks workers and reaps them for the caller at @ctl until EOF; never returns. */
__attribute__((noreturn)) void tg_confine_spawner_main(int ctl);

#endif
