/* A streaming JSON writer.
 *
 * Keeps track of nesting and commas so callers only say what they write. Every string goes
 * through gd_json_escape (quotes, backslashes, control characters, and bytes that are not
 * valid UTF-8 are replaced with U+FFFD so the output always parses). Non-finite numbers are
 * written as null: JSON has no NaN, and an unknown figure is reported as unknown. */
#ifndef GPUDIAG_JSON_H
#define GPUDIAG_JSON_H

#include <stdio.h>

#define GD_JSON_MAX_DEPTH 64

struct gd_json {
	FILE *f;
	int depth;
	int pretty;
	unsigned char has_items[GD_JSON_MAX_DEPTH];
};

void gd_json_init(struct gd_json *j, FILE *f, int pretty);
/* `key` is NULL inside arrays and at the top level. */
void gd_json_obj(struct gd_json *j, const char *key);
void gd_json_obj_end(struct gd_json *j);
void gd_json_arr(struct gd_json *j, const char *key);
void gd_json_arr_end(struct gd_json *j);
void gd_json_str(struct gd_json *j, const char *key, const char *val); /* NULL → null */
void gd_json_int(struct gd_json *j, const char *key, long long val);
void gd_json_num(struct gd_json *j, const char *key, double val);      /* NaN/inf → null */
void gd_json_bool(struct gd_json *j, const char *key, int val);
void gd_json_null(struct gd_json *j, const char *key);
/* Ends the document with a newline. */
void gd_json_end(struct gd_json *j);

/* Writes `s` as a quoted JSON string. */
void gd_json_escape(FILE *f, const char *s);

#endif
