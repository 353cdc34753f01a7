/*
 * test_cpucache: the last-level cache from fake sysfs trees (kernels/cpucache.h): one L3 shared by every CPU
 * counts once, one L3 per socket counts each, the highest level wins over L1 and L2, no tree is 0; and the
 * CPU default lattice that follows from it (kernels/lattice.h): at least 4x the cache, 8^4 when it is
 * unknown, the GPU default untouched.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "mkdirs.h"
#include "kernels/cpucache.h"
#include "kernels/lattice.h"

static char root[256];

static void put(const char *dir, const char *name, const char *value)
{
    char path[512];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    f = fopen(path, "w");
    if (f) {
        fprintf(f, "%s\n", value);
        fclose(f);
    }
}

/* cpu's cache index idx: level, type, size, shared_cpu_list */
static void cache(int cpu, int idx, const char *level, const char *type, const char *size, const char *shared)
{
    char dir[512];

    snprintf(dir, sizeof(dir), "%s/devices/system/cpu/cpu%d/cache/index%d", root, cpu, idx);
    mkdirs(dir);
    put(dir, "level", level);
    put(dir, "type", type);
    put(dir, "size", size);
    put(dir, "shared_cpu_list", shared);
}

static void fresh(const char *name)
{
    char cmd[600];

    snprintf(root, sizeof(root), "%s/cpucache-%d-%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
             (int)getpid(), name);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        return;
    mkdirs(root);
}

static void cleanup(void)
{
    char cmd[600];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("cleanup of %s failed\n", root);
}

static void test_cpucache_shared_l3(void)
{
    int level = -1;

    fresh("shared");
    for (int cpu = 0; cpu < 2; cpu++) {
        char own[8];
        snprintf(own, sizeof(own), "%d", cpu);
        cache(cpu, 0, "1", "Data", "48K", own);
        cache(cpu, 1, "1", "Instruction", "32K", own);
        cache(cpu, 2, "2", "Unified", "1024K", own);
        cache(cpu, 3, "3", "Unified", "32768K", "0-1");
    }
    CHECK(cpucache_llc_bytes(root, &level) == 32ull << 20, "one L3 of 32 MiB shared by cpu 0-1: %llu",
          (unsigned long long)cpucache_llc_bytes(root, NULL));
    CHECK(level == 3, "level %d", level);
    cleanup();
}

static void test_cpucache_per_socket(void)
{
    fresh("sockets");
    for (int cpu = 0; cpu < 4; cpu++) {
        char own[8];
        snprintf(own, sizeof(own), "%d", cpu);
        cache(cpu, 0, "2", "Unified", "2M", own);
        cache(cpu, 1, "3", "Unified", "16M", cpu < 2 ? "0-1" : "2-3");
    }
    CHECK(cpucache_llc_bytes(root, NULL) == 32ull << 20, "two L3s of 16 MiB: %llu",
          (unsigned long long)cpucache_llc_bytes(root, NULL));
    cleanup();
}

static void test_cpucache_none(void)
{
    int level = -1;

    fresh("none");
    CHECK(cpucache_llc_bytes(root, &level) == 0 && level == 0, "no tree: 0");
    cleanup();
}

static void test_lattice_default_dram_bound(void)
{
    struct pp_device cpu = {.kind = PP_DEVICE_CPU}, gpu = {.kind = PP_DEVICE_GPU, .llc_bytes = 50u << 20};
    struct pp_error err;
    unsigned d[4] = {0};
    double per_site = 784; /* Wilson fp64: 1568 bytes per output site */

    CHECK(lattice_resolve(d, &cpu, per_site, &err) == 0 && d[0] == LATTICE_DEFAULT_EXTENT_CPU &&
              d[3] == LATTICE_DEFAULT_EXTENT_CPU,
          "unknown cache: %u^4", d[0]);
    cpu.llc_bytes = 32ull << 20;
    memset(d, 0, sizeof(d));
    CHECK(lattice_resolve(d, &cpu, per_site, &err) == 0, "%s", err.msg);
    CHECK((double)lattice_volume(d) * per_site >= 4.0 * (32 << 20), "%u^4 is under 4x the 32 MiB cache",
          d[0]);
    CHECK(d[0] == 22 && d[1] == 22 && d[2] == 22 && d[3] == 22, "the smallest even extent: 22, got %u", d[0]);
    memset(d, 0, sizeof(d));
    CHECK(lattice_resolve(d, &gpu, per_site, &err) == 0 && d[0] == LATTICE_DEFAULT_EXTENT_GPU,
          "GPU default %u^4", d[0]);
    d[0] = d[1] = d[2] = d[3] = 4;
    CHECK(lattice_resolve(d, &cpu, per_site, &err) == 0 && d[0] == 4, "a given lattice stays: %u", d[0]);
}

int main(void)
{
    RUN(test_cpucache_shared_l3);
    RUN(test_cpucache_per_socket);
    RUN(test_cpucache_none);
    RUN(test_lattice_default_dram_bound);
    return check_failures != 0;
}
