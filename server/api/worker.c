/*
 * api/worker: the worker protocol (docs/API.md): register, claim by long poll, heartbeat, progress, result,
 * deregister. HTTP pool threads. Correctness rests on the database: a claim takes a job with FOR UPDATE SKIP
 * LOCKED and bumps its epoch (the fencing token); every later call of the holder must present that epoch
 * while the job is running, so a worker whose lease expired cannot touch a job that went back to the queue.
 *
 * One measurement at a time (issue 22): two benchmarks on one host disturb each other (a CPU job's load made
 * a GPU's samples noisy, CV about 30 %). One setting per platform kind, exclusive_cpu, exclusive_gpu,
 * exclusive_accel (host | device | none; defaults host, device, device; reloadable), says what a job of that
 * kind may run beside: `host`, alone on its host (it starts when no job of the host runs, and no job of the
 * host starts beside it); `device`, alone on its device and never beside a job of a host-exclusive kind (GPU
 * jobs run side by side on distinct GPUs, not beside a CPU job of their host); `none`, one job per worker
 * only. With mode(k) the setting of kind k, a job on p may not run beside one on q of the same host when
 * mode(p.kind) = 'host' OR mode(q.kind) = 'host' OR (p = q AND 'device' IN (mode(p.kind), mode(q.kind)))
 * (APART). So claim_sql gives worker w no job (1) while a running job of w's host may not run beside w's
 * platform (busy), nor (2) one that comes after, in the queue's order (priority DESC, id), the first queued
 * job that another live worker of the host (heartbeat within lease_s) would take and that may not run beside
 * w's platform (ahead): a CPU job waiting for its host is not overtaken by the GPU jobs behind it, so
 * priorities hold and nothing starves. Jobs the Slurm executor owns wait in Slurm's queue and hold nothing
 * back.
 *
 * A claim's statement cannot see a claim that commits after its snapshot, so with a rule to keep the claim is
 * a transaction (db_query_after, server/db.c) whose first statement takes the host's advisory lock
 * (host_lock_sql) and whose second, claim_sql, takes its READ COMMITTED snapshot only then: claims of one
 * host are serialised across every ppbenchd on the database, and each sees the last one's job running. With
 * none for every kind there is no lock and the claim is one statement. A held-back claim waits like any long
 * poll (a job's end fires the job event trigger, the notifier wakes every waiting claim; the one-second tick
 * is the backstop); a claim?job=ID (a Slurm job's `serve --once --job ID`) whose job waits for its host is
 * answered at its deadline with 200 {"job": null, "waiting": "node7/gpu0 runs job 41"} (or "job 40 comes
 * first"), and asks again. tests/service/exclusive.sh holds the rule against the real server, with two
 * ppbenchd claiming for one host at once.
 */
#include "server/api/worker.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/suite.h"
#include "lib/clock.h"
#include "lib/log.h"
#include "server/api/api.h"
#include "server/api/register_check.h"
#include "server/api/report_check.h"
#include "server/counters.h"
#include "server/http/auth.h"
#include "server/http/fields.h"
#include "server/http/parse.h"

static const char expire_sql[] =
    "UPDATE workers w SET state = 'gone', gone_at = now() FROM hosts h "
    "WHERE w.host_id = h.id AND w.platform_id = $1 || '/' || $2 AND w.state <> 'gone' "
    "AND w.last_heartbeat < now() - make_interval(secs => $3)";

static const char register_sql[] =
    "WITH h AS (INSERT INTO hosts (name, info) VALUES ($1, $2::jsonb) "
    "  ON CONFLICT (name) DO UPDATE SET info = EXCLUDED.info, last_seen = now() RETURNING id), "
    "pl AS (SELECT $3::jsonb AS d), "
    "p AS (INSERT INTO platforms (id, host_id, local_id, kind, name, vendor, uuid, pci_bus_id, memory_bytes, "
    "  compute_units, peak_bandwidth, peak_source, models, runners) "
    "  SELECT $1 || '/' || (d->>'id'), h.id, d->>'id', d->>'kind', d->>'name', coalesce(d->>'vendor', ''), "
    "  coalesce(d->>'uuid', ''), coalesce(d->>'pci_bus_id', ''), coalesce((d->>'memory_bytes')::bigint, 0), "
    "  coalesce((d->>'compute_units')::int, 0), (d->>'peak_bandwidth_bytes_per_s')::float8, "
    "  coalesce(d->>'peak_source', ''), "
    /* the devices' models, and the names of the runners the worker defines for this platform (issue 27) */
    "  ARRAY(SELECT DISTINCT m FROM (SELECT x->>'model' FROM jsonb_array_elements(coalesce(d->'devices', "
    "'[]')) x "
    "    UNION SELECT x->>'name' FROM jsonb_array_elements(coalesce(d->'runners', '[]')) x) AS u(m) ORDER BY "
    "1), "
    "  coalesce(d->'runners', '[]') "
    "  FROM h, pl "
    "  ON CONFLICT (id) DO UPDATE SET kind = EXCLUDED.kind, name = EXCLUDED.name, vendor = EXCLUDED.vendor, "
    "  uuid = EXCLUDED.uuid, pci_bus_id = EXCLUDED.pci_bus_id, memory_bytes = EXCLUDED.memory_bytes, "
    "  compute_units = EXCLUDED.compute_units, "
    "  peak_bandwidth = CASE WHEN platforms.peak_set_at IS NULL THEN EXCLUDED.peak_bandwidth "
    "    ELSE platforms.peak_bandwidth END, " /* an admin's peak stays */
    "  peak_source = CASE WHEN platforms.peak_set_at IS NULL THEN EXCLUDED.peak_source "
    "    ELSE platforms.peak_source END, models = EXCLUDED.models, runners = EXCLUDED.runners, "
    "  last_seen = now() RETURNING id) "
    "INSERT INTO workers (host_id, platform_id, pid, version, secret_hash) "
    "SELECT h.id, p.id, $4, $5, encode(sha256(convert_to($6, 'UTF8')), 'hex') FROM h, p "
    "RETURNING id, platform_id";

