/*
 * executor: the Slurm executor's thread (docs/ARCHITECTURE.md, "Slurm"), started when slurm_partition is set,
 * with its own database connection. Every slurm_poll_s:
 *  - submit: queued jobs of the platforms slurm_platforms selects are marked as the executor's (slurm_state,
 *    in one UPDATE ... FOR UPDATE SKIP LOCKED, so several ppbenchd on one database never submit a job twice),
 *    then given to sbatch; a failed sbatch leaves the job queued with the reason and retries it later, one
 *    that Slurm refuses outright (an invalid partition, gres, account or node) fails it with Slurm's message;
 *  - follow: one squeue call for every job still active in Slurm records its state and reason; a ppbench job
 *    that was cancelled or failed (or succeeded elsewhere while its Slurm job pends) has its Slurm job
 *    scancel'd; a Slurm job that ended while its ppbench job was still queued or running re-queues that job
 *    (a new Slurm job) or, when it was cancelled in Slurm or its failures reached max_attempts, fails it
 *    with Slurm's state and reason;
 *  - recover: a submission a ppbenchd did not finish (it died during sbatch) is found by its Slurm job's name
 *    (ppbench-<id>) and adopted, or submitted again;
 *  - the fleet's side (fleet.c): the partition's nodes, and the drain and resume that health events ask for.
 * The settings and the running of the commands are slurm.c's; nodes' drain and resume are node.c's.
 *
 * Why: on a cluster run by Slurm nothing may run on a compute node outside the scheduler, so there ppbench is
 * a client of Slurm rather than a resident worker per GPU. The submission is `sbatch --parsable --job-name
 * ppbench-<id> --partition --time (timeout_s + slurm_time_margin_s) --output --export (slurm_export, NONE)
 * [--account] [--gres, slurm_gres (gpu:1) for a GPU or the job's own] [--nodelist=<the job's host>] script`;
 * the script (write_script) reads the worker token from slurm_token_file on the node (never on a command
 * line, nor in Slurm's stored copy of the script) and execs `ppbench-worker serve --once --job ID --platform
 * <device>`, which registers under the node's name ($SLURMD_NODENAME), claims exactly that job
 * (claim?job=ID), runs it with the leases, heartbeats and epochs of any worker, posts the result and
 * deregisters. A failed sbatch (controller unreachable) is retried SLURM_RETRY_S (10 s) later. The notifier's
 * queue_timeout_s does not apply to the executor's jobs: they wait in Slurm's queue.
 *
 * Why sbatch and not slurmrestd: every Slurm installation has the client commands and munge on its login and
 * service nodes, where ppbenchd runs, while slurmrestd is an optional daemon that many sites do not run,
 * needs JWT or a local socket, and changes its OpenAPI plug-in versions with Slurm's releases. The commands
 * are stable, need no credentials of ours (munge authenticates the user ppbenchd runs as), and --parsable and
 * squeue -o answer in a machine-readable form. slurmrestd could replace slurm_exec behind the same functions.
 */
#include "server/slurm/executor.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/log.h"
#include "server/db.h"
#include "server/slurm/fleet.h"
#include "server/slurm/slurm.h"

#define PP_STR_(x) #x
#define PP_STR(x)  PP_STR_(x)

#define SLURM_RETRY_S 10 /* a job whose sbatch failed is tried again this much later */
#define SLURM_BATCH   16 /* jobs submitted per tick */
#define SLURM_FOLLOW  500

struct slurm {
    pthread_t thread;
    atomic_bool stop;
};

/* ---- submit ---- */

static char g_unreachable[600]; /* the last sbatch failure (the executor's thread only) */

static const char claim_sql[] =
    "WITH c AS (SELECT j.id, coalesce(p.kind, j.selector->>'kind', 'cpu') AS kind, "
    "  coalesce(h.name, j.selector->>'host', '') AS host, coalesce(p.local_id, '') AS local_id FROM jobs j "
    "  LEFT JOIN platforms p ON p.id = j.platform_id LEFT JOIN hosts h ON h.id = p.host_id "
    "  WHERE j.state = 'queued' AND (j.slurm_state IS NULL OR (j.slurm_state = 'UNSUBMITTED' "
    "    AND j.slurm_next_try <= now())) "
    "  AND ($1 = '' OR coalesce(p.kind, j.selector->>'kind') = $1) "
    "  AND coalesce(h.name, j.selector->>'host', '') LIKE $2 "
    "  ORDER BY j.priority DESC, j.id LIMIT " PP_STR(
        SLURM_BATCH) " FOR UPDATE OF j SKIP LOCKED) "
                     "UPDATE jobs SET slurm_state = 'SUBMITTING', slurm_next_try = now() FROM c WHERE "
                     "jobs.id = c.id "
                     "RETURNING jobs.id, jobs.timeout_s, c.kind, c.host, c.local_id, "
                     "coalesce(jobs.slurm_partition, ''), coalesce(jobs.slurm_gres, '')";

