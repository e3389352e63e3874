/* The measured-ceilings cache: one small text file per GPU in the user's cache directory,
 * "<cache>/roofline-<uuid>.txt", one "key value" pair per line. Text rather than binary so
 * a user can read it, and so that a file from an older gpudiag with fewer keys still loads
 * (missing keys stay NaN = not measured). "nan" marks a figure that was not measured. */
#include "roofline/ceilings.h"

#include "core/fileio.h"
#include "core/status.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void gd_ceilings_clear(struct gd_ceilings *c)
{
	memset(c, 0, sizeof *c);
	c->measured_at = NAN;
	c->sm_clock_mhz = -1;
	c->dram_read = c->dram_write = c->dram_copy = NAN;
	c->l2 = c->smem = c->l1 = NAN;
	c->sfu = NAN;
	c->failed[0] = 0;
	for (int i = 0; i < GD_P_COUNT; i++)
		c->cuda_core[i] = c->tensor[i] = c->gemm_lib[i] = NAN;
}

/* A UUID as a file-name part: only [A-Za-z0-9-], others become '_'. */
static void safe_name(const char *uuid, char *out, size_t n)
{
	size_t i = 0;
	for (; uuid[i] && i + 1 < n; i++) {
		char ch = uuid[i];
		int ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-';
		out[i] = ok ? ch : '_';
	}
	out[i] = 0;
}

/* create: make the cache folder (to write the file), else only name it (to read). */
static int ceilings_path(const char *uuid, char *buf, size_t n, int create)
{
	char dir[4096], name[128];
	if (!uuid || !*uuid || (create ? gd_cache_dir(dir, sizeof dir) : gd_cache_dir_name(dir, sizeof dir)))
		return -1;
	safe_name(uuid, name, sizeof name);
	if ((size_t)snprintf(buf, n, "%s/roofline-%s.txt", dir, name) >= n)
		return -1;
	return 0;
}

int gd_ceilings_path(const char *uuid, char *buf, size_t n) { return ceilings_path(uuid, buf, n, 0); }

/* Key names for the per-precision arrays: "<group>.<prec>". */
static void prec_key(char *buf, size_t n, const char *group, int p)
{
	snprintf(buf, n, "%s.%s", group, gd_prec_name((enum gd_prec)p));
}

static void put_num(FILE *f, const char *key, double v)
{
	if (isfinite(v))
		fprintf(f, "%s %.17g\n", key, v);
	else
		fprintf(f, "%s nan\n", key);
}

/* Text values must stay on one line. */
static void put_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "%s ", key);
	for (; *v; v++)
		fputc(*v == '\n' || *v == '\r' ? ' ' : *v, f);
	fputc('\n', f);
}

int gd_ceilings_write(const struct gd_ceilings *c, FILE *f)
{
	char key[64];
	fprintf(f, "# gpudiag measured ceilings (gpudiag roofline); bytes/s and FLOP/s\n");
	put_str(f, "format", "1");
	put_str(f, "uuid", c->uuid);
	put_str(f, "gpu_name", c->gpu_name);
	put_str(f, "driver", c->driver);
	put_num(f, "measured_at", c->measured_at);
	fprintf(f, "sm_clock_mhz %d\n", c->sm_clock_mhz);
	put_num(f, "dram_read", c->dram_read);
	put_num(f, "dram_write", c->dram_write);
	put_num(f, "dram_copy", c->dram_copy);
	put_num(f, "l2", c->l2);
	put_num(f, "smem", c->smem);
	put_num(f, "l1", c->l1);
	put_num(f, "sfu", c->sfu);
	if (c->failed[0])
		put_str(f, "failed", c->failed);
	for (int p = 0; p < GD_P_COUNT; p++) {
		prec_key(key, sizeof key, "cuda_core", p);
		put_num(f, key, c->cuda_core[p]);
		prec_key(key, sizeof key, "tensor", p);
		put_num(f, key, c->tensor[p]);
		prec_key(key, sizeof key, "gemm_lib", p);
		put_num(f, key, c->gemm_lib[p]);
	}
	return ferror(f) ? GD_EFAIL : GD_OK;
}

static double parse_num(const char *v)
{
	char *end;
	double d;
	if (!strncmp(v, "nan", 3))
		return NAN;
	d = strtod(v, &end);
	return end == v ? NAN : d;
}

