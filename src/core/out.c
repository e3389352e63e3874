/* Terminal output helpers; see out.h. */
#include "core/out.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int color_on, tty;

void gd_out_init(FILE *f, int no_color)
{
	const char *nc = getenv("NO_COLOR");
	tty = isatty(fileno(f));
	color_on = tty && !no_color && !(nc && *nc) && !(getenv("TERM") && !strcmp(getenv("TERM"), "dumb"));
}

int gd_color(void) { return color_on; }
int gd_is_tty(void) { return tty; }
const char *gd_bold(void) { return color_on ? "\033[1m" : ""; }
const char *gd_dim(void) { return color_on ? "\033[2m" : ""; }
const char *gd_red(void) { return color_on ? "\033[31m" : ""; }
const char *gd_yellow(void) { return color_on ? "\033[33m" : ""; }
const char *gd_green(void) { return color_on ? "\033[32m" : ""; }
const char *gd_cyan(void) { return color_on ? "\033[36m" : ""; }
const char *gd_reset(void) { return color_on ? "\033[0m" : ""; }

char *gd_fmt_si(char *buf, size_t n, double v, const char *unit)
{
	static const char *pre[] = {"", "k", "M", "G", "T", "P", "E"};
	int i = 0;
	double a = fabs(v);
	if (!isfinite(v)) {
		snprintf(buf, n, "unknown");
		return buf;
	}
	while (a >= 999.95 && i < 6) {
		a /= 1000.0;
		v /= 1000.0;
		i++;
	}
	snprintf(buf, n, a >= 99.95 ? "%.0f %s%s" : a >= 9.995 ? "%.1f %s%s" : "%.2f %s%s", v, pre[i], unit);
	return buf;
}

char *gd_fmt_bytes(char *buf, size_t n, double b)
{
	static const char *pre[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	int i = 0;
	if (!isfinite(b)) {
		snprintf(buf, n, "unknown");
		return buf;
	}
	while (fabs(b) >= 1024.0 && i < 5) {
		b /= 1024.0;
		i++;
	}
	if (i == 0 || b == floor(b))
		snprintf(buf, n, "%.0f %s", b, pre[i]);
	else
		snprintf(buf, n, "%.1f %s", b, pre[i]);
	return buf;
}

char *gd_fmt_time(char *buf, size_t n, double ns)
{
	double a = fabs(ns);
	if (!isfinite(ns))
		snprintf(buf, n, "unknown");
	else if (a < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (a < 1e6)
		snprintf(buf, n, a < 1e4 ? "%.2f µs" : "%.1f µs", ns / 1e3);
	else if (a < 1e9)
		snprintf(buf, n, a < 1e7 ? "%.2f ms" : "%.1f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", ns / 1e9);
	return buf;
}

char *gd_fmt_pct(char *buf, size_t n, double frac)
{
	if (!isfinite(frac))
		snprintf(buf, n, "unknown");
	else
		snprintf(buf, n, "%.1f %%", frac * 100.0);
	return buf;
}

char *gd_fmt_time_pct(char *buf, size_t n, double ns, double whole)
{
	char t[48], p[48];
	snprintf(buf, n, "%s %s", gd_fmt_time(t, sizeof(t), ns), gd_fmt_pct(p, sizeof(p), whole > 0 ? ns / whole : NAN));
	return buf;
}

const char *gd_tty(const char *s)
{
	static char buf[GD_TTY_SLOTS][4096];
	static unsigned next;
	char *o = buf[next++ % GD_TTY_SLOTS];
	size_t n = 0, cap = sizeof(buf[0]) - 8; /* room for one escape and the NUL */
	if (!s)
		return "";
	for (const unsigned char *q = (const unsigned char *)s; *q && n < cap; q++) {
		if (*q < 0x20 || *q == 0x7f)
			n += (size_t)snprintf(o + n, 8, "\\x%02x", *q);
		else if (*q == 0xc2 && q[1] >= 0x80 && q[1] <= 0x9f)
			n += (size_t)snprintf(o + n, 8, "\\u00%02x", *++q);
		else
			o[n++] = (char)*q;
	}
	o[n] = 0;
	return o;
}

size_t gd_display_width(const char *s)
{
	size_t w = 0;
	int in_esc = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == 0x1b) {
			in_esc = 1;
			continue;
		}
		if (in_esc) {
			if (*p == 'm')
				in_esc = 0;
			continue;
		}
		if ((*p & 0xC0) != 0x80)
			w++;
	}
	return w;
}

void gd_table_init(struct gd_table *t, int ncols)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols > GD_TABLE_MAX_COLS ? GD_TABLE_MAX_COLS : ncols;
}

void gd_table_align_right(struct gd_table *t, int col)
{
	if (col >= 0 && col < t->ncols)
		t->right[col] = 1;
}

void gd_table_row(struct gd_table *t, const char *const *cells)
{
	if (t->nrows == t->cap) {
		int cap = t->cap ? t->cap * 2 : 16;
		char **c = realloc(t->cells, sizeof(char *) * (size_t)cap * (size_t)t->ncols);
		if (!c)
			return;
		t->cells = c;
		t->cap = cap;
	}
	for (int i = 0; i < t->ncols; i++)
		t->cells[t->nrows * t->ncols + i] = strdup(cells[i] ? cells[i] : "");
	t->nrows++;
}

void gd_table_rowv(struct gd_table *t, ...)
{
	const char *cells[GD_TABLE_MAX_COLS];
	va_list ap;
	va_start(ap, t);
	for (int i = 0; i < t->ncols; i++)
		cells[i] = va_arg(ap, const char *);
	va_end(ap);
	gd_table_row(t, cells);
}

void gd_table_print(const struct gd_table *t, FILE *f, int indent)
{
	size_t w[GD_TABLE_MAX_COLS] = {0};
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t d = gd_display_width(t->cells[r * t->ncols + c]);
			if (d > w[c])
				w[c] = d;
		}
	for (int r = 0; r < t->nrows; r++) {
		fprintf(f, "%*s", indent, "");
		if (r == 0)
			fputs(gd_bold(), f);
		for (int c = 0; c < t->ncols; c++) {
			const char *s = t->cells[r * t->ncols + c];
			size_t pad = w[c] - gd_display_width(s);
			int last = c == t->ncols - 1;
			if (t->right[c])
				fprintf(f, "%*s%s", (int)pad, "", s);
			else
				fprintf(f, "%s%*s", s, last ? 0 : (int)pad, "");
			if (!last)
				fputs("  ", f);
		}
		if (r == 0)
			fputs(gd_reset(), f);
		fputc('\n', f);
	}
}

void gd_table_free(struct gd_table *t)
{
	for (int i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	memset(t, 0, sizeof(*t));
}

char *gd_fmt_interval(char *b, size_t n, long long ns)
{
	if (ns % 1000 == 0)
		snprintf(b, n, "%lld µs", ns / 1000);
	else
		snprintf(b, n, "%lld ns", ns);
	return b;
}