static const char submitted_sql[] =
    "UPDATE jobs SET slurm_job_id = $2, slurm_state = 'PENDING', slurm_reason = NULL WHERE id = $1";

static const char unsubmitted_sql[] =
    "UPDATE jobs SET slurm_state = 'UNSUBMITTED', slurm_reason = $2, "
    "  slurm_next_try = now() + make_interval(secs => " PP_STR(SLURM_RETRY_S) ") WHERE id = $1";

static const char refused_sql[] =
    "UPDATE jobs SET slurm_state = 'UNSUBMITTED', slurm_reason = $2, state = CASE WHEN state = 'queued' "
    "  THEN 'failed' ELSE state END, error = CASE WHEN state = 'queued' THEN 'slurm refused the job: ' || $2 "
    "  ELSE error END, finished_at = CASE WHEN state = 'queued' THEN now() ELSE finished_at END WHERE id = "
    "$1";

/* The batch script: the token from a file (never on a command line or in Slurm's copy of the script). */
static int write_script(const char *id, const char *device, char *path, size_t size, struct pp_error *err)
{
    const struct config *c = slurm_config();
    FILE *f;
    int fd;

    snprintf(path, size, "/tmp/ppbench-sbatch-%s-XXXXXX", id);
    if ((fd = mkstemp(path)) < 0 || !(f = fdopen(fd, "w"))) {
        if (fd >= 0)
            close(fd);
        return pp_error_set(err, "cannot write the batch script: %s", strerror(errno));
    }
    fprintf(f, "#!/bin/sh\n# ppbench job %s, submitted by ppbenchd's Slurm executor\n", id);
    if (c->slurm_token_file[0])
        fprintf(f, "read -r PPBENCH_WORKER_TOKEN <'%s' || exit 2\nexport PPBENCH_WORKER_TOKEN\n",
                c->slurm_token_file);
    fprintf(f, "exec '%s' serve --once --job %s --server '%s' --platform '%s'\n", c->slurm_worker, id,
            slurm_url(), device);
    if (fclose(f))
        return pp_error_set(err, "cannot write the batch script: %s", strerror(errno));
    return 0;
}

/* Submit one job; returns true when Slurm could not be reached (the rest of the batch waits for the retry).
 */
