/* Tables for scripts: CSV, TSV and JSON rows through one writer (see table.h). */
#include "core/table.h"

#include "core/json.h"
#include "core/out.h"
#include "core/status.h"

#include <math.h>
#include <string.h>

static const char *const names[] = {"terminal", "json", "csv", "tsv"};

const char *gd_format_name(int format)
{
	return format >= 0 && format <= GD_FMT_TSV ? names[format] : "?";
}

static void list_tables(const char *const *tables, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = 0;
	for (int i = 0; tables && tables[i] && o < n; i++)
		o += (size_t)snprintf(buf + o, n - o, "%s%s", i ? ", " : "", tables[i]);
}

int gd_format_pick(const char *who, const char *format, int json, const char *const *tables, const char *table,
		   int *out)
{
	int f = json ? GD_FMT_JSON : GD_FMT_TERMINAL;
	char list[512];
	if (format) {
		int i;
		for (i = 0; i <= GD_FMT_TSV; i++)
			if (!strcmp(format, names[i]))
				break;
		if (i > GD_FMT_TSV && !strcmp(format, "text"))
			i = GD_FMT_TERMINAL;
		if (i > GD_FMT_TSV)
			return gd_error(GD_EUSAGE, "%s: --format must be terminal, json, csv or tsv, not '%s'", who, format);
		if (json && i != GD_FMT_JSON)
			return gd_error(GD_EUSAGE, "%s: --json and --format %s ask for two formats; give one", who, format);
		f = i;
	}
	if (table) {
		int found = 0;
		if (!tables)
			return gd_error(GD_EUSAGE, "%s: prints one table; --table does not apply", who);
		if (f != GD_FMT_CSV && f != GD_FMT_TSV)
			return gd_error(GD_EUSAGE, "%s: --table picks a table of --format csv or tsv", who);
		for (int i = 0; tables[i]; i++)
			found |= !strcmp(tables[i], table);
		if (!found) {
			list_tables(tables, list, sizeof list);
			return gd_error(GD_EUSAGE, "%s: no table '%s' (tables: %s)", who, table, list);
		}
	}
	*out = f;
	return GD_OK;
}

void gd_tw_init(struct gd_tw *w, FILE *f, int format, struct gd_json *j, const char *want, int several)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->format = format;
	w->j = j;
	w->want = want;
	w->several = several && !want;
	w->tty = f == stdout && gd_is_tty();
}

void gd_tw_field(FILE *f, const char *s, char sep)
{
	const char special[] = {sep, '"', '\r', '\n', 0};
	if (!strpbrk(s, special)) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static char sep_of(const struct gd_tw *w) { return w->format == GD_FMT_TSV ? '\t' : ','; }

int gd_tw_begin(struct gd_tw *w, const char *name, const char *json_key, const char *const *cols, int ncols)
{
	w->cols = cols;
	w->ncols = ncols;
	w->col = 0;
	w->in_row = 0;
	w->on = !w->want || !strcmp(w->want, name);
	if (!w->on)
		return 0;
	if (w->format == GD_FMT_JSON) {
		gd_json_arr(w->j, json_key ? json_key : name);
	} else {
		if (w->several)
			fprintf(w->f, "%s# table: %s\n", w->written ? "\n" : "", name);
		for (int c = 0; c < ncols; c++) {
			if (c)
				fputc(sep_of(w), w->f);
			gd_tw_field(w->f, cols[c], sep_of(w));
		}
		fputc('\n', w->f);
	}
	w->written++;
	return 1;
}

void gd_tw_row(struct gd_tw *w)
{
	if (!w->on)
		return;
	w->col = 0;
	w->in_row = 1;
	if (w->format == GD_FMT_JSON)
		gd_json_obj(w->j, NULL);
}

/* The key of the next cell (JSON), or the separator before it (CSV/TSV); 0 when the row is
 * full or the table is left out (the cell is dropped). */
static const char *next_cell(struct gd_tw *w)
{
	const char *key;
	if (!w->on || !w->in_row || w->col >= w->ncols)
		return NULL;
	key = w->cols[w->col];
	if (w->format != GD_FMT_JSON && w->col)
		fputc(sep_of(w), w->f);
	w->col++;
	return key;
}

void gd_tw_str(struct gd_tw *w, const char *s)
{
	const char *key = next_cell(w);
	if (!key)
		return;
	if (w->format == GD_FMT_JSON)
		gd_json_str(w->j, key, s);
	else if (s)
		gd_tw_field(w->f, w->tty ? gd_tty(s) : s, sep_of(w));
}

void gd_tw_int(struct gd_tw *w, long long v)
{
	const char *key = next_cell(w);
	if (!key)
		return;
	if (w->format == GD_FMT_JSON)
		gd_json_int(w->j, key, v);
	else
		fprintf(w->f, "%lld", v);
}

/* As the JSON writer writes numbers: whole numbers without a fraction, else 15 digits. */
void gd_tw_num(struct gd_tw *w, double v)
{
	const char *key = next_cell(w);
	if (!key)
		return;
	if (w->format == GD_FMT_JSON)
		gd_json_num(w->j, key, v);
	else if (!isfinite(v))
		; /* unknown: an empty field */
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(w->f, "%.0f", v);
	else
		fprintf(w->f, "%.15g", v);
}

void gd_tw_bool(struct gd_tw *w, int v)
{
	const char *key = next_cell(w);
	if (!key)
		return;
	if (w->format == GD_FMT_JSON)
		gd_json_bool(w->j, key, v);
	else
		fputs(v ? "true" : "false", w->f);
}

void gd_tw_null(struct gd_tw *w)
{
	const char *key = next_cell(w);
	if (key && w->format == GD_FMT_JSON)
		gd_json_null(w->j, key);
}

void gd_tw_row_end(struct gd_tw *w)
{
	if (!w->on || !w->in_row)
		return;
	while (w->col < w->ncols)
		gd_tw_null(w);
	if (w->format == GD_FMT_JSON)
		gd_json_obj_end(w->j);
	else
		fputc('\n', w->f);
	w->in_row = 0;
}

void gd_tw_end(struct gd_tw *w)
{
	if (w->on && w->format == GD_FMT_JSON)
		gd_json_arr_end(w->j);
	w->on = 0;
}
