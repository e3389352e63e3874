/* Kernel-name parsing and classification; see names.h. */
#include "analysis/names.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *kind_names[GD_KIND_COUNT] = {"GEMM",    "attention",     "convolution",
						"elementwise", "reduction", "normalisation",
						"softmax", "copy",          "NCCL collective", "other"};
static const char *lib_names[GD_LIB_COUNT] = {"cuBLAS/cuBLASLt", "cuDNN", "PyTorch ATen", "Triton",
					      "FlashAttention",  "NCCL",  "user"};

const char *gd_kind_name(int k) { return k >= 0 && k < GD_KIND_COUNT ? kind_names[k] : "other"; }
const char *gd_lib_name(int l) { return l >= 0 && l < GD_LIB_COUNT ? lib_names[l] : "user"; }

/* ---- Itanium demangling, lite ------------------------------------------------------------
 * Kernels are free functions or function templates, so only <nested-name> and
 * <unscoped-name> matter: "_Z" [N [r|V|K]* (<source-name> | S_ | St | <template-args>)* E]
 * <source-name>. Template arguments are skipped by balancing I/E (with literals L...E and
 * nested names N...E counted as openers); the parameter list after the name is dropped. */
struct dm {
	const char *s;
	char *out;
	size_t n, len;
};

static void put(struct dm *d, const char *s, size_t len)
{
	for (size_t i = 0; i < len && d->len + 1 < d->n; i++)
		d->out[d->len++] = s[i];
	d->out[d->len] = 0;
}

static int source_name(struct dm *d, int emit)
{
	size_t len = 0;
	if (!isdigit((unsigned char)*d->s))
		return -1;
	while (isdigit((unsigned char)*d->s))
		len = len * 10 + (size_t)(*d->s++ - '0');
	if (len == 0 || strlen(d->s) < len)
		return -1;
	if (emit) {
		if (d->len)
			put(d, "::", 2);
		put(d, d->s, len);
	}
	d->s += len;
	return 0;
}

/* Skips <template-args> starting at 'I'. */
static int skip_template(struct dm *d)
{
	int depth = 0;
	do {
		char ch = *d->s;
		if (!ch)
			return -1;
		if (isdigit((unsigned char)ch)) {
			if (source_name(d, 0))
				return -1;
			continue;
		}
		if (ch == 'L') {
			/* literal: L <type> <value> E, or L _Z <encoding> E; values may hold digits */
			d->s++;
			if (*d->s == '_' && d->s[1] == 'Z') {
				depth++;
				d->s += 2;
				continue;
			}
			while (*d->s && *d->s != 'E')
				d->s++;
			if (!*d->s)
				return -1;
			d->s++;
			continue;
		}
		if (ch == 'S' || ch == 'T') {
			/* substitution / template parameter: S_, S0_, T_, T1_, St, Sa... */
			d->s++;
			if (ch == 'S' && islower((unsigned char)*d->s)) {
				d->s++;
				continue;
			}
			while (*d->s && *d->s != '_')
				d->s++;
			if (*d->s)
				d->s++;
			continue;
		}
		if (ch == 'I' || ch == 'N' || ch == 'X' || ch == 'J')
			depth++;
		else if (ch == 'E')
			depth--;
		d->s++;
	} while (depth > 0);
	return 0;
}

static int demangle(const char *m, char *buf, size_t n)
{
	struct dm d = {m + 2, buf, n, 0};
	buf[0] = 0;
	if (*d.s == 'N') {
		d.s++;
		while (*d.s == 'r' || *d.s == 'V' || *d.s == 'K')
			d.s++;
		while (*d.s && *d.s != 'E') {
			if (*d.s == 'I') {
				if (skip_template(&d))
					return -1;
			} else if (*d.s == 'S') {
				d.s++;
				if (*d.s == 't') {
					put(&d, "std", 3);
					d.s++;
				} else {
					/* a substitution names an earlier prefix: shown as "…" is noise,
					 * the later components carry the meaning */
					while (*d.s && *d.s != '_')
						d.s++;
					if (*d.s)
						d.s++;
				}
			} else if (*d.s == 'L') {
				d.s++; /* internal linkage marker before a source name */
			} else if (source_name(&d, 1)) {
				return -1;
			}
		}
		return *d.s == 'E' && d.len ? 0 : -1;
	}
	if (*d.s == 'L')
		d.s++;
	if (*d.s == 'S' && d.s[1] == 't') {
		put(&d, "std", 3);
		d.s += 2;
	}
	return source_name(&d, 1) || !d.len ? -1 : 0;
}

