/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtaintguard — predict what the Linux kernel's module loader does with a
 * kernel module (taint flags, refusal and why) and what a policy says about it.
 *
 * Conventions (as in kmod and elfutils): functions that can fail return 0 or
 * a negative errno and, when given a struct tg_error, fill it with a message
 * that names the input and the cause.  Objects are created by *_open, *_load,
 * *_new and released by the matching *_free, which accept NULL.
 *
 * The library knows nothing of rpm or dkms; front ends call it.
 *
 * Threads: the library keeps no global state but a process-wide built-in
 * policy (built once, thread-safely) and libelf's version setting.  Objects
 * may be used from any thread, one thread at a time for an object that is
 * being changed; objects that are only read (a module once opened, a kernel
 * once loaded, a policy once loaded, a context once configured) may be
 * shared by any number of threads.  tg_ctx_kernel() may be called from
 * several threads at once.  tg_set_predict() and tg_parallel() start
 * threads of their own and join them before they return.
 *
 * ABI: libtaintguard.so.0 exports the functions declared here, under the
 * version node TAINTGUARD_0.1, and nothing else.  Structs whose fields are
 * shown here are part of the ABI; the others are opaque.
 */
#ifndef TAINTGUARD_H
#define TAINTGUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * What libtaintguard.so exports is what this header declares: the library
 * is built with hidden visibility, this header makes its declarations
 * visible, and a version script (lib/libtaintguard.map) names the ABI.
 */
#pragma GCC visibility push(default)

#define TG_VERSION_STRING "0.1.0"

/* ------------------------------------------------------------------ errors */

#define TG_ERRMAX 512
struct tg_error {
	int code;		/* negative errno, 0 when no error */
	char msg[TG_ERRMAX];	/* "FILE: what went wrong" */
};

/* ------------------------------------------------------------------ limits */

/*
 * Untrusted input is the normal case.  Every resource a reader may consume is
 * capped; exceeding a cap is an error (-EFBIG / -E2BIG), never truncation.
 */
struct tg_limits {
	uint64_t max_input_size;	/* bytes read from a file/fd */
	uint64_t max_module_size;	/* decompressed module image */
	uint32_t max_sections;		/* ELF section headers */
	uint32_t max_symbols;		/* .symtab entries */
	uint32_t max_modinfo;		/* .modinfo entries */
	uint64_t max_symvers_size;	/* decompressed Module.symvers */
	uint64_t max_policy_size;	/* policy YAML bytes */
	uint32_t max_policy_depth;	/* YAML nesting */
	uint64_t max_kernel_image_size;	/* decompressed kernel image read for its certificates */
};
void tg_limits_default(struct tg_limits *lim);
/*
 * Module bytes are parsed by confined worker processes (docs/confinement.md),
 * forked by a spawner process.  tg_reader_init() starts it now: call it
 * once early, while the program has a single thread, so that the spawner
 * holds no lock another thread took.  The first module read starts it
 * otherwise.  0, or -errno when it cannot be started (reads then fail as
 * unreadable).  Nothing with TG_CONFINE=off.
 */
int tg_reader_init(void);
/*
 * Start the calling thread's confined parser now, for modules read later
 * under @lim (NULL: the defaults): a thread that will read modules calls it
 * while another thread still gathers their bytes, so that the parser's start
 * does not wait for them.  0, or -errno (the first read then says why).
 * Nothing with TG_CONFINE=off.
 */
int tg_reader_warm(const struct tg_limits *lim);
/*
 * Set one limit from "NAME=VALUE" (names: input-size, module-size,
 * sections, symbols, modinfo, symvers-size, policy-size, policy-depth,
 * kernel-image-size;
 * VALUE a positive number, sizes with an optional K, M or G suffix).
 * -EINVAL with a message naming the assignment otherwise.
 */
int tg_limits_set(struct tg_limits *lim, const char *assignment, struct tg_error *err);
/* "4096", "64K", "256M", "1G" -> bytes; -EINVAL for anything else. */
int tg_parse_size(const char *s, uint64_t *out);

/* ------------------------------------------------------------ decompress */

enum tg_compression {
	TG_COMP_NONE = 0,
	TG_COMP_XZ,
	TG_COMP_ZSTD,
	TG_COMP_GZIP,
};
const char *tg_compression_name(enum tg_compression c);
/* Detects by magic bytes (never by file name). */
enum tg_compression tg_compression_detect(const void *data, size_t len);
/*
 * Decompress @in into a freshly malloc'ed buffer of at most @cap bytes.
 * TG_COMP_NONE copies.  Past @cap: -EFBIG.  Corrupt stream: -EBADMSG.
 */
int tg_decompress(enum tg_compression kind, const void *in, size_t inlen,
		  uint64_t cap, void **out, size_t *outlen, const char *label,
		  struct tg_error *err);

/* --------------------------------------------------------------- module */

struct tg_modinfo {
	char *key;
	char *value;
	/*
	 * Text that follows this entry but is not itself "key=value", e.g. the
	 * driverloader trick MODULE_LICENSE("GPL\0for files in ...") where the
	 * kernel reads "GPL" and the rest is a stray string.  NULL when none.
	 */
	char *trailing;
};

struct tg_import {
	char *name;
	bool weak;		/* STB_WEAK: a missing weak symbol does not fail the load */
	bool common;		/* SHN_COMMON: the kernel refuses these */
};

struct tg_version {		/* one __versions (or extended) record */
	char *name;
	uint32_t crc;
};

struct tg_export {
	char *name;
	bool gpl_only;		/* __ksymtab_gpl* (or the kflagstab GPL bit) */
	char *ns;		/* namespace, NULL when none */
	bool has_crc;
	uint32_t crc;
};

enum tg_versions_kind {
	TG_VERS_NONE = 0,	/* no (SHF_ALLOC) __versions section */
	TG_VERS_BASIC,		/* __versions: 64-byte (or 64-byte on 32-bit: 4+60) records */
	TG_VERS_EXTENDED,	/* __version_ext_crcs + __version_ext_names (6.14+) */
};

/* struct module_signature id_type of the only kind the kernel verifies (PKEY_ID_PKCS7) */
#define TG_SIG_ID_PKCS7 2

