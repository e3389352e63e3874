/* The framework view (issue 21): which PyTorch op and nn.Module launched each kernel, from the
 * NVTX ranges of the profile and the launch API calls' correlation ids, computed once into the
 * analysis (analysis.h). The terminal, JSON, CSV/TSV and HTML reports, the verdicts' evidence
 * and `gpudiag diff` read it; docs/framework-view.md gives the rules with examples.
 *
 * What is recognised (ranges of the default NVTX domain, as `gpudiag run --torch` emits them;
 * docs/framework.md):
 *   module range  "gpudiag.module:<Class>:<path>", a push/pop range around nn.Module.__call__
 *                 (path "" is the outermost module called on that thread)
 *   op range      PyTorch's emit_nvtx form "<op name>, seq = N, op_id = M, ..." (a range whose
 *                 message carries ", seq = " or ", op_id = "); the op name is the text before
 *                 the first ", <key> = "
 *   backward      an op range named "autograd::engine::evaluate_function: X" (the engine's),
 *                 the node's own range X right inside it, any op range named "…Backward<N>",
 *                 and everything inside them. PyTorch gives the node's range the seq of the
 *                 forward op that made the node (the engine's has none): the innermost backward
 *                 range with a seq names the forward op
 *   torch mark    "gpudiag.torch:<version>:<mode>", one per instrumented process
 *   source mark   "gpudiag.src:<line>:<function>:<file>" (gpudiag run --python-stack): the
 *                 source line that called a module, marked right after its range was pushed
 *                 for the first N calls of each module; <line> digits, <function> without ':',
 *                 <file> the rest (it may hold ':')
 * Every other range (a program's own, JAX/XLA's) is left to the NVTX table (tables.h).
 *
 * Per kernel, with L = its launching API call (same process, correlation id) and the ranges of
 * L's thread that contain L's start (start <= t <= end; a range never closed runs to the end):
 *   op (self)      the innermost op range; op (total) every op range around it
 *   module         the innermost module range; when there is none and the kernel is inside a
 *                  backward range with seq = N, the module of the forward op with seq N in the
 *                  same process (the latest such op range that started before the launch)
 *   direction      backward when inside a backward range, else forward
 * A kernel with no such range counts under "(no op)" / "(no module)"; one whose launching call
 * was not traced has neither. A source mark belongs to the innermost module range of its
 * thread that contains its time, the same way (none: counted in src_outside).
 *
 * Aggregates, GPU time = the kernels' summed durations (end - start, ns); copies and memsets
 * are not counted:
 *   op row      calls = ranges of that name; kernels, self_ns = kernels whose innermost op it
 *               is; total_ns, total_kernels = summed over its ranges of the kernels inside each
 *               range, nested ops included (torch.profiler's key_averages() self and total
 *               device time, which also count a range nested in one of the same name twice)
 *   module row  by (path, class): calls = ranges; kernels, self_ns = kernels whose module it is
 *               (forward and backward); total_ns = self + its children's totals in the module
 *               tree; forward_ns + backward_ns = total_ns
 *   module tree the parent of a module is the module range that enclosed its first call when
 *               that one's path is a dotted prefix of its own (else the longest path that is),
 *               so containers without a forward (nn.ModuleList) are skipped
 *   fused       Inductor/Triton kernels by name ("triton_<kind>_fused_<ops>_<n>"), with the
 *               aten ops the name lists
 *
 * Cost: O((ranges + kernels) log) — one sort of the launches by API call, a linear sweep of
 * each thread's ranges and launches with a stack, a sort of the forward seqs. */
#ifndef GPUDIAG_FRAMEWORK_H
#define GPUDIAG_FRAMEWORK_H

#include "profile/profile.h"
#include "profile/trace_rows.h"

#include <stddef.h>
#include <stdint.h>

enum gd_fw_dir { GD_FW_FORWARD = 0, GD_FW_BACKWARD, GD_FW_MIXED, GD_FW_DIR_UNKNOWN };

struct gd_fw_op {
	char *name;            /* "aten::addmm"; "(no op)" for kernels outside every op range */
	long calls;            /* ranges of this name (0 for "(no op)") */
	long fwd_calls, bwd_calls;
	long kernels;          /* kernels whose innermost op this is */
	long total_kernels;    /* kernels inside its ranges, nested ops included */
	double self_ns, total_ns;
	int none;              /* 1: the "(no op)" row */
};

