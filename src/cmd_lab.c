/* gpudiag lab — the guide's claims as experiments on this GPU. The harness and the labs live
 * in src/lab/ (lab.h documents how a lab is written and which file holds what); this file is
 * the command: the listing, `lab help <name>`, the options, the GPU check, then one run of
 * the harness and its outputs. */
#include "commands.h"
#include "core/cli.h"
#include "core/fileio.h"
#include "core/json.h"
#include "core/status.h"
#include "core/table.h"
#include "lab/lab.h"

#include <stdio.h>
#include <string.h>

const char cmd_lab_usage[] =
    "usage: gpudiag lab                 list the labs\n"
    "       gpudiag lab <name> [options] run one lab on the GPU\n"
    "       gpudiag lab help <name>      what one lab measures and how to read it\n"
    "\n"
    "Each lab runs kernel variants of one lesson of the guide, checks every variant's output\n"
    "against a CPU reference (outputs are poisoned before each run), then times it with CUDA\n"
    "events (warm-up, then the median, min and max of at least 10 runs), counts the bytes and\n"
    "FLOPs each variant moves, and compares them with the GPU's measured ceilings (from\n"
    "'gpudiag roofline') or, when none are cached, the datasheet, labelled as such. SM clock,\n"
    "power and throttle reasons are sampled with NVML during every variant.\n"
    "\n"
    "options (after the lab name):\n"
    "  --quick            smaller sizes: a fast look\n"
    "  --runs N           timed samples per variant (default 15, 10..64)\n"
    "  --size BYTES       the lab's main size (see 'gpudiag lab help <name>')\n"
    "  --shape SPEC       the lab's shapes as key=value pairs (fusion, attention)\n"
    "  --csv FILE         results as CSV ('-' = stdout)\n"
    "  --svg FILE         the lab's chart as SVG\n"
    "  --format F         terminal (default), json, csv or tsv on stdout (csv/tsv: the\n"
    "                     results table, docs/scripting.md)\n"
    "  --json             results as JSON on stdout (docs/json.md); = --format json\n"
    "  --device N         the GPU to use (default 0)\n"
    "\n"
    "exit: 0 ok, 2 usage (unknown lab), 3 no GPU, 4 a variant failed its correctness check\n";

static int write_file(const char *path, const struct gd_lab_run *r, int kind)
{
	struct gd_atomic a;
	FILE *f = gd_atomic_open(&a, path);
	if (!f)
		return GD_EFAIL;
	if (kind == 0)
		gd_lab_write_csv(r, f);
	else if (!gd_lab_write_svg(r, f)) {
		gd_atomic_abort(&a);
		return gd_error(GD_EUSAGE, "lab %s: this lab draws no chart", r->lab->name);
	}
	return gd_atomic_commit(&a);
}

static void lab_help(const struct gd_lab *lab, const struct gd_opt *opts)
{
	printf("usage: gpudiag lab %s [options]\n\n%s — guide %s\n\n%s\noptions:\n", lab->name, lab->summary,
	       lab->guide, lab->help ? lab->help : "");
	gd_print_opts(opts);
	printf("  --json                   results as JSON on stdout (docs/json.md)\n"
	       "  --device N               the GPU to use (default 0)\n");
}

