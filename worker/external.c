/*
 * external: see external.h. The program runs as a child of the job's process, in its process group (so the
 * serving worker's SIGTERM/SIGKILL of a cancelled or timed-out job reaches it too, and it dies with us
 * through PR_SET_PDEATHSIG), with the worker's environment and the runner's env lines, never through a shell:
 * argv is the runner's template filled from the job's values (runners_argv), which the suite table checked.
 * Its stdout is kept whole (the table), both streams' last bytes for messages. Main thread of `run`.
 *
 * The report holds what ppbench computes for the suite, not what the program says: bytes and flops are
 * ppbench's models of each kernel (lib/babelstream.c's rows), bandwidth and GFLOP/s come from the program's
 * minimum time, as ppbench's rule is. BabelStream prints min, max and mean of its timed iterations but no
 * samples, so the report's stats_s holds those three and no times_s (the server stores such rows without
 * median and deviation, origin "runner"). Verification is the program's: BabelStream checks its arrays
 * after the run and exits non-zero when they are wrong, so a table after exit 0 is verified by it.
 *
 * A program of any suite may print the one JSON form instead (output = ppbench-json, lib/runner_json.h): its
 * problem document is held to the job (every parameter the job set that it names holds the job's value, the
 * key parameters must be named, problem.size is the parameter marked size), its kernels to the suite's and
 * the job's, and the suite's own models (s->model) give the bytes and flops and check the problem's size
 * against what its other values give. A program that prints it has verified its own results, as BabelStream
 * has.
 */
#include "worker/external.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lib/babelstream.h"
#include "lib/clock.h"
#include "lib/runner_json.h"
#include "lib/sha256.h"
#include "worker/platform.h"
#include "worker/provenance.h"
#include "worker/report.h"
#include "worker/run.h"

extern char **environ;

#define OUT_MAX      (16u << 20) /* a table is kilobytes; more is not a table */
#define TAIL_SIZE    4096
#define KILL_AFTER_S 2

struct program {
    char *out; /* stdout, NUL-terminated */
    size_t out_len;
    char tail[TAIL_SIZE]; /* the last bytes of stdout and stderr as they came */
    size_t tail_len;
    int status;
    bool timed_out, too_long;
};

static void tail_add(struct program *p, const char *buf, size_t n)
{
    size_t cap = sizeof(p->tail) - 1;

    if (n > cap) {
        buf += n - cap;
        n = cap;
    }
    if (p->tail_len + n > cap) {
        memmove(p->tail, p->tail + (p->tail_len + n - cap), cap - n);
        p->tail_len = cap - n;
    }
    memcpy(p->tail + p->tail_len, buf, n);
    p->tail_len += n;
    p->tail[p->tail_len] = '\0';
}

/* The last n lines of the program's output, without its final newline. */
static const char *last_lines(const struct program *p, int n)
{
    const char *s = p->tail + p->tail_len;

    while (s > p->tail && (s[-1] == '\n' || s[-1] == ' '))
        s--;
    while (s > p->tail && (s[-1] != '\n' || --n > 0))
        s--;
    return s;
}

/* The environment: the worker's, with the runner's env lines in place of the variables they name. A new
 * array of borrowed strings (free() the array). */
