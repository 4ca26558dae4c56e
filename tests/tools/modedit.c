// SPDX-License-Identifier: GPL-2.0
/*
 * modedit - in-place edits of a kernel module (.ko) for taintguard's test
 * corpus (tests/modules/build.sh).  The file never changes size (except
 * append-bogus-sig and append-sig, which only append) and no section moves: libelf is used
 * read-only to find offsets, the bytes are written with pwrite().
 *
 *   modedit FILE get-modinfo KEY          print the first KEY= value (exact bytes)
 *   modedit FILE get-name                 print struct module's name field, the
 *                                          name the kernel uses (read from section
 *                                          .gnu.linkonce.this_module at offset 24,
 *                                          or 12 for ELFCLASS32)
 *   modedit FILE set-modinfo KEY VALUE    rewrite the first KEY= entry in place;
 *                                          "KEY=VALUE" must fit in the old entry,
 *                                          the rest is padded with NULs (the kernel
 *                                          and kmod skip runs of NULs)
 *   modedit FILE del-modinfo KEY          overwrite every KEY= entry with NULs
 *   modedit FILE clear-alloc SECTION      clear SHF_ALLOC in SECTION's header
 *                                          (kmod --force-modversion does this to
 *                                          __versions; the loader then ignores it)
 *   modedit FILE set-progbits SECTION     retype SECTION as SHT_PROGBITS (a string
 *                                          table the loader still reads by sh_link /
 *                                          e_shstrndx; libelf's elf_strptr() refuses
 *                                          it; modedit finds sections without it)
 *   modedit FILE replace-string SECTION OLD NEW
 *                                          overwrite every OLD in SECTION's bytes
 *                                          with NEW (same length)
 *   modedit FILE rename-section OLD NEW   rename section OLD to NEW (same length;
 *                                          the bytes in the section name table)
 *   modedit FILE set-size SECTION BYTES   shrink SECTION's sh_size to BYTES (a
 *                                          struct module section of another size)
 *   modedit FILE flip-crc SYMBOL          invert the low 32 bits of SYMBOL's CRC
 *                                          in __versions
 *   modedit FILE append-bogus-sig         append a module signature trailer whose
 *                                          struct module_signature is well formed
 *                                          (id_type PKCS#7) but whose "PKCS#7" blob
 *                                          is garbage: the kernel's PKCS#7 parser
 *                                          fails with -EBADMSG, which is fatal
 *   modedit FILE append-bogus-sig ID_TYPE the same trailer with another id_type
 *                                          (0 PGP, 1 X.509): -ENOPKG, "unsupported
 *                                          crypto", the module counts as unsigned
 *   modedit FILE append-sig P7FILE        append the DER PKCS#7 in P7FILE as the
 *                                          module signature, with the trailer
 *                                          scripts/sign-file writes (for signatures
 *                                          sign-file cannot make: authenticated
 *                                          attributes, carried certificates)
 *
 * Exit status 0 on success, 1 on any error (with a message on stderr).
 * Build: cc -O2 -Wall -o modedit modedit.c -lelf
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MODULE_SIG_STRING "~Module signature appended~\n"

static const char *prog = "modedit";
static const char *path;

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, path ? path : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

struct mod {
	int fd;
	Elf *elf;
	GElf_Ehdr eh;
	size_t shstrndx;
};

static void mod_open(struct mod *m, int rw)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		die("libelf: %s", elf_errmsg(-1));
	m->fd = open(path, rw ? O_RDWR : O_RDONLY);
	if (m->fd < 0)
		die("open: %s", strerror(errno));
	m->elf = elf_begin(m->fd, ELF_C_READ, NULL);
	if (!m->elf || elf_kind(m->elf) != ELF_K_ELF)
		die("not an ELF file (%s)", elf_errmsg(-1));
	if (!gelf_getehdr(m->elf, &m->eh))
		die("ELF header: %s", elf_errmsg(-1));
	if (m->eh.e_type != ET_REL)
		die("not a relocatable object (ET_REL)");
	if (elf_getshdrstrndx(m->elf, &m->shstrndx) != 0)
		die("no section name table: %s", elf_errmsg(-1));
}

static void mod_close(struct mod *m)
{
	elf_end(m->elf);
	if (fsync(m->fd) != 0 && errno != EINVAL)
		die("fsync: %s", strerror(errno));
	close(m->fd);
}

/* Section by name; returns its index (0 when absent). */
/* Names straight from the e_shstrndx section, whatever its type (set-progbits may have retyped it). */
static size_t find_section(struct mod *m, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL, *strscn = elf_getscn(m->elf, m->shstrndx);
	Elf_Data *str = strscn ? elf_rawdata(strscn, NULL) : NULL;

	if (!str || !str->d_size || ((const char *)str->d_buf)[str->d_size - 1])
		die("section name table unreadable");
	while ((scn = elf_nextscn(m->elf, scn))) {
		if (!gelf_getshdr(scn, sh))
			die("section header: %s", elf_errmsg(-1));
		if (sh->sh_name < str->d_size && !strcmp((const char *)str->d_buf + sh->sh_name, name))
			return elf_ndxscn(scn);
	}
	return 0;
}