static const char holder_sql[] =
    "SELECT id, pid FROM workers WHERE platform_id = $1 || '/' || $2 AND state <> 'gone'";

/* The claim's statements are built from two predicates written once; clang-format cannot lay out SQL
 * made of macros, so this block keeps its own layout. */
/* clang-format off */

/* A job j fits a worker x (of host name `host`): the worker's model, and the job's platform or its selector. */
#define JOB_FITS(j, x, host)                                                                                    \
    j ".model = ANY (" x ".models) AND (" j ".platform_id = " x ".platform_id OR (" j ".platform_id IS NULL "  \
    "AND (" j ".selector->>'kind' IS NULL OR " j ".selector->>'kind' = " x ".kind) "                          \
    "AND (" j ".selector->>'host' IS NULL OR " j ".selector->>'host' = " host ")))"

/* One measurement at a time (docs/ARCHITECTURE.md): a job on platform p may not run beside one on platform q
 * of the same host when either's kind is host-exclusive, or when p is q and either's kind is
 * device-exclusive. A kind's mode is $4->>kind: the exclusive_<kind> settings (api_settings()->exclusive). */
#define MODE(kind) "coalesce($4::jsonb ->> " kind ", 'none')"
#define APART(pmode, p, qmode, q) \
    "(" pmode " = 'host' OR " qmode " = 'host' OR (" p " = " q " AND 'device' IN (" pmode ", " qmode ")))"

/* Taken in the claim's transaction before claim_sql, so that claim_sql's snapshot, taken after it, sees every
 * claim of this host that committed before: the rule holds with several ppbenchd on one database and several
 * workers per host. An advisory lock (the two-int key space; server/migrate.c locks the one-bigint space),
 * not the hosts row, which heartbeats and registrations update. */
static const char host_lock_sql[] =
    "SELECT pg_advisory_xact_lock(727072, (host_id % 2147483647)::int) FROM workers WHERE id = $1";

static const char claim_sql[] =
    "WITH w AS (SELECT w.id, w.host_id, w.platform_id, p.kind, p.models, h.name AS host, "
    "  " MODE("p.kind") " AS mode "
    "  FROM workers w JOIN platforms p ON p.id = w.platform_id JOIN hosts h ON h.id = w.host_id "
    "  WHERE w.id = $1 AND w.state <> 'gone'), "
    /* the first running job of this host that this worker's job may not run beside: while one runs, no job
     * starts here */
    "busy AS (SELECT r.id, r.ran_on FROM w, jobs r JOIN platforms q ON q.id = r.ran_on "
    "  WHERE r.state = 'running' AND q.host_id = w.host_id "
    "  AND " APART("w.mode", "w.platform_id", MODE("q.kind"), "q.id") " "
    "  ORDER BY r.claimed_at, r.id LIMIT 1), "
    /* the first queued job that another live worker of this host would run, and this worker's job may not
     * run beside: nothing behind it in the queue's order starts here before it (a CPU job that waits for its
     * host is not overtaken by the GPU jobs after it). Jobs the Slurm executor owns wait in Slurm's queue. */
    "near AS (SELECT x.platform_id, q.kind, q.models FROM w, workers x JOIN platforms q ON q.id = x.platform_id "
    "  WHERE x.host_id = w.host_id AND x.id <> w.id AND x.state <> 'gone' "
    "  AND x.last_heartbeat > now() - make_interval(secs => $2) "
    "  AND " APART("w.mode", "w.platform_id", MODE("q.kind"), "q.id") "), "
    "ahead AS (SELECT k.id, k.priority FROM jobs k, w "
    "  WHERE k.state = 'queued' AND k.slurm_state IS NULL AND EXISTS (SELECT 1 FROM near) "
    "  AND EXISTS (SELECT 1 FROM near x WHERE " JOB_FITS("k", "x", "w.host") ") "
    "  ORDER BY k.priority DESC, k.id LIMIT 1), "
    "j AS (SELECT jobs.id FROM jobs, w WHERE jobs.state = 'queued' AND " JOB_FITS("jobs", "w", "w.host") " "
    /* a job the Slurm executor owns goes only to the worker its Slurm job started (claim?job=ID) */
    "  AND (CASE WHEN $3::bigint IS NULL THEN jobs.slurm_state IS NULL ELSE jobs.id = $3 END) "
    "  AND NOT EXISTS (SELECT 1 FROM busy) "
    "  AND NOT EXISTS (SELECT 1 FROM ahead a WHERE (a.priority, -a.id) > (jobs.priority, -jobs.id)) "
    "  ORDER BY jobs.priority DESC, jobs.id LIMIT 1 FOR UPDATE OF jobs SKIP LOCKED), "
    "c AS (UPDATE jobs SET state = 'running', attempts = attempts + 1, epoch = epoch + 1, worker_id = w.id, "
    "  ran_on = w.platform_id, claimed_at = now(), started_at = coalesce(started_at, now()), progress = 0, "
    "  lease_expires = now() + make_interval(secs => $2) FROM j, w WHERE jobs.id = j.id RETURNING jobs.*), "
    "b AS (UPDATE workers SET state = 'busy', last_heartbeat = now() WHERE id = $1 "
    "  AND EXISTS (SELECT 1 FROM c)), "
    /* the job a claim?job=ID names, when it is queued for this worker: why it waits, if it does */
    "named AS (SELECT jobs.id, jobs.priority FROM jobs, w "
    "  WHERE jobs.id = $3 AND jobs.state = 'queued' AND " JOB_FITS("jobs", "w", "w.host") ") "
    "SELECT (SELECT count(*) FROM w), "
    "  (SELECT jsonb_build_object('id', id, 'epoch', epoch, 'suite', suite, 'model', model, "
    "    'kernels', to_jsonb(kernels), 'params', params, 'timeout_s', timeout_s)::text FROM c), "
    "  (SELECT coalesce((SELECT format('%s runs job %s', ran_on, id) FROM busy), "
    "    (SELECT format('job %s comes first', a.id) FROM ahead a "
    "     WHERE (a.priority, -a.id) > (named.priority, -named.id))) "
    "   FROM named WHERE NOT EXISTS (SELECT 1 FROM c))";

