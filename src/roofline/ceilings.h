/* Measured ceilings of one GPU, as `gpudiag roofline` records them in the user's cache
 * directory, so that labs and `gpudiag run` can place a kernel against what *this* card
 * reaches (and say "datasheet" when nothing was measured). Owned by src/roofline/. */
#ifndef GPUDIAG_CEILINGS_H
#define GPUDIAG_CEILINGS_H

#include "gpu/arch.h"

struct gd_ceilings {
	char uuid[96], gpu_name[96], driver[80];
	double measured_at;          /* unix time */
	int sm_clock_mhz;            /* median SM clock during the measurements */
	/* bytes per second; NaN = not measured */
	double dram_read, dram_write, dram_copy; /* copy counts bytes read + written */
	double l2, smem, l1;
	/* FLOP/s; NaN = not measured or unsupported */
	double cuda_core[GD_P_COUNT];
	double tensor[GD_P_COUNT];    /* best of the project's own tensor kernels */
	double gemm_lib[GD_P_COUNT];  /* cuBLASLt 8192³ (the achievable line) */
	double sfu;                   /* special-function results per second */
	/* space-separated names of the tests (gd_rl_kind_name) that failed their output check or
	 * hit a CUDA error in the run that wrote these figures; their figures are NaN. "" = none */
	char failed[256];
};

/* Loads the cached ceilings for the GPU with this UUID. Returns 0 when found and matching
 * the current driver; -1 otherwise (c is then filled with NaNs). */
int gd_ceilings_load(const char *uuid, const char *driver, struct gd_ceilings *c);
/* Writes them atomically to the cache. Returns GD_OK or an error code (printed). */
int gd_ceilings_save(const struct gd_ceilings *c);
/* Fills every figure with NaN. */
void gd_ceilings_clear(struct gd_ceilings *c);

/* Extensions (roofline module). */
#include <stdio.h>
/* The cache file of a GPU: "<cache dir>/roofline-<uuid>.txt" (the folder is not created here;
 * gd_ceilings_save creates it). 0 on success. */
int gd_ceilings_path(const char *uuid, char *buf, size_t n);
/* Writes / parses the text form ("key value" lines). Parse returns 0 when the text holds a
 * format-1 record with a UUID; missing keys stay NaN. */
int gd_ceilings_write(const struct gd_ceilings *c, FILE *f);
int gd_ceilings_parse(const char *text, struct gd_ceilings *c);
/* Paths of every cached ceilings file (at most max). Returns the count. */
int gd_ceilings_list(char paths[][4096], int max);

#endif