struct tg_signature {
	bool present;		/* "~Module signature appended~\n" at the end */
	bool malformed;		/* trailer present but the kernel would reject it (-EBADMSG) */
	uint8_t algo, hash, id_type, signer_len, key_id_len;	/* id_type: TG_SIG_ID_PKCS7 */
	uint32_t sig_len;
	char *signer;		/* issuer CN from the PKCS#7, NULL if unreadable or named by key id */
	char *key_id;		/* issuer serial (or subjectKeyIdentifier) as "AA:BB:..", NULL if unreadable */
	char *hash_algo;	/* e.g. "sha256", NULL if unreadable */
};

struct tg_module {
	char *label;		/* path or caller-supplied label */
	char *file_modname;	/* basename without .ko*, '-' -> '_' (NULL for memory) */
	enum tg_compression compression;
	size_t file_size;	/* bytes as given */
	size_t image_size;	/* bytes after decompression */

	int elf_class;		/* 32 or 64 */
	bool big_endian;
	unsigned e_machine;
	const char *arch;	/* "x86_64", "aarch64", "ppc64le", "s390x", ... */

	char *name;		/* struct module .name in .gnu.linkonce.this_module */
	size_t this_module_size; /* 0 when the section is missing */
	/* sections of these names/types; more than one is refused by 6.4+ loaders only */
	size_t n_this_module_sections, n_modinfo_sections, n_symtab_sections;
	/* the section-name table (e_shstrndx) / the symbol table's string table
	 * (its sh_link) is not typed SHT_STRTAB: refused by 7.2+ loaders only */
	bool shstrtab_untyped, strtab_untyped;

	struct tg_modinfo *modinfo;
	size_t n_modinfo;

	struct tg_import *imports;	/* undefined GLOBAL/WEAK symbols, .symtab order */
	size_t n_imports;

	enum tg_versions_kind versions_kind;
	struct tg_version *versions;	/* file order (the kernel's check_version() order) */
	size_t n_versions;

	struct tg_export *exports;
	size_t n_exports;
	bool exports_have_crcs;	/* __kcrctab* present for the exports */

	struct tg_signature sig;

	/*
	 * Structural problems the kernel's elf_validity checks reject with
	 * -ENOEXEC ("module has no symbols (stripped?)", duplicate .modinfo,
	 * ...).  A module with problems was still read as far as possible.
	 */
	char **problems;
	size_t n_problems;

};

/*
 * Is @path's last component a kernel module file name (.ko, .ko.xz, .ko.zst,
 * .ko.gz after a non-empty stem)?  Content is not looked at.
 */
bool tg_module_file_name(const char *path);
/* The module name kmod derives from a file name ("lve-x.ko.xz" -> "lve_x"), malloc'ed; NULL if none. */
char *tg_module_name_from_file(const char *path);

/*
 * The bytes are decompressed and parsed by a confined worker process
 * (seccomp: no files, no exec, no network), as are tg_decompress()'s;
 * TG_CONFINE=off in the environment parses in the calling process instead
 * (docs/confinement.md).  -ECHILD: the worker died, made a forbidden system
 * call or overran its time or memory; the module is hostile or broken,
 * unreadable, never to be taken as clean.
 */
int tg_module_open_path(const char *path, const struct tg_limits *lim,
			struct tg_module **out, struct tg_error *err);
/* Reads @fd from its current offset to EOF; does not close it. */
int tg_module_open_fd(int fd, const char *label, const struct tg_limits *lim,
		      struct tg_module **out, struct tg_error *err);
int tg_module_open_mem(const void *data, size_t len, const char *label,
		       const struct tg_limits *lim, struct tg_module **out,
		       struct tg_error *err);
/*
 * @n modules from memory at once: what n tg_module_open_mem() calls give
 * (r[i], out[i], err[i] for each), with fewer round trips to the confined
 * parser: small modules go to it in batches.  @err may be NULL, as for
 * tg_module_open_mem(): no messages.  Returns 0.
 */
int tg_module_open_mem_many(size_t n, const void *const *data, const size_t *len,
			    const char *const *label, const struct tg_limits *lim,
			    struct tg_module **out, struct tg_error *err, int *r);
/*
 * What tg_module_open_mem_many() sends to its confined parser in one round
 * trip: modules of at most this many bytes together, this many at most.  A
 * caller that gathers modules for it gathers as many.
 */
#define TG_MODULE_BATCH_MAX 16
#define TG_MODULE_BATCH_BYTES (512u << 10)
void tg_module_free(struct tg_module *m);
/* First value of @key in .modinfo byte order (what the kernel's get_modinfo returns). */
const char *tg_module_get(const struct tg_module *m, const char *key);
/* true if an entry "key=..." exists (value irrelevant, as in the kernel) */
bool tg_module_has(const struct tg_module *m, const char *key);
/* CRC recorded for @sym in the module's version table; false if absent. */
bool tg_module_version_crc(const struct tg_module *m, const char *sym, uint32_t *crc);
/*
 * A module's facts (every field above: all a prediction reads) as bytes,
 * malloc'ed into *@out, and back: a module read back predicts exactly as the
 * one written.  For caches of package reading (taintguard audit --cache).
 * The reader takes untrusted bytes: a versioned record, every count within
 * @lim (NULL: defaults) and within the record, nothing left over; anything
 * else is -EBADMSG.  Write: 0 or -ENOMEM.
 */
int tg_module_facts_write(const struct tg_module *m, void **out, size_t *len);
int tg_module_facts_read(const void *data, size_t len, const struct tg_limits *lim,
			 struct tg_module **out, struct tg_error *err);

/* -------------------------------------------------------------- symvers */

enum tg_export_type {
	TG_EXPORT_PLAIN = 0,	/* EXPORT_SYMBOL */
	TG_EXPORT_GPL,		/* EXPORT_SYMBOL_GPL */
	TG_EXPORT_GPL_FUTURE,	/* <= 5.11, behaves as plain */
	TG_EXPORT_UNUSED,	/* <= 5.11, plain */
	TG_EXPORT_UNUSED_GPL,	/* <= 5.11, GPL-only */
	TG_EXPORT_UNKNOWN,	/* 3-column dumps: GPL-ness not recorded */
};

struct tg_ksym {
	const char *name;
	const char *owner;	/* "vmlinux" or module path without .ko */
	const char *ns;		/* NULL when none */
	uint32_t crc;
	enum tg_export_type type;
};

struct tg_symvers;
/* Plain, .gz, .xz or .zst (detected by magic). */
int tg_symvers_load_path(const char *path, const struct tg_limits *lim,
			 struct tg_symvers **out, struct tg_error *err);
int tg_symvers_load_mem(const void *data, size_t len, const char *label,
			const struct tg_limits *lim, struct tg_symvers **out,
			struct tg_error *err);
