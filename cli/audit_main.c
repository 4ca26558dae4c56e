/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * taintguard-audit: `taintguard audit` as a program of its own, the only
 * one of the command's parts that needs librpm (pkg/); `taintguard` runs it
 * for the audit command, so `taintguard check` works where librpm is not
 * installed (a DKMS-only host).
 */
#include "audit.h"

int main(int argc, char **argv)
{
	/* one thread yet: the module parsers' spawner starts with no lock held */
	tg_reader_init();
	return cmd_audit(argc, argv);
}
