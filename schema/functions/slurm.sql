-- slurm: the nodes of the Slurm executor's partition as sinfo last showed them (server/slurm/fleet.c), the
-- platforms discovered from them before any run, and the drain or resume each health event asks of a node.

-- A Slurm node no job can start on now: down, drained or draining, failing, not responding ("idle*").
CREATE FUNCTION slurm_unavailable(p_state text) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
    SELECT p_state ~ '^(down|drain|fail|inval|unknown|future|power|reboot|maint)' OR p_state LIKE '%*'
$$;

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
