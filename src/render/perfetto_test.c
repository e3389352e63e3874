/* CPU-tier test of the Perfetto export on a synthetic profile with hostile kernel names
 * (<, >, ", &, newlines, invalid UTF-8) and overlapping kernels on one stream; the JSON is
 * validated by python3 (tests/cli/check_trace.py). */
#include "core/status.h"
#include "core/test.h"
#include "render/perfetto.h"
#include "profile/writer.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	char dir[] = "/tmp/gd_perfetto_test.XXXXXX", raw[256], db[256], out[256], cmd[1024], err[256];
	struct gd_pw *w;
	struct gd_raw_stats st;
	sqlite3 *h;
	struct gd_nvml_sample s;
	gd_set_quiet(1);
	if (!mkdtemp(dir))
		return 1;
	snprintf(raw, sizeof(raw), "%s/raw.77", dir);
	snprintf(db, sizeof(db), "%s/p.sqlite", dir);
	snprintf(out, sizeof(out), "%s/t.json", dir);
	CHECK_INT(gd_raw_synth(raw, 77, 600, NULL, 0, 1000000000000ull), 0);
	CHECK_INT(gd_pw_open(&w, db), GD_OK);
	CHECK_INT(gd_pw_meta_int(w, "start_ns", 1000000000000LL), GD_OK);
	memset(&s, 0xff, sizeof(s));
	s.t_ns = 1000000500000.0, s.util_gpu = 87, s.sm_mhz = 1980, s.power_mw = 512000;
	CHECK_INT(gd_pw_nvml(w, 0, &s), GD_OK);
	CHECK_INT(gd_pw_add_raw(w, raw, &st, err, sizeof(err)), GD_OK);
	CHECK_INT(gd_pw_capture(w, "all", 0, 1LL << 62, 0, 0), 1);
	CHECK_INT(gd_pw_close(w, 1), GD_OK);
	/* Kernel 0 (stream 7) now overlaps kernel 2 (same stream, 20 µs later). */
	CHECK_INT(sqlite3_open(db, &h), SQLITE_OK);
	CHECK_INT(sqlite3_exec(h, "UPDATE kernels SET end=start+25000 WHERE correlation=1", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(h);

	CHECK_INT(gd_export_perfetto(db, out), GD_OK);
	snprintf(cmd, sizeof(cmd),
		 "python3 tests/cli/check_trace.py '%s' kernels=600 flows=600 lanes=1 'name=\"quoted\" & ' "
		 "'name=</script>' 'name=line\nbreak' name=vectorized_elementwise_kernel 'name=\xef\xbf\xbd' "
		 "'counter=SM clock'",
		 out);
	CHECK_INT(system(cmd), 0);
	/* Not a profile → GD_EDATA, no output file. */
	CHECK_INT(gd_export_perfetto(raw, out), GD_EDATA);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return TEST_DONE();
}
