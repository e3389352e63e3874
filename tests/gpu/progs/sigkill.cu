// 100 kernels, a 1.5 s pause, then SIGKILL to itself mid-run (no exit handler can run):
// exit 137; the periodically flushed records must be in the profile.
#include "common.h"
#include <signal.h>
#include <unistd.h>

int main(void)
{
	float *d;
	CK(cudaMalloc(&d, 1 << 20));
	burst(d, 1 << 18, 100, 0);
	usleep(1500000);
	burst(d, 1 << 18, 10, 0); /* these may be lost: killed before the next flush */
	kill(getpid(), SIGKILL);
	return 96;
}