/* clang-format on */

static const char worker_beat_sql[] =
    "WITH w AS (UPDATE workers SET last_heartbeat = now(), state = CASE WHEN $2 THEN 'busy' ELSE 'idle' END "
    "  WHERE id = $1 AND state <> 'gone' RETURNING id, host_id), "
    "h AS (UPDATE hosts SET last_seen = now() WHERE id = (SELECT host_id FROM w)) " /* the host is seen too */
    "SELECT id FROM w";

static const char job_beat_sql[] =
    "UPDATE jobs SET lease_expires = now() + make_interval(secs => $4) "
    "WHERE id = $1 AND epoch = $2 AND worker_id = $3 AND state = 'running' RETURNING id";

static const char progress_sql[] =
    "UPDATE jobs SET progress = $3, lease_expires = now() + make_interval(secs => $4) "
    "WHERE id = $1 AND epoch = $2 AND worker_id = $5 AND state = 'running' RETURNING id";

static const char job_state_sql[] = "SELECT state, epoch FROM jobs WHERE id = $1";

/* One result row per kernel of the report, its variant the name of the code that ran ($9, suite_variant_name;
 * the whole variant document stays in the provenance). The size is the problem's "size", in the suite's unit
 * (the suite table's `size`: stream's elements, the lattice suites' sites of the whole lattice); the report's
 * problem and variant documents are kept whole in the provenance (result_doc serves the problem as
 * "problem"). Each kernel's noise was derived by report_derive: one past its limit flags the row noisy, and
 * a verified report with a noisy row sends the job back to the queue while it has repeats left ($7, the
 * setting noise_repeats), spending none of its max_attempts (042_attempts); every run's rows are kept, each
 * row stores its run (attempt: the job's attempts, its claims), the rows of the job's earlier runs are
 * flagged superseded (only the current run counts), and the job's note says what happened. */
