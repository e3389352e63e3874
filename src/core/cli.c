/* Option parsing for subcommands; see cli.h. */
#include "core/cli.h"

#include "core/status.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gd_parse_int(const char *s, int *out)
{
	char *end;
	long v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int gd_parse_double(const char *s, double *out)
{
	char *end;
	double v;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

int gd_parse_size(const char *s, long long *out)
{
	char *end;
	double v, mul = 1;
	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -1;
	if (*end) {
		/* Sizes here are memory sizes: K, Ki and KiB all mean 1024 (as CUDA's "48 KB"). */
		int bin = end[1] == 'i' || end[1] == 'I';
		double base = 1024.0;
		switch (end[0]) {
		case 'k': case 'K': mul = base; break;
		case 'm': case 'M': mul = base * base; break;
		case 'g': case 'G': mul = base * base * base; break;
		default: return -1;
		}
		end += bin ? 2 : 1;
		if (*end == 'B' || *end == 'b')
			end++;
		if (*end)
			return -1;
	}
	v *= mul;
	if (v > 9.0e18 || v != floor(v))
		return -1;
	*out = (long long)v;
	return 0;
}

static const struct gd_opt *find(const struct gd_opt *opts, const char *name, size_t len)
{
	for (const struct gd_opt *o = opts; o && o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static int store(const char *cmd, const struct gd_opt *o, const char *val)
{
	switch (o->kind) {
	case GD_OPT_FLAG:
		*(int *)o->dest = 1;
		return GD_OK;
	case GD_OPT_STR:
		*(const char **)o->dest = val;
		return GD_OK;
	case GD_OPT_INT:
		if (gd_parse_int(val, (int *)o->dest))
			return gd_error(GD_EUSAGE, "%s: --%s needs an integer, not '%s'", cmd, o->name, val);
		return GD_OK;
	case GD_OPT_LONG:
		if (gd_parse_size(val, (long long *)o->dest))
			return gd_error(GD_EUSAGE, "%s: --%s needs a size such as 4096, 48K or 1Gi, not '%s'",
					cmd, o->name, val);
		return GD_OK;
	case GD_OPT_DOUBLE:
		if (gd_parse_double(val, (double *)o->dest))
			return gd_error(GD_EUSAGE, "%s: --%s needs a number, not '%s'", cmd, o->name, val);
		return GD_OK;
	}
	return GD_EUSAGE;
}

int gd_parse_opts(const char *cmd, int argc, char **argv, const struct gd_opt *opts,
		  char **pos, int max_pos, int *npos, int stop_at_first_positional)
{
	int n = 0, only_pos = 0;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!only_pos && !strcmp(a, "--")) {
			only_pos = 1;
			continue;
		}
		if (!only_pos && a[0] == '-' && a[1] == '-' && a[2]) {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct gd_opt *o = find(opts, name, len);
			const char *val = eq ? eq + 1 : NULL;
			int rc;
			if (!o)
				return gd_error(GD_EUSAGE, "%s: unknown option '--%.*s' (see 'gpudiag help %s')",
						cmd, (int)len, name, cmd);
			if (o->kind == GD_OPT_FLAG && val)
				return gd_error(GD_EUSAGE, "%s: --%s takes no value", cmd, o->name);
			if (o->kind != GD_OPT_FLAG && !val) {
				if (i + 1 >= argc)
					return gd_error(GD_EUSAGE, "%s: --%s needs a value", cmd, o->name);
				val = argv[++i];
			}
			if ((rc = store(cmd, o, val)) != GD_OK)
				return rc;
			continue;
		}
		if (!only_pos && a[0] == '-' && a[1] && strcmp(a, "-"))
			return gd_error(GD_EUSAGE, "%s: unknown option '%s' (see 'gpudiag help %s')", cmd, a, cmd);
		if (n >= max_pos)
			return gd_error(GD_EUSAGE, "%s: unexpected argument '%s'", cmd, a);
		pos[n++] = argv[i];
		if (stop_at_first_positional)
			only_pos = 1;
	}
	if (npos)
		*npos = n;
	return GD_OK;
}

void gd_print_opts(const struct gd_opt *opts)
{
	for (const struct gd_opt *o = opts; o && o->name; o++) {
		char left[64];
		if (!o->help)
			continue;
		snprintf(left, sizeof(left), "--%s%s%s", o->name, o->metavar ? " " : "",
			 o->metavar ? o->metavar : "");
		printf("  %-24s %s\n", left, o->help);
	}
}
