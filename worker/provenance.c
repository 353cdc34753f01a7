/*
 * provenance: collects build and host facts into an info list. Main thread.
 */
#include "provenance.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "buildinfo.h"
#include "worker/affinity.h"

extern char **environ;

/* Variables that change how a kernel runs: OpenMP placement, device selection, ICD choice, our own knobs. */
static const char *const env_prefixes[] = {"OMP_", "GOMP_", "KMP_", "CUDA_", "OCL_", "POCL_", "PPBENCH_"};

/* The CPUs the run may use, as a list ("0-15", "0,2,4"): the calling thread's, or for a bound OpenMP run the
 * union of its places (libgomp bound the calling thread itself to the first). */
static void cpus_allowed(char *out, size_t size, bool openmp)
{
    cpu_set_t set;
    size_t used = 0;

    out[0] = '\0';
    if (!(openmp && affinity_openmp_places(&set)) && sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    for (int c = 0; c < CPU_SETSIZE && used < size; c++) {
        int end = c;
        if (!CPU_ISSET(c, &set))
            continue;
        while (end + 1 < CPU_SETSIZE && CPU_ISSET(end + 1, &set))
            end++;
        used +=
            (size_t)snprintf(out + used, size - used, end > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, end);
        c = end;
    }
}

void provenance_collect(struct pp_info_list *out, bool openmp)
{
    char cpus[160];

    char host[256] = "";
    char when[32];
    struct utsname u;
    time_t now = time(NULL);
    struct tm tm;

    gethostname(host, sizeof(host) - 1);
    gmtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    info_add(out, "ppbench.version", "%s", PPBENCH_VERSION);
    info_add(out, "compiler", "%s", PPBENCH_CC);
    info_add(out, "cflags", "%s", PPBENCH_CFLAGS);
    info_add(out, "host", "%s", host);
    if (uname(&u) == 0)
        info_add(out, "kernel", "%s %s %s", u.sysname, u.release, u.machine);
    info_add(out, "time", "%s", when);
    cpus_allowed(cpus, sizeof(cpus), openmp);
    info_add(out, "cpus_allowed", "%s", cpus);
    for (char **e = environ; *e; e++)
        for (size_t i = 0; i < sizeof(env_prefixes) / sizeof(env_prefixes[0]); i++)
            if (strncmp(*e, env_prefixes[i], strlen(env_prefixes[i])) == 0 && strchr(*e, '=')) {
                char key[48];
                size_t klen = (size_t)(strchr(*e, '=') - *e);
                snprintf(key, sizeof(key), "env.%.*s", (int)klen, *e);
                info_add(out, key, "%s", strchr(*e, '=') + 1);
                break;
            }
}
