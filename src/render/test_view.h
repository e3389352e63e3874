/* For the renderers' tests: one view of an analysis (terminal text, JSON or the HTML page)
 * rendered into a malloc'd string, as a user would get it. */
#ifndef GPUDIAG_RENDER_TEST_VIEW_H
#define GPUDIAG_RENDER_TEST_VIEW_H

#include "render/report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TEXT, JSON, HTML, VIEWS };

static inline char *view(const struct gd_analysis *a, int which)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	if (!f)
		return NULL;
	if (which == HTML)
		gd_report_html_write(a, f);
	else
		gd_report_render(a, &(struct gd_render_opts){.json = which == JSON}, f);
	fclose(f);
	return buf;
}

/* python3 asserts `expr` over the JSON document d (kc: its summary.kernel_counters, or None);
 * 0 when it holds. */
static inline int json_holds(const char *doc, const char *expr)
{
	char path[] = "/tmp/gd_render_test.XXXXXX", cmd[8192];
	int fd = mkstemp(path), rc;
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f)
		return -1;
	fputs(doc, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); kc=d[\"summary\"].get(\"kernel_counters\"); "
		 "assert eval(sys.argv[2]), sys.argv[2]' '%s' \"%s\"",
		 path, expr);
	rc = system(cmd);
	unlink(path);
	return rc;
}

/* The line of text holding `needle`, copied into buf ("" when none). */
static inline const char *line_of(const char *text, const char *needle, char *buf, size_t n)
{
	const char *at = text ? strstr(text, needle) : NULL, *b, *e;
	buf[0] = 0;
	if (!at)
		return buf;
	for (b = at; b > text && b[-1] != '\n'; b--)
		;
	e = strchr(at, '\n');
	snprintf(buf, n, "%.*s", (int)((e ? e : at + strlen(at)) - b), b);
	return buf;
}

/* How often needle occurs in s. */
static inline int count(const char *s, const char *needle)
{
	int n = 0;
	for (const char *q = s; q && (q = strstr(q, needle)); q += strlen(needle))
		n++;
	return n;
}

#endif
