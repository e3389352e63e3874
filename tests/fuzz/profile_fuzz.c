/* A deterministic fuzzer of the two parsers of untrusted files (docs/fuzzing.md): the profile
 * reader (gd_profile_load, and the export's reading through gd_export_perfetto) and the raw
 * record parser (gd_pw_add_raw, whose output is then read back).
 *
 *   profile_fuzz [--seconds S] [--iterations N] [--seed N] [--corpus DIR] [--fixtures DIR]
 *                [--deep] [--make-corpus DIR]
 *
 * Seeds: the files of --corpus (tests/fuzz/corpus: small *.sqlite and *.raw), the profiles of
 * --fixtures (tests/fixtures), and raw files made by gd_raw_synth. Each iteration picks a
 * seed and mutates it with a xorshift generator seeded by --seed, so a run is reproducible:
 * iteration i of seed s is always the same input. Mutations: byte flips and truncations
 * everywhere; on profiles, SQL (columns set to extremes, NULL, text, blobs; tables dropped,
 * replaced by views, renamed, rebuilt without types; rows duplicated or deleted; meta values;
 * many devices and contexts); on raw files, records (sizes, types, lengths, ids, fields,
 * duplicated, removed, spliced) and header fields.
 *
 * Oracle: no crash, no sanitizer report (run it in a -DGPUDIAG_SANITIZE=ON build), no hang
 * (an alarm per input; the reader's own time limit is set well below it), and every call
 * returns GD_OK or GD_EDATA, the latter with a one-line reason. A failing input is left in the
 * work folder, whose path is printed with the seed and iteration. */
#include "analysis/summary.h"
#include "core/status.h"
#include "profile/columns.h"
#include "profile/profile.h"
#include "profile/raw.h"
#include "profile/writer.h"
#include "render/perfetto.h"

#include <ctype.h>
#include <dirent.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define ALARM_S 30        /* per input: far above the reader's limit below */
#define READER_LIMIT_S 10 /* gd_profile_set_time_limit */
#define MAX_SEEDS 64

struct buf {
	unsigned char *p;
	size_t n;
};

struct seed {
	char name[256];
	int raw; /* 1: a raw record file, 0: a profile database */
	struct buf b;
};

static struct seed seeds[MAX_SEEDS];
static int nseeds;
static char work[256], cur[300], cur_db[300], out_json[300], out_pb[300];
static volatile sig_atomic_t g_iter;
static unsigned long long g_seed;

/* ---- deterministic randomness */
static uint64_t rng_state;
static uint64_t rnd(void)
{
	uint64_t x = rng_state;
	x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
	rng_state = x;
	return x * 0x2545F4914F6CDD1DULL;
}
static size_t below(size_t n) { return n ? (size_t)(rnd() % n) : 0; }

/* ---- files */
static int read_all(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	long n;
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	b->p = malloc(n > 0 ? (size_t)n : 1);
	b->n = b->p && n > 0 ? fread(b->p, 1, (size_t)n, f) : 0;
	fclose(f);
	return b->p ? 0 : -1;
}

