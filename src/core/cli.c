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
	if (end == s || *end)
		return -1;
	if (errno || v <= INT_MIN || v > INT_MAX) /* INT_MIN is GD_UNSET_INT: never a value */
		return -2;
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
	if (v > (double)GD_SIZE_MAX)
		return -2;
	if (v != floor(v))
		return -1;
	*out = (long long)v;
	return 0;
}

char *gd_fmt_size_arg(char *buf, size_t n, long long v)
{
	static const char suffix[] = "GMK";
	for (int i = 0; i < 3; i++) {
		long long unit = 1LL << (10 * (3 - i));
		/* a suffix only where it reads better: 1562500K is no clearer than 1600000000 */
		if (v != 0 && v % unit == 0 && v / unit > -100000 && v / unit < 100000) {
			snprintf(buf, n, "%lld%c", v / unit, suffix[i]);
			return buf;
		}
	}
	snprintf(buf, n, "%lld", v);
	return buf;
}

int gd_opt_check_int(const char *who, const char *name, long long v, long long lo, long long hi,
		     const char *what)
{
	if (v >= lo && v <= hi)
		return GD_OK;
	return gd_error(GD_EUSAGE, "%s: --%s must be %lld to %lld%s, not %lld", who, name, lo, hi,
			what ? what : "", v);
}

int gd_opt_check_size(const char *who, const char *name, long long v, long long lo, long long hi,
		      const char *what)
{
	char a[32], b[32], c[32];
	if (v >= lo && v <= hi)
		return GD_OK;
	return gd_error(GD_EUSAGE, "%s: --%s must be %s to %s%s, not %s", who, name,
			gd_fmt_size_arg(a, sizeof a, lo), gd_fmt_size_arg(b, sizeof b, hi), what ? what : "",
			gd_fmt_size_arg(c, sizeof c, v));
}

/* NaN is outside every range (the comparisons fail), so a NaN that got here is refused too */
int gd_opt_check_double(const char *who, const char *name, double v, double lo, double hi, const char *what)
{
	if (v >= lo && v <= hi)
		return GD_OK;
	return gd_error(GD_EUSAGE, "%s: --%s must be %g to %g%s, not %g", who, name, lo, hi, what ? what : "",
			v);
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
		switch (gd_parse_int(val, (int *)o->dest)) {
		case 0:
			return GD_OK;
		case -2:
			return gd_error(GD_EUSAGE, "%s: --%s needs an integer from %d to %d, not %s", cmd,
					o->name, INT_MIN + 1, INT_MAX, val);
		default:
			return gd_error(GD_EUSAGE, "%s: --%s needs an integer, not '%s'", cmd, o->name, val);
		}
	case GD_OPT_LONG:
		switch (gd_parse_size(val, (long long *)o->dest)) {
		case 0:
			return GD_OK;
		case -2:
			return gd_error(GD_EUSAGE, "%s: --%s needs a size of at most %lld, not %s", cmd,
					o->name, GD_SIZE_MAX, val);
		default:
			return gd_error(GD_EUSAGE, "%s: --%s needs a size such as 4096, 48K or 1Gi, not '%s'",
					cmd, o->name, val);
		}
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
			/* an empty value is a mistake (an unset shell variable, `--only=`), never a
			 * request for the default: no option of gpudiag takes one */
			if (o->kind != GD_OPT_FLAG && !*val)
				return gd_error(GD_EUSAGE, "%s: --%s needs a value (%s), not an empty string", cmd,
						o->name, o->metavar ? o->metavar : "text");
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
