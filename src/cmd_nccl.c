/* gpudiag nccl: collective bandwidth over the GPUs of this machine (guide §12; docs/nccl.md).
 * AllReduce, AllGather, ReduceScatter, Broadcast and AllToAll through NCCL loaded at run time,
 * one process driving every GPU, sizes doubling from --min to --max, algbw and busbw as
 * nccl-tests defines them, every result checked element by element, the link between each pair
 * of GPUs from NVML. The measuring is src/gpu/nccl.c's; this file parses, runs and prints. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "core/svg.h"
#include "core/table.h"
#include "gpu/cudrv.h"
#include "gpu/nccl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cmd_nccl_usage[] =
	"usage: gpudiag nccl [--op LIST] [--min SIZE] [--max SIZE] [--iters N] [--warmup N] [--gpus N]\n"
	"                    [--svg FILE] [--format terminal|json|csv|tsv [--table NAME]]\n"
	"\n"
	"Measures NCCL's collectives over the GPUs of this machine (guide §12): AllReduce (sum),\n"
	"AllGather, ReduceScatter (sum), Broadcast (root 0) and AllToAll (a grouped send and receive\n"
	"to every peer), float32, out of place, sizes doubling from --min to --max. One process drives\n"
	"every GPU (ncclCommInitAll, one group call per iteration, as nccl-tests -g N). For each size:\n"
	"the time of one operation (the host clock around --iters iterations and the wait for their\n"
	"end, divided by --iters, after --warmup iterations: nccl-tests' method), algbw = S / time and\n"
	"busbw = algbw x 2(n-1)/n (AllReduce), (n-1)/n (AllGather, ReduceScatter, AllToAll) or 1\n"
	"(Broadcast), with S and the factors of nccl-tests' doc/PERFORMANCE.md; GB = 10^9 bytes.\n"
	"Every element of every GPU's result is checked against the exact expected value (the data\n"
	"are small integers, so sums are exact). Then the latency (time at the smallest size) and\n"
	"the best bus bandwidth of each collective, and the link between each pair of GPUs (NVLink\n"
	"links, NVSwitch, or the PCIe path, from NVML). With one GPU, busbw is 0 by definition (one\n"
	"rank moves nothing between GPUs; Broadcast's factor is 1) and algbw and latency are reported.\n"
	"\n"
	"NCCL is loaded at run time: GPUDIAG_LIBNCCL if set, else libnccl.so.2 on the loader's path,\n"
	"else the copy PyTorch's wheels ship (site-packages/nvidia/*/lib), else /usr/local/cuda/lib64.\n"
	"NCCL_NVLS_ENABLE=0 is set for the run unless you set NCCL_NVLS_ENABLE yourself: NVLink\n"
	"multicast (NVLS) stays off, as the shared multi-GPU machines require; gpudiag creates no\n"
	"multicast object itself. Several nodes are not measured (docs/nccl.md says how with nccl-tests).\n"
	"\n"
	"options:\n"
	"  --op LIST     collectives, comma-separated: allreduce, allgather, reducescatter, broadcast,\n"
	"                alltoall (default all five)\n"
	"  --min SIZE    smallest size in bytes (default 8; K, M, G = 2^10, 2^20, 2^30)\n"
	"  --max SIZE    largest size (default 1G); each GPU holds a send and a receive buffer of it\n"
	"  --iters N     timed iterations per size (default 20)\n"
	"  --warmup N    untimed iterations before them (default 5)\n"
	"  --gpus N      use the first N GPUs (default every GPU; --device N uses that one alone)\n"
	"  --svg FILE    a chart of bus bandwidth (algbw with one GPU) against size\n"
	"  --format F    terminal (default), json, csv or tsv; csv and tsv write the tables results\n"
	"                and links (docs/scripting.md)\n"
	"  --table NAME  with csv/tsv: only that table\n"
	"  --json        JSON (keys in docs/json.md, \"nccl\"); = --format json\n"
	"\n"
	"exit status: 0; 2 bad options; 3 no GPU, no driver or no NCCL (one line says which);\n"
	"4 a result was wrong (every size is still measured and printed); 1 an NCCL or CUDA error.\n";

#define MAX_GPUS 64
#define MAX_SIZES 64

static const char *const nccl_tables[] = {"results", "links", NULL};