static bool submit_one(const char *id, long timeout_s, const char *kind, const char *host,
                       const char *local_id, const char *partition, const char *gres_req)
{
    char script[96], name[48], part[160], acct[160], gres[160], node[160], tlimit[32], output[540], exp[540],
        out[2048], device[72];
    const char *argv[16];
    const struct config *c = slurm_config();
    struct pp_error err;
    struct db_error dberr;
    PGresult *res = NULL;
    int n = 0, rc;

    snprintf(device, sizeof(device), "%s", local_id[0] ? local_id : !strcmp(kind, "gpu") ? "gpu0" : "cpu0");
    if (write_script(id, device, script, sizeof(script), &err)) {
        log_warn("job=%s slurm: %s", id, err.msg);
        const char *p[2] = {id, err.msg};
        PQclear(db_query(unsubmitted_sql, 2, p, &dberr));
        return false;
    }
    snprintf(name, sizeof(name), "--job-name=ppbench-%s", id);
    snprintf(part, sizeof(part), "--partition=%s", partition[0] ? partition : c->slurm_partition);
    snprintf(tlimit, sizeof(tlimit), "--time=%ld", (timeout_s + c->slurm_time_margin_s + 59) / 60);
    snprintf(output, sizeof(output), "--output=%s", c->slurm_output);
    snprintf(exp, sizeof(exp), "--export=%s", c->slurm_export);
    argv[n++] = c->slurm_sbatch;
    argv[n++] = "--parsable";
    argv[n++] = name;
    argv[n++] = part;
    argv[n++] = tlimit;
    argv[n++] = output;
    argv[n++] = exp;
    if (c->slurm_account[0]) {
        snprintf(acct, sizeof(acct), "--account=%s", c->slurm_account);
        argv[n++] = acct;
    }
    if (gres_req[0] || (!strcmp(kind, "gpu") && c->slurm_gres[0])) {
        snprintf(gres, sizeof(gres), "--gres=%s", gres_req[0] ? gres_req : c->slurm_gres);
        argv[n++] = gres;
    }
    if (host[0]) {
        snprintf(node, sizeof(node), "--nodelist=%s", host);
        argv[n++] = node;
    }
    argv[n++] = script;
    argv[n] = NULL;
    rc = slurm_exec(argv, out, sizeof(out), SLURM_CMD_TIMEOUT_S, &err);
    unlink(script);
    if (rc == 0 && atoll(out) > 0) {
        char jid[24];
        snprintf(jid, sizeof(jid), "%lld", atoll(out));
        const char *p[2] = {id, jid};
        res = db_query(submitted_sql, 2, p, &dberr);
        log_info("job=%s slurm: submitted as slurm job %s (%s %s%s%s)", id, jid, part, tlimit,
                 host[0] ? " node " : "", host);
    } else {
        char why[600];
        const char *msg = rc < 0 ? err.msg : slurm_last_line(out);
        bool refused = rc > 0 && strstr(msg, "Invalid") && !strstr(msg, "contact");
        snprintf(why, sizeof(why), "%s%s", refused ? "" : "sbatch failed (retried): ", msg);
        const char *p[2] = {id, why};
        res = db_query(refused ? refused_sql : unsubmitted_sql, 2, p, &dberr);
        log_warn("job=%s slurm: %s", id, why);
        snprintf(g_unreachable, sizeof(g_unreachable), "%s", why);
        PQclear(res);
        return !refused;
    }
    PQclear(res);
    return false;
}

static void submit(void)
{
    const char *p[2] = {slurm_takes_kind(), slurm_takes_like()};
    struct db_error dberr;
    PGresult *res = db_query(claim_sql, 2, p, &dberr);

    if (!res)
        return;
    bool down = false;
    for (int i = 0; i < PQntuples(res); i++) {
        if (down) { /* not one sbatch per job while the controller is away: the same reason, the same retry */
            const char *u[2] = {PQgetvalue(res, i, 0), g_unreachable};
            PQclear(db_query(unsubmitted_sql, 2, u, &dberr));
            continue;
        }
        down = submit_one(PQgetvalue(res, i, 0), atol(PQgetvalue(res, i, 1)), PQgetvalue(res, i, 2),
                          PQgetvalue(res, i, 3), PQgetvalue(res, i, 4), PQgetvalue(res, i, 5),
                          PQgetvalue(res, i, 6));
    }
    PQclear(res);
}

/* ---- a submission a ppbenchd did not finish (it died during sbatch): adopt the Slurm job or retry ---- */

static const char stuck_sql[] =
    "SELECT id FROM jobs WHERE slurm_state = 'SUBMITTING' AND slurm_next_try < now() - make_interval(secs "
    "=> " PP_STR(SLURM_CMD_TIMEOUT_S) " * 3) ORDER BY id LIMIT " PP_STR(SLURM_BATCH);

static const char adopt_sql[] =
    "UPDATE jobs SET slurm_job_id = $2, slurm_state = 'PENDING', slurm_reason = NULL "
    "WHERE id = $1 AND slurm_state = 'SUBMITTING'";

static const char resubmit_sql[] =
    "UPDATE jobs SET slurm_state = 'UNSUBMITTED', slurm_reason = 'the submission was interrupted', "
    "slurm_next_try = now() WHERE id = $1 AND slurm_state = 'SUBMITTING'";

static void recover(void)
{
    struct db_error dberr;
    struct pp_error err;
    PGresult *res = db_query(stuck_sql, 0, NULL, &dberr);

    for (int i = 0; res && i < PQntuples(res); i++) {
        const char *id = PQgetvalue(res, i, 0);
        char name[48], out[512], jid[24];
        snprintf(name, sizeof(name), "--name=ppbench-%s", id);
        const char *argv[] = {slurm_config()->slurm_squeue, "-h", "-t", "all", name, "-o", "%i", NULL};
        if (slurm_exec(argv, out, sizeof(out), SLURM_CMD_TIMEOUT_S, &err) != 0)
            continue; /* Slurm away: ask again at the next tick */
        snprintf(jid, sizeof(jid), "%lld", atoll(out));
        const char *p[2] = {id, jid};
        PQclear(db_query(atoll(out) > 0 ? adopt_sql : resubmit_sql, atoll(out) > 0 ? 2 : 1, p, &dberr));
        log_notice("job=%s slurm: an interrupted submission %s%s", id,
                   atoll(out) > 0 ? "adopted slurm job " : "", atoll(out) > 0 ? jid : "is submitted again");
    }
    PQclear(res);
}

