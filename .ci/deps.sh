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
  librpm-dev rpm rpm2cpio cpio
  gnupg
  liblua5.2-0
  libjson-c-dev
  libcmocka-dev
  linux-headers-amd64 linux-image-amd64 kmod
  dkms
  qemu-system-x86 busybox-static
  createrepo-c
  clang libclang-rt-14-dev valgrind
  python3 man-db groff-base
  mmdebstrap
"
if [ "$(id -u)" -ne 0 ]; then
	echo "deps.sh: run as root (apt-get install)" >&2
	exit 1
fi
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $PKGS >/dev/null
