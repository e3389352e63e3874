/* The CUDA driver API, loaded at run time.
 *
 * gpudiag never links libcuda: the driver is dlopen'ed here so the program starts on any
 * machine and can say exactly what is missing. Set GPUDIAG_LIBCUDA to another path to use a
 * different library (the CPU-tier tests set it to a missing file to simulate a machine with
 * no driver). Attribute numbers are the CUdevice_attribute values of cuda.h. */
#ifndef GPUDIAG_CUDRV_H
#define GPUDIAG_CUDRV_H

#include <stddef.h>

/* Loads the driver and calls cuInit(0). On failure writes a one-line reason such as
 * "no NVIDIA driver: libcuda.so.1: cannot open shared object file" or
 * "no CUDA device: cuInit failed: CUDA_ERROR_NO_DEVICE" into why, and returns GD_ENOGPU.
 * Later calls return the first result. */
int gd_cu_open(char *why, size_t n);
int gd_cu_count(void);
/* An attribute value, or -1 when the driver does not answer (old driver, unknown attribute). */
int gd_cu_attr(int dev, int attr);
int gd_cu_name(int dev, char *buf, size_t n);
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", the form nvidia-smi and NVML use. */
int gd_cu_uuid(int dev, char *buf, size_t n);
int gd_cu_pci_bus_id(int dev, char *buf, size_t n);
/* Bytes of device memory, or 0. */
unsigned long long gd_cu_total_mem(int dev);
/* e.g. 13000 for CUDA 13.0, or -1. */
int gd_cu_driver_version(void);
/* The driver's name for an error code ("CUDA_ERROR_NO_DEVICE"). */
const char *gd_cu_error_name(int code);

#endif