static char **make_env(const struct runner_def *d)
{
    size_t n = 0, k = 0;
    char **env;

    while (environ[n])
        n++;
    if (!(env = calloc(n + (size_t)d->nenv + 1, sizeof(*env))))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        bool replaced = false;
        for (int e = 0; e < d->nenv && !replaced; e++) {
            size_t len = strcspn(d->env[e], "=") + 1;
            replaced = strncmp(environ[i], d->env[e], len) == 0;
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (int e = 0; e < d->nenv; e++)
        env[k++] = d->env[e];
    return env;
}

/* Run argv with env until it exits or timeout_s passes (then SIGTERM, SIGKILL KILL_AFTER_S later). */
static int program_run(char **argv, char **env, double timeout_s, struct program *p, struct pp_error *err)
{
    int outp[2] = {-1, -1}, errp[2] = {-1, -1}, nullfd;
    pid_t pid, parent = getpid();
    double deadline = clock_now() + timeout_s, term_at = 0;
    bool killed = false;
    size_t cap = 0;
    char buf[8192];

    memset(p, 0, sizeof(*p));
    if (pipe2(outp, O_CLOEXEC) || pipe2(errp, O_CLOEXEC)) {
        pp_error_set(err, "cannot create pipes: %s", strerror(errno));
        goto fail;
    }
    if ((pid = fork()) < 0) {
        pp_error_set(err, "cannot fork: %s", strerror(errno));
        goto fail;
    }
    if (pid == 0) { /* async-signal-safe calls only */
        static const char msg[] = "ppbench-worker: cannot exec the runner's program\n";
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
        nullfd = open("/dev/null", O_RDONLY);
        if (nullfd < 0 || dup2(nullfd, 0) < 0 || dup2(outp[1], 1) < 0 || dup2(errp[1], 2) < 0)
            _exit(127);
        execve(argv[0], argv, env);
        if (write(2, msg, sizeof(msg) - 1) < 0)
            _exit(127);
        _exit(127);
    }
    close(outp[1]);
    close(errp[1]);
    outp[1] = errp[1] = -1;
    while (outp[0] >= 0 || errp[0] >= 0) {
        struct pollfd fds[2] = {{.fd = outp[0], .events = POLLIN}, {.fd = errp[0], .events = POLLIN}};
        double now = clock_now(), wake = killed ? now + 1 : term_at ? term_at + KILL_AFTER_S : deadline;
        poll(fds, 2, wake > now ? (int)((wake - now) * 1000) + 1 : 0);
        for (int i = 0; i < 2; i++) {
            int *fd = i == 0 ? &outp[0] : &errp[0];
            ssize_t n;
            if (*fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            if ((n = read(*fd, buf, sizeof(buf))) <= 0) {
                if (n == 0 || errno != EINTR) {
                    close(*fd);
                    *fd = -1;
                }
                continue;
            }
            tail_add(p, buf, (size_t)n);
            if (i == 1)
                continue;
            if (p->out_len + (size_t)n + 1 > OUT_MAX) {
                p->too_long = true;
                continue;
            }
            if (p->out_len + (size_t)n + 1 > cap) {
                char *grown = realloc(p->out, cap = 2 * (p->out_len + (size_t)n + 1));
                if (!grown) {
                    p->too_long = true;
                    continue;
                }
                p->out = grown;
            }
            memcpy(p->out + p->out_len, buf, (size_t)n);
            p->out_len += (size_t)n;
            p->out[p->out_len] = '\0';
        }
        now = clock_now();
        if (!term_at && now >= deadline) {
            p->timed_out = true;
            kill(pid, SIGTERM);
            term_at = now;
        } else if (term_at && !killed && now >= term_at + KILL_AFTER_S) {
            kill(pid, SIGKILL);
            killed = true;
        }
    }
    if (p->timed_out && !killed)
        kill(pid, SIGKILL); /* its pipes closed, but it may live on */
    while (waitpid(pid, &p->status, 0) < 0 && errno == EINTR)
        ;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
    return -1;
}

/* "exited with status 1", "killed by signal 9 (SIGKILL)" */
static void ended(const struct program *p, char *out, size_t size)
{
    if (WIFEXITED(p->status))
        snprintf(out, size, "exited with status %d", WEXITSTATUS(p->status));
    else
        snprintf(out, size, "killed by signal %d (SIG%s)", WTERMSIG(p->status),
                 sigabbrev_np(WTERMSIG(p->status)) ? sigabbrev_np(WTERMSIG(p->status)) : "?");
}

/* The program's version line: the first line of its version_args output that names a version, else its
 * first line ("" when it has no version_args or says nothing). */
static void version_line(const struct runner_def *d, char **env, char *out, size_t size)
{
    char *argv[RUNNER_MAX_WORDS + 2];
    struct program p;
    struct pp_error err;
    const char *s, *first = NULL;

    out[0] = '\0';
    if (!d->nversion_args || runners_argv(d, d->version_args, d->nversion_args, NULL, argv, &err))
        return;
    if (program_run(argv, env, 30, &p, &err) == 0 && p.out) {
        for (s = p.out; *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n')) {
            size_t len = strcspn(s, "\n");
            if (!first && len)
                first = s;
            if (len && strcasestr(s, "version") && strcasestr(s, "version") < s + len) {
                first = s;
                break;
            }
        }
        if (first)
            snprintf(out, size, "%.*s", (int)strcspn(first, "\n"), first);
    }
    free(p.out);
    runners_argv_free(argv);
}

/* ---- the babelstream-csv form ---- */

/* What the table must agree with: the job's size, precision and iterations (STREAM's parameters, the ones
 * BabelStream's table prints). */
static int table_matches(const struct babelstream_row *x, const struct suite_values *v, struct pp_error *err)
{
    long long want_n = suite_is_set(v, "arraysize") ? suite_int(v, "arraysize") : 0;
    int want_bytes = strcmp(suite_str(v, "precision"), "fp32") == 0 ? 4 : 8;

    if (want_n && x->n_elements != want_n)
        return pp_error_set(
            err, "the table disagrees with the job: %s has n_elements %lld, the job asked for %lld",
            x->function, x->n_elements, want_n);
    if (x->element_bytes != want_bytes)
        return pp_error_set(err, "the table disagrees with the job: %s has sizeof %d, the job asked for %s",
                            x->function, x->element_bytes, suite_str(v, "precision"));
    if (x->num_times != suite_int(v, "numtimes"))
        return pp_error_set(err,
                            "the table disagrees with the job: %s has num_times %lld, the job asked for %lld",
                            x->function, x->num_times, suite_int(v, "numtimes"));
    return 0;
}

static json_t *kernel_json(const struct babelstream_row *x, double peak_bw)
{
    double bw = x->bytes / x->min_s;

    return json_pack("{s:s, s:b, s:n, s:f, s:f, s:f, s:f, s:f, s:o, s:{s:I, s:f, s:f, s:f}}", "kernel",
                     x->kernel, "verified", 1, "error", "bytes", x->bytes, "bytes_compulsory", x->bytes,
                     "flops", x->flops, "bandwidth_bytes_per_s", bw, "gflops", x->flops / x->min_s * 1e-9,
                     "efficiency_arch", peak_bw > 0 ? json_real(bw / peak_bw) : json_null(), "stats_s",
                     "count", (json_int_t)(x->num_times - 1), "min", x->min_s, "max", x->max_s, "mean",
                     x->mean_s);
}

/* The report's kernels, in the job's kernel order, from the parsed table; the problem from its first row. */
static int babelstream_report(const struct runner_def *d, const struct suite_values *v, const char *text,
                              size_t len, double peak_bw, json_t *kernels, json_t **problem,
                              struct pp_error *err)
{
    struct babelstream_set set = {0};
    const struct suite *s = v->suite;
    int rc = -1;

    if (babelstream_parse(text, len, &set, err)) {
        pp_error_prefix(err, "no BabelStream table from %s", d->name);
        return -1;
    }
    for (size_t k = 0; s->kernels[k]; k++) {
        const struct babelstream_row *found = NULL;
        if (!(v->kernels & (1u << k)))
            continue;
        for (size_t i = 0; i < set.n && !found; i++)
            if (strcmp(set.rows[i].kernel, s->kernels[k]) == 0)
                found = &set.rows[i];
        if (!found) {
            pp_error_set(err, "the table of %s has no %s row", d->name, s->kernels[k]);
            goto out;
        }
        if (table_matches(found, v, err))
            goto out;
        json_array_append_new(kernels, kernel_json(found, peak_bw));
    }
    const struct babelstream_row *x = &set.rows[0];
    *problem =
        json_pack("{s:I, s:I, s:s, s:i, s:I, s:i, s:I}", "size", (json_int_t)x->n_elements, "array_size",
                  (json_int_t)x->n_elements, "precision", x->element_bytes == 4 ? "fp32" : "fp64",
                  "element_bytes", x->element_bytes, "numtimes", (json_int_t)x->num_times, "warmup", 1,
                  "working_set_bytes", (json_int_t)(3 * x->n_elements * x->element_bytes));
    rc = 0;
out:
    babelstream_set_clear(&set);
    return rc;
}

/* Where the table begins: a program may say things on stdout before it (BabelStream's TBB build names its
 * partitioner and storage), which are not part of it; the import gets a table alone and reads it whole. */
static const char *table_start(const char *out)
{
    for (const char *s = out; *s; s += strcspn(s, "\n") + (s[strcspn(s, "\n")] == '\n'))
        if (!strncmp(s, "function,", 9) || !strncmp(s, "phase,", 6))
            return s;
    return out;
}

/* ---- the ppbench-json form ---- */

/* The program's problem against the job: each parameter the job set and the problem names holds its value;
 * the key ones (what makes results comparable) must be named; problem.size is the parameter marked size. */
static int problem_matches(const struct suite_values *v, const json_t *problem, struct pp_error *err)
{
    const struct suite *s = v->suite;
    char want[SUITE_VALUE_MAX + 32], got[SUITE_KEY_MAX];

    for (size_t i = 0; i < s->nparams; i++) {
        const struct suite_param *p = &s->params[i];
        const json_t *x = json_object_get(problem, p->name);
        if (!v->v[i].set || p->standalone)
            continue;
        if (!x) {
            if (p->key || !strcmp(p->name, "precision"))
                return pp_error_set(err,
                                    "the output disagrees with the job: its problem has no %s (the job's %s)",
                                    p->name, p->name);
            continue;
        }
        if (p->type == SUITE_INTEGER)
            snprintf(want, sizeof(want), "%lld", v->v[i].i);
        else if (p->type == SUITE_NUMBER)
            snprintf(want, sizeof(want), "%.17g", v->v[i].f);
        else
            snprintf(want, sizeof(want), "%s", v->v[i].s);
        if (suite_key_value(x, got, sizeof(got)) || strcmp(got, want))
            return pp_error_set(
                err, "the output disagrees with the job: problem.%s is %s, the job asked for %s", p->name,
                suite_key_value(x, got, sizeof(got)) ? "of another form" : got, want);
    }
    for (size_t i = 0; i < s->nparams;
         i++) /* the parameter marked size (stream's arraysize) is problem.size */
        if (s->params[i].size && v->v[i].set &&
            json_integer_value(json_object_get(problem, "size")) != v->v[i].i)
            return pp_error_set(
                err, "the output disagrees with the job: problem.size is %lld, the job's %s is %lld",
                (long long)json_integer_value(json_object_get(problem, "size")), s->params[i].name,
                v->v[i].i);
    return 0;
}

/* The report's kernels (the job's, in the suite's order) and problem from the program's JSON document. */
static int json_report(const struct runner_def *d, const struct suite_values *v, const char *text, size_t len,
                       double peak_bw, json_t *kernels, json_t **problem, struct pp_error *err)
{
    const struct suite *s = v->suite;
    struct suite_model models[SUITE_MAX_KERNELS];
    struct runner_json doc;
    struct suite_error se;
    int rc = -1;

    if (runner_json_parse(text, len, &doc, err)) {
        pp_error_prefix(err, "no ppbench-json document from %s", d->name);
        return -1;
    }
    for (size_t i = 0; i < doc.nkernels; i++)
        if (suite_kernel_index(s, doc.kernels[i].kernel) < 0) {
            pp_error_set(err, "the output of %s names kernel %s, which suite %s does not have", d->name,
                         doc.kernels[i].kernel, s->name);
            goto out;
        }
    if (problem_matches(v, doc.problem, err))
        goto out;
    if (suite_models_of(s, doc.problem, models, &se)) {
        pp_error_set(err, "the output of %s: %s", d->name, se.msg);
        goto out;
    }
    for (size_t k = 0; s->kernels[k]; k++) {
        const struct runner_json_kernel *x = NULL;
        if (!(v->kernels & (1u << k)))
            continue;
        for (size_t i = 0; i < doc.nkernels && !x; i++)
            if (!strcmp(doc.kernels[i].kernel, s->kernels[k]))
                x = &doc.kernels[i];
        if (!x) {
            pp_error_set(err, "the output of %s has no %s kernel", d->name, s->kernels[k]);
            goto out;
        }
        double bw = models[k].bytes / x->min_s;
        json_array_append_new(
            kernels,
            json_pack("{s:s, s:b, s:n, s:f, s:f, s:f, s:f, s:f, s:o, s:{s:I, s:f, s:f, s:f}}", "kernel",
                      s->kernels[k], "verified", 1, "error", "bytes", models[k].bytes, "bytes_compulsory",
                      models[k].bytes_compulsory, "flops", models[k].flops, "bandwidth_bytes_per_s", bw,
                      "gflops", models[k].flops / x->min_s * 1e-9, "efficiency_arch",
                      peak_bw > 0 ? json_real(models[k].bytes_compulsory / x->min_s / peak_bw) : json_null(),
                      "stats_s", "count", (json_int_t)x->count, "min", x->min_s, "max", x->max_s, "mean",
                      x->mean_s));
    }
    *problem = json_deep_copy(doc.problem);
    rc = 0;
out:
    runner_json_clear(&doc);
    return rc;
}

/* ---- the run ---- */

static void join_words(char *const *words, int n, char *out, size_t size)
{
    size_t used = 0;

    out[0] = '\0';
    for (int i = 0; i < n && words[i] && used < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%s", i ? " " : "", words[i]);
}

int external_run(const struct runner_def *d, const struct runner_job *job, FILE *out, enum runner_format fmt,
                 struct pp_error *err)
{
    static struct pp_platform_list pl;
    const struct suite_values *v = &job->values;
    const struct pp_platform *platform;
    char *argv[RUNNER_MAX_WORDS + 2] = {0}, **env = NULL, why[64], sum[65], version[256], line[1024];
    char problem_key[SUITE_KEY_MAX];
    struct suite_error se;
    struct pp_info_list prov;
    struct program p = {0};
    json_t *kernels = NULL, *problem = NULL, *doc;
    int rc = RUN_FAILED;

    if (v->suite != d->suite)
        return pp_error_set(err, "runner %s measures suite %s, not %s", d->name, d->suite->name,
                            v->suite->name),
               RUN_USAGE;
    for (size_t k = 0; d->suite->kernels[k]; k++)
        if ((v->kernels & (1u << k)) && !(d->kernels & (1u << k)))
            return pp_error_set(err, "runner %s does not measure %s", d->name, d->suite->kernels[k]),
                   RUN_USAGE;
    if (platform_discover(&pl, err))
        return RUN_FAILED;
    if (!(platform = platform_find(&pl, job->platform)) || strcmp(platform->id, d->platform) != 0)
        return pp_error_set(err, "runner %s runs on platform %s, not %s", d->name, d->platform,
                            job->platform),
               RUN_USAGE;
    if (runners_argv(d, d->args, d->nargs, v, argv, err))
        return RUN_USAGE;
    if (sha256_file(d->program, sum, err) || !(env = make_env(d)))
        goto out;
    version_line(d, env, version, sizeof(version));
    memset(&prov, 0, sizeof(prov));
    provenance_collect(&prov, false);
    if (program_run(argv, env, (double)d->timeout_s, &p, err))
        goto out;
    if (p.timed_out) {
        pp_error_set(err, "%s timed out after %ld s (its timeout_s)\n%s", d->name, d->timeout_s,
                     last_lines(&p, 20));
        goto out;
    }
    if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0) {
        ended(&p, why, sizeof(why));
        pp_error_set(err, "%s %s\n%s", d->name, why, last_lines(&p, 20));
        goto out;
    }
    if (p.too_long) {
        pp_error_set(err, "%s printed more than %u bytes: not a table", d->name, OUT_MAX);
        goto out;
    }
    if (fmt != RUNNER_JSON) { /* the program's own table, as it printed it */
        fwrite(p.out ? p.out : "", 1, p.out_len, out);
        rc = fflush(out) ? RUN_FAILED : RUN_OK;
        goto out;
    }
    kernels = json_array();
    const char *table = table_start(p.out ? p.out : "");
    if (!strcmp(d->output, "ppbench-json")
            ? json_report(d, v, p.out ? p.out : "", p.out_len, platform->peak_bw, kernels, &problem, err)
            : babelstream_report(d, v, table, p.out_len - (size_t)(table - (p.out ? p.out : "")),
                                 platform->peak_bw, kernels, &problem, err)) {
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof(err->msg) - used, "\n%s", last_lines(&p, 20));
        goto out;
    }
    if (suite_problem_key(d->suite, problem, problem_key, sizeof(problem_key), &se)) {
        pp_error_set(err, "%s: the problem key: %s", d->name, se.msg);
        goto out;
    }
    json_object_set_new(problem, "key", json_string(problem_key));
    info_add(&prov, "runner.name", "%s", d->name);
    info_add(&prov, "runner.program", "%s", d->program);
    info_add(&prov, "runner.sha256", "%s", sum);
    info_add(&prov, "runner.version", "%s", version);
    join_words(argv, RUNNER_MAX_WORDS + 1, line, sizeof(line));
    info_add(&prov, "runner.argv", "%s", line);
    join_words(d->env, d->nenv, line, sizeof(line));
    info_add(&prov, "runner.env", "%s", line);
    info_add(&prov, "runner.output", "%s", d->output);
    info_add(&prov, "verification", "%s",
             strcmp(d->output, "ppbench-json")
                 ? "the program's own: it checks its arrays after the run and exits non-zero "
                   "when they are wrong (ppbench did not verify this result)"
                 : "the program's own: it printed its results after verifying them "
                   "(ppbench did not verify this result)");
    doc =
        json_pack("{s:i, s:s, s:s, s:s, s:o, s:{s:s, s:i, s:s, s:s}, s:o, s:{s:s}, s:o, s:b, s:o, s:o, s:o}",
                  "schema", 1, "suite", d->suite->name, "model", d->name, "origin", "runner", "platform",
                  report_platform_json(platform), "device", "name", platform->name, "index", 0, "uuid",
                  platform->uuid, "pci_bus_id", platform->pci_bus_id, "problem", problem, "variant", "runner",
                  d->name, "phases_s", json_object(), "verified", 1, "kernels", kernels, "provenance",
                  report_info_json(&prov, ""), "warnings", json_array());
    problem = kernels = NULL; /* stolen */
    if (!doc) {
        pp_error_set(err, "cannot build the json document");
        goto out;
    }
    rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_REAL_PRECISION(10)) || fputc('\n', out) == EOF ||
                 fflush(out)
             ? RUN_FAILED
             : RUN_OK;
    if (rc)
        pp_error_set(err, "cannot write the report");
    json_decref(doc);
out:
    json_decref(kernels);
    json_decref(problem);
    free(p.out);
    free(env);
    runners_argv_free(argv);
    return rc;
}