static const char result_sql[] =
    "WITH j AS (SELECT id, ran_on, model, suite, worker_id, repeats, attempts FROM jobs "
    "  WHERE id = $1 AND epoch = $2 AND worker_id = $6 AND state = 'running' FOR UPDATE), "
    "rep AS (SELECT $4::jsonb AS d), "
    "ins AS (INSERT INTO results (job_id, attempt, platform_id, suite, kernel, model, variant, precision, "
    "size, "
    "bytes, bytes_compulsory, flags, "
    "  flops, times_s, min_s, max_s, mean_s, median_s, stddev_s, stats_count, bandwidth, gflops, verified, "
    "  error, noise, noise_rule, noise_limit, "
    "provenance, origin) "
    "  SELECT j.id, j.attempts, j.ran_on, j.suite, e->>'kernel', j.model, $9::text, "
    "  d->'problem'->>'precision', "
    "  (d->'problem'->>'size')::bigint, "
    "  (e->>'bytes')::float8, (e->>'bytes_compulsory')::float8, "
    "  CASE WHEN (e->'noise'->>'value')::float8 > (e->'noise'->>'limit')::float8 "
    "    THEN ARRAY['noisy'] ELSE '{}'::text[] END "
    /* the working set fits the platform's last-level cache: not a DRAM figure (unknown cache: no flag) */
    "  || CASE WHEN NOT $8::boolean "
    "    AND (d->'problem'->>'working_set_bytes')::float8 <= (d->'platform'->>'llc_bytes')::float8 "
    "    THEN ARRAY['cache_resident'] ELSE '{}'::text[] END, "
    "  (e->>'flops')::float8, CASE WHEN e ? 'times_s' THEN "
    "    ARRAY(SELECT x::float8 FROM jsonb_array_elements_text(e->'times_s') x) END, "
    "  (e->'stats_s'->>'min')::float8, (e->'stats_s'->>'max')::float8, (e->'stats_s'->>'mean')::float8, "
    "  (e->'stats_s'->>'median')::float8, (e->'stats_s'->>'stddev')::float8, (e->'stats_s'->>'count')::int, "
    "  (e->>'bandwidth_bytes_per_s')::float8, (e->>'gflops')::float8, (e->>'verified')::boolean, "
    "e->>'error', (e->'noise'->>'value')::float8, e->'noise'->>'rule', (e->'noise'->>'limit')::float8, "
    "  coalesce(d->'provenance', '{}') || jsonb_build_object('platform', d->'platform', 'device', "
    "d->'device', "
    "    'variant', d->'variant', 'problem', d->'problem', 'warnings', coalesce(d->'warnings', '[]')), "
    /* a model that is no built-in one ($10) is a runner's: its program measured and verified (issue 27) */
    "  CASE WHEN j.model = ANY ($10::text[]) THEN 'worker' ELSE 'runner' END "
    "  FROM j, rep, jsonb_array_elements(coalesce(d->'kernels', '[]')) e "
    "  RETURNING verified, kernel, error, flags, noise, noise_rule, noise_limit), "
    "old AS (UPDATE results SET flags = flags || 'superseded'::text FROM j WHERE results.job_id = j.id "
    "  AND results.attempt < j.attempts AND NOT 'superseded' = ANY (results.flags) "
    "  AND EXISTS (SELECT 1 FROM ins)), "
    "o AS (SELECT CASE WHEN $3 <> 'succeeded' OR NOT EXISTS (SELECT 1 FROM ins) "
    "      OR EXISTS (SELECT 1 FROM ins WHERE NOT verified) THEN 'failed' "
    "    WHEN EXISTS (SELECT 1 FROM ins WHERE 'noisy' = ANY (flags)) AND j.repeats < $7::int THEN 'queued' "
    "    ELSE 'succeeded' END AS state, "
    "  (SELECT string_agg(format('%s %s %s %% > %s %%', kernel, noise_rule, "
    /* one decimal, or three where one would print the limit itself ("1.0 % > 1.0 %") */
    "    round((100 * noise)::numeric, CASE WHEN round((100 * noise)::numeric, 1) > "
    "      round((100 * noise_limit)::numeric, 1) THEN 1 ELSE 3 END), "
    "    round((100 * noise_limit)::numeric, 1)), ', ' ORDER BY kernel) FROM ins WHERE 'noisy' = ANY "
    "(flags)) "
    "    AS noisy FROM j), "
    "f AS (UPDATE jobs SET state = o.state, "
    "  error = CASE WHEN $3 = 'failed' THEN coalesce($5, 'the worker reported a failure') "
    "      WHEN NOT EXISTS (SELECT 1 FROM ins) THEN 'the report holds no results' "
    "      WHEN EXISTS (SELECT 1 FROM ins WHERE NOT verified) THEN 'verification failed: ' || "
    "        (SELECT string_agg(coalesce(error, kernel), '; ') FROM ins WHERE NOT verified) ELSE NULL END, "
    "  repeats = jobs.repeats + (o.state = 'queued')::int, "
    "  note = CASE WHEN o.state = 'queued' THEN format('unstable, repeat %s of %s: %s', jobs.repeats + 1, "
    "      $7::int, o.noisy) "
    "    WHEN o.state = 'succeeded' AND o.noisy IS NOT NULL THEN format('flagged noisy after %s repeat%s: "
    "%s', jobs.repeats, CASE WHEN jobs.repeats = 1 THEN '' ELSE 's' END, o.noisy) "
    /* "stable on repeat 2 of 2 (run 3); run 2 was unstable: ..." (issue 25: "stable at repeat 2 of 2; the
     * run before: unstable, repeat 2 of 2: ..." named two runs by one number) */
    "    WHEN o.state = 'succeeded' AND jobs.repeats > 0 "
    "      THEN format('stable on repeat %s of %s (run %s); run %s was unstable: %s', "
    "      jobs.repeats, $7::int, jobs.attempts, jobs.attempts - 1, "
    "      regexp_replace(jobs.note, '^unstable, repeat [0-9]+ of [0-9]+: ', '')) "
    "    ELSE jobs.note END, "
    "  progress = CASE WHEN o.state = 'queued' THEN 0 ELSE 1 END, "
    "  finished_at = CASE WHEN o.state = 'queued' THEN NULL ELSE now() END, lease_expires = NULL, "
    "  worker_id = CASE WHEN o.state = 'queued' THEN NULL ELSE jobs.worker_id END, "
    "  claimed_at = CASE WHEN o.state = 'queued' THEN NULL ELSE jobs.claimed_at END "
    "  FROM j, o WHERE jobs.id = j.id RETURNING jobs.state), "
    "idle AS (UPDATE workers SET state = 'idle', last_heartbeat = now() WHERE id = (SELECT worker_id FROM "
    "j)) "
    "SELECT state, extract(epoch FROM now() - (SELECT claimed_at FROM jobs WHERE id = $1)) FROM f";

