/* Finding the files gpudiag ships with, relative to the running binary; see paths.h. */
#include "core/paths.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Relative paths from the installed binary's folder, from CMake (GNUInstallDirs); these
 * defaults are the layout of a plain `cmake --install` with the usual directories. */
#ifndef GPUDIAG_REL_LIBDIR
#define GPUDIAG_REL_LIBDIR "../lib/gpudiag"
#endif
#ifndef GPUDIAG_REL_DATADIR
#define GPUDIAG_REL_DATADIR "../share/gpudiag"
#endif

#define MAX_DIRS 4

struct kind {
	const char *env, *file;
	const char *dirs[MAX_DIRS]; /* relative to the binary's folder; "" is the folder itself */
	const char *env_file;       /* appended to the variable's value: it names a folder */
};

static const struct kind INJECT = {"GPUDIAG_INJECT", "libgpudiag_inject.so",
				   {"", GPUDIAG_REL_LIBDIR, "../lib/gpudiag", "../lib"}, NULL};
static const struct kind SAMPLE = {"GPUDIAG_SAMPLE", "sample.gpudiag.sqlite",
				   {GPUDIAG_REL_DATADIR, "../share/gpudiag", "", NULL}, NULL};
/* the folder of the Python instrumentation, recognised by its sitecustomize.py; the build
 * copies it beside the binary as python/ (src/python/CMakeLists.txt) */
static const struct kind PYTHON = {"GPUDIAG_PYTHON", "python/" GD_PYTHON_ENTRY,
				   {GPUDIAG_REL_DATADIR, "../share/gpudiag", "", NULL}, "/" GD_PYTHON_ENTRY};

/* The running binary's folder, or -1 (no /proc, or a path too long). */
static int exe_dir(char *out, size_t n)
{
	ssize_t len = readlink("/proc/self/exe", out, n - 1);
	char *slash;
	if (len <= 0 || (size_t)len >= n - 1)
		return -1;
	out[len] = 0;
	slash = strrchr(out, '/');
	if (!slash)
		return -1;
	*slash = 0;
	return 0;
}

/* Candidate i of kind k (skipping a relative folder already tried), or -1 past the last. */
static int candidate(const struct kind *k, const char *dir, int i, char *out, size_t n)
{
	const char *d;
	if (i >= MAX_DIRS || !(d = k->dirs[i]))
		return -1;
	for (int j = 0; j < i; j++)
		if (k->dirs[j] && !strcmp(k->dirs[j], d)) {
			out[0] = 0;
			return 0;
		}
	if (snprintf(out, n, "%s%s%s/%s", dir, *d ? "/" : "", d, k->file) >= (int)n)
		out[0] = 0;
	return 0;
}

/* out, if readable: made absolute without "..", for messages and for the child's environment */
static int usable(char *out, size_t n)
{
	char r[PATH_MAX];
	if (!out[0] || access(out, R_OK) != 0)
		return 0;
	if (realpath(out, r) && strlen(r) < n)
		memcpy(out, r, strlen(r) + 1);
	return 1;
}

static int find(const struct kind *k, char *out, size_t n)
{
	char dir[PATH_MAX];
	const char *env = getenv(k->env);
	if (env && *env) {
		if (snprintf(out, n, "%s%s", env, k->env_file ? k->env_file : "") < (int)n && usable(out, n))
			return 0;
		out[0] = 0;
		return -1;
	}
	if (exe_dir(dir, sizeof(dir)) == 0)
		for (int i = 0; candidate(k, dir, i, out, n) == 0; i++)
			if (usable(out, n))
				return 0;
	out[0] = 0;
	return -1;
}

static void where(const struct kind *k, char *out, size_t n)
{
	char dir[PATH_MAX], c[PATH_MAX + 64];
	const char *env = getenv(k->env);
	size_t o = 0;
	out[0] = 0;
	if (env && *env) {
		snprintf(out, n, "%s=%s", k->env, env);
		return;
	}
	if (exe_dir(dir, sizeof(dir)) != 0) {
		snprintf(out, n, "the binary's own path is unknown (no /proc/self/exe); set %s", k->env);
		return;
	}
	for (int i = 0; candidate(k, dir, i, c, sizeof(c)) == 0 && o < n; i++)
		if (c[0])
			o += (size_t)snprintf(out + o, n - o, "%s%s", o ? ", " : "looked for ", c);
	if (o < n)
		snprintf(out + o, n - o, "; set %s=%s", k->env, k->env_file ? "FOLDER" : "FILE");
}

int gd_find_inject(char *out, size_t n)
{
	return find(&INJECT, out, n);
}

int gd_find_sample(char *out, size_t n)
{
	return find(&SAMPLE, out, n);
}

void gd_inject_where(char *out, size_t n)
{
	where(&INJECT, out, n);
}

void gd_sample_where(char *out, size_t n)
{
	where(&SAMPLE, out, n);
}

int gd_find_python(char *out, size_t n)
{
	char *slash;
	if (find(&PYTHON, out, n) != 0)
		return -1;
	slash = strrchr(out, '/'); /* the folder, not its sitecustomize.py */
	if (slash)
		*slash = 0;
	return 0;
}

void gd_python_where(char *out, size_t n)
{
	where(&PYTHON, out, n);
}
