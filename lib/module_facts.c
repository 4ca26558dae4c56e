/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A module's facts as bytes, and back.  A prediction reads struct
 * tg_module and nothing else of the file, so a module written here and
 * read back predicts exactly as the one that was read from the .ko: this is
 * how `taintguard audit --cache` keeps modules without keeping packages.
 *
 * The bytes are untrusted on the way back (a cache is a file anyone with
 * the right permissions can edit): a versioned header, every count within
 * the limits the module reader applies (sections, symbols, .modinfo
 * entries) and within the bytes that remain, every enum and flag checked,
 * no NUL inside a string, nothing left over.  Anything else is -EBADMSG.
 *
 * Format (little-endian; a string is a u32 of length + 1, 0 for NULL, then
 * its bytes):
 *   "TGMF" u32 version
 *   str label, file_modname; u32 compression; u64 file_size, image_size
 *   u32 elf_class; u8 big_endian; u32 e_machine; str arch
 *   str name; u64 this_module_size; u64 sections of .gnu.linkonce.this_module,
 *       .modinfo, .symtab
 *   u32 n; n x (str key, str value, str trailing)          .modinfo
 *   u32 n; n x (str name, u8 weak | common << 1)            imports
 *   u32 kind; u32 n; n x (str name, u32 crc)                __versions
 *   u32 n; n x (str name, u8 gpl_only | has_crc << 1, str ns, u32 crc); u8 exports_have_crcs
 *   u8 present, malformed, algo, hash, id_type, signer_len, key_id_len; u32 sig_len;
 *       str signer, key_id, hash_algo                      signature trailer
 *   u8 has_sigdata; then u32 der_len, der bytes; u32 n; n x (i32 nid, u8 len, len bytes)
 *                                                           the PKCS#7 and digests of the
 *                                                           signed bytes (verification)
 *   u32 n; n x str                                          problems
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "keyring.h"
#include "module_internal.h"

#define FACTS_MAGIC "TGMF"
#define FACTS_VERSION 3u	/* 2: the signature data for verification; 3: string table types */
/* One string of a module: a .modinfo description or a symbol name. */
#define MAX_STRING (1u << 20)
#define MAX_PROBLEMS 4096
/* A module's PKCS#7: the kernel's own limit on a signature is far below this. */
#define MAX_SIG_DER (1u << 20)

/*
 * A new field of these structs must be written and read here (and
 * FACTS_VERSION raised), or cached modules would lose it silently: the
 * sizes trip the build when the structs change (LP64 only).
 */
#if defined(__x86_64__) || defined(__aarch64__)
_Static_assert(sizeof(struct tg_module) == 248, "struct tg_module changed: update module_facts.c");
_Static_assert(sizeof(struct tg_signature) == 40, "struct tg_signature changed: update module_facts.c");
_Static_assert(sizeof(struct tg_modinfo) == 24 && sizeof(struct tg_import) == 16 &&
		       sizeof(struct tg_version) == 16 && sizeof(struct tg_export) == 32,
	       "module record structs changed: update module_facts.c");
#endif

/* ------------------------------------------------------------ writing */

static void put_str(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (n >= MAX_STRING) {	/* the reader would refuse it: never write what cannot be read */
		b->oom = true;
		return;
	}
	buf_put_str(b, s);
}

static void put_sigdata(struct buf *b, const struct tg_sigdata *sd)
{
	buf_put_u8(b, sd != NULL);
	if (!sd)
		return;
	if (sd->der_len > MAX_SIG_DER) {	/* never write what cannot be read */
		b->oom = true;
		return;
	}
	buf_put_u32(b, (uint32_t)sd->der_len);
	buf_put(b, sd->der, sd->der_len);
	buf_put_u32(b, (uint32_t)sd->n_digest);
	for (size_t i = 0; i < sd->n_digest; i++) {
		buf_put_u32(b, (uint32_t)sd->digest[i].nid);
		buf_put_u8(b, sd->digest[i].len);
		buf_put(b, sd->digest[i].md, sd->digest[i].len);
	}
}