struct run {
	int n, devs[MAX_GPUS], ops[GD_COLL_COUNT], nops;
	long long min, max;
	int iters, warmup;
	const char *nvls;      /* NCCL_NVLS_ENABLE as the run saw it */
	int nvls_ours;         /* 1: set by gpudiag */
	struct gd_nccl_result *res;
	int nres;
	struct gd_link *links; /* n × n */
	long wrong;
};

static int parse_ops(const char *list, struct run *r)
{
	char buf[256], *save = NULL, *tok;
	r->nops = 0;
	if (!list) {
		for (int c = 0; c < GD_COLL_COUNT; c++)
			r->ops[r->nops++] = c;
		return GD_OK;
	}
	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		int c = gd_coll_parse(tok), dup = 0;
		if (c < 0)
			return gd_error(GD_EUSAGE,
					"nccl: unknown collective '%s' in --op (allreduce, allgather, reducescatter, "
					"broadcast, alltoall)",
					tok);
		for (int i = 0; i < r->nops; i++)
			dup |= r->ops[i] == c;
		if (!dup)
			r->ops[r->nops++] = c;
	}
	if (!r->nops)
		return gd_error(GD_EUSAGE, "nccl: --op names no collective");
	return GD_OK;
}

static char *gbps(char *b, size_t n, double bps)
{
	if (isfinite(bps))
		snprintf(b, n, "%.2f", bps / 1e9);
	else
		snprintf(b, n, "-");
	return b;
}

/* ---- terminal ---- */
static void print_head(const struct run *r, FILE *out)
{
	char v[32], name[128];
	gd_cu_name(r->devs[0], name, sizeof(name));
	fprintf(out, "%sgpudiag nccl%s  NCCL %s (%s), %d GPU%s, one process (ncclCommInitAll)\n", gd_bold(), gd_reset(),
		gd_nccl_version_text(gd_nccl_version(), v, sizeof(v)), gd_tty(gd_nccl_path()), r->n, r->n == 1 ? "" : "s");
	for (int i = 0; i < r->n; i++) {
		gd_cu_name(r->devs[i], name, sizeof(name));
		fprintf(out, "  GPU %d  %s\n", r->devs[i], gd_tty(name));
	}
	fprintf(out, "NCCL_NVLS_ENABLE=%s (%s)\n", gd_tty(r->nvls),
		r->nvls_ours ? "set by gpudiag: NVLink multicast off" : "as you set it");
	fprintf(out, "method: float32, out of place; time = host clock around %d iterations and the wait for them, "
		     "/ %d, after %d warm-up; algbw = S / time, busbw = algbw x factor (nccl-tests); GB = 10^9 B\n",
		r->iters, r->iters, r->warmup);
	if (r->n == 1)
		fprintf(out, "%sone GPU: busbw is 0 by definition (a single rank moves nothing between GPUs; Broadcast's "
			     "factor is 1): algbw and latency are what this measures%s\n",
			gd_yellow(), gd_reset());
}

static void print_links(const struct run *r, FILE *out)
{
	struct gd_table t;
	if (r->n < 2)
		return;
	fprintf(out, "\n%sLinks%s (NVML; NV<k>: k NVLink links, to the peer or to an NVSwitch; PIX/PXB/PHB/NODE/SYS: the "
		     "PCIe path, as nvidia-smi topo -m)\n",
		gd_bold(), gd_reset());
	gd_table_init(&t, r->n + 1);
	{
		const char *head[MAX_GPUS + 1];
		char hb[MAX_GPUS][16];
		head[0] = "";
		for (int j = 0; j < r->n; j++) {
			snprintf(hb[j], sizeof(hb[j]), "GPU%d", r->devs[j]);
			head[j + 1] = hb[j];
		}
		gd_table_row(&t, head);
	}
	for (int i = 0; i < r->n; i++) {
		const char *row[MAX_GPUS + 1];
		char rb[16];
		snprintf(rb, sizeof(rb), "GPU%d", r->devs[i]);
		row[0] = rb;
		for (int j = 0; j < r->n; j++)
			row[j + 1] = r->links[i * r->n + j].code;
		gd_table_row(&t, row);
	}
	gd_table_print(&t, out, 2);
	gd_table_free(&t);
	for (int i = 0; i < r->n; i++)
		for (int j = i + 1; j < r->n; j++)
			fprintf(out, "  GPU%d-GPU%d: %s\n", r->devs[i], r->devs[j], r->links[i * r->n + j].text);
}

