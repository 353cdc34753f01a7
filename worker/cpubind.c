/*
 * cpubind: see cpubind.h. Reads the environment, the affinity mask and sysfs; writes the environment (setenv,
 * before any thread of a runtime exists) and may exec. Main thread only. A struct cpubind is plain data owned
 * by the caller.
 */
#include "cpubind.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Names the exec'd process the variables its parent set: "<pid> NAME NAME ..." (exec keeps the pid, so a
 * value inherited from anywhere else is recognised and ignored). */
#define CPUBIND_MARK "PPBENCH_CPUBIND"

/* Variables that are the user's binding or thread count though ppbench never sets them. */
static const char *const omp_user_binding[] = {"OMP_PLACES", "OMP_PROC_BIND", "GOMP_CPU_AFFINITY"};
/* The thread count of PoCL's CPU driver, in the order PoCL reads them (3.x: the first; 4.0 renamed it the
 * second and still reads the first before it; 7.0 added the third, read last). */
static const char *const pocl_counts[] = {"POCL_MAX_PTHREAD_COUNT", "POCL_CPU_MAX_CU_COUNT",
                                          "POCL_MAX_COMPUTE_UNITS"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* "0-3,8,10-11" into set; 0, or -1 when malformed. */
static int parse_list(const char *s, cpu_set_t *set)
{
    char *end;

    CPU_ZERO(set);
    while (*s && *s != '\n') {
        long a = strtol(s, &end, 10), b = a;
        if (end == s || a < 0)
            return -1;
        s = end;
        if (*s == '-') {
            b = strtol(s + 1, &end, 10);
            if (end == s + 1 || b < a)
                return -1;
            s = end;
        }
        for (long c = a; c <= b && c < CPU_SETSIZE; c++)
            CPU_SET((int)c, set);
        if (*s == ',')
            s++;
        else if (*s && *s != '\n')
            return -1;
    }
    return 0;
}

/* The lowest CPU of cpu's core (its thread siblings), or cpu itself when sysfs does not say. */
static int core_of(int cpu, const char *sysfs)
{
    char path[512], line[1024];
    cpu_set_t sib;
    FILE *f;
    int first = cpu;

    snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", sysfs, cpu);
    if (!(f = fopen(path, "r")))
        return cpu;
    if (fgets(line, sizeof(line), f) && parse_list(line, &sib) == 0 && CPU_ISSET(cpu, &sib))
        for (int c = 0; c < CPU_SETSIZE; c++)
            if (CPU_ISSET(c, &sib)) {
                first = c;
                break;
            }
    fclose(f);
    return first;
}

unsigned cpubind_cores(const cpu_set_t *mask, const char *sysfs)
{
    cpu_set_t seen;
    unsigned n = 0;

    CPU_ZERO(&seen);
    for (int c = 0; c < CPU_SETSIZE; c++) {
        int core;
        if (!CPU_ISSET(c, mask) || CPU_ISSET(core = core_of(c, sysfs), &seen))
            continue;
        CPU_SET(core, &seen);
        n++;
    }
    return n;
}

/* 1 when CPUs 0 .. t-1 are all in mask and on t distinct cores: where PoCL's POCL_AFFINITY puts its threads.
 */
static int first_cpus_distinct(const cpu_set_t *mask, unsigned t, const char *sysfs)
{
    cpu_set_t seen;

    CPU_ZERO(&seen);
    for (unsigned i = 0; i < t && i < CPU_SETSIZE; i++) {
        int core = core_of((int)i, sysfs);
        if (!CPU_ISSET((int)i, mask) || CPU_ISSET(core, &seen))
            return 0;
        CPU_SET(core, &seen);
    }
    return t > 0 && t <= CPU_SETSIZE;
}

static void add(struct cpubind *b, const char *name, const char *value, enum cpubind_source source)
{
    struct cpubind_var *v;

    if (b->n >= COUNT(b->vars))
        return;
    v = &b->vars[b->n++];
    snprintf(v->name, sizeof(v->name), "%s", name);
    snprintf(v->value, sizeof(v->value), "%s", value);
    v->source = source;
}

/* The user's value of name, recorded as the user's; NULL when unset (empty counts as unset, as the runtimes
 * read it). */
static const char *user(struct cpubind *b, const char *name)
{
    const char *v = getenv(name);

    if (!v || !*v)
        return NULL;
    add(b, name, v, CPUBIND_USER);
    return v;
}

static void plan_openmp(struct cpubind *b, unsigned cores)
{
    const char *threads = user(b, "OMP_NUM_THREADS");
    char n[16];
    int bound = 0;

    for (size_t i = 0; i < COUNT(omp_user_binding); i++)
        bound |= user(b, omp_user_binding[i]) != NULL;
    if (bound)
        return; /* the user's binding, and libgomp's thread count for it unless the user gave one */
    if (!threads) {
        snprintf(n, sizeof(n), "%u", cores);
        add(b, "OMP_NUM_THREADS", n, CPUBIND_DEFAULT);
    }
    add(b, "OMP_PLACES", "cores", CPUBIND_DEFAULT);
    add(b, "OMP_PROC_BIND", "spread", CPUBIND_DEFAULT);
}

static void plan_pocl(struct cpubind *b, const cpu_set_t *mask, unsigned cores, const char *sysfs)
{
    unsigned long threads = 0;
    int given = 0;
    char n[16];

    for (size_t i = 0; i < COUNT(pocl_counts); i++) {
        const char *v = user(b, pocl_counts[i]);
        char *end;
        given |= v != NULL;
        if (v && !threads && (threads = strtoul(v, &end, 10), *end))
            threads = 0; /* not a count PoCL reads: the next name, or unknown */
    }
    if (!given) {
        threads = cores;
        snprintf(n, sizeof(n), "%u", cores);
        add(b, "POCL_MAX_PTHREAD_COUNT", n, CPUBIND_DEFAULT);
    }
    if (user(b, "POCL_AFFINITY"))
        return;
    if (first_cpus_distinct(mask, (unsigned)threads, sysfs))
        add(b, "POCL_AFFINITY", "1", CPUBIND_DEFAULT);
    else if (threads)
        snprintf(
            b->note, sizeof(b->note),
            "POCL_AFFINITY left unset: PoCL pins its thread i to CPU i, and CPUs 0-%lu are not %lu distinct "
            "cores of this process's CPUs",
            threads - 1, threads);
    else
        snprintf(b->note, sizeof(b->note), "POCL_AFFINITY left unset: PoCL's thread count is not known");
}

/* The models the binding is for: OpenMP (a CPU model), and OpenCL on a CPU platform (PoCL). The platform key
 * is the local id ("cpu0") or the server's "host/cpu0". */
static int cpu_key(const char *key)
{
    const char *slash = key ? strrchr(key, '/') : NULL;

    return key && strncasecmp(slash ? slash + 1 : key, "cpu", 3) == 0;
}

void cpubind_plan(struct cpubind *b, const char *model, const char *platform_key, const cpu_set_t *mask,
                  const char *sysfs)
{
    unsigned cores = cpubind_cores(mask, sysfs);

    memset(b, 0, sizeof(*b));
    if (!model)
        return;
    if (cores == 0)
        cores = 1;
    if (strcmp(model, "openmp") == 0) {
        b->applies = 1;
        plan_openmp(b, cores);
    } else if (strcmp(model, "opencl") == 0 && cpu_key(platform_key)) {
        b->applies = 1;
        plan_pocl(b, mask, cores, sysfs);
    }
}

/* In the process cpubind_apply exec'd: the variables the mark names are the defaults. 1 when it was one. */
static int inherited(struct cpubind *b, const char *model, const char *platform_key)
{
    const char *mark = getenv(CPUBIND_MARK);
    char copy[256], *save = NULL, *name;
    cpu_set_t any;
    long pid;

    if (!mark)
        return 0;
    snprintf(copy, sizeof(copy), "%s", mark);
    /* not for the provenance's PPBENCH_* list, nor for anything this process starts */
    unsetenv(CPUBIND_MARK);
    pid = strtol(copy, &name, 10);
    if (pid != (long)getpid())
        return 0;
    CPU_ZERO(&any);
    CPU_SET(0, &any);
    cpubind_plan(b, model, platform_key, &any, "/nonexistent"); /* every variable is set now: all "user" */
    for (name = strtok_r(name, " ", &save); name; name = strtok_r(NULL, " ", &save))
        for (size_t i = 0; i < b->n; i++)
            if (strcmp(b->vars[i].name, name) == 0)
                b->vars[i].source = CPUBIND_DEFAULT;
    return 1;
}

void cpubind_apply(struct cpubind *b, const char *model, const char *platform_key, char *const argv[])
{
    char mark[256];
    size_t used;
    cpu_set_t mask;
    int any = 0;

    if (inherited(b, model, platform_key))
        return;
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0) {
        CPU_ZERO(&mask);
        CPU_SET(0, &mask);
    }
    cpubind_plan(b, model, platform_key, &mask, CPUBIND_SYSFS);
    used = (size_t)snprintf(mark, sizeof(mark), "%ld", (long)getpid());
    for (size_t i = 0; i < b->n; i++)
        if (b->vars[i].source == CPUBIND_DEFAULT) {
            setenv(b->vars[i].name, b->vars[i].value, 1);
            any = 1;
            if (used < sizeof(mark))
                used += (size_t)snprintf(mark + used, sizeof(mark) - used, " %s", b->vars[i].name);
        }
    if (!any || strcmp(model, "openmp") != 0)
        return;
    /* libgomp read its variables when it loaded: run this command again with them. */
    setenv(CPUBIND_MARK, mark, 1);
    fflush(NULL);
    execv("/proc/self/exe", argv);
    int e = errno;
    unsetenv(CPUBIND_MARK);
    for (size_t i = 0; i < b->n; i++)
        if (b->vars[i].source == CPUBIND_DEFAULT)
            unsetenv(b->vars[i].name);
    snprintf(b->note, sizeof(b->note), "defaults not applied: cannot exec /proc/self/exe: %s", strerror(e));
    for (size_t i = 0; i < b->n;) /* keep the user's */
        if (b->vars[i].source == CPUBIND_DEFAULT)
            memmove(&b->vars[i], &b->vars[i + 1], (--b->n - i) * sizeof(b->vars[0]));
        else
            i++;
}

static void list(const struct cpubind *b, enum cpubind_source source, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (size_t i = 0; i < b->n && used < size; i++)
        if (b->vars[i].source == source)
            used += (size_t)snprintf(out + used, size - used, "%s%s=%s", used ? " " : "", b->vars[i].name,
                                     b->vars[i].value);
    if (!out[0])
        snprintf(out, size, "none");
}

void cpubind_describe(const struct cpubind *b, struct pp_info_list *out)
{
    char s[208];

    if (!b || !b->applies)
        return;
    list(b, CPUBIND_DEFAULT, s, sizeof(s));
    info_add(out, "cpu_binding.default", "%s", s);
    list(b, CPUBIND_USER, s, sizeof(s));
    info_add(out, "cpu_binding.user", "%s", s);
    if (b->note[0])
        info_add(out, "cpu_binding.note", "%s", b->note);
}
