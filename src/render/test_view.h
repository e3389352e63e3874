/* For the renderers' tests: one view of an analysis (terminal text, JSON or the HTML page)
 * rendered into a malloc'd string, as a user would get it. */
#ifndef GPUDIAG_RENDER_TEST_VIEW_H
#define GPUDIAG_RENDER_TEST_VIEW_H

#include "render/report.h"

#include <stdio.h>

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

#endif
