/* CPU-tier test of libgpudiag_inject.so against a fake libcupti (fake_cupti.c): a child
 * process loads the library as the driver would, gets synthetic CUPTI records delivered
 * through its buffer callbacks (one periodic flush, one at exit), forks a child that exits
 * without exec (it must not flush), and exits; the parent merges the raw file with the real
 * writer and checks every field that matters. Also: another CUPTI subscriber present
 * (cupti_busy) and a different libcupti version (cupti_version) → unprofiled, said so.
 * usage: inject_check INJECT_SO FAKE_CUPTI_DIR
 *        inject_check bench INJECT_SO FAKE_CUPTI_DIR  (not a test: prints the CPU cost per
 *        record of the buffer-completed callback, kernel + runtime API records) */
#include "core/status.h"
#include "core/test.h"
#include "profile/writer.h"

#include <cupti.h>
#include <dirent.h>
#include <dlfcn.h>
#include "profile/test_sql.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define T0 1800000000000000000ull
static char gate_end[64];
static const char hostile[] = "_Z6kernelIiEvPKc<\"&\n\xff";

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The callback path's CPU cost: rounds of (kernel + cudaLaunchKernel API) record pairs, 64
 * distinct kernel names of 300 characters (PyTorch-like templated names), delivered by one
 * flush per round, as CUPTI's worker thread would. Prints ns per record (min over rounds). */
static int bench(void (*emit)(const void *, size_t), CUptiResult (*flush)(uint32_t))
{
	enum { NAMES = 64, PAIRS = 12000, ROUNDS = 30 }; /* fits a 4 MB buffer too */
	static char names[NAMES][301];
	double best = 1e30, t;
	uint64_t ts = T0;
	for (int n = 0; n < NAMES; n++) {
		memset(names[n], 'a' + n % 26, 300);
		memcpy(names[n], "_ZN2at6native", 13);
		snprintf(names[n] + 280, 21, "_kernel_%06d_v", n);
		names[n][300] = 0;
	}
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < PAIRS; i++) {
			CUpti_ActivityKernel10 k;
			CUpti_ActivityAPI a;
			memset(&a, 0, sizeof(a));
			a.kind = CUPTI_ACTIVITY_KIND_RUNTIME, a.cbid = 211, a.start = ts, a.end = ts + 2000;
			a.threadId = 42, a.correlationId = (uint32_t)i;
			emit(&a, sizeof(a));
			memset(&k, 0, sizeof(k));
			k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = ts + 3000, k.end = ts + 4000;
			k.contextId = 1, k.streamId = 7, k.correlationId = (uint32_t)i, k.name = names[i % NAMES];
			k.gridX = k.gridY = k.gridZ = k.blockX = k.blockY = k.blockZ = 1;
			emit(&k, sizeof(k));
			ts += 5000;
		}
		t = mono();
		flush(0);
		t = mono() - t;
		if (t < best)
			best = t;
	}
	printf("inject bench: %d records per flush (%d kernels + %d runtime API), %d rounds: "
	       "%.1f ns per record (min over rounds; callback path incl. write(2))\n",
	       2 * PAIRS, PAIRS, PAIRS, ROUNDS, best * 1e9 / (2.0 * PAIRS));
	{
		/* the application thread's cost of one traced API call (enter + exit callbacks,
		 * timestamps from the fake, the per-thread buffer; draining included) */
		uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
			(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
		enum { CALLS = 1000000 };
		if (!call || !call(0, 211, 0, NULL))
			return 1;
		best = 1e30;
		for (int r = 0; r < 5; r++) {
			t = mono();
			for (int i = 0; i < CALLS; i++)
				call(0, 211, 0, NULL);
			t = mono() - t;
			best = t < best ? t : best;
		}
		printf("inject bench: %.1f ns per traced API call on the application's thread "
		       "(1 M cudaLaunchKernel callbacks through the fake, min of 5)\n", best * 1e9 / CALLS);
	}
	return 0;
}

