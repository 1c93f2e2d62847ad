/* cuda_node_health.h — what makes a GPU node slow that the benchmark alone
 * cannot tell, read from NVML (cuda_node_health.c). */
#ifndef GB_CUDA_NODE_HEALTH_H
#define GB_CUDA_NODE_HEALTH_H
#include <cjson/cJSON.h>

/* health.<when>.cuda.node for the device NVML knows as nvml_device (an
 * nvmlDevice_t) at PCI bus id bus: PCIe link generation and width (current
 * and maximum), ECC error counts (volatile and aggregate, corrected and
 * uncorrected), XID critical errors NVML reported since the first call (the
 * "before" health registers for them, "after" drains them: the XIDs of the
 * run), the GPU's CPU affinity and NUMA node and whether this process's CPUs
 * are all local to it. A fact NVML does not give is recorded as its error
 * string, never guessed. Called by gb_cuda_health with NVML initialised. */
void gb_cuda_node_health(cJSON *health, void *nvml_device, const char *bus);
#endif
