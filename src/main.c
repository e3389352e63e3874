/* gpudiag: the guide to how NVIDIA GPUs run code, made executable.
 *
 * main() parses the common options, finds the command in the table (commands.c), and turns
 * the command's status into the exit code. A command that needs a GPU checks for one with
 * gd_need_gpu() (commands.c) once its own options are parsed, so a usage error is always
 * reported first.
 * Nothing else in the program calls exit(). */
#include "commands.h"
#include "core/out.h"
#include "core/paths.h"
#include "core/status.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_main_help(void)
{
	printf("gpudiag %s — measure what the GPU guide teaches on your GPU, and diagnose CUDA programs\n\n",
	       GPUDIAG_VERSION);
	printf("usage: gpudiag <command> [options]\n       gpudiag --version\n\ncommands:\n");
	for (const struct gd_cmd *c = gd_commands; c->name; c++)
		if (c->name[0] != '_') /* "__name": internal commands, not listed */
			/* pad by display width: "§" is two bytes */
			printf("  %-11s %s%*s %s\n", c->name, c->guide, (int)(13 - gd_display_width(c->guide)), "",
			       c->summary);
	printf("  %-11s %-13s %s\n", "help", "", "help for a command: gpudiag help <command>");
	printf("\ncommon options (every command):\n"
	       "  --json        machine-readable output on stdout (keys documented in docs/json.md)\n"
	       "  --device N    the GPU to use (CUDA device index); default: all, or device 0\n"
	       "  --no-color    no colour (also: NO_COLOR set, or output not a terminal)\n"
	       "  -h, --help    help for the command\n"
	       "\nversion:\n"
	       "  -V, --version the version, what this build contains, where it finds its files\n"
	       "\nexit codes:\n"
	       "  0 ok   1 failure   2 usage error   3 no GPU, driver or vendor library\n"
	       "  4 a measurement failed its correctness check   5 bad or corrupt input file\n"
	       "  run: the profiled program's own exit code (128+N if it died of signal N);\n"
	       "       1 if it exited 0 but the profile could not be written\n");
}

static const char help_usage[] =
	"usage: gpudiag help [<command>]\n"
	"\n"
	"Prints help. With no command: the commands, the common options and the exit codes. With a\n"
	"command: its options and examples, the same as `gpudiag <command> --help`.\n"
	"\n"
	"examples:\n"
	"  gpudiag help             the list of commands\n"
	"  gpudiag help report      the options of `gpudiag report`\n"
	"  gpudiag help help        this text\n"
	"\n"
	"See also `gpudiag --version` (-V): the version, whether this build has the CUDA parts, and\n"
	"where it finds its injection library and sample profile. Every command also has a manual\n"
	"page when gpudiag is installed: man gpudiag-<command>.\n";

/* `gpudiag --version`: the version on the first line (for scripts), then what this build
 * contains and the files it found, which is what an install is checked by (docs/install.md). */
static void print_version(void)
{
	char p[4096], where[8192];
	printf("gpudiag %s\n", GPUDIAG_VERSION);
#ifdef GPUDIAG_NO_CUDA
	printf("built without the CUDA toolkit: no GPU kernels (lab, roofline, the demo) and no injection "
	       "library (run traces nothing)\n");
#else
	printf("built with the CUDA toolkit %s, kernels for %s\n", GPUDIAG_CUDA_TOOLKIT_VERSION, GPUDIAG_CUDA_ARCHS_BUILT);
#endif
	if (gd_find_inject(p, sizeof(p)) == 0) {
		printf("injection library: %s\n", p);
	} else {
		gd_inject_where(where, sizeof(where));
		printf("injection library: not found (%s)\n", where);
	}
	if (gd_find_sample(p, sizeof(p)) == 0) {
		printf("sample profile: %s\n", p);
	} else {
		gd_sample_where(where, sizeof(where));
		printf("sample profile: not found (%s)\n", where);
	}
	if (gd_find_python(p, sizeof(p)) == 0) {
		printf("python instrumentation: %s\n", p);
	} else {
		gd_python_where(where, sizeof(where));
		printf("python instrumentation: not found (%s)\n", where);
	}
}

static int help_for(const char *name)
{
	const struct gd_cmd *c = gd_find_command(name);
	if (!strcmp(name, "help")) {
		fputs(help_usage, stdout);
		return GD_OK;
	}
	if (!c)
		return gd_error(GD_EUSAGE, "unknown command '%s' (see 'gpudiag help')", name);
	fputs(c->usage, stdout);
	return GD_OK;
}

