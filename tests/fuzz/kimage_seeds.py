#!/usr/bin/env python3
"""Seed kernel images for the kimage fuzz harness (tests/fuzz/seeds.sh).

Small synthetic kernels that carry a certificate list laid out as kbuild lays
it out (certs/system_certificates.S): an arm64 Image, an ELF vmlinux with
.init.data, each compressed the ways kbuild compresses kernels, wrapped in a
bzImage setup header or an EFI zboot header, and one with a System.map.
Usage: kimage_seeds.py OUTDIR CERT.der
"""
import gzip
import lzma
import os
import struct
import subprocess
import sys

out, certfile = sys.argv[1:3]
cert = open(certfile, "rb").read()
AT = 0x2000


def with_list(buf, at):
    """The list at @at, then (8-aligned) its length and module_cert_size."""
    buf[at:at + len(cert)] = cert
    q = (at + len(cert) + 7) & ~7
    buf[q:q + 16] = struct.pack("<QQ", len(cert), len(cert))
    return buf


def arm64_image():
    img = bytearray((i * 7 + 3) & 0xFF for i in range(0x10000))
    img[0x38:0x3C] = b"ARM\x64"
    return bytes(with_list(img, AT))


def elf_vmlinux():
    body = with_list(bytearray(0x4000), 0x800)
    shstr = b"\0.init.data\0.shstrtab\0"
    data_off, vaddr = 0x1000, 0xFFFFFFFF83000000
    shoff = data_off + len(body) + len(shstr)
    eh = (b"\x7fELF\x02\x01\x01" + bytes(9) +
          struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, vaddr, 64, shoff, 0, 64, 56, 1, 64, 3, 2))
    ph = struct.pack("<IIQQQQQQ", 1, 6, data_off, vaddr, vaddr, len(body), len(body), 0x1000)
    img = bytearray(eh + ph)
    img += bytes(data_off - len(img)) + body + shstr
    sh = bytes(64)
    sh += struct.pack("<IIQQQQIIQQ", 1, 1, 3, vaddr, data_off, len(body), 0, 0, 8, 0)
    sh += struct.pack("<IIQQQQIIQQ", 12, 3, 0, 0, data_off + len(body), len(shstr), 0, 0, 1, 0)
    return bytes(img + sh)


def run(cmd, data):
    return subprocess.run(cmd, input=data, stdout=subprocess.PIPE, check=True).stdout


def compressed(data):
    size = struct.pack("<I", len(data))  # kbuild's size_append
    return {
        "gz": gzip.compress(data, mtime=0),
        "xz": lzma.compress(data, check=lzma.CHECK_CRC32, preset=0) + size,
        "lzma": lzma.compress(data, format=lzma.FORMAT_ALONE, preset=0) + size,
        "zst": run(["zstd", "-q", "-c"], data) + size,
        "lz4": run(["lz4", "-q", "-l", "-c"], data) + size,
    }


def bzimage(payload):
    setup = bytearray(1024)  # setup_sects = 1: the payload area starts at 2 * 512
    setup[0x1F1] = 1
    setup[0x202:0x206] = b"HdrS"
    setup[0x206:0x208] = struct.pack("<H", 0x20F)
    setup[0x248:0x250] = struct.pack("<II", 0x40, len(payload))
    return bytes(setup) + bytes(0x40) + payload


def zboot(payload):
    head = bytearray(0x200)
    head[0:2] = b"MZ"
    head[4:8] = b"zimg"
    head[8:16] = struct.pack("<II", len(head), len(payload))
    head[24:28] = b"gzip"
    return bytes(head) + payload


def put(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


image, vmlinux = arm64_image(), elf_vmlinux()
put("Image", image)
put("vmlinux", vmlinux)
for kind, z in compressed(image).items():
    put("Image." + kind, z)
for kind, z in compressed(vmlinux).items():
    put("bzImage." + kind, bzimage(z))
put("zboot", zboot(gzip.compress(image, mtime=0)))
base = 0xFFFF800008000000
put("Image.map", b"SYSMAP\n%016x T _text\n%016x D system_certificate_list\n"
    b"%016x D system_certificate_list_size\n\n" % (base, base + AT, base + ((AT + len(cert) + 7) & ~7))
    + image)
