/* gpudiag run -- CMD: profile any program into one SQLite file (guide §14, §16).
 *
 * The parent creates a private directory, starts CMD with CUDA_INJECTION64_PATH and
 * NVTX_INJECTION64_PATH naming libgpudiag_inject.so (src/capture/) and GPUDIAG_RAW_DIR naming
 * the directory, samples NVML in a thread while it runs, reaps it, merges every raw.<pid>
 * file into the profile (src/profile/writer.c, written to a temporary name and renamed), and
 * exits with the program's own exit code (128+N when it died of signal N).
 *
 * The program stays in gpudiag's process group, so a terminal's Ctrl-C reaches it directly;
 * gpudiag itself only notes the interrupt (and forwards signals sent to gpudiag alone by
 * another process), waits for the program, and still writes the profile. */
#include "commands.h"
#include "core/cli.h"
#include "core/json.h"
#include "core/out.h"
#include "core/status.h"
#include "gpu/cudrv.h"
#include "gpu/nvml.h"
#include "profile/profile.h"
#include "profile/writer.h"
#include "render/report.h"

#include <cupti_version.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The report module (verdicts branch) provides gd_report_print; until it is linked in, a
 * minimal summary is printed here instead. */
#pragma weak gd_report_print

extern char **environ;

const char cmd_run_usage[] =
	"usage: gpudiag run [options] [--] CMD [ARGS...]\n"
	"\n"
	"Runs CMD (any program: python, a CUDA binary, torchrun, mpirun...) and records what the GPU\n"
	"did into one SQLite profile: kernels, copies, memsets, synchronisation, launch and copy API\n"
	"calls, NVTX ranges, allocations, CUPTI overhead, plus NVML samples taken beside the run.\n"
	"Every process CMD starts is recorded too. Then prints a summary (gpudiag report FILE\n"
	"re-prints it; gpudiag export FILE --perfetto OUT.json makes a trace for ui.perfetto.dev).\n"
	"\n"
	"options:\n"
	"  -o, --output FILE        the profile (default: <prog>-<YYYYmmdd-HHMMSS>.gpudiag.sqlite)\n"
	"  --nvml-hz N              NVML samples per second per GPU (default 20; 0 = none)\n"
	"  --delay S                keep only records from S seconds after the start\n"
	"  --duration S             ... and for S seconds\n"
	"  --capture-range R        cudaProfilerApi: between cudaProfilerStart and Stop;\n"
	"                           nvtx:NAME: inside NVTX ranges named NAME\n"
	"  --api MODE               API calls traced: subset (launches, copies, syncs, allocations;\n"
	"                           default), all, none\n"
	"  --no-nvtx                do not inject into NVTX\n"
	"  --latency                record kernels' queued/submitted times (costs time per launch)\n"
	"  --keep-raw               keep the raw per-process files (their directory is printed)\n"
	"  --json                   the summary as JSON on stdout\n"
	"\n"
	"With no CMD: profiles gpudiag's built-in demo workload (without a GPU: shows a sample).\n"
	"--delay/--duration switch tracing on and off; --capture-range filters what is kept.\n"
	"The report goes to stderr (stdout stays the program's); with --json it is on stdout.\n"
	"Exit code: CMD's own (128+N if it died of signal N; 127 if it could not be started).\n"
	"Schema of the profile: docs/profile-schema.md.\n";

/* ---- signals */

static volatile sig_atomic_t g_child = 0, g_interrupts = 0;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (sig == SIGINT)
		g_interrupts++;
	/* A terminal's signal reached the whole process group, CMD included; a signal sent to
	 * gpudiag alone (kill PID, a batch system) is passed on. */
	if (g_child > 0 && si && si->si_code == SI_USER && si->si_pid != getpid())
		kill(g_child, sig);
	if (g_child > 0 && g_interrupts >= 3)
		kill(g_child, SIGKILL); /* the third Ctrl-C: stop for good, still save the profile */
}

/* ---- NVML sampling thread; also asks the driver for device facts off the critical path */

struct sampler {
	pthread_t th;
	int started;
	atomic_int stop;
	double hz;
	struct gd_nvml_sample *s;
	int *dev;
	size_t n, cap;
	char nvml_why[256], cu_why[256];
	int nvml_ok, cu_ok;
	int ndev, nvml_idx[64];
};

