/*
 * test_nvml: what needs no GPU of worker/nvml.c: the names of NVML's clock throttle reasons, as the
 * provenance records them before and after a GPU run (gpu.throttle_before, gpu.throttle_after).
 */
#include <string.h>

#include "check.h"
#include "worker/nvml.h"

static void test_nvml_throttle_names(void)
{
    char s[256];

    nvml_throttle_names(0, s, sizeof(s));
    CHECK(strcmp(s, "none") == 0, "0: %s", s);
    nvml_throttle_names(0x4 | 0x40, s, sizeof(s));
    CHECK(strcmp(s, "sw_power_cap, hw_thermal_slowdown") == 0, "0x44: %s", s);
    nvml_throttle_names(0x1 | 0x1000, s, sizeof(s));
    CHECK(strcmp(s, "gpu_idle, 0x1000") == 0, "an unknown bit: %s", s);
    nvml_throttle_names(~0ull, s, 16);
    CHECK(strlen(s) < 16, "truncated within the buffer: %s", s);
}

int main(void)
{
    RUN(test_nvml_throttle_names);
    return check_failures != 0;
}
