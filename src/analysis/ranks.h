/* Several GPUs in one profile (issue 22, guide §12): what a distributed user needs to see.
 *
 * `gpudiag run -- torchrun --nproc-per-node N ...` records every rank's process into one profile
 * (each its pid, its GPU in `devices`). This module splits the profile into ranks, ties the NCCL
 * kernels into collectives across them, and measures, per rank:
 *   - compute (kernels that are not NCCL's), communication (NCCL kernels), copies and idle time,
 *     each the length of a union of intervals over the rank's own GPU span;
 *   - exposed communication: NCCL time not overlapped by compute kernels on the same GPU, and of
 *     it the part spent waiting for a rank that joined the collective late;
 *   - stragglers: before each collective, the rank whose last compute kernel ended last, and by
 *     how much (its lateness against the median of the others). "Last compute kernel" is the one
 *     the collective can depend on: the latest end among the compute kernels the rank launched
 *     before the collective (correlation ids order a process's launches). A collective is judged
 *     only when every rank launched compute since its previous collective of the same
 *     communicator; inside CUDA graphs (one correlation id for the whole graph) this cannot tell.
 *
 * A rank is one (process, GPU) pair that ran kernels or copies. gpudiag does not know the job's
 * own RANK numbers (they live in the processes' environments); it numbers ranks by (node, GPU,
 * pid), which under torchrun on one node is LOCAL_RANK when rank i drives GPU i. The terminal and
 * JSON name each rank by its pid and GPU so no guess is hidden.
 *
 * Collectives are matched across ranks by order: on each rank, the NCCL kernels of one stream
 * form a sequence (PyTorch and NCCL use one stream per communicator and GPU); streams of
 * different ranks belong to the same communicator ("group") when the sequences of collective
 * names agree (the first GD_RANKS_SIGNATURE names; ties by the order the streams first ran NCCL
 * work). The k-th kernel of a group on every member rank is the group's k-th collective. The
 * operation, reduction, data type, algorithm and protocol come from the kernel name
 * (gd_nccl_parse); the message size is not in the name, and CUPTI records no launch arguments:
 * bytes are unknown (NaN) unless a later source gives them.
 *
 * Several profiles of one job (one per node; gd_analysis_load_many, analysis.h) are merged into
 * one before this analysis: node k's pids are k × GD_NODE_PID_STRIDE + pid, and its clock is
 * shifted onto node 0's by the collectives (each collective ends at nearly the same moment on
 * every rank): the offset applied and its uncertainty are in gd_ranks.nodes. */
#ifndef GPUDIAG_RANKS_H
#define GPUDIAG_RANKS_H

#include "analysis/summary.h"
#include "profile/profile.h"

#include <stdint.h>

/* A merged job's process ids: node k's pid p is k * GD_NODE_PID_STRIDE + p (Linux pids stay
 * below 2^22 = 4194304, so the node and the pid read off the decimal digits). */
#define GD_NODE_PID_STRIDE 10000000
#define GD_MAX_NODES 200
/* Collective names that identify a communicator's stream across ranks. */
#define GD_RANKS_SIGNATURE 16

/* What an NCCL kernel's name says (gd_nccl_parse). Empty strings are unknown. */
struct gd_nccl_op {
	char op[16];      /* "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "Reduce", "SendRecv";
			     "" for NCCL's generic kernel, whose name does not say */
	char redop[12];   /* "sum", "prod", "min", "max", "minmax", "avg", "premulsum", "sumpostdiv"; "" none */
	char dtype[8];    /* "f32", "bf16", "f16", "f64", "i8", "u8", "i32", "u32", "i64", "u64", "f8e4m3", "f8e5m2" */
	char algo[16];    /* "ring", "tree", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat" */
	char proto[8];    /* "LL", "LL128", "Simple" */
};
/* Parses a kernel name (mangled, demangled, with or without parameters) recorded for NCCL:
 * "ncclDevKernel_AllReduce_Sum_bf16_RING_LL" (NCCL ≥ 2.19), "ncclKernel_AllReduce_RING_LL_Sum_float"
 * (older), "ncclDevKernel_Generic_4", "ncclDevKernel_SendRecv". Returns 1 when the name is an
 * NCCL kernel (o filled, unknown parts empty), 0 otherwise (o zeroed). */
int gd_nccl_parse(const char *name, struct gd_nccl_op *o);
/* "AllReduce sum bf16, ring/LL" (the parts known), at most n-1 bytes. Returns buf. */
char *gd_nccl_op_text(const struct gd_nccl_op *o, char *buf, size_t n);

