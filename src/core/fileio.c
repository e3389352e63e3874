/* Safe file output and the cache directory; see fileio.h. */
#include "core/fileio.h"

#include "core/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

FILE *gd_atomic_open(struct gd_atomic *a, const char *path)
{
	memset(a, 0, sizeof(*a));
	if (!strcmp(path, "-")) {
		a->f = stdout;
		return a->f;
	}
	if (snprintf(a->path, sizeof(a->path), "%s", path) >= (int)sizeof(a->path) ||
	    snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%ld", path, (long)getpid()) >= (int)sizeof(a->tmp)) {
		gd_error(GD_EUSAGE, "path too long: '%s'", path);
		return NULL;
	}
	a->f = fopen(a->tmp, "wb");
	if (!a->f)
		gd_error(GD_EFAIL, "cannot write '%s': %s", path, strerror(errno));
	return a->f;
}

int gd_atomic_commit(struct gd_atomic *a)
{
	int bad;
	if (a->f == stdout) {
		fflush(stdout);
		return GD_OK;
	}
	bad = fflush(a->f) != 0 || ferror(a->f);
	if (!bad)
		bad = fsync(fileno(a->f)) != 0 && errno != EINVAL;
	bad |= fclose(a->f) != 0;
	a->f = NULL;
	if (bad || rename(a->tmp, a->path) != 0) {
		int e = errno;
		unlink(a->tmp);
		return gd_error(GD_EFAIL, "cannot write '%s': %s", a->path, strerror(e));
	}
	return GD_OK;
}

void gd_atomic_abort(struct gd_atomic *a)
{
	if (a->f && a->f != stdout) {
		fclose(a->f);
		unlink(a->tmp);
	}
	a->f = NULL;
}

static int mkdir_p(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0755) && errno != EEXIST ? -1 : 0;
}

int gd_cache_dir(char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int w;
	if (x && *x)
		w = snprintf(buf, n, "%s/gpudiag", x);
	else if (home && *home)
		w = snprintf(buf, n, "%s/.cache/gpudiag", home);
	else
		return -1;
	if (w < 0 || (size_t)w >= n)
		return -1;
	return mkdir_p(buf);
}

char *gd_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	if (!f)
		return NULL;
	for (;;) {
		size_t got;
		if (cap - n < 65536) {
			char *nb = realloc(buf, cap ? cap * 2 : 65536 + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 65536 + 1;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		int e = errno;
		free(buf);
		fclose(f);
		errno = e ? e : EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	if (len)
		*len = n;
	return buf;
}