/* Raw bytes of a section, read straight from the file. */
static unsigned char *read_section(struct mod *m, const char *name, GElf_Shdr *sh)
{
	unsigned char *buf;

	if (!find_section(m, name, sh))
		die("no section %s", name);
	if (sh->sh_type == SHT_NOBITS)
		die("section %s has no contents", name);
	buf = malloc(sh->sh_size + 1);
	if (!buf)
		die("out of memory");
	if (pread(m->fd, buf, sh->sh_size, sh->sh_offset) != (ssize_t)sh->sh_size)
		die("short read of %s", name);
	buf[sh->sh_size] = 0;
	return buf;
}

static void write_at(struct mod *m, const void *p, size_t len, off_t off)
{
	if (pwrite(m->fd, p, len, off) != (ssize_t)len)
		die("write: %s", strerror(errno));
}

/*
 * Write @v at @off in the file's byte order: an Elf64_Xword when @xword and
 * the file is ELFCLASS64, else an Elf32_Word (section header fields such as
 * sh_flags and sh_size are words in ELFCLASS32 files).
 */
static void write_elf_int(struct mod *m, off_t off, uint64_t v, bool xword)
{
	Elf64_Xword x = v, xo;
	Elf32_Word w = (Elf32_Word)v, wo;
	bool wide = xword && gelf_getclass(m->elf) == ELFCLASS64;
	Elf_Data src = { .d_buf = wide ? (void *)&x : (void *)&w, .d_type = wide ? ELF_T_XWORD : ELF_T_WORD,
			 .d_size = wide ? sizeof(x) : sizeof(w), .d_version = EV_CURRENT };
	Elf_Data dst = { .d_buf = wide ? (void *)&xo : (void *)&wo, .d_size = src.d_size,
			 .d_version = EV_CURRENT };

	if (!gelf_xlatetof(m->elf, &dst, &src, m->eh.e_ident[EI_DATA]))
		die("xlate: %s", elf_errmsg(-1));
	write_at(m, dst.d_buf, src.d_size, off);
}

/* File offset of field @off64 (ELFCLASS64) / @off32 (ELFCLASS32) of section @idx's header. */
static off_t shdr_field(struct mod *m, size_t idx, off_t off64, off_t off32)
{
	return m->eh.e_shoff + (off_t)idx * m->eh.e_shentsize +
	       (gelf_getclass(m->elf) == ELFCLASS64 ? off64 : off32);
}

/*
 * Walk .modinfo like the kernel's module_next_tag_pair(): skip NUL runs, each
 * entry runs to the next NUL.  Calls fn for each entry that starts "KEY=".
 */
typedef int (*entry_fn)(struct mod *m, const GElf_Shdr *sh, unsigned char *buf,
			size_t off, size_t len, void *arg);

static int for_each_modinfo(struct mod *m, const char *key, entry_fn fn, void *arg)
{
	GElf_Shdr sh;
	unsigned char *buf = read_section(m, ".modinfo", &sh);
	size_t klen = strlen(key), i = 0;
	int n = 0;

	while (i < sh.sh_size) {
		size_t len;

		if (!buf[i]) {
			i++;
			continue;
		}
		len = strnlen((char *)buf + i, sh.sh_size - i);
		if (len > klen && !memcmp(buf + i, key, klen) && buf[i + klen] == '=') {
			n++;
			if (fn(m, &sh, buf, i, len, arg))
				break;
		}
		i += len;
	}
	free(buf);
	return n;
}

