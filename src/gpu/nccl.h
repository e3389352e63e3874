/* `gpudiag nccl` (issue 22, guide §12): collective bandwidth over the GPUs of this machine
 * through NCCL, loaded at run time (docs/nccl.md).
 *
 * NCCL is dlopen'ed like NVML and cuBLASLt: GPUDIAG_LIBNCCL names a library to use; otherwise
 * libnccl.so.2 on the loader's path, then the copy PyTorch's wheels ship in Python's
 * site-packages (nvidia/<pkg>/lib/libnccl.so.2), then the CUDA toolkit's lib64. Device memory
 * and streams go through the driver API (the same library gpudiag's driver module opens,
 * GPUDIAG_LIBCUDA), so the CPU tier drives the whole command with stand-ins for both
 * (tests/mock/mock_cuda.c, tests/mock/mock_nccl.c).
 *
 * One process drives every GPU (ncclCommInitAll, one group call per iteration), as nccl-tests
 * does with -g N. The sizes, bandwidths and their factors are nccl-tests' (its doc/PERFORMANCE.md):
 * S is the size in bytes of the whole array (AllGather: every rank's part together; ReduceScatter:
 * the input; AllToAll: what each rank sends), algbw = S / t, busbw = algbw × a factor of the
 * rank count n. Data are float32 small integers, so every sum is exact and the check compares
 * each element for equality. */
#ifndef GPUDIAG_NCCL_H
#define GPUDIAG_NCCL_H

#include <stddef.h>
#include <stdint.h>

enum gd_coll { GD_COLL_ALLREDUCE = 0, GD_COLL_ALLGATHER, GD_COLL_REDUCESCATTER, GD_COLL_BROADCAST, GD_COLL_ALLTOALL,
	       GD_COLL_COUNT };

const char *gd_coll_name(int c);        /* "AllReduce", "AllGather", "ReduceScatter", "Broadcast", "AllToAll" */
const char *gd_coll_key(int c);         /* "allreduce", ... (--op values, JSON) */
int gd_coll_parse(const char *key);     /* -1 unknown */
/* nccl-tests' bus bandwidth factor for n ranks: AllReduce 2(n-1)/n, AllGather, ReduceScatter and
 * AllToAll (n-1)/n, Broadcast 1; its text ("2(n-1)/n"). For n = 1 every factor but Broadcast's
 * is 0: one rank moves nothing between GPUs. */
double gd_coll_busbw_factor(int c, int n);
const char *gd_coll_factor_text(int c);

/* The call of collective c for a size of `size` bytes over n ranks (float32 elements): count is
 * the count argument NCCL takes (per rank for AllGather, ReduceScatter and each AllToAll peer),
 * send/recv the elements of each rank's buffers, bytes the S of the formulas (nccl-tests rounds
 * the size down to whole elements per rank the same way). Returns 0, or -1 when the size is
 * below one element per rank (the size is skipped). */
struct gd_coll_shape {
	size_t count, send, recv;
	double bytes;
};
int gd_coll_shape(int c, long long size, int n, struct gd_coll_shape *sh);

/* The data: rank r's element i of its send buffer is gd_nccl_value(r, i), a float32 integer in
 * 0..250, so that sums over up to 2^16 ranks are exact. The expected element i of rank r's
 * receive buffer for collective c (root 0 for Broadcast), and the check of a whole buffer
 * (elements that differ, NaN included). */
float gd_nccl_value(int rank, size_t i);
void gd_nccl_fill(int rank, float *buf, size_t n);
float gd_nccl_expected(int c, int nranks, int rank, size_t count, size_t i);
long gd_nccl_check(int c, int nranks, int rank, size_t count, const float *recv, size_t n);

/* algbw and busbw in bytes/s from S and a time in seconds (NaN when t <= 0). */
double gd_coll_algbw(double bytes, double seconds);
double gd_coll_busbw(int c, int n, double bytes, double seconds);

/* Loads NCCL (see the top). Returns GD_OK, or GD_ENOGPU with one line naming what is missing. */
int gd_nccl_open(char *why, size_t n);
const char *gd_nccl_path(void);          /* the library loaded */
int gd_nccl_version(void);               /* NCCL_VERSION_CODE (22809 for 2.28.9), -1 unknown */
/* "2.28.9" from a version code. */
char *gd_nccl_version_text(int code, char *buf, size_t n);

/* The benchmark: communicators over `devs` (CUDA ordinals), a stream and a send and receive
 * buffer of max_bytes on each GPU, host staging for the data. */
struct gd_nccl_bench;
int gd_nccl_bench_init(struct gd_nccl_bench **b, const int *devs, int n, long long max_bytes, char *why, size_t wn);
void gd_nccl_bench_free(struct gd_nccl_bench *b);

struct gd_nccl_result {
	int coll;
	long long size;       /* as asked (--min .. --max) */
	int skipped;          /* 1: below one element per rank */
	struct gd_coll_shape sh;
	double seconds;       /* per iteration: the host clock around `iters` group calls, then a
				 synchronisation of every stream, divided by iters */
	double algbw, busbw;  /* bytes/s */
	long wrong;           /* elements of every rank's output that differ from the expected */
};
/* One size of one collective: data written, receive buffers poisoned (0xFF bytes: NaN), warmup
 * iterations, timed iterations, every rank's output checked. GD_OK (a wrong result is
 * r->wrong, not an error), or GD_EFAIL with the reason (an NCCL or driver error). */
int gd_nccl_bench_run(struct gd_nccl_bench *b, int c, long long size, int warmup, int iters,
		      struct gd_nccl_result *r, char *why, size_t wn);

/* How two GPUs are linked, from NVML (src/gpu/nccl_topo.c). */
enum gd_link_kind { GD_LINK_UNKNOWN = 0, GD_LINK_SAME, GD_LINK_NVLINK, GD_LINK_NVSWITCH, GD_LINK_PCIE };
struct gd_link {
	int kind;
	int nvlinks;            /* NVLink links between them (direct), or each GPU's links to the switch; -1 unknown */
	int pcie_level;         /* NVML topology level of their common ancestor, -1 unknown */
	char text[64];          /* "NVLink ×18 (NVSwitch)", "PCIe, same switch (PIX)", "unknown" */
	char code[8];           /* nvidia-smi topo's: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS", "X", "?" */
};
/* The text and code of a link from what NVML said: NVLink P2P status (1 ok, 0 not, -1 unknown),
 * active links to the peer and to switches, the PCIe common-ancestor level (-1 unknown). */
void gd_link_describe(struct gd_link *l, int nvlink_p2p, int links_to_peer, int links_to_switch, int pcie_level);
/* The link between CUDA devices a and b (NVML matched by UUID). Never fails: unknown parts say so. */
void gd_nccl_link(int a, int b, struct gd_link *l);

#endif