int tg_module_facts_write(const struct tg_module *m, void **out, size_t *len)
{
	const struct tg_signature *sg = &m->sig;
	struct buf b = { 0 };

	*out = NULL;
	*len = 0;
	buf_put(&b, FACTS_MAGIC, 4);
	buf_put_u32(&b, FACTS_VERSION);
	put_str(&b, m->label);
	put_str(&b, m->file_modname);
	buf_put_u32(&b, (uint32_t)m->compression);
	buf_put_u64(&b, m->file_size);
	buf_put_u64(&b, m->image_size);
	buf_put_u32(&b, (uint32_t)m->elf_class);
	buf_put_u8(&b, m->big_endian);
	buf_put_u32(&b, m->e_machine);
	put_str(&b, m->arch);
	put_str(&b, m->name);
	buf_put_u64(&b, m->this_module_size);
	buf_put_u64(&b, m->n_this_module_sections);
	buf_put_u64(&b, m->n_modinfo_sections);
	buf_put_u64(&b, m->n_symtab_sections);
	buf_put_u8(&b, m->shstrtab_untyped | m->strtab_untyped << 1);
	buf_put_u32(&b, (uint32_t)m->n_modinfo);
	for (size_t i = 0; i < m->n_modinfo; i++) {
		put_str(&b, m->modinfo[i].key);
		put_str(&b, m->modinfo[i].value);
		put_str(&b, m->modinfo[i].trailing);
	}
	buf_put_u32(&b, (uint32_t)m->n_imports);
	for (size_t i = 0; i < m->n_imports; i++) {
		put_str(&b, m->imports[i].name);
		buf_put_u8(&b, m->imports[i].weak | m->imports[i].common << 1);
	}
	buf_put_u32(&b, (uint32_t)m->versions_kind);
	buf_put_u32(&b, (uint32_t)m->n_versions);
	for (size_t i = 0; i < m->n_versions; i++) {
		put_str(&b, m->versions[i].name);
		buf_put_u32(&b, m->versions[i].crc);
	}
	buf_put_u32(&b, (uint32_t)m->n_exports);
	for (size_t i = 0; i < m->n_exports; i++) {
		put_str(&b, m->exports[i].name);
		buf_put_u8(&b, m->exports[i].gpl_only | m->exports[i].has_crc << 1);
		put_str(&b, m->exports[i].ns);
		buf_put_u32(&b, m->exports[i].crc);
	}
	buf_put_u8(&b, m->exports_have_crcs);
	buf_put_u8(&b, sg->present);
	buf_put_u8(&b, sg->malformed);
	buf_put_u8(&b, sg->algo);
	buf_put_u8(&b, sg->hash);
	buf_put_u8(&b, sg->id_type);
	buf_put_u8(&b, sg->signer_len);
	buf_put_u8(&b, sg->key_id_len);
	buf_put_u32(&b, sg->sig_len);
	put_str(&b, sg->signer);
	put_str(&b, sg->key_id);
	put_str(&b, sg->hash_algo);
	put_sigdata(&b, tg_module_priv(m)->sigdata);
	buf_put_u32(&b, (uint32_t)m->n_problems);
	for (size_t i = 0; i < m->n_problems; i++)
		put_str(&b, m->problems[i]);
	if (b.oom) {
		free(b.p);
		return -ENOMEM;
	}
	*out = b.p;
	*len = b.n;
	return 0;
}

/* ------------------------------------------------------------ reading */

struct rb {
	const unsigned char *p;
	size_t n, off;
	bool bad, oom;
	const char *why;	/* the first problem */
};

static bool fail(struct rb *b, const char *why)
{
	if (!b->bad)
		b->why = why;
	b->bad = true;
	return false;
}

static const unsigned char *take(struct rb *b, size_t n)
{
	const unsigned char *p;

	if (b->bad)
		return NULL;
	if (n > b->n - b->off) {
		fail(b, "truncated");
		return NULL;
	}
	p = b->p + b->off;
	b->off += n;
	return p;
}