static int get_fn(struct mod *m, const GElf_Shdr *sh, unsigned char *buf,
		  size_t off, size_t len, void *arg)
{
	size_t klen = strlen(arg);

	(void)m;
	(void)sh;
	fwrite(buf + off + klen + 1, 1, len - klen - 1, stdout);
	putchar('\n');
	return 1;
}

struct set_arg {
	const char *key, *value;
};

static int set_fn(struct mod *m, const GElf_Shdr *sh, unsigned char *buf,
		  size_t off, size_t len, void *arg)
{
	struct set_arg *a = arg;
	size_t nlen = strlen(a->key) + 1 + strlen(a->value);
	char *e;

	(void)buf;
	if (nlen > len)
		die("%s=%s is %zu bytes, the old entry only %zu", a->key, a->value, nlen, len);
	e = calloc(1, len);
	if (!e)
		die("out of memory");
	memcpy(e, a->key, strlen(a->key));
	e[strlen(a->key)] = '=';
	memcpy(e + strlen(a->key) + 1, a->value, strlen(a->value));
	write_at(m, e, len, sh->sh_offset + off);
	free(e);
	return 1;
}

static int del_fn(struct mod *m, const GElf_Shdr *sh, unsigned char *buf,
		  size_t off, size_t len, void *arg)
{
	char *z = calloc(1, len);

	(void)buf;
	(void)arg;
	if (!z)
		die("out of memory");
	write_at(m, z, len, sh->sh_offset + off);
	free(z);
	return 0;
}

static void clear_alloc(struct mod *m, const char *name)
{
	GElf_Shdr sh;
	size_t idx = find_section(m, name, &sh);

	if (!idx)
		die("no section %s", name);
	if (!(sh.sh_flags & SHF_ALLOC)) {
		fprintf(stderr, "%s: %s: %s already has no SHF_ALLOC\n", prog, path, name);
		return;
	}
	/* sh_flags: offset 8 in both Elf32_Shdr and Elf64_Shdr */
	write_elf_int(m, shdr_field(m, idx, 8, 8), sh.sh_flags & ~(GElf_Xword)SHF_ALLOC, true);
}

/* sh_type: an Elf32_Word at offset 4 in both Elf32_Shdr and Elf64_Shdr. */
static void set_progbits(struct mod *m, const char *name)
{
	GElf_Shdr sh;
	size_t idx = find_section(m, name, &sh);

	if (!idx)
		die("no section %s", name);
	write_elf_int(m, shdr_field(m, idx, 4, 4), SHT_PROGBITS, false);
}

static void replace_string(struct mod *m, const char *name, const char *from, const char *to)
{
	GElf_Shdr sh;
	unsigned char *buf = read_section(m, name, &sh);
	size_t n = strlen(from), hits = 0;

	if (!n || strlen(to) != n)
		die("replace-string: %s and %s must have the same, non-zero length", from, to);
	for (size_t i = 0; i + n <= sh.sh_size; i++)
		if (!memcmp(buf + i, from, n)) {
			write_at(m, to, n, (off_t)(sh.sh_offset + i));
			hits++;
			i += n - 1;
		}
	free(buf);
	if (!hits)
		die("no %s in %s", from, name);
}

/* The name's bytes in the section name table, overwritten in place. */
static void rename_section(struct mod *m, const char *from, const char *to)
{
	GElf_Shdr sh, strsh;
	size_t idx = find_section(m, from, &sh);
	Elf_Scn *strscn = elf_getscn(m->elf, m->shstrndx);

	if (!idx)
		die("no section %s", from);
	if (strlen(to) != strlen(from))
		die("new name %s: not the length of %s", to, from);
	if (!strscn || !gelf_getshdr(strscn, &strsh))
		die("section name table: %s", elf_errmsg(-1));
	write_at(m, to, strlen(to), (off_t)(strsh.sh_offset + sh.sh_name));
}

/* sh_size: Elf64_Xword at offset 32 of Elf64_Shdr, Elf32_Word at 20 of Elf32_Shdr. */
static void set_size(struct mod *m, const char *name, const char *bytes)
{
	GElf_Shdr sh;
	size_t idx = find_section(m, name, &sh);
	char *end;
	unsigned long long n = strtoull(bytes, &end, 0);

	if (!idx)
		die("no section %s", name);
	if (*end || !*bytes || n > sh.sh_size)
		die("size %s: not a number no larger than %#llx", bytes, (unsigned long long)sh.sh_size);
	write_elf_int(m, shdr_field(m, idx, 32, 20), n, true);
}

