/* How two GPUs are linked, from NVML (for `gpudiag nccl`; nccl.h): NVLink links between them or
 * to an NVSwitch, else the PCIe level of their common ancestor, the facts `nvidia-smi topo -m`
 * prints. NVML is loaded here with its own handle (the same library as src/gpu/nvml.c, whose
 * reference count nvmlInit keeps); only the functions below are declared, by hand. Values from
 * nvml.h: nvmlGpuTopologyLevel_t 0 internal, 10 single switch, 20 multiple switches, 30 host
 * bridge, 40 NUMA node, 50 system; nvmlGpuP2PCapsIndex_t NVLINK = 2; nvmlGpuP2PStatus_t OK = 0;
 * nvmlIntNvLinkDeviceType_t GPU 0, SWITCH 2; nvmlEnableState_t enabled 1; 18 links at most
 * (NVML_NVLINK_MAX_LINKS on Hopper). Nothing here changes GPU state. */
#include "gpu/nccl.h"

#include "gpu/cudrv.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOPO_INTERNAL = 0, TOPO_SINGLE = 10, TOPO_MULTIPLE = 20, TOPO_HOSTBRIDGE = 30, TOPO_NODE = 40,
       TOPO_SYSTEM = 50 };
enum { P2P_NVLINK = 2, P2P_OK = 0, NVL_GPU = 0, NVL_SWITCH = 2, MAX_LINKS = 18 };

/* nvmlPciInfo_t: busIdLegacy[16], domain, bus, device, pciDeviceId, pciSubSystemId, busId[32];
 * read with room to spare, compared on (domain, bus, device) */
struct pci {
	char legacy[16];
	unsigned int domain, bus, device, dev_id, subsys;
	char bus_id[32];
	char spare[64];
};

static struct {
	int tried, ok;
	void *lib;
	int (*init)(void);
	int (*by_uuid)(const char *, void **);
	int (*p2p)(void *, void *, int, int *);
	int (*ancestor)(void *, void *, int *);
	int (*state)(void *, unsigned, int *);
	int (*remote_type)(void *, unsigned, int *);
	int (*remote_pci)(void *, unsigned, struct pci *);
	int (*pci_info)(void *, struct pci *);
} nv;

