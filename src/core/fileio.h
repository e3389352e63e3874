/* Files written safely: to a temporary file beside the target, then renamed over it, so a
 * reader never sees half a file and an interrupted write loses nothing. Also the user's
 * cache directory.
 *
 * What the target already is decides how it is written:
 *   - nothing, or a regular file: temporary file + rename; an existing file's permission
 *     bits (and, for root, its owner) carry over to the new one;
 *   - a symbolic link: the file it points to is replaced (or created, as the shell's '>' would)
 *     the same way, and the link stays;
 *   - a FIFO, a character device or a socket (/dev/stdout, a pipe made with mkfifo): written
 *     in place, since renaming over it would destroy the special file;
 *   - a directory: an error naming the path. */
#ifndef GPUDIAG_FILEIO_H
#define GPUDIAG_FILEIO_H

#include <stddef.h>
#include <stdio.h>

struct gd_atomic {
	char path[4096];      /* where the data lands (a symbolic link resolved) */
	char tmp[4096];       /* "<path>.tmp.<pid>", "" when written in place */
	FILE *f;
	int in_place;         /* a FIFO/device/socket: no temporary file, no rename */
};

/* Opens "<path>.tmp.<pid>" for writing. Returns the stream, or NULL after printing an
 * error naming the path. "-" means stdout (commit/abort then do nothing special). */
FILE *gd_atomic_open(struct gd_atomic *a, const char *path);
/* Flushes, syncs, closes and renames into place. Returns GD_OK or GD_EFAIL (printed). */
int gd_atomic_commit(struct gd_atomic *a);
/* Closes and removes the temporary file. */
void gd_atomic_abort(struct gd_atomic *a);

/* 1 when out and in name the same existing file (also through links or a hard link), so a
 * command can refuse to write its output over its input; 0 otherwise. */
int gd_same_file(const char *out, const char *in);

/* $XDG_CACHE_HOME/gpudiag or ~/.cache/gpudiag, created if missing. Returns 0 on success. */
int gd_cache_dir(char *buf, size_t n);

/* Reads a whole file into a NUL-terminated heap buffer. Returns NULL on failure (errno set). */
char *gd_read_file(const char *path, size_t *len);

#endif
