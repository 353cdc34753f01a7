/*
 * nvml: minimal NVML access through dlopen("libnvidia-ml.so.1"). The few prototypes used are declared here
 * (NVML's ABI is stable), so building needs no NVIDIA headers. The library handle lives for the process;
 * called from the worker's main thread only.
 */
#include "nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

typedef int nvml_ret;
typedef struct nvml_device *nvml_device;
enum { NVML_OK = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

static struct {
    int tried, ok;
    char why[256];
    nvml_ret (*init)(void);
    nvml_ret (*by_uuid)(const char *, nvml_device *);
    nvml_ret (*by_pci)(const char *, nvml_device *);
    nvml_ret (*max_clock)(nvml_device, int, unsigned *);
    nvml_ret (*clock)(nvml_device, int, unsigned *);
    nvml_ret (*bus_width)(nvml_device, unsigned *);
    const char *(*str)(nvml_ret);
    nvml_ret (*temperature)(nvml_device, int, unsigned *);   /* optional */
    nvml_ret (*throttle)(nvml_device, unsigned long long *); /* optional */
    nvml_ret (*driver)(char *, unsigned);                    /* optional */
} nv;

static int load(struct pp_error *err)
{
    void *h;

    if (nv.tried)
        return nv.ok ? 0 : pp_error_set(err, "%s", nv.why);
    nv.tried = 1;
    h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(nv.why, sizeof(nv.why), "nvml not available: %s", dlerror());
        return pp_error_set(err, "%s", nv.why);
    }
    *(void **)&nv.init = dlsym(h, "nvmlInit_v2");
    *(void **)&nv.by_uuid = dlsym(h, "nvmlDeviceGetHandleByUUID");
    *(void **)&nv.by_pci = dlsym(h, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nv.max_clock = dlsym(h, "nvmlDeviceGetMaxClockInfo");
    *(void **)&nv.clock = dlsym(h, "nvmlDeviceGetClockInfo");
    *(void **)&nv.bus_width = dlsym(h, "nvmlDeviceGetMemoryBusWidth");
    *(void **)&nv.str = dlsym(h, "nvmlErrorString");
    *(void **)&nv.temperature = dlsym(h, "nvmlDeviceGetTemperature");
    *(void **)&nv.throttle = dlsym(h, "nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nv.driver = dlsym(h, "nvmlSystemGetDriverVersion");
    if (!nv.init || !nv.by_uuid || !nv.by_pci || !nv.max_clock || !nv.clock || !nv.bus_width || !nv.str) {
        snprintf(nv.why, sizeof(nv.why), "nvml lacks a needed function");
        return pp_error_set(err, "%s", nv.why);
    }
    nvml_ret r = nv.init();
    if (r != NVML_OK) {
        snprintf(nv.why, sizeof(nv.why), "nvmlInit: %s", nv.str(r));
        return pp_error_set(err, "%s", nv.why);
    }
    nv.ok = 1;
    return 0;
}

static int find(const char *uuid, const char *pci, nvml_device *dev, struct pp_error *err)
{
    nvml_ret r = -1;

    if (load(err))
        return -1;
    if (uuid && *uuid)
        r = nv.by_uuid(uuid, dev);
    if (r != NVML_OK && pci && *pci)
        r = nv.by_pci(pci, dev);
    if (r != NVML_OK)
        return pp_error_set(err, "nvml: no device with uuid \"%s\" or pci bus id \"%s\"", uuid ? uuid : "",
                            pci ? pci : "");
    return 0;
}

int nvml_peak_bandwidth(const char *uuid, const char *pci_bus_id, double *bytes_per_s, char *source,
                        size_t source_size, struct pp_error *err)
{
    nvml_device dev;
    unsigned mhz = 0, bits = 0;
    nvml_ret r;

    if (find(uuid, pci_bus_id, &dev, err))
        return -1;
    if ((r = nv.max_clock(dev, NVML_CLOCK_MEM, &mhz)) != NVML_OK)
        return pp_error_set(err, "nvmlDeviceGetMaxClockInfo: %s", nv.str(r));
    if ((r = nv.bus_width(dev, &bits)) != NVML_OK)
        return pp_error_set(err, "nvmlDeviceGetMemoryBusWidth: %s", nv.str(r));
    if (mhz == 0 || bits == 0)
        return pp_error_set(err, "nvml reports a zero memory clock or bus width");
    *bytes_per_s = (double)mhz * 1e6 * (double)bits / 8.0 * 2.0;
    snprintf(source, source_size, "nvml: max memory clock %u MHz x %u-bit bus x 2", mhz, bits);
    return 0;
}

int nvml_clocks(const char *uuid, const char *pci_bus_id, unsigned *sm_mhz, unsigned *mem_mhz,
                struct pp_error *err)
{
    nvml_device dev;
    nvml_ret r;

    if (find(uuid, pci_bus_id, &dev, err))
        return -1;
    if ((r = nv.clock(dev, NVML_CLOCK_SM, sm_mhz)) != NVML_OK ||
        (r = nv.clock(dev, NVML_CLOCK_MEM, mem_mhz)) != NVML_OK)
        return pp_error_set(err, "nvmlDeviceGetClockInfo: %s", nv.str(r));
    return 0;
}

int nvml_state(const char *uuid, const char *pci_bus_id, struct nvml_state *out, struct pp_error *err)
{
    nvml_device dev;

    memset(out, 0, sizeof(*out));
    if (nvml_clocks(uuid, pci_bus_id, &out->sm_mhz, &out->mem_mhz, err) || find(uuid, pci_bus_id, &dev, err))
        return -1;
    out->has_temp =
        nv.temperature && nv.temperature(dev, 0 /* NVML_TEMPERATURE_GPU */, &out->temp_c) == NVML_OK;
    out->has_throttle = nv.throttle && nv.throttle(dev, &out->throttle) == NVML_OK;
    return 0;
}

int nvml_driver_version(const char *uuid, const char *pci_bus_id, char *out, size_t size,
                        struct pp_error *err)
{
    char v[96] = ""; /* NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80 */
    nvml_device dev;
    nvml_ret r;

    if (find(uuid, pci_bus_id, &dev, err))
        return -1;
    if (!nv.driver)
        return pp_error_set(err, "nvml lacks nvmlSystemGetDriverVersion");
    if ((r = nv.driver(v, sizeof(v))) != NVML_OK)
        return pp_error_set(err, "nvmlSystemGetDriverVersion: %s", nv.str(r));
    v[sizeof(v) - 1] = '\0';
    if (!v[0])
        return pp_error_set(err, "nvml reports an empty driver version");
    snprintf(out, size, "%s", v);
    return 0;
}

void nvml_throttle_names(unsigned long long mask, char *out, size_t size)
{
    static const char *const names[] = {
        "gpu_idle",     "applications_clocks", "sw_power_cap",        "hw_slowdown",
        "sync_boost",   "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown",
        "display_clock"};
    size_t n = 0;

    if (!size)
        return;
    out[0] = '\0';
    for (unsigned b = 0; b < 64 && n < size; b++) {
        if (!(mask & (1ull << b)))
            continue;
        if (b < sizeof(names) / sizeof(names[0]))
            n += (size_t)snprintf(out + n, size - n, "%s%s", n ? ", " : "", names[b]);
        else
            n += (size_t)snprintf(out + n, size - n, "%s0x%llx", n ? ", " : "", 1ull << b);
    }
    if (!mask)
        snprintf(out, size, "none");
}