static void nested_driver_launch(void)
{
	uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
		(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
	if (call)
		call(1, 307, 0, NULL);
}

static int child(const char *inject)
{
	void *h = dlopen(inject, RTLD_NOW | RTLD_GLOBAL);
	int (*init)(void), (*nvtx)(const void *), (*api_enabled)(void), (*nvtx_called)(void);
	void (*emit)(const void *, size_t), (*drop)(size_t);
	CUptiResult (*flush)(uint32_t);
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 50;
	}
	init = (int (*)(void))dlsym(h, "InitializeInjection");
	nvtx = (int (*)(const void *))dlsym(h, "InitializeInjectionNvtx2");
	emit = (void (*)(const void *, size_t))dlsym(RTLD_DEFAULT, "fake_cupti_emit");
	drop = (void (*)(size_t))dlsym(RTLD_DEFAULT, "fake_cupti_drop");
	flush = (CUptiResult(*)(uint32_t))dlsym(RTLD_DEFAULT, "cuptiActivityFlushAll");
	api_enabled = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_api_enabled");
	nvtx_called = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_nvtx_called");
	if (!init || !nvtx || !emit || !flush || !drop || !api_enabled || !nvtx_called)
		return 51;
	CHECK_INT(init(), 1);
	CHECK_INT(nvtx(NULL), 1);
	CHECK_INT(nvtx_called(), 1);
	if (getenv("FAKE_CUPTI_BUSY") || getenv("FAKE_CUPTI_VERSION"))
		return gd_t_fail;
	if (getenv("GPUDIAG_CAPTURE_START_NS")) { /* --delay 0.4 --duration 0.6 */
		int (*on)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_kernel_enabled");
		CHECK_INT(on(), 0);
		usleep(700000);
		CHECK_INT(on(), 1);
		usleep(800000);
		CHECK_INT(on(), 0);
		return gd_t_fail;
	}
	CHECK(api_enabled() >= 2); /* the subset: cudaLaunchKernel and cudaMemcpy of the fake */
	{
		int (*lat)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_latency_enabled");
		int (*kind)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "fake_cupti_api_kind_enabled");
		CHECK(lat && kind);
		if (lat && kind) {
			/* latency timestamps only with GPUDIAG_LATENCY=1 (gpudiag run --latency); the
			 * subset is enabled per cbid, never as the whole RUNTIME/DRIVER kind */
			CHECK_INT(lat(), getenv("GPUDIAG_LATENCY") ? 1 : 0);
			CHECK_INT(kind(), 0);
		}
	}
	if (getenv("INJECT_BENCH"))
		return bench(emit, flush);
	if (getenv("CHECK_CALLBACKS")) {
		/* API calls through the callback path: a runtime launch with its nested driver
		 * launch (one record), a driver launch of its own, a failing cudaMemcpy, and a call
		 * outside the subset (its callback is never enabled) */
		uint32_t (*call)(int, uint32_t, int, void (*)(void)) =
			(uint32_t(*)(int, uint32_t, int, void (*)(void)))dlsym(RTLD_DEFAULT, "fake_cupti_call");
		CHECK(call != NULL);
		if (call) {
			CHECK(call(0, 211, 0, nested_driver_launch) > 0);
			CHECK(call(1, 307, 0, NULL) > 0);
			CHECK(call(0, 31, 2, NULL) > 0);
			CHECK_INT((int)call(0, 5, 0, NULL), 0);
		}
	}
	{
		CUpti_ActivityDevice5 d;
		CUpti_ActivityContext3 c;
		CUpti_ActivityStream s;
		memset(&d, 0, sizeof(d));
		d.kind = CUPTI_ACTIVITY_KIND_DEVICE, d.id = 0, d.numMultiprocessors = 132, d.computeCapabilityMajor = 9;
		d.numThreadsPerWarp = 32, d.maxWarpsPerMultiprocessor = 64, d.name = "Fake H200";
		for (int i = 0; i < 16; i++)
			d.uuid.bytes[i] = (char)(0x10 + i);
		emit(&d, sizeof(d));
		memset(&c, 0, sizeof(c));
		c.kind = CUPTI_ACTIVITY_KIND_CONTEXT, c.contextId = 1, c.deviceId = 0, c.nullStreamId = 7;
		emit(&c, sizeof(c));
		memset(&s, 0, sizeof(s));
		s.kind = CUPTI_ACTIVITY_KIND_STREAM, s.contextId = 1, s.streamId = 7, s.flag = CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL;
		emit(&s, sizeof(s));
	}
	for (int i = 0; i < 3; i++) {
		CUpti_ActivityKernel10 k;
		CUpti_ActivityAPI a;
		char *name = malloc(64); /* a fresh pointer each time: interning is by content */
		snprintf(name, 64, "%s", i == 2 ? hostile : "_ZN2ns3fooEv");
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_RUNTIME, a.cbid = 211, a.start = T0 + i * 10000ull, a.end = a.start + 2000;
		a.processId = (uint32_t)getpid(), a.threadId = 42, a.correlationId = (uint32_t)(100 + i);
		emit(&a, sizeof(a));
		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = T0 + i * 10000ull + 3000, k.end = k.start + 1500;
		k.queued = k.start - 2500, k.submitted = k.start - 1000;
		k.deviceId = 0, k.contextId = 1, k.streamId = 7, k.correlationId = (uint32_t)(100 + i);
		k.gridX = 120, k.gridY = k.gridZ = 1, k.blockX = 256, k.blockY = k.blockZ = 1, k.registersPerThread = 40;
		k.staticSharedMemory = 1024, k.dynamicSharedMemory = 2048, k.name = name, k.launchType = 1;
		emit(&k, sizeof(k));
	}
	{
		CUpti_ActivityMemcpy6 m;
		CUpti_ActivityMarker2 mk;
		CUpti_ActivitySynchronization2 y;
		memset(&m, 0, sizeof(m));
		m.kind = CUPTI_ACTIVITY_KIND_MEMCPY, m.copyKind = 1, m.srcKind = 1, m.dstKind = 3, m.bytes = 1 << 20;
		m.start = T0 + 50000, m.end = T0 + 60000, m.contextId = 1, m.streamId = 7, m.correlationId = 200;
		emit(&m, sizeof(m));
		memset(&mk, 0, sizeof(mk));
		mk.kind = CUPTI_ACTIVITY_KIND_MARKER, mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_START, mk.id = 9;
		mk.timestamp = T0, mk.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD, mk.objectId.pt.threadId = 42;
		mk.name = "step", mk.domain = NULL;
		emit(&mk, sizeof(mk));
		mk.flags = CUPTI_ACTIVITY_FLAG_MARKER_END, mk.timestamp = T0 + 40000, mk.name = NULL;
		emit(&mk, sizeof(mk));
		memset(&y, 0, sizeof(y));
		y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
		y.start = T0 + 40000, y.end = T0 + 45000, y.contextId = 1, y.streamId = 0xFFFFFFFFu, y.correlationId = 300;
		emit(&y, sizeof(y));
	}
	drop(5);
	flush(0); /* what the periodic thread does */
	{
		CUpti_ActivityKernel10 k;
		memset(&k, 0, sizeof(k));
		k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k.start = T0 + 70000, k.end = T0 + 71000;
		k.contextId = 1, k.streamId = 7, k.correlationId = 400, k.name = "last_kernel_flushed_at_exit";
		emit(&k, sizeof(k));
	}
	fflush(NULL);
	{
		pid_t p = fork();
		int st;
		if (p == 0)
			exit(0); /* inherited exit handler: must not flush */
		waitpid(p, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	return gd_t_fail; /* exit(): the library's exit handler flushes the last kernel */
}


/* Runs the child with the environment `extra` ("NAME=value" or NULL), merges its raw files
 * into dir/p.sqlite; returns the number of raw files. */
static int run(const char *self, const char *inject, const char *fake, const char *extra, char *dir, char *db)
{
	pid_t p;
	int st, nraw = 0;
	struct gd_pw *w;
	DIR *d;
	struct dirent *de;
	strcpy(dir, "/tmp/gd_inject_check.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	p = fork();
	if (p == 0) {
		setenv("GPUDIAG_RAW_DIR", dir, 1);
		setenv("LD_LIBRARY_PATH", fake, 1);
		if (extra)
			putenv((char *)extra);
		if (extra && gate_end[0] && !strncmp(extra, "GPUDIAG_CAPTURE_START_NS=", 25))
			putenv(gate_end);
		execl(self, self, "child", inject, (char *)NULL);
		_exit(60);
	}
	waitpid(p, &st, 0);
	CHECK_INT(WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st), 0);
	sprintf(db, "%s/p.sqlite", dir);
	if (gd_pw_open(&w, db))
		return -1;
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char path[600], err[256];
		struct gd_raw_stats rs;
		if (strncmp(de->d_name, "raw.", 4))
			continue;
		nraw++;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		CHECK_INT(gd_pw_add_raw(w, path, &rs, err, sizeof(err)), GD_OK);
		CHECK_INT(rs.truncated, 0);
	}
	closedir(d);
	gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	return nraw;
}