static int write_all(const char *path, const unsigned char *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	int ok;
	if (!f)
		return -1;
	ok = fwrite(p, 1, n, f) == n;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static void add_seed(const char *path, int raw)
{
	const char *base = strrchr(path, '/');
	if (nseeds == MAX_SEEDS)
		return;
	if (read_all(path, &seeds[nseeds].b) || !seeds[nseeds].b.n)
		return;
	snprintf(seeds[nseeds].name, sizeof(seeds[0].name), "%s", base ? base + 1 : path);
	seeds[nseeds++].raw = raw;
}

static int ends_with(const char *s, const char *e)
{
	size_t a = strlen(s), b = strlen(e);
	return a >= b && !strcmp(s + a - b, e);
}

static void add_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char names[MAX_SEEDS][256];
	int n = 0;
	if (!d)
		return;
	while ((e = readdir(d)) && n < MAX_SEEDS)
		if (ends_with(e->d_name, ".sqlite") || ends_with(e->d_name, ".raw"))
			snprintf(names[n++], 256, "%s", e->d_name);
	closedir(d);
	/* readdir order differs between file systems: sort, so the run is reproducible */
	qsort(names, (size_t)n, 256, (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < n; i++) {
		char path[600];
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		add_seed(path, ends_with(names[i], ".raw"));
	}
}

/* ---- the oracle */
static void on_alarm(int sig)
{
	char msg[512];
	int n = snprintf(msg, sizeof(msg), "profile_fuzz: HANG: seed %llu iteration %d, input %s\n", g_seed, (int)g_iter,
			 cur);
	(void)sig;
	if (n > 0 && write(1, msg, (size_t)n) < 0)
		_exit(3);
	_exit(3);
}

static int failures;
static void fail(const char *what, int rc, const char *why)
{
	printf("profile_fuzz: FAIL: %s returned %d (%s): seed %llu iteration %d, input kept in %s\n", what, rc,
	       why ? why : "", g_seed, (int)g_iter, cur);
	fflush(stdout);
	failures++;
}

static void check(const char *what, int rc, const char *why)
{
	if (rc == GD_OK)
		return;
	if (rc != GD_EDATA)
		fail(what, rc, why);
	else if (why && (!why[0] || strchr(why, '\n')))
		fail(what, rc, "the reason is empty or not one line");
}

static int deep;

/* Every "ts": and "dur": value (outside strings, whose quotes are escaped) is -?D+.DDD. */
static int times_ok(const struct buf *b)
{
	static const char *const keys[] = {"\"ts\":", "\"dur\":"};
	for (size_t i = 1; i < b->n; i++)
		for (int k = 0; k < 2; k++) {
			size_t kl = strlen(keys[k]), j, d = 0;
			if (i + kl > b->n || memcmp(b->p + i, keys[k], kl) || b->p[i - 1] == '\\')
				continue;
			j = i + kl;
			if (j < b->n && b->p[j] == '-' && k == 0)
				j++;
			while (j < b->n && isdigit(b->p[j]))
				j++, d++;
			if (!d || j + 4 > b->n || b->p[j] != '.' || !isdigit(b->p[j + 1]) || !isdigit(b->p[j + 2]) ||
			    !isdigit(b->p[j + 3]) || (j + 4 < b->n && isdigit(b->p[j + 4])))
				return 0;
		}
	return 1;
}

/* The native trace's top level: Trace.packet fields (tag 0x0a, a varint length) that end
 * exactly at the end of the file. (tests/cli/pftrace.py reads the rest; here, only that no
 * damaged input makes a packet that overruns or a stray byte.) */
static int packets_ok(const struct buf *b)
{
	size_t i = 0;
	while (i < b->n) {
		unsigned long long len = 0;
		int shift = 0;
		if (b->p[i++] != 0x0a)
			return 0;
		do {
			if (i >= b->n || shift > 63)
				return 0;
			len |= (unsigned long long)(b->p[i] & 0x7f) << shift;
			shift += 7;
		} while (b->p[i++] & 0x80);
		if (len > b->n - i)
			return 0;
		i += len;
	}
	return 1;
}

static void run_profile(const char *path)
{
	struct gd_profile p;
	char why[1400];
	int rc = gd_profile_load(path, &p, why, sizeof(why));
	check("gd_profile_load", rc, why);
	if (rc == GD_OK) {
		if (p.bad_rows < 0 || p.nk < 0 || p.ndev < 0 || p.ndev > GD_PROFILE_MAX_DEVICES)
			fail("gd_profile_load", rc, "impossible counts");
		for (long i = 0; i < p.nk; i++)
			if (p.k[i].end < p.k[i].start || p.k[i].name < 0 || p.k[i].name >= p.nnames || !p.names[p.k[i].name])
				fail("gd_profile_load", rc, "a kernel with end < start or no name");
		if (deep) {
			struct gd_summary s;
			gd_summary_compute(&p, &s);
			gd_summary_free(&s);
		}
		gd_profile_free(&p);
	}
	unlink(out_json);
	rc = gd_export_perfetto(path, out_json);
	check("gd_export_perfetto", rc, NULL); /* its reason went to stderr */
	if (rc == GD_OK) {
		struct buf b = {0};
		if (read_all(out_json, &b) == 0) {
			/* the JSON's numbers: never a negative fraction, NaN or infinity */
			if (b.n < 4 || memcmp(b.p + b.n - 4, "\n]}\n", 4))
				fail("gd_export_perfetto", rc, "the JSON is not closed");
			if (!times_ok(&b))
				fail("gd_export_perfetto", rc, "a time or duration is not -?digits.3digits");
			free(b.p);
		}
	} else if (access(out_json, F_OK) == 0) {
		fail("gd_export_perfetto", rc, "failed but left its file");
	}
	unlink(out_pb);
	rc = gd_export_perfetto_pb(path, out_pb);
	check("gd_export_perfetto_pb", rc, NULL);
	if (rc == GD_OK) {
		struct buf b = {0};
		if (read_all(out_pb, &b) == 0) {
			if (!packets_ok(&b))
				fail("gd_export_perfetto_pb", rc, "the file is not a sequence of whole Trace.packet fields");
			free(b.p);
		}
	} else if (access(out_pb, F_OK) == 0) {
		fail("gd_export_perfetto_pb", rc, "failed but left its file");
	}
}

static void run_raw(const char *path)
{
	struct gd_pw *w;
	struct gd_raw_stats st;
	char err[512];
	int rc;
	if (gd_pw_open(&w, cur_db) != GD_OK) {
		fail("gd_pw_open", -1, "");
		return;
	}
	rc = gd_pw_add_raw(w, path, &st, err, sizeof(err));
	check("gd_pw_add_raw", rc, err);
	if (gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0) < 0)
		fail("gd_pw_capture", -1, "");
	if (gd_pw_close(w, 1) != GD_OK)
		fail("gd_pw_close", -1, "");
	else
		run_profile(cur_db); /* what the writer made of it is read back */
	unlink(cur_db);
}

