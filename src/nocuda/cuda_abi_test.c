/* The stand-in cuda.h of the build without the toolkit (src/nocuda/) against the toolkit's:
 * every attribute and result number, and the layout of the types, must be the driver's.
 * Built with the toolkit only (CMakeLists.txt); the checks are at compile time, and the
 * program also prints how many it made so the test log shows it ran. */
#include "nocuda/cuda_abi.h"

#include <cuda.h>
#include <stdio.h>

#define CHECK_ATTR(name, value) \
	_Static_assert(CU_DEVICE_ATTRIBUTE_##name == (value), "CU_DEVICE_ATTRIBUTE_" #name " is not " #value);
#define CHECK_RESULT(name, value) _Static_assert(CUDA_##name == (value), "CUDA_" #name " is not " #value);
GD_CU_DEVICE_ATTRIBUTES(CHECK_ATTR)
GD_CU_RESULTS(CHECK_RESULT)
_Static_assert(sizeof(CUuuid) == GD_CU_UUID_BYTES, "CUuuid is not 16 bytes");
_Static_assert(sizeof(CUdevice) == sizeof(int), "CUdevice is not an int");

#define COUNT(name, value) +1
int main(void)
{
	int n = 0 GD_CU_DEVICE_ATTRIBUTES(COUNT) GD_CU_RESULTS(COUNT);
	printf("%d driver API numbers of the stand-in cuda.h match the toolkit's\n", n);
	return n > 0 ? 0 : 1;
}