static void print_op_head(const struct run *r, int c, FILE *out)
{
	char f[32];
	snprintf(f, sizeof(f), "%.4g", gd_coll_busbw_factor(c, r->n));
	fprintf(out, "\n%s%s%s (%s; busbw factor %s = %s for n = %d)\n", gd_bold(), gd_coll_name(c), gd_reset(),
		c == GD_COLL_ALLREDUCE || c == GD_COLL_REDUCESCATTER ? "sum"
		: c == GD_COLL_BROADCAST			     ? "root 0"
		: c == GD_COLL_ALLTOALL				     ? "grouped ncclSend/ncclRecv"
								     : "in rank order",
		gd_coll_factor_text(c), f, r->n);
	fprintf(out, "  %12s  %12s  %10s  %11s  %11s  %6s\n", "size (B)", "count", "time (µs)", "algbw (GB/s)",
		"busbw (GB/s)", "wrong");
}

static void print_row(const struct gd_nccl_result *x, FILE *out)
{
	char a[32], b[32];
	if (x->skipped) {
		fprintf(out, "  %12lld  %12s  below one float per rank: skipped\n", x->size, "-");
		return;
	}
	fprintf(out, "  %12.0f  %12zu  %10.2f  %11s  %11s  %s%6ld%s\n", x->sh.bytes, x->sh.count, x->seconds * 1e6,
		gbps(a, sizeof(a), x->algbw), gbps(b, sizeof(b), x->busbw), x->wrong ? gd_red() : "", x->wrong,
		x->wrong ? gd_reset() : "");
}

/* Per collective: the latency (the smallest size measured) and the best busbw (algbw for n = 1). */
struct best {
	int have;
	double lat_s, lat_bytes, peak_bus, peak_alg, peak_bytes;
};

static struct best best_of(const struct run *r, int c)
{
	struct best b = {0};
	for (int i = 0; i < r->nres; i++) {
		const struct gd_nccl_result *x = &r->res[i];
		if (x->coll != c || x->skipped || !isfinite(x->seconds))
			continue;
		if (!b.have) {
			b.have = 1;
			b.lat_s = x->seconds;
			b.lat_bytes = x->sh.bytes;
		}
		if (!(x->algbw <= b.peak_alg)) {
			b.peak_alg = x->algbw;
			b.peak_bus = x->busbw;
			b.peak_bytes = x->sh.bytes;
		}
	}
	return b;
}

static void print_summary(const struct run *r, FILE *out)
{
	char b1[32], b2[32], sz[32];
	fprintf(out, "\n%sSummary%s (latency: the time at the smallest size; best: the highest algbw and its busbw)\n",
		gd_bold(), gd_reset());
	for (int k = 0; k < r->nops; k++) {
		struct best b = best_of(r, r->ops[k]);
		if (!b.have)
			continue;
		fprintf(out, "  %-13s latency %8.2f µs at %.0f B   best algbw %s GB/s, busbw %s GB/s at %s\n",
			gd_coll_name(r->ops[k]), b.lat_s * 1e6, b.lat_bytes, gbps(b1, sizeof(b1), b.peak_alg),
			gbps(b2, sizeof(b2), b.peak_bus), gd_fmt_bytes(sz, sizeof(sz), b.peak_bytes));
	}
	if (r->wrong)
		fprintf(out, "%s%ld wrong elements: NCCL's results are not what was sent%s\n", gd_red(), r->wrong, gd_reset());
	else
		fprintf(out, "every result checked: all elements exact\n");
}

/* ---- tables (JSON arrays, CSV, TSV) ---- */
static const char *const results_cols[] = {"op", "size", "bytes", "count", "type", "time_us", "algbw_bps",
					   "busbw_bps", "busbw_factor", "wrong", "skipped"};
static const char *const links_cols[] = {"gpu_a", "gpu_b", "kind", "code", "text", "nvlinks", "pcie_level"};

static void tw_results(struct gd_tw *w, const struct run *r)
{
	if (!gd_tw_begin(w, "results", NULL, results_cols, 11))
		return;
	for (int i = 0; i < r->nres; i++) {
		const struct gd_nccl_result *x = &r->res[i];
		gd_tw_row(w);
		gd_tw_str(w, gd_coll_key(x->coll));
		gd_tw_int(w, x->size);
		gd_tw_num(w, x->skipped ? NAN : x->sh.bytes);
		if (x->skipped)
			gd_tw_null(w);
		else
			gd_tw_int(w, (long long)x->sh.count);
		gd_tw_str(w, "float32");
		gd_tw_num(w, x->seconds * 1e6);
		gd_tw_num(w, x->algbw);
		gd_tw_num(w, x->busbw);
		gd_tw_num(w, gd_coll_busbw_factor(x->coll, r->n));
		if (x->skipped)
			gd_tw_null(w);
		else
			gd_tw_int(w, x->wrong);
		gd_tw_bool(w, x->skipped);
		gd_tw_row_end(w);
	}
	gd_tw_end(w);
}