static const char held_job_sql[] = "SELECT suite, to_jsonb(kernels)::text, params::text, model FROM jobs "
                                   "WHERE id = $1 AND epoch = $2 AND worker_id = $3 AND state = 'running'";

static const char fail_job_sql[] =
    "WITH f AS (UPDATE jobs SET state = 'failed', error = $4, progress = 1, finished_at = now(), "
    "  lease_expires = NULL WHERE id = $1 AND epoch = $2 AND worker_id = $3 AND state = 'running' RETURNING "
    "id) "
    "UPDATE workers SET state = 'idle', last_heartbeat = now() WHERE id = $3 AND EXISTS (SELECT 1 FROM f)";

/* A job this worker holds ($3: the epoch too, when the request names it). */
static const char held_sql[] = "SELECT 1 FROM jobs WHERE id = $1 AND worker_id = $2 AND state = 'running' "
                               "AND ($3::bigint IS NULL OR epoch = $3::bigint)";

/* The goodbye (schema/functions/workers.sql): a running job goes back to the queue with a note saying why;
 * the worker handed it back, so its run is no failure and spends none of its max_attempts. */
static const char deregister_sql[] =
    "SELECT r.released::int, r.requeued, r.failed, w.platform_id FROM workers w, "
    "LATERAL worker_release(w.id, format('worker %s (%s) stopped while running it', w.id, w.platform_id), "
    "false) r "
    "WHERE w.id = $1 AND w.state <> 'gone'";

/* 403 when the worker in the path is not the proven caller (server/http/http.c checked X-Worker-Id and its
 * secret before the body was read). */
static int own_worker(struct request *r)
{
    if (parse_id(r->args[0]) != r->worker_id)
        return req_fail(r, ERR_WRONG_WORKER, NULL, "this caller is worker %lld, not %.24s", r->worker_id,
                        r->args[0]);
    return 0;
}

/* 409 when a job is no longer this worker's: cancelled, or re-queued after its lease expired. */
static int not_ours(struct request *r, const char *job)
{
    const char *params[1] = {job};
    struct db_error dberr;
    PGresult *res = db_query(job_state_sql, 1, params, &dberr);
    int st;

    if (!res)
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0)
        st = req_fail(r, ERR_NOT_FOUND, NULL, "no job %s", job);
    else if (!strcmp(PQgetvalue(res, 0, 0), "cancelled"))
        st = req_fail(r, ERR_JOB_CANCELLED, NULL, "job %s was cancelled", job);
    else
        st = req_fail(r, ERR_STALE_EPOCH, "epoch",
                      "job %s is no longer held by this worker with this epoch (now %s, epoch %s)", job,
                      PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1));
    PQclear(res);
    return st;
}

int workers_register(struct request *r)
{
    struct register_doc d;
    enum http_err code;
    char field[64], pid_s[24], lease[24], secret[48], *platform_s = NULL, *info_s = NULL;
    struct pp_error perr;
    struct db_error dberr;
    PGresult *res = NULL;
    int st;

    if (register_check(r->json, &d, &code, field, sizeof(field), &perr))
        return req_fail(r, code, field, "%s", perr.msg);
    const char *host = d.host, *version = d.version, *local_id = d.local_id;
    snprintf(pid_s, sizeof(pid_s), "%lld", d.pid);
    snprintf(lease, sizeof(lease), "%ld", api_settings()->lease_s);
    const char *ep[3] = {host, local_id, lease};
    if (!(res = db_query(expire_sql, 3, ep, &dberr)))
        return api_db_fail(r, &dberr);
    PQclear(res);
    if (auth_random("pws_", secret, sizeof(secret), &perr)) {
        log_err("request=%s register: %s", r->id, perr.msg);
        return req_fail(r, ERR_INTERNAL, NULL, "internal error (request %s)", r->id);
    }
    platform_s = json_dumps(d.platform, JSON_COMPACT);
    info_s = d.host_info ? json_dumps(d.host_info, JSON_COMPACT) : strdup("{}");
    const char *params[6] = {host, info_s, platform_s, pid_s, version, secret};
    if (!(res = db_query(register_sql, 6, params, &dberr))) {
        if (!strcmp(dberr.sqlstate, "23505")) {
            const char *hp[2] = {host, local_id};
            PGresult *h = db_query(holder_sql, 2, hp, &dberr);
            st = req_fail(r, ERR_PLATFORM_TAKEN, "platform", "platform %s/%s is already served by worker %s",
                          host, local_id, h && PQntuples(h) ? PQgetvalue(h, 0, 0) : "?");
            PQclear(h);
        } else if (!strcmp(dberr.sqlstate, "23514") || !strncmp(dberr.sqlstate, "22", 2)) {
            st = req_fail(r, ERR_INVALID_VALUE, "platform", "the platform description is invalid");
            log_info("request=%s register: %s", r->id, dberr.e.msg);
        } else {
            st = api_db_fail(r, &dberr);
        }
        goto out;
    }
    r->reply = json_pack("{s:I, s:s, s:s, s:i, s:i}", "worker_id",
                         (json_int_t)strtoll(PQgetvalue(res, 0, 0), NULL, 10), "worker_secret", secret,
                         "platform_id", PQgetvalue(res, 0, 1), "heartbeat_s",
                         (int)api_settings()->heartbeat_s, "lease_s", (int)api_settings()->lease_s);
    log_info("worker=%s platform=%s pid=%s registered", PQgetvalue(res, 0, 0), PQgetvalue(res, 0, 1), pid_s);
    st = MHD_HTTP_CREATED;
out:
    PQclear(res);
    free(platform_s);
    free(info_s);
    return st;
}