/*
 * __versions = array of struct modversion_info { unsigned long crc;
 * char name[64 - sizeof(unsigned long)]; }: 64-byte records on both
 * 32- and 64-bit (4+60 or 8+56).  Invert the low 32 bits of the CRC (the
 * kernel compares the whole unsigned long with a 32-bit CRC, so the upper
 * bits stay 0 and the record stays otherwise valid).
 */
static void flip_crc(struct mod *m, const char *sym)
{
	GElf_Shdr sh;
	unsigned char *buf = read_section(m, "__versions", &sh);
	size_t csz = gelf_getclass(m->elf) == ELFCLASS64 ? 8 : 4, i;
	int le = m->eh.e_ident[EI_DATA] == ELFDATA2LSB;

	if (sh.sh_size % 64)
		die("__versions size %#lx is not a multiple of 64", (unsigned long)sh.sh_size);
	for (i = 0; i < sh.sh_size; i += 64) {
		unsigned char *r = buf + i;
		size_t nlen = strnlen((char *)r + csz, 64 - csz);

		if (nlen == strlen(sym) && !memcmp(r + csz, sym, nlen)) {
			/* low 32 bits: first 4 bytes (LE) or last 4 bytes of the word (BE) */
			unsigned char *lo = le ? r : r + csz - 4;

			for (int b = 0; b < 4; b++)
				lo[b] ^= 0xff;
			write_at(m, r, csz, sh.sh_offset + i);
			free(buf);
			return;
		}
	}
	free(buf);
	die("no __versions record for %s", sym);
}

/*
 * [ELF][fake "PKCS#7", 16 bytes][struct module_signature, 12 bytes][magic, 28 bytes]
 * struct module_signature { u8 algo, hash, id_type, signer_len, key_id_len;
 *                           u8 __pad[3]; __be32 sig_len; }
 * mod_check_sig() accepts it (id_type 2 = PKEY_ID_PKCS7, other fields 0,
 * sig_len < size); pkcs7_parse_message() then rejects the blob: -EBADMSG.
 */
static void append_bogus_sig(struct mod *m, unsigned char id_type)
{
	static const unsigned char blob[16] = "TG-BOGUS-PKCS7!";
	unsigned char tail[28];
	unsigned char ms[12] = { 0, 0, id_type, 0, 0, 0, 0, 0, 0, 0, 0, sizeof(blob) };
	struct stat st;

	if (fstat(m->fd, &st) != 0)
		die("stat: %s", strerror(errno));
	if (st.st_size >= 28 &&
	    pread(m->fd, tail, 28, st.st_size - 28) == 28 &&
	    !memcmp(tail, MODULE_SIG_STRING, 28))
		die("already has a signature trailer");
	write_at(m, blob, sizeof(blob), st.st_size);
	write_at(m, ms, sizeof(ms), st.st_size + sizeof(blob));
	write_at(m, MODULE_SIG_STRING, 28, st.st_size + sizeof(blob) + sizeof(ms));
}

/*
 * Append @p7file (a DER PKCS#7, e.g. from openssl cms -sign) as the module
 * signature, with the trailer scripts/sign-file writes: what sign-file
 * does, for signatures it cannot make (authenticated attributes, carried
 * certificates).
 */
static void append_sig(struct mod *m, const char *p7file)
{
	unsigned char tail[28], ms[12] = { 0, 0, 2 /* PKEY_ID_PKCS7 */ }, *buf;
	struct stat st, pst;
	int fd = open(p7file, O_RDONLY);

	if (fd < 0 || fstat(fd, &pst) != 0 || pst.st_size <= 0 || pst.st_size > (1 << 20))
		die("%s: cannot read a PKCS#7 of sane size", p7file);
	buf = malloc((size_t)pst.st_size);
	if (!buf || pread(fd, buf, (size_t)pst.st_size, 0) != pst.st_size)
		die("%s: read failed", p7file);
	close(fd);
	if (fstat(m->fd, &st) != 0)
		die("stat: %s", strerror(errno));
	if (st.st_size >= 28 && pread(m->fd, tail, 28, st.st_size - 28) == 28 &&
	    !memcmp(tail, MODULE_SIG_STRING, 28))
		die("already has a signature trailer");
	ms[8] = (unsigned char)(pst.st_size >> 24);
	ms[9] = (unsigned char)(pst.st_size >> 16);
	ms[10] = (unsigned char)(pst.st_size >> 8);
	ms[11] = (unsigned char)pst.st_size;
	write_at(m, buf, (size_t)pst.st_size, st.st_size);
	write_at(m, ms, sizeof(ms), st.st_size + pst.st_size);
	write_at(m, MODULE_SIG_STRING, 28, st.st_size + pst.st_size + sizeof(ms));
	free(buf);
}

