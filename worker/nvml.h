/*
 * nvml: the NVIDIA Management Library, loaded with dlopen (the worker runs where there is none): theoretical
 * peak memory bandwidth, current clocks and the kernel driver's version for a GPU found by UUID or PCI bus
 * id.
 */
#ifndef PP_NVML_H
#define PP_NVML_H

#include <stddef.h>

#include "lib/error.h"

/* Peak = max memory clock x bus width x 2 (double data rate), bytes/s; source says how it was derived. */
int nvml_peak_bandwidth(const char *uuid, const char *pci_bus_id, double *bytes_per_s, char *source,
                        size_t source_size, struct pp_error *err) PP_WUR;

/* Current SM and memory clocks in MHz. */
int nvml_clocks(const char *uuid, const char *pci_bus_id, unsigned *sm_mhz, unsigned *mem_mhz,
                struct pp_error *err) PP_WUR;

/* A GPU's state before or after a run: current clocks, and where the driver answers (older drivers may not),
 * the GPU temperature and the clocks' throttle reasons (NVML's nvmlClocksThrottleReason bit mask). */
struct nvml_state {
    unsigned sm_mhz, mem_mhz;
    int has_temp, has_throttle;
    unsigned temp_c;
    unsigned long long throttle;
};
int nvml_state(const char *uuid, const char *pci_bus_id, struct nvml_state *out, struct pp_error *err) PP_WUR;

/* The NVIDIA kernel driver's version as nvidia-smi shows it ("580.65.06"), when NVML knows the GPU. */
int nvml_driver_version(const char *uuid, const char *pci_bus_id, char *out, size_t size,
                        struct pp_error *err) PP_WUR;

/* The throttle reasons of mask as "none" or "sw_power_cap, hw_slowdown" (unknown bits as "0x..."). */
void nvml_throttle_names(unsigned long long mask, char *out, size_t size);

#endif
