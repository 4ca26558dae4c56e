#!/bin/sh
# Install or remove taintguard's DKMS integration.
#
#   hooks/install.sh [--uninstall] [DESTDIR]
#
# Environment: PREFIX (/usr/local), LIBEXECDIR ($PREFIX/libexec), SYSCONFDIR
# (/etc), B (build dir holding taintguard-dkms, default build), DKMS (path of
# the dkms command, /usr/sbin/dkms).
#
# Lays down (see taintguard-dkms(8)):
#   $LIBEXECDIR/taintguard/taintguard-dkms (+ -sign and -pre-install links)
#   /etc/dkms/framework.conf.d/zz-taintguard.conf     sign_file (and, on dkms
#                                                     >= 3.2, post_transaction)
#   /etc/kernel/postinst.d/dkms-taintguard            kernel upgrade safety net
#   /etc/kernel/install.d/41-taintguard-dkms.install  (only next to 40-dkms.install)
#   /usr/sbin/dkms wrapper over "dpkg-divert --rename" (Debian/Ubuntu, DESTDIR
#   empty only; with DESTDIR the wrapper is left in $LIBEXECDIR/taintguard for
#   a package's maintainer scripts)
# --uninstall removes all of it, restores /usr/sbin/dkms, and removes the
# modprobe.d rules and dkms records taintguard-dkms wrote.
set -eu

uninstall=
if [ "${1:-}" = --uninstall ]; then
	uninstall=1
	shift
fi
DESTDIR=${1:-${DESTDIR:-}}
PREFIX=${PREFIX:-/usr/local}
LIBEXECDIR=${LIBEXECDIR:-$PREFIX/libexec}
SYSCONFDIR=${SYSCONFDIR:-/etc}
B=${B:-build}
DKMS=${DKMS:-/usr/sbin/dkms}
here=$(cd "$(dirname "$0")" && pwd)

HOOKDIR=$LIBEXECDIR/taintguard
HOOK=$HOOKDIR/taintguard-dkms
SNIPPET=$SYSCONFDIR/dkms/framework.conf.d/zz-taintguard.conf
KHOOK=$SYSCONFDIR/kernel/postinst.d/dkms-taintguard
KINSTALL=$SYSCONFDIR/kernel/install.d/41-taintguard-dkms.install
DIVERTED=$DKMS.distrib
MODPROBE_DIR=$SYSCONFDIR/modprobe.d
MARKS=/var/lib/taintguard/marks

say() { echo "taintguard-dkms install: $*"; }

case $HOOKDIR in
*[!A-Za-z0-9_./+-]*) say "LIBEXECDIR '$LIBEXECDIR' has characters dkms cannot take in a PRE_INSTALL directive" >&2; exit 1 ;;
esac