/* ---- mutations of bytes */
static void flip_bytes(struct buf *b)
{
	int n = 1 + (int)below(16);
	for (int i = 0; i < n && b->n; i++) {
		/* a third of the flips go to the first page (header, schema), the rest anywhere */
		size_t at = below(3) == 0 ? below(b->n < 4096 ? b->n : 4096) : below(b->n);
		switch (below(4)) {
		case 0: b->p[at] ^= (unsigned char)(1u << below(8)); break;
		case 1: b->p[at] = (unsigned char)rnd(); break;
		case 2: b->p[at] = below(2) ? 0 : 0xff; break;
		default: b->p[at] = (unsigned char)(b->p[at] + 1); break;
		}
	}
}

static void truncate_buf(struct buf *b)
{
	if (b->n > 1)
		b->n = below(4) == 0 ? (below(b->n / 512 + 1) * 512) : below(b->n);
}

/* ---- mutations of profiles, through SQL */
static const char *const extremes[] = {
	"NULL", "0", "-1", "1", "2147483647", "2147483648", "-2147483649", "4294967297", "9223372036854775807",
	"-9223372036854775808", "4611686018427387904", "9.2e18", "-9.2e18", "1e308", "-1e308", "0.5", "'abc'", "''",
	"x'00ff00'", "'1abc'", "start - 1", "-start", "end + 1000000000000000000", "id", "-id", "id * 4294967296",
};

