#!/bin/sh
# tg-prop's own PRE_INSTALL: leaves a trace for tests/dkms/run.sh.
[ -d /run/tg-dkms-test ] && echo "kernel=$1 cwd=$(pwd)" > /run/tg-dkms-test/tg-prop-pre-install
# tests/dkms/run.sh's kill point "before install": dkms waits here, after
# taintguard's pre-install hook judged and recorded, before the module is copied
while [ -e /run/tg-dkms-test/hold-pre-install ]; do sleep 0.1; done
echo "tg-prop: own pre_install ran for $1"
exit 0
