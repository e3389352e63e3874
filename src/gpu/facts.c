/* Device facts gathered in one place (see facts.h). */
#include "gpu/facts.h"

#include "core/status.h"
#include "gpu/cudrv.h"

#include <cuda.h>
#include <stdio.h>
#include <string.h>

void gd_facts_read(int dev, struct gd_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->index = dev;
	gd_cu_name(dev, f->name, sizeof(f->name));
	gd_cu_uuid(dev, f->uuid, sizeof(f->uuid));
	gd_cu_pci_bus_id(dev, f->pci_bus_id, sizeof(f->pci_bus_id));
	f->cc_major = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
	f->cc_minor = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
	f->arch = f->cc_major > 0 ? gd_arch_find(f->cc_major, f->cc_minor) : NULL;
	f->sms = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
	f->warp_size = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_WARP_SIZE);
	f->max_threads_per_block = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
	f->max_threads_per_sm = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
	f->max_blocks_per_sm = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR);
	f->max_block_dim[0] = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
	f->max_block_dim[1] = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
	f->max_block_dim[2] = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
	f->max_grid_dim[0] = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
	f->max_grid_dim[1] = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
	f->max_grid_dim[2] = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
	f->regs_per_sm = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
	f->regs_per_block = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK);
	f->smem_per_sm = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR);
	f->smem_per_block = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
	f->smem_per_block_optin = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
	f->smem_reserved_per_block = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK);
	f->l2_bytes = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE);
	f->l2_persisting_max_bytes = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE);
	f->mem_bus_width_bits = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
	f->mem_clock_khz = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
	f->sm_clock_khz = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_CLOCK_RATE);
	f->async_engines = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT);
	f->concurrent_kernels = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS);
	f->ecc_enabled = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_ECC_ENABLED);
	f->mps_enabled = gd_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MPS_ENABLED);
	f->mem_total = gd_cu_total_mem(dev);
	f->nvml_index = -1;
	f->nvml.max_sm_mhz = f->nvml.max_mem_mhz = f->nvml.mem_bus_width = -1;
}

int gd_facts_read_nvml(struct gd_facts *f, char *why, size_t n)
{
	int rc = gd_nvml_open(why, n);
	if (rc != GD_OK)
		return rc;
	f->nvml_index = gd_nvml_index_by_uuid(f->uuid);
	if (f->nvml_index < 0) {
		snprintf(why, n, "NVML does not list this device");
		return GD_ENOGPU;
	}
	f->nvml_static_ok = gd_nvml_static_info(f->nvml_index, &f->nvml) == GD_OK;
	return GD_OK;
}