static const struct gd_table *pick_table(void)
{
	static const int read_tables[] = {GD_T_KERNELS, GD_T_MEMCPY, GD_T_MEMSET, GD_T_API,  GD_T_SYNC,
					  GD_T_NVTX,    GD_T_MEMORY, GD_T_CONTEXTS, GD_T_STREAMS, GD_T_DROPPED,
					  GD_T_STRINGS, GD_T_NVML,   GD_T_DEVICES,  GD_T_PROCESSES};
	/* half of the picks go to the tables with the most logic */
	if (below(2))
		return &gd_tables[below(4) == 0 ? GD_T_STRINGS : below(2) ? GD_T_KERNELS : GD_T_API];
	return &gd_tables[read_tables[below(sizeof(read_tables) / sizeof(read_tables[0]))]];
}

static void sql_mutation(sqlite3 *db)
{
	const struct gd_table *t = pick_table();
	const char *col = t->cols[below((size_t)t->ncols)].name;
	char sql[4096];
	size_t k;
	unsigned m = (unsigned)below(7) + 2, r = (unsigned)below(m);
	switch (below(14)) {
	case 0:
	case 1:
	case 2: /* one column of some rows to an extreme */
		snprintf(sql, sizeof(sql), "UPDATE %s SET %s = %s WHERE rowid %% %u = %u", t->name, col,
			 extremes[below(sizeof(extremes) / sizeof(extremes[0]))], m, r);
		break;
	case 3: /* every row */
		snprintf(sql, sizeof(sql), "UPDATE %s SET %s = %s", t->name, col,
			 extremes[below(sizeof(extremes) / sizeof(extremes[0]))]);
		break;
	case 4: { /* a view in place of the table: plain, or never ending */
		k = (size_t)snprintf(sql, sizeof(sql), "DROP TABLE %s; CREATE VIEW %s AS ", t->name, t->name);
		if (below(2))
			snprintf(sql + k, sizeof(sql) - k,
				 "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) SELECT x AS %s FROM r",
				 col);
		else
			snprintf(sql + k, sizeof(sql) - k, "SELECT 1 AS %s", col);
		break;
	}
	case 5:
		snprintf(sql, sizeof(sql), "DROP TABLE %s", t->name);
		break;
	case 6:
		snprintf(sql, sizeof(sql), "ALTER TABLE %s DROP COLUMN %s", t->name, col);
		break;
	case 7: { /* duplicated rows (all columns but the row id) */
		size_t j = 0;
		char cols[2048];
		cols[0] = 0;
		for (int i = 0; i < t->ncols; i++)
			j += (size_t)snprintf(cols + j, sizeof(cols) - j, "%s%s", j ? "," : "", t->cols[i].name);
		snprintf(sql, sizeof(sql), "INSERT OR IGNORE INTO %s(%s) SELECT %s FROM %s", t->name, cols, cols, t->name);
		break;
	}
	case 8:
		snprintf(sql, sizeof(sql), "DELETE FROM %s WHERE rowid %% %u = %u", t->name, m, r);
		break;
	case 9: { /* meta */
		static const char *const keys[] = {"schema_version", "start_ns", "end_ns", "traced", "api_trace",
						   "exit_code", "synthetic"};
		static const char *const vals[] = {"'1'",   "'1abc'", "'1.0'", "'+1'", "'01'", "NULL",
						   "1",     "'-9223372036854775808'", "'9223372036854775807'",
						   "'4611686018427387904'", "'abc'", "x'01'"};
		snprintf(sql, sizeof(sql), "UPDATE meta SET value = %s WHERE key = '%s'",
			 vals[below(sizeof(vals) / sizeof(vals[0]))], keys[below(sizeof(keys) / sizeof(keys[0]))]);
		break;
	}
	case 10: { /* many devices or contexts */
		static const int counts[] = {9, 17, 257, 300, 4095, 4097};
		int n = counts[below(sizeof(counts) / sizeof(counts[0]))];
		if (below(2))
			snprintf(sql, sizeof(sql),
				 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) "
				 "INSERT OR IGNORE INTO devices (id, name, cc_major, cc_minor, sm_count) "
				 "SELECT 1000 + x, 'GPU', 9, 0, 132 FROM c",
				 n);
		else
			snprintf(sql, sizeof(sql),
				 "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) "
				 "INSERT OR IGNORE INTO contexts SELECT 1 + x %% 3, 1000 + x, 0, x FROM c",
				 n);
		break;
	}
	case 11: /* the table rebuilt without its declared types, or renamed away */
		if (below(2))
			snprintf(sql, sizeof(sql), "ALTER TABLE %s RENAME TO fuzz_old; CREATE TABLE %s AS SELECT * FROM fuzz_old",
				 t->name, t->name);
		else
			snprintf(sql, sizeof(sql), "ALTER TABLE %s RENAME TO fuzz_old", t->name);
		break;
	case 12: /* strings: ids and values */
		snprintf(sql, sizeof(sql), "UPDATE strings SET %s WHERE rowid %% %u = %u",
			 below(2) ? "id = -id" : below(2) ? "value = x'00ff'" : "id = id + 4294967296", m, r);
		break;
	default: /* kernels' times */
		snprintf(sql, sizeof(sql), "UPDATE kernels SET %s WHERE rowid %% %u = %u",
			 below(2) ? "end = start - 1" : "start = 9200000000000000000, end = -9200000000000000000", m, r);
		break;
	}
	sqlite3_exec(db, sql, NULL, NULL, NULL); /* a mutation the schema refuses is no mutation */
}