/* ---- follow ---- */

#define SLURM_TERMINAL                                                                                       \
    "('COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL', 'DEADLINE', "    \
    "'OUT_OF_MEMORY', 'LOST')"

static const char active_sql[] = "SELECT id, slurm_job_id, state FROM jobs WHERE slurm_job_id IS NOT NULL "
                                 "AND slurm_state IS NOT NULL AND slurm_state NOT IN " SLURM_TERMINAL
                                 " ORDER BY id LIMIT " PP_STR(SLURM_FOLLOW);

static const char seen_sql[] =
    "UPDATE jobs SET slurm_state = $3, slurm_reason = NULLIF($4, 'None') WHERE id = $1 AND slurm_job_id = $2";

/* A Slurm job ended while its ppbench job still waited for a result: a failure (042_attempts), so again (a
 * new Slurm job) while its failures stay below max_attempts, else failed with Slurm's word. A Slurm job
 * cancelled in Slurm is an operator's decision: failed. */
static const char ended_sql[] =
    "WITH o AS (SELECT id, ($3::text = 'CANCELLED' OR failures + 1 >= max_attempts) AS fail, "
    "  format('slurm job %s ended %s (reason: %s) before a result', slurm_job_id, $3::text, $4::text) AS why "
    "  FROM jobs WHERE id = $1 AND slurm_job_id = $2 AND state IN ('queued', 'running') FOR UPDATE) "
    "UPDATE jobs j SET failures = j.failures + 1, "
    "  state = CASE WHEN o.fail THEN 'failed' ELSE 'queued' END, "
    "  error = CASE WHEN o.fail THEN o.why ELSE j.error END, "
    "  finished_at = CASE WHEN o.fail THEN now() END, "
    "  worker_id = CASE WHEN o.fail THEN j.worker_id END, lease_expires = NULL, "
    "  claimed_at = CASE WHEN o.fail THEN j.claimed_at END, "
    "  progress = CASE WHEN o.fail THEN j.progress ELSE 0 END, "
    "  slurm_job_id = CASE WHEN o.fail THEN j.slurm_job_id END, "
    "  slurm_state = CASE WHEN o.fail THEN $3 ELSE 'UNSUBMITTED' END, "
    "  slurm_reason = CASE WHEN o.fail THEN $4 ELSE o.why END, slurm_next_try = now() "
    "FROM o WHERE j.id = o.id RETURNING j.state, o.why";

static bool terminal(const char *state)
{
    static const char *const t[] = {"COMPLETED",     "CANCELLED", "FAILED",    "TIMEOUT",
                                    "NODE_FAIL",     "PREEMPTED", "BOOT_FAIL", "DEADLINE",
                                    "OUT_OF_MEMORY", "LOST",      NULL};
    for (int i = 0; t[i]; i++)
        if (!strcmp(state, t[i]))
            return true;
    return false;
}

/* The state and reason of Slurm job jid in squeue's output ("id|STATE|reason" lines); NULL when absent. */
static const char *find_job(const char *out, const char *jid, char *reason, size_t rsize)
{
    static __thread char state[64];
    size_t n = strlen(jid);

    for (const char *l = out; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *bar, *bar2;
        if (strncmp(l, jid, n) || l[n] != '|' || !(bar2 = strchr((bar = l + n + 1), '|')))
            continue;
        snprintf(state, sizeof(state), "%.*s", (int)(bar2 - bar), bar);
        snprintf(reason, rsize, "%.*s", (int)strcspn(bar2 + 1, "\n"), bar2 + 1);
        return state;
    }
    return NULL;
}

