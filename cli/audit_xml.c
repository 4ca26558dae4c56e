/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * XML text for the JUnit reports (audit_report.c, audit_kernels.c): both
 * reports write strings from untrusted modules and packages, escaped here.
 */
#include <stdio.h>

#include "audit.h"

void report_xml_text(FILE *out, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		switch (*p) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&apos;", out); break;
		default:
			/* XML 1.0 forbids most controls; module strings are untrusted. */
			if (*p < 0x20 && *p != '\n' && *p != '\t')
				fputc('?', out);
			else if (*p >= 0x80)
				fprintf(out, "&#x%02X;", *p);	/* byte as Latin-1: always well-formed */
			else
				fputc(*p, out);
		}
	}
}