static void mutate_profile(const char *path)
{
	sqlite3 *db;
	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return;
	}
	sqlite3_exec(db, "PRAGMA journal_mode=OFF; BEGIN", NULL, NULL, NULL);
	for (int i = 1 + (int)below(3); i-- > 0;)
		sql_mutation(db);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(db);
}

/* ---- mutations of raw files, by record */
struct recs {
	size_t off[4096];
	int n;
};

static void walk(const struct buf *b, struct recs *r)
{
	size_t off = sizeof(struct gd_raw_header);
	r->n = 0;
	while (off + sizeof(struct gd_raw_rec) <= b->n && r->n < 4096) {
		struct gd_raw_rec h;
		memcpy(&h, b->p + off, sizeof(h));
		if (h.size < sizeof(h) || h.size % 8 || h.size > b->n - off)
			break;
		r->off[r->n++] = off;
		off += h.size;
	}
}

static void put32(struct buf *b, size_t at, uint32_t v)
{
	if (at + 4 <= b->n)
		memcpy(b->p + at, &v, 4);
}

static uint32_t val32(void)
{
	static const uint32_t v[] = {0, 1, 7, 8, 16, 0x7fffffff, 0x80000000u, 0xfffffff8u, 0xffffffffu, 1u << 30, 63, 64};
	return below(4) ? v[below(sizeof(v) / sizeof(v[0]))] : (uint32_t)rnd();
}