void tg_symvers_free(struct tg_symvers *sv);
const struct tg_ksym *tg_symvers_lookup(const struct tg_symvers *sv, const char *name);
size_t tg_symvers_count(const struct tg_symvers *sv);
/* The most tab-separated columns a line had: 5 with namespaces (5.4+), 4 or 3 before. */
unsigned tg_symvers_columns(const struct tg_symvers *sv);
bool tg_export_type_is_gpl(enum tg_export_type t);
const char *tg_export_type_name(enum tg_export_type t);

/* -------------------------------------------------------- target kernel */

enum { TG_NO = 0, TG_YES = 1, TG_UNKNOWN = -1 };

#define TG_KVER(a, b, c) (((unsigned)(a) << 16) | ((unsigned)(b) << 8) | (unsigned)(c))

/* What we know about the kernel a module is judged against. */
struct tg_kernel {
	char *release;		/* "6.1.0-57-amd64", NULL when unknown */
	unsigned version;	/* TG_KVER(6,1,0); 0 when unknown */

	struct tg_symvers *symvers;	/* NULL: no export table found */
	char *symvers_path;

	char *config_path;	/* /boot/config-R or build/.config, NULL if none */
	int modversions, module_sig, sig_force, force_load, allow_missing_ns,
	    livepatch, retpoline;	/* TG_YES / TG_NO / TG_UNKNOWN */

	char *vermagic;		/* the kernel's VERMAGIC_STRING, NULL if unknown */
	char *vermagic_source;	/* where it came from (in-tree module or .config) */
	size_t this_module_size;	/* sizeof(struct module), 0 if unknown */

	/*
	 * Module signing identities ("issuer/serial") of the in-tree modules:
	 * used only when the kernel's own keys (below) cannot be read, and then
	 * the verdict says the signature was not verified.
	 */
	char **trusted_keys;
	size_t n_trusted_keys;
	char *trusted_keys_source;

	/*
	 * The kernel image whose built-in certificates are the keys module
	 * signatures are verified with (with System.map when it has the
	 * symbols), read on first use: see tg_kernel_keyring().  NULL when no
	 * image was found; signed modules are then "not verified", never clean.
	 */
	char *image_path;
	char *sysmap_path;
	/*
	 * The image's keyring, read lazily.  A caller that has the image from
	 * elsewhere (a kernel package's payload) may put a keyring of
	 * tg_keyring_load_image_mem() here instead; tg_kernel_free() frees it.
	 */
	struct tg_keyring *keyring;

	/*
	 * Module compressions the target system can load, as bits
	 * (1u << TG_COMP_*): the in-kernel decompressor (CONFIG_MODULE_DECOMPRESS)
	 * plus the formats the system's kmod links.  Anything else reaches the
	 * kernel compressed and is refused as an invalid ELF.  0 when unknown
	 * (every format assumed loadable).
	 */
	unsigned loadable_compressions;
	char *loadable_compressions_source;

	/*
	 * The ELF machine (EM_*) of the kernel's architecture, from its .config
	 * (CONFIG_X86_64, CONFIG_ARM64, ...): the loader refuses a module built
	 * for another one.  0 when unknown (not checked).
	 */
	unsigned e_machine;

	/*
	 * What went wrong while gathering, without failing the load: a found
	 * Module.symvers that did not parse, an unreadable .config, ...
	 */
	char **notes;
	size_t n_notes;

	/* the in-tree module this_module_size was read from */
	char *this_module_size_source;
	/* .config: vendors' switches (TG_YES / TG_NO / TG_UNKNOWN), loader_facts */
	int platform_keyring, rhel_differences, suse_supported;
	/* RHEL's platform keys and kABI stablelist (vendor_rhel.c), NULL: none */
	struct tg_rhel *rhel;
	/* SUSE: the root's kernel.unsupported and allow_unsupported_modules (opaque) */
	struct tg_suse_root *suse;
	/*
	 * The kernel's byte order, from its .config: ELFDATA2LSB (1) or
	 * ELFDATA2MSB (2); the loader reads a module's ELF header in it and
	 * refuses one of the other order.  0 when unknown (not checked).
	 */
	unsigned elf_data;
};

struct tg_kernel_opts {
	const char *root;		/* filesystem root to search ("/" or NULL) */
	const char *release;		/* required unless symvers_path is given */
	const char *symvers_path;	/* explicit Module.symvers, overrides the search */
	const char *config_path;	/* explicit kernel .config */
	const struct tg_limits *limits;
	/*
	 * A kernel .config in memory (e.g. from a kernel-devel package being
	 * installed), used instead of searching; config_label names it.
	 */
	const void *config_data;
	size_t config_len;
	const char *config_label;
	/*
	 * Explicit kernel image (vmlinuz) and System.map to read the built-in
	 * certificates from, instead of searching ROOT/boot/vmlinuz-R,
	 * ROOT/usr/lib/modules/R/vmlinuz, ROOT/lib/modules/R/vmlinuz.
	 */
	const char *image_path;
	const char *sysmap_path;
};

/*
 * Gather the target kernel's facts.  Missing pieces are not errors (they
 * become "unknown" in verdicts); only an explicitly named file that cannot be
 * read is.
 */
int tg_kernel_load(const struct tg_kernel_opts *opts, struct tg_kernel **out,
		   struct tg_error *err);
void tg_kernel_free(struct tg_kernel *k);

/*
 * What the kernel's module loader does, each fact read from one of its files
 * (the decompressed image's loader messages, System.map, .config, the export
 * list, an in-tree module) or, where none answers, assumed from the release
 * (docs/loader-rules.md).  Reads the image when it was not read yet.
 */
struct tg_kernel_fact {
	const char *name;	/* "test-module-taint", "struct-module-size", ... */
	char value[24];		/* "yes", "no", "unknown", or a size */
	const char *source;	/* "image", "System.map", ".config", "export list",
				 * "in-tree module", "release", "none" */
	char *evidence;		/* what was looked for, where, and what was found */
};
int tg_kernel_facts(const struct tg_kernel *k, struct tg_kernel_fact **out, size_t *n,
		    struct tg_error *err);