static const char *link_kind(int k)
{
	return k == GD_LINK_NVLINK ? "nvlink" : k == GD_LINK_NVSWITCH ? "nvswitch" : k == GD_LINK_PCIE ? "pcie"
	       : k == GD_LINK_SAME ? "same board" : "unknown";
}

static void tw_links(struct gd_tw *w, const struct run *r)
{
	if (!gd_tw_begin(w, "links", NULL, links_cols, 7))
		return;
	for (int i = 0; i < r->n; i++)
		for (int j = i + 1; j < r->n; j++) {
			const struct gd_link *l = &r->links[i * r->n + j];
			gd_tw_row(w);
			gd_tw_int(w, r->devs[i]);
			gd_tw_int(w, r->devs[j]);
			gd_tw_str(w, link_kind(l->kind));
			gd_tw_str(w, l->code);
			gd_tw_str(w, l->text);
			if (l->nvlinks >= 0)
				gd_tw_int(w, l->nvlinks);
			else
				gd_tw_null(w);
			if (l->pcie_level >= 0)
				gd_tw_int(w, l->pcie_level);
			else
				gd_tw_null(w);
			gd_tw_row_end(w);
		}
	gd_tw_end(w);
}

static void print_json(const struct run *r, FILE *out)
{
	struct gd_json j;
	struct gd_tw w;
	char v[32], name[128], uuid[96];
	gd_json_init(&j, out, 1);
	gd_tw_init(&w, out, GD_FMT_JSON, &j, NULL, 1);
	gd_json_obj(&j, NULL);
	gd_json_obj(&j, "nccl");
	gd_json_str(&j, "version", gd_nccl_version_text(gd_nccl_version(), v, sizeof(v)));
	gd_json_int(&j, "version_code", gd_nccl_version());
	gd_json_str(&j, "library", gd_nccl_path());
	gd_json_obj_end(&j);
	gd_json_int(&j, "ranks", r->n);
	gd_json_str(&j, "process", "one process driving every GPU (ncclCommInitAll, a group call per iteration)");
	gd_json_arr(&j, "gpus");
	for (int i = 0; i < r->n; i++) {
		gd_json_obj(&j, NULL);
		gd_json_int(&j, "index", r->devs[i]);
		gd_cu_name(r->devs[i], name, sizeof(name));
		gd_json_str(&j, "name", name);
		gd_cu_uuid(r->devs[i], uuid, sizeof(uuid));
		gd_json_str(&j, "uuid", uuid);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_json_obj(&j, "env");
	gd_json_str(&j, "NCCL_NVLS_ENABLE", r->nvls);
	gd_json_bool(&j, "nvls_set_by_gpudiag", r->nvls_ours);
	gd_json_obj_end(&j);
	gd_json_obj(&j, "method");
	gd_json_str(&j, "type", "float32");
	gd_json_str(&j, "placement", "out of place");
	gd_json_int(&j, "iters", r->iters);
	gd_json_int(&j, "warmup", r->warmup);
	gd_json_str(&j, "time",
		    "host clock around iters group calls and a synchronisation of every stream, divided by iters "
		    "(nccl-tests' method)");
	gd_json_str(&j, "bandwidth", "algbw = S / time, busbw = algbw x factor (nccl-tests doc/PERFORMANCE.md); bytes/s");
	gd_json_obj_end(&j);
	tw_links(&w, r);
	tw_results(&w, r);
	gd_json_arr(&j, "summary");
	for (int k = 0; k < r->nops; k++) {
		struct best b = best_of(r, r->ops[k]);
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "op", gd_coll_key(r->ops[k]));
		gd_json_num(&j, "latency_us", b.have ? b.lat_s * 1e6 : NAN);
		gd_json_num(&j, "latency_bytes", b.have ? b.lat_bytes : NAN);
		gd_json_num(&j, "best_algbw_bps", b.have ? b.peak_alg : NAN);
		gd_json_num(&j, "best_busbw_bps", b.have ? b.peak_bus : NAN);
		gd_json_num(&j, "best_bytes", b.have ? b.peak_bytes : NAN);
		gd_json_obj_end(&j);
	}
	gd_json_arr_end(&j);
	gd_json_int(&j, "wrong", r->wrong);
	gd_json_obj_end(&j);
	gd_json_end(&j);
}