static void mutate_raw(struct buf *b, const struct buf *other)
{
	struct recs r;
	size_t at;
	walk(b, &r);
	if (!r.n) {
		flip_bytes(b);
		return;
	}
	at = r.off[below((size_t)r.n)];
	switch (below(9)) {
	case 0: { /* size */
		static const uint32_t sz[] = {0, 4, 8, 12, 16, 24, 0xfffffff8u, 0x7ffffff8u};
		uint32_t s;
		memcpy(&s, b->p + at + 4, 4);
		put32(b, at + 4, below(2) ? sz[below(sizeof(sz) / sizeof(sz[0]))] : s + (below(2) ? 8u : -8u));
		break;
	}
	case 1: /* type */
		put32(b, at, below(2) ? (uint32_t)below(GD_RAW_TYPE_MAX + 2) : val32());
		break;
	case 2: { /* a field of the body: ids, lengths, ordinals, times */
		struct gd_raw_rec h;
		memcpy(&h, b->p + at, sizeof(h));
		if (h.size > 8) {
			size_t f = at + 8 + below((h.size - 8) / 4) * 4;
			if (below(3) == 0 && f + 8 <= at + h.size) {
				static const uint64_t v64[] = {0, UINT64_MAX, 1ull << 63, (1ull << 63) - 1, 1ull << 62};
				memcpy(b->p + f, &v64[below(5)], 8);
			} else {
				put32(b, f, val32());
			}
		}
		break;
	}
	case 3: { /* a record duplicated in place */
		struct gd_raw_rec h;
		unsigned char *np;
		memcpy(&h, b->p + at, sizeof(h));
		np = realloc(b->p, b->n + h.size);
		if (!np)
			break;
		b->p = np;
		memmove(b->p + at + h.size, b->p + at, b->n - at);
		b->n += h.size;
		break;
	}
	case 4: { /* a record removed (strings first referenced later go missing) */
		struct gd_raw_rec h;
		memcpy(&h, b->p + at, sizeof(h));
		memmove(b->p + at, b->p + at + h.size, b->n - at - h.size);
		b->n -= h.size;
		break;
	}
	case 5: /* cut at or near a record boundary */
		b->n = at + below(16);
		if (b->n > 0 && below(2))
			b->n = at;
		break;
	case 6: { /* a header field */
		size_t f = below(sizeof(struct gd_raw_header) / 4) * 4;
		put32(b, f, val32());
		break;
	}
	case 7: /* records of another raw file appended */
		if (other && other->n > sizeof(struct gd_raw_header)) {
			size_t add = other->n - sizeof(struct gd_raw_header);
			unsigned char *np = realloc(b->p, b->n + add);
			if (!np)
				break;
			b->p = np;
			memcpy(b->p + b->n, other->p + sizeof(struct gd_raw_header), add);
			b->n += add;
		}
		break;
	default:
		flip_bytes(b);
		break;
	}
}

/* ---- one iteration */
static void iteration(int i)
{
	const struct seed *s = &seeds[below((size_t)nseeds)];
	struct buf b;
	int how;
	g_iter = i;
	/* stderr holds this input's messages only: a crash leaves them beside the input */
	if (lseek(2, 0, SEEK_SET) == 0 && ftruncate(2, 0) != 0)
		return;
	b.n = s->b.n;
	b.p = malloc(b.n + 1);
	if (!b.p)
		return;
	memcpy(b.p, s->b.p, b.n);
	snprintf(cur, sizeof(cur), "%s/cur.%s", work, s->raw ? "raw" : "sqlite");
	how = (int)below(8);
	if (s->raw) {
		const struct seed *o = &seeds[below((size_t)nseeds)];
		if (how == 0)
			truncate_buf(&b);
		else if (how == 1)
			flip_bytes(&b);
		else
			for (int k = 1 + (int)below(3); k-- > 0;)
				mutate_raw(&b, o->raw ? &o->b : NULL);
		write_all(cur, b.p, b.n);
		alarm(ALARM_S);
		run_raw(cur);
	} else {
		if (how == 0)
			truncate_buf(&b);
		else if (how == 1)
			flip_bytes(&b);
		write_all(cur, b.p, b.n);
		if (how >= 2)
			mutate_profile(cur);
		if (how == 7) { /* SQL and bytes */
			struct buf m;
			if (read_all(cur, &m) == 0) {
				flip_bytes(&m);
				write_all(cur, m.p, m.n);
				free(m.p);
			}
		}
		alarm(ALARM_S);
		run_profile(cur);
	}
	alarm(0);
	free(b.p);
}

/* Small seeds for tests/fuzz/corpus: raw files of gd_raw_synth and profiles built from them
 * with 512-byte pages (a few KB each). */
