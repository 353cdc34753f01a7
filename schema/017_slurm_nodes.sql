-- 017_slurm_nodes: the nodes of the Slurm executor's partition as sinfo last showed them (server/slurm_fleet.c
-- refreshes them every slurm_nodes_s), the platforms discovered from them before any run, their state in the
-- Health page and the schedules, a job's own partition and gres, and the drain or resume each health event
-- asks of a Slurm node (alerts.slurm_done).
CREATE TABLE slurm_nodes (
    name          text PRIMARY KEY,
    partition     text NOT NULL,
    state         text NOT NULL,              -- sinfo's long form: idle, allocated, mixed, drained, down*, ...
    reason        text,                       -- Slurm's reason (drains, down), NULL when none
    gres          text NOT NULL DEFAULT '',   -- "gpu:h100:4(S:0-1)", '' when none
    ppbench_drain boolean NOT NULL DEFAULT false,
    seen_at       timestamptz NOT NULL DEFAULT now()
);

-- A Slurm node no job can start on now: down, drained or draining, failing, not responding ("idle*").
CREATE FUNCTION slurm_unavailable(p_state text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT p_state ~ '^(down|drain|fail|inval|unknown|future|power|reboot|maint)' OR p_state LIKE '%*'
$$;

-- The job's partition and gres when it names its own (NULL: the executor's slurm_partition, slurm_gres).
ALTER TABLE jobs ADD COLUMN slurm_partition text, ADD COLUMN slurm_gres text;

-- Health events already there when this migration runs are not acted on (no drain for an old event).
ALTER TABLE alerts ADD COLUMN slurm_done boolean NOT NULL DEFAULT true;
ALTER TABLE alerts ALTER COLUMN slurm_done SET DEFAULT false;

-- One refresh of a partition's nodes: p_nodes [{"node", "state", "reason", "gres"}] from sinfo -N. Nodes of the
-- partition sinfo no longer lists are forgotten. Each node the executor runs jobs for (its name LIKE p_like,
-- and its kind p_kind unless '') becomes a host and a platform <node>/gpu0 (a gres "gpu...") or <node>/cpu0,
-- unless it has one already: a worker's first run on the node then fills in the device's details. Returns the
-- number of platforms made.
CREATE FUNCTION slurm_nodes_sync(p_partition text, p_nodes jsonb, p_kind text, p_like text) RETURNS integer
    LANGUAGE plpgsql AS $$
DECLARE
    v_made integer;
BEGIN
    WITH n AS (SELECT x->>'node' AS name, x->>'state' AS state, x->>'reason' AS reason,
                      coalesce(x->>'gres', '') AS gres FROM jsonb_array_elements(p_nodes) x)
    INSERT INTO slurm_nodes AS s (name, partition, state, reason, gres, ppbench_drain, seen_at)
        SELECT name, p_partition, state, reason, gres, coalesce(reason LIKE 'ppbench:%', false), now() FROM n
        ON CONFLICT (name) DO UPDATE SET partition = EXCLUDED.partition, state = EXCLUDED.state,
            reason = EXCLUDED.reason, gres = EXCLUDED.gres, ppbench_drain = EXCLUDED.ppbench_drain, seen_at = now();
    DELETE FROM slurm_nodes WHERE partition = p_partition
        AND name NOT IN (SELECT x->>'node' FROM jsonb_array_elements(p_nodes) x);

    WITH n AS (SELECT s.name, s.gres, CASE WHEN s.gres ~ '(^|,)gpu' THEN 'gpu' ELSE 'cpu' END AS kind
               FROM slurm_nodes s WHERE s.partition = p_partition AND s.name LIKE p_like
                 AND s.name ~ '^[A-Za-z0-9._-]{1,128}$'),
    w AS (SELECT * FROM n WHERE p_kind = '' OR kind = p_kind),
    h AS (INSERT INTO hosts (name) SELECT name FROM w ON CONFLICT (name) DO NOTHING RETURNING id),
    p AS (INSERT INTO platforms (id, host_id, local_id, kind, name, models)
          SELECT w.name || '/' || w.kind || '0', ho.id, w.kind || '0', w.kind,
                 format('unknown %s (Slurm node, gres %s)', w.kind, coalesce(nullif(w.gres, ''), 'none')),
                 CASE w.kind WHEN 'gpu' THEN '{cuda,omp-target,opencl}'::text[] ELSE '{opencl,openmp}'::text[] END
          FROM w JOIN hosts ho ON ho.name = w.name
          WHERE NOT EXISTS (SELECT 1 FROM platforms q WHERE q.host_id = ho.id)
          ON CONFLICT DO NOTHING RETURNING 1)
    SELECT count(*) INTO v_made FROM p;
    RETURN v_made;
