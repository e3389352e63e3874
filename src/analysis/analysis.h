/* The analysis of one profile: the profile itself, its summary, its verdicts, its statistics
 * tables and its framework view, computed once, in that order (the framework view then adds
 * the op and module to the verdicts' evidence). Every renderer (terminal, JSON, HTML) reads a const gd_analysis and
 * computes none of it again; `gpudiag diff` compares two of them (analysis/compare.h). */
#ifndef GPUDIAG_ANALYSIS_H
#define GPUDIAG_ANALYSIS_H

#include "analysis/ranks.h"
#include "analysis/framework.h"
#include "analysis/steady.h"
#include "analysis/summary.h"
#include "analysis/tables.h"
#include "analysis/verdict.h"
#include "profile/profile.h"

#include <stddef.h>

/* How the profiled program ended, for the top of every report: the process `gpudiag run`
 * started (the one the profile records an exit status for), and how many processes the
 * profile holds. known = 0: the profile records no exit status (an older or a synthetic one). */
struct gd_run_exit {
	int known;
	int pid;
	int exit_code;    /* as the shell sees it: 128 + N for signal N */
	int exit_signal;  /* 0: exited normally */
	long processes;   /* processes in the profile (descendants included) */
	long untraced;    /* of them, ran without CUPTI records */
};

struct gd_analysis {
	struct gd_profile p;
	struct gd_summary s;  /* of p */
	struct gd_verdicts v; /* of p and s */
	struct gd_run_exit run;
	struct gd_stat_tables t; /* API, NVTX, stream and thread tables of p (tables.h) */
	struct gd_ranks r;       /* ranks, collectives, stragglers and the job's nodes (ranks.h) */
	struct gd_framework fw;  /* the PyTorch op and module view of p (framework.h) */
	struct gd_loop_view loop; /* the main loop iteration by iteration, NVML in it (steady.h) */
};

/* Loads the profile at path, then computes its summary and verdicts. Returns GD_OK, or the
 * reader's status (GD_EDATA for an unreadable/corrupt/wrong-version file) with the reason in
 * why, or GD_EFAIL with "out of memory". On failure nothing is left to free. */
int gd_analysis_load(const char *path, struct gd_analysis *a, char *why, size_t n);
/* The summary and verdicts of a->p, a profile built in memory and finished
 * (gd_profile_finish), as the unit tests build theirs. Returns
 * GD_OK or GD_EFAIL (out of memory); a->p is left in place either way, so gd_analysis_free
 * is always the one call that releases everything. */
int gd_analysis_of(struct gd_analysis *a);
/* Several profiles of one job (one per node, issue 22): each loaded, its clock put on the first
 * profile's by the collectives they share (the offset and its uncertainty in a->r.nodes), merged
 * into one profile (node k's pids k * GD_NODE_PID_STRIDE + pid, its devices after the earlier
 * nodes'), then analysed as one. n = 1 is gd_analysis_load. Returns as gd_analysis_load, or
 * GD_EUSAGE (a file given twice, more than GD_MAX_NODES) with the reason in why. */
int gd_analysis_load_many(const char *const *paths, int n, struct gd_analysis *a, char *why, size_t wn);
/* gd_analysis_of with the nodes of a merged job (copied into a->r.nodes). */
int gd_analysis_of_nodes(struct gd_analysis *a, const struct gd_node *nodes, int nnodes);
/* The program's end in one sentence, the same for every renderer ("" when unknown); returns
 * 1 when it failed (a signal or a non-zero exit code), else 0. */
int gd_run_exit_text(const struct gd_run_exit *r, char *buf, size_t n);
/* Frees the tables, the summary and the profile. */
void gd_analysis_free(struct gd_analysis *a);

#endif
