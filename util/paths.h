/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where taintguard is installed.  The Makefile passes each of these with
 * -D from PREFIX, BINDIR, DATADIR, SYSCONFDIR and LIBEXECDIR; the values
 * here are its defaults, for a compiler run outside it.
 */
#ifndef UTIL_PATHS_H
#define UTIL_PATHS_H

#ifndef TG_BINDIR
#define TG_BINDIR "/usr/local/bin"
#endif
#ifndef TG_DATADIR
#define TG_DATADIR "/usr/local/share/taintguard"
#endif
#ifndef TG_LIBEXECDIR
#define TG_LIBEXECDIR "/usr/local/libexec/taintguard"
#endif
#ifndef TG_SYSCONFDIR
#define TG_SYSCONFDIR "/etc/taintguard"
#endif
#ifndef TG_CACHEDIR
#define TG_CACHEDIR "/var/cache/taintguard"
#endif
#ifndef TG_LOCALSTATEDIR
#define TG_LOCALSTATEDIR "/var/lib/taintguard"
#endif

#endif