END
$$;

-- The Reason= of a drain for a raised health event: "<problem> <x> GB/s below baseline <y> GB/s" (or below
-- the floor, or below its peers; the problem without its variant, which the evidence shows), or the event's
-- reason for a failed verification.
CREATE FUNCTION slurm_drain_reason(p_alert alerts) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT left(CASE WHEN v.verdict IN ('regressed', 'outlier') THEN
        format('%s %s GB/s below %s %s GB/s', regexp_replace(p_alert.doc->>'problem', ' variant .*$', ''),
               round((r.bandwidth / 1e9)::numeric, 2),
               CASE WHEN v.verdict = 'outlier' THEN 'peers' WHEN v.reason LIKE '%below the floor%' THEN 'floor'
                    ELSE 'baseline' END,
               round((CASE WHEN v.verdict = 'outlier' THEN v.peers_median
                          WHEN v.reason LIKE '%below the floor%' THEN
                              (SELECT f.floor FROM baseline_floors f JOIN platforms p ON p.name = f.device
                               WHERE p.id = r.platform_id AND (f.suite, f.kernel, f.precision)
                                   = (r.suite, r.kernel, r.precision))
                          ELSE v.baseline_median END / 1e9)::numeric, 2))
        ELSE p_alert.reason END, 380)
    FROM (SELECT 1) one
    LEFT JOIN results r ON r.id = (p_alert.doc->>'result_id')::bigint
    LEFT JOIN result_verdicts v ON v.result_id = r.id
$$;

-- Claim up to 16 health events not yet acted on for Slurm (several ppbenchd: SKIP LOCKED), each with the Slurm
-- node of its platform (NULL when the platform is not on one: nothing to do) and the drain reason.
CREATE FUNCTION slurm_alerts_claim() RETURNS TABLE (id bigint, kind text, platform_id text, node text,
                                                   reason text) LANGUAGE sql AS $$
    WITH c AS (SELECT a.id FROM alerts a WHERE NOT a.slurm_done ORDER BY a.id LIMIT 16 FOR UPDATE SKIP LOCKED),
    u AS (UPDATE alerts a SET slurm_done = true FROM c WHERE a.id = c.id RETURNING a.*)
    SELECT u.id, u.kind, u.platform_id, s.name, slurm_drain_reason(u::alerts)
    FROM u LEFT JOIN platforms p ON p.id = u.platform_id LEFT JOIN hosts h ON h.id = p.host_id
    LEFT JOIN slurm_nodes s ON s.name = h.name
    ORDER BY u.id
$$;

-- schedule_fire (012_fleet) with the platforms of Slurm nodes: a platform is served by a live worker, or is
-- on a Slurm node that can take a job now (its job goes through the executor).
CREATE OR REPLACE FUNCTION schedule_fire(p_id bigint) RETURNS bigint[] LANGUAGE sql AS $$
    WITH ins AS (
        INSERT INTO jobs (suite, kernels, model, platform_id, params, priority, timeout_s, max_attempts, tags)
        SELECT s.job->>'suite', ARRAY(SELECT jsonb_array_elements_text(s.job->'kernels')), s.job->>'model', p.id,
               s.job->'params', (s.job->>'priority')::int, (s.job->>'timeout_s')::int,
               (s.job->>'max_attempts')::int, ARRAY['schedule:' || s.id]
        FROM schedules s
        JOIN platforms p ON s.job->>'model' = ANY (p.models)
        JOIN hosts h ON h.id = p.host_id
        WHERE s.id = p_id AND (s.selector->>'kind' IS NULL OR p.kind = s.selector->>'kind')
          AND (s.host_like IS NULL OR h.name LIKE s.host_like)
          AND (EXISTS (SELECT 1 FROM workers w WHERE w.platform_id = p.id AND w.state <> 'gone')
               OR EXISTS (SELECT 1 FROM slurm_nodes sn WHERE sn.name = h.name AND NOT slurm_unavailable(sn.state)))
        ORDER BY p.id
        RETURNING id)
    SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM ins
$$;

