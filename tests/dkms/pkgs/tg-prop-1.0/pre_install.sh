#!/bin/sh
# tg-prop's own PRE_INSTALL: leaves a trace for tests/dkms/run.sh.
[ -d /run/tg-dkms-test ] && echo "kernel=$1 cwd=$(pwd)" > /run/tg-dkms-test/tg-prop-pre-install
echo "tg-prop: own pre_install ran for $1"
exit 0