struct gd_rank {
	int node;               /* profile of the job (0 for a single profile) */
	int pid;                /* as recorded on its node (the merged pid less the node's stride) */
	int device;             /* index into the profile's devices (a merged job's: after the earlier nodes') */
	int gpu;                /* the device's index on its own node (= device for one profile) */
	long kernels, nccl_kernels, copies;
	int64_t start, end;     /* first GPU activity start .. last end (kernels, copies, memsets) */
	double span_ns;         /* end - start */
	double busy_ns;         /* union of every kernel, copy and memset */
	double compute_ns;      /* union of kernels that are not NCCL's */
	double comm_ns;         /* union of NCCL kernels */
	double comm_overlap_ns; /* of comm_ns, the part overlapped by compute kernels on the same GPU
				   (any process on that GPU) */
	double comm_exposed_ns; /* comm_ns - comm_overlap_ns */
	double comm_wait_ns;    /* of comm_exposed_ns, the part spent before the last rank of the
				   collective had started its kernel (waiting on a late rank) */
	double copy_ns;         /* union of copies and memsets */
	double idle_ns;         /* span_ns - busy_ns */
	long collectives;       /* collectives matched across ranks that this rank took part in */
	long judged;            /* of them, judged for lateness (compute before it on every rank) */
	long last;              /* judged collectives where its compute ended last */
	double late_sum_ns, late_max_ns; /* its lateness in those: its ready time - the median of the
					    other ranks' (ready: the latest end among the compute
					    kernels it launched before the collective) */
	double waited_for_ns;   /* NCCL time the other ranks spent waiting for it to join (it
				   started its collective kernel last) */
};

/* A collective kind, by what the kernel name gives. */
struct gd_coll_stat {
	struct gd_nccl_op op;
	long kernels;           /* NCCL kernels of this kind (a collective over n ranks is n kernels) */
	int ranks;              /* ranks that ran one */
	double total_ns, mean_ns, min_ns, max_ns;
	double bytes;           /* message size, NaN unknown (see above) */
};

/* One profile of a job of several (one per node), and how its clock was put on node 0's. */
struct gd_node {
	char path[1024];
	int aligned;            /* 1: offset from matched collectives; 0: taken as recorded */
	double offset_ns;       /* added to every time of this profile (0 for node 0) */
	double uncertainty_ns;  /* median absolute deviation of the per-collective offsets; NaN unknown */
	long matched;           /* collectives used */
	char note[200];         /* why not aligned, or a caution ("" none) */
	int dev0;               /* its first device in the merged profile's devices */
};

struct gd_ranks {
	struct gd_rank *r;      /* by (node, device, pid) */
	int nr;
	int nccl_ranks;         /* ranks that ran NCCL kernels */
	struct gd_coll_stat *ops; /* by total time, descending */
	int nops;
	int groups;             /* communicator streams matched across at least two ranks */
	long matched;           /* collectives matched across ranks (every group) */
	long judged;            /* of them, judged for lateness */
	long mismatched;        /* positions where the ranks' collective names disagree: not judged */
	long unmatched;         /* NCCL kernels beyond the shortest member's sequence of their group,
				   or on a stream no other rank matches */
	int straggler;          /* index into r of the rank with the most lateness; -1 none */
	double others_wait_ns;  /* NCCL time the other ranks spent waiting for the straggler */
	double others_comm_ns;  /* their NCCL time in all */
	double others_span_ns;  /* their spans, summed */
	struct gd_node *nodes;  /* the profiles of the job; nnodes = 1 for a single profile */
	int nnodes;
};

/* The rank analysis of a finished profile (and its summary, for the kernel kinds). nodes may be
 * NULL (a single profile; one node named after p->path) or the alignment of the merged profiles
 * (copied). Returns GD_OK or GD_EFAIL (out of memory; nothing to free). */
int gd_ranks_compute(const struct gd_profile *p, const struct gd_node *nodes, int nnodes, struct gd_ranks *r);
void gd_ranks_free(struct gd_ranks *r);
/* "rank 2 (pid 5003, GPU 2)", or with several nodes "rank 3 (node 1, pid 5002, GPU 1)" (the GPU
 * numbered as on its node). */
char *gd_rank_label(const struct gd_ranks *r, int i, char *buf, size_t n);
/* Sorts v by start (when it is not sorted) and merges overlapping or touching intervals in
 * place, dropping any whose end is before its start; returns the new length. */
long gd_interval_merge(struct gd_interval *v, long n);
/* A profile worth a ranks section: two or more ranks, or NCCL kernels, or several nodes. */
int gd_ranks_shown(const struct gd_ranks *r);

/* The collective timing of one profile, for aligning clocks between profiles (multi.c): per group
 * (by signature and ordinal), the median end time of each collective over the group's ranks. */
struct gd_coll_timeline {
	uint64_t key;           /* signature hash mixed with the ordinal */
	long n;
	int64_t *end;           /* median end of the k-th collective over the group's ranks */
	uint32_t *op;           /* hash of the k-th collective's name text (0: the ranks disagree) */
};
struct gd_coll_timelines {
	struct gd_coll_timeline *g;
	int ng;
};
int gd_coll_timelines(const struct gd_profile *p, struct gd_coll_timelines *t);
void gd_coll_timelines_free(struct gd_coll_timelines *t);

#endif
