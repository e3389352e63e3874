// CUDA in the parent, then fork() without exec: the child only computes on the CPU and calls
// exit(), running the inherited atexit handlers. It must not hang (CUPTI flush in a forked
// child blocks forever unless gpudiag guards it). The parent gives the child 20 s, then
// exits 0 if the child exited 0, 93 if it hung.
#include "common.h"
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	float *d;
	CK(cudaMalloc(&d, 1 << 20));
	burst(d, 1 << 18, 10, 0);
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		volatile double s = 0;
		for (int i = 0; i < 1000000; i++)
			s += i * 0.5;
		exit(s > 0 ? 0 : 1);
	}
	for (int t = 0; t < 200; t++) {
		int st;
		if (waitpid(p, &st, WNOHANG) == p)
			return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? (burst(d, 1 << 18, 5, 0), 0) : 94;
		struct timespec ts = {0, 100000000L};
		nanosleep(&ts, NULL);
	}
	kill(p, SIGKILL);
	return 93;
}