struct claim_wait {
    double deadline;
};

int workers_claim(struct request *r)
{
    struct claim_wait *cw = r->state;
    const struct api_settings *set = api_settings();
    char lease[24];
    const char *params[4] = {r->args[0], lease, req_query(r, "job"), set->exclusive};
    struct db_error dberr;
    PGresult *res;
    int st;

    if (!cw) {
        const char *wait_s = req_query(r, "wait");
        long long wait = 0;
        const char *job = req_query(r, "job");
        if ((st = req_check_query(r, "wait,job")))
            return st;
        if (job && !parse_id(job))
            return req_fail(r, ERR_INVALID_PARAMETER, "job", "job must be a job id");
        if ((st = own_worker(r)))
            return st;
        if (wait_s && (strspn(wait_s, "0123456789") != strlen(wait_s) || !*wait_s || strlen(wait_s) > 9))
            return req_fail(r, ERR_INVALID_PARAMETER, "wait", "wait must be a whole number of seconds");
        /* A longer wait than this server allows is cut to max_wait_s: refusing it stopped every worker whose
         * long poll is longer than a max_wait_s an operator lowered (found by bench/chaos.sh). */
        if (wait_s && (wait = strtoll(wait_s, NULL, 10)) > set->max_wait_s)
            wait = set->max_wait_s;
        if (!(cw = calloc(1, sizeof(*cw))))
            return req_fail(r, ERR_INTERNAL, NULL, "out of memory");
        cw->deadline = clock_now() + (double)wait;
        r->state = cw;
        r->state_free = free;
    }
    snprintf(lease, sizeof(lease), "%ld", set->lease_s);
    /* With a rule to keep, the host is locked first, in the claim's transaction (host_lock_sql). */
    res = set->exclusive_on ? db_query_after(host_lock_sql, 1, params, claim_sql, 4, params, &dberr)
                            : db_query(claim_sql, 4, params, &dberr);
    if (!res)
        return api_db_fail(r, &dberr);
    if (!strcmp(PQgetvalue(res, 0, 0), "0"))
        st = req_fail(r, ERR_WORKER_GONE, NULL, "worker %s is not registered (register again)", r->args[0]);
    else if (!PQgetisnull(res, 0, 1)) {
        char *text;
        st = asprintf(&text, "{\"job\":%s}", PQgetvalue(res, 0, 1)) < 0
                 ? req_fail(r, ERR_INTERNAL, NULL, "out of memory")
                 : req_reply_text(r, 200, text, NULL);
        log_info("worker=%s claimed %s", r->args[0], PQgetvalue(res, 0, 1));
    } else if (params[2] && PQgetisnull(res, 0, 2))
        st = MHD_HTTP_NO_CONTENT; /* the job it names is not queued for it: nothing to wait for */
    else if (clock_now() < cw->deadline && http_suspend(r))
        st = HTTP_SUSPENDED;
    else if (params[2]) {
        /* the job it names waits for its host: the Slurm job's worker asks again (worker/serve.c) */
        r->reply = json_pack("{s:n, s:s}", "job", "waiting", PQgetvalue(res, 0, 2));
        st = 200;
    } else
        st = MHD_HTTP_NO_CONTENT;
    PQclear(res);
    return st;
}

int workers_heartbeat(struct request *r)
{
    char job[24], epoch[24], lease[24];
    struct db_error dberr;
    PGresult *res;
    int st, alive, cancel = 0;

    if ((st = own_worker(r)))
        return st;
    if ((st = fields_id(r, "job_id", false, job, sizeof(job))) ||
        (st = fields_id(r, "epoch", job[0] != '\0', epoch, sizeof(epoch))))
        return st;
    const char *wp[2] = {r->args[0], job[0] ? "true" : "false"};
    if (!(res = db_query(worker_beat_sql, 2, wp, &dberr)))
        return api_db_fail(r, &dberr);
    alive = PQntuples(res) == 1;
    PQclear(res);
    if (!alive)
        return req_fail(r, ERR_WORKER_GONE, NULL, "worker %s is not registered (register again)", r->args[0]);
    if (job[0]) {
        snprintf(lease, sizeof(lease), "%ld", api_settings()->lease_s);
        const char *jp[4] = {job, epoch, r->args[0], lease};
        if (!(res = db_query(job_beat_sql, 4, jp, &dberr)))
            return api_db_fail(r, &dberr);
        int held = PQntuples(res) == 1;
        PQclear(res);
        if (!held) {
            st = not_ours(r, job);
            if (strcmp(r->err.code, "job_cancelled"))
                return st;
            cancel = 1;
        }
    }
    r->reply = json_pack("{s:b}", "cancel", cancel);
    return 200;
}