static void scancel(const char *id, const char *jid)
{
    const char *argv[] = {slurm_config()->slurm_scancel, jid, NULL};
    char out[512];
    struct pp_error err;
    int rc = slurm_exec(argv, out, sizeof(out), SLURM_CMD_TIMEOUT_S, &err);

    if (rc == 0)
        log_notice("job=%s slurm: scancel %s", id, jid);
    else
        log_warn("job=%s slurm: scancel %s: %s", id, jid, rc < 0 ? err.msg : slurm_last_line(out));
}

static void follow(void)
{
    struct db_error dberr;
    struct pp_error err;
    PGresult *res = db_query(active_sql, 0, NULL, &dberr), *r2;
    char *ids = NULL, out[65536];
    size_t len = 0;
    int rc;
    bool invalid;

    if (!res || PQntuples(res) == 0)
        goto out;
    if (!(ids = malloc((size_t)PQntuples(res) * 24 + 1)))
        goto out;
    ids[0] = '\0';
    for (int i = 0; i < PQntuples(res); i++)
        len += (size_t)sprintf(ids + len, "%s%s", i ? "," : "", PQgetvalue(res, i, 1));
    const char *argv[] = {slurm_config()->slurm_squeue, "-h", "-t", "all", "-o", "%i|%T|%r", "-j", ids, NULL};
    rc = slurm_exec(argv, out, sizeof(out), SLURM_CMD_TIMEOUT_S, &err);
    /* squeue names an unknown job only when it asked for that one alone */
    invalid = rc > 0 && strstr(out, "Invalid job id");
    if (rc != 0 && !invalid) {
        log_warn("slurm: squeue: %s", rc < 0 ? err.msg : slurm_last_line(out));
        goto out;
    }
    for (int i = 0; i < PQntuples(res); i++) {
        const char *id = PQgetvalue(res, i, 0), *jid = PQgetvalue(res, i, 1), *state = PQgetvalue(res, i, 2);
        char reason[256] = "job unknown to slurm";
        const char *ss = invalid ? NULL : find_job(out, jid, reason, sizeof(reason));
        if (!ss)
            ss = "LOST";
        const char *p[4] = {id, jid, ss, reason};
        /* an ended Slurm job is recorded with its ppbench job's fate, in one statement: one that fails is
         * tried again at the next tick */
        if (terminal(ss) && (!strcmp(state, "queued") || !strcmp(state, "running"))) {
            if ((r2 = db_query(ended_sql, 4, p, &dberr)) && PQntuples(r2))
                log_notice("job=%s %s: %s", id, PQgetvalue(r2, 0, 0), PQgetvalue(r2, 0, 1));
            else if (!r2)
                log_warn("job=%s slurm: %s", id, dberr.e.msg);
            PQclear(r2);
            continue;
        }
        PQclear(db_query(seen_sql, 4, p, &dberr));
        /* a job that ended without its Slurm job (cancelled, failed, or run on a drained node by hand: a
         * Slurm job still pending there would start for nothing once the node is back) */
        if (!terminal(ss) && (!strcmp(state, "cancelled") || !strcmp(state, "failed") ||
                              (!strcmp(state, "succeeded") && !strcmp(ss, "PENDING"))))
            scancel(id, jid);
    }
out:
    free(ids);
    PQclear(res);
}

static void *run(void *arg)
{
    struct slurm *s = arg;

    while (!s->stop) {
        double next = clock_now() + (double)slurm_config()->slurm_poll_s;
        submit();
        follow();
        recover();
        slurm_fleet_tick();
        while (!s->stop && clock_now() < next) {
            struct timespec ts = {0, 100 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    db_thread_close();
    return NULL;
}

int slurm_start(const struct config *c, const char *url, struct slurm **out, struct pp_error *err)
{
    struct slurm *s;

    *out = NULL;
    if (!c->slurm_partition[0])
        return 0;
    if (slurm_configure(c, url, err))
        return -1;
    if (!(s = calloc(1, sizeof(*s))))
        return pp_error_set(err, "out of memory");
    slurm_set_enabled(true);
    if (pthread_create(&s->thread, NULL, run, s)) {
        free(s);
        slurm_set_enabled(false);
        return pp_error_set(err, "cannot start the slurm thread");
    }
    log_info("slurm: executor for partition %s (platforms: %s), workers reach %s", c->slurm_partition,
             c->slurm_platforms, slurm_url());
    *out = s;
    return 0;
}

void slurm_stop(struct slurm *s)
{
    if (!s)
        return;
    s->stop = true;
    pthread_join(s->thread, NULL);
    free(s);
}
