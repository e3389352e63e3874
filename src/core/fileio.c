/* Safe file output and the cache directory; see fileio.h. */
#include "core/fileio.h"

#include "core/status.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporary files not yet committed, removed if the process is interrupted (SIGINT, SIGTERM,
 * SIGHUP) so a stopped export leaves no "OUT.tmp.PID" behind. A handler is installed only where
 * the program has none of its own (gpudiag run keeps its own signal handling). */
#define MAX_PENDING 8
static char g_pending[MAX_PENDING][4096];
static volatile sig_atomic_t g_npending;

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < MAX_PENDING && i < g_npending; i++)
		if (g_pending[i][0])
			unlink(g_pending[i]); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void pending_add(const char *tmp)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		struct sigaction old;
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			signal(sigs[i], on_fatal_signal);
	}
	for (int i = 0; i < MAX_PENDING; i++)
		if (!g_pending[i][0]) {
			snprintf(g_pending[i], sizeof(g_pending[i]), "%s", tmp);
			if (i >= g_npending)
				g_npending = i + 1;
			return;
		}
}

static void pending_remove(const char *tmp)
{
	for (int i = 0; i < MAX_PENDING && i < g_npending; i++)
		if (!strcmp(g_pending[i], tmp))
			g_pending[i][0] = 0;
}

/* The file a path names once a final symbolic link is followed: path itself when it is not
 * a link; the link's target (relative to the link's folder) otherwise. Returns 0, or -1 with
 * errno set (ELOOP for a chain that does not end). */
static int follow_link(const char *path, char *out, size_t n)
{
	char cur[4096];
	snprintf(cur, sizeof(cur), "%s", path);
	for (int hops = 0; hops < 16; hops++) {
		struct stat st;
		char target[4096];
		ssize_t len;
		if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
			if (snprintf(out, n, "%s", cur) >= (int)n)
				return errno = ENAMETOOLONG, -1;
			return 0;
		}
		len = readlink(cur, target, sizeof(target) - 1);
		if (len < 0)
			return -1;
		target[len] = 0;
		if (target[0] == '/') {
			snprintf(cur, sizeof(cur), "%s", target);
		} else {
			char dir[4096];
			const char *slash = strrchr(cur, '/');
			snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - cur) : 1, slash ? cur : ".");
			if (snprintf(cur, sizeof(cur), "%s/%s", dir, target) >= (int)sizeof(cur))
				return errno = ENAMETOOLONG, -1;
		}
	}
	return errno = ELOOP, -1;
}

FILE *gd_atomic_open(struct gd_atomic *a, const char *path)
{
	struct stat st;
	int fd, exists;
	memset(a, 0, sizeof(*a));
	if (!strcmp(path, "-")) {
		a->f = stdout;
		return a->f;
	}
	if (strlen(path) >= sizeof(a->path) - 32) {
		gd_error(GD_EUSAGE, "path too long: '%s'", path);
		return NULL;
	}
	if (follow_link(path, a->path, sizeof(a->path)) != 0) {
		gd_error(GD_EFAIL, "cannot write '%s': %s", path, strerror(errno));
		return NULL;
	}
	exists = stat(a->path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		gd_error(GD_EFAIL, "cannot write '%s': it is a directory", path);
		return NULL;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* FIFO, device, socket: renaming over it would replace the special file */
		a->in_place = 1;
		a->f = fopen(a->path, "wb");
		if (!a->f)
			gd_error(GD_EFAIL, "cannot write '%s': %s", path, strerror(errno));
		return a->f;
	}
	snprintf(a->tmp, sizeof(a->tmp), "%s.tmp.%ld", a->path, (long)getpid());
	/* O_EXCL: never write through a file or link someone else put at the temporary name */
	fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST && unlink(a->tmp) == 0) /* left by a killed run of this pid */
		fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		gd_error(GD_EFAIL, "cannot write '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (exists) {
		/* the replacement keeps the permissions (a 0600 file stays private) and, where we
		 * may, the owner of the file it replaces */
		if (fchmod(fd, st.st_mode & 07777) != 0) {
			/* not fatal: the data still lands */
		}
		if (geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) != 0) {
			/* not fatal either */
		}
	}
	a->f = fdopen(fd, "wb");
	if (!a->f) {
		gd_error(GD_EFAIL, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		unlink(a->tmp);
		return NULL;
	}
	pending_add(a->tmp);
	return a->f;
}

