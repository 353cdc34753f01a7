/*
 * test_cpubind: the default thread count and binding of CPU runs (worker/cpubind.h) over fake sysfs
 * topologies: cores counted once per set of thread siblings within the mask; OpenMP's defaults and the user's
 * variables winning (a user's binding keeps libgomp's thread count); PoCL's count and POCL_AFFINITY only
 * where its pinning (thread i on CPU i) lands on distinct cores of the mask, else a note; nothing for GPU
 * platforms or other models; the provenance lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "mkdirs.h"
#include "worker/cpubind.h"

static char smt[256];      /* 8 CPUs, 4 cores: CPU i and i + 4 are siblings (Intel's numbering) */
static char adjacent[256]; /* 8 CPUs, 4 cores: CPU 2k and 2k + 1 are siblings */
static char none[256];     /* no topology files: each CPU a core */

static void topology(const char *root, int cpus, int (*sibling)(int))
{
    char path[512];

    for (int c = 0; c < cpus; c++) {
        int s = sibling(c), lo = c < s ? c : s, hi = c < s ? s : c;
        snprintf(path, sizeof(path), "%s/cpu%d/topology", root, c);
        mkdirs(path);
        snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", root, c);
        FILE *f = fopen(path, "w");
        fprintf(f, "%d,%d\n", lo, hi);
        fclose(f);
    }
}

static int plus4(int c)
{
    return (c + 4) % 8;
}

static int pair(int c)
{
    return c ^ 1;
}

static cpu_set_t cpus(const char *list)
{
    cpu_set_t set;
    char copy[64], *save = NULL;

    CPU_ZERO(&set);
    snprintf(copy, sizeof(copy), "%s", list);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save))
        CPU_SET(atoi(t), &set);
    return set;
}

static void clear_env(void)
{
    static const char *const names[] = {"OMP_NUM_THREADS",        "OMP_PLACES",
                                        "OMP_PROC_BIND",          "GOMP_CPU_AFFINITY",
                                        "POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_COUNT",
                                        "POCL_MAX_COMPUTE_UNITS", "POCL_AFFINITY"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        unsetenv(names[i]);
}

/* "default" and "user" as cpubind_describe writes them, and the note. */
static void described(const struct cpubind *b, char *def, char *usr, char *note)
{
    struct pp_info_list l = {.len = 0};
    const char *v;

    cpubind_describe(b, &l);
    snprintf(def, 208, "%s", (v = info_get(&l, "cpu_binding.default")) ? v : "(absent)");
    snprintf(usr, 208, "%s", (v = info_get(&l, "cpu_binding.user")) ? v : "(absent)");
    snprintf(note, 208, "%s", (v = info_get(&l, "cpu_binding.note")) ? v : "");
}

static void test_cores(void)
{
    cpu_set_t m;

    m = cpus("0,1,2,3,4,5,6,7");
    CHECK(cpubind_cores(&m, smt) == 4, "smt, all: %u", cpubind_cores(&m, smt));
    m = cpus("0,4");
    CHECK(cpubind_cores(&m, smt) == 1, "smt, two siblings: %u", cpubind_cores(&m, smt));
    m = cpus("0,1,2");
    CHECK(cpubind_cores(&m, smt) == 3, "smt, three first threads: %u", cpubind_cores(&m, smt));
    m = cpus("0,1,2,3,4,5,6,7");
    CHECK(cpubind_cores(&m, adjacent) == 4, "adjacent, all: %u", cpubind_cores(&m, adjacent));
    CHECK(cpubind_cores(&m, none) == 8, "no topology: one core per CPU: %u", cpubind_cores(&m, none));
}

static void test_openmp(void)
{
    cpu_set_t m = cpus("0,1,2,3,4,5,6,7");
    struct cpubind b;
    char def[208], usr[208], note[208];

    clear_env();
    cpubind_plan(&b, "openmp", "cpu0", &m, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "OMP_NUM_THREADS=4 OMP_PLACES=cores OMP_PROC_BIND=spread") == 0, "defaults: %s", def);
    CHECK(strcmp(usr, "none") == 0 && !note[0], "user: %s, note: %s", usr, note);

    setenv("OMP_NUM_THREADS", "3", 1);
    cpubind_plan(&b, "openmp", "cpu0", &m, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "OMP_PLACES=cores OMP_PROC_BIND=spread") == 0, "the user's count: %s", def);
    CHECK(strcmp(usr, "OMP_NUM_THREADS=3") == 0, "the user's count: %s", usr);

    clear_env();
    setenv("OMP_PROC_BIND", "close", 1);
    cpubind_plan(&b, "openmp", "cpu0", &m, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "none") == 0 && strcmp(usr, "OMP_PROC_BIND=close") == 0,
          "the user's binding, libgomp's count: %s / %s", def, usr);

    clear_env();
    setenv("GOMP_CPU_AFFINITY", "0-3", 1);
    cpubind_plan(&b, "openmp", "cpu0", &m, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "none") == 0 && strcmp(usr, "GOMP_CPU_AFFINITY=0-3") == 0, "GOMP_CPU_AFFINITY: %s / %s",
          def, usr);

    clear_env();
    setenv("OMP_PLACES", "", 1); /* empty: unset, as libgomp reads it */
    cpubind_plan(&b, "openmp", "cpu0", &m, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(usr, "none") == 0 && strstr(def, "OMP_PLACES=cores"), "empty is unset: %s / %s", def, usr);
    clear_env();
}

