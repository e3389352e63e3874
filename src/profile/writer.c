/* Raw files + parent facts → the profile database. See profile.h and docs/profile-schema.md.
 *
 * The raw files are mapped read-only and walked record by record; every record's size is
 * checked against the file and against the struct of its type before a field is read, so a
 * truncated file (a killed process) keeps what was complete and a corrupt one stops with a
 * message naming the offset. Strings are interned across all files (local id → global id). */
#include "profile/writer.h"

#include "core/fileio.h"
#include "core/status.h"
#include "profile/columns.h"
#include "profile/kc_metrics.h"
#include "profile/profile.h"
#include "profile/raw.h"
#include "profile/schema.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* libstdc++'s demangler (abi::__cxa_demangle): present because every gpudiag binary is linked
 * by nvcc, which links the C++ runtime. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *n, int *status);

/* Global strings: open addressing on (hash, text). */
struct gstr {
	uint64_t hash;
	char *s;
	size_t len;
	int64_t id;
};

struct gd_pw {
	sqlite3 *db;
	char path[4096], tmp[4200];
	sqlite3_stmt *st[GD_T_COUNT]; /* one INSERT per table of columns.h */
	struct gstr *tab;
	size_t cap, count;
	int64_t next_id;
	char **byid;          /* global string id → text (owned by tab) */
	size_t byid_cap;
	int64_t *names;       /* name id → (demangled id, short id) pairs */
	size_t names_cap;
	const char *late_sql; /* the schema's indexes and views, run by gd_pw_close */
	int64_t *rejected;    /* string ids of the metric names some process's GPU refused */
	size_t nrejected, cap_rejected;
};

static int db_err(struct gd_pw *w, const char *what)
{
	return gd_error(GD_EFAIL, "profile '%s': %s: %s", w->path, what, sqlite3_errmsg(w->db));
}

static int exec(struct gd_pw *w, const char *sql)
{
	char *msg = NULL;
	if (sqlite3_exec(w->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		gd_error(GD_EFAIL, "profile '%s': %s", w->path, msg ? msg : "sqlite error");
		sqlite3_free(msg);
		return GD_EFAIL;
	}
	return GD_OK;
}

int gd_pw_open(struct gd_pw **out, const char *path)
{
	struct gd_pw *w = calloc(1, sizeof(*w));
	char v[16];
	*out = NULL;
	if (!w)
		return gd_error(GD_EFAIL, "out of memory");
	/* The output rules of core/fileio.h: a link's target is replaced and the link kept, an
	 * existing file's mode carries over, a directory is refused; so is a FIFO or a device,
	 * since SQLite needs a file it can seek in and rename could not put one there. */
	{
		struct stat st;
		int kind = gd_out_target(path, w->path, sizeof(w->path), &st), fd;
		const char *why = kind < 0 ? strerror(errno)
				: kind == GD_OUT_DIR ? "it is a directory"
				: kind == GD_OUT_SPECIAL ? "not a regular file (a SQLite profile cannot be written to a FIFO or a device)"
				: NULL;
		if (why) {
			gd_error(GD_EFAIL, "cannot write '%s': %s", path, why);
			free(w);
			return GD_EFAIL;
		}
		fd = gd_tmp_create(w->path, kind == GD_OUT_FILE ? &st : NULL, w->tmp, sizeof(w->tmp));
		if (fd < 0) {
			gd_error(GD_EFAIL, "cannot write '%s': %s", path, strerror(errno));
			free(w);
			return GD_EFAIL;
		}
		close(fd); /* SQLite opens it again; an empty file is an empty database */
	}
	if (sqlite3_open_v2(w->tmp, &w->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		gd_error(GD_EFAIL, "cannot write '%s': %s", path, w->db ? sqlite3_errmsg(w->db) : "sqlite");
		sqlite3_close(w->db);
		unlink(w->tmp);
		free(w);
		return GD_EFAIL;
	}
	/* The file becomes visible only by rename, so the journal buys nothing. */
	/* Tables first; the indexes and views (everything from the first CREATE INDEX on) are
	 * built at the end, which is several times faster than maintaining them per insert. */
	{
		const char *idx = strstr(gd_profile_schema_sql, "CREATE INDEX");
		size_t n = idx ? (size_t)(idx - gd_profile_schema_sql) : strlen(gd_profile_schema_sql);
		char *tables = malloc(n + 1);
		int bad;
		if (!tables)
			goto fail;
		memcpy(tables, gd_profile_schema_sql, n);
		tables[n] = 0;
		w->late_sql = idx;
		bad = exec(w, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA page_size=8192; "
			      "PRAGMA cache_size=-65536; PRAGMA temp_store=MEMORY;") ||
		      exec(w, tables) || exec(w, "BEGIN");
		free(tables);
		if (bad)
			goto fail;
	}
	for (int i = 0; i < GD_T_COUNT; i++) {
		char sql[2048];
		if (gd_table_insert_sql(&gd_tables[i], sql, sizeof(sql)) < 0 ||
		    sqlite3_prepare_v2(w->db, sql, -1, &w->st[i], NULL) != SQLITE_OK) {
			db_err(w, "prepare");
			goto fail;
		}
	}
	w->next_id = 1;
	snprintf(v, sizeof(v), "%d", GD_PROFILE_SCHEMA_VERSION);
	if (gd_pw_meta(w, "schema_version", v) || gd_pw_meta(w, "clock", "CLOCK_REALTIME") ||
	    gd_pw_meta(w, "time_unit", "ns") || gd_pw_meta(w, "gpudiag_version", GPUDIAG_VERSION))
		goto fail;
	*out = w;
	return GD_OK;
fail:
	gd_pw_close(w, 0);
	return GD_EFAIL;
}

int gd_pw_meta(struct gd_pw *w, const char *key, const char *value)
{
	sqlite3_stmt *s;
	int rc;
	if (sqlite3_prepare_v2(w->db, "INSERT OR REPLACE INTO meta(key,value) VALUES(?,?)", -1, &s, NULL))
		return db_err(w, "meta");
	sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
	if (value)
		sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, "meta");
}

int gd_pw_sql(struct gd_pw *w, const char *sql) { return exec(w, sql); }

int gd_pw_meta_int(struct gd_pw *w, const char *key, long long value)
{
	char v[32];
	snprintf(v, sizeof(v), "%lld", value);
	return gd_pw_meta(w, key, v);
}

/* ---- binding: one value per declared column (columns.h), bound in the declaration's order */

enum { BV_NULL, BV_INT, BV_REAL, BV_TEXT };
struct bval {
	int how;
	long long i;
	double d;
	const char *s;
	int n; /* text length, -1 = NUL-terminated */
};

/* The write conversions of columns.h. */
#define V(x) {BV_INT, (long long)(x), 0, NULL, 0}
#define TS(x) {(x) != 0 ? BV_INT : BV_NULL, (long long)(x), 0, NULL, 0} /* CUPTI writes 0 for a timestamp it could not take */
#define SID(x) {(x) > 0 ? BV_INT : BV_NULL, (long long)(x), 0, NULL, 0}
#define NZ(x) {(x) != 0 ? BV_INT : BV_NULL, (long long)(x), 0, NULL, 0}
#define NN(x) {(x) >= 0 ? BV_INT : BV_NULL, (long long)(x), 0, NULL, 0}
#define OPT(x, known) {(known) ? BV_INT : BV_NULL, (long long)(x), 0, NULL, 0}
#define DBL(x, known) {(known) ? BV_REAL : BV_NULL, 0, (x), NULL, 0}
#define TXT(p) {(p) ? BV_TEXT : BV_NULL, 0, 0, (p), -1}
#define TXTZ(p) {(p)[0] ? BV_TEXT : BV_NULL, 0, 0, (p), -1}
#define TXTN(p, len) {BV_TEXT, 0, 0, (p), (int)(len)}
#define NUL {BV_NULL, 0, 0, NULL, 0}
#define BVAL(col, type, write, read, field, dflt) write,
#define ROW(list) const struct bval v_[] = {list(BVAL)}
#define NCOLS (int)(sizeof(v_) / sizeof(v_[0]))

static void bind_row(sqlite3_stmt *s, const struct bval *v, int n)
{
	for (int i = 0; i < n; i++)
		switch (v[i].how) {
		case BV_INT: sqlite3_bind_int64(s, i + 1, v[i].i); break;
		case BV_REAL: sqlite3_bind_double(s, i + 1, v[i].d); break;
		case BV_TEXT: sqlite3_bind_text(s, i + 1, v[i].s, v[i].n, SQLITE_TRANSIENT); break;
		default: break; /* cleared to NULL by the previous step */
		}
}

static void bi(sqlite3_stmt *s, int i, long long v) { sqlite3_bind_int64(s, i, v); }
static void bi_opt(sqlite3_stmt *s, int i, long long v, int known)
{
	if (known)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}

/* Runs a bound INSERT and readies it for the next row; `what` names it in the error. */
static int step_as(struct gd_pw *w, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, what);
}

