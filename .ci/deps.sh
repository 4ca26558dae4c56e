#!/bin/sh
# Install everything taintguard needs to build and test on Debian 12 (as root).
# Each package is named for what it brings; README.md lists the same.
set -eu
export DEBIAN_FRONTEND=noninteractive
PKGS="
  build-essential pkg-config
  libelf-dev
  libyaml-dev
  liblzma-dev xz-utils
  libzstd-dev zstd
  zlib1g-dev
  liblz4-dev lz4
  libssl-dev openssl
  nettle-dev libgmp-dev
  librpm-dev rpm rpm2cpio cpio
  gnupg
  liblua5.2-0
  libjson-c-dev
  libcmocka-dev
  linux-headers-amd64 linux-image-amd64 kmod dwarves
  dkms
  qemu-system-x86 busybox-static
  qemu-system-arm gcc-aarch64-linux-gnu
  qemu-system-misc gcc-s390x-linux-gnu
  qemu-system-ppc gcc-powerpc64le-linux-gnu
  libseccomp-dev
  createrepo-c
  dnf zypper
  librepo-dev libcreaterepo-c0 libglib2.0-dev
  wget
  clang libclang-rt-14-dev valgrind
  python3 man-db groff-base
  strace
  mmdebstrap
"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: run as root (apt-get install)" >&2
	exit 1
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $PKGS >/dev/null

# createrepo_c's headers.  On Debian 12 libcreaterepo-c-dev cannot be installed
# beside librepo-dev: it needs libcurl4-openssl-dev, librepo-dev needs
# libcurl4-gnutls-dev, and the two conflict.  The library itself
# (libcreaterepo-c0) is installed above; the headers of the same version are
# taken from its -dev package (downloaded and checked by apt) and unpacked into
# a directory of their own that the Makefile knows (CREATEREPO_C_DIR).  Where
# the -dev package installs (Fedora, Debian 13) pkg-config finds it instead.
CRC_DIR=${CREATEREPO_C_DIR:-/opt/taintguard-build/createrepo_c}
if ! pkg-config --exists createrepo_c && [ ! -f "$CRC_DIR/include/createrepo_c/xml_parser.h" ]; then
	v=$(dpkg-query -W -f='${Version}' libcreaterepo-c0)
	t=$(mktemp -d)
	chown _apt "$t" 2>/dev/null || true
	(cd "$t" && apt-get download -qq "libcreaterepo-c-dev=$v" >/dev/null)
	mkdir -p "$t/x" "$CRC_DIR"
	dpkg-deb -x "$t"/libcreaterepo-c-dev_*.deb "$t/x"
	rm -rf "$CRC_DIR/include"
	cp -r "$t/x/usr/include" "$CRC_DIR/include"
	rm -rf "$t"
fi
