// Stage 1 launches 10 kernels, waits 1.5 s (a periodic flush writes them), then execs itself
// as stage 2 (same pid) which launches 20 kernels and exits 3.
#include "common.h"
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	float *d;
	int stage2 = argc > 1 && !strcmp(argv[1], "stage2");
	CK(cudaMalloc(&d, 1 << 20));
	burst(d, 1 << 18, stage2 ? 20 : 10, 0);
	if (stage2)
		return 3;
	usleep(1500000);
	fflush(NULL);
	execl("/proc/self/exe", argv[0], "stage2", (char *)NULL);
	return 95;
}