static int nv_open(void)
{
	const char *path = getenv("GPUDIAG_LIBNVML");
	if (nv.tried)
		return nv.ok;
	nv.tried = 1;
	nv.lib = dlopen(path && *path ? path : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!nv.lib)
		return 0;
	*(void **)&nv.init = dlsym(nv.lib, "nvmlInit_v2");
	*(void **)&nv.by_uuid = dlsym(nv.lib, "nvmlDeviceGetHandleByUUID");
	*(void **)&nv.p2p = dlsym(nv.lib, "nvmlDeviceGetP2PStatus");
	*(void **)&nv.ancestor = dlsym(nv.lib, "nvmlDeviceGetTopologyCommonAncestor");
	*(void **)&nv.state = dlsym(nv.lib, "nvmlDeviceGetNvLinkState");
	*(void **)&nv.remote_type = dlsym(nv.lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
	*(void **)&nv.remote_pci = dlsym(nv.lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
	*(void **)&nv.pci_info = dlsym(nv.lib, "nvmlDeviceGetPciInfo_v3");
	nv.ok = nv.init && nv.by_uuid && nv.init() == 0;
	return nv.ok;
}

void gd_link_describe(struct gd_link *l, int nvlink_p2p, int links_to_peer, int links_to_switch, int pcie_level)
{
	memset(l, 0, sizeof(*l));
	l->nvlinks = -1;
	l->pcie_level = pcie_level;
	if (links_to_peer > 0) {
		l->kind = GD_LINK_NVLINK;
		l->nvlinks = links_to_peer;
		snprintf(l->text, sizeof(l->text), "NVLink ×%d", links_to_peer);
		snprintf(l->code, sizeof(l->code), "NV%d", links_to_peer);
		return;
	}
	if (nvlink_p2p == 1 && links_to_switch > 0) {
		l->kind = GD_LINK_NVSWITCH;
		l->nvlinks = links_to_switch;
		snprintf(l->text, sizeof(l->text), "NVLink ×%d to an NVSwitch", links_to_switch);
		snprintf(l->code, sizeof(l->code), "NV%d", links_to_switch);
		return;
	}
	if (nvlink_p2p == 1) {
		l->kind = GD_LINK_NVLINK;
		snprintf(l->text, sizeof(l->text), "NVLink (links not counted)");
		snprintf(l->code, sizeof(l->code), "NV");
		return;
	}
	switch (pcie_level) {
	case TOPO_INTERNAL:
		l->kind = GD_LINK_SAME;
		snprintf(l->text, sizeof(l->text), "same board");
		snprintf(l->code, sizeof(l->code), "BRD");
		return;
	case TOPO_SINGLE:
		snprintf(l->text, sizeof(l->text), "PCIe, one switch");
		snprintf(l->code, sizeof(l->code), "PIX");
		break;
	case TOPO_MULTIPLE:
		snprintf(l->text, sizeof(l->text), "PCIe, several switches");
		snprintf(l->code, sizeof(l->code), "PXB");
		break;
	case TOPO_HOSTBRIDGE:
		snprintf(l->text, sizeof(l->text), "PCIe through the host bridge");
		snprintf(l->code, sizeof(l->code), "PHB");
		break;
	case TOPO_NODE:
		snprintf(l->text, sizeof(l->text), "PCIe across host bridges, one NUMA node");
		snprintf(l->code, sizeof(l->code), "NODE");
		break;
	case TOPO_SYSTEM:
		snprintf(l->text, sizeof(l->text), "PCIe across NUMA nodes");
		snprintf(l->code, sizeof(l->code), "SYS");
		break;
	default:
		l->kind = GD_LINK_UNKNOWN;
		snprintf(l->text, sizeof(l->text), "unknown (NVML did not say)");
		snprintf(l->code, sizeof(l->code), "?");
		return;
	}
	l->kind = GD_LINK_PCIE;
}

static void *handle(int cuda_dev)
{
	char uuid[96];
	void *h = NULL;
	if (gd_cu_uuid(cuda_dev, uuid, sizeof(uuid)) != 0 || nv.by_uuid(uuid, &h) != 0)
		return NULL;
	return h;
}

/* Active links of h: to the GPU whose PCI address is peer (when given), and to switches. */
static void count_links(void *h, const struct pci *peer, int *to_peer, int *to_switch)
{
	*to_peer = *to_switch = 0;
	if (!nv.state)
		return;
	for (unsigned k = 0; k < MAX_LINKS; k++) {
		int active = 0, type = -1;
		struct pci rp;
		if (nv.state(h, k, &active) != 0)
			break; /* past the last link, or not supported */
		if (active != 1)
			continue;
		if (nv.remote_type && nv.remote_type(h, k, &type) == 0 && type == NVL_SWITCH) {
			(*to_switch)++;
			continue;
		}
		memset(&rp, 0, sizeof(rp));
		if (peer && nv.remote_pci && nv.remote_pci(h, k, &rp) == 0 && rp.domain == peer->domain &&
		    rp.bus == peer->bus && rp.device == peer->device)
			(*to_peer)++;
	}
}

void gd_nccl_link(int a, int b, struct gd_link *l)
{
	void *ha, *hb;
	int p2p = -1, level = -1, st = -1, to_peer = 0, sw_a = 0, sw_b = 0, dummy;
	struct pci pb;
	if (a == b) {
		memset(l, 0, sizeof(*l));
		l->kind = GD_LINK_SAME;
		l->nvlinks = l->pcie_level = -1;
		snprintf(l->text, sizeof(l->text), "itself");
		snprintf(l->code, sizeof(l->code), "X");
		return;
	}
	if (!nv_open() || !(ha = handle(a)) || !(hb = handle(b))) {
		gd_link_describe(l, -1, 0, 0, -1);
		return;
	}
	if (nv.p2p && nv.p2p(ha, hb, P2P_NVLINK, &st) == 0)
		p2p = st == P2P_OK;
	if (nv.ancestor && nv.ancestor(ha, hb, &level) != 0)
		level = -1;
	memset(&pb, 0, sizeof(pb));
	if (nv.pci_info && nv.pci_info(hb, &pb) == 0)
		count_links(ha, &pb, &to_peer, &sw_a);
	else
		count_links(ha, NULL, &to_peer, &sw_a);
	count_links(hb, NULL, &dummy, &sw_b);
	gd_link_describe(l, p2p, to_peer, sw_a < sw_b ? sw_a : sw_b, level);
}