static void add_sample(struct sampler *sp, int dev, const struct gd_nvml_sample *s)
{
	if (sp->n == sp->cap) {
		size_t cap = sp->cap ? sp->cap * 2 : 1024;
		struct gd_nvml_sample *ns = realloc(sp->s, cap * sizeof(*ns));
		int *nd;
		if (!ns)
			return;
		sp->s = ns;
		nd = realloc(sp->dev, cap * sizeof(*nd));
		if (!nd)
			return;
		sp->dev = nd;
		sp->cap = cap;
	}
	sp->s[sp->n] = *s;
	sp->dev[sp->n++] = dev;
}

static void *sampler_main(void *arg)
{
	struct sampler *sp = arg;
	struct timespec next;
	long period_ns;
	sp->cu_ok = gd_cu_open(sp->cu_why, sizeof(sp->cu_why)) == GD_OK;
	sp->nvml_ok = gd_nvml_open(sp->nvml_why, sizeof(sp->nvml_why)) == GD_OK;
	sp->ndev = 0;
	if (sp->cu_ok) {
		/* Sample the GPUs the program can see (CUDA_VISIBLE_DEVICES applies to us too). */
		for (int d = 0; d < gd_cu_count() && d < 64; d++) {
			char uuid[96];
			sp->nvml_idx[d] = -1;
			if (sp->nvml_ok && gd_cu_uuid(d, uuid, sizeof(uuid)) == 0)
				sp->nvml_idx[d] = gd_nvml_index_by_uuid(uuid);
			sp->ndev = d + 1;
		}
	} else if (sp->nvml_ok) {
		for (int d = 0; d < gd_nvml_count() && d < 64; d++)
			sp->nvml_idx[d] = d;
		sp->ndev = gd_nvml_count() < 64 ? gd_nvml_count() : 64;
	}
	if (!sp->nvml_ok || sp->hz <= 0)
		return NULL;
	period_ns = (long)(1e9 / sp->hz);
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&sp->stop)) {
		for (int d = 0; d < sp->ndev; d++) {
			struct gd_nvml_sample s;
			if (sp->nvml_idx[d] >= 0 && gd_nvml_sample(sp->nvml_idx[d], &s) == GD_OK)
				add_sample(sp, d, &s);
		}
		next.tv_nsec += period_ns;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		/* A sweep slower than the period (PCIe counters block ~20 ms) just runs late; the
		 * achieved rate is recorded in meta.nvml_hz_achieved. */
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			if (atomic_load(&sp->stop))
				break;
	}
	return NULL;
}

