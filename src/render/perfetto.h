/* The Perfetto export of a profile: Chrome-trace JSON (perfetto.c) or Perfetto's native
 * protobuf trace (perfetto_pb.c); the same tracks, slices, arrows and counters. */
#ifndef GPUDIAG_PROFILE_PERFETTO_H
#define GPUDIAG_PROFILE_PERFETTO_H

/* Writes `out_path` ("-" = stdout) atomically. GD_OK, GD_EDATA (not a profile, wrong schema
 * version; printed) or GD_EFAIL. */
int gd_export_perfetto(const char *profile, const char *out_path);
/* The same as a native Perfetto trace (a protobuf `Trace`); the same codes. */
int gd_export_perfetto_pb(const char *profile, const char *out_path);

/* A copy's kind as both formats name it in "memcpy HtoD" ("?" when unknown; the memory kinds
 * are analysis/tables.h's gd_memory_kind_name). */
const char *gd_perfetto_copy_kind(int kind);

#endif
