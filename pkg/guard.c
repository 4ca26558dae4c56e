/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where this process's rpm reads its configuration from, for guard/: the
 * macro path rpm was set up with (the public `macrofiles`, or rpm's default
 * list when unset) with %{_target} and ~ expanded, and %{__plugindir}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rpm/rpmmacro.h>

#include "guard.h"
#include "pkg.h"

/* rpm's default macro path (lib/rpmrc.c setDefaults(), 4.14 to 6.x, vendor "*") */
static char *default_macro_path(void)
{
	const char *c = rpmConfigDir();

	return strf("%s/macros:%s/macros.d/macros.*:%s/platform/%%{_target}/macros:"
			"%s/fileattrs/*.attr:%s/*/macros:/etc/rpm/macros.*:/etc/rpm/macros:"
			"/etc/rpm/%%{_target}/macros:~/.rpmmacros:~/.config/rpm/macros",
			c, c, c, c, c);
}

int pkg_guard_places(struct guard_places *pl, const char *policy)
{
	char *target = rpmExpand("%{?_target}", NULL);
	char *plugindir = rpmExpand("%{?__plugindir}", NULL);
	char *path = macrofiles ? strdup(macrofiles) : default_macro_path();
	int r;

	r = guard_places_init(pl, policy);
	if (r == 0 && (!target || !plugindir || !path))
		r = -ENOMEM;
	if (r == 0)
		r = guard_places_set_macro_path(pl, path, target, getenv("HOME"));
	if (r == 0 && *plugindir)
		r = guard_places_set_plugindir(pl, plugindir);
	if (r == -EINVAL)	/* a relative entry (rpm --macros FILE): not a place a package can reach */
		r = 0;
	free(target);
	free(plugindir);
	free(path);
	return r;
}