int jobs_progress(struct request *r)
{
    char epoch[24], lease[24], prog[32], worker[24];
    json_t *p = json_object_get(r->json, "progress");
    struct db_error dberr;
    PGresult *res;
    int st, held;

    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job \"%s\"", r->args[0]);
    if ((st = fields_id(r, "epoch", true, epoch, sizeof(epoch))))
        return st;
    if (!json_is_number(p) || json_number_value(p) < 0 || json_number_value(p) > 1)
        return req_fail(r, ERR_INVALID_VALUE, "progress", "progress must be a number from 0 to 1");
    snprintf(prog, sizeof(prog), "%.4f", json_number_value(p));
    snprintf(lease, sizeof(lease), "%ld", api_settings()->lease_s);
    snprintf(worker, sizeof(worker), "%lld", r->worker_id);
    const char *params[5] = {r->args[0], epoch, prog, lease, worker};
    if (!(res = db_query(progress_sql, 5, params, &dberr)))
        return api_db_fail(r, &dberr);
    held = PQntuples(res) == 1;
    PQclear(res);
    if (!held) {
        st = not_ours(r, r->args[0]);
        if (strcmp(r->err.code, "job_cancelled"))
            return st;
    }
    r->reply = json_pack("{s:b}", "cancel", !held);
    return 200;
}

/* The report held against the job this worker holds (report_check.c). A report that does not fit
 * fails the job with the reason and answers 422 naming the field; 0 when it fits (or the job is not this
 * worker's: the result's own query answers that), its statistics and noise then derived from its samples
 * (report_derive). */
