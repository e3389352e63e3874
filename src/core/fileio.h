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
#include <sys/stat.h>

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

/* What writing to path would replace, by the rules above, for writers that cannot go through
 * gd_atomic_open (SQLite opens its own file). Fills target with the file the data would land
 * in (a final symbolic link followed) and, when something is there, *st. Returns GD_OUT_NEW,
 * GD_OUT_FILE, GD_OUT_SPECIAL (FIFO, device, socket) or GD_OUT_DIR; -1 with errno set when
 * the path cannot be resolved (a link loop, a name too long). */
enum { GD_OUT_NEW, GD_OUT_FILE, GD_OUT_SPECIAL, GD_OUT_DIR };
int gd_out_target(const char *path, char *target, size_t n, struct stat *st);

/* Creates "<target>.tmp.<pid>" for writing, exclusively (a stale one left by a killed run of
 * this pid is removed first), with the permission bits and, for root, the owner of old when
 * old is not NULL. Returns the descriptor and its name in tmp, or -1 with errno set. */
int gd_tmp_create(const char *target, const struct stat *old, char *tmp, size_t n);

/* 1 when out and in name the same existing file (also through links or a hard link), so a
 * command can refuse to write its output over its input; 0 otherwise. */
int gd_same_file(const char *out, const char *in);

/* $XDG_CACHE_HOME/gpudiag or ~/.cache/gpudiag, created if missing. Returns 0 on success. */
int gd_cache_dir(char *buf, size_t n);
/* The same path, not created: for commands that only read the cache (a report, --show), which
 * must leave no folder behind. Returns 0 when there is a path (it may not exist). */
int gd_cache_dir_name(char *buf, size_t n);

/* Reads a whole file into a NUL-terminated heap buffer. Returns NULL on failure (errno set). */
char *gd_read_file(const char *path, size_t *len);

#endif