void tg_kernel_facts_free(struct tg_kernel_fact *f, size_t n);
/* "6.1.0-57-amd64" -> TG_KVER(6,1,0); 0 if not a kernel release. */
unsigned tg_kernel_version_parse(const char *release);
/* KVER from ".../lib/modules/KVER/..." or ".../usr/lib/modules/KVER/...". */
int tg_kernel_release_from_path(const char *path, char *buf, size_t len);
/*
 * Is @path (inside a root or a package) one of the places a kernel's .config
 * is kept (/boot/config-R, /usr/src/kernels/R/.config, /lib/modules/R/config,
 * ...)?  Then the release goes to @buf and the place's rank in the search
 * order is returned (0 = searched first); else -ENOENT.
 */
int tg_kernel_config_place(const char *path, char *buf, size_t len);
/* The same for a kernel's export table (Module.symvers, symvers.gz, ...). */
int tg_kernel_symvers_place(const char *path, char *buf, size_t len);
/*
 * Is @path inside a kernel package's own module tree
 * ((/usr)/lib/modules/KVER/kernel/...), rather than extra/, updates/, /opt ...?
 */
bool tg_kernel_path_in_tree(const char *path);
/* KVER from a vermagic string (its first word). */
int tg_kernel_release_from_vermagic(const char *vermagic, char *buf, size_t len);
/*
 * Host path of @path (absolute) inside the directory tree @root, every
 * symlink resolved against the root, never the host: an absolute link
 * /lib/modules/KVER/build -> /usr/src/kernels/KVER below an rpm --root stays
 * below it, and ".." never leaves it.  @root NULL or "" is the host (the
 * path is returned as the host resolves it: a plain copy).  Missing
 * components are kept (a later stat() fails).  malloc'ed; NULL with errno
 * ENOMEM, ELOOP (a link loop inside the root) or ENAMETOOLONG (longer than
 * PATH_MAX).
 */
char *tg_root_resolve(const char *root, const char *path);
/* Search order for Module.symvers of @release under @root; path of the first found. */
int tg_kernel_find_symvers(const char *root, const char *release, char *buf, size_t len);

/* -------------------------------------------------------------- context */

/*
 * A judging context: what every judgement of one front end shares — resource
 * limits, the number of threads, the policy, the root directory of the
 * target system — and the kernels met so far, each release gathered once.
 *
 * Defaults: tg_limits_default(), tg_default_jobs() threads, the built-in
 * policy, the host's root, kernels gathered by tg_kernel_load() below the
 * root.  Configure a context from one thread before sharing it; then
 * tg_ctx_kernel() and the getters may be called from any thread.
 */
struct tg_ctx;
struct tg_policy;
/* 0 or -ENOMEM. */
int tg_ctx_new(struct tg_ctx **out);
/* Frees the policy it was given and every kernel it gathered. */
void tg_ctx_free(struct tg_ctx *ctx);
/* The limits, to read or change before use. */
struct tg_limits *tg_ctx_limits(struct tg_ctx *ctx);
void tg_ctx_set_jobs(struct tg_ctx *ctx, unsigned jobs);
unsigned tg_ctx_jobs(const struct tg_ctx *ctx);
/* The target system's root directory; NULL or "/" is the host.  0 or -ENOMEM. */
int tg_ctx_set_root(struct tg_ctx *ctx, const char *root);
const char *tg_ctx_root(const struct tg_ctx *ctx);
/* Judge with @p (the context frees it); NULL: the built-in policy. */
void tg_ctx_set_policy(struct tg_ctx *ctx, struct tg_policy *p);
/* Never NULL but when out of memory: the policy given, or the built-in one. */
const struct tg_policy *tg_ctx_policy(const struct tg_ctx *ctx);
/*
 * Explicit Module.symvers and .config files for every kernel the default
 * gathering loads (e.g. --symvers, --config); NULL: search below the root.
 * With a Module.symvers, an unknown release (NULL) gets a kernel too.
 */
int tg_ctx_set_kernel_files(struct tg_ctx *ctx, const char *symvers_path,
			    const char *config_path);
/*
 * The default gathering: tg_kernel_load() below the context's root, with its
 * limits and kernel files.  *@out NULL (and 0) for a NULL release without a
 * Module.symvers.  Custom loaders call it and add their own facts.
 */
int tg_ctx_load_kernel(const struct tg_ctx *ctx, const char *release, struct tg_kernel **out,
		       struct tg_error *err);
/*
 * A front end's own gathering (called at most once per release, under the
 * context's lock): fill *@out (NULL allowed: unknown) or fail with a
 * negative errno and @err.
 */
typedef int (*tg_kernel_loader_fn)(void *data, const char *release, struct tg_kernel **out,
				   struct tg_error *err);
void tg_ctx_set_kernel_loader(struct tg_ctx *ctx, tg_kernel_loader_fn fn, void *data);
/*
 * The kernel of @release (NULL: unknown release), gathered on first use and
 * kept for the context's life.  0 with *@out NULL when nothing is known; a
 * failed gathering fails again on every call with the same message.
 */
int tg_ctx_kernel(struct tg_ctx *ctx, const char *release, const struct tg_kernel **out,
		  struct tg_error *err);
/*
 * Drop every kernel gathered so far (a new rpm transaction: another root,
 * other packages).  No kernel returned before may be in use.
 */
void tg_ctx_forget_kernels(struct tg_ctx *ctx);

/* -------------------------------------------------------------- keyrings */

/*
 * Certificates a kernel verifies module signatures with: those built into
 * its image (the builtin trusted keyring), or certificate files (an enrolled
 * MOK).  Only RSA and EC keys are taken, and a self-signed certificate only
 * if its own signature verifies, as the kernel's x509 key type does.
 */
struct tg_keyring;

struct tg_cert_info {
	const char *name;	/* subject CN */
	const char *serial;	/* "5E:E1:13:..." */
	const char *id;		/* "ISSUER CN/SERIAL", as modinfo shows signer/sig_key */
};

int tg_keyring_new(struct tg_keyring **out);
/* PEM (one or more certificates) or DER (one, or several back to back). */
int tg_keyring_add_file(struct tg_keyring *kr, const char *path, const struct tg_limits *lim,
			struct tg_error *err);
int tg_keyring_add_mem(struct tg_keyring *kr, const void *data, size_t len, const char *label,
		       struct tg_error *err);
/*
 * The certificates built into the kernel image at @image (bzImage, EFI
 * zboot, gzip/xz/zstd/lzma/lz4-compressed or plain ELF vmlinux or arm64
 * Image).  @sysmap (may be NULL) is a System.map: when it has the symbols,
 * only the image up to the list is decompressed.  -EFBIG past
 * max_kernel_image_size; -ENOENT/-ENOTUNIQ when the list cannot be found.
 */