/* A source location modules were called from (the source marks). */
struct gd_fw_loc {
	char *file;            /* as Python named it (co_filename, usually absolute) */
	char *func;            /* co_qualname ("GPT2Model.forward", "<module>") */
	long line;
	const char *shown;     /* the shortest trailing part of file ("modeling_gpt2.py",
				  "b/models.py") that no other location's file ends with at as many
				  path components, else file itself; points into file */
};

/* A module's calls sampled at one location. */
struct gd_fw_from {
	long loc;              /* index into fw->locs */
	long calls;            /* sampled calls made from there */
};

struct gd_fw_module {
	char *path;            /* dotted path, "" for the outermost module; "(no module)" row */
	char *cls;             /* class name; NULL for the "(no module)" row */
	long calls;            /* module ranges */
	long kernels;          /* kernels attributed to it (self, forward and backward) */
	long total_kernels;    /* with its submodules' */
	double self_ns, total_ns;
	double fwd_ns, bwd_ns; /* of total_ns */
	double self_bwd_ns;    /* of self_ns: backward kernels, linked through the forward op's seq */
	struct gd_fw_from *from; /* where its sampled calls came from, by calls descending (then
				    file, line); NULL when none were sampled */
	long nfrom, sampled;   /* entries of from; sampled calls (the sum of their calls) */
	long parent;           /* index into modules of its parent in the tree, -1 a root */
	int depth;             /* in the tree (roots 0) */
	int none;              /* 1: the "(no module)" row */
};

struct gd_fw_fused {
	char *kernel;          /* the kernel name as recorded */
	char *kind;            /* "pointwise", "reduction", "persistent reduction", "template", ... */
	char *ops;             /* the fused ops, ", "-separated ("add, gelu"); "" when the name lists none */
	long kernels;
	double ns;
};

struct gd_framework {
	int present;           /* 1: the profile has module or op ranges, or a torch mark */
	char mode[16];         /* the torch mark's mode ("ops", "modules"), "" when no mark */
	char torch[64];        /* the torch mark's version, "" when no mark */
	int modes_differ;      /* processes' marks disagree (mode/torch are the first one's) */
	long xla_ranges;       /* of them, JAX/XLA's own (the "TSL" domain: Thunk:#hlo_op=..#,
				  XlaModule:#hlo_module=..#), read as ops and modules */
	long op_ranges, module_ranges, bwd_ranges;
	struct gd_fw_op *ops;  /* by self_ns descending, then name; empty without op ranges */
	long nops;
	struct gd_fw_module *modules; /* by self_ns descending; empty without module ranges */
	long nmodules;
	long *tree;            /* module indices in tree pre-order, children by total_ns descending */
	long ntree;
	struct gd_fw_fused *fused; /* by ns descending */
	long nfused;
	struct gd_fw_loc *locs;    /* the source marks' locations, in order of first mark */
	long nlocs;
	long src_marks;        /* source marks in the profile (well formed) */
	long src_outside;      /* of them, inside no module range of their thread */
	/* per kernel of the profile (p->k order): op row, module row (-1: none), backward flag;
	 * NULL when !present */
	int32_t *k_op, *k_mod;
	unsigned char *k_bwd;
	long kernels;          /* kernels of the profile */
	long no_launcher;      /* of them, whose launching API call is not in the profile */
	double kernel_ns;      /* their summed time */
};

/* Fills fw from a finished profile. GD_OK, or GD_EFAIL out of memory (fw is then freed). */
int gd_framework_compute(const struct gd_profile *p, struct gd_framework *fw);
void gd_framework_free(struct gd_framework *fw);

/* The framework view of each kernel, keyed by its (pid, correlation id), for a renderer that
 * streams the profile's rows rather than holding the profile (the Perfetto export): the op it
 * ran under and the module that launched it. */
struct gd_fw_kref {
	int pid;
	uint32_t corr;
	int32_t op, mod;       /* indices into ops / mods of gd_fw_krefs, -1 none */
	unsigned char bwd;     /* 1: launched by autograd's backward */
};
struct gd_fw_krefs {
	struct gd_fw_kref *r;  /* sorted by (pid, corr); kernels without a correlation id left out */
	long n;
	char **ops;            /* op names ("aten::mm", "gemm_fusion_dot.1") */
	long nops;
	char **mods;           /* module labels (gd_fw_module_label: "transformer.h.3.mlp (GPT2MLP)") */
	long nmods;
};
/* The framework view per kernel of the profile at path, t its open trace, in k. The whole
 * profile is loaded only when t's strings show ranges the view reads (a PyTorch or JAX
 * profile). GD_OK with k->n == 0 when the profile has none; GD_EDATA (a profile the reader
 * refuses) or GD_EFAIL (out of memory) with why, k empty. */