/* A demangled "void ns::f<...>(args)" or a plain C name: drop the return type, template
 * arguments and parameters. */
static void strip_demangled(const char *s, char *buf, size_t n)
{
	size_t len = 0;
	int depth = 0;
	const char *start = s, *p;
	/* the return type ends at the last space outside <> and () before the first '(' */
	for (p = s; *p && !(*p == '(' && depth == 0); p++) {
		if (*p == '<')
			depth++;
		else if (*p == '>' && depth > 0)
			depth--;
		else if (*p == ' ' && depth == 0)
			start = p + 1;
	}
	depth = 0;
	for (p = start; *p; p++) {
		if (*p == '<') {
			depth++;
			continue;
		}
		if (*p == '>') {
			if (depth > 0)
				depth--;
			continue;
		}
		if (depth)
			continue;
		if (*p == '(' && p != start)
			break;
		if (len + 1 < n)
			buf[len++] = *p;
	}
	buf[len] = 0;
	if (!len)
		snprintf(buf, n, "%s", s);
}

static char *printable(char *buf)
{
	/* a name is data: no terminal escape sequence or control character gets through */
	for (unsigned char *p = (unsigned char *)buf; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			*p = '?';
	return buf;
}

static char *short_name(const char *name, char *buf, size_t n);

char *gd_kernel_short_name(const char *name, char *buf, size_t n)
{
	if (!n)
		return buf;
	return printable(short_name(name, buf, n));
}

/* libstdc++'s demangler (abi::__cxa_demangle): present because every gpudiag binary is linked
 * by nvcc, which links the C++ runtime (src/profile/writer.c uses it too). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

/* ---- short names from demangled text -----------------------------------------------------
 * The rule (docs/verdicts.md, "Kernel names"): the function's own name, without namespaces,
 * return type and parameters, followed by the own short name of its first template argument
 * that is not a number — what tells instances of one template apart: cuBLAS's
 * cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8> →
 * "Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>", ATen's
 * vectorized_elementwise_kernel<4, FillFunctor<float>, ...> →
 * "vectorized_elementwise_kernel<FillFunctor>", and a lambda argument
 * direct_copy_kernel_cuda(...)::{lambda()#3}::...::{lambda(c10::BFloat16)#1} → the function
 * that defines it and the lambda's parameter types, "direct_copy_kernel_cuda::lambda(BFloat16)". */

/* Index of the first c in s[from, to) at nesting depth 0 of <>, () and {}; -1 if none. */
static long top_level(const char *s, long from, long to, char c)
{
	int d = 0;
	for (long i = from; i < to; i++) {
		char ch = s[i];
		if (d == 0 && ch == c)
			return i;
		if (ch == '<' || ch == '(' || ch == '{' || ch == '[')
			d++;
		else if ((ch == '>' || ch == ')' || ch == '}' || ch == ']') && d > 0)
			d--;
	}
	return -1;
}

/* The last "::"-separated component of s[from, to) at depth 0. */
static long last_component(const char *s, long from, long to)
{
	long start = from, i = from;
	while (i < to) {
		long c = top_level(s, i, to, ':');
		if (c < 0 || c + 1 >= to)
			break;
		if (s[c + 1] == ':') {
			start = c + 2;
			i = c + 2;
		} else {
			i = c + 1;
		}
	}
	return start;
}

static void app(char *buf, size_t n, size_t *len, const char *s, long k)
{
	for (long i = 0; i < k && *len + 1 < n; i++)
		buf[(*len)++] = s[i];
	buf[*len] = 0;
}

/* Copies s[from, to) without namespace qualifiers ("c10::BFloat16" → "BFloat16"). */
static void app_unqualified(char *buf, size_t n, size_t *len, const char *s, long from, long to)
{
	long w = from;
	for (long i = from; i < to; i++) {
		if (s[i] == ':' && i + 1 < to && s[i + 1] == ':') {
			w = i + 2;
			i++;
			continue;
		}
		if (!(isalnum((unsigned char)s[i]) || s[i] == '_')) {
			app(buf, n, len, s + w, i - w + 1);
			w = i + 1;
		}
	}
	app(buf, n, len, s + w, to - w);
}

static int is_literal(const char *s, long from, long to)
{
	while (from < to && s[from] == ' ')
		from++;
	if (from >= to)
		return 1;
	if (isdigit((unsigned char)s[from]) || s[from] == '-' || s[from] == '(')
		return 1; /* 4, -1, (cutlass::arch::Foo)0 */
	return (to - from == 4 && !strncmp(s + from, "true", 4)) || (to - from == 5 && !strncmp(s + from, "false", 5));
}

/* The own short name of a template argument s[from, to). */
static void arg_short(const char *s, long from, long to, char *buf, size_t n, size_t *len)
{
	while (from < to && s[from] == ' ')
		from++;
	if (to - from > 6 && !strncmp(s + from, "const ", 6))
		from += 6;
	while (to > from && (s[to - 1] == ' ' || s[to - 1] == '*' || s[to - 1] == '&'))
		to--;
	const char *lam = NULL;
	for (const char *q = s + from; q && q < s + to; q = strstr(q + 1, "{lambda("))
		if (q >= s + from && !strncmp(q, "{lambda(", 8) && q < s + to)
			lam = q;
	/* a lambda only when the argument is the lambda itself, not a template holding one */
	if (lam) {
		long lt0 = top_level(s, from, to, '<');
		if (lt0 >= 0 && s + lt0 < lam)
			lam = NULL;
	}
	if (lam) {
		long p0 = top_level(s, from, to, '(');
		long fn_end = p0 >= 0 ? p0 : from;
		long fn = last_component(s, from, fn_end);
		long lp = (long)(lam - s) + 7, rp = lp;
		int d = 0;
		for (; rp < to; rp++) {
			if (s[rp] == '(')
				d++;
			else if (s[rp] == ')' && --d == 0)
				break;
		}
		if (fn_end > fn) {
			app(buf, n, len, s + fn, fn_end - fn);
			app(buf, n, len, "::", 2);
		}
		app(buf, n, len, "lambda", 6);
		if (rp < to)
			app_unqualified(buf, n, len, s, lp, rp + 1);
		return;
	}
	long lt = top_level(s, from, to, '<');
	long end = lt >= 0 ? lt : to;
	long st = last_component(s, from, end);
	app(buf, n, len, s + st, end - st);
}

/* Short name from demangled text; 0 when nothing usable was found. */
static int short_from_text(const char *text, char *buf, size_t n)
{
	char *s = malloc(strlen(text) + 1);
	size_t len = 0;
	long L, paren, start, lt, nend, fn;
	const char *a;
	if (!s)
		return 0;
	/* "(anonymous namespace)" is a name, not a parameter list */
	{
		size_t w = 0;
		for (const char *r = text; *r;) {
			if (!strncmp(r, "(anonymous namespace)", 21)) {
				memcpy(s + w, "{anon}", 6);
				w += 6;
				r += 21;
			} else {
				s[w++] = *r++;
			}
		}
		s[w] = 0;
		L = (long)w;
	}
	paren = top_level(s, 0, L, '(');
	if (paren < 0)
		paren = L;
	/* the return type ends at the last space at depth 0 before the parameters */
	start = 0;
	for (long i = 0; i < paren;) {
		long sp = top_level(s, i, paren, ' ');
		if (sp < 0)
			break;
		start = sp + 1;
		i = sp + 1;
	}
	lt = top_level(s, start, paren, '<');
	nend = lt >= 0 ? lt : paren;
	fn = last_component(s, start, nend);
	buf[0] = 0;
	if (nend <= fn) {
		free(s);
		return 0;
	}
	app(buf, n, &len, s + fn, nend - fn);
	if (lt >= 0) {
		long close = lt + 1, d = 1;
		for (; close < paren && d; close++)
			d += s[close] == '<' ? 1 : s[close] == '>' ? -1 : 0;
		/* template arguments in (lt, close - 1) */
		long i = lt + 1, e = close - 1;
		while (i < e) {
			long comma = top_level(s, i, e, ',');
			long to = comma >= 0 ? comma : e;
			if (!is_literal(s, i, to)) {
				size_t mark = len;
				app(buf, n, &len, "<", 1);
				arg_short(s, i, to, buf, n, &len);
				if (len == mark + 1)
					len = mark, buf[len] = 0;
				else
					app(buf, n, &len, ">", 1);
				break;
			}
			i = to + 1;
		}
	}
	a = strstr(buf, "{anon}");
	free(s);
	return len > 0 && !a;
}

static char *short_name(const char *name, char *buf, size_t n)
{
	if (!name || !*name) {
		snprintf(buf, n, "(unnamed)");
		return buf;
	}
	if (!strncmp(name, "_Z", 2)) {
		int status = -1;
		char *dem = __cxa_demangle(name, NULL, NULL, &status);
		int ok = dem && !status && short_from_text(dem, buf, n);
		free(dem);
		if (ok)
			return buf;
		if (demangle(name, buf, n) == 0)
			return buf;
		snprintf(buf, n, "%s", name);
		return buf;
	}
	if (short_from_text(name, buf, n))
		return buf;
	strip_demangled(name, buf, n);
	return buf;
}

/* ---- classification ------------------------------------------------------------------- */
static int has(const char *lower, const char *w) { return strstr(lower, w) != NULL; }

static void lower(const char *s, char *buf, size_t n)
{
	size_t i = 0;
	for (; s && s[i] && i + 1 < n; i++)
		buf[i] = (char)tolower((unsigned char)s[i]);
	buf[i] = 0;
}

int gd_kernel_kind(const char *name)
{
	char l[1024];
	lower(name, l, sizeof(l));
	if (has(l, "nccl"))
		return GD_KIND_NCCL;
	if (has(l, "flash") || has(l, "fmha") || has(l, "attention") || has(l, "attn") || has(l, "sdpa"))
		return GD_KIND_ATTENTION;
	if (has(l, "softmax"))
		return GD_KIND_SOFTMAX;
	if (has(l, "conv") || has(l, "fprop") || has(l, "dgrad") || has(l, "wgrad") || has(l, "winograd"))
		return GD_KIND_CONV;
	if (has(l, "gemm") || has(l, "gemv") || has(l, "matmul") || has(l, "nvjet") || has(l, "xmma") ||
	    has(l, "cutlass") || has(l, "triton_tem") || has(l, "_mm_") || has(l, "wgmma"))
		return GD_KIND_GEMM;
	if (has(l, "layer_norm") || has(l, "layernorm") || has(l, "batch_norm") || has(l, "batchnorm") ||
	    has(l, "rms_norm") || has(l, "rmsnorm") || has(l, "group_norm") || has(l, "groupnorm") ||
	    has(l, "bn_fw") || has(l, "bn_bw") || has(l, "welford"))
		return GD_KIND_NORM;
	if (has(l, "reduce") || has(l, "reduction") || has(l, "triton_red") || has(l, "triton_per") ||
	    has(l, "argmax") || has(l, "argmin") || has(l, "scan") || has(l, "cross_entropy") || has(l, "nll_loss"))
		return GD_KIND_REDUCTION;
	if (has(l, "memcpy") || has(l, "copy") || has(l, "transpose") || has(l, "cat_") || has(l, "catarray") ||
	    has(l, "gather") || has(l, "scatter") || has(l, "index"))
		return GD_KIND_COPY;
	if (has(l, "elementwise") || has(l, "triton_poi") || has(l, "vectorized") || has(l, "fill") ||
	    has(l, "saxpy") || has(l, "axpy") || has(l, "add") || has(l, "mul") || has(l, "relu") ||
	    has(l, "gelu") || has(l, "silu") || has(l, "sigmoid") || has(l, "tanh") || has(l, "dropout") ||
	    has(l, "scale") || has(l, "adam") || has(l, "sgd") || has(l, "foreach") || has(l, "pointwise"))
		return GD_KIND_ELEMENTWISE;
	return GD_KIND_OTHER;
}

int gd_kernel_lib(const char *name)
{
	char l[1024];
	lower(name, l, sizeof(l));
	if (has(l, "nccl"))
		return GD_LIB_NCCL;
	if (has(l, "flash_fwd") || has(l, "flash_bwd") || has(l, "flash::") || has(l, "flash_attn") ||
	    has(l, "5flash") || has(l, "fmha"))
		return GD_LIB_FLASH;
	if (!strncmp(l, "triton", 6))
		return GD_LIB_TRITON;
	if (has(l, "cudnn") || has(l, "fprop") || has(l, "dgrad") || has(l, "wgrad") || has(l, "implicit_convolve"))
		return GD_LIB_CUDNN;
	if (has(l, "cublas") || has(l, "nvjet") || has(l, "xmma_gemm") || has(l, "cutlass") ||
	    ((has(l, "gemm") || has(l, "gemv")) &&
	     (!strncmp(l, "ampere_", 7) || !strncmp(l, "volta_", 6) || !strncmp(l, "turing_", 7) ||
	      !strncmp(l, "maxwell_", 8) || !strncmp(l, "sm80_", 5) || !strncmp(l, "sm90_", 5) ||
	      !strncmp(l, "sm100_", 6) || has(l, "gemmk1") || has(l, "gemv2") || has(l, "splitkreduce"))))
		return GD_LIB_CUBLAS;
	if (has(l, "at::") || has(l, "2at6native") || has(l, "c10::") || has(l, "at_cuda_detail") ||
	    has(l, "3c10"))
		return GD_LIB_ATEN;
	return GD_LIB_USER;
}

int gd_kernel_tensor_cores(const char *name)
{
	char l[1024];
	lower(name, l, sizeof(l));
	/* cuBLAS's FP32 kernels on Hopper are named xmma too: f32 in and out without tf32 is
	 * CUDA-core math */
	if ((has(l, "f32f32_f32f32") || has(l, "sgemm")) && !has(l, "tf32") && !has(l, "tensorop") &&
	    !has(l, "1688") && !has(l, "16816"))
		return 0;
	if (has(l, "tensorop") || has(l, "hmma") || has(l, "gmma") || has(l, "wmma") || has(l, "mma_") ||
	    has(l, "1688") || has(l, "16816") || has(l, "tf32") || has(l, "bf16") || has(l, "f16") ||
	    has(l, "h884") || has(l, "i8816") || has(l, "nvjet") || has(l, "xmma") || has(l, "flash") ||
	    has(l, "fp8") || has(l, "e4m3"))
		return 1;
	if (has(l, "sgemm") || has(l, "simt"))
		return 0;
	return -1;
}

int gd_kind_memory_bound(int k)
{
	return k == GD_KIND_ELEMENTWISE || k == GD_KIND_REDUCTION || k == GD_KIND_NORM ||
	       k == GD_KIND_SOFTMAX || k == GD_KIND_COPY;
}

char *gd_api_display_name(const char *name, char *buf, size_t n)
{
	size_t len;
	if (!n)
		return buf;
	snprintf(buf, n, "%s", name ? name : "");
	len = strlen(buf);
	/* "_v" followed by digits only, at the very end: CUPTI's callback-id version */
	for (size_t i = len; i >= 3; i--) {
		if (isdigit((unsigned char)buf[i - 1]))
			continue;
		if (i < len && buf[i - 1] == 'v' && buf[i - 2] == '_' && i - 2 > 0)
			buf[i - 2] = 0;
		break;
	}
	return printable(buf);
}
