/* Chrome-trace JSON export of a profile (layout described in perfetto.c). */
#ifndef GPUDIAG_PROFILE_PERFETTO_H
#define GPUDIAG_PROFILE_PERFETTO_H

/* Writes `out_path` ("-" = stdout) atomically. GD_OK, GD_EDATA (not a profile, wrong schema
 * version; printed) or GD_EFAIL. */
int gd_export_perfetto(const char *profile, const char *out_path);

#endif
