/* Raw files + parent facts → the profile database. See profile.h and docs/profile-schema.md.
 *
 * The raw files are mapped read-only and walked record by record; every record's size is
 * checked against the file and against the struct of its type before a field is read, so a
 * truncated file (a killed process) keeps what was complete and a corrupt one stops with a
 * message naming the offset. Strings are interned across all files (local id → global id). */
#include "profile/writer.h"

#include "core/status.h"
#include "profile/raw.h"
#include "profile/schema.h"

#include <errno.h>
#include <fcntl.h>
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

enum {
	ST_KERNEL, ST_MEMCPY, ST_MEMSET, ST_API, ST_SYNC, ST_NVTX, ST_MEMORY, ST_OVERHEAD, ST_CONTEXT,
	ST_STREAM, ST_DROPPED, ST_STRING, ST_NVML, ST_PROCDEV, ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_KERNEL] = "INSERT INTO kernels(pid,device,context,stream,correlation,start,end,queued,submitted,"
		      "name,demangled,short_name,grid_x,grid_y,grid_z,block_x,block_y,block_z,cluster_x,"
		      "cluster_y,cluster_z,regs,static_smem,dyn_smem,smem_executed,local_mem_per_thread,"
		      "cache_config,shmem_limit_config,launch_type,graph_id,graph_node_id,is_device_launched,"
		      "channel_id,channel_type) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_MEMCPY] = "INSERT INTO memcpy(pid,device,context,stream,correlation,start,end,bytes,copy_kind,"
		      "src_kind,dst_kind,is_async,copy_count,src_device,dst_device,graph_id,graph_node_id,"
		      "channel_id,channel_type) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_MEMSET] = "INSERT INTO memset(pid,device,context,stream,correlation,start,end,bytes,value,mem_kind,"
		      "is_async,graph_id,graph_node_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_API] = "INSERT INTO api(pid,tid,domain,cbid,name,start,end,correlation,return_value) "
		   "VALUES(?,?,?,?,?,?,?,?,?)",
	[ST_SYNC] = "INSERT INTO sync(pid,context,stream,type,start,end,correlation,cuda_event,return_value) "
		    "VALUES(?,?,?,?,?,?,?,?,?)",
	[ST_NVTX] = "INSERT INTO nvtx(pid,tid,kind,domain,name,start,end,color,category,payload) "
		    "VALUES(?,?,?,?,?,?,?,?,?,?)",
	[ST_MEMORY] = "INSERT INTO memory(pid,device,context,stream,correlation,time,operation,mem_kind,address,"
		      "bytes,is_async,pool_type) VALUES(?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_OVERHEAD] = "INSERT INTO overhead(pid,kind,object_kind,object_id,start,end,correlation) "
			"VALUES(?,?,?,?,?,?,?)",
	[ST_CONTEXT] = "INSERT OR REPLACE INTO contexts(pid,context,device,null_stream) VALUES(?,?,?,?)",
	[ST_STREAM] = "INSERT OR REPLACE INTO streams(pid,stream,context,priority,flags,correlation) "
		      "VALUES(?,?,?,?,?,?)",
	[ST_DROPPED] = "INSERT INTO dropped(pid,source,context,stream,count) VALUES(?,?,?,?,?)",
	[ST_STRING] = "INSERT INTO strings(id,value) VALUES(?,?)",
	[ST_NVML] = "INSERT INTO nvml_samples(t,device,util_gpu,util_mem,mem_used,mem_total,power_mw,"
		    "power_limit_mw,temp_c,sm_mhz,mem_mhz,clock_reasons,pcie_tx_kbps,pcie_rx_kbps) "
		    "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_PROCDEV] = "INSERT OR REPLACE INTO process_devices(pid,ordinal,device) VALUES(?,?,?)",
};

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
	sqlite3_stmt *st[ST_COUNT];
	struct gstr *tab;
	size_t cap, count;
	int64_t next_id;
	char **byid;          /* global string id → text (owned by tab) */
	size_t byid_cap;
	int64_t *names;       /* name id → (demangled id, short id) pairs */
	size_t names_cap;
	const char *late_sql; /* the schema's indexes and views, run by gd_pw_close */
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
	snprintf(w->path, sizeof(w->path), "%s", path);
	snprintf(w->tmp, sizeof(w->tmp), "%s.tmp.%ld", path, (long)getpid());
	unlink(w->tmp);
	if (sqlite3_open(w->tmp, &w->db) != SQLITE_OK) {
		gd_error(GD_EFAIL, "cannot create '%s': %s", w->tmp, w->db ? sqlite3_errmsg(w->db) : "sqlite");
		sqlite3_close(w->db);
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
	for (int i = 0; i < ST_COUNT; i++)
		if (sqlite3_prepare_v2(w->db, stmt_sql[i], -1, &w->st[i], NULL) != SQLITE_OK) {
			db_err(w, "prepare");
			goto fail;
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

/* ---- binding helpers: column i is 1-based; `known` false binds NULL */

static void bi(sqlite3_stmt *s, int i, long long v) { sqlite3_bind_int64(s, i, v); }
static void bi_opt(sqlite3_stmt *s, int i, long long v, int known)
{
	if (known)
		sqlite3_bind_int64(s, i, v);
	else
		sqlite3_bind_null(s, i);
}
/* CUPTI writes 0 for a timestamp it could not take. */
static void bt(sqlite3_stmt *s, int i, uint64_t t) { bi_opt(s, i, (long long)t, t != 0); }
static void bs(sqlite3_stmt *s, int i, int64_t id) { bi_opt(s, i, id, id > 0); }

static int step(struct gd_pw *w, sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, "insert");
}

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
	bi(w->st[ST_STRING], 1, w->tab[j].id);
	sqlite3_bind_text(w->st[ST_STRING], 2, s, (int)n, SQLITE_TRANSIENT);
	if (step(w, w->st[ST_STRING]))
		return 0;
	return w->tab[j].id;
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

int gd_pw_device(struct gd_pw *w, const struct gd_pw_device *d)
{
	sqlite3_stmt *s;
	int rc;
	const char *sql = "INSERT OR REPLACE INTO devices(id,uuid,name,pci_bus_id,nvml_index,cc_major,cc_minor,"
			  "sm_count,warp_size,max_threads_per_block,max_threads_per_sm,max_warps_per_sm,"
			  "max_blocks_per_sm,regs_per_sm,regs_per_block,smem_per_sm,smem_per_block,"
			  "smem_per_block_optin,reserved_smem_per_block,l2_bytes,global_mem_bytes,"
			  "mem_bus_width_bits,mem_clock_khz,sm_clock_khz,async_engines) "
			  "VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
	const int ints[] = {d->nvml_index, d->cc_major, d->cc_minor, d->sm_count, d->warp_size,
			    d->max_threads_per_block, d->max_threads_per_sm,
			    d->max_threads_per_sm > 0 && d->warp_size > 0 ? d->max_threads_per_sm / d->warp_size : -1,
			    d->max_blocks_per_sm, d->regs_per_sm, d->regs_per_block, d->smem_per_sm,
			    d->smem_per_block, d->smem_per_block_optin, d->reserved_smem_per_block};
	if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL))
		return db_err(w, "devices");
	bi(s, 1, d->id);
	if (d->uuid[0])
		sqlite3_bind_text(s, 2, d->uuid, -1, SQLITE_TRANSIENT);
	if (d->name[0])
		sqlite3_bind_text(s, 3, d->name, -1, SQLITE_TRANSIENT);
	if (d->pci_bus_id[0])
		sqlite3_bind_text(s, 4, d->pci_bus_id, -1, SQLITE_TRANSIENT);
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
		bi_opt(s, 5 + (int)i, ints[i], ints[i] >= 0);
	bi_opt(s, 20, d->l2_bytes, d->l2_bytes >= 0);
	bi_opt(s, 21, d->global_mem_bytes, d->global_mem_bytes >= 0);
	bi_opt(s, 22, d->mem_bus_width_bits, d->mem_bus_width_bits >= 0);
	bi_opt(s, 23, d->mem_clock_khz, d->mem_clock_khz >= 0);
	bi_opt(s, 24, d->sm_clock_khz, d->sm_clock_khz >= 0);
	bi_opt(s, 25, d->async_engines, d->async_engines >= 0);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, "devices");
}

