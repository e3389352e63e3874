/* Kernel-name parsing and classification; see names.h. */
#include "analysis/names.h"

#include <ctype.h>
#include <stdio.h>
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

static char *short_name(const char *name, char *buf, size_t n)
{
	if (!name || !*name) {
		snprintf(buf, n, "(unnamed)");
		return buf;
	}
	if (!strncmp(name, "_Z", 2)) {
		if (demangle(name, buf, n) == 0)
			return buf;
		snprintf(buf, n, "%s", name);
		return buf;
	}
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
