/*
 * config: the settings table and its parser. Runs on the main thread (startup and SIGHUP); the struct it
 * fills is read by other threads only after startup, and reloads touch only the fields marked reloadable.
 */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

/* T_EXCLUSIVE: an int, the index of the value in config_exclusive_names */
enum type { T_STRING, T_LONG, T_BOOL, T_EXCLUSIVE };

const char *const config_exclusive_names[] = {"host", "device", "none", NULL};
const char *const config_kind_names[KIND_COUNT] = {"cpu", "gpu", "accel"};

static const struct setting {
    const char *name;
    enum type type;
    size_t offset, size;
    const char *def;
    bool reloadable;
    long min, max;
} settings[] = {
#define S(f) offsetof(struct config, f), sizeof(((struct config *)0)->f)
    {"listen", T_STRING, S(listen), "127.0.0.1:8080", false, 0, 0},
    {"state_dir", T_STRING, S(state_dir), "./ppbench-state", false, 0, 0},
    {"log_level", T_STRING, S(log_level), "info", true, 0, 0},
    {"threads", T_LONG, S(threads), "8", false, 1, 256},
    {"max_body_bytes", T_LONG, S(max_body_bytes), "4194304", true, 1024, 1L << 30},
    {"max_connections", T_LONG, S(max_connections), "1024", false, 4, 65536},
    {"connection_timeout_s", T_LONG, S(connection_timeout_s), "90", false, 1, 3600},
    {"request_timeout_s", T_LONG, S(request_timeout_s), "30", false, 1, 3600},
    {"max_connections_per_ip", T_LONG, S(max_connections_per_ip), "64", false, 1, 65536},
    {"lease_s", T_LONG, S(lease_s), "30", true, 2, 3600},
    {"queue_timeout_s", T_LONG, S(queue_timeout_s), "86400", true, 1, 31 * 86400},
    {"db_timeout_s", T_LONG, S(db_timeout_s), "10", true, 1, 3600},
    {"heartbeat_s", T_LONG, S(heartbeat_s), "5", true, 1, 600},
    {"job_grace_s", T_LONG, S(job_grace_s), "10", false, 0, 3600},
    {"max_wait_s", T_LONG, S(max_wait_s), "60", true, 0, 600},
    {"noise_best_percent", T_LONG, S(noise_best_percent), "10", true, 1, 100000},
    {"noise_mean_percent", T_LONG, S(noise_mean_percent), "10", true, 1, 100000},
    {"noise_repeats", T_LONG, S(noise_repeats), "2", true, 0, 10},
    {"require_read_token", T_BOOL, S(require_read_token), "false", true, 0, 0},
    {"embedded_workers", T_BOOL, S(embedded_workers), "true", false, 0, 0},
    /* the Slurm executor (server/slurm/, docs/ARCHITECTURE.md "Slurm"): off while slurm_partition is empty
     */
    {"slurm_partition", T_STRING, S(slurm_partition), "", false, 0, 0},
    {"slurm_platforms", T_STRING, S(slurm_platforms), "all", false, 0, 0},
    {"slurm_account", T_STRING, S(slurm_account), "", false, 0, 0},
    {"slurm_gres", T_STRING, S(slurm_gres), "gpu:1", false, 0, 0},
    {"slurm_sbatch", T_STRING, S(slurm_sbatch), "sbatch", false, 0, 0},
    {"slurm_squeue", T_STRING, S(slurm_squeue), "squeue", false, 0, 0},
    {"slurm_scancel", T_STRING, S(slurm_scancel), "scancel", false, 0, 0},
    {"slurm_scontrol", T_STRING, S(slurm_scontrol), "scontrol", false, 0, 0},
    {"slurm_sinfo", T_STRING, S(slurm_sinfo), "sinfo", false, 0, 0},
    {"slurm_worker", T_STRING, S(slurm_worker), "ppbench-worker", false, 0, 0},
    {"slurm_server_url", T_STRING, S(slurm_server_url), "", false, 0, 0},
    {"slurm_token_file", T_STRING, S(slurm_token_file), "", false, 0, 0},
    {"slurm_output", T_STRING, S(slurm_output), "/dev/null", false, 0, 0},
    {"slurm_export", T_STRING, S(slurm_export), "NONE", false, 0, 0},
    {"slurm_poll_s", T_LONG, S(slurm_poll_s), "5", false, 1, 600},
    {"slurm_time_margin_s", T_LONG, S(slurm_time_margin_s), "300", false, 0, 86400},
    {"slurm_nodes_s", T_LONG, S(slurm_nodes_s), "30", false, 1, 3600},
    {"baseline_window", T_LONG, S(baseline_window), "20", true, 2, 1000},
    {"baseline_min_results", T_LONG, S(baseline_min_results), "5", true, 2, 1000},
    {"judge_z", T_LONG, S(judge_z), "4", true, 1, 100},
    {"judge_min_band_percent", T_LONG, S(judge_min_band_percent), "2", true, 0, 100},
    {"outlier_mads", T_LONG, S(outlier_mads), "3", true, 1, 100},
    {"outlier_min_peers", T_LONG, S(outlier_min_peers), "4", true, 1, 1000},
    {"webhook_url", T_STRING, S(webhook_url), "", true, 0, 0},
    {"drain_hook", T_STRING, S(drain_hook), "", true, 0, 0},
    {"drain_hook_timeout_s", T_LONG, S(drain_hook_timeout_s), "30", true, 1, 3600},
    {"metrics_max_series", T_LONG, S(metrics_max_series), "10000", true, 1, 1000000},
    /* one measurement at a time where measurements disturb each other (server/api/worker.c's claim) */
    {"exclusive_cpu", T_EXCLUSIVE, S(exclusive[KIND_CPU]), "host", true, 0, 0},
    {"exclusive_gpu", T_EXCLUSIVE, S(exclusive[KIND_GPU]), "device", true, 0, 0},
    {"exclusive_accel", T_EXCLUSIVE, S(exclusive[KIND_ACCEL]), "device", true, 0, 0},
#undef S
};