int gd_pw_nvml(struct gd_pw *w, int device, const struct gd_nvml_sample *x)
{
	sqlite3_stmt *s = w->st[ST_NVML];
	bi(s, 1, (long long)x->t_ns);
	bi(s, 2, device);
	bi_opt(s, 3, x->util_gpu, x->util_gpu >= 0);
	bi_opt(s, 4, x->util_mem, x->util_mem >= 0);
	bi_opt(s, 5, (long long)x->mem_used, x->mem_used != GD_NVML_UNKNOWN64);
	bi_opt(s, 6, (long long)x->mem_total, x->mem_total != GD_NVML_UNKNOWN64);
	bi_opt(s, 7, x->power_mw, x->power_mw >= 0);
	bi_opt(s, 8, x->power_limit_mw, x->power_limit_mw >= 0);
	bi_opt(s, 9, x->temp_c, x->temp_c != GD_NVML_UNKNOWN);
	bi_opt(s, 10, x->sm_mhz, x->sm_mhz >= 0);
	bi_opt(s, 11, x->mem_mhz, x->mem_mhz >= 0);
	bi_opt(s, 12, (long long)x->clock_reasons, x->clock_reasons != GD_NVML_UNKNOWN64);
	bi_opt(s, 13, x->pcie_tx_kbps, x->pcie_tx_kbps >= 0);
	bi_opt(s, 14, x->pcie_rx_kbps, x->pcie_rx_kbps >= 0);
	return step(w, s);
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
	bi(w->st[ST_PROCDEV], 1, c->pid);
	bi(w->st[ST_PROCDEV], 2, d->ordinal);
	bi(w->st[ST_PROCDEV], 3, id);
	return step(w, w->st[ST_PROCDEV]);
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

static int raw_kernel(struct rawctx *c, const struct gd_raw_kernel *k)
{
	struct gd_pw *w = c->w;
	sqlite3_stmt *s = w->st[ST_KERNEL];
	int64_t name = lstr(c, k->name), dem, shrt;
	kernel_name_ids(w, name, &dem, &shrt);
	bi(s, 1, c->pid);
	bi(s, 2, dev(c, k->device));
	bi(s, 3, k->context);
	bi(s, 4, k->stream);
	bi(s, 5, k->correlation);
	bt(s, 6, k->start);
	bt(s, 7, k->end);
	bt(s, 8, k->queued);
	bt(s, 9, k->submitted);
	bs(s, 10, name);
	bs(s, 11, dem);
	bs(s, 12, shrt);
	for (int i = 0; i < 3; i++) {
		bi(s, 13 + i, k->grid[i]);
		bi(s, 16 + i, k->block[i]);
		bi(s, 19 + i, k->cluster[i]);
	}
	bi(s, 22, k->regs);
	bi(s, 23, k->static_smem);
	bi(s, 24, k->dyn_smem);
	bi(s, 25, k->smem_executed);
	bi(s, 26, k->local_mem_per_thread);
	bi(s, 27, k->cache_config);
	bi(s, 28, k->shmem_limit_config);
	bi(s, 29, k->launch_type);
	bi_opt(s, 30, k->graph_id, k->graph_id != 0);
	bi_opt(s, 31, (long long)k->graph_node_id, k->graph_node_id != 0);
	bi(s, 32, k->is_device_launched);
	bi(s, 33, k->channel_id);
	bi(s, 34, k->channel_type);
	return step(w, s);
}

static int raw_memcpy(struct rawctx *c, const struct gd_raw_memcpy *m)
{
	sqlite3_stmt *s = c->w->st[ST_MEMCPY];
	bi(s, 1, c->pid);
	bi(s, 2, dev(c, m->device));
	bi(s, 3, m->context);
	bi(s, 4, m->stream);
	bi(s, 5, m->correlation);
	bt(s, 6, m->start);
	bt(s, 7, m->end);
	bi(s, 8, (long long)m->bytes);
	bi(s, 9, m->copy_kind);
	bi(s, 10, m->src_kind);
	bi(s, 11, m->dst_kind);
	bi(s, 12, m->flags & 1); /* CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC */
	bi(s, 13, (long long)m->copy_count);
	bi_opt(s, 14, dev(c, m->src_device), m->src_device != UINT32_MAX);
	bi_opt(s, 15, dev(c, m->dst_device), m->dst_device != UINT32_MAX);
	bi_opt(s, 16, m->graph_id, m->graph_id != 0);
	bi_opt(s, 17, (long long)m->graph_node_id, m->graph_node_id != 0);
	bi(s, 18, m->channel_id);
	bi(s, 19, m->channel_type);
	return step(c->w, s);
}

static int raw_memset(struct rawctx *c, const struct gd_raw_memset *m)
{
	sqlite3_stmt *s = c->w->st[ST_MEMSET];
	bi(s, 1, c->pid);
	bi(s, 2, dev(c, m->device));
	bi(s, 3, m->context);
	bi(s, 4, m->stream);
	bi(s, 5, m->correlation);
	bt(s, 6, m->start);
	bt(s, 7, m->end);
	bi(s, 8, (long long)m->bytes);
	bi(s, 9, m->value);
	bi(s, 10, m->mem_kind);
	bi(s, 11, m->flags & 1); /* CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC */
	bi_opt(s, 12, m->graph_id, m->graph_id != 0);
	bi_opt(s, 13, (long long)m->graph_node_id, m->graph_node_id != 0);
	return step(c->w, s);
}

static int raw_api(struct rawctx *c, const struct gd_raw_api *a)
{
	sqlite3_stmt *s = c->w->st[ST_API];
	bi(s, 1, c->pid);
	bi(s, 2, a->tid);
	bi(s, 3, a->domain);
	bi(s, 4, a->cbid);
	bs(s, 5, lstr(c, a->name));
	bt(s, 6, a->start);
	bt(s, 7, a->end);
	bi(s, 8, a->correlation);
	bi(s, 9, a->return_value);
	return step(c->w, s);
}

static int raw_sync(struct rawctx *c, const struct gd_raw_sync *y)
{
	sqlite3_stmt *s = c->w->st[ST_SYNC];
	bi(s, 1, c->pid);
	bi(s, 2, y->context);
	bi_opt(s, 3, y->stream, y->stream != UINT32_MAX);
	bi(s, 4, y->type);
	bt(s, 5, y->start);
	bt(s, 6, y->end);
	bi(s, 7, y->correlation);
	bi_opt(s, 8, y->cuda_event, y->type == 1 || y->type == 2);
	bi(s, 9, y->return_value);
	return step(c->w, s);
}

static int raw_memory(struct rawctx *c, const struct gd_raw_memory *m)
{
	sqlite3_stmt *s = c->w->st[ST_MEMORY];
	bi(s, 1, c->pid);
	bi(s, 2, dev(c, m->device));
	bi(s, 3, m->context);
	bi(s, 4, m->stream);
	bi(s, 5, m->correlation);
	bt(s, 6, m->timestamp);
	bi(s, 7, m->operation);
	bi(s, 8, m->mem_kind);
	bi(s, 9, (long long)m->address);
	bi(s, 10, (long long)m->bytes);
	bi(s, 11, m->is_async);
	bi(s, 12, m->pool_type);
	return step(c->w, s);
}

static int raw_overhead(struct rawctx *c, const struct gd_raw_overhead *o)
{
	sqlite3_stmt *s = c->w->st[ST_OVERHEAD];
	bi(s, 1, c->pid);
	bi(s, 2, o->kind);
	bi(s, 3, o->object_kind);
	bi(s, 4, (long long)o->object_id);
	bt(s, 5, o->start);
	bt(s, 6, o->end);
	bi(s, 7, o->correlation);
	return step(c->w, s);
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
	sqlite3_stmt *s = c->w->st[ST_NVTX];
	for (size_t i = 0; i < c->nv_n; i++) {
		struct nvtx_open *o = &c->nv[i];
		int mark = (o->flags & 1) != 0;
		bi(s, 1, c->pid);
		bi(s, 2, o->tid);
		bi(s, 3, mark);
		bs(s, 4, lstr(c, o->domain));
		bs(s, 5, lstr(c, o->name));
		bt(s, 6, o->start);
		bi_opt(s, 7, (long long)o->end, !mark && o->closed && o->end);
		bi_opt(s, 8, o->color, o->has_data);
		bi_opt(s, 9, o->category, o->has_data);
		if (o->has_payload)
			sqlite3_bind_double(s, 10, o->payload);
		if (step(c->w, s))
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
	[GD_RAW_STATUS] = sizeof(struct gd_raw_status_rec),
};

static int upsert_process(struct gd_pw *w, const struct gd_raw_header *h, const struct gd_raw_stats *st,
			  int64_t cmd, uint64_t start, uint64_t end, uint32_t ppid)
{
	sqlite3_stmt *s;
	int rc;
	const char *sql = "INSERT OR REPLACE INTO processes(pid,ppid,command_line,start_ns,end_ns,traced,status,"
			  "cupti_version,raw_records,raw_truncated) VALUES(?,?,(SELECT value FROM strings WHERE id=?),"
			  "?,?,?,?,?,?,?)";
	if (sqlite3_prepare_v2(w->db, sql, -1, &s, NULL))
		return db_err(w, "processes");
	bi(s, 1, h->pid);
	bi(s, 2, ppid ? ppid : h->ppid);
	bi(s, 3, cmd);
	bi_opt(s, 4, (long long)(start ? start : h->start_ns), 1);
	bt(s, 5, end);
	bi(s, 6, st->status == GD_RAW_ST_OK);
	sqlite3_bind_text(s, 7, status_name(st->status), -1, SQLITE_STATIC);
	bi(s, 8, h->cupti_version);
	bi(s, 9, st->records);
	bi(s, 10, st->truncated);
	rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? GD_OK : db_err(w, "processes");
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
			if (s->len > r.size - sizeof(*s) || !s->id || s->id > (1u << 30)) {
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
		case GD_RAW_CONTEXT: {
			const struct gd_raw_context *x = (const void *)p;
			sqlite3_stmt *s = w->st[ST_CONTEXT];
			bi(s, 1, c.pid), bi(s, 2, x->context), bi(s, 3, dev(&c, x->device)), bi(s, 4, x->null_stream);
			rc = step(w, s);
			break;
		}
		case GD_RAW_STREAM: {
			const struct gd_raw_stream *x = (const void *)p;
			sqlite3_stmt *s = w->st[ST_STREAM];
			bi(s, 1, c.pid), bi(s, 2, x->stream), bi(s, 3, x->context), bi(s, 4, x->priority);
			bi(s, 5, x->flags), bi(s, 6, x->correlation);
			rc = step(w, s);
			break;
		}
		case GD_RAW_DEVICE: rc = raw_device(&c, (const void *)p); break;
		case GD_RAW_DROPPED: {
			const struct gd_raw_dropped *x = (const void *)p;
			sqlite3_stmt *s = w->st[ST_DROPPED];
			bi(s, 1, c.pid);
			sqlite3_bind_text(s, 2, x->source ? "gpudiag" : "cupti", -1, SQLITE_STATIC);
			bi_opt(s, 3, x->context, x->context != 0);
			bi_opt(s, 4, x->stream, x->source == 0);
			bi(s, 5, (long long)x->count);
			rc = step(w, s);
			break;
		}
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
		{"nvml_samples", "t"},
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
		/* NVTX ranges are kept when they overlap a window, so the named range itself stays. */
		if (!strcmp(timed[i][0], "nvtx"))
			snprintf(sql, sizeof(sql),
				 "DELETE FROM nvtx WHERE NOT EXISTS (SELECT 1 FROM capture_ranges c WHERE "
				 "nvtx.start <= c.end AND COALESCE(nvtx.end, nvtx.start) >= c.start)");
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

int gd_pw_close(struct gd_pw *w, int commit)
{
	int rc = GD_OK;
	if (!w)
		return GD_OK;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	if (commit && ((w->late_sql && exec(w, w->late_sql)) || exec(w, "PRAGMA analysis_limit=1000; ANALYZE") ||
		       exec(w, "COMMIT")))
		rc = GD_EFAIL;
	if (sqlite3_close(w->db) != SQLITE_OK && commit)
		rc = gd_error(GD_EFAIL, "cannot close '%s'", w->tmp);
	if (commit && rc == GD_OK && rename(w->tmp, w->path) != 0)
		rc = gd_error(GD_EFAIL, "cannot write '%s': %s", w->path, strerror(errno));
	if (!commit || rc != GD_OK)
		unlink(w->tmp);
	for (size_t i = 0; i < w->cap; i++)
		free(w->tab[i].s);
	free(w->tab);
	free(w->byid);
	free(w->names);
	free(w);
	return rc;
}