static void get_name(struct mod *m)
{
	GElf_Shdr sh;
	unsigned char *buf = read_section(m, ".gnu.linkonce.this_module", &sh);
	size_t off = gelf_getclass(m->elf) == ELFCLASS64 ? 24 : 12;

	if (sh.sh_size <= off)
		die(".gnu.linkonce.this_module is too small (%#lx)", (unsigned long)sh.sh_size);
	printf("%.*s\n", (int)strnlen((char *)buf + off, sh.sh_size - off), (char *)buf + off);
	free(buf);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s FILE get-modinfo KEY\n"
		"       %s FILE get-name\n"
		"       %s FILE set-modinfo KEY VALUE\n"
		"       %s FILE del-modinfo KEY\n"
		"       %s FILE clear-alloc SECTION\n"
		"       %s FILE set-progbits SECTION\n"
		"       %s FILE set-size SECTION BYTES\n"
		"       %s FILE rename-section OLD NEW\n"
		"       %s FILE replace-string SECTION OLD NEW\n"
		"       %s FILE flip-crc SYMBOL\n"
		"       %s FILE append-bogus-sig [ID_TYPE]\n"
		"       %s FILE append-sig PKCS7_DER_FILE\n", prog, prog, prog, prog, prog, prog, prog, prog,
		prog, prog, prog, prog);
	exit(2);
}

int main(int argc, char **argv)
{
	struct mod m;
	const char *cmd;

	if (argc < 3)
		usage();
	path = argv[1];
	cmd = argv[2];
	if (!strcmp(cmd, "get-modinfo") && argc == 4) {
		mod_open(&m, 0);
		if (!for_each_modinfo(&m, argv[3], get_fn, argv[3]))
			die("no %s= entry in .modinfo", argv[3]);
	} else if (!strcmp(cmd, "get-name") && argc == 3) {
		mod_open(&m, 0);
		get_name(&m);
	} else if (!strcmp(cmd, "set-modinfo") && argc == 5) {
		struct set_arg a = { argv[3], argv[4] };

		mod_open(&m, 1);
		if (!for_each_modinfo(&m, argv[3], set_fn, &a))
			die("no %s= entry in .modinfo", argv[3]);
	} else if (!strcmp(cmd, "del-modinfo") && argc == 4) {
		mod_open(&m, 1);
		if (!for_each_modinfo(&m, argv[3], del_fn, NULL))
			die("no %s= entry in .modinfo", argv[3]);
	} else if (!strcmp(cmd, "clear-alloc") && argc == 4) {
		mod_open(&m, 1);
		clear_alloc(&m, argv[3]);
	} else if (!strcmp(cmd, "set-progbits") && argc == 4) {
		mod_open(&m, 1);
		set_progbits(&m, argv[3]);
	} else if (!strcmp(cmd, "replace-string") && argc == 6) {
		mod_open(&m, 1);
		replace_string(&m, argv[3], argv[4], argv[5]);
	} else if (!strcmp(cmd, "rename-section") && argc == 5) {
		mod_open(&m, 1);
		rename_section(&m, argv[3], argv[4]);
	} else if (!strcmp(cmd, "set-size") && argc == 5) {
		mod_open(&m, 1);
		set_size(&m, argv[3], argv[4]);
	} else if (!strcmp(cmd, "flip-crc") && argc == 4) {
		mod_open(&m, 1);
		flip_crc(&m, argv[3]);
	} else if (!strcmp(cmd, "append-bogus-sig") && (argc == 3 || argc == 4)) {
		char *end = NULL;
		unsigned long id = argc == 4 ? strtoul(argv[3], &end, 0) : 2;	/* PKEY_ID_PKCS7 */

		if (argc == 4 && (*end || id > 255))
			usage();
		mod_open(&m, 1);
		append_bogus_sig(&m, (unsigned char)id);
	} else if (!strcmp(cmd, "append-sig") && argc == 4) {
		mod_open(&m, 1);
		append_sig(&m, argv[3]);
	} else {
		usage();
	}
	mod_close(&m);
	return 0;
}