static int make_corpus(const char *dir)
{
	static const long kernels[] = {3, 12};
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++) {
		char raw[600], db[600];
		struct gd_pw *w;
		struct gd_raw_stats st;
		char err[256];
		sqlite3 *h;
		snprintf(raw, sizeof(raw), "%s/synth%ld.raw", dir, kernels[i]);
		snprintf(db, sizeof(db), "%s/synth%ld.sqlite", dir, kernels[i]);
		if (gd_raw_synth(raw, 4242, kernels[i], NULL, 0, 1700000000000000000ull))
			return 1;
		if (gd_pw_open(&w, db) || gd_pw_meta_int(w, "start_ns", 1700000000000000000LL) ||
		    gd_pw_add_raw(w, raw, &st, err, sizeof(err)) || gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0) < 0 ||
		    gd_pw_close(w, 1))
			return 1;
		if (sqlite3_open(db, &h) != SQLITE_OK ||
		    sqlite3_exec(h, "PRAGMA page_size=512; VACUUM;", NULL, NULL, NULL) != SQLITE_OK)
			return 1;
		sqlite3_close(h);
	}
	return 0;
}

int main(int argc, char **argv)
{
	double seconds = 20;
	long iterations = -1;
	const char *corpus = "tests/fuzz/corpus", *fixtures = "tests/fixtures";
	struct timespec t0, t1;
	int i;
	g_seed = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
			g_seed = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--corpus") && i + 1 < argc)
			corpus = argv[++i];
		else if (!strcmp(argv[i], "--fixtures") && i + 1 < argc)
			fixtures = argv[++i];
		else if (!strcmp(argv[i], "--deep"))
			deep = 1;
		else if (!strcmp(argv[i], "--make-corpus") && i + 1 < argc)
			return make_corpus(argv[++i]);
		else {
			fprintf(stderr, "usage: profile_fuzz [--seconds S] [--iterations N] [--seed N] [--corpus DIR] "
					"[--fixtures DIR] [--deep] [--make-corpus DIR]\n");
			return 2;
		}
	}
	gd_set_quiet(1);
	gd_profile_set_time_limit(READER_LIMIT_S);
	signal(SIGALRM, on_alarm);
	snprintf(work, sizeof(work), "/tmp/gd_fuzz.XXXXXX");
	if (!mkdtemp(work))
		return 1;
	snprintf(cur_db, sizeof(cur_db), "%s/w.sqlite", work);
	printf("profile_fuzz: work folder %s (inputs, and their messages in stderr.log)\n", work);
	fflush(stdout);
	if (!getenv("PROFILE_FUZZ_STDERR")) { /* the messages of refused inputs: thousands of lines */
		char log[300];
		snprintf(log, sizeof(log), "%s/stderr.log", work);
		if (!freopen(log, "w", stderr))
			return 1;
	}
	snprintf(out_json, sizeof(out_json), "%s/t.json", work);
	snprintf(out_pb, sizeof(out_pb), "%s/t.pftrace", work);
	add_dir(corpus);
	add_dir(fixtures);
	{
		char raw[300];
		snprintf(raw, sizeof(raw), "%s/seed.raw", work);
		if (gd_raw_synth(raw, 77, 40, NULL, 0, 1000000000000ull) == 0)
			add_seed(raw, 1);
	}
	if (!nseeds) {
		fprintf(stderr, "profile_fuzz: no seeds (run from the source tree)\n");
		return 1;
	}
	rng_state = g_seed * 0x9E3779B97F4A7C15ULL + 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (i = 0; iterations < 0 || i < iterations; i++) {
		double el;
		iteration(i);
		if (failures)
			break;
		if (i && i % 2000 == 0) {
			printf("profile_fuzz: %d executions\n", i);
			fflush(stdout);
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		el = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
		if (iterations < 0 && el >= seconds)
			break;
	}
	printf("profile_fuzz: seed %llu, %d seeds, %d executions, %d failures\n", g_seed, nseeds, i + (failures ? 1 : 0),
	       failures);
	if (!failures) {
		char cmd[400];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", work);
		if (system(cmd) != 0)
			return 1;
	}
	return failures ? 1 : 0;
}