static int check_report(struct request *r, const char *job, const char *epoch, const char *worker,
                        json_t *report)
{
    const char *params[4] = {job, epoch, worker, NULL};
    json_t *kernels = NULL, *jparams = NULL;
    char field[160], reason[700];
    struct pp_error err;
    struct db_error dberr;
    PGresult *res;
    int st = 0;

    if (!(res = db_query(held_job_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 1) {
        kernels = json_loads(PQgetvalue(res, 0, 1), 0, NULL);
        jparams = json_loads(PQgetvalue(res, 0, 2), 0, NULL);
        /* a model that is no built-in one is a runner's (jobs_submit let no other in) */
        if (report_check(PQgetvalue(res, 0, 0), kernels, jparams, !suite_model_known(PQgetvalue(res, 0, 3)),
                         report, field, sizeof(field), &err)) {
            snprintf(reason, sizeof(reason), "invalid report: %s", err.msg);
            st = req_fail(r, ERR_INVALID_REPORT, field, "%s", err.msg);
        } else {
            report_derive(report, PQgetvalue(res, 0, 0), jparams, api_settings()->noise_best_percent / 100.0,
                          api_settings()->noise_mean_percent / 100.0);
        }
    }
    PQclear(res);
    json_decref(kernels);
    json_decref(jparams);
    if (!st)
        return 0;
    log_warn("request=%s job=%s worker=%s report refused: %s", r->id, job, worker, reason);
    params[3] = reason;
    if (!(res = db_query(fail_job_sql, 4, params, &dberr)))
        log_warn("request=%s job=%s cannot fail the job: %s", r->id, job, dberr.e.msg);
    PQclear(res);
    return st;
}

int jobs_result(struct request *r)
{
    static const char *const fields[] = {"epoch", "outcome", "error", "report", NULL};
    char epoch[24], worker[24], repeats[24], *report_s = NULL;
    const char *outcome, *error = NULL;
    json_t *report = json_object_get(r->json, "report");
    struct db_error dberr;
    PGresult *res = NULL;
    int st;

    if ((st = fields_only(r, r->json, "", fields)))
        return st;
    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job \"%s\"", r->args[0]);
    if ((st = fields_id(r, "epoch", true, epoch, sizeof(epoch))) ||
        (st = fields_string(r, "outcome", 0, &outcome)))
        return st;
    if (strcmp(outcome, "succeeded") && strcmp(outcome, "failed"))
        return req_fail(r, ERR_INVALID_VALUE, "outcome", "outcome must be succeeded or failed");
    if (json_object_get(r->json, "error") && !json_is_null(json_object_get(r->json, "error")) &&
        (st = fields_string(r, "error", 0, &error)))
        return st;
    if (report && !json_is_null(report) && !json_is_object(report))
        return req_fail(r, ERR_WRONG_TYPE, "report", "report must be the worker's json document");
    snprintf(worker, sizeof(worker), "%lld", r->worker_id);
    if (json_is_object(report) && json_object_size(report) > 0 &&
        (st = check_report(r, r->args[0], epoch, worker, report)))
        return st;
    report_s = json_is_object(report) ? json_dumps(report, JSON_COMPACT) : strdup("{}");
    snprintf(repeats, sizeof(repeats), "%ld", api_settings()->noise_repeats);
    /* a compute-bound suite's working set is meant to fit the cache: no cache_resident flag (kernels/suite.h)
     */
    const struct suite *suite = suite_find(json_string_value(json_object_get(report, "suite")) ?: "");
    char models[128] = "{";
    for (size_t i = 0; suite_models[i]; i++)
        snprintf(models + strlen(models), sizeof(models) - strlen(models), "%s\"%s\"", i ? "," : "",
                 suite_models[i]);
    strncat(models, "}", sizeof(models) - strlen(models) - 1);
    char variant[SUITE_VARIANT_MAX] = "";
    struct suite_error verr;
    if (suite &&
        suite_variant_name(suite, json_object_get(report, "variant"), variant, sizeof(variant), &verr))
        variant[0] = '\0'; /* check_report refused such a report of a held job; another's stores nothing */
    const char *params[10] = {
        r->args[0], epoch,  outcome, report_s,
        error,      worker, repeats, suite && !strcmp(suite->bound, "compute") ? "true" : "false",
        variant,    models};
    if (!(res = db_query(result_sql, 10, params, &dberr))) {
        if (!strncmp(dberr.sqlstate, "22", 2) || !strncmp(dberr.sqlstate, "23", 2)) {
            log_info("request=%s job=%s result refused: %s", r->id, r->args[0], dberr.e.msg);
            st = req_fail(r, ERR_INVALID_REPORT, "report", "the report does not hold valid results");
        } else {
            st = api_db_fail(r, &dberr);
        }
        goto out;
    }
    if (PQntuples(res) == 0) {
        st = not_ours(r, r->args[0]);
        goto out;
    }
    log_info("job=%s %s", r->args[0], PQgetvalue(res, 0, 0));
    if (strcmp(PQgetvalue(res, 0, 0), "queued")) /* a repeat (noise) is not an end */
        counters_job_finished(PQgetvalue(res, 0, 0), atof(PQgetvalue(res, 0, 1)));
    r->reply = json_pack("{s:s}", "state", PQgetvalue(res, 0, 0));
    st = 200;
out:
    PQclear(res);
    free(report_s);
    return st;
}

/* Before a result's body is read: the job must be running and this worker's (at the epoch of the header
 * X-Job-Epoch, when sent), or the answer is not_ours' at once. A worker that does not hold a job got its 409
 * only after its body was read and parsed (60 MB: 17 s and 732 MB, issue 26); the result's own query still
 * decides, under the job's row lock. */
int jobs_result_before_body(struct request *r)
{
    const char *epoch = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, "X-Job-Epoch");
    char worker[24];
    struct db_error dberr;
    PGresult *res;
    bool held;

    if (!parse_id(r->args[0]))
        return req_fail(r, ERR_NOT_FOUND, NULL, "no job \"%s\"", r->args[0]);
    snprintf(worker, sizeof(worker), "%lld", r->worker_id);
    const char *params[3] = {r->args[0], worker, epoch && parse_id(epoch) ? epoch : NULL};
    if (epoch && !parse_id(epoch))
        return not_ours(r, r->args[0]);
    if (!epoch) /* a worker of before X-Job-Epoch, or a hand-made post: taken, judged on its body's epoch */
        log_info(
            "request=%s job %s: a result without X-Job-Epoch (its body is read before its epoch is known)",
            r->id, r->args[0]);
    if (!(res = db_query(held_sql, 3, params, &dberr)))
        return api_db_fail(r, &dberr);
    held = PQntuples(res) == 1;
    PQclear(res);
    return held ? 0 : not_ours(r, r->args[0]);
}

int workers_deregister(struct request *r)
{
    const char *params[1] = {r->args[0]};
    struct db_error dberr;
    PGresult *res;
    int st;

    if ((st = own_worker(r)))
        return st;
    if (!(res = db_query(deregister_sql, 1, params, &dberr)))
        return api_db_fail(r, &dberr);
    if (PQntuples(res) == 0 || !strcmp(PQgetvalue(res, 0, 0), "0"))
        st = req_fail(r, ERR_NOT_FOUND, NULL, "no registered worker %s", r->args[0]);
    else {
        /* a goodbye is not a failure: its running job goes back to the queue on the same budget */
        log_info(
            "worker=%s platform=%s deregistered: %s running job(s) back in the queue (not a failure)%s%s%s",
            r->args[0], PQgetvalue(res, 0, 3), PQgetvalue(res, 0, 1),
            strcmp(PQgetvalue(res, 0, 2), "0") ? ", " : "",
            strcmp(PQgetvalue(res, 0, 2), "0") ? PQgetvalue(res, 0, 2) : "",
            strcmp(PQgetvalue(res, 0, 2), "0") ? " failed (their failures had reached max_attempts)" : "");
        r->reply = json_pack("{s:i}", "requeued", atoi(PQgetvalue(res, 0, 1)));
        st = 200;
    }
    PQclear(res);
    return st;
}
