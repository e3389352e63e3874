// Never touches CUDA: prints and exits 4.
#include <stdio.h>

int main(void)
{
	printf("no cuda here\n");
	return 4;
}
