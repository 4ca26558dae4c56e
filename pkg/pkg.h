/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libtgpkg: reading rpm packages for taintguard's front ends (the rpm plugin
 * and `taintguard audit`), with librpm.  A private static library: built
 * with the project, never installed.  It knows rpm and libtaintguard, and
 * nothing of its callers; calls go one way, from the front ends down.
 *
 *   classify.c   what a packaged path is: module candidate, export table, .config
 *   ftype.c      what the header says each file is (libmagic class or MIME type)
 *   module.c     is a payload file a kernel module?  (its content decides)
 *   rpm.c        librpm configuration, log capture, header facts, signatures
 *   files.c      facts of a package's file list
 *   payload.c    a payload streamed in memory: members read, digests checked
 *   decode.c     a payload's modules read on the thread pool, kept in payload order
 *   kernelset.c  the kernel files a set of packages carries, kernels built from them
 *   kupdate.c    a kernel update: the out-of-tree modules loadable under a new kernel
 *   rpmdb.c      installed packages and their module files
 *   owners.c     file identities, dpkg's database, DKMS's tree (no librpm: owners.h)
 *   repo.c       yum/dnf repository metadata (createrepo_c's parsers)
 *   fetch.c      remote repositories: repomd, metalinks, mirrorlists, downloads (librepo)
 *   cache.c      a directory of checked records of what reading found
 *
 * Untrusted input: every package is read with caps (struct tg_limits), a
 * problem is an error of that package or file, never a clean result.
 */
#ifndef TG_PKG_H
#define TG_PKG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rpm/rpmfiles.h>
#include <rpm/rpmio.h>
#include <rpm/rpmtypes.h>

#include "taintguard.h"
#include "owners.h"
#include "buf.h"
#include "hex.h"
#include "strf.h"
#include "strv.h"

/* ------------------------------------------------------------ classify.c */

enum pkg_kind {
	PKG_OTHER = 0,
	PKG_MODULE,	/* a module candidate: .ko* name, or any file in a module directory */
	PKG_SYMVERS,	/* a kernel's export table (Module.symvers, symvers.gz ...) */
	PKG_CONFIG,	/* a kernel's .config */
	PKG_IMAGE,	/* a kernel image: /boot/vmlinuz-R, (usr/)lib/modules/R/vmlinuz */
	PKG_SYSMAP,	/* its System.map: /boot/System.map-R, (usr/)lib/modules/R/System.map */
};
#define PKG_KIND_BIT(k) (1u << (k))

struct pkg_class {
	enum pkg_kind kind;
	char release[256];	/* PKG_SYMVERS, PKG_CONFIG, PKG_IMAGE, PKG_SYSMAP: the kernel release */
	/*
	 * PKG_SYMVERS, PKG_CONFIG: the place's rank in the library's search
	 * order (lower first; every .config ranks after every export table).
	 */
	int rank;
	bool named;		/* PKG_MODULE: has a module file name (.ko ...) */
	bool in_tree;		/* PKG_MODULE: in a kernel's own tree (lib/modules/KVER/kernel/) */
	/*
	 * PKG_MODULE: neither named nor placed as a module, but the header's
	 * file type says ELF relocatable (what every .ko is): a module can be
	 * shipped as /opt/vendor/engine.bin and insmod'ed by a scriptlet.
	 */
	bool hidden;
};

/*
 * What @path (absolute, as packaged) is, by name and place only.  A file in
 * (usr/)lib/modules/ is a module candidate whatever its name: its content
 * decides (pkg_module_from_mem).  Returns c->kind.
 */
enum pkg_kind pkg_classify(const char *path, struct pkg_class *c);
/*
 * The same, with the file's type from the package header (pkg_ftype(): the
 * class or MIME type rpmbuild recorded; NULL when unknown): any ELF
 * relocatable object is a module candidate too, wherever it lies and however
 * it is named.
 */
enum pkg_kind pkg_classify_file(const char *path, const char *ftype, struct pkg_class *c);
/* Below /lib/modules/ or /usr/lib/modules/. */
bool pkg_in_module_dir(const char *path);

/* --------------------------------------------------------------- ftype.c */

/*
 * What a package header says each file is, as rpmbuild recorded it with
 * libmagic: the class (v4 packages: "ELF 64-bit LSB relocatable, ...") or,
 * in v6 packages (rpm >= 6.0, which records no classes), the MIME type
 * ("application/x-object").  Read from the tags themselves: librpm's file
 * lists lack them (a transaction element's: RPMFI_FLAGS_INSTALL has
 * RPMFI_NOFILECLASS; before 6.0 no MIME API at all).  NULL when the header
 * has neither (a package built without them) or on ENOMEM.
 */
struct pkg_ftypes;
struct pkg_ftypes *pkg_ftypes_new(Header h);
void pkg_ftypes_free(struct pkg_ftypes *t);
/* The type of file @i (header order), NULL when unknown. */
const char *pkg_ftype(const struct pkg_ftypes *t, int i);
/* How many files it describes (0 for NULL): it must be the file list's count. */
size_t pkg_ftypes_count(const struct pkg_ftypes *t);

/* -------------------------------------------------------------- module.c */

/*
 * Read the bytes of module candidate @path.  1: a kernel module (*m set);
 * 0: not a module (a text file named .ko, modules.dep, a vdso; a hidden
 * candidate without a struct module: a plain .o, kbuild's foo.o, a .ko.debug);
 * -1: looks like a module (ELF with .modinfo, or a module name in a module
 * directory, or a compressed .ko; hidden: ELF naming .gnu.linkonce.this_module,
 * or compressed past the caps) but cannot be read (*error set, malloc'ed).
 */
int pkg_module_from_mem(const void *buf, size_t len, const char *path,
			const struct tg_limits *lim, struct tg_module **m, char **error);
/* pkg_module_from_mem() of @n files at once (r[i], m[i], error[i]): the reader gets them in batches. */
int pkg_modules_from_mem(size_t n, const void *const *buf, const size_t *len,
			 const char *const *path, const struct tg_limits *lim,
			 struct tg_module **m, char **error, int *r);
/*
 * The same for a file already on disk (the rpm plugin's backstop reads what
 * rpm unpacked, audit --installed a hidden candidate): the whole regular
 * file behind @fd, at most lim->max_input_size bytes, then
 * pkg_module_from_mem().  A file that cannot be read is -1 (*error says why).
 */
int pkg_module_from_fd(int fd, const char *path, const struct tg_limits *lim,
		       struct tg_module **m, char **error);

/* ----------------------------------------------------------------- rpm.c */

/* Read rpm's configuration once, before threads, and capture librpm's log. */
int pkg_rpm_setup(const char *dbpath, bool verbose, char **error);
void pkg_rpm_teardown(void);
/* The calling thread's last librpm warning or error ("" when none); cleared by pkg_rpm_log_clear. */
const char *pkg_rpm_log_last(void);
void pkg_rpm_log_clear(void);
/* A transaction set for one thread: @root (NULL = /), digests enforced, unknown keys reported. */
rpmts pkg_ts_new(const char *root);

enum pkg_sig {
	PKG_SIG_UNKNOWN = 0,	/* not looked at (repodata only, or unreadable) */
	PKG_SIG_UNSIGNED,	/* no header signature */
	PKG_SIG_OK,		/* signed, key known and valid */
	PKG_SIG_NOKEY,		/* signed, key not in the keyring */
	PKG_SIG_NOTTRUSTED,	/* signed, key known but not trusted */
	PKG_SIG_BAD,		/* digest or signature check failed */
	PKG_SIG_INSTALLED,	/* from the rpmdb: signed (not re-verified) */
};
const char *pkg_sig_name(enum pkg_sig s);

/* What a package header says about itself. */
struct pkg_info {
	char *name, *nevra, *license;
	char *sig_info;		/* "RSA/SHA256, <date>, Key ID ..." or NULL */
	bool signed_;		/* carries a header signature */
};
/* Fill @pi from @h (fields already set are kept, but the NEVRA); -ENOMEM. */
int pkg_info_from_header(Header h, struct pkg_info *pi);
void pkg_info_free(struct pkg_info *pi);

/*
 * A package file opened for reading: header read and checked (digests
 * always; signatures reported in @sig), file list, and the fd positioned at
 * the payload.  On failure *error (malloc'ed) says why and *sig is
 * PKG_SIG_BAD for a failed digest or signature check.
 */
struct pkg_file {
	FD_t fd;
	Header h;
	rpmfiles files;
	enum pkg_sig sig;
};
int pkg_file_open(rpmts ts, const char *path, struct pkg_file *pf, char **error);
/* The same for the package held by @fd (read from offset 0; the caller keeps @fd), named @label. */
int pkg_file_open_fd(rpmts ts, int fd, const char *label, struct pkg_file *pf, char **error);
void pkg_file_close(struct pkg_file *pf);
/*
 * Read the header of the package at @fd's start again, without checking
 * digests or signatures (rpm's verify step just did): the rpm plugin, on the
 * fd of a transaction element.  0, or -EINVAL when it is no package.
 */
int pkg_header_reread(rpmts ts, FD_t fd, const char *label, Header *h);
/*
 * The same header read quickly, for what it says (file types, dependencies)
 * and not to read the payload after it: @fd's offset is left as it is, and
 * the signature header's tags are not merged in.  Falls back to
 * pkg_header_reread() for a file it cannot read so.
 */
int pkg_header_quick(rpmts ts, FD_t fd, const char *label, Header *h);

/*
 * What signature checks of @ts's packages depend on: a hash of the rpmdb's
 * public keys (gpg-pubkey key ids and dates) and where the keyring is.  A
 * cached signature status is only believed under the same id.  malloc'ed
 * hex; NULL on ENOMEM.
 */
char *pkg_keyring_id(rpmts ts);

/* --------------------------------------------------------------- files.c */

/* What a package's file list says (regular files that are not %ghost). */
struct pkg_files_facts {
	size_t n_modules;	/* module candidates */
	size_t n_prepared;	/* the same, one per hardlink set (what rpm's fsm writes) */
	bool oot;		/* a module file outside a kernel's own tree */
	bool kernel_files;	/* an export table or .config of a kernel */
};
/* @types: the header's file types (pkg_ftypes_new), NULL: none known */
void pkg_files_scan(rpmfiles files, const struct pkg_ftypes *types, struct pkg_files_facts *f);
/* fn(ctx, path, class) for each regular, non-%ghost file of a kind in @kinds; stops on < 0. */
typedef int (*pkg_path_fn)(void *ctx, const char *path, const struct pkg_class *c);
int pkg_files_each(rpmfiles files, const struct pkg_ftypes *types, unsigned kinds, pkg_path_fn fn,
		   void *ctx);

/* ------------------------------------------------------------- payload.c */

/* One member of a payload. */
struct pkg_member {
	const char *path;
	const struct pkg_class *cls;
	/* the content (the callee takes it), or NULL: not read, see err/error */
	void *data;
	size_t len;
	int err;		/* -EFBIG over its cap, -EBADMSG digest mismatch, -EIO ... */
	const char *error;	/* what went wrong, NULL when data is set */
};
/* Return < 0 to stop reading the payload (pkg_payload_read returns it). */
typedef int (*pkg_member_fn)(void *ctx, struct pkg_member *m);

struct pkg_payload_opts {
	unsigned kinds;		/* PKG_KIND_BIT() of members to read into memory */
	/*
	 * Hash every file that has a digest, read or not, and compare it with
	 * the header (librpm's archive reader does not): a mismatch reaches
	 * @fn as a member without data (err -EBADMSG), of any kind.
	 */
	bool check_digests;
	uint64_t max_size[PKG_SYSMAP + 1];	/* per kind: larger members are not read (-EFBIG) */
	/*
	 * Other members to read, chosen by path (guard files: a macro file, a
	 * dkms framework file): read when want(want_ctx, path) says so, up to
	 * want_max bytes, and reach @fn with their class (PKG_OTHER).
	 */
	bool (*want)(void *want_ctx, const char *path);
	void *want_ctx;
	uint64_t want_max;
	/* the header's file types (pkg_ftypes_new), NULL: none known */
	const struct pkg_ftypes *types;
};

/*
 * Stream the payload of the package whose header is @h and file list
 * @files from @fd (positioned at the payload; the caller keeps @fd).
 * Members of the wanted kinds reach @fn with their content, in payload
 * order; per-file problems reach it without.  Returns 0 when the archive
 * was read to its end, what @fn returned when it stopped, or a negative
 * errno with *@error (malloc'ed): unknown compressor, unreadable or corrupt
 * archive.
 */
int pkg_payload_read(FD_t fd, Header h, rpmfiles files, const struct pkg_payload_opts *o,
		     pkg_member_fn fn, void *ctx, char **error);

/* -------------------------------------------------------------- decode.c */

/* One module candidate of a payload once read: in payload order. */
struct pkg_decoded {
	char *path;
	int r;			/* 1 module, 0 not a module (dropped), -1 unreadable */
	struct tg_module *m;	/* r == 1 */
	char *error;		/* r == -1 */
};

/*
 * A package's module candidates, decompressed and read on the pool's threads
 * while the payload streams in on the caller's.  The list belongs to the
 * caller; entries are complete once the pool has run every pushed item
 * (tg_workq_run returned, or tg_workq_finish).
 */
struct pkg_decode;
struct pkg_decode *pkg_decode_new(struct tg_workq *q, const struct tg_limits *lim);
/*
 * Queue @buf (taken) for reading; an entry in its payload place.  Small
 * candidates wait to go to the pool in batches: pkg_decode_flush() hands
 * over the last one (before the pool is finished; pkg_decode_take() reads
 * what is left in the calling thread).
 */
void pkg_decode_push(struct pkg_decode *d, const char *path, void *buf, size_t len);
void pkg_decode_flush(struct pkg_decode *d);
/* An entry that could not be read (r = -1), in its payload place. */
void pkg_decode_error(struct pkg_decode *d, const char *path, const char *msg);
/*
 * The completed entries, in payload order; the caller takes them (free the
 * array with pkg_decoded_free).  An entry could not be kept (ENOMEM):
 * a last entry "(package)" with r = -1 says so.  Frees @d.
 */
int pkg_decode_take(struct pkg_decode *d, struct pkg_decoded **out, size_t *n);
/* The entries' contents and the array. */
void pkg_decoded_free(struct pkg_decoded *v, size_t n);

/* ------------------------------------------------------------ kupdate.c */

/*
 * A kernel update: the out-of-tree modules of a root that will be loadable
 * under kernel release R once R is installed (docs/kernel-update.md):
 * ROOT/{lib,usr/lib}/modules/R/{extra,updates,weak-updates}/, and, where
 * RHEL's weak-modules is installed, the modules in other kernels' extra/
 * that it would link into R's weak-updates/.
 */
enum pkg_kmod_place {
	PKG_KMOD_OWN,		/* under R's own extra/, updates/, weak-updates/ */
	PKG_KMOD_WEAK,		/* weak-modules would link it into R's weak-updates/ */
	PKG_KMOD_WEAK_NOT,	/* weak-modules would not link it: see why */
	PKG_KMOD_DKMS_NOT,	/* DKMS installed it for another kernel, not R: see why
				   (never from pkg_kupdate_modules(): owners.h) */
};
struct pkg_kmod {
	char *path;		/* where R's loader finds it (inside the root) */
	char *file;		/* the file read (inside the root): another kernel's for weak */
	char *owner;		/* the rpm package owning file, NULL when none or no rpmdb
				   (the caller may name a dpkg or DKMS owner: owners.h) */
	enum pkg_kmod_place place;
	char *why;		/* PKG_KMOD_WEAK_NOT: the first symbol that fails;
				   PKG_KMOD_DKMS_NOT: why it is not built */
	struct tg_module *m;	/* NULL: unreadable, see error */
	char *error;
};
/* Is RHEL's weak-modules installed in @root? */
bool pkg_weak_modules_present(const char *root);

/*
 * The modules above for release @release under @root ("/" or a directory);
 * @symvers is R's export table (the weak-modules check needs it; NULL: no
 * other kernel's module is taken), @ts (may be NULL) the rpmdb asked for
 * owners.  0, or -ENOMEM.  Unreadable modules are entries with an error.
 */
int pkg_kupdate_modules(const char *root, const char *release, const struct tg_symvers *symvers,
			rpmts ts, const struct tg_limits *lim, struct pkg_kmod **out, size_t *n);
void pkg_kmods_free(struct pkg_kmod *v, size_t n);
/*
 * Kernel @release being installed, against what it will load: the modules
 * above with @extra (the set's own modules for it, as context items so that
 * imports between them resolve) judged as one set in @ctx.  *@km, *@n as
 * pkg_kupdate_modules(); *@v one verdict per *@km.  0 or a negative errno;
 * free with pkg_kupdate_free().
 */
int pkg_kupdate_judge(struct tg_ctx *ctx, const char *root, const char *release,
		      const struct tg_symvers *symvers, rpmts ts, const struct tg_limits *lim,
		      const struct tg_judge_item *extra, size_t n_extra, struct pkg_kmod **km,
		      struct tg_verdict **v, size_t *n);
void pkg_kupdate_free(struct pkg_kmod *km, struct tg_verdict *v, size_t n);
/*
 * A kernel being installed has its own modules in the set (a transaction,
 * an audited repository), not yet in the root: what the library learns from
 * in-tree modules on disk (vermagic, sizeof(struct module)) comes from them
 * instead.  @m at @path, of package @nevra, which ships no out-of-tree
 * module: k's missing facts are taken from it when it is an in-tree module
 * of @release ("intree", as the library's own rule is).  True when it was.
 */
bool pkg_kernel_learn(struct tg_kernel *k, const char *release, const char *nevra,
		      const char *path, const struct tg_module *m);
/* Will kernel R not load @km cleanly (@v: its verdict under R), or miss it? */
bool pkg_kupdate_affected(const struct pkg_kmod *km, const struct tg_verdict *v);
/*
 * The one line said of an affected module, without prefix or newline:
 * "kernel R: PACKAGE: module M (PATH): REASON[; policy: deny]", or for a
 * module weak-modules will not link "...: will be missing: ...".  Malloc'ed,
 * NULL on ENOMEM.
 */
char *pkg_kupdate_line(const char *release, const struct pkg_kmod *km, const struct tg_verdict *v);
/*
 * The kernel release a package installs when its files hold a kernel image
 * (/boot/vmlinuz-R, (usr/)lib/modules/R/vmlinuz), the export table and the
 * .config of that same R: true with R in @buf.
 */
bool pkg_files_kernel_release(rpmfiles files, char *buf, size_t len);

/* ----------------------------------------------------------- kernelset.c */

/*
 * The kernel files (export tables, .config) met in a set of packages — a
 * transaction, an audited repository — and the kernels completed from them.
 * A package that ships out-of-tree modules never supplies a kernel file: it
 * could vouch for its own modules with a forged table.  Thread-safe.  A
 * NULL set (it could not be allocated) holds no file.
 */
struct pkg_kernelset;
/* What went wrong with a kernel file that is skipped (a table that does not parse). */
typedef void (*pkg_warn_fn)(void *ctx, const char *msg);
struct pkg_kernelset *pkg_kernelset_new(pkg_warn_fn warn, void *warn_ctx);
void pkg_kernelset_free(struct pkg_kernelset *ks);

struct pkg_kfile {
	enum pkg_kind kind;	/* PKG_SYMVERS or PKG_CONFIG */
	char *release;
	int rank;
	char *path;		/* as packaged */
	char *label;		/* "NEVRA:path", for messages and reports */
	size_t nevra_len;	/* the NEVRA part of the label */
	void *owner;		/* the caller's package */
	void *data;		/* content once read, else NULL */
	size_t len;
};

/*
 * Record kernel file @path of class @c, carried by package @nevra (@where:
 * where that package was found, the last sort key; @owner: the caller's
 * handle; @oot: the package ships out-of-tree modules, then -EPERM and
 * nothing is recorded: say so).  @data (taken, may be NULL when only the
 * file list is known) fills an entry recorded before.  0, -EPERM, -ENOMEM.
 */
int pkg_kernelset_add(struct pkg_kernelset *ks, const char *path, const struct pkg_class *c,
		      const char *nevra, const char *where, void *owner, bool oot, void *data,
		      size_t len);
/*
 * Every entry, sorted: release, rank (the library's search order), NEVRA,
 * path, where; the best candidate of a release first.  Valid until the next add.
 */
size_t pkg_kernelset_files(struct pkg_kernelset *ks, const struct pkg_kfile *const **out);
/* Does the set hold any file of @release (with content or not)? */
bool pkg_kernelset_has(struct pkg_kernelset *ks, const char *release);
/* The best entry of @release and @kind that has content; NULL if none. */
const struct pkg_kfile *pkg_kernelset_best(struct pkg_kernelset *ks, const char *release,
					   enum pkg_kind kind);

enum pkg_kernel_mode {
	/*
	 * The set describes the target (an audited repository with its
	 * kernel-devel): its export table and .config come first, the root's
	 * fill in.
	 */
	PKG_SET_FIRST,
	/*
	 * The root is the target (an rpm transaction): an installed kernel's
	 * files are never replaced; the set only fills in what the root lacks
	 * (a kernel installed in the same transaction).
	 */
	PKG_ROOT_FIRST,
};

/*
 * The kernel of @release gathered with tg_kernel_load(@base: root, limits,
 * explicit files — those always win) and completed from the set as @mode
 * says; k->symvers_path and k->config_path name where each came from (a
 * set file by its label).  1 when the export table is the set's, 0 when it
 * is not (the root's, or none), or a negative errno with @err.
 */
int pkg_kernelset_kernel(struct pkg_kernelset *ks, const struct tg_kernel_opts *base,
			 const char *release, enum pkg_kernel_mode mode, struct tg_kernel **out,
			 struct tg_error *err);

/* --------------------------------------------------------------- rpmdb.c */

/* An installed package that owns module files. */
struct pkg_installed {
	Header h;
	struct pkg_info info;
	/*
	 * Module candidates it owns (paths as installed): files named as
	 * modules, and hidden ones (the header's file class says ELF
	 * relocatable: read them with pkg_module_from_mem, content decides).
	 */
	char **modules;
	size_t n_modules;
};
/* fn for each installed package owning module files; the others are counted in *skipped. */
typedef int (*pkg_installed_fn)(void *ctx, struct pkg_installed *p);
int pkg_rpmdb_each(rpmts ts, pkg_installed_fn fn, void *ctx, size_t *skipped);

/* Is an rpm transaction running on @root (rpm's transaction lock held)? */
bool pkg_rpm_busy(const char *root);
/*
 * A Berkeley DB rpmdb (rpm before 4.16 made them: RHEL 8, SLES 15, Debian
 * 11's rpm) is read by librpm's read-only backend, which takes no lock:
 * read while a transaction writes it, it can loop for ever (an audit
 * --installed hung in rpmdbInitIterator while rpm 4.16 erased a package).
 * pkg_rpmdb_quiet() waits, before such an rpmdb is read, while a
 * transaction runs on @root (at most PKG_RPMDB_WAIT_S).  It cannot keep one
 * from starting during the read: holding rpm's lock would make that rpm
 * fail ("can't create transaction lock"), not wait.  sqlite and ndb rpmdbs
 * lock for their readers themselves: no wait.
 */
#define PKG_RPMDB_WAIT_S 60
void pkg_rpmdb_quiet(const char *root);

/*
 * Names of the installed packages (in @ts's rpmdb) owning @path, appended to
 * @names (each once); 0 or -ENOMEM.
 */
int pkg_rpmdb_owners(rpmts ts, const char *path, struct strv *names);

/* --------------------------------------------------------------- guard.c */

/*
 * The places of the files that decide whether taintguard runs (guard/), as
 * the rpm configuration read by this process says: rpm's macro path
 * (`macrofiles`) with %{_target} and ~ expanded, its rpmrc files,
 * %{__plugindir}, and @policy, the policy file in use.  0 or -ENOMEM.
 */
struct guard_places;
int pkg_guard_places(struct guard_places *pl, const char *policy);

/* ---------------------------------------------------------------- repo.c */

/*
 * A repository's primary and filelists metadata, as files on this machine (a
 * local repository's own, or downloaded by fetch.c), with the checksums
 * repomd.xml states for them ("sha256:HEX"): together they name what the
 * metadata says, the key of a cached scan.
 */
struct pkg_repodata {
	char *primary, *filelists;		/* paths */
	char *primary_sum, *filelists_sum;	/* "TYPE:HEX" from repomd.xml */
};
void pkg_repodata_free(struct pkg_repodata *rd);
/* true if @dir contains repodata/repomd.xml */
bool pkg_repo_detect(const char *dir);
/*
 * Read @dir/repodata/repomd.xml (createrepo_c's parser): where primary and
 * filelists are and their checksums.  Nothing is verified yet.  0, or a
 * negative errno with *@error (malloc'ed).
 */
int pkg_repo_local(const char *dir, struct pkg_repodata *rd, char **error);
/* Hash both files and compare with repomd.xml's checksums: 0, -EBADMSG, -EIO ... with *@error. */
int pkg_repodata_verify(const struct pkg_repodata *rd, char **error);

/* A package of a repository that carries module candidates or kernel files. */
struct pkg_repo_pkg {
	char *location;		/* href, below the repository (or below base) */
	char *base;		/* xml:base of its location, NULL when none */
	char *name, *nevra, *license;	/* as primary says (the header's win once read) */
	char *checksum;		/* "TYPE:HEX" of the whole .rpm: its identity */
	uint64_t size;		/* bytes of the .rpm */
	bool modules, oot;
	char **kernel_files;	/* paths of its export tables and .configs */
	size_t n_kernel_files;
};
struct pkg_repo_list {
	struct pkg_repo_pkg *v;
	size_t n;
	size_t skipped;		/* packages without module candidates or kernel files */
};
void pkg_repo_list_free(struct pkg_repo_list *l);
/*
 * The packages of the repository that carry modules or kernel files, from
 * filelists (every file of every package: pkg_classify() decides) and
 * primary (location, checksum, size), both streamed through createrepo_c's
 * parsers; the other packages are only counted.  Metadata compressed with
 * zstd (which createrepo_c 0.17 cannot read) is decompressed into an
 * unlinked temporary file first.  0, or a negative errno with *@error.
 */
int pkg_repo_scan(const struct pkg_repodata *rd, struct pkg_repo_list *out, char **error);
/*
 * The list as a cache record (pkg/cache.c's buffers), and back: -EBADMSG when
 * it does not decode completely, -ENOMEM.
 */
void pkg_repo_list_encode(const struct pkg_repo_list *l, struct buf *b);
int pkg_repo_list_decode(const void *p, size_t n, struct pkg_repo_list *l);
/*
 * "TYPE:HEX" -> the checksum type's name and whether HEX fits it: md5,
 * sha1 ("sha"), sha224, sha256, sha384, sha512.  NULL for anything else.
 */
const char *pkg_checksum_type(const char *checksum);
/*
 * Hash what @fd holds from offset 0 to its end and compare with @checksum
 * ("TYPE:HEX"); the offset is left at 0.  0, -EBADMSG (mismatch, *@error
 * says both sums), -EINVAL (unusable checksum), -EIO.
 */
int pkg_checksum_fd(int fd, const char *checksum, char **error);

/* --------------------------------------------------------------- fetch.c */

enum pkg_remote_kind {
	PKG_REMOTE_BASEURL = 0,	/* http://, https://, ftp://, file:// base URL */
	PKG_REMOTE_METALINK,
	PKG_REMOTE_MIRRORLIST,
};
struct pkg_remote_opts {
	const char *url;
	enum pkg_remote_kind kind;
	const char *destdir;	/* an empty private directory for the metadata files */
	const char *ca_cert;	/* CA certificates for https instead of the system's, or NULL */
	uint64_t max_size;	/* packages larger than this are refused, not downloaded */
};
struct pkg_remote;
/*
 * Fetch the repository's repomd.xml (through the metalink or mirrorlist,
 * verified against the metalink's hashes).  0, or a negative errno with
 * *@error naming the URL and librepo's reason.
 */
int pkg_remote_open(const struct pkg_remote_opts *o, struct pkg_remote **out, char **error);
void pkg_remote_free(struct pkg_remote *r);
const char *pkg_remote_url(const struct pkg_remote *r);
/* The base URL of the mirror repomd.xml came from (packages are below it unless they say). */
const char *pkg_remote_base(const struct pkg_remote *r);
/*
 * What repomd.xml says of primary and filelists: their checksums always;
 * with @download, the files too (fetched once, verified), their paths set.
 */
int pkg_remote_repodata(struct pkg_remote *r, bool download, struct pkg_repodata *rd, char **error);

/* One package to download. */
struct pkg_fetch {
	const char *location, *base;	/* href and xml:base as primary gives them */
	const char *checksum;		/* "TYPE:HEX" */
	uint64_t size;			/* bytes, 0 unknown */
	/* results */
	int fd;			/* a sealed memfd at offset 0 holding the verified package, or -1 */
	char *url;		/* where it came from */
	char *error;		/* why not (the last mirror's reason), malloc'ed */
};
typedef void (*pkg_fetch_progress_fn)(void *ctx, uint64_t done, uint64_t total);
/*
 * Download @n packages in parallel, each into memory and verified against
 * its checksum and size; results in each element.  0, or -EINTR when the
 * whole batch failed (interrupted): then every element has an error.
 */
int pkg_remote_fetch(struct pkg_remote *r, struct pkg_fetch *v, size_t n, pkg_fetch_progress_fn fn,
		     void *ctx);

/* --------------------------------------------------------------- cache.c */

/*
 * Records for the cache are written with util/buf.h (little-endian
 * integers, strings with NULL kept apart from "", blobs, each with its
 * length) and read back here: a reader that met anything out of bounds says
 * so in bad (and reads zeroes and NULLs from then on).
 */
struct pkg_rbuf {
	const unsigned char *p;
	size_t n, off;
	bool bad, oom;
};
uint8_t pkg_r_u8(struct pkg_rbuf *b);
uint32_t pkg_r_u32(struct pkg_rbuf *b);
uint64_t pkg_r_u64(struct pkg_rbuf *b);
/* A blob of at most @max bytes, pointing into the buffer. */
const void *pkg_r_bytes(struct pkg_rbuf *b, size_t *len, size_t max);
/* A string of at most @max bytes, malloc'ed; NULL for a NULL string (or when bad). */
char *pkg_r_str(struct pkg_rbuf *b, size_t max);

/*
 * A cache directory (docs/cache.md): records stored under a kind
 * ("packages", "repodata") and a key, for this reader only (pkg_reader_id():
 * a hash of the reading code, fixed at build time).  Thread-safe.
 */
struct pkg_cache;
struct pkg_cache_stats {
	size_t hits, misses, writes;
	size_t corrupt;			/* entries found but not believed */
	char *first_corrupt;		/* "PATH: why" of the first one */
	size_t write_errors;
	char *first_write_error;
};
/*
 * Open (creating it, mode 0755 for root, 0700 otherwise) the cache in @dir.
 * -EPERM when other users could write it (or, for root, when root does not
 * own it): its records decide verdicts.
 */
int pkg_cache_open(const char *dir, struct pkg_cache **out, char **error);
void pkg_cache_free(struct pkg_cache *c);
const char *pkg_cache_dir(const struct pkg_cache *c);
const char *pkg_reader_id(void);
/*
 * The record of @kind and @key (malloc'ed into *@body): 0; -ENOENT when
 * there is none; -EBADMSG when the entry is corrupt (counted in the stats,
 * never returned); -ENOMEM.
 */
int pkg_cache_get(struct pkg_cache *c, const char *kind, const char *key, void **body, size_t *len);
/* A record that was returned but does not decode: counted as corrupt. */
void pkg_cache_reject(struct pkg_cache *c, const char *kind, const char *key, const char *why);
/* Store a record, atomically (temporary file and rename).  0 or a negative errno (counted). */
int pkg_cache_put(struct pkg_cache *c, const char *kind, const char *key, const void *body, size_t len);
/* A copy of the counters (the strings stay the cache's). */
void pkg_cache_stats(struct pkg_cache *c, struct pkg_cache_stats *st);

#endif
