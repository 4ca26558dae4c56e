/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A kernel image read (kimage.c): the compressed kernel found inside its
 * container (x86 bzImage, EFI zboot, s390 image, or none), decoded
 * (decompress.h) as far as needed, and identified as an ELF vmlinux or a raw
 * arm64/riscv Image or s390 vmlinux.bin;
 * the ELF's program headers, sections and symbols read straight from the
 * bytes.  The certificate search (kimage_certs.c) reads through it.  Not
 * installed.
 */
#ifndef TG_KIMAGE_H
#define TG_KIMAGE_H

#include "decompress.h"

/* The decoded kernel: an ELF vmlinux, or a raw Image whose byte 0 is _text. */
struct tg_kimg {
	const unsigned char *p;
	size_t len;
	bool elf, is64, be;
	const char *what;	/* "ELF vmlinux", "arm64 Image", ... */
};

/* A kernel image being read: decoded again, further, when more is needed. */
struct tg_kread {
	const unsigned char *payload;	/* compressed kernel, or the image itself */
	size_t payload_len;
	enum tg_kzip zip;
	uint64_t cap;
	bool s390;			/* the payload is s390's raw vmlinux.bin (big endian) */
	unsigned char *buf;		/* decoded bytes (NULL when not compressed) */
	struct tg_kimg k;
};

/* *container of an s390 image (compared by address): its payload is a raw s390 kernel. */
extern const char tg_kimage_s390[];

/*
 * Where the compressed kernel is inside the file @d: *container names the
 * container (NULL: none, the whole file).  -EPROTONOSUPPORT for a bzImage
 * of boot protocol before 2.08, -EBADMSG when the payload lies outside.
 */
int tg_kimage_payload(const unsigned char *d, size_t n, const unsigned char **pl, size_t *pln,
		      const char **container);
/*
 * Decode the first @want bytes (all with UINT64_MAX) and identify them:
 * tg_kzip_decode()'s errors, -ENOEXEC when neither ELF nor Image, -EBADMSG
 * for an ELF header of unknown class or byte order.
 */
int tg_kread_decode(struct tg_kread *r, uint64_t want);
/* Make sure the first @need decoded bytes are there (decoding again, further). */
int tg_kread_need(struct tg_kread *r, uint64_t need);

/* The @size-byte integer at @q in the image's byte order; the caller checked the bounds. */
uint64_t tg_kimg_word(const struct tg_kimg *k, const unsigned char *q, unsigned size);

/* ELF only: end of the program header table (what must be decoded to map addresses); 0 if none. */
uint64_t tg_kimg_phdrs_end(const struct tg_kimg *k);
/* ELF only: file offset of virtual address @va through the PT_LOAD segments. */
bool tg_kimg_va_to_off(const struct tg_kimg *k, uint64_t va, uint64_t *off);
/* ELF only: value of symbol @name in .symtab (an uncompressed vmlinux keeps it). */
bool tg_kimg_symbol(const struct tg_kimg *k, const char *name, uint64_t *value);

struct tg_kimg_sec {
	const char *name;	/* NUL-terminated inside the image, or "" */
	uint32_t type;
	uint64_t off, size, link, entsize;
};
/* ELF only: the number of section headers (0 when none are usable). */
unsigned tg_kimg_shnum(const struct tg_kimg *k);
/* ELF only: section @i, false when out of range or its contents lie outside the image. */
bool tg_kimg_section(const struct tg_kimg *k, unsigned i, struct tg_kimg_sec *s);

#endif