int tg_keyring_load_image(const char *image, const char *sysmap, const struct tg_limits *lim,
			  struct tg_keyring **out, struct tg_error *err);
/* The same for an image in memory (e.g. from a kernel package's payload); @sysmap may be NULL. */
int tg_keyring_load_image_mem(const void *data, size_t len, const char *label, const char *sysmap,
			      size_t maplen, const struct tg_limits *lim, struct tg_keyring **out,
			      struct tg_error *err);
void tg_keyring_free(struct tg_keyring *kr);
size_t tg_keyring_count(const struct tg_keyring *kr);
int tg_keyring_cert(const struct tg_keyring *kr, size_t i, struct tg_cert_info *info);
/* Where the certificates came from (file names; for an image, how the list was found). */
const char *tg_keyring_source(const struct tg_keyring *kr);
/* Certificates that were there but that the kernel would not load, and why. */
size_t tg_keyring_skipped(const struct tg_keyring *kr, const char *const **why);
/*
 * The target kernel's keyring, read from k->image_path on the first call
 * (thread-safe; later calls, from any thread, get the same keyring or the
 * same error).  -ENOENT when no image was found.
 */
int tg_kernel_keyring(const struct tg_kernel *k, const struct tg_keyring **out,
		      struct tg_error *err);

/* --------------------------------------------------------------- policy */

enum tg_action {
	TG_ACTION_ALLOW = 0,
	TG_ACTION_MARK,
	TG_ACTION_DENY,
};
const char *tg_action_name(enum tg_action a);

struct tg_forced_taint {
	const char *name;	/* struct module name, exact */
	char flag;		/* 'P' */
	bool module_scope;	/* add_taint_module (module loses GPL-only) vs add_taint */
	const char *reason;	/* the kernel's own comment */
	const char *kernels;	/* version range text, e.g. ">= 3.5" */
	bool advisory;		/* listed for history; not kernel behaviour */
};

/* Predicted facts the rules look at. */
struct tg_facts {
	const char *package;	/* rpm name or dkms module, NULL for plain files */
	const char *module;	/* kernel module name */
	unsigned kversion;	/* target kernel, 0 unknown */
	bool error;		/* could not be read */
	bool refused;		/* the kernel would refuse to load it */
	bool forced_taint;	/* name on the kernel's forced-taint list */
	bool advisory;		/* name on an advisory list */
	bool incomplete;	/* something could not be checked (no symvers, ...) */
	unsigned taint;		/* TG_TAINT_* bits the load adds (kernel-wide) */
	bool modprobe_refused;	/* modprobe would refuse it (SUSE's allow_unsupported_modules 0) */
};

struct tg_decision {
	enum tg_action action;
	const char *rule;		/* name of the rule or exception that decided */
	const char *justification;	/* exception's justification, or NULL */
};

int tg_policy_load_path(const char *path, const struct tg_limits *lim,
			struct tg_policy **out, struct tg_error *err);
int tg_policy_load_mem(const void *data, size_t len, const char *label,
		       const struct tg_limits *lim, struct tg_policy **out,
		       struct tg_error *err);
void tg_policy_free(struct tg_policy *p);
/* Exact, case-sensitive match against the strings valid for @kversion. */
bool tg_policy_license_gpl_compatible(const struct tg_policy *p, unsigned kversion,
				      const char *license);
/* Forced-taint entry for @name on @kversion (advisory ones included), or NULL. */
const struct tg_forced_taint *tg_policy_forced_taint(const struct tg_policy *p,
						     unsigned kversion,
						     const char *name);
/*
 * Trusted signing identities listed in the policy ("issuer/serial").  They
 * name a key without proving anything: a module whose signature claims one
 * of them is never judged clean unless a certificate verifies it.
 */
size_t tg_policy_trusted_keys(const struct tg_policy *p, const char *const **keys);
/*
 * Certificates the policy names (trusted_certificates:) as trusted by the
 * target kernel besides its built-in keys, e.g. an enrolled MOK; NULL if none.
 */
const struct tg_keyring *tg_policy_trusted_certificates(const struct tg_policy *p);
void tg_policy_decide(const struct tg_policy *p, const struct tg_facts *f,
		      struct tg_decision *d);
/*
 * A file that decides whether taintguard runs at all (an rpm macro file that
 * switches the plugin off, a DKMS framework file replacing its sign_file, a
 * file in taintguard's own directories ...), shipped by @package (rpm name or
 * DKMS module; NULL when unknown), at @path: the first exception with a
 * "file:" glob matching @path (and its "package:" glob, if any, matching
 * @package), else the policy's guard action (rule "guard").  Exceptions
 * without "file:" never apply: they are for modules.
 */
void tg_policy_decide_file(const struct tg_policy *p, const char *package, const char *path,
			   struct tg_decision *d);
/*
 * What one refusal takes with it in a package manager's transaction
 * ("refuse_scope:"): the refused package and the packages that need it
 * (TG_SCOPE_PACKAGE, the default), or the whole transaction
 * (TG_SCOPE_TRANSACTION, all or nothing).
 */
enum tg_refuse_scope {
	TG_SCOPE_PACKAGE = 0,
	TG_SCOPE_TRANSACTION,
};
enum tg_refuse_scope tg_policy_refuse_scope(const struct tg_policy *p);
const char *tg_refuse_scope_name(enum tg_refuse_scope s);
/* Print the effective policy as YAML. */
int tg_policy_dump(const struct tg_policy *p, FILE *out);
const char *tg_policy_source(const struct tg_policy *p);
/* Where the default policy is installed. */
const char *tg_policy_default_path(void);
/*
 * The built-in policy (the default policy compiled in): what a front end
 * judges with when no policy is installed, or when the configured one cannot
 * be loaded.  Owned by the library for the life of the process;
 * tg_policy_free() ignores it.  A NULL policy passed to any function of this
 * library means this object.  NULL only when out of memory.
 */
const struct tg_policy *tg_policy_builtin(void);

/*
 * Enumerate the policy's mirror of the kernel for @kversion: forced-taint
 * entries (advisory ones excluded) and GPL-compatible license strings.
 * Return the count; fill at most @max.
 */
size_t tg_policy_forced_taint_list(const struct tg_policy *p, unsigned kversion,
				   const struct tg_forced_taint **out, size_t max);
size_t tg_policy_license_list(const struct tg_policy *p, unsigned kversion,
			      const char **out, size_t max);

/* ------------------------------------------------- kernel source (policy sync) */