static int step(struct gd_pw *w, sqlite3_stmt *s) { return step_as(w, s, "insert"); }

/* Binds one row of table `t` and inserts it. */
static int insert(struct gd_pw *w, int t, const struct bval *v, int n)
{
	bind_row(w->st[t], v, n);
	return step(w, w->st[t]);
}
#define INSERT(w, t, row) insert(w, t, row, NCOLS)

/* ---- strings */

static uint64_t hash_bytes(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h | 1;
}

/* Global id of the n bytes at s (inserted the first time); 0 on error. */
static int64_t gstring(struct gd_pw *w, const char *s, size_t n)
{
	uint64_t h;
	size_t j;
	if ((w->count + 1) * 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 4096;
		struct gstr *t = calloc(cap, sizeof(*t));
		if (!t)
			return 0;
		for (size_t i = 0; i < w->cap; i++) {
			if (!w->tab[i].hash)
				continue;
			for (j = w->tab[i].hash & (cap - 1); t[j].hash; j = (j + 1) & (cap - 1))
				;
			t[j] = w->tab[i];
		}
		free(w->tab);
		w->tab = t;
		w->cap = cap;
	}
	h = hash_bytes(s, n);
	for (j = h & (w->cap - 1); w->tab[j].hash; j = (j + 1) & (w->cap - 1))
		if (w->tab[j].hash == h && w->tab[j].len == n && !memcmp(w->tab[j].s, s, n))
			return w->tab[j].id;
	w->tab[j].s = malloc(n + 1);
	if (!w->tab[j].s)
		return 0;
	memcpy(w->tab[j].s, s, n);
	w->tab[j].s[n] = 0;
	w->tab[j].len = n;
	w->tab[j].hash = h;
	w->tab[j].id = w->next_id++;
	w->count++;
	if ((size_t)w->tab[j].id >= w->byid_cap) {
		size_t cap = w->byid_cap ? w->byid_cap * 2 : 4096;
		char **b = realloc(w->byid, cap * sizeof(*b));
		if (!b)
			return 0;
		w->byid = b;
		w->byid_cap = cap;
	}
	w->byid[w->tab[j].id] = w->tab[j].s;
	{
		const char *r = s;
		int64_t id = w->tab[j].id;
		ROW(GD_STRINGS_COLUMNS);
		if (INSERT(w, GD_T_STRINGS, v_))
			return 0;
		return id;
	}
}

static int64_t gstr0(struct gd_pw *w, const char *s) { return s ? gstring(w, s, strlen(s)) : 0; }

/* ---- kernel names */

/* Index of the bracket that opens the one closing at s[end], scanning back; -1 if none. */
static long match_back(const char *s, long end)
{
	int depth = 0;
	for (long i = end; i >= 0; i--) {
		char c = s[i];
		if (c == ')' || c == '>' || c == ']')
			depth++;
		else if (c == '(' || c == '<' || c == '[')
			if (--depth == 0)
				return i;
	}
	return -1;
}

void gd_kernel_names(const char *name, char *full, size_t fn, char *shrt, size_t sn)
{
	char *dem = NULL;
	int status = -1;
	long len, i, start;
	int depth = 0;
	if (!name)
		name = "";
	if (name[0] == '_' && name[1] == 'Z')
		dem = __cxa_demangle(name, NULL, NULL, &status);
	snprintf(full, fn, "%s", dem && !status ? dem : name);
	free(dem);
	len = (long)strlen(full);
	/* Copy to work on: drop " const" and the call's argument list, then template args. */
	{
		char *t = malloc((size_t)len + 1);
		if (!t) {
			snprintf(shrt, sn, "%s", full);
			return;
		}
		memcpy(t, full, (size_t)len + 1);
		while (len > 0 && t[len - 1] == ' ')
			t[--len] = 0;
		if (len > 0 && t[len - 1] == ')') {
			long p = match_back(t, len - 1);
			if (p > 0)
				t[len = p] = 0;
		}
		while (len > 0 && t[len - 1] == '>' && strncmp(t + (len >= 9 ? len - 9 : 0), "operator>", 9)) {
			long p = match_back(t, len - 1);
			if (p <= 0)
				break;
			t[len = p] = 0;
		}
		/* The name starts after the last space or "::" outside brackets (return type,
		 * namespaces, classes). */
		start = 0;
		for (i = 0; i < len; i++) {
			char c = t[i];
			if (c == '(' || c == '<' || c == '[')
				depth++;
			else if ((c == ')' || c == '>' || c == ']') && depth > 0)
				depth--;
			else if (!depth && c == ' ')
				start = i + 1;
			else if (!depth && c == ':' && t[i + 1] == ':')
				start = i + 2;
		}
		snprintf(shrt, sn, "%s", start < len ? t + start : t);
		if (!shrt[0])
			snprintf(shrt, sn, "%s", full);
		free(t);
	}
}

/* ---- parent facts */

/* devices.max_warps_per_sm, which the driver does not report directly; -1 unknown. */
static int warps_per_sm(const struct gd_pw_device *d)
{
	return d->max_threads_per_sm > 0 && d->warp_size > 0 ? d->max_threads_per_sm / d->warp_size : -1;
}

int gd_pw_device(struct gd_pw *w, const struct gd_pw_device *r)
{
	ROW(GD_DEVICES_COLUMNS);
	bind_row(w->st[GD_T_DEVICES], v_, NCOLS);
	return step_as(w, w->st[GD_T_DEVICES], "devices");
}

int gd_pw_nvml(struct gd_pw *w, int device, const struct gd_nvml_sample *r)
{
	ROW(GD_NVML_COLUMNS);
	return INSERT(w, GD_T_NVML, v_);
}

int gd_pw_ceilings(struct gd_pw *w, int device, const struct gd_pceilings *r)
{
	ROW(GD_CEILINGS_COLUMNS);
	return INSERT(w, GD_T_CEILINGS, v_);
}

/* ---- GPU metrics (pm_metrics.h) */

int gd_pw_pm(struct gd_pw *w, const struct gd_pm_sample *r)
{
	ROW(GD_GPU_METRICS_COLUMNS);
	return INSERT(w, GD_T_GPU_METRICS, v_);
}

/* The attribution of samples to kernels (gd_pw_kernel_metrics), per device:
 *
 * 1. The device's kernels cut time into segments in which the set of running kernels does
 *    not change; each segment is idle, "single" (every kernel running has one name) or
 *    "mixed" (two names or more).
 * 2. For a sample [a, b) of length L and a name N, N's instances cover cover_N (the union of
 *    N's intervals, from N's merged intervals) and the other kernels cover
 *    single time of other names + mixed time (a mixed segment always runs another name).
 * 3. Where N is attributed its single time is at least 0.9 L - 0.1 L = 0.8 L, a strict
 *    majority of the window, so the one candidate is the weighted majority label of the
 *    segments in [a, b), found by a segment tree of Boyer-Moore (label, weight) pairs.
 * Every quantity is a difference of two lookups in sorted interval lists with the length
 * before each interval: O(log) per sample, O((kernels + samples) log) in all, whatever the
 * kernels' lengths or the samples' overlap. */

struct pm_kern {
	int64_t start, end, name;
	int device;
	int idx; /* dense index of name within the device */
};

/* Disjoint intervals sorted by start in slices [off[i], off[i + 1]), with the covered length
 * before each interval within its slice. */
struct ivlist {
	int64_t *s, *e, *before;
	long n, cap;
	long *off; /* NULL: one slice, all of it */
};

enum { PM_IDLE = -1, PM_MIXED = -2 };

struct bm {
	int label;
	int64_t w;
};

struct pm_dev {
	int nnames;
	int64_t *names;            /* dense index → string id */
	int64_t *seg_s, *seg_e;    /* segments in time order, contiguous */
	int *seg_c;                /* PM_IDLE, PM_MIXED or the one name's index */
	long nseg;
	struct ivlist single, mixed, name_single, name_union;
	struct bm *tree;           /* segment tree over the segments: leaf i at tsize + i */
	long tsize;
	long *nsamp;               /* per name: samples attributed */
	double *sum;               /* per name × quantity: sum of the non-NULL values */
	long *cnt;                 /*   and how many there were */
};

