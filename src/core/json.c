/* Streaming JSON writer; see json.h. */
#include "core/json.h"

#include <math.h>
#include <string.h>

void gd_json_init(struct gd_json *j, FILE *f, int pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static void indent(struct gd_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Emits the separator and the key for a new item at the current depth. */
static void item(struct gd_json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			fputc(',', j->f);
		j->has_items[j->depth] = 1;
		indent(j);
	}
	if (key) {
		gd_json_escape(j->f, key);
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open(struct gd_json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < GD_JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = 0;
}

static void close_(struct gd_json *j, char c)
{
	int had = j->has_items[j->depth];
	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void gd_json_obj(struct gd_json *j, const char *key) { open(j, key, '{'); }
void gd_json_obj_end(struct gd_json *j) { close_(j, '}'); }
void gd_json_arr(struct gd_json *j, const char *key) { open(j, key, '['); }
void gd_json_arr_end(struct gd_json *j) { close_(j, ']'); }

void gd_json_str(struct gd_json *j, const char *key, const char *val)
{
	item(j, key);
	if (val)
		gd_json_escape(j->f, val);
	else
		fputs("null", j->f);
}

void gd_json_int(struct gd_json *j, const char *key, long long val)
{
	item(j, key);
	fprintf(j->f, "%lld", val);
}

void gd_json_num(struct gd_json *j, const char *key, double val)
{
	item(j, key);
	if (!isfinite(val))
		fputs("null", j->f);
	else if (val == floor(val) && fabs(val) < 1e15)
		fprintf(j->f, "%.0f", val);
	else
		fprintf(j->f, "%.15g", val);
}

void gd_json_bool(struct gd_json *j, const char *key, int val)
{
	item(j, key);
	fputs(val ? "true" : "false", j->f);
}

void gd_json_null(struct gd_json *j, const char *key)
{
	item(j, key);
	fputs("null", j->f);
}

void gd_json_end(struct gd_json *j) { fputc('\n', j->f); }

/* Length of the valid UTF-8 sequence starting at s, or 0 if it is invalid. */
static int utf8_len(const unsigned char *s)
{
	int n;
	unsigned cp;
	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xE0) == 0xC0) {
		n = 2;
		cp = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		n = 3;
		cp = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		n = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	for (int i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	/* reject overlong forms, surrogates and values past U+10FFFF */
	if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
		return 0;
	return n;
}

void gd_json_escape(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	fputc('"', f);
	while (*s) {
		unsigned char c = *s;
		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			s++;
		} else if (c == '\n') {
			fputs("\\n", f);
			s++;
		} else if (c == '\t') {
			fputs("\\t", f);
			s++;
		} else if (c == '\r') {
			fputs("\\r", f);
			s++;
		} else if (c < 0x20 || c == 0x7F) {
			fprintf(f, "\\u%04x", c);
			s++;
		} else if (c < 0x80) {
			fputc(c, f);
			s++;
		} else {
			int n = utf8_len(s);
			if (n == 0) {
				fputs("\\ufffd", f);
				s++;
			} else {
				fwrite(s, 1, (size_t)n, f);
				s += n;
			}
		}
	}
	fputc('"', f);
}
