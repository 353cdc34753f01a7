/*
 * cpucache: the host CPU's last-level cache from sysfs (cpucache.h). Reads files only; no state.
 */
#include "kernels/cpucache.h"

#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CACHES 1024

/* The first line of path, without its newline, into buf; -1 when it cannot be read. */
static int read_line(const char *dir, const char *name, char *buf, size_t size)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (!(f = fopen(path, "r")))
        return -1;
    if (!fgets(buf, (int)size, f)) {
        fclose(f);
        return -1;
    }
    fclose(f);
    buf[strcspn(buf, "\n")] = '\0';
    return 0;
}

/* "32768K", "1M", "512" (bytes) */
static uint64_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);

    if (end == s)
        return 0;
    switch (*end) {
    case 'K':
        return v << 10;
    case 'M':
        return v << 20;
    case 'G':
        return v << 30;
    default:
        return v;
    }
}

uint64_t cpucache_llc_bytes(const char *root, int *level_out)
{
    static const char suffix[] = "/devices/system/cpu/cpu[0-9]*/cache/index[0-9]*";
    char pattern[4096], buf[4096];
    glob_t g;
    int best = 0;
    uint64_t total = 0;
    size_t nseen = 0;
    char **seen = NULL;

    if (level_out)
        *level_out = 0;
    snprintf(pattern, sizeof(pattern), "%s%s", root && *root ? root : "/sys", suffix);
    if (glob(pattern, 0, NULL, &g) != 0)
        return 0;
    for (size_t i = 0; i < g.gl_pathc; i++)
        if (read_line(g.gl_pathv[i], "level", buf, sizeof(buf)) == 0 && atoi(buf) > best)
            best = atoi(buf);
    if (best > 0 && (seen = calloc(MAX_CACHES, sizeof(*seen)))) {
        for (size_t i = 0; i < g.gl_pathc && nseen < MAX_CACHES; i++) {
            char size[64], type[32], cpus[2048];
            size_t k;

            if (read_line(g.gl_pathv[i], "level", buf, sizeof(buf)) || atoi(buf) != best ||
                read_line(g.gl_pathv[i], "size", size, sizeof(size)))
                continue;
            /* One cache per type and set of CPUs sharing it; without shared_cpu_list, each index is its
             * own. */
            if (read_line(g.gl_pathv[i], "type", type, sizeof(type)))
                type[0] = '\0';
            if (read_line(g.gl_pathv[i], "shared_cpu_list", cpus, sizeof(cpus)))
                snprintf(cpus, sizeof(cpus), "%s", g.gl_pathv[i]);
            snprintf(buf, sizeof(buf), "%s %s", type, cpus);
            for (k = 0; k < nseen && strcmp(seen[k], buf) != 0; k++)
                ;
            if (k < nseen)
                continue;
            if (!(seen[nseen] = strdup(buf)))
                break;
            nseen++;
            total += parse_size(size);
        }
        for (size_t k = 0; k < nseen; k++)
            free(seen[k]);
        free(seen);
    }
    globfree(&g);
    if (level_out && total)
        *level_out = best;
    return total;
}
