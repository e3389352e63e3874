/* Where gpudiag finds the files it ships with: the injection library that `gpudiag run` loads
 * into profiled programs, the sample profile that `gpudiag run` shows on a machine with no
 * GPU, and the Python instrumentation folder `gpudiag run` gives Python programs. All are
 * found relative to the running binary (/proc/self/exe), so an installed tree can be moved
 * or unpacked anywhere (a .deb, DESTDIR, a prefix in $HOME) and a copied binary never loads a
 * file from the build tree it came from: no absolute path is compiled in, only the install
 * layout's relative paths from the binary's folder (GPUDIAG_REL_LIBDIR, GPUDIAG_REL_DATADIR,
 * set by CMake from GNUInstallDirs: docs/install.md).
 *
 * Each function returns 0 and the path in out, or -1 with out empty when nothing was found.
 * A variable (GPUDIAG_INJECT, GPUDIAG_SAMPLE, GPUDIAG_PYTHON) comes first and has no fallback: it is how a
 * user points at another file, and a copy found elsewhere must not silently win. */
#ifndef GPUDIAG_PATHS_H
#define GPUDIAG_PATHS_H

#include <stddef.h>

/* libgpudiag_inject.so: $GPUDIAG_INJECT, else beside the binary (the build tree, or a binary
 * copied with its library), else <bin>/GPUDIAG_REL_LIBDIR (the installed layout, e.g.
 * ../lib/gpudiag or ../lib/x86_64-linux-gnu/gpudiag), ../lib/gpudiag, ../lib. */
int gd_find_inject(char *out, size_t n);
/* sample.gpudiag.sqlite: $GPUDIAG_SAMPLE, else <bin>/GPUDIAG_REL_DATADIR (installed, e.g.
 * ../share/gpudiag), else beside the binary (the build copies it there). */
int gd_find_sample(char *out, size_t n);
/* Where gd_find_inject / gd_find_sample look, for error messages: "GPUDIAG_INJECT=..." or
 * "beside /x/bin/gpudiag, in /x/lib/gpudiag, ...". */
void gd_inject_where(char *out, size_t n);
void gd_sample_where(char *out, size_t n);

/* The folder of gpudiag's Python instrumentation (docs/framework.md), which `gpudiag run`
 * puts first on the program's PYTHONPATH; recognised by the file GD_PYTHON_ENTRY in it:
 * $GPUDIAG_PYTHON (a folder), else <bin>/GPUDIAG_REL_DATADIR/python (installed, e.g.
 * ../share/gpudiag/python), ../share/gpudiag/python, else python/ beside the binary (the
 * build tree). out gets the folder, absolute. */
#define GD_PYTHON_ENTRY "sitecustomize.py"
int gd_find_python(char *out, size_t n);
void gd_python_where(char *out, size_t n);

#endif