int gd_fw_krefs_load(const char *path, struct gd_trace *t, struct gd_fw_krefs *k, char *why, size_t n);
/* The kernel (pid, corr) of k, or NULL. */
const struct gd_fw_kref *gd_fw_krefs_find(const struct gd_fw_krefs *k, long long pid, long long corr);
void gd_fw_krefs_free(struct gd_fw_krefs *k);

/* "forward", "backward", "mixed", or NULL (the "(no op)" row). */
const char *gd_fw_dir_name(int dir);
int gd_fw_op_dir(const struct gd_fw_op *o);

/* A module as one label: "transformer.h.3.mlp (GPT2MLP)", the outermost "GPT2LMHeadModel
 * (root)", or "(no module)". Returns buf. */
char *gd_fw_module_label(char *buf, size_t n, const struct gd_fw_module *m);

/* A module path with every all-digit component as "*" ("transformer.h.*.ln_1"): the repeated
 * layers of a model as one. Returns buf. */
char *gd_fw_collapse_path(char *buf, size_t n, const char *path);

/* An Inductor/Triton kernel name's fused ops: "triton_poi_fused__to_copy_add_gelu_0" →
 * kind "pointwise", ops "_to_copy, add, gelu". Returns 1 when the name is one, else 0. The
 * ops are split at known aten names of several words (native_layer_norm, _to_copy, ...); any
 * other word is an op of its own. */
int gd_fw_parse_fused(const char *kernel, char *kind, size_t nkind, char *ops, size_t nops);

/* Where a set of kernels came from, for the verdicts' evidence: the op and the module group
 * that launched most of them. A module group is the modules of one class whose paths differ
 * only in all-digit components (the repeated layers "transformer.h.0.ln_1",
 * "transformer.h.1.ln_1", … as "transformer.h.*.ln_1"). */
struct gd_fw_origin {
	long op;               /* op row (fw->ops), -1 when none of the set has an op */
	double op_share;       /* of the set's weight, under that op */
	char module[200];      /* the group's path: collapsed ("….*.…") when it has several
				  members, else the one module's; "" none */
	const char *cls;       /* its class (owned by fw), NULL none */
	long layers;           /* modules in the group */
	long mod_calls, mod_kernels; /* the group's calls and kernels (all of its kernels) */
	double mod_share;      /* of the set's weight, under that group */
	long loc;              /* where the group's modules were called from most often (their
				  sampled calls summed by location; ties: the first in fw->locs),
				  -1 when none of their calls was sampled */
};

/* sel[k] != 0 picks kernel k of p; the weight of a kernel is 1 (by_count) or its duration.
 * GD_OK (o->op -1 and o->module "" when the set has neither), or GD_EFAIL out of memory. */
int gd_fw_origin(const struct gd_profile *p, const struct gd_framework *fw, const unsigned char *sel, int by_count,
		 struct gd_fw_origin *o);

/* The NVTX table's rows of PyTorch op ranges (tables.h): their messages differ in every call
 * (op_id), so the table counts them by op name. For each name id of p that a range of the default
 * domain in op form carries, group[id] = a group number, (*labels)[group] its op name (owned by
 * the caller: free each, then the array); -1 for every other id. group holds p->nnames entries.
 * GD_OK, or GD_EFAIL out of memory (nothing to free then). */
int gd_fw_op_name_groups(const struct gd_profile *p, int *group, char ***labels, long *nlabels);

/* A source mark's message split (without copying): 1 when msg is "gpudiag.src:<line>:<function>:
 * <file>" with 1 to 9 digits of line, a function without ':' and a non-empty file, else 0. */
int gd_fw_parse_src(const char *msg, long *line, const char **func, size_t *func_len, const char **file);

/* "modeling_gpt2.py:123": a location as the reports show it. Returns buf. */
char *gd_fw_loc_label(char *buf, size_t n, const struct gd_fw_loc *l);

/* An op range's message split (docs/framework-view.md): the op name's length (the text before
 * the first ", <key> = "), its seq (-1 when absent); returns 1 when the message is an op range
 * (carries a seq or op_id key), else 0. */
int gd_fw_parse_op(const char *msg, size_t *name_len, long long *seq);

#endif