static void test_pocl(void)
{
    cpu_set_t all = cpus("0,1,2,3,4,5,6,7"), upper = cpus("4,5,6,7");
    struct cpubind b;
    char def[208], usr[208], note[208];

    clear_env();
    cpubind_plan(&b, "opencl", "cpu0", &all, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "POCL_MAX_PTHREAD_COUNT=4 POCL_AFFINITY=1") == 0 && !note[0], "smt: %s (%s)", def,
          note);
    cpubind_plan(&b, "opencl", "node7/cpu0", &all, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "POCL_MAX_PTHREAD_COUNT=4 POCL_AFFINITY=1") == 0, "the server's key: %s", def);

    /* PoCL would put threads 0 and 1 on one core: no pinning, and the note says why */
    cpubind_plan(&b, "opencl", "cpu0", &all, adjacent);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "POCL_MAX_PTHREAD_COUNT=4") == 0, "adjacent siblings: %s", def);
    CHECK(strstr(note, "POCL_AFFINITY left unset") && strstr(note, "CPUs 0-3"), "note: %s", note);

    /* a worker on CPUs 4-7: PoCL's pinning would leave them */
    cpubind_plan(&b, "opencl", "cpu0", &upper, none);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "POCL_MAX_PTHREAD_COUNT=4") == 0 && strstr(note, "POCL_AFFINITY left unset"),
          "a mask without CPU 0: %s (%s)", def, note);

    /* the user's count, under PoCL 4's name: no count of ours (PoCL reads ours first); the pinning checked
     * for the user's 2 threads */
    setenv("POCL_CPU_MAX_CU_COUNT", "2", 1);
    cpubind_plan(&b, "opencl", "cpu0", &all, adjacent);
    described(&b, def, usr, note);
    CHECK(strcmp(usr, "POCL_CPU_MAX_CU_COUNT=2") == 0 && strcmp(def, "none") == 0 && strstr(note, "CPUs 0-1"),
          "the user's count: %s / %s (%s)", def, usr, note);
    cpubind_plan(&b, "opencl", "cpu0", &all, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "POCL_AFFINITY=1") == 0, "the user's count, pinning: %s", def);

    clear_env();
    setenv("POCL_AFFINITY", "0", 1);
    cpubind_plan(&b, "opencl", "cpu0", &all, smt);
    described(&b, def, usr, note);
    CHECK(strcmp(def, "POCL_MAX_PTHREAD_COUNT=4") == 0 && strcmp(usr, "POCL_AFFINITY=0") == 0,
          "the user's POCL_AFFINITY: %s / %s", def, usr);
    clear_env();
}

static void test_not_cpu(void)
{
    cpu_set_t all = cpus("0,1,2,3");
    struct cpubind b;
    char def[208], usr[208], note[208];

    clear_env();
    cpubind_plan(&b, "opencl", "gpu0", &all, none);
    described(&b, def, usr, note);
    CHECK(!b.applies && b.n == 0 && strcmp(def, "(absent)") == 0, "opencl on gpu0: %s", def);
    cpubind_plan(&b, "opencl", "GPU-8e1c0d6a-0000-0000-0000-000000000000", &all, none);
    CHECK(!b.applies && b.n == 0, "opencl on a GPU's uuid");
    cpubind_plan(&b, "cuda", "cpu0", &all, none);
    CHECK(!b.applies && b.n == 0, "cuda");
}

int main(void)
{
    char tmpl[] = "/tmp/test_cpubind.XXXXXX";
    char *dir = mkdtemp(tmpl);

    if (!dir) {
        printf("FAIL test_cpubind: cannot make a temporary folder\n");
        return 1;
    }
    snprintf(smt, sizeof(smt), "%s/smt", dir);
    snprintf(adjacent, sizeof(adjacent), "%s/adjacent", dir);
    snprintf(none, sizeof(none), "%s/none", dir);
    topology(smt, 8, plus4);
    topology(adjacent, 8, pair);
    mkdirs(none);
    RUN(test_cores);
    RUN(test_openmp);
    RUN(test_pocl);
    RUN(test_not_cpu);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        printf("# cannot remove %s\n", dir);
    return check_failures != 0;
}
