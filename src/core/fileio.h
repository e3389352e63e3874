/* Files written safely: to a temporary file beside the target, then renamed over it, so a
 * reader never sees half a file and an interrupted write loses nothing. Also the user's
 * cache directory. */
#ifndef GPUDIAG_FILEIO_H
#define GPUDIAG_FILEIO_H

#include <stddef.h>
#include <stdio.h>

struct gd_atomic {
	char path[4096];
	char tmp[4096];
	FILE *f;
};

/* Opens "<path>.tmp.<pid>" for writing. Returns the stream, or NULL after printing an
 * error naming the path. "-" means stdout (commit/abort then do nothing special). */
FILE *gd_atomic_open(struct gd_atomic *a, const char *path);
/* Flushes, syncs, closes and renames into place. Returns GD_OK or GD_EFAIL (printed). */
int gd_atomic_commit(struct gd_atomic *a);
/* Closes and removes the temporary file. */
void gd_atomic_abort(struct gd_atomic *a);

/* $XDG_CACHE_HOME/gpudiag or ~/.cache/gpudiag, created if missing. Returns 0 on success. */
int gd_cache_dir(char *buf, size_t n);

/* Reads a whole file into a NUL-terminated heap buffer. Returns NULL on failure (errno set). */
char *gd_read_file(const char *path, size_t *len);

#endif