static void remove_dir(const char *dir)
{
	char cmd[200];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	CHECK_INT(system(cmd), 0);
}

int main(int argc, char **argv)
{
	char dir[64], db[128], path[200];
	if (argc == 3 && !strcmp(argv[1], "child"))
		return child(argv[2]);
	if (argc == 4 && !strcmp(argv[1], "bench")) {
		gd_set_quiet(1);
		return run(argv[0], argv[2], argv[3], "INJECT_BENCH=1", dir, db) == 1 ? 0 : 1;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: inject_check INJECT_SO FAKE_CUPTI_DIR\n");
		return 2;
	}
	gd_set_quiet(1);

	CHECK_INT(run(argv[0], argv[1], argv[2], NULL, dir, db), 1); /* the forked child left no file */
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 4);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels_v WHERE name_str='last_kernel_flushed_at_exit'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels_v WHERE short_name_str='foo' AND demangled_str='ns::foo()'"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels k JOIN strings s ON s.id=k.name WHERE s.value=CAST(X'5F5A366B65726E656C49694576504B633C22260AFF' AS TEXT)"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM strings WHERE value='_ZN2ns3fooEv'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT regs*1000000 + static_smem*100 + dyn_smem/1024 FROM kernels WHERE correlation=100"), 40102402);
	CHECK_INT(gd_test_q1(db, "SELECT submitted-queued FROM kernels WHERE correlation=101"), 1500);
	CHECK_INT(gd_test_q1(db, "SELECT launch_type FROM kernels WHERE correlation=102"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v a JOIN kernels k ON k.pid=a.pid AND k.correlation=a.correlation "
			 "WHERE a.name_str='cudaLaunchKernel_v7000' AND k.start-a.start=3000 AND a.tid=42"),
		  3);
	CHECK_INT(gd_test_q1(db, "SELECT src_kind*10+copy_kind FROM memcpy"), 11);
	CHECK_INT(gd_test_q1(db, "SELECT end-start FROM nvtx n JOIN strings s ON s.id=n.name WHERE s.value='step' AND n.tid=42"), 40000);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM sync WHERE type=4 AND stream IS NULL"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT count FROM dropped WHERE source='cupti'"), 5);
	CHECK_INT(gd_test_q1(db, "SELECT null_stream FROM contexts"), 7);
	CHECK_INT(gd_test_q1(db, "SELECT flags FROM streams WHERE stream=7"), 3);
	CHECK_INT(gd_test_q1(db, "SELECT sm_count FROM devices WHERE uuid='GPU-10111213-1415-1617-1819-1a1b1c1d1e1f'"), 132);
	CHECK_INT(gd_test_q1(db, "SELECT traced FROM processes WHERE status='ok' AND end_ns IS NOT NULL AND ppid>0"), 1);
	snprintf(path, sizeof(path), "%s/FLUSH_IN_CHILD", dir);
	CHECK(access(path, F_OK) != 0); /* the fork-without-exec child never flushed */
	remove_dir(dir);

	/* API calls recorded through callbacks (the default): one record per call, the nested
	 * driver call of a runtime call skipped, OS thread ids, return values kept */
	CHECK_INT(run(argv[0], argv[1], argv[2], "CHECK_CALLBACKS=1", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api WHERE correlation > 500000"), 3);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v WHERE correlation > 500000 AND domain=2 AND name_str='cuLaunchKernel'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT return_value FROM api_v WHERE correlation > 500000 AND name_str='cudaMemcpy_v3020'"), 2);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api WHERE correlation > 500000 AND (end <= start OR tid = 42 OR tid = 0)"), 0);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM api_v WHERE name_str LIKE '%Other%'"), 0);
	remove_dir(dir);

	/* --latency: the child checks that latency timestamps were switched on */
	CHECK_INT(run(argv[0], argv[1], argv[2], "GPUDIAG_LATENCY=1", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels WHERE queued IS NOT NULL"), 3);
	remove_dir(dir);

	CHECK_INT(run(argv[0], argv[1], argv[2], "FAKE_CUPTI_BUSY=1", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE traced=0 AND status='cupti_busy'"), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM kernels"), 0);
	remove_dir(dir);

	{
		static char gate[64];
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		long long now = (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
		/* START and END are passed together: END through a second putenv in the child. */
		snprintf(gate, sizeof(gate), "GPUDIAG_CAPTURE_START_NS=%lld", now + 400000000LL);
		snprintf(gate_end, sizeof(gate_end), "GPUDIAG_CAPTURE_END_NS=%lld", now + 1000000000LL);
		CHECK_INT(run(argv[0], argv[1], argv[2], gate, dir, db), 1);
		remove_dir(dir);
	}

	CHECK_INT(run(argv[0], argv[1], argv[2], "FAKE_CUPTI_VERSION=130100", dir, db), 1);
	CHECK_INT(gd_test_q1(db, "SELECT COUNT(*) FROM processes WHERE traced=0 AND status='cupti_version' AND cupti_version=130100"), 1);
	remove_dir(dir);
	return TEST_DONE();
}
