/* The framework view: kernels attributed to PyTorch ops and nn.Modules (framework.h says the
 * rules). One pass classifies the NVTX records, a stable counting sort groups the framework
 * ranges and the kernels' launches by thread (each already in time order: the reader sorts
 * ranges and API calls by start), and one sweep per thread keeps the ranges open at each
 * launch on a stack. */
#include "analysis/framework.h"

#include "analysis/tables.h"
#include "core/safe_int.h"
#include "core/status.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE_PREFIX_S "gpudiag.module:"
#define MARK_PREFIX_S "gpudiag.torch:"
static const char MODULE_PREFIX[] = MODULE_PREFIX_S;
static const char MARK_PREFIX[] = MARK_PREFIX_S;
static const char SRC_PREFIX[] = "gpudiag.src:";
static const char ENGINE_PREFIX[] = "autograd::engine::evaluate_function:";
static const char NO_OP[] = "(no op)";
static const char NO_MODULE[] = "(no module)";
/* A module path longer than this (real ones are tens of characters) gets no parent by prefix:
 * only by the module range that enclosed it. */
#define MAX_PREFIX_PATH 4096

const char *gd_fw_dir_name(int dir)
{
	return dir == GD_FW_FORWARD ? "forward" : dir == GD_FW_BACKWARD ? "backward" : dir == GD_FW_MIXED ? "mixed" : NULL;
}

int gd_fw_op_dir(const struct gd_fw_op *o)
{
	if (o->none || o->calls == 0)
		return GD_FW_DIR_UNKNOWN;
	return !o->bwd_calls ? GD_FW_FORWARD : !o->fwd_calls ? GD_FW_BACKWARD : GD_FW_MIXED;
}

char *gd_fw_module_label(char *buf, size_t n, const struct gd_fw_module *m)
{
	if (m->none || !m->cls)
		snprintf(buf, n, "%s", NO_MODULE);
	else if (!m->path[0])
		snprintf(buf, n, "%s (root)", m->cls);
	else
		snprintf(buf, n, "%s (%s)", m->path, m->cls);
	return buf;
}

char *gd_fw_collapse_path(char *buf, size_t n, const char *path)
{
	size_t o = 0;
	const char *c = path;
	if (!n)
		return buf;
	while (*c) {
		const char *e = c;
		int digits = 1;
		while (*e && *e != '.') {
			digits &= *e >= '0' && *e <= '9';
			e++;
		}
		if (e == c)
			digits = 0;
		if (digits) {
			if (o + 1 < n)
				buf[o++] = '*';
		} else {
			for (const char *q = c; q < e && o + 1 < n; q++)
				buf[o++] = *q;
		}
		if (*e == '.' && o + 1 < n)
			buf[o++] = '.';
		c = *e ? e + 1 : e;
	}
	buf[o] = 0;
	return buf;
}

/* ---- parsing the messages ---- */
int gd_fw_parse_op(const char *msg, size_t *name_len, long long *seq)
{
	const char *first = NULL;
	int op = 0;
	*seq = -1;
	for (const char *c = strstr(msg, ", "); c; c = strstr(c + 1, ", ")) {
		const char *k = c + 2, *e = k;
		while (*e == '_' || (*e >= 'a' && *e <= 'z'))
			e++;
		if (e == k || strncmp(e, " = ", 3))
			continue;
		if (!first)
			first = c;
		if (e - k == 3 && !strncmp(k, "seq", 3)) {
			const char *d = e + 3;
			long long v = 0;
			int nd = 0;
			while (*d >= '0' && *d <= '9' && nd < 18) {
				v = v * 10 + (*d++ - '0');
				nd++;
			}
			if (nd)
				*seq = v;
			op = 1;
		} else if (e - k == 5 && !strncmp(k, "op_id", 5)) {
			op = 1;
		}
	}
	*name_len = first ? (size_t)(first - msg) : strlen(msg);
	return op;
}

int gd_fw_parse_src(const char *msg, long *line, const char **func, size_t *func_len, const char **file)
{
	const char *c = msg + sizeof(SRC_PREFIX) - 1, *f;
	long v = 0;
	int nd = 0;
	if (strncmp(msg, SRC_PREFIX, sizeof(SRC_PREFIX) - 1))
		return 0;
	while (*c >= '0' && *c <= '9' && nd < 10) {
		v = v * 10 + (*c++ - '0');
		nd++;
	}
	if (!nd || nd > 9 || *c != ':')
		return 0;
	f = ++c;
	while (*c && *c != ':')
		c++;
	if (*c != ':' || !c[1])
		return 0;
	*line = v;
	*func = f;
	*func_len = (size_t)(c - f);
	*file = c + 1;
	return 1;
}

char *gd_fw_loc_label(char *buf, size_t n, const struct gd_fw_loc *l)
{
	snprintf(buf, n, "%s:%ld", l->shown ? l->shown : l->file, l->line);
	return buf;
}

/* An autograd node's own range ("AddmmBackward0") or the engine's around it. */
static int backward_name(const char *s, size_t n)
{
	size_t e = n;
	if (n >= sizeof(ENGINE_PREFIX) - 1 && !strncmp(s, ENGINE_PREFIX, sizeof(ENGINE_PREFIX) - 1))
		return 1;
	while (e > 0 && s[e - 1] >= '0' && s[e - 1] <= '9')
		e--;
	return e >= 8 && !strncmp(s + e - 8, "Backward", 8);
}

/* aten ops whose names have several words, as Inductor joins them with "_" into a kernel name
 * (torch/_inductor: "triton_" kind "_fused_" + the sorted op names + "_" index); a kernel name
 * is split at these first, longest first, and at every "_" elsewhere. */
static const char *const multiword_ops[] = {
	"_adaptive_avg_pool2d_backward", "_adaptive_avg_pool2d", "_fused_rms_norm", "_log_softmax_backward_data",
	"_log_softmax", "_native_batch_norm_legit_functional", "_native_batch_norm_legit_no_training",
	"_native_batch_norm_legit", "_scaled_dot_product_cudnn_attention",
	"_scaled_dot_product_efficient_attention", "_scaled_dot_product_flash_attention",
	"_softmax_backward_data", "_softmax", "_to_copy", "_unsafe_index_put", "_unsafe_index", "_unsafe_view",
	"adaptive_avg_pool2d", "addcdiv", "avg_pool2d_backward", "avg_pool2d", "binary_cross_entropy_with_logits",
	"binary_cross_entropy", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "clamp_max", "clamp_min",
	"constant_pad_nd", "convolution_backward", "elu_backward", "embedding_dense_backward", "empty_like",
	"full_like", "gelu_backward", "hardsigmoid_backward", "hardswish_backward", "hardtanh_backward",
	"index_add", "index_put", "index_select", "layer_norm", "leaky_relu_backward", "leaky_relu", "lift_fresh_copy",
	"log_softmax", "logical_and", "logical_not", "logical_or", "masked_fill", "max_pool2d_with_indices_backward",
	"max_pool2d_with_indices", "mse_loss_backward", "mse_loss", "native_batch_norm_backward",
	"native_batch_norm", "native_dropout_backward", "native_dropout", "native_group_norm_backward",
	"native_group_norm", "native_layer_norm_backward", "native_layer_norm", "new_empty", "new_full", "new_ones",
	"new_zeros", "nll_loss2d_backward", "nll_loss2d_forward", "nll_loss_backward", "nll_loss_forward",
	"ones_like", "rand_like", "randn_like", "reflection_pad2d", "replication_pad2d", "scatter_add",
	"scatter_reduce", "select_backward", "select_scatter", "sigmoid_backward", "silu_backward",
	"slice_backward", "slice_scatter", "smooth_l1_loss", "split_with_sizes", "tanh_backward",
	"threshold_backward", "upsample_bilinear2d_backward", "upsample_bilinear2d", "upsample_nearest2d_backward",
	"upsample_nearest2d", "var_mean", "where_self", "zeros_like",
};

static const struct {
	const char *code, *kind;
} fused_kinds[] = {
	{"poi", "pointwise"}, {"red", "reduction"}, {"per", "persistent reduction"}, {"tem", "template"},
	{"for", "foreach"},   {"spl", "split scan"}, {"sca", "scan"},
};

static void put(char *out, size_t n, size_t *o, const char *s, size_t len)
{
	for (size_t i = 0; i < len && *o + 1 < n; i++)
		out[(*o)++] = s[i];
	out[*o < n ? *o : n - 1] = 0;
}