# sign_file (or another variable) as dkms computes it, without our snippet.
framework_value() {
	bash -c '
		v=$1 own=$2 fw=$3; kernelver=${4:-}
		for f in "$fw" "$fw".d/*.conf; do
			[ -f "$f" ] || continue
			[ -e "$own" ] && [ "$f" -ef "$own" ] && continue
			. "$f" >/dev/null 2>&1 </dev/null
		done
		printf "%s" "${!v}"' tg "$1" "$DESTDIR$SNIPPET" "$DESTDIR$SYSCONFDIR/dkms/framework.conf" "${2:-}"
}

dkms_at_least() { # MAJOR MINOR
	v=$("$DKMS" --version 2>/dev/null | sed -n 's/^dkms[- ]\{1,\}\([0-9][0-9.]*\).*/\1/p' | head -n 1)
	[ -n "$v" ] || return 1
	maj=${v%%.*}; rest=${v#*.}; min=${rest%%.*}
	[ "$maj" -gt "$1" ] || { [ "$maj" -eq "$1" ] && [ "$min" -ge "$2" ]; }
}

sq() { # single-quote for a POSIX shell assignment
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

is_ours() { [ -f "$1" ] && grep -q "$2" "$1"; }

install_files() {
	[ -x "$B/taintguard-dkms" ] || { say "$B/taintguard-dkms not built (run make)" >&2; exit 1; }
	install -d "$DESTDIR$HOOKDIR"
	install -m 755 "$B/taintguard-dkms" "$DESTDIR$HOOK"
	ln -sf taintguard-dkms "$DESTDIR$HOOKDIR/taintguard-dkms-sign"
	ln -sf taintguard-dkms "$DESTDIR$HOOKDIR/taintguard-dkms-pre-install"

	# framework.conf.d: POSIX, assignments only (Debian's postinst sources it with sh -e).
	prev_sign=$(framework_value sign_file '${kernelver}' || :)
	install -d "$DESTDIR$SYSCONFDIR/dkms/framework.conf.d"
	{
		echo "# Installed by taintguard (hooks/install.sh); removed by hooks/install.sh --uninstall."
		echo "# dkms calls sign_file for every module it builds (dkms >= 3.0.4).  taintguard-dkms"
		echo "# signs it with the signer dkms would have used, then judges it against the"
		echo "# taintguard policy.  See taintguard-dkms(8)."
		echo "# Signer before taintguard: ${prev_sign:-dkms default}"
		echo "sign_file=\"$HOOKDIR/taintguard-dkms-sign\""
		if [ -z "$DESTDIR" ] && dkms_at_least 3 2; then
			prev_pt=$(framework_value post_transaction || :)
			echo "# dkms >= 3.2: drop records and modprobe.d rules of removed modules."
			if [ -n "$prev_pt" ]; then
				echo "post_transaction=$(sq "$prev_pt; $HOOK sync")"
			else
				echo "post_transaction=$(sq "$HOOK sync")"
			fi
		fi
	} > "$DESTDIR$SNIPPET.tmp"
	chmod 644 "$DESTDIR$SNIPPET.tmp"
	mv -f "$DESTDIR$SNIPPET.tmp" "$DESTDIR$SNIPPET"
	say "installed $SNIPPET (chaining to: ${prev_sign:-dkms default signer})"

	if [ -n "$DESTDIR" ] || [ -d "$SYSCONFDIR/kernel/postinst.d" ]; then
		install -d "$DESTDIR$SYSCONFDIR/kernel/postinst.d"
		sed -e "s|@HOOK@|$HOOK|g" -e "s|@SYSCONFDIR@|$SYSCONFDIR|g" "$here/kernel-postinst.in" \
			> "$DESTDIR$KHOOK"
		chmod 755 "$DESTDIR$KHOOK"
		say "installed $KHOOK"
	fi
	if [ -n "$DESTDIR" ] || [ -e /usr/lib/kernel/install.d/40-dkms.install ]; then
		install -d "$DESTDIR$SYSCONFDIR/kernel/install.d"
		sed -e "s|@HOOK@|$HOOK|g" "$here/kernel-install.in" > "$DESTDIR$KINSTALL"
		chmod 755 "$DESTDIR$KINSTALL"
		say "installed $KINSTALL"
	fi

	rel=../../../../../../../../../../../../../../../..$HOOKDIR/taintguard-dkms-pre-install
	wrapper() {
		sed -e "s|@REAL@|$DIVERTED|g" -e "s|@HOOK@|$HOOK|g" -e "s|@REL@|$rel|g" \
			"$here/dkms-wrapper.in"
	}
	if [ -n "$DESTDIR" ]; then
		wrapper > "$DESTDIR$HOOKDIR/dkms-wrapper"
		chmod 755 "$DESTDIR$HOOKDIR/dkms-wrapper"
		say "DESTDIR set: $HOOKDIR/dkms-wrapper left for the package to divert $DKMS"
		return 0
	fi
	if ! command -v dpkg-divert >/dev/null 2>&1; then
		say "no dpkg-divert: no dkms wrapper; denials rely on sign_file and the kernel hook (see taintguard-dkms(8))"
		return 0
	fi
	if is_ours "$DKMS" taintguard-dkms-wrapper; then
		:	# already diverted by us: refresh the wrapper
	else
		divert_to=$(dpkg-divert --truename "$DKMS")
		if [ "$divert_to" != "$DKMS" ]; then
			say "$DKMS is already diverted to $divert_to by someone else; no dkms wrapper" >&2
			return 0
		fi
		[ -e "$DKMS" ] || { say "no $DKMS: no dkms wrapper" >&2; return 0; }
		dpkg-divert --local --rename --divert "$DIVERTED" --add "$DKMS" >/dev/null
	fi
	wrapper > "$DKMS.tg-tmp"
	chmod 755 "$DKMS.tg-tmp"
	mv -f "$DKMS.tg-tmp" "$DKMS"
	say "installed the dkms wrapper $DKMS (real dkms: $DIVERTED)"
}

uninstall_files() {
	if [ -z "$DESTDIR" ] && is_ours "$DKMS" taintguard-dkms-wrapper; then
		rm -f "$DKMS"
		dpkg-divert --local --rename --divert "$DIVERTED" --remove "$DKMS" >/dev/null
		say "restored $DKMS"
	fi
	rm -f "$DESTDIR$HOOKDIR/dkms-wrapper"
	if is_ours "$DESTDIR$SNIPPET" "Installed by taintguard"; then
		rm -f "$DESTDIR$SNIPPET"
		say "removed $SNIPPET"
	fi
	for f in "$DESTDIR$KHOOK" "$DESTDIR$KINSTALL"; do
		if is_ours "$f" taintguard-dkms-kernel-hook; then
			rm -f "$f"
			say "removed ${f#"$DESTDIR"}"
		fi
	done
	if [ -z "$DESTDIR" ]; then
		for f in "$MODPROBE_DIR"/taintguard-*.conf; do
			if is_ours "$f" "^# Written by taintguard-dkms"; then
				rm -f "$f"
				say "removed $f"
			fi
		done
		for f in "$MARKS"/dkms-*.json; do
			if is_ours "$f" '"source":"dkms"'; then
				rm -f "$f"
			fi
		done
	fi
	rm -f "$DESTDIR$HOOKDIR/taintguard-dkms-sign" "$DESTDIR$HOOKDIR/taintguard-dkms-pre-install" \
		"$DESTDIR$HOOK"
	rmdir "$DESTDIR$HOOKDIR" 2>/dev/null || :
	say "removed $HOOKDIR/taintguard-dkms"
}

if [ -n "$uninstall" ]; then
	uninstall_files
else
	install_files
fi