struct tg_kernel_source_taint {
	char *name;
	bool module_scope;	/* add_taint_module(): the module loses GPL-only symbols */
	char *reason;		/* the kernel's comment, NULL if none */
};

/* The loader's policy as written in a kernel source tree. */
struct tg_kernel_source {
	unsigned version;		/* from the top Makefile, 0 unknown */
	char *loader_file;		/* "kernel/module/main.c" or "kernel/module.c" */
	struct tg_kernel_source_taint *forced;
	size_t n_forced;
	char **licenses;		/* include/linux/license.h, in its order */
	size_t n_licenses;
};
int tg_kernel_source_read(const char *dir, struct tg_kernel_source **out, struct tg_error *err);
void tg_kernel_source_free(struct tg_kernel_source *ks);

/* --------------------------------------------------------------- verdict */

/* Taint bits as in include/linux/panic.h. */
enum {
	TG_TAINT_PROPRIETARY = 0,	/* P */
	TG_TAINT_FORCED_MODULE = 1,	/* F */
	TG_TAINT_CRAP = 10,		/* C */
	TG_TAINT_OOT = 12,		/* O */
	TG_TAINT_UNSIGNED = 13,		/* E */
	TG_TAINT_LIVEPATCH = 15,	/* K */
	TG_TAINT_TEST = 18,		/* N */
};
#define TG_TAINT_BIT(b) (1u << (b))
/* Letters of @mask in the kernel's bit order ("POE"); @buf >= 24 bytes. */
char *tg_taint_string(unsigned mask, char *buf, size_t len);
/* Bit number for a letter, -1 if unknown. */
int tg_taint_bit_from_letter(char c);
struct tg_verdict;
/* Letters of @mask as @v's target kernel prints them (vendor bits included). */
char *tg_verdict_taint_string(const struct tg_verdict *v, unsigned mask, char *buf, size_t len);

struct tg_refusal {
	int step;		/* load_module() step (kernel order) */
	int err;		/* negative errno the kernel returns */
	char *code;		/* stable id: "unknown-symbol", "gpl-only-denied", ... */
	char *reason;		/* one line for a sysadmin */
	char *remedy;		/* NULL if none */
	char **symbols;
	size_t n_symbols;
};

struct tg_flag {
	char letter;
	bool module;		/* also in /sys/module/NAME/taint */
	char *reason;
	char *remedy;
};

struct tg_verdict {
	char *path;
	char *module;		/* kernel name; NULL if unreadable */
	char *license;		/* first license= value; NULL if none */
	char *kernel;		/* target release; NULL if unknown */
	char *package;		/* set by front ends */
	char *file_module;	/* module name the file name suggests */
	char *vermagic;		/* first vermagic= value */
	char *depends;		/* first depends= value */
	char *arch;		/* ELF machine */
	char *compression;	/* "none", "xz", "zstd", "gzip" */
	bool signed_;		/* signature trailer present */
	char *signer;		/* signer / key id when readable */
	char *key_id;
	/*
	 * What the kernel makes of the signature: "none" (unsigned), "verified"
	 * (with a key it has), "unknown-key" (-ENOKEY, E), "rejected"
	 * (-EKEYREJECTED), "unsupported" (-ENOPKG, E), "malformed" (-EBADMSG),
	 * "unverified" (the keys or the algorithm unknown: incomplete),
	 * "not-checked" (kernel without CONFIG_MODULE_SIG); a static string.
	 */
	const char *signature;
	char *signature_detail;	/* which key, from where; NULL if none */
	int err;		/* errno the kernel returns when refusing, 0 if it loads */

	char *error;		/* could not be read: message; then most else is empty */

	unsigned taint_kernel;	/* bits the load adds to /proc/sys/kernel/tainted */
	unsigned taint_module;	/* bits in /sys/module/NAME/taint (if it loads) */
	bool loads;

	struct tg_refusal *refusals;	/* in the kernel's order; first one is what it reports */
	size_t n_refusals;
	struct tg_flag *flags;
	size_t n_flags;

	char **gpl_only_imports;
	size_t n_gpl_only_imports;
	bool gpl_only_known;	/* false: no export table, GPL-only imports unknown */

	char **notes;		/* unknowns and warnings (name mismatch, stray modinfo ...) */
	size_t n_notes;

	bool forced_taint;
	bool advisory;		/* the name is on an advisory list of the policy (no kernel effect) */
	bool hidden;		/* installed outside the module directories, not named .ko: only insmod loads it */
	bool incomplete;

	enum tg_action action;
	char *rule;
	char *justification;
	char **reasons;		/* human-readable, most important first */
	size_t n_reasons;

	/* RHEL (lib/vendor_rhel.c) */
	char *rhelversion;	/* the module's rhelversion= ("9.6"), NULL if none */
	char *kabi_stablelist;	/* the kABI stablelist its imports were looked up in, NULL: none */
	char **kabi_on, **kabi_off;	/* its imports on the stablelist, and those not */
	size_t n_kabi_on, n_kabi_off;
	/* the target kernel's taint letters by bit (32), NULL: upstream's (SUSE's differ) */
	const char *taint_letters;
	/* modprobe refuses it on the target root (SUSE: allow_unsupported_modules 0) */
	bool modprobe_refused;
};
void tg_verdict_free_contents(struct tg_verdict *v);

/*
 * A set of modules judged together: imports resolve against the set's own
 * exports first (a GPL user of a proprietary sibling is caught), then the
 * kernel's.  Modules and kernels are borrowed, not owned.
 */
struct tg_set;
/*
 * A set judged with @ctx's policy and threads; NULL @ctx: the built-in policy,
 * one thread.  The context must outlive the set.  NULL on ENOMEM.
 */
struct tg_set *tg_set_new(const struct tg_ctx *ctx);
void tg_set_free(struct tg_set *s);
/* @m may be NULL with @error set (unreadable input); @k may be NULL (unknown kernel). */
int tg_set_add(struct tg_set *s, const char *path, const struct tg_module *m,
	       const struct tg_kernel *k, const char *package, const char *error);
size_t tg_set_count(const struct tg_set *s);
/*
 * Predict on the context's threads.  The result does not depend on their
 * number: members are predicted independently within each round.  Fills
 * @out[0..count) in the order added.  Caller frees each with
 * tg_verdict_free_contents.
 */
int tg_set_predict(struct tg_set *s, struct tg_verdict *out);

/* ---------------------------------------------------------------- judging */

