// 4 host threads, each with its own non-blocking stream, 50 kernels each. Exit 0.
#include "common.h"
#include <pthread.h>

static float *buf[4];

static void *work(void *arg)
{
	long t = (long)arg;
	cudaStream_t s;
	CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	burst(buf[t], 1 << 18, 50, s);
	CK(cudaStreamDestroy(s));
	return NULL;
}

int main(void)
{
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		CK(cudaMalloc(&buf[i], 1 << 20));
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, work, (void *)i);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	return 0;
}