static int iv_add(struct ivlist *l, int64_t s, int64_t e, int64_t before)
{
	if (l->n == l->cap) {
		long cap = l->cap ? l->cap * 2 : 1024;
		int64_t *ns = realloc(l->s, (size_t)cap * sizeof(*ns));
		if (!ns)
			return -1;
		l->s = ns;
		ns = realloc(l->e, (size_t)cap * sizeof(*ns));
		if (!ns)
			return -1;
		l->e = ns;
		ns = realloc(l->before, (size_t)cap * sizeof(*ns));
		if (!ns)
			return -1;
		l->before = ns;
		l->cap = cap;
	}
	l->s[l->n] = s, l->e[l->n] = e, l->before[l->n] = before;
	l->n++;
	return 0;
}

static void iv_free(struct ivlist *l)
{
	free(l->s);
	free(l->e);
	free(l->before);
	free(l->off);
}

/* The first index i in [lo, hi) of the ascending v with v[i] >= t (hi when none). */
static long first_at_least(const int64_t *v, long lo, long hi, int64_t t)
{
	while (lo < hi) {
		long m = lo + (hi - lo) / 2;
		if (v[m] < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Length of slice [lo, hi) of l below t. */
static int64_t iv_below(const struct ivlist *l, long lo, long hi, int64_t t)
{
	long a = first_at_least(l->s, lo, hi, t), j; /* first interval starting at or after t */
	if (a == lo)
		return 0;
	j = a - 1;
	return l->before[j] + (t < l->e[j] ? t : l->e[j]) - l->s[j];
}

/* Length of [a, b) that slice i of l (or all of l) covers. */
static int64_t iv_cover(const struct ivlist *l, int slice, int64_t a, int64_t b)
{
	long lo = l->off ? l->off[slice] : 0, hi = l->off ? l->off[slice + 1] : l->n;
	return iv_below(l, lo, hi, b) - iv_below(l, lo, hi, a);
}

static struct bm bm_merge(struct bm x, struct bm y)
{
	struct bm r;
	if (x.label == y.label) {
		r.label = x.label, r.w = x.w + y.w;
	} else if (x.w >= y.w) {
		r.label = x.label, r.w = x.w - y.w;
	} else {
		r.label = y.label, r.w = y.w - x.w;
	}
	return r;
}

/* The Boyer-Moore pair of segments [l, r] (inclusive). */
static struct bm bm_query(const struct pm_dev *d, long l, long r)
{
	struct bm acc = {PM_IDLE, 0};
	for (l += d->tsize, r += d->tsize + 1; l < r; l /= 2, r /= 2) {
		if (l & 1)
			acc = bm_merge(acc, d->tree[l++]);
		if (r & 1)
			acc = bm_merge(acc, d->tree[--r]);
	}
	return acc;
}

static void pm_dev_free(struct pm_dev *d)
{
	free(d->names);
	free(d->seg_s);
	free(d->seg_e);
	free(d->seg_c);
	iv_free(&d->single);
	iv_free(&d->mixed);
	iv_free(&d->name_single);
	iv_free(&d->name_union);
	free(d->tree);
	free(d->nsamp);
	free(d->sum);
	free(d->cnt);
	memset(d, 0, sizeof(*d));
}

static int cmp_i64(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	return *a < *b ? -1 : *a > *b;
}

static int cmp_pm_kern(const void *x, const void *y)
{
	const struct pm_kern *a = x, *b = y;
	if (a->device != b->device)
		return a->device < b->device ? -1 : 1;
	return a->start < b->start ? -1 : a->start > b->start;
}

struct pm_ev {
	int64_t t;
	int idx, delta;
};

static int cmp_pm_ev(const void *x, const void *y)
{
	const struct pm_ev *a = x, *b = y;
	return a->t < b->t ? -1 : a->t > b->t;
}

/* Builds the per-name slices of `out` from intervals (s, e) with name index c[], given in
 * time order: a stable counting sort by name, then each name's overlapping intervals merged. */
static int name_slices(struct ivlist *out, int nnames, long n, const int64_t *s, const int64_t *e, const int *c)
{
	long *pos = calloc((size_t)nnames + 1, sizeof(*pos)), *ord = malloc((size_t)(n ? n : 1) * sizeof(*ord));
	int rc = -1;
	out->off = calloc((size_t)nnames + 1, sizeof(*out->off));
	if (!pos || !ord || !out->off)
		goto out;
	for (long i = 0; i < n; i++)
		pos[c[i] + 1]++;
	for (int i = 0; i < nnames; i++)
		pos[i + 1] += pos[i];
	for (long i = 0; i < n; i++)
		ord[pos[c[i]]++] = i;
	for (long i = 0, k = 0; i < nnames; i++) { /* pos[i] is now the end of name i */
		int64_t before = 0;
		out->off[i] = out->n;
		for (; k < pos[i]; k++) {
			long j = ord[k];
			if (out->n > out->off[i] && s[j] <= out->e[out->n - 1]) {
				if (e[j] > out->e[out->n - 1]) {
					before += e[j] - out->e[out->n - 1];
					out->e[out->n - 1] = e[j];
				}
				continue;
			}
			if (iv_add(out, s[j], e[j], before))
				goto out;
			before += e[j] - s[j];
		}
	}
	out->off[nnames] = out->n;
	rc = 0;
out:
	free(pos);
	free(ord);
	return rc;
}

/* The segments, interval lists and tree of one device's kernels k[0..n) (sorted by start). */
static int pm_dev_build(struct pm_dev *d, struct pm_kern *k, long n)
{
	struct pm_ev *ev = malloc((size_t)(2 * n) * sizeof(*ev));
	int *cnt = NULL, *kc = NULL;
	int64_t *ks = NULL, *ke = NULL;
	long nev = 0, nd = 0, u = 0;
	int64_t namesum = 0, before_single = 0, before_mixed = 0;
	int rc = -1;
	memset(d, 0, sizeof(*d));
	d->names = malloc((size_t)n * sizeof(*d->names));
	d->seg_s = malloc((size_t)(2 * n) * sizeof(*d->seg_s));
	d->seg_e = malloc((size_t)(2 * n) * sizeof(*d->seg_e));
	d->seg_c = malloc((size_t)(2 * n) * sizeof(*d->seg_c));
	ks = malloc((size_t)n * sizeof(*ks));
	ke = malloc((size_t)n * sizeof(*ke));
	kc = malloc((size_t)n * sizeof(*kc));
	if (!ev || !d->names || !d->seg_s || !d->seg_e || !d->seg_c || !ks || !ke || !kc)
		goto out;
	/* dense name indexes */
	for (long i = 0; i < n; i++)
		d->names[i] = k[i].name;
	qsort(d->names, (size_t)n, sizeof(*d->names), cmp_i64);
	for (long i = 0; i < n; i++)
		if (!u || d->names[i] != d->names[u - 1])
			d->names[u++] = d->names[i];
	d->nnames = (int)u;
	for (long i = 0; i < n; i++) {
		const int64_t *f = bsearch(&k[i].name, d->names, (size_t)u, sizeof(*d->names), cmp_i64);
		k[i].idx = (int)(f - d->names);
		ks[i] = k[i].start, ke[i] = k[i].end, kc[i] = k[i].idx;
		ev[nev++] = (struct pm_ev){k[i].start, k[i].idx, 1};
		ev[nev++] = (struct pm_ev){k[i].end, k[i].idx, -1};
	}
	if (name_slices(&d->name_union, d->nnames, n, ks, ke, kc))
		goto out;
	/* sweep: which names run between consecutive event times */
	qsort(ev, (size_t)nev, sizeof(*ev), cmp_pm_ev);
	cnt = calloc((size_t)u, sizeof(*cnt));
	if (!cnt)
		goto out;
	for (long i = 0; i < nev;) {
		int64_t t = ev[i].t;
		int c;
		for (; i < nev && ev[i].t == t; i++) {
			int x = ev[i].idx;
			if (ev[i].delta > 0 && cnt[x]++ == 0)
				nd++, namesum += x;
			else if (ev[i].delta < 0 && --cnt[x] == 0)
				nd--, namesum -= x;
		}
		if (i == nev)
			break;
		c = nd == 0 ? PM_IDLE : nd == 1 ? (int)namesum : PM_MIXED;
		if (d->nseg && d->seg_c[d->nseg - 1] == c) {
			d->seg_e[d->nseg - 1] = ev[i].t;
		} else {
			d->seg_s[d->nseg] = t, d->seg_e[d->nseg] = ev[i].t, d->seg_c[d->nseg] = c;
			d->nseg++;
		}
	}
	for (long i = 0; i < d->nseg; i++) {
		int64_t len = d->seg_e[i] - d->seg_s[i];
		if (d->seg_c[i] >= 0) {
			if (iv_add(&d->single, d->seg_s[i], d->seg_e[i], before_single))
				goto out;
			before_single += len;
		} else if (d->seg_c[i] == PM_MIXED) {
			if (iv_add(&d->mixed, d->seg_s[i], d->seg_e[i], before_mixed))
				goto out;
			before_mixed += len;
		}
	}
	/* single segments per name (the same intervals, sliced by name) */
	{
		long m = d->single.n, j = 0;
		int *sc = malloc((size_t)(m ? m : 1) * sizeof(*sc));
		if (!sc)
			goto out;
		for (long i = 0; i < d->nseg; i++)
			if (d->seg_c[i] >= 0)
				sc[j++] = d->seg_c[i];
		rc = name_slices(&d->name_single, d->nnames, m, d->single.s, d->single.e, sc);
		free(sc);
		if (rc)
			goto out;
		rc = -1;
	}
	/* leaves at [nseg, 2 nseg): the bottom-up tree needs no power of two, since any order of
	 * Boyer-Moore merges keeps a strict majority's label */
	d->tsize = d->nseg;
	d->tree = calloc((size_t)(2 * d->tsize), sizeof(*d->tree));
	d->nsamp = calloc((size_t)u, sizeof(*d->nsamp));
	d->sum = calloc((size_t)u * GD_PM_COUNT, sizeof(*d->sum));
	d->cnt = calloc((size_t)u * GD_PM_COUNT, sizeof(*d->cnt));
	if (!d->tree || !d->nsamp || !d->sum || !d->cnt)
		goto out;
	for (long i = 0; i < 2 * d->tsize; i++)
		d->tree[i].label = PM_IDLE;
	for (long i = 0; i < d->nseg; i++)
		d->tree[d->tsize + i] = (struct bm){d->seg_c[i], d->seg_e[i] - d->seg_s[i]};
	for (long i = d->tsize - 1; i >= 1; i--)
		d->tree[i] = bm_merge(d->tree[2 * i], d->tree[2 * i + 1]);
	rc = 0;
out:
	free(ev);
	free(cnt);
	free(ks);
	free(ke);
	free(kc);
	return rc;
}

/* The name index sample [a, b) is attributed to on this device, or -1 (pm_metrics.h). */
static int pm_attribute(const struct pm_dev *d, int64_t a, int64_t b)
{
	long lo = 0, hi = d->nseg, i0, i1;
	int64_t len = b - a, cover_n, cover_o, single_n;
	struct bm cand;
	int n;
	if (!d->nseg || len <= 0)
		return -1;
	i0 = first_at_least(d->seg_e, lo, hi, a + 1);          /* first segment ending after a */
	i1 = first_at_least(d->seg_s, i0, d->nseg, b) - 1;     /* last segment starting before b */
	if (i0 >= d->nseg || i1 < i0)
		return -1;
	/* the end segments count only their part inside [a, b) */
	cand = (struct bm){d->seg_c[i0], (d->seg_e[i0] < b ? d->seg_e[i0] : b) - (d->seg_s[i0] > a ? d->seg_s[i0] : a)};
	if (i1 > i0) {
		struct bm last = {d->seg_c[i1], (d->seg_e[i1] < b ? d->seg_e[i1] : b) - d->seg_s[i1]};
		if (i1 > i0 + 1)
			cand = bm_merge(cand, bm_query(d, i0 + 1, i1 - 1));
		cand = bm_merge(cand, last);
	}
	n = cand.label;
	if (n < 0)
		return -1;
	cover_n = iv_cover(&d->name_union, n, a, b);
	single_n = iv_cover(&d->name_single, n, a, b);
	cover_o = iv_cover(&d->single, 0, a, b) - single_n + iv_cover(&d->mixed, 0, a, b);
	if ((double)cover_n >= GD_PM_ATTRIB_COVER * (double)len &&
	    (double)cover_o <= (double)len - GD_PM_ATTRIB_COVER * (double)len)
		return n;
	return -1;
}

/* The DRAM peak of a device of the devices table (gd_pm_dram_peak_bps), NaN unknown. */
static double dev_dram_peak(struct gd_pw *w, int device)
{
	sqlite3_stmt *s;
	double peak = NAN;
	if (sqlite3_prepare_v2(w->db, "SELECT mem_clock_khz, mem_bus_width_bits FROM devices WHERE id = ?", -1, &s,
			       NULL))
		return NAN;
	sqlite3_bind_int(s, 1, device);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER &&
	    sqlite3_column_type(s, 1) == SQLITE_INTEGER) {
		sqlite3_int64 khz = sqlite3_column_int64(s, 0), bits = sqlite3_column_int64(s, 1);
		if (khz > 0 && khz < INT32_MAX && bits > 0 && bits < INT32_MAX)
			peak = gd_pm_dram_peak_bps((int)khz, (int)bits);
	}
	sqlite3_finalize(s);
	return peak;
}

/* Writes the kernel_metrics rows of one device; returns the rows written or -1. */
static long pm_dev_write(struct gd_pw *w, const struct pm_dev *d, int device)
{
	long rows = 0;
	const double peak = dev_dram_peak(w, device);
	for (int i = 0; i < d->nnames; i++) {
		struct gd_pm_kernel rec, *r = &rec;
		if (d->nsamp[i] < GD_PM_ATTRIB_MIN)
			continue;
		rec.device = device;
		rec.name = (int)d->names[i];
		rec.samples = d->nsamp[i];
		for (int m = 0; m < GD_PM_COUNT; m++) {
			long c = d->cnt[(size_t)i * GD_PM_COUNT + m];
			rec.v[m] = c ? d->sum[(size_t)i * GD_PM_COUNT + m] / (double)c : NAN;
		}
		rec.dram_bps = isfinite(rec.v[GD_PM_DRAM]) ? rec.v[GD_PM_DRAM] / 100.0 * peak : NAN;
		{
			ROW(GD_KERNEL_METRICS_COLUMNS);
			if (INSERT(w, GD_T_KERNEL_METRICS, v_))
				return -1;
		}
		rows++;
	}
	return rows;
}

/* The kernels with possible times and a name, sorted by (device, start). */
static long pm_kernels(struct gd_pw *w, struct pm_kern **out)
{
	sqlite3_stmt *s;
	struct pm_kern *k = NULL;
	long n = 0, cap = 0;
	int r;
	*out = NULL;
	if (sqlite3_prepare_v2(w->db,
			       "SELECT device, start, end, name FROM kernels WHERE device IS NOT NULL AND start IS NOT NULL "
			       "AND end IS NOT NULL AND name IS NOT NULL AND start >= 0 AND end > start AND end < ?",
			       -1, &s, NULL))
		return db_err(w, "kernel_metrics"), -1;
	bi(s, 1, INT64_C(1) << 62);
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		if (n == cap) {
			long nc = cap ? cap * 2 : 4096;
			struct pm_kern *nk = realloc(k, (size_t)nc * sizeof(*nk));
			if (!nk) {
				sqlite3_finalize(s);
				free(k);
				return gd_error(GD_EFAIL, "out of memory"), -1;
			}
			k = nk, cap = nc;
		}
		k[n].device = sqlite3_column_int(s, 0);
		k[n].start = sqlite3_column_int64(s, 1);
		k[n].end = sqlite3_column_int64(s, 2);
		k[n].name = sqlite3_column_int64(s, 3);
		k[n].idx = 0;
		n++;
	}
	sqlite3_finalize(s);
	if (r != SQLITE_DONE) {
		free(k);
		return db_err(w, "kernel_metrics"), -1;
	}
	if (n > 1)
		qsort(k, (size_t)n, sizeof(*k), cmp_pm_kern);
	*out = k;
	return n;
}

long gd_pw_kernel_metrics(struct gd_pw *w)
{
	struct pm_kern *k;
	struct pm_dev d;
	sqlite3_stmt *s;
	char sql[1024];
	long nk, kg = 0, rows = 0;
	int r, cur = 0, have = 0; /* have: d is built for device cur */
	if (exec(w, "DELETE FROM kernel_metrics"))
		return -1;
	nk = pm_kernels(w, &k);
	if (nk < 0)
		return -1;
	memset(&d, 0, sizeof(d));
	/* The samples, device by device (each device's kernels are one run of k), as the reader
	 * selects them: device, t_start, t_end, then quantity m in column 3 + m. */
	if (gd_table_select_sql(&gd_tables[GD_T_GPU_METRICS], sql, sizeof(sql)) < 0 ||
	    sqlite3_prepare_v2(w->db, sql, -1, &s, NULL)) {
		free(k);
		return db_err(w, "kernel_metrics"), -1;
	}
	while ((r = sqlite3_step(s)) == SQLITE_ROW) {
		int dev = sqlite3_column_int(s, 0), x;
		int64_t a = sqlite3_column_int64(s, 1), b = sqlite3_column_int64(s, 2);
		if (!have || dev != cur) {
			long kl;
			if (have) {
				long wr = pm_dev_write(w, &d, cur);
				pm_dev_free(&d);
				have = 0;
				if (wr < 0)
					goto fail;
				rows += wr;
			}
			cur = dev;
			while (kg < nk && k[kg].device < dev)
				kg++;
			for (kl = kg; kl < nk && k[kl].device == dev; kl++)
				;
			if (kl == kg)
				continue; /* no kernel ran on this device: nothing to attribute */
			if (pm_dev_build(&d, k + kg, kl - kg)) {
				pm_dev_free(&d);
				gd_error(GD_EFAIL, "out of memory");
				goto fail;
			}
			kg = kl;
			have = 1;
		}
		if (!have || a < 0 || b <= a || b >= INT64_C(1) << 62 || sqlite3_column_type(s, 1) == SQLITE_NULL ||
		    sqlite3_column_type(s, 2) == SQLITE_NULL)
			continue;
		if ((x = pm_attribute(&d, a, b)) < 0)
			continue;
		d.nsamp[x]++;
		for (int m = 0; m < GD_PM_COUNT; m++) {
			double v;
			if (sqlite3_column_type(s, 3 + m) == SQLITE_NULL)
				continue;
			v = sqlite3_column_double(s, 3 + m);
			if (!isfinite(v))
				continue;
			d.sum[(size_t)x * GD_PM_COUNT + m] += v;
			d.cnt[(size_t)x * GD_PM_COUNT + m]++;
		}
	}
	if (r != SQLITE_DONE) {
		db_err(w, "kernel_metrics");
		goto fail;
	}
	if (have) {
		long wr = pm_dev_write(w, &d, cur);
		if (wr < 0)
			goto fail;
		rows += wr;
	}
	pm_dev_free(&d);
	sqlite3_finalize(s);
	free(k);
	return rows;
fail:
	pm_dev_free(&d); /* idempotent: a freed device is zeroed */
	sqlite3_finalize(s);
	free(k);
	return -1;
}

/* ---- raw files */

struct nvtx_open {
	uint32_t id, tid, name, domain, flags;
	uint64_t start, end;
	int closed, has_data;
	uint32_t color, category;
	double payload;
	int has_payload;
};

struct rawctx {
	struct gd_pw *w;
	uint32_t pid;
	int64_t *smap;      /* local string id → global id */
	size_t smap_n;
	int64_t devmap[64]; /* process ordinal → devices.id; -1 = same number */
	struct nvtx_open *nv;
	size_t nv_n, nv_cap;
};

static int64_t lstr(struct rawctx *c, uint32_t id)
{
	return id && id < c->smap_n ? c->smap[id] : 0;
}

static long long dev(struct rawctx *c, uint32_t ordinal)
{
	return ordinal < 64 && c->devmap[ordinal] >= 0 ? c->devmap[ordinal] : (long long)ordinal;
}

static const char *status_name(uint32_t st)
{
	switch (st) {
	case GD_RAW_ST_OK: return "ok";
	case GD_RAW_ST_CUPTI_BUSY: return "cupti_busy";
	case GD_RAW_ST_CUPTI_VERSION: return "cupti_version";
	default: return "cupti_error";
	}
}

static struct nvtx_open *nv_find(struct rawctx *c, uint32_t id, int open_only)
{
	for (size_t i = c->nv_n; i-- > 0;)
		if (c->nv[i].id == id && (!open_only || !c->nv[i].closed))
			return &c->nv[i];
	return NULL;
}

/* The device record: map the process's ordinal to a devices row by UUID, adding a row when
 * the parent did not know the device. */
static int raw_device(struct rawctx *c, const struct gd_raw_device *d)
{
	struct gd_pw *w = c->w;
	char uuid[64];
	const uint8_t *u = d->uuid;
	sqlite3_stmt *s;
	long long id = -1;
	snprintf(uuid, sizeof(uuid), "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
		 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
	if (sqlite3_prepare_v2(w->db, "SELECT id FROM devices WHERE uuid=?", -1, &s, NULL))
		return db_err(w, "devices");
	sqlite3_bind_text(s, 1, uuid, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(s) == SQLITE_ROW)
		id = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	if (id < 0) {
		struct gd_pw_device nd;
		sqlite3_stmt *q;
		memset(&nd, 0xff, sizeof(nd)); /* every int field -1 = unknown */
		nd.id = (int)d->ordinal;
		if (!sqlite3_prepare_v2(w->db, "SELECT 1 FROM devices WHERE id=?", -1, &q, NULL)) {
			sqlite3_bind_int(q, 1, nd.id);
			if (sqlite3_step(q) == SQLITE_ROW) {
				sqlite3_finalize(q);
				if (sqlite3_prepare_v2(w->db, "SELECT COALESCE(MAX(id),-1)+1 FROM devices", -1, &q, NULL))
					return db_err(w, "devices");
				if (sqlite3_step(q) == SQLITE_ROW)
					nd.id = sqlite3_column_int(q, 0);
			}
			sqlite3_finalize(q);
		}
		snprintf(nd.uuid, sizeof(nd.uuid), "%s", uuid);
		nd.name[0] = nd.pci_bus_id[0] = 0;
		if (lstr(c, d->name))
			snprintf(nd.name, sizeof(nd.name), "%s", w->byid[lstr(c, d->name)]);
		nd.cc_major = (int)d->cc_major, nd.cc_minor = (int)d->cc_minor, nd.sm_count = (int)d->sm_count;
		nd.warp_size = (int)d->warp_size, nd.max_threads_per_block = (int)d->max_threads_per_block;
		nd.max_threads_per_sm = (int)(d->max_warps_per_sm * d->warp_size);
		nd.max_blocks_per_sm = (int)d->max_blocks_per_sm, nd.regs_per_sm = (int)d->regs_per_sm;
		nd.regs_per_block = (int)d->regs_per_block, nd.smem_per_sm = (int)d->smem_per_sm;
		nd.smem_per_block = (int)d->smem_per_block, nd.l2_bytes = d->l2_bytes;
		nd.global_mem_bytes = (long long)d->global_mem_bytes, nd.sm_clock_khz = (int)d->sm_clock_khz;
		nd.async_engines = (int)d->async_engines;
		if (gd_pw_device(w, &nd))
			return GD_EFAIL;
		id = nd.id;
	}
	{
		sqlite3_stmt *q;
		if (sqlite3_prepare_v2(w->db, "UPDATE devices SET mem_bandwidth_kbps=? WHERE id=? AND mem_bandwidth_kbps IS NULL",
				       -1, &q, NULL) == SQLITE_OK) {
			bi(q, 1, (long long)d->mem_bandwidth_kbps);
			bi(q, 2, id);
			sqlite3_step(q);
			sqlite3_finalize(q);
		}
	}
	if (d->ordinal < 64)
		c->devmap[d->ordinal] = id;
	{
		const struct gd_raw_device *r = d;
		ROW(GD_PROCDEV_COLUMNS);
		return INSERT(w, GD_T_PROCDEV, v_);
	}
}

/* The demangled and short name ids of a kernel name id, computed once per distinct name. */
static int kernel_name_ids(struct gd_pw *w, int64_t name, int64_t *dem, int64_t *shrt)
{
	*dem = *shrt = 0;
	if (name <= 0 || name >= w->next_id)
		return GD_OK;
	if ((size_t)name >= w->names_cap) {
		size_t cap = w->names_cap ? w->names_cap : 1024;
		int64_t *d;
		while (cap <= (size_t)name)
			cap *= 2;
		d = realloc(w->names, cap * 2 * sizeof(*d));
		if (!d)
			return GD_OK;
		memset(d + w->names_cap * 2, 0, (cap - w->names_cap) * 2 * sizeof(*d));
		w->names = d;
		w->names_cap = cap;
	}
	if (!w->names[name * 2]) {
		const char *text = w->byid[name];
		size_t n = strlen(text) * 2 + 64;
		char *full = malloc(n), *sh = malloc(n);
		if (full && sh) {
			gd_kernel_names(text, full, n, sh, n);
			w->names[name * 2] = gstr0(w, full);
			w->names[name * 2 + 1] = gstr0(w, sh);
		}
		free(full);
		free(sh);
	}
	*dem = w->names[name * 2];
	*shrt = w->names[name * 2 + 1];
	return GD_OK;
}

static int raw_kernel(struct rawctx *c, const struct gd_raw_kernel *r)
{
	int64_t name = lstr(c, r->name), dem, shrt;
	kernel_name_ids(c->w, name, &dem, &shrt);
	{
		ROW(GD_KERNELS_COLUMNS);
		return INSERT(c->w, GD_T_KERNELS, v_);
	}
}

static int raw_memcpy(struct rawctx *c, const struct gd_raw_memcpy *r)
{
	ROW(GD_MEMCPY_COLUMNS);
	return INSERT(c->w, GD_T_MEMCPY, v_);
}

static int raw_memset(struct rawctx *c, const struct gd_raw_memset *r)
{
	ROW(GD_MEMSET_COLUMNS);
	return INSERT(c->w, GD_T_MEMSET, v_);
}

static int raw_api(struct rawctx *c, const struct gd_raw_api *r)
{
	ROW(GD_API_COLUMNS);
	return INSERT(c->w, GD_T_API, v_);
}

static int raw_sync(struct rawctx *c, const struct gd_raw_sync *r)
{
	ROW(GD_SYNC_COLUMNS);
	return INSERT(c->w, GD_T_SYNC, v_);
}

static int raw_memory(struct rawctx *c, const struct gd_raw_memory *r)
{
	ROW(GD_MEMORY_COLUMNS);
	return INSERT(c->w, GD_T_MEMORY, v_);
}

static int raw_overhead(struct rawctx *c, const struct gd_raw_overhead *r)
{
	ROW(GD_OVERHEAD_COLUMNS);
	return INSERT(c->w, GD_T_OVERHEAD, v_);
}

static int raw_context(struct rawctx *c, const struct gd_raw_context *r)
{
	ROW(GD_CONTEXTS_COLUMNS);
	return INSERT(c->w, GD_T_CONTEXTS, v_);
}

static int raw_stream(struct rawctx *c, const struct gd_raw_stream *r)
{
	ROW(GD_STREAMS_COLUMNS);
	return INSERT(c->w, GD_T_STREAMS, v_);
}

static int raw_dropped(struct rawctx *c, const struct gd_raw_dropped *r)
{
	ROW(GD_DROPPED_COLUMNS);
	return INSERT(c->w, GD_T_DROPPED, v_);
}

/* One value of launch k; a value of no name says nothing and is left out. */
static int raw_kvalue(struct rawctx *c, const struct gd_raw_klaunch *k, const struct gd_raw_kvalue *r)
{
	if (!lstr(c, r->metric))
		return GD_OK;
	{
		ROW(GD_METRIC_VALUES_COLUMNS);
		return INSERT(c->w, GD_T_METRIC_VALUES, v_);
	}
}

/* A launch the range profiler was asked about, and its values (kc_metrics.h). The record's
 * size was checked against its nvalues by the caller. */
static int raw_klaunch(struct rawctx *c, const struct gd_raw_klaunch *r)
{
	const unsigned char *val = (const unsigned char *)(r + 1);
	int64_t did = lstr(c, r->detail);
	const char *detail = did ? c->w->byid[did] : NULL;
	/* a status this gpudiag does not know is an error of the capture, said as such */
	const char *status = r->status < GD_KL_STATUS_COUNT ? gd_kl_status_names[r->status]
							     : gd_kl_status_names[GD_KL_ERROR];
	/* how it was replayed, for the launches that were (a file before the flags says 0:
	 * kernel replay, no flush, which is what every launch of those was) */
	const char *replay = r->status != GD_KL_OK && r->status != GD_KL_ERROR ? NULL
			     : r->flags & GD_KL_F_USER			   ? "user"
										   : "kernel";
	{
		ROW(GD_METRIC_LAUNCHES_COLUMNS);
		if (INSERT(c->w, GD_T_METRIC_LAUNCHES, v_))
			return GD_EFAIL;
	}
	for (uint32_t i = 0; i < r->nvalues; i++) {
		struct gd_raw_kvalue x;
		memcpy(&x, val + (size_t)i * sizeof(x), sizeof(x));
		if (raw_kvalue(c, r, &x))
			return GD_EFAIL;
	}
	return GD_OK;
}

/* A metric name a process's GPU refused: kept once across every raw file, for
 * meta.metrics_rejected (written by gd_pw_close). */
static int raw_kreject(struct rawctx *c, const struct gd_raw_kreject *r)
{
	struct gd_pw *w = c->w;
	int64_t id = lstr(c, r->metric);
	if (!id)
		return GD_OK;
	for (size_t i = 0; i < w->nrejected; i++)
		if (w->rejected[i] == id)
			return GD_OK;
	if (w->nrejected == w->cap_rejected) {
		size_t cap = w->cap_rejected ? w->cap_rejected * 2 : 16;
		int64_t *n = realloc(w->rejected, cap * sizeof(*n));
		if (!n)
			return gd_error(GD_EFAIL, "out of memory");
		w->rejected = n;
		w->cap_rejected = cap;
	}
	w->rejected[w->nrejected++] = id;
	return GD_OK;
}

static int raw_marker(struct rawctx *c, const struct gd_raw_marker *m)
{
	struct nvtx_open *o;
	if (m->flags & 4) { /* END: close the open range with this id */
		o = nv_find(c, m->id, 1);
		if (!o) {
			/* No open range with this id: treat it as a pop of the innermost open
			 * push range of the same thread. */
			for (size_t i = c->nv_n; i-- > 0;)
				if (!c->nv[i].closed && c->nv[i].tid == m->tid) {
					o = &c->nv[i];
					break;
				}
		}
		if (o && !(o->flags & 1)) {
			o->end = m->timestamp;
			o->closed = 1;
		}
		return GD_OK;
	}
	if (c->nv_n == c->nv_cap) {
		size_t cap = c->nv_cap ? c->nv_cap * 2 : 256;
		struct nvtx_open *n = realloc(c->nv, cap * sizeof(*n));
		if (!n)
			return gd_error(GD_EFAIL, "out of memory");
		c->nv = n;
		c->nv_cap = cap;
	}
	o = &c->nv[c->nv_n++];
	memset(o, 0, sizeof(*o));
	o->id = m->id, o->tid = m->tid, o->name = m->name, o->domain = m->domain, o->flags = m->flags;
	o->start = m->timestamp;
	o->closed = (m->flags & 1) != 0; /* a mark is complete */
	return GD_OK;
}

static void raw_marker_data(struct rawctx *c, const struct gd_raw_marker_data *d)
{
	struct nvtx_open *o = nv_find(c, d->id, 0);
	if (!o)
		return;
	o->has_data = 1;
	o->color = d->color, o->category = d->category;
	o->has_payload = (int)d->has_payload, o->payload = d->payload;
}

static int nvtx_flush(struct rawctx *c)
{
	for (size_t i = 0; i < c->nv_n; i++) {
		const struct nvtx_open *r = &c->nv[i];
		int mark = (r->flags & 1) != 0;
		ROW(GD_NVTX_COLUMNS);
		if (INSERT(c->w, GD_T_NVTX, v_))
			return GD_EFAIL;
	}
	c->nv_n = 0;
	return GD_OK;
}

/* Minimum size of each record type: a record shorter than its struct is corrupt. */
static const uint32_t rec_min[GD_RAW_TYPE_MAX] = {
	[GD_RAW_STRING] = sizeof(struct gd_raw_string),     [GD_RAW_KERNEL] = sizeof(struct gd_raw_kernel),
	[GD_RAW_MEMCPY] = sizeof(struct gd_raw_memcpy),     [GD_RAW_MEMSET] = sizeof(struct gd_raw_memset),
	[GD_RAW_API] = sizeof(struct gd_raw_api),           [GD_RAW_SYNC] = sizeof(struct gd_raw_sync),
	[GD_RAW_MARKER] = sizeof(struct gd_raw_marker),     [GD_RAW_MARKER_DATA] = sizeof(struct gd_raw_marker_data),
	[GD_RAW_MEMORY] = sizeof(struct gd_raw_memory),     [GD_RAW_OVERHEAD] = sizeof(struct gd_raw_overhead),
	[GD_RAW_CONTEXT] = sizeof(struct gd_raw_context),   [GD_RAW_STREAM] = sizeof(struct gd_raw_stream),
	[GD_RAW_DEVICE] = sizeof(struct gd_raw_device),     [GD_RAW_DROPPED] = sizeof(struct gd_raw_dropped),
	[GD_RAW_PROCESS] = sizeof(struct gd_raw_process),   [GD_RAW_END] = sizeof(struct gd_raw_end),
	[GD_RAW_STATUS] = sizeof(struct gd_raw_status_rec), [GD_RAW_KLAUNCH] = sizeof(struct gd_raw_klaunch),
	[GD_RAW_KREJECT] = sizeof(struct gd_raw_kreject),
};

static int upsert_process(struct gd_pw *w, const struct gd_raw_header *r, const struct gd_raw_stats *st,
			  int64_t cmd_id, uint64_t start, uint64_t end, uint32_t ppid)
{
	const char *cmd = cmd_id > 0 && cmd_id < w->next_id ? w->byid[cmd_id] : NULL;
	ROW(GD_PROCESSES_COLUMNS);
	bind_row(w->st[GD_T_PROCESSES], v_, NCOLS);
	return step_as(w, w->st[GD_T_PROCESSES], "processes");
}

int gd_pw_add_raw(struct gd_pw *w, const char *raw_path, struct gd_raw_stats *st, char *err, size_t errn)
{
	struct rawctx c;
	struct gd_raw_header h;
	struct stat sb;
	const unsigned char *map = NULL;
	size_t len, off;
	int fd, rc = GD_OK;
	int64_t cmd = 0;
	uint64_t pstart = 0, pend = 0;
	uint32_t ppid = 0;

	memset(st, 0, sizeof(*st));
	memset(&c, 0, sizeof(c));
	err[0] = 0;
	fd = open(raw_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) < 0) {
		snprintf(err, errn, "cannot read '%s': %s", raw_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return GD_EDATA;
	}
	len = (size_t)sb.st_size;
	if (len < sizeof(h)) {
		close(fd);
		snprintf(err, errn, "'%s' is %s (%zu bytes, the header needs %zu)", raw_path,
			 len ? "truncated" : "empty", len, sizeof(h));
		return GD_EDATA;
	}
	map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		snprintf(err, errn, "cannot map '%s': %s", raw_path, strerror(errno));
		return GD_EDATA;
	}
	memcpy(&h, map, sizeof(h));
	if (memcmp(h.magic, GD_RAW_MAGIC, 8) || h.bom != GD_RAW_BOM) {
		snprintf(err, errn, "'%s' is not a gpudiag raw file (bad magic)", raw_path);
		rc = GD_EDATA;
		goto out;
	}
	if (h.version != GD_RAW_VERSION) {
		snprintf(err, errn, "'%s' has raw format version %u; this gpudiag reads version %d", raw_path,
			 h.version, GD_RAW_VERSION);
		rc = GD_EDATA;
		goto out;
	}
	c.w = w;
	c.pid = h.pid;
	st->pid = h.pid;
	st->status = h.status;
	for (int i = 0; i < 64; i++)
		c.devmap[i] = -1;

	for (off = sizeof(h); off < len && rc == GD_OK;) {
		struct gd_raw_rec r;
		const unsigned char *p = map + off;
		if (len - off < sizeof(r)) {
			st->truncated = 1;
			break;
		}
		memcpy(&r, p, sizeof(r));
		if (r.size < sizeof(r) || r.size % 8 || r.type == 0 ||
		    (r.type < GD_RAW_TYPE_MAX && r.size < rec_min[r.type])) {
			snprintf(err, errn, "'%s': corrupt record at offset %zu (type %u, size %u)", raw_path, off,
				 r.type, r.size);
			rc = GD_EDATA;
			break;
		}
		if (r.size > len - off) {
			st->truncated = 1;
			break;
		}
		st->records++;
		switch (r.type) {
		case GD_RAW_STRING: {
			const struct gd_raw_string *s = (const void *)p;
			/* The injection library numbers strings from 1, one record each, so an id
			 * beyond the number of string records the file could hold is corrupt (and
			 * would size the id map by an attacker's choice: 2^30 ids are 8 GiB). */
			if (s->len > r.size - sizeof(*s) || !s->id || s->id > (1u << 30) ||
			    s->id > len / sizeof(struct gd_raw_string)) {
				snprintf(err, errn, "'%s': corrupt string record at offset %zu", raw_path, off);
				rc = GD_EDATA;
				break;
			}
			if (s->id >= c.smap_n) {
				size_t n = c.smap_n ? c.smap_n : 256;
				int64_t *m;
				while (n <= s->id)
					n *= 2;
				m = realloc(c.smap, n * sizeof(*m));
				if (!m) {
					rc = gd_error(GD_EFAIL, "out of memory");
					break;
				}
				memset(m + c.smap_n, 0, (n - c.smap_n) * sizeof(*m));
				c.smap = m;
				c.smap_n = n;
			}
			c.smap[s->id] = gstring(w, (const char *)(s + 1), s->len);
			if (!c.smap[s->id])
				rc = GD_EFAIL;
			break;
		}
		case GD_RAW_KERNEL:
			st->kernels++;
			rc = raw_kernel(&c, (const void *)p);
			break;
		case GD_RAW_MEMCPY: rc = raw_memcpy(&c, (const void *)p); break;
		case GD_RAW_MEMSET: rc = raw_memset(&c, (const void *)p); break;
		case GD_RAW_API: rc = raw_api(&c, (const void *)p); break;
		case GD_RAW_SYNC: rc = raw_sync(&c, (const void *)p); break;
		case GD_RAW_MARKER: rc = raw_marker(&c, (const void *)p); break;
		case GD_RAW_MARKER_DATA: raw_marker_data(&c, (const void *)p); break;
		case GD_RAW_MEMORY: rc = raw_memory(&c, (const void *)p); break;
		case GD_RAW_OVERHEAD: rc = raw_overhead(&c, (const void *)p); break;
		case GD_RAW_CONTEXT: rc = raw_context(&c, (const void *)p); break;
		case GD_RAW_STREAM: rc = raw_stream(&c, (const void *)p); break;
		case GD_RAW_DEVICE: rc = raw_device(&c, (const void *)p); break;
		case GD_RAW_DROPPED: rc = raw_dropped(&c, (const void *)p); break;
		case GD_RAW_PROCESS: {
			const struct gd_raw_process *x = (const void *)p;
			cmd = lstr(&c, x->command_line);
			pstart = x->start_ns;
			ppid = x->ppid;
			break;
		}
		case GD_RAW_END:
			pend = ((const struct gd_raw_end *)(const void *)p)->end_ns;
			st->ended = 1;
			break;
		case GD_RAW_STATUS:
			st->status = ((const struct gd_raw_status_rec *)(const void *)p)->status;
			break;
		case GD_RAW_KLAUNCH: {
			/* variable size: a size that disagrees with nvalues is a corrupt record,
			 * counted and skipped by its size (which lies within the file), never read
			 * past */
			const struct gd_raw_klaunch *k = (const void *)p;
			uint64_t want = (uint64_t)sizeof(*k) + (uint64_t)k->nvalues * sizeof(struct gd_raw_kvalue);
			if (want != r.size) {
				st->bad_records++;
				break;
			}
			rc = raw_klaunch(&c, k);
			break;
		}
		case GD_RAW_KREJECT: rc = raw_kreject(&c, (const void *)p); break;
		default:
			break; /* a newer record type: skipped by its size */
		}
		off += r.size;
	}
	if (nvtx_flush(&c) && rc == GD_OK)
		rc = GD_EFAIL;
	if (upsert_process(w, &h, st, cmd, pstart, pend, ppid) && rc == GD_OK)
		rc = GD_EFAIL;
out:
	munmap((void *)map, len);
	free(c.smap);
	free(c.nv);
	return rc;
}

int gd_pw_child(struct gd_pw *w, int pid, const char *command_line, long long start_ns, long long end_ns,
		int exit_code, int exit_signal)
{
	sqlite3_stmt *s;
	int rc;
	if (sqlite3_prepare_v2(w->db,
			       "INSERT OR IGNORE INTO processes(pid,ppid,command_line,start_ns,traced,status) "
			       "VALUES(?,?,?,?,0,'no_cuda')",
			       -1, &s, NULL))
		return db_err(w, "processes");
	bi(s, 1, pid);
	bi(s, 2, getpid());
	sqlite3_bind_text(s, 3, command_line, -1, SQLITE_TRANSIENT);
	bi(s, 4, start_ns);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE)
		return db_err(w, "processes");
	if (sqlite3_prepare_v2(w->db,
			       "UPDATE processes SET exit_code=?, exit_signal=?, end_ns=COALESCE(end_ns,?) WHERE pid=?",
			       -1, &s, NULL))
		return db_err(w, "processes");
	bi(s, 1, exit_code);
	bi_opt(s, 2, exit_signal, exit_signal > 0);
	bi(s, 3, end_ns);
	bi(s, 4, pid);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, "processes");
}

