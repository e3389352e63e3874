// Parent launches 10 kernels, forks, the child execs this program again ("child" mode: 20
// kernels, exit 0); the parent waits and exits 0. Expect two traced processes.
#include "common.h"
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	float *d;
	int n = argc > 1 && !strcmp(argv[1], "child") ? 20 : 10;
	CK(cudaMalloc(&d, 1 << 20));
	burst(d, 1 << 18, n, 0);
	CK(cudaFree(d));
	if (n == 20)
		return 0;
	fflush(NULL);
	pid_t p = fork();
	if (p == 0) {
		execl("/proc/self/exe", argv[0], "child", (char *)NULL);
		_exit(91);
	}
	int st;
	waitpid(p, &st, 0);
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 92;
}