static uint32_t get_u32(struct rb *b)
{
	const unsigned char *p = take(b, 4);

	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

static uint64_t get_u64(struct rb *b)
{
	uint64_t lo = get_u32(b);

	return lo | (uint64_t)get_u32(b) << 32;
}

static unsigned get_u8(struct rb *b)
{
	const unsigned char *p = take(b, 1);

	return p ? p[0] : 0;
}

static bool get_bool(struct rb *b)
{
	unsigned v = get_u8(b);

	if (v > 1)
		fail(b, "a flag out of range");
	return v == 1;
}

/* A string, copied with malloc (@pool NULL) or into the module's pool. */
static char *get_str(struct rb *b, struct tg_strpool **pool, bool nullable)
{
	uint32_t n = get_u32(b);
	const unsigned char *p;
	char *s;

	if (b->bad)
		return NULL;
	if (n == 0) {
		if (!nullable)
			fail(b, "a required string is missing");
		return NULL;
	}
	if (n - 1 >= MAX_STRING) {
		fail(b, "a string over its cap");
		return NULL;
	}
	p = take(b, n - 1);
	if (!p)
		return NULL;
	if (memchr(p, 0, n - 1)) {
		fail(b, "a NUL inside a string");
		return NULL;
	}
	if (pool) {
		s = tg_strpool_dup(pool, (const char *)p, n - 1);
	} else if ((s = malloc(n))) {
		memcpy(s, p, n - 1);
		s[n - 1] = 0;
	}
	if (!s)
		b->bad = b->oom = true;
	return s;
}

/*
 * A count of elements of at least @min_bytes each, within @cap and within
 * the bytes that remain (no large allocation from a short record).
 */
static size_t get_count(struct rb *b, uint64_t cap, size_t min_bytes)
{
	uint32_t n = get_u32(b);

	if (b->bad)
		return 0;
	if (n > cap)
		return fail(b, "a count over its limit"), 0;
	if ((uint64_t)n * min_bytes > b->n - b->off)
		return fail(b, "a count larger than the record"), 0;
	return n;
}

static void *alloc_array(struct rb *b, size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		b->bad = b->oom = true;
	return p;
}

/* The signature data a verification needs; NULL when the record has none. */
static struct tg_sigdata *get_sigdata(struct rb *b)
{
	struct tg_sigdata *sd;
	const unsigned char *p;
	size_t n;

	if (!get_bool(b) || b->bad)
		return NULL;
	n = get_count(b, MAX_SIG_DER, 1);
	if (b->bad || !(p = take(b, n)))
		return NULL;
	sd = calloc(1, sizeof(*sd));
	if (!sd || !(sd->der = malloc(n ? n : 1))) {
		free(sd);
		b->bad = b->oom = true;
		return NULL;
	}
	memcpy(sd->der, p, n);
	sd->der_len = n;
	n = get_count(b, TG_SIG_MAX_DIGESTS, 5);
	for (size_t i = 0; i < n && !b->bad; i++, sd->n_digest++) {
		sd->digest[i].nid = (int)get_u32(b);
		sd->digest[i].len = get_u8(b);
		if (sd->digest[i].len > sizeof(sd->digest[i].md))
			fail(b, "a digest longer than any");
		else if ((p = take(b, sd->digest[i].len)))
			memcpy(sd->digest[i].md, p, sd->digest[i].len);
	}
	return sd;
}

static void read_body(struct rb *b, struct tg_module *m, const struct tg_limits *lim)
{
	struct tg_strpool **pool = &tg_module_priv(m)->strings;
	struct tg_signature *sg = &m->sig;
	uint32_t u;
	size_t n;

	m->label = get_str(b, NULL, false);
	m->file_modname = get_str(b, NULL, true);
	u = get_u32(b);
	if (u > TG_COMP_GZIP)
		fail(b, "an unknown compression");
	m->compression = (enum tg_compression)u;
	m->file_size = (size_t)get_u64(b);
	m->image_size = (size_t)get_u64(b);
	m->elf_class = (int)get_u32(b);
	if (!b->bad && m->elf_class != 32 && m->elf_class != 64)
		fail(b, "an ELF class other than 32 or 64");
	m->big_endian = get_bool(b);
	m->e_machine = get_u32(b);
	m->arch = get_str(b, pool, true);
	m->name = get_str(b, NULL, true);
	m->this_module_size = (size_t)get_u64(b);
	m->n_this_module_sections = (size_t)get_u64(b);
	m->n_modinfo_sections = (size_t)get_u64(b);
	m->n_symtab_sections = (size_t)get_u64(b);
	{
		unsigned t = get_u8(b);

		if (t > 3)
			fail(b, "string table flags out of range");
		m->shstrtab_untyped = t & 1;
		m->strtab_untyped = t >> 1 & 1;
	}
	if (m->n_this_module_sections > lim->max_sections || m->n_modinfo_sections > lim->max_sections ||
	    m->n_symtab_sections > lim->max_sections)
		fail(b, "a section count over its limit");

	n = get_count(b, lim->max_modinfo, 12);
	if (!b->bad && (m->modinfo = alloc_array(b, n, sizeof(*m->modinfo))))
		for (size_t i = 0; i < n && !b->bad; i++, m->n_modinfo++) {
			m->modinfo[i].key = get_str(b, NULL, false);
			m->modinfo[i].value = get_str(b, NULL, false);
			m->modinfo[i].trailing = get_str(b, NULL, true);
		}

	n = get_count(b, lim->max_symbols, 5);
	if (!b->bad && (m->imports = alloc_array(b, n, sizeof(*m->imports))))
		for (size_t i = 0; i < n && !b->bad; i++, m->n_imports++) {
			unsigned f;

			m->imports[i].name = get_str(b, pool, false);
			f = get_u8(b);
			if (f > 3)
				fail(b, "an import flag out of range");
			m->imports[i].weak = f & 1;
			m->imports[i].common = f & 2;
		}

	u = get_u32(b);
	if (u > TG_VERS_EXTENDED)
		fail(b, "an unknown version table kind");
	m->versions_kind = (enum tg_versions_kind)u;
	n = get_count(b, lim->max_symbols, 8);
	if (!b->bad && (m->versions = alloc_array(b, n, sizeof(*m->versions))))
		for (size_t i = 0; i < n && !b->bad; i++, m->n_versions++) {
			m->versions[i].name = get_str(b, pool, false);
			m->versions[i].crc = get_u32(b);
		}

	n = get_count(b, lim->max_symbols, 13);
	if (!b->bad && (m->exports = alloc_array(b, n, sizeof(*m->exports))))
		for (size_t i = 0; i < n && !b->bad; i++, m->n_exports++) {
			unsigned f;

			m->exports[i].name = get_str(b, pool, false);
			f = get_u8(b);
			if (f > 3)
				fail(b, "an export flag out of range");
			m->exports[i].gpl_only = f & 1;
			m->exports[i].has_crc = f & 2;
			m->exports[i].ns = get_str(b, pool, true);
			m->exports[i].crc = get_u32(b);
		}
	m->exports_have_crcs = get_bool(b);

	sg->present = get_bool(b);
	sg->malformed = get_bool(b);
	sg->algo = (uint8_t)get_u8(b);
	sg->hash = (uint8_t)get_u8(b);
	sg->id_type = (uint8_t)get_u8(b);
	sg->signer_len = (uint8_t)get_u8(b);
	sg->key_id_len = (uint8_t)get_u8(b);
	sg->sig_len = get_u32(b);
	sg->signer = get_str(b, NULL, true);
	sg->key_id = get_str(b, NULL, true);
	sg->hash_algo = get_str(b, NULL, true);
	tg_module_priv(m)->sigdata = get_sigdata(b);

	n = get_count(b, MAX_PROBLEMS, 4);
	if (!b->bad && n && (m->problems = alloc_array(b, n, sizeof(char *))))
		for (size_t i = 0; i < n && !b->bad; i++) {
			m->problems[i] = get_str(b, NULL, false);
			if (m->problems[i])
				m->n_problems++;
		}
}

int tg_module_facts_read(const void *data, size_t len, const struct tg_limits *lim,
			 struct tg_module **out, struct tg_error *err)
{
	struct rb b = { .p = data, .n = len };
	struct tg_limits def;
	struct tg_module *m;
	const unsigned char *magic;
	int r;

	*out = NULL;
	if (!lim) {
		tg_limits_default(&def);
		lim = &def;
	}
	if (len > lim->max_module_size)
		return tg_fail(err, -EFBIG, "module facts: %zu bytes, over the module size limit", len);
	magic = take(&b, 4);
	if (!magic || memcmp(magic, FACTS_MAGIC, 4))
		return tg_fail(err, -EBADMSG, "module facts: not a facts record");
	if (get_u32(&b) != FACTS_VERSION)
		return tg_fail(err, -EBADMSG, "module facts: another format version");
	m = calloc(1, sizeof(struct tg_module_priv));
	if (!m)
		return tg_fail(err, -ENOMEM, "module facts: out of memory");
	read_body(&b, m, lim);
	if (!b.bad && b.off != b.n)
		fail(&b, "bytes after the end");
	if (!b.bad && tg_module_index_versions(m) < 0)
		b.bad = b.oom = true;
	if (b.bad) {
		r = b.oom ? tg_fail(err, -ENOMEM, "module facts: out of memory")
			  : tg_fail(err, -EBADMSG, "module facts: %s at byte %zu", b.why, b.off);
		tg_module_free(m);
		return r;
	}
	*out = m;
	return 0;
}