int gd_ceilings_parse(const char *text, struct gd_ceilings *c)
{
	char key[64];
	int have_uuid = 0, fmt_ok = 0;
	gd_ceilings_clear(c);
	for (const char *line = text; line && *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		char buf[512];
		if (len >= sizeof buf)
			len = sizeof buf - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		line = eol ? eol + 1 : NULL;
		if (!buf[0] || buf[0] == '#')
			continue;
		char *sp = strchr(buf, ' ');
		if (!sp)
			continue;
		*sp = 0;
		const char *k = buf, *v = sp + 1;
		if (!strcmp(k, "format")) {
			fmt_ok = !strcmp(v, "1");
		} else if (!strcmp(k, "uuid")) {
			snprintf(c->uuid, sizeof c->uuid, "%s", v);
			have_uuid = 1;
		} else if (!strcmp(k, "gpu_name")) {
			snprintf(c->gpu_name, sizeof c->gpu_name, "%s", v);
		} else if (!strcmp(k, "driver")) {
			snprintf(c->driver, sizeof c->driver, "%s", v);
		} else if (!strcmp(k, "measured_at")) {
			c->measured_at = parse_num(v);
		} else if (!strcmp(k, "sm_clock_mhz")) {
			c->sm_clock_mhz = atoi(v);
		} else if (!strcmp(k, "dram_read")) {
			c->dram_read = parse_num(v);
		} else if (!strcmp(k, "dram_write")) {
			c->dram_write = parse_num(v);
		} else if (!strcmp(k, "dram_copy")) {
			c->dram_copy = parse_num(v);
		} else if (!strcmp(k, "l2")) {
			c->l2 = parse_num(v);
		} else if (!strcmp(k, "smem")) {
			c->smem = parse_num(v);
		} else if (!strcmp(k, "l1")) {
			c->l1 = parse_num(v);
		} else if (!strcmp(k, "failed")) {
			snprintf(c->failed, sizeof c->failed, "%s", v);
		} else if (!strcmp(k, "sfu")) {
			c->sfu = parse_num(v);
		} else {
			for (int p = 0; p < GD_P_COUNT; p++) {
				prec_key(key, sizeof key, "cuda_core", p);
				if (!strcmp(k, key))
					c->cuda_core[p] = parse_num(v);
				prec_key(key, sizeof key, "tensor", p);
				if (!strcmp(k, key))
					c->tensor[p] = parse_num(v);
				prec_key(key, sizeof key, "gemm_lib", p);
				if (!strcmp(k, key))
					c->gemm_lib[p] = parse_num(v);
			}
		}
	}
	return have_uuid && fmt_ok ? 0 : -1;
}

int gd_ceilings_load(const char *uuid, const char *driver, struct gd_ceilings *c)
{
	char path[4096];
	size_t len;
	char *text;
	gd_ceilings_clear(c);
	if (gd_ceilings_path(uuid, path, sizeof path))
		return -1;
	text = gd_read_file(path, &len);
	if (!text)
		return -1;
	int rc = gd_ceilings_parse(text, c);
	free(text);
	if (rc || strcmp(c->uuid, uuid) || (driver && *driver && strcmp(c->driver, driver))) {
		gd_ceilings_clear(c);
		return -1;
	}
	return 0;
}

int gd_ceilings_save(const struct gd_ceilings *c)
{
	char path[4096];
	struct gd_atomic a;
	FILE *f;
	if (ceilings_path(c->uuid, path, sizeof path, 1))
		return gd_error(GD_EFAIL, "roofline: no cache directory for the ceilings (set XDG_CACHE_HOME or HOME)");
	if (!(f = gd_atomic_open(&a, path)))
		return GD_EFAIL;
	if (gd_ceilings_write(c, f) != GD_OK) {
		gd_atomic_abort(&a);
		return gd_error(GD_EFAIL, "roofline: cannot write '%s'", path);
	}
	return gd_atomic_commit(&a);
}

int gd_ceilings_list(char paths[][4096], int max)
{
	char dir[4096];
	struct dirent *e;
	DIR *d;
	int n = 0;
	if (gd_cache_dir_name(dir, sizeof dir) || !(d = opendir(dir)))
		return 0;
	while ((e = readdir(d)) && n < max) {
		size_t len = strlen(e->d_name);
		if (strncmp(e->d_name, "roofline-", 9) || len < 13 || strcmp(e->d_name + len - 4, ".txt"))
			continue;
		snprintf(paths[n++], 4096, "%.2000s/%.2000s", dir, e->d_name);
	}
	closedir(d);
	return n;
}