int gd_atomic_commit(struct gd_atomic *a)
{
	int bad, e;
	if (a->f == stdout) {
		if (fflush(stdout) != 0 || ferror(stdout)) {
			int err = errno ? errno : EIO;
			clearerr(stdout); /* said here, so main's check of stdout does not say it again */
			return gd_error(GD_EFAIL, "cannot write to standard output: %s", strerror(err));
		}
		return GD_OK;
	}
	bad = fflush(a->f) != 0 || ferror(a->f);
	e = errno;
	if (!bad && !a->in_place) {
		bad = fsync(fileno(a->f)) != 0 && errno != EINVAL;
		e = errno;
	}
	if (fclose(a->f) != 0 && !bad) {
		bad = 1;
		e = errno;
	}
	a->f = NULL;
	if (a->in_place)
		return bad ? gd_error(GD_EFAIL, "cannot write '%s': %s", a->path, strerror(e ? e : EIO)) : GD_OK;
	if (!bad && rename(a->tmp, a->path) != 0) {
		bad = 1;
		e = errno;
	}
	pending_remove(a->tmp);
	if (bad) {
		unlink(a->tmp);
		return gd_error(GD_EFAIL, "cannot write '%s': %s", a->path, strerror(e ? e : EIO));
	}
	return GD_OK;
}

void gd_atomic_abort(struct gd_atomic *a)
{
	if (a->f && a->f != stdout) {
		fclose(a->f);
		if (!a->in_place) {
			unlink(a->tmp);
			pending_remove(a->tmp);
		}
	}
	a->f = NULL;
}

int gd_out_target(const char *path, char *target, size_t n, struct stat *st)
{
	struct stat dummy;
	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	if (follow_link(path, target, n) != 0)
		return -1;
	if (stat(target, st) != 0)
		return GD_OUT_NEW; /* nothing there (or a dangling link): created as '>' would */
	if (S_ISDIR(st->st_mode))
		return GD_OUT_DIR;
	return S_ISREG(st->st_mode) ? GD_OUT_FILE : GD_OUT_SPECIAL;
}

int gd_tmp_create(const char *target, const struct stat *old, char *tmp, size_t n)
{
	int fd;
	if (snprintf(tmp, n, "%s.tmp.%ld", target, (long)getpid()) >= (int)n)
		return errno = ENAMETOOLONG, -1;
	/* O_EXCL: never write through a file or link someone else put at the temporary name */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0 && errno == EEXIST && unlink(tmp) == 0) /* left by a killed run of this pid */
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0)
		return -1;
	if (old) {
		/* as in gd_atomic_open: a 0600 file stays private; neither step is fatal */
		if (fchmod(fd, old->st_mode & 07777) != 0) {
		}
		if (geteuid() == 0 && fchown(fd, old->st_uid, old->st_gid) != 0) {
		}
	}
	return fd;
}

int gd_same_file(const char *out, const char *in)
{
	struct stat so, si;
	if (!out || !in || !strcmp(out, "-") || stat(out, &so) != 0 || stat(in, &si) != 0)
		return 0;
	return so.st_dev == si.st_dev && so.st_ino == si.st_ino;
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
	return gd_cache_dir_name(buf, n) ? -1 : mkdir_p(buf);
}

int gd_cache_dir_name(char *buf, size_t n)
{
	const char *x = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int w;
	/* The XDG base-directory spec: a relative XDG_CACHE_HOME is invalid and ignored (it would
	 * create a cache folder wherever the command happens to run). */
	if (x && x[0] == '/')
		w = snprintf(buf, n, "%s/gpudiag", x);
	else if (home && home[0] == '/')
		w = snprintf(buf, n, "%s/.cache/gpudiag", home);
	else
		return -1;
	return w < 0 || (size_t)w >= n ? -1 : 0;
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