static int add_window(struct gd_pw *w, long long a, long long b, const char *src)
{
	sqlite3_stmt *s;
	int rc;
	if (sqlite3_prepare_v2(w->db, "INSERT INTO capture_ranges(start,end,source) VALUES(?,?,?)", -1, &s, NULL))
		return db_err(w, "capture_ranges");
	bi(s, 1, a);
	bi(s, 2, b);
	sqlite3_bind_text(s, 3, src, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, "capture_ranges");
}

int gd_pw_capture(struct gd_pw *w, const char *mode, long long t0, long long t1, double delay_s, double duration_s)
{
	static const char *const timed[][2] = {
		{"kernels", "start"}, {"memcpy", "start"}, {"memset", "start"}, {"api", "start"},
		{"sync", "start"},    {"nvtx", "start"},   {"memory", "time"},  {"overhead", "start"},
		{"nvml_samples", "t"}, {"gpu_metrics", "t_start"},
	};
	char sql[512];
	int n = 0;
	sqlite3_stmt *s;
	if (!strcmp(mode, "all")) /* nothing to delete */
		return add_window(w, t0, t1, "all") ? -1 : 1;
	if (!strcmp(mode, "delay")) {
		long long a = t0 + (long long)(delay_s * 1e9);
		long long b = duration_s > 0 ? a + (long long)(duration_s * 1e9) : (t1 > a ? t1 : a);
		if (add_window(w, a, b, "delay/duration"))
			return -1;
		n = 1;
	} else if (!strcmp(mode, "cudaProfilerApi")) {
		/* Pair each start call with the next stop call of the same process. */
		long long open_at = -1;
		int open_pid = -1;
		if (sqlite3_prepare_v2(w->db,
				       "SELECT a.pid, a.start, a.end, s.value LIKE 'cu%ProfilerStart%' "
				       "FROM api a JOIN strings s ON s.id=a.name "
				       "WHERE s.value LIKE 'cu%ProfilerStart%' OR s.value LIKE 'cu%ProfilerStop%' "
				       "ORDER BY a.pid, a.start",
				       -1, &s, NULL))
			return db_err(w, "capture"), -1;
		while (sqlite3_step(s) == SQLITE_ROW) {
			int pid = sqlite3_column_int(s, 0), is_start = sqlite3_column_int(s, 3);
			long long a = sqlite3_column_int64(s, 1), b = sqlite3_column_int64(s, 2);
			if (pid != open_pid && open_at >= 0) { /* never stopped: runs to the end */
				add_window(w, open_at, t1, "cudaProfilerApi");
				n++;
				open_at = -1;
			}
			if (is_start && open_at < 0) {
				open_at = a;
				open_pid = pid;
			} else if (!is_start && open_at >= 0) {
				add_window(w, open_at, b, "cudaProfilerApi");
				n++;
				open_at = -1;
			}
		}
		sqlite3_finalize(s);
		if (open_at >= 0) {
			add_window(w, open_at, t1, "cudaProfilerApi");
			n++;
		}
	} else if (!strncmp(mode, "nvtx:", 5)) {
		char src[300];
		snprintf(src, sizeof(src), "%s", mode);
		if (sqlite3_prepare_v2(w->db,
				       "SELECT n.start, COALESCE(n.end, ?) FROM nvtx n JOIN strings s ON s.id=n.name "
				       "WHERE n.kind=0 AND s.value=? ORDER BY n.start",
				       -1, &s, NULL))
			return db_err(w, "capture"), -1;
		bi(s, 1, t1);
		sqlite3_bind_text(s, 2, mode + 5, -1, SQLITE_TRANSIENT);
		while (sqlite3_step(s) == SQLITE_ROW) {
			add_window(w, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), src);
			n++;
		}
		sqlite3_finalize(s);
	} else {
		return gd_error(GD_EUSAGE, "unknown capture range '%s'", mode), -1;
	}
	for (size_t i = 0; i < sizeof(timed) / sizeof(timed[0]); i++) {
		/* NVTX ranges are kept when they overlap a window, so the named range itself stays;
		 * and so is the framework view's mark ("gpudiag.torch:...", docs/framework.md), made
		 * once per process when torch starts CUDA, long before any window: it says the view
		 * was on and in which mode. */
		if (!strcmp(timed[i][0], "nvtx"))
			snprintf(sql, sizeof(sql),
				 "DELETE FROM nvtx WHERE NOT EXISTS (SELECT 1 FROM capture_ranges c WHERE "
				 "nvtx.start <= c.end AND COALESCE(nvtx.end, nvtx.start) >= c.start) AND NOT EXISTS "
				 "(SELECT 1 FROM strings s WHERE s.id = nvtx.name AND s.value LIKE 'gpudiag.torch:%%')");
		else
			snprintf(sql, sizeof(sql),
				 "DELETE FROM %s WHERE %s IS NULL OR NOT EXISTS (SELECT 1 FROM capture_ranges c "
				 "WHERE %s.%s BETWEEN c.start AND c.end)",
				 timed[i][0], timed[i][1], timed[i][0], timed[i][1]);
		if (exec(w, sql))
			return -1;
	}
	return n;
}