static int write_svg(const struct run *r, const char *path)
{
	struct gd_chart ch;
	static double xs[GD_COLL_COUNT][MAX_SIZES], ys[GD_COLL_COUNT][MAX_SIZES];
	char note[200];
	int bus = r->n > 1;
	gd_chart_init(&ch, bus ? "NCCL bus bandwidth" : "NCCL algorithm bandwidth (one GPU)", "size (bytes)",
		      bus ? "busbw (GB/s)" : "algbw (GB/s)");
	ch.logx = 1;
	for (int k = 0; k < r->nops; k++) {
		int m = 0;
		for (int i = 0; i < r->nres && m < MAX_SIZES; i++) {
			const struct gd_nccl_result *x = &r->res[i];
			if (x->coll != r->ops[k] || x->skipped || !isfinite(x->algbw))
				continue;
			xs[k][m] = x->sh.bytes;
			ys[k][m] = (bus ? x->busbw : x->algbw) / 1e9;
			m++;
		}
		if (m)
			gd_chart_add(&ch, gd_coll_name(r->ops[k]), xs[k], ys[k], m, GD_LINE_POINTS);
	}
	char v[32];
	snprintf(note, sizeof(note), "%d GPU%s, NCCL %s, float32, out of place, mean of %d iterations after %d warm-up; "
		 "nccl-tests' formulas",
		 r->n, r->n == 1 ? "" : "s", gd_nccl_version_text(gd_nccl_version(), v, sizeof(v)), r->iters, r->warmup);
	ch.note = note;
	return gd_chart_write(&ch, path);
}