int gd_fw_parse_fused(const char *k, char *kind, size_t nkind, char *ops, size_t nops)
{
	const char *c, *body, *end;
	size_t o = 0, klen;
	if (nkind)
		kind[0] = 0;
	if (nops)
		ops[0] = 0;
	if (strncmp(k, "triton_", 7))
		return 0;
	c = k + 7;
	for (klen = 0; c[klen] >= 'a' && c[klen] <= 'z'; klen++)
		;
	if (!klen || strncmp(c + klen, "_fused", 6))
		return 0;
	body = c + klen + 6;
	/* the index Inductor numbers its kernels with */
	end = body + strlen(body);
	{
		const char *d = end;
		while (d > body && d[-1] >= '0' && d[-1] <= '9')
			d--;
		if (d == end || d == body || d[-1] != '_')
			return 0;
		end = d - 1;
	}
	if (body < end && *body != '_')
		return 0;
	if (nkind) {
		const char *kn = NULL;
		for (size_t i = 0; i < sizeof(fused_kinds) / sizeof(fused_kinds[0]); i++)
			if (strlen(fused_kinds[i].code) == klen && !strncmp(fused_kinds[i].code, c, klen))
				kn = fused_kinds[i].kind;
		snprintf(kind, nkind, "%.*s", kn ? (int)strlen(kn) : (int)klen, kn ? kn : c);
	}
	if (body < end)
		body++; /* the "_" after "fused" */
	while (body < end) {
		size_t best = 0;
		for (size_t i = 0; i < sizeof(multiword_ops) / sizeof(multiword_ops[0]); i++) {
			size_t l = strlen(multiword_ops[i]);
			if (l > best && l <= (size_t)(end - body) && !strncmp(body, multiword_ops[i], l) &&
			    (body + l == end || body[l] == '_'))
				best = l;
		}
		if (!best) {
			/* one word; a leading "_" belongs to it (_foo) */
			const char *e = body + (*body == '_');
			while (e < end && *e != '_')
				e++;
			best = (size_t)(e - body);
		}
		if (best) {
			if (o)
				put(ops, nops, &o, ", ", 2);
			put(ops, nops, &o, body, best);
		}
		body += best;
		if (body < end && *body == '_')
			body++;
		if (!best)
			break;
	}
	return 1;
}

/* ---- a map of strings to row indices (op names, module keys, kernel names) ---- */
struct smap {
	uint64_t *h;
	long *row;       /* -1 empty */
	char **key;      /* owned */
	size_t *len;
	long cap, n;
};

static uint64_t shash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h ^ (h >> 31);
}

static int smap_grow(struct smap *m)
{
	long ncap = m->cap ? m->cap * 2 : 64;
	uint64_t *nh = malloc((size_t)ncap * sizeof(*nh));
	long *nr = malloc((size_t)ncap * sizeof(*nr));
	char **nk = malloc((size_t)ncap * sizeof(*nk));
	size_t *nl = malloc((size_t)ncap * sizeof(*nl));
	if (!nh || !nr || !nk || !nl) {
		free(nh), free(nr), free(nk), free(nl);
		return -1;
	}
	for (long i = 0; i < ncap; i++)
		nr[i] = -1;
	for (long i = 0; i < m->cap; i++) {
		long s;
		if (m->row[i] < 0)
			continue;
		s = (long)(m->h[i] & (uint64_t)(ncap - 1));
		while (nr[s] >= 0)
			s = (s + 1) & (ncap - 1);
		nh[s] = m->h[i], nr[s] = m->row[i], nk[s] = m->key[i], nl[s] = m->len[i];
	}
	free(m->h), free(m->row), free(m->key), free(m->len);
	m->h = nh, m->row = nr, m->key = nk, m->len = nl, m->cap = ncap;
	return 0;
}

/* The row of key s[0..n); when absent, `next` is stored for it and *added set. -1: out of memory. */
static long smap_get(struct smap *m, const char *s, size_t n, long next, int *added)
{
	uint64_t h = shash(s, n);
	long i;
	*added = 0;
	if ((m->n + 1) * 2 > m->cap && smap_grow(m))
		return -1;
	i = (long)(h & (uint64_t)(m->cap - 1));
	while (m->row[i] >= 0) {
		if (m->h[i] == h && m->len[i] == n && !memcmp(m->key[i], s, n))
			return m->row[i];
		i = (i + 1) & (m->cap - 1);
	}
	if (!(m->key[i] = malloc(n + 1)))
		return -1;
	memcpy(m->key[i], s, n);
	m->key[i][n] = 0;
	m->h[i] = h, m->len[i] = n, m->row[i] = next;
	m->n++;
	*added = 1;
	return next;
}

/* The row of key s[0..n), or -1. */
static long smap_find(const struct smap *m, const char *s, size_t n)
{
	uint64_t h;
	long i;
	if (!m->cap)
		return -1;
	h = shash(s, n);
	i = (long)(h & (uint64_t)(m->cap - 1));
	while (m->row[i] >= 0) {
		if (m->h[i] == h && m->len[i] == n && !memcmp(m->key[i], s, n))
			return m->row[i];
		i = (i + 1) & (m->cap - 1);
	}
	return -1;
}

static void smap_free(struct smap *m)
{
	for (long i = 0; i < m->cap; i++)
		if (m->row[i] >= 0)
			free(m->key[i]);
	free(m->h), free(m->row), free(m->key), free(m->len);
	memset(m, 0, sizeof(*m));
}

int gd_fw_op_name_groups(const struct gd_profile *p, int *group, char ***labels, long *nlabels)
{
	struct smap m = {0};
	long n = 0, cap = 0;
	char **l = NULL;
	*labels = NULL;
	*nlabels = 0;
	for (int i = 0; i < p->nnames; i++)
		group[i] = -2;
	for (long i = 0; i < p->nnv; i++) {
		const struct gd_pnvtx *v = &p->nv[i];
		const char *msg;
		size_t len;
		long long seq;
		int added;
		long g;
		if (v->mark || v->domain >= 0 || v->name < 0 || v->name >= p->nnames || group[v->name] != -2)
			continue;
		group[v->name] = -1;
		if (!(msg = p->names[v->name]) || !gd_fw_parse_op(msg, &len, &seq))
			continue;
		if ((g = smap_get(&m, msg, len, n, &added)) < 0)
			goto oom;
		if (added) {
			char **nl = l;
			if (n >= cap && !(nl = realloc(l, (size_t)(cap = cap ? cap * 2 : 64) * sizeof(*l))))
				goto oom;
			l = nl;
			if (!(l[n] = malloc(len + 1)))
				goto oom;
			memcpy(l[n], msg, len);
			l[n][len] = 0;
			n++;
		}
		group[v->name] = (int)g;
	}
	for (int i = 0; i < p->nnames; i++)
		if (group[i] == -2)
			group[i] = -1;
	smap_free(&m);
	*labels = l;
	*nlabels = n;
	return GD_OK;
oom:
	for (long i = 0; i < n; i++)
		free(l[i]);
	free(l);
	smap_free(&m);
	return GD_EFAIL;
}

/* Rows appended one at a time, zeroed; *cap doubles. NULL: out of memory (arr kept). */
static void *grow_row(void *arr, long *n, long *cap, size_t size)
{
	void *na = arr;
	if (*n >= *cap) {
		long nc = *cap ? *cap * 2 : 32;
		if (!(na = realloc(arr, (size_t)nc * size)))
			return NULL;
		*cap = nc;
	}
	memset((char *)na + (size_t)*n * size, 0, size);
	(*n)++;
	return na;
}

/* ---- the sweep ---- */
enum { R_NONE = 0, R_OP, R_MODULE, R_SRC /* a source mark: an instant, never on the stack */ };

/* A framework range of the profile. Indices are 32-bit (collect refuses more ranges than that):
 * a profile holds a million of these. */
struct fr {
	int64_t end;           /* INT64_MAX: never closed */
	int64_t seq;           /* its seq = N, -1 none */
	int64_t bwd_seq;       /* the seq of the innermost backward range with one, -1 none */
	double incl_ns;        /* kernels launched inside it, nested ranges included */
	int64_t incl_k;
	int32_t nv;            /* index into p->nv */
	int32_t row;           /* op or module row; a source mark's location */
	int32_t parent;        /* the enclosing framework range at its start, -1 none */
	int32_t op, mod;       /* the innermost op / module range, itself included; -1 none */
	unsigned char kind, in_bwd, bwdlike;
};

/* A forward op range's seq and the module it ran in: where backward kernels are linked. */
struct fseq {
	int64_t seq;
	int64_t start;
	int pid;
	int32_t mod;           /* module row, -1 none */
};