/*
 * The one way to judge, for every front end (lib/judge.c): the target
 * release and the policy fallback are decided here, so that check, audit,
 * the rpm plugin and the DKMS hook cannot disagree on them.
 *
 * tg_target_release(): @override when given (--kernel, dkms's kernelver, the
 * kernel being installed); else the R of a /lib/modules/R/ path; else the
 * release @m's vermagic names; NULL when none answers.  Returns @override or
 * @buf.
 */
const char *tg_target_release(const char *override, const char *path, const struct tg_module *m,
			      char *buf, size_t len);

/* tg_policy_open() flags */
enum {
	/* @path NULL and no policy installed (a build tree): the built-in one, silently */
	TG_POLICY_BUILTIN_IF_ABSENT = 1 << 0,
	/*
	 * A policy that cannot be loaded: judge with the built-in one (return 1,
	 * @err says why) instead of failing — for front ends inside a
	 * transaction or a build, where stopping would be worse.  The built-in
	 * policy still denies what the kernel refuses or force-taints.
	 */
	TG_POLICY_FALLBACK = 1 << 1,
};
/*
 * The policy to judge with: @path, NULL for the installed default.  0 with
 * the policy in *@out (NULL: the built-in one; tg_ctx_set_policy() takes
 * either), 1 when TG_POLICY_FALLBACK replaced an unreadable one, or a
 * negative errno with @err.
 */
int tg_policy_open(const char *path, const struct tg_limits *lim, unsigned flags,
		   struct tg_policy **out, struct tg_error *err);

/* One module to judge, as the front end has it. */
struct tg_judge_item {
	const char *path;		/* as the front end names it; a /lib/modules/R/ path picks R */
	const struct tg_module *m;	/* NULL: unreadable, @error says why */
	const char *error;		/* NULL: "cannot read module" when @m is NULL */
	const char *package;		/* the owner, NULL if none */
	const char *release;		/* this module's target; NULL: tg_target_release() */
	/*
	 * Only there for the others to resolve against (installed neighbours,
	 * siblings): its verdict is left empty, and an unreadable one is skipped.
	 */
	bool context;
};

/* tg_judge() flags */
enum {
	/* A target kernel that cannot be gathered fails the call (-EINVAL, @err). */
	TG_JUDGE_KERNEL_STRICT = 1 << 0,
};
/*
 * Judge @items as one set (imports resolve against each other first) with
 * @ctx's policy, kernels and threads; @release overrides every item's target
 * (NULL: each its own).  Fills @out[0..n) (context items zeroed); the caller
 * frees each with tg_verdict_free_contents().  0; 1 when some target kernel
 * could not be gathered and its modules were judged as for an unknown kernel
 * (@err names the first); or a negative errno (-ENOMEM, -EINVAL when strict).
 */
int tg_judge(struct tg_ctx *ctx, const char *release, const struct tg_judge_item *items,
	     size_t n, unsigned flags, struct tg_verdict *out, struct tg_error *err);

/* Convenience: one module alone. */
int tg_predict(const char *path, const struct tg_module *m, const struct tg_kernel *k,
	       const struct tg_policy *p, struct tg_verdict *out);

/* ---------------------------------------------------------- parallel work */

/*
 * The library's thread pool, also offered to front ends so that there is one.
 *
 * tg_workq_new(jobs, max_bytes) starts jobs - 1 threads (the caller's thread
 * is the jobs-th); NULL only on ENOMEM.  Two kinds of work share them:
 *
 *  - tg_workq_run(q, n, fn, data) runs fn(i, worker, data) for every i in
 *    [0, n) and returns when all of them, and every item they pushed, are
 *    done.  @worker (0 .. jobs-1) names the thread, for per-thread state;
 *    0 is the caller's.  Calls to tg_workq_run() do not overlap.
 *  - tg_workq_push(q, fn, item, bytes) queues fn(item), e.g. reading one
 *    module while its bytes stream in from an rpm payload; any thread may
 *    push, also a task.  At most 64 items or @max_bytes (their stated sizes)
 *    wait; a push to a full queue runs queued work on the pusher's thread
 *    first.  Idle threads take items before new tasks.
 *
 * tg_workq_finish() runs what is queued, stops the threads and frees @q.
 * With jobs <= 1 no thread is started: tasks run in order and a push runs
 * its item at once.  Results never depend on the number of jobs when each
 * task and item writes only its own results.
 */
/* Threads to use when the caller does not say: the CPUs this process may run on (<= 256). */
unsigned tg_default_jobs(void);
typedef void (*tg_work_fn)(void *item);
typedef void (*tg_task_fn)(size_t i, unsigned worker, void *data);
struct tg_workq;
struct tg_workq *tg_workq_new(unsigned jobs, size_t max_bytes);
/* Threads of @q, the caller's included (fewer than asked when a thread could not start). */
unsigned tg_workq_jobs(const struct tg_workq *q);
void tg_workq_push(struct tg_workq *q, tg_work_fn fn, void *item, size_t bytes);
void tg_workq_run(struct tg_workq *q, size_t n, tg_task_fn fn, void *data);
void tg_workq_finish(struct tg_workq *q);
/* tg_workq_new + tg_workq_run + tg_workq_finish; -ENOMEM when no queue could be made. */
int tg_parallel(size_t n, unsigned jobs, tg_task_fn fn, void *data);

/* --------------------------------------------------------------- reports */

/* One JSON object (the stable per-module contract); no trailing newline. */
int tg_verdict_write_json(const struct tg_verdict *v, FILE *out);
/* Human-readable: verdict first, then reasons. */
int tg_verdict_write_text(const struct tg_verdict *v, FILE *out, bool verbose);
/*
 * The one reason that decided a verdict, short (about 70 characters): cannot
 * be read, a policy exception, the kernel's refusal, the taint that decided
 * (a forced taint, P, else the first), what could not be checked.  The same
 * words in every front end.  Returns what snprintf returns.
 */
int tg_verdict_reason(const struct tg_verdict *v, char *buf, size_t len);
/*
 * The line a person reads once, about 120 characters:
 * "WHAT PACKAGE: module NAME (FILE): REASON", FILE only when its name is not
 * NAME.ko.  The rule and the rest: tg_verdict_write_text().  @what: NULL for the
 * action's word ("refused", "marked", "allowed"); PACKAGE is v->package, else
 * the path.
 */
int tg_verdict_headline(const struct tg_verdict *v, const char *what, char *buf, size_t len);
/* JSON string escaping helper shared by front ends. */
void tg_json_string(FILE *out, const char *s);