int cmd_lab(struct gd_ctx *ctx, int argc, char **argv)
{
	const struct gd_lab *lab;
	struct gd_lab_run r;
	const char *csv = NULL, *svg = NULL, *shape = NULL, *format = NULL;
	int quick = 0, runs = 15, npos = 0, rc, fmt;
	long long size = GD_UNSET_LONG; /* told apart from `--size 0`, which is refused */
	char *pos[2];
	char why[512];
	const struct gd_opt opts[] = {
		{"quick", GD_OPT_FLAG, &quick, NULL, "smaller sizes: a fast look (a few seconds)"},
		{"runs", GD_OPT_INT, &runs, "N", "timed samples per variant (default 15, at least 10, at most 64)"},
		{"size", GD_OPT_LONG, &size, "BYTES", "the lab's main size (see the lab's help); default: the lab's"},
		{"shape", GD_OPT_STR, &shape, "SPEC", "the lab's shapes as key=value pairs (fusion, attention: see their help)"},
		{"csv", GD_OPT_STR, &csv, "FILE", "write the results as CSV ('-' = stdout)"},
		{"svg", GD_OPT_STR, &svg, "FILE", "write the lab's chart as SVG"},
		{"format", GD_OPT_STR, &format, "F", "terminal, json, csv or tsv on stdout"},
		{NULL, 0, NULL, NULL, NULL},
	};

	if (argc < 1 || !argv[0] || argv[0][0] == '-') {
		if (argc >= 1 && argv[0] && argv[0][0] == '-')
			return gd_error(GD_EUSAGE, "lab: name a lab first (see 'gpudiag lab')");
		if (ctx->json) {
			struct gd_json j;
			gd_json_init(&j, stdout, 1);
			gd_json_arr(&j, NULL);
			for (int i = 0; gd_labs[i]; i++) {
				gd_json_obj(&j, NULL);
				gd_json_str(&j, "name", gd_labs[i]->name);
				gd_json_str(&j, "guide", gd_labs[i]->guide);
				gd_json_str(&j, "summary", gd_labs[i]->summary);
				gd_json_obj_end(&j);
			}
			gd_json_arr_end(&j);
			gd_json_end(&j);
		} else {
			gd_lab_list(stdout);
		}
		return GD_OK;
	}
	if (!strcmp(argv[0], "help")) { /* `gpudiag lab help <name>`: --help is taken by main */
		if (argc < 2)
			return gd_error(GD_EUSAGE, "lab help: name a lab (see 'gpudiag lab')");
		if (!(lab = gd_lab_find(argv[1])))
			return gd_error(GD_EUSAGE, "lab: unknown lab '%s' (see 'gpudiag lab')", argv[1]);
		lab_help(lab, opts);
		return GD_OK;
	}
	lab = gd_lab_find(argv[0]);
	if (!lab) {
		char list[512] = "";
		size_t o = 0;
		for (int i = 0; gd_labs[i] && o < sizeof(list); i++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%s", i ? ", " : "", gd_labs[i]->name);
		return gd_error(GD_EUSAGE, "lab: unknown lab '%s' (labs: %s)", argv[0], list);
	}
	rc = gd_parse_opts("lab", argc - 1, argv + 1, opts, pos, 2, &npos, 0);
	if (rc != GD_OK)
		return rc;
	if (npos)
		return gd_error(GD_EUSAGE, "lab %s: unexpected argument '%s'", lab->name, pos[0]);
	snprintf(why, sizeof why, "lab %s", lab->name);
	if ((rc = gd_format_pick(why, format, ctx->json, NULL, NULL, &fmt)) != GD_OK)
		return rc;
	if (csv && !strcmp(csv, "-") && fmt != GD_FMT_TERMINAL)
		return gd_error(GD_EUSAGE, "lab %s: --csv - and --format %s both write stdout; give one", lab->name,
				gd_format_name(fmt));
	/* every option is checked here, before the GPU is looked for: a usage error is found,
	 * and said, on a machine without one */
	snprintf(why, sizeof why, "lab %s", lab->name);
	if ((rc = gd_opt_check_int(why, "runs", runs, GD_LAB_MIN_RUNS, 64, NULL)) != GD_OK)
		return rc;
	if (size != GD_UNSET_LONG && !lab->size_max)
		return gd_error(GD_EUSAGE, "lab %s: this lab takes no --size", lab->name);
	if (size != GD_UNSET_LONG && (rc = gd_opt_check_size(why, "size", size, lab->size_min, lab->size_max,
							       lab->size_what)) != GD_OK)
		return rc;
	if (size != GD_UNSET_LONG && lab->size_step > 1 && size % lab->size_step)
		return gd_error(GD_EUSAGE, "lab %s: --size must be a multiple of %lld%s, not %lld", lab->name,
				lab->size_step, lab->size_what ? lab->size_what : "", size);
	if (shape && !lab->check_shape)
		return gd_error(GD_EUSAGE, "lab %s: this lab takes no --shape", lab->name);
	if (shape && lab->check_shape(shape, why, sizeof why))
		return gd_error(GD_EUSAGE, "lab %s: --shape: %s", lab->name, why);

	/* a lab needs a GPU (listing and help do not) */
	snprintf(why, sizeof(why), "lab %s", lab->name);
	if ((rc = gd_need_gpu(ctx, why, NULL)) != GD_OK)
		return rc;

	gd_lab_run_init(&r, lab);
	r.quick = quick;
	r.runs = runs;
	r.size = size == GD_UNSET_LONG ? 0 : size; /* 0: the lab's default (lab.h) */
	r.shape = shape;
	if (gd_lab_open(&r, ctx->device < 0 ? 0 : ctx->device, why, sizeof(why)) != GD_OK) {
		gd_lab_run_free(&r);
		return gd_error(GD_ENOGPU, "lab %s: cannot use CUDA device %d: %s", lab->name, ctx->device, why);
	}
	rc = gd_lab_execute(&r);

	if (rc == GD_OK || r.nres > 0) {
		if (fmt == GD_FMT_JSON)
			gd_lab_write_json(&r, stdout);
		else if (fmt == GD_FMT_CSV || fmt == GD_FMT_TSV)
			gd_lab_write_table(&r, stdout, fmt);
		else
			gd_lab_print_table(&r, stdout);
		if (csv) {
			int w = strcmp(csv, "-") ? write_file(csv, &r, 0) : (gd_lab_write_csv(&r, stdout), GD_OK);
			if (w != GD_OK && rc == GD_OK)
				rc = w;
		}
		if (svg) {
			int w = write_file(svg, &r, 1);
			if (w != GD_OK && rc == GD_OK)
				rc = w;
		}
	}
	if (rc == GD_OK && r.check_failed)
		rc = GD_ECHECK;
	gd_lab_run_free(&r);
	return rc;
}