static int cmp_fseq(const void *x, const void *y)
{
	const struct fseq *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	if (a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

/* A backward kernel waiting for its forward module. */
struct pending {
	int64_t seq;
	int64_t t;
	int32_t k;
	int pid;
};

/* The thread id (0, 1, … in order of first appearance) of a (pid, tid) pair; -1 out of memory. */
static long thread_id(struct smap *m, int pid, int tid)
{
	int key[2] = {pid, tid}, added;
	return smap_get(m, (const char *)key, sizeof(key), m->n, &added);
}

/* Everything the computation holds until the rows are final. */
struct work {
	const struct gd_profile *p;
	struct gd_framework *fw;
	struct smap opmap, modmap, locmap, pairmap;
	long cap_ops, cap_mods, cap_locs;
	struct pair {          /* a (module row, location) met by a source mark */
		int32_t mod, loc;
		long calls;
	} *pairs;
	long npairs, cap_pairs;
	struct fr *r;
	long nr;
	long *mod_encl;        /* per module row: the enclosing module row at its first call; -2 none seen */
	struct fseq *fs;
	long nfs, cap_fs;
	struct pending *pend;
	long npend, cap_pend;
	int32_t *stack;
	int oom;               /* a push or launch could not grow fs or pend */
};

static int add_op_row(struct work *w, const char *name, size_t n, long *row)
{
	int added;
	long r = smap_get(&w->opmap, name, n, w->fw->nops, &added);
	if (r < 0)
		return GD_EFAIL;
	if (added) {
		void *na = grow_row(w->fw->ops, &w->fw->nops, &w->cap_ops, sizeof(*w->fw->ops));
		if (!na)
			return GD_EFAIL;
		w->fw->ops = na;
		if (!(w->fw->ops[r].name = malloc(n + 1)))
			return GD_EFAIL;
		memcpy(w->fw->ops[r].name, name, n);
		w->fw->ops[r].name[n] = 0;
	}
	*row = r;
	return GD_OK;
}

/* key = "<Class>:<path>" */
static int add_module_row(struct work *w, const char *key, long *row)
{
	int added;
	size_t n = strlen(key);
	const char *colon = strchr(key, ':');
	long r = smap_get(&w->modmap, key, n, w->fw->nmodules, &added);
	if (r < 0)
		return GD_EFAIL;
	if (added) {
		void *na = grow_row(w->fw->modules, &w->fw->nmodules, &w->cap_mods, sizeof(*w->fw->modules));
		long *ne;
		struct gd_fw_module *m;
		if (!na)
			return GD_EFAIL;
		w->fw->modules = na;
		if (!(ne = realloc(w->mod_encl, (size_t)w->cap_mods * sizeof(*ne))))
			return GD_EFAIL;
		w->mod_encl = ne;
		w->mod_encl[r] = -2;
		m = &w->fw->modules[r];
		m->parent = -1;
		m->cls = malloc((size_t)(colon - key) + 1);
		m->path = strdup(colon + 1);
		if (!m->cls || !m->path)
			return GD_EFAIL;
		memcpy(m->cls, key, (size_t)(colon - key));
		m->cls[colon - key] = 0;
	}
	*row = r;
	return GD_OK;
}

/* key = the source mark's message after the prefix (a location's identity) */
static int add_loc_row(struct work *w, const char *key, long line, const char *func, size_t func_len, const char *file,
		       long *row)
{
	int added;
	long r = smap_get(&w->locmap, key, strlen(key), w->fw->nlocs, &added);
	if (r < 0)
		return GD_EFAIL;
	if (added) {
		void *na = grow_row(w->fw->locs, &w->fw->nlocs, &w->cap_locs, sizeof(*w->fw->locs));
		struct gd_fw_loc *l;
		if (!na)
			return GD_EFAIL;
		w->fw->locs = na;
		l = &w->fw->locs[r];
		l->line = line;
		l->file = strdup(file);
		l->func = malloc(func_len + 1);
		if (!l->file || !l->func)
			return GD_EFAIL;
		memcpy(l->func, func, func_len);
		l->func[func_len] = 0;
	}
	*row = r;
	return GD_OK;
}

static void torch_mark(struct gd_framework *fw, const char *msg)
{
	const char *rest = msg + sizeof(MARK_PREFIX) - 1, *last = strrchr(rest, ':');
	char ver[64], mode[16];
	if (!last)
		return;
	snprintf(ver, sizeof(ver), "%.*s", (int)(last - rest), rest);
	snprintf(mode, sizeof(mode), "%s", last + 1);
	if (!fw->mode[0] && !fw->torch[0]) {
		snprintf(fw->torch, sizeof(fw->torch), "%s", ver);
		snprintf(fw->mode, sizeof(fw->mode), "%s", mode);
	} else if (strcmp(fw->torch, ver) || strcmp(fw->mode, mode)) {
		fw->modes_differ = 1;
	}
}

/* JAX/XLA (checked with JAX 0.11 on an H200, 2026-12-06) annotates its GPU work through NVTX
 * in the domain "TSL" when a profiler is injected: each HLO op a thunk runs as
 * "Thunk:#hlo_op=NAME#" and each executable as "XlaModule:#hlo_module=NAME#" (its compile
 * passes as other "Xla..." ranges, which launch nothing). The value of key in msg ("NAME"), up
 * to the next ',' or '#': *len, or NULL when msg is not "<prefix>#<key>=...". */
static const char *xla_value(const char *msg, const char *prefix, const char *key, size_t *len)
{
	size_t pl = strlen(prefix), kl = strlen(key);
	const char *v;
	if (strncmp(msg, prefix, pl) || msg[pl] != '#' || strncmp(msg + pl + 1, key, kl) || msg[pl + 1 + kl] != '=')
		return NULL;
	v = msg + pl + 2 + kl;
	*len = strcspn(v, ",#");
	return *len ? v : NULL;
}

/* The framework ranges of the profile, in p->nv order (start order); rows made as met. */
static int collect(struct work *w)
{
	const struct gd_profile *p = w->p;
	struct gd_framework *fw = w->fw;
	long cap = 0;
	if (p->nnv >= INT32_MAX || p->nk >= INT32_MAX)
		return GD_EFAIL; /* far beyond what memory holds: 32-bit indices below */
	for (long i = 0; i < p->nnv; i++) {
		const struct gd_pnvtx *v = &p->nv[i];
		const char *msg;
		size_t nlen;
		long long seq;
		struct fr *f;
		int kind;
		long row;
		if (v->name < 0 || v->name >= p->nnames || !(msg = p->names[v->name]))
			continue;
		if (v->domain >= 0) { /* JAX/XLA's ranges; any other domain is a program's own */
			const char *x;
			char key[600];
			if (v->mark || v->domain >= p->nnames || !p->names[v->domain] || strcmp(p->names[v->domain], "TSL"))
				continue;
			if ((x = xla_value(msg, "Thunk:", "hlo_op", &nlen))) {
				kind = R_OP;
				if (add_op_row(w, x, nlen, &row))
					return GD_EFAIL;
				fw->op_ranges++;
			} else if ((x = xla_value(msg, "XlaModule:", "hlo_module", &nlen)) && nlen < 512) {
				/* the module's name is its path: one level (a '.' in an HLO name is not a
				 * parent's, so it is shown as '_' in the tree's path) */
				int k = snprintf(key, sizeof(key), "XlaModule:%.*s", (int)nlen, x);
				for (int c = (int)sizeof("XlaModule:") - 1; c < k; c++)
					if (key[c] == '.')
						key[c] = '_';
				kind = R_MODULE;
				if (add_module_row(w, key, &row))
					return GD_EFAIL;
				fw->module_ranges++;
				fw->modules[row].calls++;
			} else {
				continue;
			}
			fw->xla_ranges++;
			seq = -1;
			goto keep;
		}
		if (v->mark) {
			const char *func, *file;
			long line;
			if (!strncmp(msg, MARK_PREFIX, sizeof(MARK_PREFIX) - 1)) {
				fw->present = 1;
				torch_mark(fw, msg);
				continue;
			}
			if (!gd_fw_parse_src(msg, &line, &func, &nlen, &file))
				continue;
			if (add_loc_row(w, msg + sizeof(SRC_PREFIX) - 1, line, func, nlen, file, &row))
				return GD_EFAIL;
			fw->src_marks++;
			kind = R_SRC;
			seq = -1;
			goto keep;
		}
		if (!strncmp(msg, MODULE_PREFIX, sizeof(MODULE_PREFIX) - 1)) {
			if (!strchr(msg + sizeof(MODULE_PREFIX) - 1, ':'))
				continue; /* not the contract's form: a range of the program's own */
			kind = R_MODULE;
			if (add_module_row(w, msg + sizeof(MODULE_PREFIX) - 1, &row))
				return GD_EFAIL;
			seq = -1;
			nlen = 0;
			fw->module_ranges++;
			fw->modules[row].calls++;
		} else if (gd_fw_parse_op(msg, &nlen, &seq)) {
			kind = R_OP;
			if (add_op_row(w, msg, nlen, &row))
				return GD_EFAIL;
			fw->op_ranges++;
		} else {
			continue;
		}
keep:
		{
			void *na = grow_row(w->r, &w->nr, &cap, sizeof(*w->r));
			if (!na)
				return GD_EFAIL;
			w->r = na;
		}
		f = &w->r[w->nr - 1];
		f->nv = (int32_t)i;
		f->end = kind == R_SRC ? v->start : v->end >= 0 ? v->end : INT64_MAX;
		f->row = (int32_t)row;
		f->kind = (unsigned char)kind;
		f->seq = seq;
		f->bwdlike = kind == R_OP && v->domain < 0 && backward_name(msg, nlen);
	}
	if (fw->op_ranges || fw->module_ranges)
		fw->present = 1;
	return GD_OK;
}

/* Ranges with the same start: the longer one encloses; equal ends keep the recorded order,
 * which is the push order. A run of equal starts is sorted by (end descending, index): a
 * profile from anywhere may hold any number of them. */
static const struct fr *g_r; /* for cmp_tie (qsort has no context argument) */

static int cmp_tie(const void *x, const void *y)
{
	int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
	if (g_r[a].end != g_r[b].end)
		return g_r[a].end > g_r[b].end ? -1 : 1;
	return a < b ? -1 : a > b;
}

static void order_ties(const struct gd_profile *p, const struct fr *r, int32_t *idx, long n)
{
	g_r = r;
	for (long i = 0; i < n;) {
		long j = i + 1;
		while (j < n && p->nv[r[idx[j]].nv].start == p->nv[r[idx[i]].nv].start)
			j++;
		if (j - i > 1)
			qsort(idx + i, (size_t)(j - i), sizeof(*idx), cmp_tie);
		i = j;
	}
}

/* An element appended to a growing array; NULL (and *oom set) when it cannot grow. */
static void *append(void *arrp, long *n, long *cap, size_t size, int *oom)
{
	void **arr = arrp;
	if (*n >= *cap) {
		long nc = *cap ? *cap * 2 : 1024;
		void *na = realloc(*arr, (size_t)nc * size);
		if (!na) {
			*oom = 1;
			return NULL;
		}
		*arr = na;
		*cap = nc;
	}
	return (char *)*arr + (size_t)(*n)++ * size;
}

static void pop(struct work *w, long *sp)
{
	int32_t x = w->stack[--*sp];
	struct fr *f = &w->r[x];
	if (f->parent >= 0) {
		w->r[f->parent].incl_ns += f->incl_ns;
		w->r[f->parent].incl_k += f->incl_k;
	}
	if (f->kind == R_OP) {
		w->fw->ops[f->row].total_ns += f->incl_ns;
		w->fw->ops[f->row].total_kernels += f->incl_k;
	}
}

static void push(struct work *w, int32_t x, long *sp)
{
	const struct gd_profile *p = w->p;
	struct fr *f = &w->r[x];
	int32_t par = *sp ? w->stack[*sp - 1] : -1;
	const struct fr *pf = par >= 0 ? &w->r[par] : NULL;
	f->parent = par;
	f->op = f->kind == R_OP ? x : pf ? pf->op : -1;
	f->mod = f->kind == R_MODULE ? x : pf ? pf->mod : -1;
	/* autograd's node range ("CopySlices, seq = 6") right inside the engine's ("autograd::
	 * engine::evaluate_function: CopySlices", which PyTorch records without a seq) is backward
	 * and carries the forward op's seq, whatever the node's name */
	if (!f->bwdlike && f->kind == R_OP && pf && pf->kind == R_OP && pf->bwdlike) {
		const char *en = w->fw->ops[pf->row].name;
		size_t np = sizeof(ENGINE_PREFIX) - 1;
		f->bwdlike = !strncmp(en, ENGINE_PREFIX, np) && en[np] == ' ' && !strcmp(en + np + 1, w->fw->ops[f->row].name);
	}
	f->in_bwd = f->bwdlike || (pf && pf->in_bwd);
	f->bwd_seq = f->bwdlike && f->seq >= 0 ? f->seq : pf ? pf->bwd_seq : -1;
	if (f->kind == R_OP) {
		struct gd_fw_op *o = &w->fw->ops[f->row];
		o->calls++;
		if (f->in_bwd) {
			o->bwd_calls++;
			w->fw->bwd_ranges += f->bwdlike;
		} else {
			o->fwd_calls++;
		}
		if (!f->in_bwd && f->seq >= 0) {
			struct fseq *q = append(&w->fs, &w->nfs, &w->cap_fs, sizeof(*w->fs), &w->oom);
			if (q)
				*q = (struct fseq){f->seq, p->nv[f->nv].start, p->nv[f->nv].pid,
						   f->mod >= 0 ? w->r[f->mod].row : -1};
		}
	} else if (w->mod_encl[f->row] == -2) {
		/* the module enclosing its first call: its parent in the tree, if paths agree */
		w->mod_encl[f->row] = pf && pf->mod >= 0 ? w->r[pf->mod].row : -1;
	}
	w->stack[(*sp)++] = x;
}

/* Kernel k launched at t inside the range on top of the stack (or none). */
static void launch(struct work *w, int32_t k, long sp, int64_t t)
{
	const struct gd_pkernel *kk = &w->p->k[k];
	struct gd_framework *fw = w->fw;
	int32_t top = sp ? w->stack[sp - 1] : -1;
	double d = gd_dur_ns(kk->start, kk->end);
	const struct fr *f;
	if (top < 0)
		return;
	f = &w->r[top];
	w->r[top].incl_ns += d;
	w->r[top].incl_k++;
	/* an op or module range that ended before t under a newer open range (ranges that do not
	 * nest, which push/pop ranges always do) is not around the launch */
	if (f->op >= 0 && w->r[f->op].end >= t)
		fw->k_op[k] = w->r[f->op].row;
	if (f->mod >= 0 && w->r[f->mod].end >= t)
		fw->k_mod[k] = w->r[f->mod].row;
	fw->k_bwd[k] = f->in_bwd;
	if (fw->k_mod[k] < 0 && f->in_bwd && f->bwd_seq >= 0) {
		struct pending *q = append(&w->pend, &w->npend, &w->cap_pend, sizeof(*w->pend), &w->oom);
		if (q)
			*q = (struct pending){f->bwd_seq, t, k, kk->pid};
	}
}

/* Source mark x at t: counted under the innermost module range around it (the same test as a
 * launch's), in pairmap/pairs. */
static void src_mark(struct work *w, int32_t x, long sp, int64_t t)
{
	int32_t top = sp ? w->stack[sp - 1] : -1, mod = top >= 0 ? w->r[top].mod : -1;
	int32_t key[2];
	int added;
	long i;
	struct pair *q;
	if (mod < 0 || w->r[mod].end < t) {
		w->fw->src_outside++;
		return;
	}
	key[0] = w->r[mod].row, key[1] = w->r[x].row;
	i = smap_get(&w->pairmap, (const char *)key, sizeof(key), w->npairs, &added);
	if (i < 0) {
		w->oom = 1;
		return;
	}
	if (added) {
		if (!(q = append(&w->pairs, &w->npairs, &w->cap_pairs, sizeof(*w->pairs), &w->oom)))
			return;
		q->mod = key[0], q->loc = key[1], q->calls = 0;
	}
	w->pairs[i].calls++;
}

/* Groups ranges and launches by thread and sweeps each thread. The temporary arrays are freed
 * as soon as the next step no longer needs them: with a million kernels and ranges they are
 * the peak of a report's memory. */
static int sweep(struct work *w)
{
	const struct gd_profile *p = w->p;
	struct gd_framework *fw = w->fw;
	struct smap tm = {0};
	long *calls = NULL, *acount = NULL, *rstart = NULL, *kstart = NULL, nk = 0, ng;
	int32_t *byapi = NULL, *rg = NULL, *kg = NULL, *rord = NULL, *kord = NULL, *tmp = NULL;
	int64_t *kt = NULL; /* per kord entry: its launch call's start */
	int rc = GD_EFAIL;

	calls = malloc(((size_t)p->nk + (size_t)p->nc + 1) * sizeof(*calls));
	if (!calls || gd_launch_calls(p, calls) != GD_OK)
		goto out;
	/* the kernels in their launching calls' order (a counting sort by call index: calls are in
	 * start order), then their thread */
	if (!(acount = calloc((size_t)p->na + 1, sizeof(*acount))) || !(byapi = malloc(((size_t)p->nk + 1) * sizeof(*byapi))))
		goto out;
	for (long i = 0; i < p->nk; i++) {
		if (calls[i] >= 0)
			acount[calls[i] + 1]++;
		else
			fw->no_launcher++;
	}
	for (long i = 0; i < p->na; i++)
		acount[i + 1] += acount[i];
	for (long i = 0; i < p->nk; i++)
		if (calls[i] >= 0)
			byapi[acount[calls[i]]++] = (int32_t)i;
	nk = p->nk - fw->no_launcher;
	free(acount);
	acount = NULL;

	/* thread ids */
	if (!(rg = malloc(((size_t)w->nr + 1) * sizeof(*rg))) || !(kg = malloc(((size_t)nk + 1) * sizeof(*kg))))
		goto out;
	for (long i = 0; i < w->nr; i++) {
		long g = thread_id(&tm, p->nv[w->r[i].nv].pid, p->nv[w->r[i].nv].tid);
		if (g < 0)
			goto out;
		rg[i] = (int32_t)g;
	}
	for (long i = 0; i < nk; i++) {
		const struct gd_papi *a = &p->a[calls[byapi[i]]];
		long g = thread_id(&tm, a->pid, a->tid);
		if (g < 0)
			goto out;
		kg[i] = (int32_t)g;
	}
	ng = tm.n;
	/* stable counting sorts by thread */
	if (!(rstart = calloc((size_t)ng + 1, sizeof(*rstart))) || !(kstart = calloc((size_t)ng + 1, sizeof(*kstart))) ||
	    !(kord = malloc(((size_t)nk + 1) * sizeof(*kord))) || !(kt = malloc(((size_t)nk + 1) * sizeof(*kt))) ||
	    !(tmp = malloc(((size_t)w->nr + 1) * sizeof(*tmp))))
		goto out;
	for (long i = 0; i < w->nr; i++)
		rstart[rg[i] + 1]++;
	for (long i = 0; i < nk; i++)
		kstart[kg[i] + 1]++;
	for (long g = 0; g < ng; g++) {
		rstart[g + 1] += rstart[g];
		kstart[g + 1] += kstart[g];
	}
	{
		long *rp = malloc(((size_t)ng + 1) * sizeof(*rp)), *kp = malloc(((size_t)ng + 1) * sizeof(*kp));
		if (!rp || !kp) {
			free(rp), free(kp);
			goto out;
		}
		memcpy(rp, rstart, (size_t)ng * sizeof(*rp));
		memcpy(kp, kstart, (size_t)ng * sizeof(*kp));
		for (long i = 0; i < w->nr; i++)
			tmp[rp[rg[i]]++] = (int32_t)i;
		for (long i = 0; i < nk; i++) {
			long at = kp[kg[i]]++;
			kord[at] = byapi[i];
			kt[at] = p->a[calls[byapi[i]]].start;
		}
		free(rp), free(kp);
	}
	free(calls), free(byapi), free(rg), free(kg);
	calls = NULL, byapi = rg = kg = NULL;
	rord = tmp;
	tmp = NULL;
	for (long g = 0; g < ng; g++)
		order_ties(p, w->r, rord + rstart[g], rstart[g + 1] - rstart[g]);

	/* the sweep: a range that starts at a launch's time holds it, one that ends then too */
	if (!(w->stack = malloc(((size_t)w->nr + 1) * sizeof(*w->stack))))
		goto out;
	for (long g = 0; g < ng; g++) {
		long ri = rstart[g], re = rstart[g + 1], ki = kstart[g], ke = kstart[g + 1], sp = 0;
		while (ri < re || ki < ke) {
			int64_t ts = ri < re ? p->nv[w->r[rord[ri]].nv].start : INT64_MAX;
			int64_t tk = ki < ke ? kt[ki] : INT64_MAX;
			int is_range = ri < re && ts <= tk;
			int64_t now = is_range ? ts : tk;
			while (sp && w->r[w->stack[sp - 1]].end < now)
				pop(w, &sp);
			if (is_range && w->r[rord[ri]].kind == R_SRC)
				src_mark(w, rord[ri++], sp, ts);
			else if (is_range)
				push(w, rord[ri++], &sp);
			else
				launch(w, kord[ki], sp, tk), ki++;
		}
		while (sp)
			pop(w, &sp);
	}
	rc = w->oom ? GD_EFAIL : GD_OK;
out:
	smap_free(&tm);
	free(calls), free(rg), free(kg), free(rstart), free(kstart), free(rord), free(kord), free(kt), free(tmp);
	free(byapi), free(acount);
	return rc;
}

/* Backward kernels outside every module range: the module of the forward op of their seq. */
static void link_backward(struct work *w)
{
	if (!w->npend || !w->nfs)
		return;
	qsort(w->fs, (size_t)w->nfs, sizeof(*w->fs), cmp_fseq);
	for (long i = 0; i < w->npend; i++) {
		const struct pending *q = &w->pend[i];
		long lo = 0, hi = w->nfs;
		/* the first entry after (pid, seq, t); the one before it is the latest at or before t */
		while (lo < hi) {
			long mid = lo + (hi - lo) / 2;
			const struct fseq *f = &w->fs[mid];
			int after = f->pid != q->pid ? f->pid > q->pid : f->seq != q->seq ? f->seq > q->seq : f->start > q->t;
			if (after)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (lo > 0 && w->fs[lo - 1].pid == q->pid && w->fs[lo - 1].seq == q->seq && w->fs[lo - 1].mod >= 0)
			w->fw->k_mod[q->k] = w->fs[lo - 1].mod;
	}
}

/* ---- where modules were called from (source marks) ---- */
static const struct gd_fw_loc *g_locs; /* for cmp_pair (qsort has no context argument) */

static int cmp_loc(long a, long b)
{
	int c = strcmp(g_locs[a].file, g_locs[b].file);
	if (c)
		return c;
	if (g_locs[a].line != g_locs[b].line)
		return g_locs[a].line < g_locs[b].line ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int cmp_pair(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	if (a->mod != b->mod)
		return a->mod < b->mod ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	return cmp_loc(a->loc, b->loc);
}

/* Each module's from[] out of the (module, location) pairs. */
static int sources(struct work *w)
{
	struct gd_framework *fw = w->fw;
	if (!w->npairs)
		return GD_OK;
	g_locs = fw->locs;
	qsort(w->pairs, (size_t)w->npairs, sizeof(*w->pairs), cmp_pair);
	for (long i = 0; i < w->npairs;) {
		long j = i;
		struct gd_fw_module *m = &fw->modules[w->pairs[i].mod];
		while (j < w->npairs && w->pairs[j].mod == w->pairs[i].mod)
			j++;
		if (!(m->from = malloc((size_t)(j - i) * sizeof(*m->from))))
			return GD_EFAIL;
		for (; i < j; i++) {
			m->from[m->nfrom].loc = w->pairs[i].loc;
			m->from[m->nfrom++].calls = w->pairs[i].calls;
			m->sampled += w->pairs[i].calls;
		}
	}
	return GD_OK;
}

/* The last k '/'-separated components of f ("b/c.py" of "/a/b/c.py" for k 2), or f itself
 * when it has no more than k. */
static const char *path_tail(const char *f, int k)
{
	const char *p = f + strlen(f);
	while (k-- > 0) {
		while (p > f && p[-1] != '/')
			p--;
		if (p == f || !k)
			return p;
		p--; /* onto the '/' */
	}
	return p;
}

/* Each location's shown name: for k = 1, 2, ..., the files (distinct) whose last k components
 * no other file's last k components equal get those; a path of more components than any real
 * one (MAX_TAIL) is shown whole. O(files x depth). */
#define MAX_TAIL 64
static int short_names(struct gd_framework *fw)
{
	struct smap files = {0};
	long nf = 0, *count = NULL, *fidx = NULL, left;
	const char **first = NULL, **shown = NULL;
	int rc = GD_EFAIL;
	if (!fw->nlocs)
		return GD_OK;
	if (!(fidx = malloc((size_t)fw->nlocs * sizeof(*fidx))) || !(first = malloc((size_t)fw->nlocs * sizeof(*first))) ||
	    !(shown = calloc((size_t)fw->nlocs, sizeof(*shown))) || !(count = malloc((size_t)fw->nlocs * sizeof(*count))))
		goto out;
	for (long i = 0; i < fw->nlocs; i++) {
		int added;
		long r = smap_get(&files, fw->locs[i].file, strlen(fw->locs[i].file), nf, &added);
		if (r < 0)
			goto out;
		if (added)
			first[nf++] = fw->locs[i].file;
		fidx[i] = r;
	}
	left = nf;
	for (int k = 1; k <= MAX_TAIL && left; k++) {
		struct smap tails = {0};
		long nt = 0;
		long *tix = malloc((size_t)nf * sizeof(*tix));
		if (!tix)
			goto out;
		for (long f = 0; f < nf; f++) {
			const char *t = path_tail(first[f], k);
			int added;
			long r = smap_get(&tails, t, strlen(t), nt, &added);
			if (r < 0) {
				smap_free(&tails);
				free(tix);
				goto out;
			}
			if (added)
				count[nt++] = 0;
			count[r]++;
			tix[f] = r;
		}
		for (long f = 0; f < nf; f++)
			if (!shown[f] && count[tix[f]] == 1) {
				shown[f] = path_tail(first[f], k);
				left--;
			}
		smap_free(&tails);
		free(tix);
	}
	for (long i = 0; i < fw->nlocs; i++) {
		const char *s = shown[fidx[i]];
		/* shown points into the first location's copy of the file: the same offset in this one's */
		fw->locs[i].shown = s ? fw->locs[i].file + (s - first[fidx[i]]) : fw->locs[i].file;
	}
	rc = GD_OK;
out:
	smap_free(&files);
	free(count), free(fidx), free(first), free(shown);
	return rc;
}

/* ---- rows ---- */
/* qsort has no context argument: the rows being sorted (one computation at a time) */
static const struct gd_fw_op *g_ops;
static const struct gd_fw_module *g_mods;

/* The rows' order: the larger first time (then the larger second), a "(no …)" row after a real
 * one of the same times; 0 when they tie. */
static int by_time(double a1, double b1, double a2, double b2, int anone, int bnone)
{
	if (a1 != b1)
		return a1 > b1 ? -1 : 1;
	if (a2 != b2)
		return a2 > b2 ? -1 : 1;
	return anone - bnone;
}

static int cmp_op_idx(const void *x, const void *y)
{
	const struct gd_fw_op *a = &g_ops[*(const long *)x], *b = &g_ops[*(const long *)y];
	int c = by_time(a->self_ns, b->self_ns, a->total_ns, b->total_ns, a->none, b->none);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_mod_idx(const void *x, const void *y)
{
	const struct gd_fw_module *a = &g_mods[*(const long *)x], *b = &g_mods[*(const long *)y];
	int c = by_time(a->self_ns, b->self_ns, a->total_ns, b->total_ns, a->none, b->none);
	if (c || (c = strcmp(a->path, b->path)))
		return c;
	return strcmp(a->cls ? a->cls : "", b->cls ? b->cls : "");
}

static int cmp_path_len(const void *x, const void *y)
{
	size_t a = strlen(g_mods[*(const long *)x].path), b = strlen(g_mods[*(const long *)y].path);
	return a > b ? -1 : a < b;
}

/* Children by parent, then total descending (the tree's order). */
static int cmp_child(const void *x, const void *y)
{
	const struct gd_fw_module *a = &g_mods[*(const long *)x], *b = &g_mods[*(const long *)y];
	int c;
	if (a->parent != b->parent)
		return a->parent < b->parent ? -1 : 1;
	c = by_time(a->total_ns, b->total_ns, 0, 0, a->none, b->none);
	return c ? c : strcmp(a->path, b->path);
}

/* "a" is a dotted prefix of "b" ("" of any other path). */
static int path_prefix(const char *a, const char *b)
{
	size_t n = strlen(a);
	if (!n)
		return b[0] != 0;
	return !strncmp(a, b, n) && b[n] == '.';
}

/* The tree: parents, totals (children before parents: longer paths first), pre-order. */
static int module_tree(struct work *w)
{
	struct gd_framework *fw = w->fw;
	struct gd_fw_module *m = fw->modules;
	long n = fw->nmodules, *ord = NULL, *first = NULL, *stk = NULL;
	struct smap bypath = {0};
	int rc = GD_EFAIL;
	if (!n)
		return GD_OK;
	if (!(ord = malloc((size_t)n * sizeof(*ord))) || !(first = malloc(((size_t)n + 2) * sizeof(*first))) ||
	    !(stk = malloc(((size_t)n + 1) * sizeof(*stk))) || !(fw->tree = malloc((size_t)n * sizeof(*fw->tree))))
		goto out;
	for (long i = 0; i < n; i++) {
		int added;
		if (!m[i].none && smap_get(&bypath, m[i].path, strlen(m[i].path), i, &added) < 0)
			goto out;
	}
	for (long i = 0; i < n; i++) {
		long e = w->mod_encl ? w->mod_encl[i] : -1;
		m[i].parent = -1;
		if (m[i].none || !m[i].path[0])
			continue;
		if (e >= 0 && e != i && path_prefix(m[e].path, m[i].path)) {
			m[i].parent = e;
			continue;
		}
		/* the longest existing proper prefix (of a path no longer than real ones get: a path
		 * of a million dots would cost a million lookups of its prefixes) */
		if (strlen(m[i].path) > MAX_PREFIX_PATH)
			continue;
		for (size_t l = strlen(m[i].path); l-- > 0;) {
			long q;
			if (m[i].path[l] != '.' && l)
				continue;
			if (l && (q = smap_find(&bypath, m[i].path, l)) >= 0 && q != i) {
				m[i].parent = q;
				break;
			}
			if (!l && (q = smap_find(&bypath, "", 0)) >= 0 && q != i)
				m[i].parent = q;
		}
	}
	/* totals: a child's path is longer than its parent's */
	g_mods = m;
	for (long i = 0; i < n; i++) {
		ord[i] = i;
		m[i].total_ns = m[i].self_ns;
		m[i].total_kernels = m[i].kernels;
		m[i].bwd_ns = m[i].self_bwd_ns;
		m[i].fwd_ns = m[i].self_ns - m[i].self_bwd_ns;
	}
	qsort(ord, (size_t)n, sizeof(*ord), cmp_path_len);
	for (long i = 0; i < n; i++) {
		const struct gd_fw_module *c = &m[ord[i]];
		if (c->parent >= 0) {
			m[c->parent].total_ns += c->total_ns;
			m[c->parent].total_kernels += c->total_kernels;
			m[c->parent].fwd_ns += c->fwd_ns;
			m[c->parent].bwd_ns += c->bwd_ns;
		}
	}
	/* pre-order: the children of each parent are a run of ord sorted by (parent, total) */
	qsort(ord, (size_t)n, sizeof(*ord), cmp_child);
	for (long i = 0; i <= n + 1; i++)
		first[i] = -1;
	/* first[parent + 1] = the first index in ord of its children (roots: parent -1 → slot 0) */
	for (long i = n; i-- > 0;)
		first[m[ord[i]].parent + 1] = i;
	{
		long sp = 0;
		/* roots, in reverse so that the largest comes off the stack first */
		for (long i = 0; i < n && m[ord[i]].parent < 0; i++)
			stk[sp++] = ord[i];
		for (long a = 0, b = sp - 1; a < b; a++, b--) {
			long t = stk[a];
			stk[a] = stk[b], stk[b] = t;
		}
		while (sp) {
			long x = stk[--sp], c0 = first[x + 1], c1 = c0;
			fw->tree[fw->ntree++] = x;
			m[x].depth = m[x].parent >= 0 ? m[m[x].parent].depth + 1 : 0;
			if (c0 < 0)
				continue;
			while (c1 < n && m[ord[c1]].parent == x)
				c1++;
			for (long c = c1; c-- > c0;)
				stk[sp++] = ord[c];
		}
	}
	rc = GD_OK;
out:
	smap_free(&bypath);
	free(ord), free(first), free(stk);
	return rc;
}

/* Sorts the op and module rows and renumbers what points at them. */
static int sort_rows(struct work *w)
{
	struct gd_framework *fw = w->fw;
	long *newi = NULL, *ord = NULL, n = fw->nops > fw->nmodules ? fw->nops : fw->nmodules;
	struct gd_fw_op *no = NULL;
	struct gd_fw_module *nm = NULL;
	if (!n)
		return GD_OK;
	if (!(newi = malloc((size_t)n * sizeof(*newi))) || !(ord = malloc((size_t)n * sizeof(*ord))) ||
	    !(no = malloc(((size_t)fw->nops + 1) * sizeof(*no))) || !(nm = malloc(((size_t)fw->nmodules + 1) * sizeof(*nm)))) {
		free(newi), free(ord), free(no), free(nm);
		return GD_EFAIL;
	}
	g_ops = fw->ops;
	for (long i = 0; i < fw->nops; i++)
		ord[i] = i;
	qsort(ord, (size_t)fw->nops, sizeof(*ord), cmp_op_idx);
	for (long i = 0; i < fw->nops; i++) {
		no[i] = fw->ops[ord[i]];
		newi[ord[i]] = i;
	}
	for (long k = 0; k < w->p->nk; k++)
		if (fw->k_op[k] >= 0)
			fw->k_op[k] = (int32_t)newi[fw->k_op[k]];
	free(fw->ops);
	fw->ops = no;

	g_mods = fw->modules;
	for (long i = 0; i < fw->nmodules; i++)
		ord[i] = i;
	qsort(ord, (size_t)fw->nmodules, sizeof(*ord), cmp_mod_idx);
	for (long i = 0; i < fw->nmodules; i++) {
		nm[i] = fw->modules[ord[i]];
		newi[ord[i]] = i;
	}
	for (long i = 0; i < fw->nmodules; i++)
		if (nm[i].parent >= 0)
			nm[i].parent = newi[nm[i].parent];
	for (long i = 0; i < fw->ntree; i++)
		fw->tree[i] = newi[fw->tree[i]];
	for (long k = 0; k < w->p->nk; k++)
		if (fw->k_mod[k] >= 0)
			fw->k_mod[k] = (int32_t)newi[fw->k_mod[k]];
	free(fw->modules);
	fw->modules = nm;
	free(newi), free(ord);
	return GD_OK;
}

static int cmp_fused(const void *x, const void *y)
{
	const struct gd_fw_fused *a = x, *b = y;
	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->kernel, b->kernel);
}

/* Inductor/Triton kernels by name, parsed once per name id. */
static int fused(const struct gd_profile *p, struct gd_framework *fw)
{
	long *row = malloc(((size_t)p->nnames + 1) * sizeof(*row)), cap = 0;
	char kind[64], ops[512];
	if (!row)
		return GD_EFAIL;
	for (int i = 0; i < p->nnames; i++)
		row[i] = -2;
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *k = &p->k[i];
		long r;
		if (k->name < 0 || k->name >= p->nnames || !p->names[k->name])
			continue;
		r = row[k->name];
		if (r == -2) {
			r = row[k->name] = -1;
			if (gd_fw_parse_fused(p->names[k->name], kind, sizeof(kind), ops, sizeof(ops))) {
				void *na = grow_row(fw->fused, &fw->nfused, &cap, sizeof(*fw->fused));
				struct gd_fw_fused *f;
				if (!na)
					goto oom;
				fw->fused = na;
				f = &fw->fused[fw->nfused - 1];
				f->kernel = strdup(p->names[k->name]);
				f->kind = strdup(kind);
				f->ops = strdup(ops);
				if (!f->kernel || !f->kind || !f->ops)
					goto oom;
				r = row[k->name] = fw->nfused - 1;
			}
		}
		if (r >= 0) {
			fw->fused[r].kernels++;
			fw->fused[r].ns += gd_dur_ns(k->start, k->end);
		}
	}
	/* two name ids of one text (a damaged strings table) stay two rows: harmless */
	if (fw->nfused > 1)
		qsort(fw->fused, (size_t)fw->nfused, sizeof(*fw->fused), cmp_fused);
	if (fw->nfused)
		fw->present = 1;
	free(row);
	return GD_OK;
oom:
	free(row);
	return GD_EFAIL;
}

/* Self time of each row from the per-kernel attribution, and the "(no …)" rows. */
static int self_times(struct work *w)
{
	const struct gd_profile *p = w->p;
	struct gd_framework *fw = w->fw;
	long nnoop = 0, nnomod = 0;
	double noop_ns = 0, nomod_ns = 0;
	for (long k = 0; k < p->nk; k++) {
		double d = gd_dur_ns(p->k[k].start, p->k[k].end);
		fw->kernel_ns += d;
		if (fw->k_op[k] >= 0) {
			fw->ops[fw->k_op[k]].kernels++;
			fw->ops[fw->k_op[k]].self_ns += d;
		} else {
			nnoop++;
			noop_ns += d;
		}
		if (fw->k_mod[k] >= 0) {
			struct gd_fw_module *m = &fw->modules[fw->k_mod[k]];
			m->kernels++;
			m->self_ns += d;
			if (fw->k_bwd[k])
				m->self_bwd_ns += d;
		} else {
			nnomod++;
			nomod_ns += d;
		}
	}
	if (fw->op_ranges && nnoop) {
		long row;
		if (add_op_row(w, NO_OP, sizeof(NO_OP) - 1, &row))
			return GD_EFAIL;
		fw->ops[row].none = 1;
		fw->ops[row].kernels = fw->ops[row].total_kernels = nnoop;
		fw->ops[row].self_ns = fw->ops[row].total_ns = noop_ns;
	}
	if (fw->module_ranges && nnomod) {
		void *na = grow_row(fw->modules, &fw->nmodules, &w->cap_mods, sizeof(*fw->modules));
		long *ne;
		struct gd_fw_module *m;
		if (!na)
			return GD_EFAIL;
		fw->modules = na;
		if (!(ne = realloc(w->mod_encl, (size_t)w->cap_mods * sizeof(*ne))))
			return GD_EFAIL;
		w->mod_encl = ne;
		w->mod_encl[fw->nmodules - 1] = -1;
		m = &fw->modules[fw->nmodules - 1];
		m->none = 1;
		m->parent = -1;
		if (!(m->path = strdup(NO_MODULE)))
			return GD_EFAIL;
		m->cls = NULL;
		m->kernels = nnomod;
		m->self_ns = nomod_ns;
		/* backward kernels with no module stay with their direction */
		for (long k = 0; k < p->nk; k++)
			if (fw->k_mod[k] < 0 && fw->k_bwd[k])
				m->self_bwd_ns += gd_dur_ns(p->k[k].start, p->k[k].end);
	}
	return GD_OK;
}

int gd_fw_origin(const struct gd_profile *p, const struct gd_framework *fw, const unsigned char *sel, int by_count,
		 struct gd_fw_origin *o)
{
	double *opw = NULL, *gw = NULL, all = 0;
	long *grp = NULL, *gfirst = NULL, *glayers = NULL, *gcalls = NULL, *gkern = NULL, ng = 0, best;
	struct smap gm = {0};
	char key[400];
	int rc = GD_EFAIL;
	memset(o, 0, sizeof(*o));
	o->op = -1;
	o->loc = -1;
	if (!fw->present || !fw->k_op)
		return GD_OK;
	opw = calloc((size_t)fw->nops + 1, sizeof(*opw));
	gw = calloc((size_t)fw->nmodules + 1, sizeof(*gw));
	grp = malloc(((size_t)fw->nmodules + 1) * sizeof(*grp));
	gfirst = malloc(((size_t)fw->nmodules + 1) * sizeof(*gfirst));
	glayers = calloc((size_t)fw->nmodules + 1, sizeof(*glayers));
	gcalls = calloc((size_t)fw->nmodules + 1, sizeof(*gcalls));
	gkern = calloc((size_t)fw->nmodules + 1, sizeof(*gkern));
	if (!opw || !gw || !grp || !gfirst || !glayers || !gcalls || !gkern)
		goto out;
	/* the module groups: collapsed path and class */
	for (long i = 0; i < fw->nmodules; i++) {
		const struct gd_fw_module *m = &fw->modules[i];
		int added;
		size_t n;
		if (m->none) {
			grp[i] = -1;
			continue;
		}
		gd_fw_collapse_path(key, sizeof(key) - 130, m->path);
		n = strlen(key);
		snprintf(key + n, sizeof(key) - n, "%c%.120s", 1, m->cls);
		if ((grp[i] = smap_get(&gm, key, strlen(key), ng, &added)) < 0)
			goto out;
		if (added)
			gfirst[ng++] = i;
		glayers[grp[i]]++;
		gcalls[grp[i]] += m->calls;
		gkern[grp[i]] += m->kernels;
	}
	for (long k = 0; k < p->nk; k++) {
		double x;
		if (!sel[k])
			continue;
		x = by_count ? 1 : gd_dur_ns(p->k[k].start, p->k[k].end);
		all += x;
		if (fw->k_op[k] >= 0)
			opw[fw->k_op[k]] += x;
		if (fw->k_mod[k] >= 0 && grp[fw->k_mod[k]] >= 0)
			gw[grp[fw->k_mod[k]]] += x;
	}
	best = -1;
	for (long i = 0; i < fw->nops; i++)
		if (opw[i] > 0 && (best < 0 || opw[i] > opw[best]))
			best = i;
	if (best >= 0) {
		o->op = best;
		o->op_share = opw[best] / all;
	}
	best = -1;
	for (long g = 0; g < ng; g++)
		if (gw[g] > 0 && (best < 0 || gw[g] > gw[best]))
			best = g;
	if (best >= 0) {
		const struct gd_fw_module *m = &fw->modules[gfirst[best]];
		if (glayers[best] > 1)
			gd_fw_collapse_path(o->module, sizeof(o->module), m->path);
		else
			snprintf(o->module, sizeof(o->module), "%s", m->path);
		o->cls = m->cls;
		o->layers = glayers[best];
		o->mod_calls = gcalls[best];
		o->mod_kernels = gkern[best];
		o->mod_share = gw[best] / all;
		if (fw->nlocs) {
			/* the group's sampled calls summed by location */
			double *lw = calloc((size_t)fw->nlocs, sizeof(*lw));
			if (!lw)
				goto out;
			for (long i = 0; i < fw->nmodules; i++)
				if (grp[i] == best)
					for (long e = 0; e < fw->modules[i].nfrom; e++)
						lw[fw->modules[i].from[e].loc] += (double)fw->modules[i].from[e].calls;
			for (long l = 0; l < fw->nlocs; l++)
				if (lw[l] > 0 && (o->loc < 0 || lw[l] > lw[o->loc]))
					o->loc = l;
			free(lw);
		}
	}
	rc = GD_OK;
out:
	smap_free(&gm);
	free(opw), free(gw), free(grp), free(gfirst), free(glayers), free(gcalls), free(gkern);
	return rc;
}

int gd_framework_compute(const struct gd_profile *p, struct gd_framework *fw)
{
	struct work w;
	int rc = GD_EFAIL;
	memset(fw, 0, sizeof(*fw));
	memset(&w, 0, sizeof(w));
	w.p = p;
	w.fw = fw;
	fw->kernels = p->nk;
	if (collect(&w))
		goto out;
	if (fused(p, fw))
		goto out;
	if (!fw->present) {
		long nk = fw->kernels;
		gd_framework_free(fw); /* source marks alone: their locations */
		fw->kernels = nk;
		rc = GD_OK;
		goto out;
	}
	fw->k_op = malloc(((size_t)p->nk + 1) * sizeof(*fw->k_op));
	fw->k_mod = malloc(((size_t)p->nk + 1) * sizeof(*fw->k_mod));
	fw->k_bwd = calloc((size_t)p->nk + 1, 1);
	if (!fw->k_op || !fw->k_mod || !fw->k_bwd)
		goto out;
	for (long k = 0; k < p->nk; k++)
		fw->k_op[k] = fw->k_mod[k] = -1;
	if (w.nr) {
		if (sweep(&w))
			goto out;
		link_backward(&w);
	}
	if (sources(&w) || short_names(fw))
		goto out;
	if (self_times(&w) || module_tree(&w) || sort_rows(&w))
		goto out;
	rc = GD_OK;
out:
	smap_free(&w.opmap);
	smap_free(&w.modmap);
	smap_free(&w.locmap);
	smap_free(&w.pairmap);
	free(w.pairs);
	free(w.r), free(w.mod_encl), free(w.fs), free(w.pend), free(w.stack);
	if (rc != GD_OK)
		gd_framework_free(fw);
	return rc;
}

void gd_framework_free(struct gd_framework *fw)
{
	for (long i = 0; i < fw->nops; i++)
		free(fw->ops[i].name);
	for (long i = 0; i < fw->nmodules; i++) {
		free(fw->modules[i].path);
		free(fw->modules[i].cls);
		free(fw->modules[i].from);
	}
	for (long i = 0; i < fw->nlocs; i++) {
		free(fw->locs[i].file);
		free(fw->locs[i].func);
	}
	free(fw->locs);
	for (long i = 0; i < fw->nfused; i++) {
		free(fw->fused[i].kernel);
		free(fw->fused[i].kind);
		free(fw->fused[i].ops);
	}
	free(fw->ops), free(fw->modules), free(fw->tree), free(fw->fused);
	free(fw->k_op), free(fw->k_mod), free(fw->k_bwd);
	memset(fw, 0, sizeof(*fw));
}

/* ---- per kernel, by (pid, correlation id): the streaming exports' view */

static int cmp_kref(const void *x, const void *y)
{
	const struct gd_fw_kref *a = x, *b = y;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return a->corr < b->corr ? -1 : a->corr > b->corr;
}

void gd_fw_krefs_free(struct gd_fw_krefs *k)
{
	for (long i = 0; i < k->nops; i++)
		free(k->ops[i]);
	for (long i = 0; i < k->nmods; i++)
		free(k->mods[i]);
	free(k->ops), free(k->mods), free(k->r);
	memset(k, 0, sizeof(*k));
}

/* k's labels and kernel rows from p and its view fw. GD_OK or GD_EFAIL (out of memory). */
static int krefs_fill(const struct gd_profile *p, const struct gd_framework *fw, struct gd_fw_krefs *k)
{
	char b[600];
	if ((fw->nops && !(k->ops = calloc((size_t)fw->nops, sizeof(*k->ops)))) ||
	    (fw->nmodules && !(k->mods = calloc((size_t)fw->nmodules, sizeof(*k->mods)))) ||
	    (p->nk && !(k->r = malloc((size_t)p->nk * sizeof(*k->r)))))
		return GD_EFAIL;
	for (; k->nops < fw->nops; k->nops++)
		if (!(k->ops[k->nops] = strdup(fw->ops[k->nops].none ? "" : fw->ops[k->nops].name)))
			return GD_EFAIL;
	for (; k->nmods < fw->nmodules; k->nmods++)
		if (!(k->mods[k->nmods] = strdup(fw->modules[k->nmods].none ? "" : gd_fw_module_label(b, sizeof(b), &fw->modules[k->nmods]))))
			return GD_EFAIL;
	for (long i = 0; i < p->nk; i++) {
		const struct gd_pkernel *pk = &p->k[i];
		struct gd_fw_kref *r;
		int32_t op = fw->k_op[i], mod = fw->k_mod[i];
		if (op >= 0 && fw->ops[op].none)
			op = -1;
		if (mod >= 0 && fw->modules[mod].none)
			mod = -1;
		if (!pk->corr || (op < 0 && mod < 0))
			continue;
		r = &k->r[k->n++];
		r->pid = pk->pid, r->corr = pk->corr, r->op = op, r->mod = mod, r->bwd = fw->k_bwd[i];
	}
	qsort(k->r, (size_t)k->n, sizeof(*k->r), cmp_kref);
	return GD_OK;
}

/* The strings only a profile with a framework view holds (SQL LIKE): gpudiag's module ranges
 * and torch mark, PyTorch's op ranges (gd_fw_parse_op: ", seq = " or ", op_id = "), JAX's HLO
 * ops and executables (xla_value). */
static const char *const FW_STRINGS_LIKE[] = {MODULE_PREFIX_S "%", MARK_PREFIX_S "%", "%, seq = %",
					      "%, op_id = %", "Thunk:#hlo_op=%", "XlaModule:#hlo_module=%", NULL};

int gd_fw_krefs_load(const char *path, struct gd_trace *t, struct gd_fw_krefs *k, char *why, size_t n)
{
	struct gd_profile p;
	struct gd_framework fw;
	int rc;
	memset(k, 0, sizeof(*k));
	if (!gd_trace_has_string_like(t, FW_STRINGS_LIKE))
		return GD_OK; /* no framework view: the profile is never loaded */
	if ((rc = gd_profile_load(path, &p, why, n)) != GD_OK)
		return rc;
	if ((rc = gd_framework_compute(&p, &fw)) == GD_OK) { /* on failure fw is freed already */
		if (fw.present && fw.k_op && (rc = krefs_fill(&p, &fw, k)) != GD_OK)
			gd_fw_krefs_free(k);
		gd_framework_free(&fw);
	}
	if (rc != GD_OK)
		snprintf(why, n, "out of memory for the framework view of '%s'", path);
	gd_profile_free(&p);
	return rc;
}

const struct gd_fw_kref *gd_fw_krefs_find(const struct gd_fw_krefs *k, long long pid, long long corr)
{
	long lo = 0, hi = k->n;
	while (lo < hi) {
		long mid = lo + (hi - lo) / 2;
		const struct gd_fw_kref *r = &k->r[mid];
		if (r->pid < pid || (r->pid == pid && (long long)r->corr < corr))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n && k->r[lo].pid == pid && (long long)k->r[lo].corr == corr ? &k->r[lo] : NULL;
}
