#!/bin/bash
# One run of rpm's autotest suite, inside the bookworm-rpmsuite chroot (under a
# scratch layer: what this writes outside the build tree vanishes), called by
# tests/rpm-suite/run.sh.  Usage: inroot.sh plain|taintguard TESTSDIR INDIR JOBS
# INDIR holds taintguard.so, macros.transaction_taintguard and default.yaml.
# Prints the suite's own output, and "proof: " lines: rpm -vv in the test root.
set -u
name=$1 t=$2 in=$3 jobs=$4
cd "$t" || exit 2
# populate_testing links the host's /etc/mtab (the last of a list: when it is
# missing, the loop fails); the bare chroot has none (scratch layer: gone after)
[ -e /etc/mtab ] || ln -s ../proc/self/mounts /etc/mtab
# a fresh test root and atlocal, as "make check" makes them
# ("make check" with --list: its check programs, atlocal and test root, and
# only the list of tests from rpmtests)
rm -f atlocal
make check TESTSUITEFLAGS=--list >populate.log 2>&1 || { tail -n 30 populate.log; exit 2; }
rm -rf rpmtests.dir testsuite.log proof
# the test root's configuration, as the tests see it (atconfig, then atlocal)
cfg=$(. ./atconfig && . ./atlocal && echo "$RPM_CONFIGDIR" &&
	rpm --eval '%{__plugindir}') || exit 2
confdir=${cfg%%$'\n'*} plugindir=${cfg#*$'\n'}
echo "# $name: configuration $confdir, plugins $plugindir"
if [ "$name" = taintguard ]; then
	chmod -R u+w testing
	# runroot() (fakechroot: paths inside the test root) and run() and the
	# Python tests (rpm outside it, with the test root's configuration)
	for root in "$PWD/testing" ""; do
		install -D -m 755 "$in/taintguard.so" "$root$plugindir/taintguard.so"
		install -D -m 644 "$in/default.yaml" "$root/usr/local/share/taintguard/default.yaml"
	done
	install -m 644 "$in/macros.transaction_taintguard" "$confdir/macros.d/"
	chmod -R u-w testing
	# runroot passes --noplugins, which would keep every plugin out of every
	# test; only ours is in %__plugindir, so without it ours alone is loaded
	echo "proof: plugin directory: $(ls "testing$plugindir" | tr "\n" " ")"
	sed -i 's/ --noplugins / /' atlocal
	grep -q -- '--noplugins' atlocal && { echo "atlocal still has --noplugins"; exit 2; }
fi

# The proof: a test transaction in a copy of the test root, as RPMTEST_SETUP
# makes one, with both ways the tests call rpm.
mkdir proof
(
	cd proof || exit 2
	. ../atconfig && . ../atlocal || exit 2
	cp -aP "$RPMTEST" . && chmod -R u+w testing
	RPMTEST=$PWD/testing HOME=$PWD/testing
	export RPMTEST HOME
	runroot rpm --initdb
	runroot rpm -vv -U --test --nodeps /data/RPMS/hello-2.0-1.x86_64.rpm 2>&1 | sed 's/^/proof: runroot: /'
	run rpm -vv -U --test --nodeps "$RPMTEST/data/RPMS/hello-2.0-1.x86_64.rpm" 2>&1 | sed 's/^/proof: run: /'
)
chmod -R u+w proof && rm -rf proof

shell=$(sed -n 's/^SHELL = //p' Makefile)
"${shell:-/bin/sh}" ./rpmtests -j"$jobs"