/* Removes the common options from argv (in place) and stores them in ctx. For commands with
 * GD_RAW_ARGS, scanning stops at the first positional argument or "--", so options of the
 * profiled program are left alone. Returns GD_OK, GD_EUSAGE, or -1 for --help. */
static int common_options(const struct gd_cmd *c, struct gd_ctx *ctx, int *argc, char **argv)
{
	int out = 0, stop = 0, help = 0;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		if (stop) {
			argv[out++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--")) {
			if (c->flags & GD_RAW_ARGS)
				stop = 1;
			argv[out++] = argv[i];
			continue;
		}
		if (!strcmp(a, "--json")) {
			ctx->json = 1;
		} else if (!strncmp(a, "--json=", 7)) {
			return gd_error(GD_EUSAGE, "%s: --json takes no value", c->name);
		} else if (!strcmp(a, "--no-color") || !strcmp(a, "--no-colour")) {
			ctx->no_color = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			help = 1;
		} else if (!strcmp(a, "--device") || !strncmp(a, "--device=", 9)) {
			const char *v = a[8] == '=' ? a + 9 : (i + 1 < *argc ? argv[++i] : NULL);
			char *end;
			long d;
			if (!v)
				return gd_error(GD_EUSAGE, "%s: --device needs a device index", c->name);
			d = strtol(v, &end, 10);
			if (*end || end == v || d < 0 || d > 1023)
				return gd_error(GD_EUSAGE, "%s: --device needs a device index, not '%s'", c->name, v);
			ctx->device = (int)d;
		} else {
			if ((c->flags & GD_RAW_ARGS) && a[0] != '-')
				stop = 1;
			argv[out++] = argv[i];
		}
	}
	*argc = out;
	argv[out] = NULL;
	return help ? -1 : GD_OK;
}

/* A report sent to a full disk or a closed pipe must not end in success: stdio keeps write
 * errors in the stream, and a file system may report one only when the file is closed. So
 * stdout is flushed, checked and closed here, after the command; on failure one line says
 * so and the exit code is 1 (a command's own failure code is kept). A stdout that was
 * never open (>&-) and was never written to is not an error, as with coreutils. */
static int finish_stdout(int rc)
{
	/* e: the errno of the failure; -1 when a write failed earlier, inside stdio, whose errno
	 * is gone by now (stdio keeps only the error flag): then no reason is given rather than
	 * a wrong one, as coreutils' "write error" does */
	int e = 0;
	errno = 0;
	if (fflush(stdout) != 0 || ferror(stdout))
		e = errno ? errno : -1;
	errno = 0;
	/* after a good flush nothing was pending, so EBADF can only mean "never open" */
	if (fclose(stdout) != 0 && !e && errno != EBADF)
		e = errno ? errno : -1;
	if (!e)
		return rc;
	if (e > 0)
		gd_error(GD_EFAIL, "cannot write to standard output: %s", strerror(e));
	else
		gd_error(GD_EFAIL, "cannot write to standard output (a write failed: a full disk, a closed pipe or an I/O error)");
	return rc != GD_OK ? rc : GD_EFAIL;
}

int main(int argc, char **argv)
{
	struct gd_ctx ctx = {.json = 0, .device = -1, .no_color = 0, .argv0 = argv[0]};
	const struct gd_cmd *c;
	int rc, cargc;
	char **cargv;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		gd_out_init(stdout, 0);
		print_main_help();
		return finish_stdout(argc < 2 ? GD_EUSAGE : GD_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") || !strcmp(argv[1], "version")) {
		print_version();
		return finish_stdout(GD_OK);
	}
	if (!strcmp(argv[1], "help")) {
		if (argc < 3) {
			print_main_help();
			return finish_stdout(GD_OK);
		}
		/* `gpudiag help --help`: the help of help, as `gpudiag help help` */
		return finish_stdout(help_for(!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help") ? "help" : argv[2]));
	}
	c = gd_find_command(argv[1]);
	if (!c)
		return gd_error(GD_EUSAGE, "unknown command '%s' (see 'gpudiag help')", argv[1]);

	cargc = argc - 2;
	cargv = argv + 2;
	rc = common_options(c, &ctx, &cargc, cargv);
	if (rc == -1)
		return finish_stdout(help_for(c->name));
	if (rc != GD_OK)
		return rc;
	gd_out_init(stdout, ctx.no_color || ctx.json);

	rc = c->fn(&ctx, cargc, cargv);
	return finish_stdout(rc);
}