/* ---- helpers */

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The injection library: $GPUDIAG_INJECT, beside the executable, or the build path. */
static int find_inject(char *out, size_t n)
{
	char exe[PATH_MAX];
	const char *env = getenv("GPUDIAG_INJECT");
	ssize_t len;
	if (env && *env) {
		snprintf(out, n, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (len > 0) {
		char *slash;
		exe[len] = 0;
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
			if (snprintf(out, n, "%.*s/libgpudiag_inject.so", (int)(n > 64 ? n - 64 : 1), exe) < (int)n &&
			    access(out, R_OK) == 0)
				return 0;
		}
	}
#ifdef GPUDIAG_INJECT_BUILD_PATH
	snprintf(out, n, "%s", GPUDIAG_INJECT_BUILD_PATH);
	if (access(out, R_OK) == 0)
		return 0;
#endif
	return -1;
}

/* Shell-quotes argv into one line for meta.command_line. */
static void join_args(char *out, size_t n, char **argv)
{
	size_t o = 0;
	out[0] = 0;
	for (int i = 0; argv[i] && o + 4 < n; i++) {
		const char *a = argv[i];
		int plain = *a != 0;
		for (const char *p = a; *p; p++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%", *p))
				plain = 0;
		if (i && o + 1 < n)
			out[o++] = ' ';
		if (plain) {
			o += (size_t)snprintf(out + o, n - o, "%s", a);
		} else {
			out[o++] = '\'';
			for (const char *p = a; *p && o + 6 < n; p++) {
				if (*p == '\'') {
					memcpy(out + o, "'\\''", 4);
					o += 4;
				} else {
					out[o++] = *p;
				}
			}
			if (o + 1 < n)
				out[o++] = '\'';
		}
		if (o >= n)
			o = n - 1;
		out[o] = 0;
	}
}

static int env_kept(const char *name)
{
	static const char *const exact[] = {"CUDA_VISIBLE_DEVICES", "CUDA_LAUNCH_BLOCKING",
					    "CUDA_DEVICE_MAX_CONNECTIONS", "CUDA_MODULE_LOADING",
					    "CUDA_DEVICE_ORDER", "OMP_NUM_THREADS", "PYTORCH_CUDA_ALLOC_CONF",
					    "WORLD_SIZE", "RANK", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
					    "SLURM_JOB_ID", "SLURM_PROCID", "XLA_PYTHON_CLIENT_PREALLOCATE",
					    "CUBLAS_WORKSPACE_CONFIG", "LD_PRELOAD", NULL};
	static const char *const prefix[] = {"NCCL_", "TORCH_", "TORCHINDUCTOR_", "TRITON_", NULL};
	size_t len = strcspn(name, "=");
	if (strstr(name, "TOKEN") || strstr(name, "KEY") || strstr(name, "SECRET") || strstr(name, "PASS"))
		return 0;
	for (int i = 0; exact[i]; i++)
		if (strlen(exact[i]) == len && !strncmp(name, exact[i], len))
			return 1;
	for (int i = 0; prefix[i]; i++)
		if (!strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

/* The child's environment: ours plus the injection variables (replacing any set before). */
static char **child_env(const char *inject, const char *dir, const char *api, int nvtx, int latency,
			long long cap_start, long long cap_end)
{
	size_t n = 0, o = 0;
	char **env;
	static const char *const ours[] = {"CUDA_INJECTION64_PATH=", "NVTX_INJECTION64_PATH=", "GPUDIAG_RAW_DIR=",
					   "GPUDIAG_API=", "GPUDIAG_CAPTURE_START_NS=", "GPUDIAG_CAPTURE_END_NS=",
					   "GPUDIAG_LATENCY=", NULL};
	while (environ[n])
		n++;
	env = calloc(n + 8, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		int skip = 0;
		for (int k = 0; ours[k]; k++)
			if (!strncmp(environ[i], ours[k], strlen(ours[k])))
				skip = 1;
		if (!skip)
			env[o++] = environ[i];
	}
	if (inject) {
		size_t l = strlen(inject) + strlen(dir) + strlen(api) + 64;
		char *a = malloc(l), *b = malloc(l), *c = malloc(l), *d = malloc(l);
		if (!a || !b || !c || !d)
			return NULL;
		snprintf(a, l, "CUDA_INJECTION64_PATH=%s", inject);
		snprintf(b, l, "GPUDIAG_RAW_DIR=%s", dir);
		snprintf(c, l, "GPUDIAG_API=%s", api);
		snprintf(d, l, "NVTX_INJECTION64_PATH=%s", inject);
		env[o++] = a;
		env[o++] = b;
		env[o++] = c;
		if (nvtx)
			env[o++] = d;
		if (latency) /* queued/submitted: opt-in, they cost per launch (docs/profiling.md) */
			env[o++] = "GPUDIAG_LATENCY=1";
		if (cap_start > 0) { /* --delay/--duration: the library switches tracing on and off */
			char *e = malloc(64), *f = malloc(64);
			if (!e || !f)
				return NULL;
			snprintf(e, 64, "GPUDIAG_CAPTURE_START_NS=%lld", cap_start);
			env[o++] = e;
			snprintf(f, 64, "GPUDIAG_CAPTURE_END_NS=%lld", cap_end);
			env[o++] = f;
		}
	}
	env[o] = NULL;
	return env;
}

static void fill_devices(struct gd_pw *w, struct sampler *sp)
{
	for (int d = 0; d < gd_cu_count(); d++) {
		struct gd_pw_device x;
		memset(&x, 0, sizeof(x));
		x.id = d;
		gd_cu_uuid(d, x.uuid, sizeof(x.uuid));
		gd_cu_name(d, x.name, sizeof(x.name));
		gd_cu_pci_bus_id(d, x.pci_bus_id, sizeof(x.pci_bus_id));
		x.nvml_index = d < 64 ? sp->nvml_idx[d] : -1;
		/* CUdevice_attribute numbers (cuda.h); -1 = the driver did not answer. */
		x.cc_major = gd_cu_attr(d, 75), x.cc_minor = gd_cu_attr(d, 76);
		x.sm_count = gd_cu_attr(d, 16), x.warp_size = gd_cu_attr(d, 10);
		x.max_threads_per_block = gd_cu_attr(d, 1), x.max_threads_per_sm = gd_cu_attr(d, 39);
		x.max_blocks_per_sm = gd_cu_attr(d, 106), x.regs_per_sm = gd_cu_attr(d, 82);
		x.regs_per_block = gd_cu_attr(d, 12), x.smem_per_sm = gd_cu_attr(d, 81);
		x.smem_per_block = gd_cu_attr(d, 8), x.smem_per_block_optin = gd_cu_attr(d, 97);
		x.reserved_smem_per_block = gd_cu_attr(d, 111), x.l2_bytes = gd_cu_attr(d, 38);
		x.mem_bus_width_bits = gd_cu_attr(d, 37), x.mem_clock_khz = gd_cu_attr(d, 36);
		x.sm_clock_khz = gd_cu_attr(d, 13), x.async_engines = gd_cu_attr(d, 40);
		x.global_mem_bytes = (long long)gd_cu_total_mem(d);
		if (!x.global_mem_bytes)
			x.global_mem_bytes = -1;
		gd_pw_device(w, &x);
	}
}

/* Used until the report module is linked: counts and the file's path. */
static void minimal_summary(const char *path, const struct gd_ctx *ctx, int exit_code, long long wall_ns)
{
	struct gd_profile_facts f;
	long long nk, gpu, nproc, ntraced, ncopy;
	char b1[64], b2[64];
	gd_profile_peek(path, &f); /* counts stay -1 where the profile cannot be read */
	gd_profile_facts_free(&f);
	nk = f.kernels, gpu = f.kernel_ns, ncopy = f.copies, nproc = f.processes, ntraced = f.traced;
	if (ctx->json) {
		struct gd_json j;
		gd_json_init(&j, stdout, 1);
		gd_json_obj(&j, NULL);
		gd_json_str(&j, "profile", path);
		gd_json_int(&j, "exit_code", exit_code);
		gd_json_num(&j, "wall_s", (double)wall_ns / 1e9);
		gd_json_int(&j, "processes", nproc);
		gd_json_int(&j, "processes_traced", ntraced);
		gd_json_int(&j, "kernels", nk);
		if (gpu >= 0)
			gd_json_num(&j, "kernel_time_s", (double)gpu / 1e9);
		else
			gd_json_null(&j, "kernel_time_s");
		gd_json_int(&j, "memcpy", ncopy);
		gd_json_obj_end(&j);
		gd_json_end(&j);
		return;
	}
	fprintf(stderr, "gpudiag: %lld kernels (%s kernel time), %lld copies, %lld of %lld processes traced, wall %s\n",
		nk, gd_fmt_time(b1, sizeof(b1), gpu > 0 ? (double)gpu : 0.0), ncopy, ntraced, nproc,
		gd_fmt_time(b2, sizeof(b2), (double)wall_ns));
	fprintf(stderr, "gpudiag: profile written to %s\n", path);
}

static const char *status_words(const char *st)
{
	if (!strcmp(st, "cupti_busy"))
		return "CUPTI is already in use in that process (Nsight Systems/Compute, cuda-gdb, or the "
		       "program's own profiler such as torch.profiler); it ran unprofiled";
	if (!strcmp(st, "cupti_version"))
		return "the process had already loaded a different libcupti (e.g. one shipped in a Python "
		       "wheel) than the one gpudiag was built with; it ran unprofiled";
	if (!strcmp(st, "cupti_error"))
		return "CUPTI refused to start tracing (run with GPUDIAG_INJECT_DEBUG=1 for the error)";
	return st;
}

/* Warns about what was not traced, from the written profile. */
static void explain(const char *path, const char *cu_why, int had_inject)
{
	struct gd_profile_facts f;
	if (gd_profile_peek(path, &f) != GD_OK)
		return;
	for (long i = 0; i < f.nuntraced; i++) {
		const char *st = f.untraced[i].status;
		int pid = f.untraced[i].pid;
		if (!strcmp(st, "no_cuda")) {
			if (!cu_why[0])
				gd_warn("run: process %d never initialised CUDA (it made no CUDA call): nothing "
					"to trace there", pid);
		} else {
			gd_warn("run: process %d: %s", pid, status_words(st));
		}
	}
	if (f.traced <= 0) {
		if (cu_why[0])
			gd_warn("run: nothing was traced: %s", cu_why);
		else if (!had_inject)
			gd_warn("run: nothing was traced: the injection library is missing");
	}
	if (f.dropped > 0)
		gd_warn("run: %lld activity records were dropped (see the 'dropped' table); totals are lower bounds",
			f.dropped);
	gd_profile_facts_free(&f);
}

int cmd_run(struct gd_ctx *ctx, int argc, char **argv)
{
	const char *output = NULL, *capture = NULL, *api = "subset";
	double nvml_hz = 20, delay = 0, duration = 0;
	int no_nvtx = 0, keep_raw = 0, latency = 0, json_late = 0, npos = 0, rc, status = 0, exit_code, exit_signal = 0;
	char **cmd, **args, inject[PATH_MAX], dir[PATH_MAX], outpath[PATH_MAX], why[512] = "", line[16384];
	char **env;
	int have_inject, pipefd[2], exec_failed = 0;
	long long t0, t1;
	pid_t pid;
	struct sampler sp;
	struct sigaction sa, old_int, old_term, old_hup, old_quit;
	const struct gd_opt opts[] = {
		{"output", GD_OPT_STR, &output, "FILE", "the profile"},
		{"nvml-hz", GD_OPT_DOUBLE, &nvml_hz, "N", "NVML samples per second"},
		{"delay", GD_OPT_DOUBLE, &delay, "S", "keep records from S seconds after the start"},
		{"duration", GD_OPT_DOUBLE, &duration, "S", "keep records for S seconds"},
		{"capture-range", GD_OPT_STR, &capture, "R", "cudaProfilerApi or nvtx:NAME"},
		{"api", GD_OPT_STR, &api, "MODE", "subset, all or none"},
		{"no-nvtx", GD_OPT_FLAG, &no_nvtx, NULL, "do not inject into NVTX"},
		{"latency", GD_OPT_FLAG, &latency, NULL, "record kernels' queued/submitted times"},
		{"keep-raw", GD_OPT_FLAG, &keep_raw, NULL, "keep the raw files"},
		{"json", GD_OPT_FLAG, &json_late, NULL, "summary as JSON"},
		{NULL, 0, NULL, NULL, NULL},
	};

	/* "-o FILE" → "--output FILE" (gd_parse_opts knows long options only), among gpudiag's
	 * own options only: the scan stops at "--" or at the command. */
	args = calloc((size_t)argc + 1, sizeof(*args));
	cmd = calloc((size_t)argc + 1, sizeof(*cmd));
	if (!args || !cmd)
		return gd_error(GD_EFAIL, "out of memory");
	{
		int scanning = 1;
		for (int i = 0; i < argc; i++) {
			const char *a = argv[i];
			args[i] = argv[i];
			if (!scanning)
				continue;
			if (!strcmp(a, "--") || a[0] != '-') {
				scanning = 0;
			} else if (!strcmp(a, "-o")) {
				args[i] = "--output";
				if (i + 1 < argc) {
					args[i + 1] = argv[i + 1];
					i++;
				}
			} else if (!strncmp(a, "--", 2) && !strchr(a, '=')) {
				static const char *const valued[] = {"--output", "--nvml-hz", "--delay", "--duration",
								     "--capture-range", "--api", NULL};
				for (int k = 0; valued[k]; k++)
					if (!strcmp(a, valued[k]) && i + 1 < argc) {
						args[i + 1] = argv[i + 1];
						i++;
						break;
					}
			}
		}
	}
	rc = gd_parse_opts("run", argc, args, opts, cmd, argc, &npos, 1);
	if (rc)
		return rc;
	if (npos == 0) {
		/* No command: profile the embedded demo workload (`gpudiag __demo`, src/cmd_demo.c);
		 * with no GPU, show the sample profile shipped with gpudiag instead. */
		static char self[PATH_MAX];
		char **c2;
		ssize_t sn = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (gd_cu_open(why, sizeof(why)) != GD_OK || gd_cu_count() < 1 || sn <= 0) {
			free(cmd);
			free(args);
			if (json_late)
				ctx->json = 1;
			return gd_demo_sample(ctx, ctx->argv0, stdout);
		}
		self[sn] = 0;
		why[0] = 0;
		c2 = realloc(cmd, 3 * sizeof(*cmd));
		if (!c2)
			return gd_error(GD_EFAIL, "run: out of memory");
		cmd = c2;
		cmd[0] = self;
		cmd[1] = "__demo";
		npos = 2;
	}
	cmd[npos] = NULL;
	if (json_late)
		ctx->json = 1;
	if (nvml_hz < 0 || nvml_hz > 1000)
		return gd_error(GD_EUSAGE, "run: --nvml-hz must be between 0 and 1000, not %g", nvml_hz);
	if (delay < 0 || duration < 0)
		return gd_error(GD_EUSAGE, "run: --delay and --duration must not be negative");
	if (strcmp(api, "subset") && strcmp(api, "all") && strcmp(api, "none"))
		return gd_error(GD_EUSAGE, "run: --api must be subset, all or none, not '%s'", api);
	if (capture && strcmp(capture, "cudaProfilerApi") && (strncmp(capture, "nvtx:", 5) || !capture[5]))
		return gd_error(GD_EUSAGE, "run: --capture-range must be cudaProfilerApi or nvtx:NAME, not '%s'", capture);
	if (capture && (delay > 0 || duration > 0))
		return gd_error(GD_EUSAGE, "run: use either --capture-range or --delay/--duration");
	if (output) {
		snprintf(outpath, sizeof(outpath), "%s", output);
	} else {
		char stamp[32];
		const char *base = strrchr(cmd[0], '/');
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
		snprintf(outpath, sizeof(outpath), "%s-%s.gpudiag.sqlite", base ? base + 1 : cmd[0], stamp);
	}

	/* Fail before running the program, not after, when the profile cannot be written. */
	{
		char probe[PATH_MAX + 64];
		int fd;
		snprintf(probe, sizeof(probe), "%s.tmp.%ld", outpath, (long)getpid());
		fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0644);
		if (fd < 0)
			return gd_error(GD_EFAIL, "run: cannot write the profile '%s': %s", outpath, strerror(errno));
		close(fd);
		unlink(probe);
	}

	/* Private directory for the raw files. */
	{
		const char *tmp = getenv("TMPDIR");
		snprintf(dir, sizeof(dir), "%s/gpudiag-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			return gd_error(GD_EFAIL, "run: cannot create a directory in '%s': %s", tmp && *tmp ? tmp : "/tmp",
					strerror(errno));
	}
	have_inject = find_inject(inject, sizeof(inject)) == 0;
	if (!have_inject) {
		gd_warn("run: libgpudiag_inject.so not found beside gpudiag (set GPUDIAG_INJECT); running untraced");
	} else {
		/* Loading it here proves libcupti resolves; a failure is said now, not silently in
		 * the program's cuInit. */
		void *h = dlopen(inject, RTLD_NOW | RTLD_LOCAL);
		if (!h) {
			gd_warn("run: cannot load the injection library (%s); running untraced", dlerror());
			snprintf(why, sizeof(why), "the injection library could not be loaded");
			have_inject = 0;
		} else {
			dlclose(h);
		}
	}
	if (getenv("CUDA_INJECTION64_PATH") && have_inject)
		gd_warn("run: replacing CUDA_INJECTION64_PATH=%s for the program", getenv("CUDA_INJECTION64_PATH"));
	/* The run's time origin, also used for --delay/--duration windows in the library. */
	t0 = now_ns();
	env = child_env(have_inject ? inject : NULL, dir, api, !no_nvtx, latency,
			delay > 0 || duration > 0 ? t0 + (long long)(delay * 1e9) : 0,
			duration > 0 ? t0 + (long long)((delay + duration) * 1e9) : 0);
	if (!env)
		return gd_error(GD_EFAIL, "out of memory");
	/* gpudiag's own cuInit (device facts, in the sampler thread) must not load a tracer:
	 * neither ours (an outer gpudiag run) nor another tool's. child_env copied the strings. */
	unsetenv("CUDA_INJECTION64_PATH");
	unsetenv("NVTX_INJECTION64_PATH");
	unsetenv("GPUDIAG_RAW_DIR");

	memset(&sp, 0, sizeof(sp));
	sp.hz = nvml_hz;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sigaction(SIGHUP, &sa, &old_hup);
	sigaction(SIGQUIT, &sa, &old_quit);
	/* Orphaned grandchildren (a launcher's workers) are reparented to us, so their exit
	 * flush can be awaited. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

	if (pipe2(pipefd, O_CLOEXEC) != 0)
		return gd_error(GD_EFAIL, "run: pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return gd_error(GD_EFAIL, "run: fork: %s", strerror(errno));
	if (pid == 0) {
		int e;
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		sigaction(SIGHUP, &old_hup, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		close(pipefd[0]);
		execvpe(cmd[0], cmd, env);
		e = errno;
		if (write(pipefd[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	g_child = pid;
	close(pipefd[1]);
	/* Start sampling (and the driver query) only now, so the program is not delayed. */
	if (pthread_create(&sp.th, NULL, sampler_main, &sp) == 0)
		sp.started = 1;
	{
		int e = 0;
		ssize_t r;
		while ((r = read(pipefd[0], &e, sizeof(e))) < 0 && errno == EINTR)
			;
		close(pipefd[0]);
		if (r == (ssize_t)sizeof(e)) {
			exec_failed = 1;
			gd_error(e == ENOENT ? 127 : 126, "run: cannot run '%s': %s", cmd[0], strerror(e));
		}
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			status = 0;
			break;
		}
	t1 = now_ns();
	g_child = 0;
	/* Other descendants still running get a short grace period to write their records. */
	for (int i = 0; i < 40; i++) {
		pid_t r = waitpid(-1, NULL, WNOHANG);
		if (r < 0 && errno == ECHILD)
			break;
		if (r == 0) {
			struct timespec ts = {0, 50000000L};
			nanosleep(&ts, NULL);
		}
	}
	if (sp.started) {
		atomic_store(&sp.stop, 1);
		pthread_join(sp.th, NULL);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	if (WIFSIGNALED(status)) {
		exit_signal = WTERMSIG(status);
		exit_code = 128 + exit_signal;
	} else {
		exit_code = WEXITSTATUS(status);
	}
	if (!why[0] && !sp.cu_ok)
		snprintf(why, sizeof(why), "%s", sp.cu_why);

	/* ---- the profile (none when the command could not even be started) */
	if (!exec_failed) {
		struct gd_pw *w;
		DIR *d;
		struct dirent *de;
		char host[256] = "", cwd[PATH_MAX] = "", cap[300];
		int windows;
		if (gd_pw_open(&w, outpath) != GD_OK)
			goto cleanup;
		join_args(line, sizeof(line), cmd);
		gd_pw_meta(w, "command_line", line);
		if (getcwd(cwd, sizeof(cwd)))
			gd_pw_meta(w, "cwd", cwd);
		if (gethostname(host, sizeof(host)) == 0)
			gd_pw_meta(w, "hostname", host);
		gd_pw_meta_int(w, "start_ns", t0);
		gd_pw_meta_int(w, "end_ns", t1);
		gd_pw_meta_int(w, "wall_ns", t1 - t0);
		gd_pw_meta_int(w, "exit_code", exit_code);
		if (exit_signal)
			gd_pw_meta_int(w, "exit_signal", exit_signal);
		if (g_interrupts)
			gd_pw_meta(w, "interrupted", "1");
		gd_pw_meta(w, "api_trace", api);
		gd_pw_meta_int(w, "cupti_version", CUPTI_API_VERSION);
		gd_pw_meta(w, "cuda_toolkit_version", GPUDIAG_CUDA_TOOLKIT_VERSION);
		gd_pw_meta(w, "nvtx_injection", no_nvtx ? "off" : "on");
		gd_pw_meta(w, "latency_timestamps", latency ? "on" : "off");
		if (sp.cu_ok)
			gd_pw_meta_int(w, "cuda_driver_version", gd_cu_driver_version());
		if (sp.nvml_ok) {
			struct gd_nvml_static st;
			if (gd_nvml_count() > 0 && gd_nvml_static_info(0, &st) == GD_OK && st.driver[0])
				gd_pw_meta(w, "driver_version", st.driver);
		}
		snprintf(cap, sizeof(cap), "%g", nvml_hz);
		gd_pw_meta(w, "nvml_hz", cap);
		gd_pw_meta(w, "nvml", sp.nvml_ok ? "ok" : sp.nvml_why);
		if (sp.n && sp.ndev && t1 > t0) {
			snprintf(cap, sizeof(cap), "%.1f", (double)sp.n / sp.ndev / ((double)(t1 - t0) / 1e9));
			gd_pw_meta(w, "nvml_hz_achieved", cap);
		}
		for (char **e = environ; *e; e++)
			if (env_kept(*e)) {
				char key[300];
				const char *eq = strchr(*e, '=');
				if (!eq)
					continue;
				snprintf(key, sizeof(key), "env.%.*s", (int)(eq - *e), *e);
				gd_pw_meta(w, key, eq + 1);
			}
		if (sp.cu_ok)
			fill_devices(w, &sp);
		for (size_t i = 0; i < sp.n; i++)
			gd_pw_nvml(w, sp.dev[i], &sp.s[i]);
		d = opendir(dir);
		while (d && (de = readdir(d))) {
			char p[PATH_MAX + 300], err[512];
			struct gd_raw_stats st;
			if (strncmp(de->d_name, "raw.", 4))
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			if (gd_pw_add_raw(w, p, &st, err, sizeof(err)) != GD_OK)
				gd_warn("run: %s (records before the damage are kept)", err);
			else if (st.truncated)
				gd_warn("run: the records of process %u end mid-record (it was killed); the rest is kept",
					st.pid);
		}
		if (d)
			closedir(d);
		gd_pw_child(w, pid, line, t0, t1, exit_code, exit_signal);
		if (capture) {
			snprintf(cap, sizeof(cap), "%s", capture);
			windows = gd_pw_capture(w, capture, t0, t1, 0, 0);
		} else if (delay > 0 || duration > 0) {
			snprintf(cap, sizeof(cap), "delay=%g,duration=%g", delay, duration);
			windows = gd_pw_capture(w, "delay", t0, t1, delay, duration);
		} else {
			snprintf(cap, sizeof(cap), "all");
			windows = gd_pw_capture(w, "all", t0, t1, 0, 0);
		}
		gd_pw_meta(w, "capture_range", cap);
		if (windows == 0)
			gd_warn("run: the capture range '%s' never opened: the profile holds no records", cap);
		gd_pw_sql(w, "INSERT OR REPLACE INTO meta(key,value) SELECT 'traced', "
			     "CASE WHEN COUNT(*) > 0 THEN '1' ELSE '0' END FROM processes WHERE traced=1");
		if (why[0])
			gd_pw_meta(w, "not_traced_reason", why);
		if (gd_pw_close(w, 1) != GD_OK)
			goto cleanup;
		explain(outpath, why, have_inject);
		/* The program's stdout stays the program's: the report goes to stderr (like
		 * time(1)), except the --json document, which is the one thing on stdout. */
		if (gd_report_print)
			gd_report_print(outpath, ctx, ctx->json ? stdout : stderr);
		else
			minimal_summary(outpath, ctx, exit_code, t1 - t0);
	}
cleanup:
	if (keep_raw) {
		gd_warn("run: raw files kept in %s", dir);
	} else {
		DIR *d = opendir(dir);
		struct dirent *de;
		while (d && (de = readdir(d))) {
			char p[PATH_MAX + 300];
			if (de->d_name[0] == '.')
				continue;
			snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
			unlink(p);
		}
		if (d)
			closedir(d);
		rmdir(dir);
	}
	free(sp.s);
	free(sp.dev);
	return exit_code;
}