/* ---------------------------------------------------------- mark records */

/*
 * A mark record says that a package (rpm) or a DKMS module version built for
 * one kernel (dkms) was installed although the policy marked it, or denied it
 * and a warn mode let it through.  One JSON file per record in a directory
 * (the front ends use ROOT/var/lib/taintguard/marks); "taintguard status"
 * lists them.  The format is described in docs/records.md.  These functions
 * are the only writer and reader of it: the writer writes TG_RECORD_FORMAT,
 * the reader also reads both variants of "taintguard-mark/1" (the rpm
 * plugin's and the DKMS hook's) still found on disks.
 *
 * Records are files in a directory root writes; the reader still treats them
 * as untrusted: at most TG_RECORD_MAX_SIZE bytes, never through a symbolic
 * link, every field type-checked, package ids, names and kernel releases
 * restricted to what can be a file name and a command argument (printable
 * ASCII, no '/' other than the one of MODULE/VERSION, not starting with '-'
 * or '.').
 */
#define TG_RECORD_FORMAT "taintguard-mark/2"
/* A module's verdict is about 1 KB: room for a package of some 15,000 modules. */
#define TG_RECORD_MAX_SIZE (16u << 20)

enum tg_record_source {
	TG_RECORD_RPM = 0,	/* an rpm package; package is its NEVRA */
	TG_RECORD_DKMS,		/* a DKMS build; package is MODULE/VERSION, kernel required */
};
const char *tg_record_source_name(enum tg_record_source s);	/* "rpm", "dkms" */

/* What the reader gives of each module's verdict (what "taintguard status" shows). */
struct tg_record_module {
	const char *path;	/* the module file; NULL when the record has none */
	const char *module;	/* the kernel's name for it; NULL when it was unreadable */
	enum tg_action action;
	const char *rule;	/* the policy rule that decided; NULL when none */
	const char *taint;	/* letters the load adds ("POE"), "" when none */
	const char *const *reasons;	/* most important first */
	size_t n_reasons;
	const char *json;	/* the whole verdict object as stored, compact JSON */
};

struct tg_record {
	enum tg_record_source source;
	const char *package;	/* NEVRA ("name-[epoch:]version-release.arch") or MODULE/VERSION */
	const char *name;	/* rpm name or DKMS module; NULL when unknown */
	const char *epoch;	/* NULL when the package has none */
	const char *version;
	const char *release;	/* NULL for dkms */
	const char *arch;
	/*
	 * Target kernel release; NULL when unknown.  The writer fills it in from
	 * the verdicts when they all name the same (usable) kernel and the caller
	 * gave none.
	 */
	const char *kernel;
	enum tg_action action;	/* mark, or deny for a package a warn mode let through */
	const char *mode;	/* the front end's mode: "enforce", "warn"; NULL when unknown */
	const char *policy;	/* the policy file, or "<built-in policy>"; NULL when unknown */
	int64_t time;		/* seconds since the epoch; the writer puts the current time for 0 */

	/* Filled by the reader; the writer ignores them and takes verdicts. */
	const char *format;	/* as stored, e.g. "taintguard-mark/1" */
	const struct tg_record_module *modules;
	size_t n_modules;
	/*
	 * Filled by the reader: written by tg_record_stage() and not made final
	 * since ("state": "staged"): the package may or may not have been
	 * installed; ask the package database.
	 */
	bool staged;
};

/*
 * malloc'ed path of @rec's file in @dir: DIR/NEVRA.json (rpm),
 * DIR/dkms-MODULE-VERSION-KERNEL.json (dkms).  Only source, package and (dkms)
 * kernel are looked at.  -EINVAL when they cannot name a file (see above).
 */
int tg_record_path(const char *dir, const struct tg_record *rec, char **out,
		   struct tg_error *err);
/*
 * Write @rec, with the verdicts @v[0..n) of its modules (as
 * tg_verdict_write_json() writes them), to its file in @dir (created with its
 * parents, 0755).  Atomic: a new temporary file in @dir (O_EXCL, never
 * through a link), fsync, rename over the record; on any failure the
 * temporary file is removed and an existing record is left as it was.  A
 * symbolic link in the record's place is replaced, never followed.
 * -ENOTDIR when @dir or a parent is not a directory, -EFBIG for a record the
 * reader would refuse (past TG_RECORD_MAX_SIZE), else the errno of the
 * failed call (-ENOSPC, -EIO ...), the message naming the file.
 */
int tg_record_write(const char *dir, const struct tg_record *rec,
		    const struct tg_verdict *const *v, size_t n, struct tg_error *err);
/*
 * The same, staged: written before the package's files (or the module in the
 * DKMS tree) exist, made final by tg_record_write() once the install has
 * completed, removed if it failed.  A staged record that nobody finished
 * (the installer was killed) is a mark when the package is installed and
 * nothing when it is not (taintguard status asks).  A final record already
 * in its place is left as it is: 1.  Else what tg_record_write() returns.
 */
int tg_record_stage(const char *dir, const struct tg_record *rec,
		    const struct tg_verdict *const *v, size_t n, struct tg_error *err);
/*
 * Read the record at @path.  -ELOOP for a symbolic link (never followed),
 * -EINVAL for anything but a regular file, -EFBIG past TG_RECORD_MAX_SIZE,
 * -EBADMSG for a broken record (not JSON, truncated, a field missing or of
 * the wrong type, an unusable package id), -EPROTONOSUPPORT for JSON that is
 * not a taintguard mark record or a format version this library does not
 * read, else the errno of open/read.  Free *@out with tg_record_free().
 */
int tg_record_read(const char *path, struct tg_record **out, struct tg_error *err);
/* The same from memory; @label names the input in messages. */
int tg_record_parse(const void *data, size_t len, const char *label, struct tg_record **out,
		    struct tg_error *err);
/* Frees a record of tg_record_read()/tg_record_parse() (NULL allowed). */
void tg_record_free(struct tg_record *rec);
/*
 * Remove the record file @path (a link is removed, not followed): 0, or
 * -ENOENT when there was none, or the errno of unlink(2).
 */
int tg_record_remove(const char *path, struct tg_error *err);
/*
 * Paths of the record files in @dir (names ending in ".json", not starting
 * with '.': temporary files never match), sorted.  A missing @dir has none
 * (0, *@n = 0).  Free with tg_record_list_free().
 */
int tg_record_list(const char *dir, char ***paths, size_t *n, struct tg_error *err);
void tg_record_list_free(char **paths, size_t n);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