int cmd_nccl(struct gd_ctx *ctx, int argc, char **argv)
{
	const char *ops = NULL, *svg = NULL, *format = NULL, *table = NULL;
	long long min = GD_UNSET_LONG, max = GD_UNSET_LONG;
	int iters = GD_UNSET_INT, warmup = GD_UNSET_INT, gpus = GD_UNSET_INT, fmt, rc, count;
	char why[1200];
	struct run r;
	struct gd_nccl_bench *b = NULL;
	const struct gd_opt opts[] = {
		{"op", GD_OPT_STR, &ops, "LIST", NULL},
		{"min", GD_OPT_LONG, &min, "SIZE", NULL},
		{"max", GD_OPT_LONG, &max, "SIZE", NULL},
		{"iters", GD_OPT_INT, &iters, "N", NULL},
		{"warmup", GD_OPT_INT, &warmup, "N", NULL},
		{"gpus", GD_OPT_INT, &gpus, "N", NULL},
		{"svg", GD_OPT_STR, &svg, "FILE", NULL},
		{"format", GD_OPT_STR, &format, "F", NULL},
		{"table", GD_OPT_STR, &table, "NAME", NULL},
		{NULL, 0, NULL, NULL, NULL},
	};
	memset(&r, 0, sizeof(r));
	if ((rc = gd_parse_opts("nccl", argc, argv, opts, NULL, 0, NULL, 0)) != GD_OK)
		return rc;
	if ((rc = gd_format_pick("nccl", format, ctx->json, nccl_tables, table, &fmt)) != GD_OK)
		return rc;
	if ((rc = parse_ops(ops, &r)) != GD_OK)
		return rc;
	r.min = min == GD_UNSET_LONG ? 8 : min;
	r.max = max == GD_UNSET_LONG ? 1LL << 30 : max;
	r.iters = iters == GD_UNSET_INT ? 20 : iters;
	r.warmup = warmup == GD_UNSET_INT ? 5 : warmup;
	if ((rc = gd_opt_check_size("nccl", "min", r.min, 4, 1LL << 36, " (bytes: one float at least)")) != GD_OK ||
	    (rc = gd_opt_check_size("nccl", "max", r.max, r.min, 1LL << 36, " (bytes: --min or more)")) != GD_OK ||
	    (rc = gd_opt_check_int("nccl", "iters", r.iters, 1, 1000000, NULL)) != GD_OK ||
	    (rc = gd_opt_check_int("nccl", "warmup", r.warmup, 0, 1000000, NULL)) != GD_OK)
		return rc;
	if (gpus != GD_UNSET_INT && (rc = gd_opt_check_int("nccl", "gpus", gpus, 1, MAX_GPUS, NULL)) != GD_OK)
		return rc;
	if (gpus != GD_UNSET_INT && ctx->device >= 0)
		return gd_error(GD_EUSAGE, "nccl: give --gpus N or --device N, not both");
	{
		/* sizes: --min, doubling, up to --max */
		int nsizes = 0;
		for (long long s = r.min; s <= r.max && nsizes <= MAX_SIZES; s *= 2)
			nsizes++;
		if (nsizes > MAX_SIZES)
			return gd_error(GD_EUSAGE, "nccl: --min %lld to --max %lld is more than %d sizes", r.min, r.max,
					MAX_SIZES);
		r.res = calloc((size_t)nsizes * (size_t)r.nops, sizeof(*r.res));
		if (!r.res)
			return gd_error(GD_EFAIL, "nccl: out of memory");
	}
	if ((rc = gd_need_gpu(ctx, "nccl", NULL)) != GD_OK)
		goto out;
	count = gd_cu_count();
	if (ctx->device >= 0) {
		r.n = 1;
		r.devs[0] = ctx->device;
	} else {
		if (gpus != GD_UNSET_INT && gpus > count) {
			rc = gd_error(GD_EUSAGE, "nccl: --gpus %d, but this machine has %d GPU%s", gpus, count,
				      count == 1 ? "" : "s");
			goto out;
		}
		r.n = gpus != GD_UNSET_INT ? gpus : count < MAX_GPUS ? count : MAX_GPUS;
		for (int i = 0; i < r.n; i++)
			r.devs[i] = i;
	}
	/* NVLink multicast off unless the user chose (KINDS.md: a program that uses it can put a shared
	 * host's GPUs out of service); NCCL reads it at communicator creation */
	r.nvls = getenv("NCCL_NVLS_ENABLE");
	if (!r.nvls) {
		setenv("NCCL_NVLS_ENABLE", "0", 0);
		r.nvls = "0";
		r.nvls_ours = 1;
	}
	if ((rc = gd_nccl_open(why, sizeof(why))) != GD_OK) {
		rc = gd_error(rc, "nccl: %s", why);
		goto out;
	}
	r.links = calloc((size_t)r.n * (size_t)r.n, sizeof(*r.links));
	if (!r.links) {
		rc = gd_error(GD_EFAIL, "nccl: out of memory");
		goto out;
	}
	for (int i = 0; i < r.n; i++)
		for (int j = 0; j < r.n; j++)
			gd_nccl_link(r.devs[i], r.devs[j], &r.links[i * r.n + j]);
	if ((rc = gd_nccl_bench_init(&b, r.devs, r.n, r.max, why, sizeof(why))) != GD_OK) {
		rc = gd_error(rc, "nccl: %s", why);
		goto out;
	}
	if (fmt == GD_FMT_TERMINAL) {
		print_head(&r, stdout);
		print_links(&r, stdout);
	}
	for (int k = 0; k < r.nops; k++) {
		if (fmt == GD_FMT_TERMINAL)
			print_op_head(&r, r.ops[k], stdout);
		for (long long s = r.min; s <= r.max; s *= 2) {
			struct gd_nccl_result *x = &r.res[r.nres];
			if ((rc = gd_nccl_bench_run(b, r.ops[k], s, r.warmup, r.iters, x, why, sizeof(why))) != GD_OK) {
				rc = gd_error(rc, "nccl: %s, %s of %lld bytes", why, gd_coll_name(r.ops[k]), s);
				goto out;
			}
			r.nres++;
			r.wrong += x->wrong;
			if (fmt == GD_FMT_TERMINAL) {
				print_row(x, stdout);
				fflush(stdout);
			}
		}
	}
	if (fmt == GD_FMT_TERMINAL) {
		print_summary(&r, stdout);
	} else if (fmt == GD_FMT_JSON) {
		print_json(&r, stdout);
	} else {
		struct gd_tw w;
		gd_tw_init(&w, stdout, fmt, NULL, table, 1);
		tw_results(&w, &r);
		tw_links(&w, &r);
	}
	if (svg) {
		if ((rc = write_svg(&r, svg)) != GD_OK)
			goto out;
		if (fmt == GD_FMT_TERMINAL)
			printf("\n  chart written to %s\n", svg);
	}
	rc = GD_OK;
	if (r.wrong)
		rc = gd_error(GD_ECHECK, "nccl: %ld elements of the results were wrong (see the 'wrong' column)", r.wrong);
out:
	gd_nccl_bench_free(b);
	free(r.res);
	free(r.links);
	return rc;
}