-- health_doc (012_fleet) with Slurm: a platform on a Slurm node has no resident worker, so it is never a stale
-- worker; it is 'unavailable' while Slurm says its node is down or drained (a judged attention comes first),
-- and carries "slurm": {"node", "state", "reason", "ppbench_drain", "seen_at"}.
CREATE OR REPLACE FUNCTION health_doc(p_stale_s double precision) RETURNS jsonb LANGUAGE sql STABLE AS $$
    WITH pl AS (
        SELECT p.id, p.name, p.kind, h.name AS host, ph.state AS judged, ph.reason, ph.result_id, ph.problem,
               ph.since, ph.last_result_at, w.state AS wstate, w.last_heartbeat, sn.name AS snode,
               sn.state AS sstate, sn.reason AS sreason, sn.ppbench_drain, sn.seen_at AS sseen,
               CASE WHEN ph.state IS NOT NULL AND ph.state <> 'ok' THEN ph.state
                    WHEN sn.name IS NOT NULL AND slurm_unavailable(sn.state) THEN 'unavailable'
                    WHEN sn.name IS NULL AND p.host_id IS NOT NULL AND (w.id IS NULL OR w.state = 'gone'
                         OR w.last_heartbeat < now() - make_interval(secs => p_stale_s)) THEN 'stale_worker'
                    WHEN ph.platform_id IS NULL THEN 'never_measured'
                    ELSE 'ok' END AS state
        FROM platforms p
        LEFT JOIN hosts h ON h.id = p.host_id
        LEFT JOIN slurm_nodes sn ON sn.name = h.name
        LEFT JOIN platform_health ph ON ph.platform_id = p.id
        LEFT JOIN LATERAL (SELECT * FROM workers w WHERE w.platform_id = p.id ORDER BY (w.state <> 'gone') DESC, w.id DESC
                           LIMIT 1) w ON true)
    SELECT jsonb_build_object(
        'platforms', coalesce((SELECT jsonb_agg(jsonb_build_object(
            'id', pl.id, 'name', pl.name, 'kind', pl.kind, 'host', pl.host, 'state', pl.state,
            'reason', CASE pl.state
                WHEN 'stale_worker' THEN CASE WHEN pl.wstate IS NULL THEN 'no worker has served it'
                    WHEN pl.wstate = 'gone' THEN 'its worker is gone'
                    ELSE format('no heartbeat since %s', to_char(pl.last_heartbeat AT TIME ZONE 'UTC',
                                                                 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) END
                WHEN 'unavailable' THEN format('slurm node %s is %s%s', pl.snode, pl.sstate,
                                               coalesce(': ' || pl.sreason, ''))
                WHEN 'never_measured' THEN 'no result yet'
                ELSE pl.reason END,
            'problem', pl.problem, 'result_id', pl.result_id, 'since', pl.since,
            'last_result_at', pl.last_result_at,
            'evidence', CASE WHEN pl.result_id IS NOT NULL THEN '#/platform?id=' || pl.id END,
            'slurm', CASE WHEN pl.snode IS NOT NULL THEN jsonb_build_object('node', pl.snode, 'state', pl.sstate,
                'reason', pl.sreason, 'ppbench_drain', pl.ppbench_drain, 'seen_at', pl.sseen) END)
            ORDER BY pl.id) FROM pl), '[]'),
        'counts', (SELECT jsonb_object_agg(s, (SELECT count(*) FROM pl WHERE pl.state = s))
                   FROM unnest(ARRAY['ok', 'regressed', 'outlier', 'verification_failed', 'stale_worker',
                                     'unavailable', 'never_measured']) s))
$$;

-- job_doc (014_slurm) with the job's own partition and gres in "slurm" (null: the executor's).
CREATE OR REPLACE FUNCTION job_doc(j jobs, with_results boolean) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', j.id, 'state', j.state, 'suite', j.suite, 'model', j.model, 'platform', j.platform_id,
        'selector', CASE WHEN j.selector = '{}' THEN NULL ELSE j.selector END,
        'kernels', to_jsonb(j.kernels), 'params', j.params, 'priority', j.priority, 'timeout_s', j.timeout_s,
        'tags', to_jsonb(j.tags), 'attempts', j.attempts, 'max_attempts', j.max_attempts,
        'progress', j.progress, 'error', j.error, 'ran_on', j.ran_on, 'worker_id', j.worker_id,
        'created_at', j.created_at, 'started_at', j.started_at, 'finished_at', j.finished_at,
        'slurm', CASE WHEN j.slurm_state IS NULL AND j.slurm_partition IS NULL AND j.slurm_gres IS NULL THEN NULL
                 ELSE jsonb_build_object('job_id', j.slurm_job_id, 'state', j.slurm_state, 'reason', j.slurm_reason,
                                         'partition', j.slurm_partition, 'gres', j.slurm_gres) END)
        || CASE WHEN with_results THEN jsonb_build_object('results',
               (SELECT coalesce(jsonb_agg(result_doc(r) ORDER BY r.id), '[]') FROM results r WHERE r.job_id = j.id))
           ELSE '{}' END;
END
$$;