/* meta.metrics_rejected: the distinct refused metric names of every raw file, space
 * separated, in the order first seen. */
static int write_rejected(struct gd_pw *w)
{
	size_t n = 1;
	char *text;
	int rc;
	for (size_t i = 0; i < w->nrejected; i++)
		n += strlen(w->byid[w->rejected[i]]) + 1;
	text = malloc(n);
	if (!text)
		return gd_error(GD_EFAIL, "out of memory");
	text[0] = 0;
	for (size_t i = 0, k = 0; i < w->nrejected; i++)
		k += (size_t)snprintf(text + k, n - k, "%s%s", i ? " " : "", w->byid[w->rejected[i]]);
	rc = gd_pw_meta(w, "metrics_rejected", text);
	free(text);
	return rc;
}

int gd_pw_close(struct gd_pw *w, int commit)
{
	int rc = GD_OK;
	if (!w)
		return GD_OK;
	if (commit && w->nrejected && write_rejected(w))
		commit = 0, rc = GD_EFAIL;
	for (int i = 0; i < GD_T_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	if (commit && ((w->late_sql && exec(w, w->late_sql)) || exec(w, "PRAGMA analysis_limit=1000; ANALYZE") ||
		       exec(w, "COMMIT")))
		rc = GD_EFAIL;
	if (sqlite3_close(w->db) != SQLITE_OK && commit)
		rc = gd_error(GD_EFAIL, "cannot close '%s'", w->tmp);
	/* SQLite runs with synchronous=OFF, so a write the kernel accepted but could not store
	 * (a full disk, quota, NFS) would surface only here: fsync before the rename. */
	if (commit && rc == GD_OK) {
		int fd = open(w->tmp, O_RDONLY | O_CLOEXEC), bad = fd < 0 || (fsync(fd) != 0 && errno != EINVAL);
		int e = errno;
		if (fd >= 0)
			close(fd);
		if (bad)
			rc = gd_error(GD_EFAIL, "cannot write '%s': %s", w->path, strerror(e ? e : EIO));
	}
	if (commit && rc == GD_OK && rename(w->tmp, w->path) != 0)
		rc = gd_error(GD_EFAIL, "cannot write '%s': %s", w->path, strerror(errno));
	if (!commit || rc != GD_OK)
		unlink(w->tmp);
	for (size_t i = 0; i < w->cap; i++)
		free(w->tab[i].s);
	free(w->tab);
	free(w->byid);
	free(w->names);
	free(w->rejected);
	free(w);
	return rc;
}
