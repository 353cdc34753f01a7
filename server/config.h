/*
 * config: ppbenchd's settings, one table (name, type, default, reloadable, bounds), read from a `key = value`
 * file, then the command line; secrets (the database URL) from the environment (PPBENCH_DATABASE_URL).
 */
#ifndef PP_CONFIG_H
#define PP_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "lib/error.h"

/* How the jobs of one platform kind keep apart from the other jobs of their host (server/api/worker.c's
 * claim, docs/ARCHITECTURE.md "One measurement at a time"): host, alone on its host; device, alone on its
 * device and never beside a job of a host-exclusive kind; none, no rule beyond one job per worker. */
enum exclusive { EXCLUSIVE_HOST, EXCLUSIVE_DEVICE, EXCLUSIVE_NONE };
extern const char *const config_exclusive_names[]; /* indexed by enum exclusive, NULL-terminated */

/* The platform kinds (schema/001_init.sql's platforms.kind), each with its exclusive_<kind> setting. */
enum platform_kind { KIND_CPU, KIND_GPU, KIND_ACCEL, KIND_COUNT };
extern const char *const config_kind_names[KIND_COUNT];

struct config {
    char listen[128];        /* ADDR:PORT */
    char state_dir[512];     /* embedded PostgreSQL and local state */
    char database_url[1024]; /* empty: embedded default */
    char log_level[16];
    long threads; /* HTTP thread pool size; each thread holds one PostgreSQL connection */
    long max_body_bytes;
    long max_connections;
    long connection_timeout_s;   /* idle time between bytes */
    long request_timeout_s;      /* the whole of a request's headers and body, however slowly they come */
    long max_connections_per_ip; /* well below max_connections: one address cannot take them all */
    long lease_s;                /* a claim's lease; heartbeats extend it */
    long queue_timeout_s;        /* a job queued this long (no worker took it) fails */
    long db_timeout_s;           /* statement_timeout; no answer 2 s past it: stuck */
    long heartbeat_s;
    long job_grace_s; /* the embedded workers' --grace: a running job's time to end at a stop */
    long max_wait_s;  /* longest claim long-poll */
    /* the noise rule (docs/METHODOLOGY.md, "Noise"): a job whose figure is less stable than this many percent
     * (best-of rules: how far the best tenth of the samples lies above the best; mean-of rules: the
     * half-width of the mean's 95 % confidence interval) runs again, up to noise_repeats times; a result that
     * stays unstable is flagged noisy and left out of PP unless asked for */
    long noise_best_percent, noise_mean_percent, noise_repeats;
    bool require_read_token;
    bool embedded_workers; /* start one worker per local platform (embedded default) */
    /* The Slurm executor (server/slurm/): on when slurm_partition is set. Queued jobs of the platforms
     * slurm_platforms selects ("all", "kind=gpu", "host=gpu*", or both) become sbatch jobs in that partition
     * (and account), asking slurm_gres for a GPU, slurm_time_margin_s above the job's timeout, running
     * `slurm_worker serve --once --job ID --server slurm_server_url` with the worker token read on the node
     * from slurm_token_file, output to slurm_output, environment per slurm_export (sbatch --export). */
    char slurm_partition[128];
    char slurm_platforms[256];
    char slurm_account[128];
    char slurm_gres[128];
    char slurm_sbatch[512], slurm_squeue[512], slurm_scancel[512], slurm_scontrol[512], slurm_sinfo[512];
    char slurm_worker[512];
    char slurm_server_url[512]; /* empty: http://<listen> */
    char slurm_token_file[512];
    char slurm_output[512];
    char slurm_export[512];
    long slurm_poll_s;
    long slurm_time_margin_s;
    long slurm_nodes_s; /* sinfo of the partition's nodes: their state, the platforms found on them */
    /* fleet health (server/fleet/health.c, schema/functions/judge.sql) */
    long baseline_window;        /* K: a baseline is the median and MAD of the last K results of a segment */
    long baseline_min_results;   /* results a baseline needs before it judges */
    long judge_z;                /* |z| beyond this is a regression or an improvement */
    long judge_min_band_percent; /* the band (1.4826 MAD) is at least this % of the median */
    long outlier_mads;           /* k: more than k MADs below the peers' median is an outlier */
    long outlier_min_peers;      /* peers (same device model and driver) needed to judge outliers */
    char webhook_url[1024];      /* gets a JSON document per confirmed event and recovery ("": none) */
    char drain_hook[1024];       /* run with the platform and the reason when a platform needs attention */
    long drain_hook_timeout_s;   /* then killed, with its process group */
    long metrics_max_series;     /* per-platform series per family in GET /metrics */
    int exclusive[KIND_COUNT];   /* enum exclusive per platform kind: exclusive_cpu, _gpu, _accel */
};

void config_defaults(struct config *c);

/* Apply one setting by name. Unknown names, bad values and out-of-range numbers are errors naming the key. */
int config_set(struct config *c, const char *key, const char *value, struct pp_error *err) PP_WUR;

/* Read a `key = value` file ('#' comments, blank lines) on top of c. Errors carry "file:line". */
int config_load_file(struct config *c, const char *path, struct pp_error *err) PP_WUR;

/* Copy the reloadable settings of next into cur (SIGHUP, after next validated as a whole). */
void config_apply_reloadable(struct config *cur, const struct config *next);

/* The exclusive settings as the claim's JSON parameter, {"cpu": "host", "gpu": "device", "accel": "device"}.
 * False when every kind is none (no rule: a claim needs no host lock). */
bool config_exclusive_json(const struct config *c, char *buf, size_t size);

/* Split listen into address and port. */
int config_listen(const struct config *c, char *addr, size_t size, unsigned *port,
                  struct pp_error *err) PP_WUR;

#endif