#define NSETTINGS (sizeof(settings) / sizeof(settings[0]))

static int apply(struct config *c, const struct setting *s, const char *value, struct pp_error *err)
{
    char *field = (char *)c + s->offset, *end;

    switch (s->type) {
    case T_STRING:
        if (strlen(value) >= s->size)
            return pp_error_set(err, "%s: value longer than %zu characters", s->name, s->size - 1);
        memcpy(field, value, strlen(value) + 1);
        return 0;
    case T_LONG: {
        long v;
        errno = 0;
        v = strtol(value, &end, 10);
        if (errno || end == value || *end)
            return pp_error_set(err, "%s: \"%s\" is not a whole number", s->name, value);
        if (v < s->min || v > s->max)
            return pp_error_set(err, "%s: %ld is out of range %ld..%ld", s->name, v, s->min, s->max);
        *(long *)field = v;
        return 0;
    }
    case T_BOOL:
        if (!strcmp(value, "true") || !strcmp(value, "yes") || !strcmp(value, "1"))
            *(bool *)field = true;
        else if (!strcmp(value, "false") || !strcmp(value, "no") || !strcmp(value, "0"))
            *(bool *)field = false;
        else
            return pp_error_set(err, "%s: \"%s\" is not true or false", s->name, value);
        return 0;
    case T_EXCLUSIVE:
        for (int i = 0; config_exclusive_names[i]; i++)
            if (!strcmp(config_exclusive_names[i], value)) {
                *(int *)field = i;
                return 0;
            }
        return pp_error_set(err, "%s: \"%s\" is not host, device or none", s->name, value);
    }
    return pp_error_set(err, "%s: bad type", s->name);
}

void config_defaults(struct config *c)
{
    struct pp_error ignored;

    memset(c, 0, sizeof(*c));
    for (size_t i = 0; i < NSETTINGS; i++)
        (void)!apply(c, &settings[i], settings[i].def, &ignored);
}

int config_set(struct config *c, const char *key, const char *value, struct pp_error *err)
{
    enum log_level lvl;

    if (!strcmp(key, "database_url"))
        return pp_error_set(err,
                            "database_url: set it in the environment (PPBENCH_DATABASE_URL), not in a file");
    for (size_t i = 0; i < NSETTINGS; i++)
        if (!strcmp(settings[i].name, key)) {
            if (!strcmp(key, "log_level") && log_parse_level(value, &lvl))
                return pp_error_set(err, "log_level: \"%s\" is not error, warning, notice, info or debug",
                                    value);
            return apply(c, &settings[i], value, err);
        }
    return pp_error_set(err, "unknown setting \"%s\"", key);
}

static char *trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

int config_load_file(struct config *c, const char *path, struct pp_error *err)
{
    FILE *f = fopen(path, "r");
    char line[2048];
    int lineno = 0, rc = 0;

    if (!f)
        return pp_error_set(err, "%s: %s", path, strerror(errno));
    while (fgets(line, sizeof(line), f)) {
        char *eq, *key, *value, *hash;
        lineno++;
        if ((hash = strchr(line, '#')))
            *hash = '\0';
        key = trim(line);
        if (!*key)
            continue;
        if (!(eq = strchr(key, '='))) {
            rc = pp_error_set(err, "%s:%d: expected key = value", path, lineno);
            break;
        }
        *eq = '\0';
        value = trim(eq + 1);
        key = trim(key);
        if (config_set(c, key, value, err)) {
            rc = pp_error_prefix(err, "%s:%d", path, lineno);
            break;
        }
    }
    fclose(f);
    return rc;
}

void config_apply_reloadable(struct config *cur, const struct config *next)
{
    for (size_t i = 0; i < NSETTINGS; i++)
        if (settings[i].reloadable)
            memcpy((char *)cur + settings[i].offset, (const char *)next + settings[i].offset,
                   settings[i].size);
}

bool config_exclusive_json(const struct config *c, char *buf, size_t size)
{
    bool any = false;
    size_t n = 0;

    buf[0] = '\0';
    for (int k = 0; k < KIND_COUNT && n < size; k++) {
        n += (size_t)snprintf(buf + n, size - n, "%s\"%s\": \"%s\"", k ? ", " : "{", config_kind_names[k],
                              config_exclusive_names[c->exclusive[k]]);
        any |= c->exclusive[k] != EXCLUSIVE_NONE;
    }
    if (n < size)
        snprintf(buf + n, size - n, "}");
    return any;
}

int config_listen(const struct config *c, char *addr, size_t size, unsigned *port, struct pp_error *err)
{
    const char *colon = strrchr(c->listen, ':');
    char *end;
    long p;

    if (!colon || colon == c->listen || (size_t)(colon - c->listen) >= size)
        return pp_error_set(err, "listen: \"%s\" is not ADDR:PORT", c->listen);
    p = strtol(colon + 1, &end, 10);
    if (*end || p < 0 || p > 65535)
        return pp_error_set(err, "listen: bad port in \"%s\"", c->listen);
    snprintf(addr, size, "%.*s", (int)(colon - c->listen), c->listen);
    *port = (unsigned)p;
    return 0;
}
