-- health: a platform's state (ok, suspect, needs attention, ...) as judging leaves it, the alerts that its
-- changes queue for the alerts thread (webhook, drain hook, Slurm), the automatic repeat of a suspect result's
-- job, and the Health document (GET /api/v1/health).

CREATE FUNCTION health_alert(p_kind text, p_platform text, p_state text, p_reason text, p_result bigint,
                                        p_problem text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO alerts (kind, platform_id, state, reason, doc)
    SELECT p_kind, p_platform, p_state, p_reason, jsonb_build_object(
        'event', p_kind, 'platform', p_platform, 'state', p_state, 'reason', p_reason, 'problem', p_problem,
        'result_id', p_result, 'host', h.name, 'device', p.name, 'at', now(),
        'evidence', '/#/platform?id=' || p_platform || coalesce('&result=' || p_result, ''))
    FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id WHERE p.id = p_platform
$$;

-- The platform needs attention (a confirmed regression or outlier, a failed verification). An attention
-- already raised stays as it is (one event until it recovers).
CREATE FUNCTION health_raise(p_platform text, p_state text, p_reason text, p_result bigint, p_problem text)
    RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_old text;
BEGIN
    SELECT state INTO v_old FROM platform_health WHERE platform_id = p_platform FOR UPDATE;
    IF v_old IS NOT NULL AND v_old <> 'ok' THEN
        UPDATE platform_health SET last_result_id = p_result, last_result_at = now() WHERE platform_id = p_platform;
        RETURN;
    END IF;
    INSERT INTO platform_health AS h (platform_id, state, reason, result_id, problem, since, last_result_id)
        VALUES (p_platform, p_state, p_reason, p_result, p_problem, now(), p_result)
        ON CONFLICT (platform_id) DO UPDATE SET state = EXCLUDED.state, reason = EXCLUDED.reason,
            result_id = EXCLUDED.result_id, problem = EXCLUDED.problem, since = now(),
            last_result_id = EXCLUDED.last_result_id, last_result_at = now();
    PERFORM health_alert('raised', p_platform, p_state, p_reason, p_result, p_problem);
END
$$;

-- A passing run (verified, in its band): the platform recovers when its attention came from this problem.
CREATE FUNCTION health_pass(p_platform text, p_problem text, p_result bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_h platform_health;
BEGIN
    SELECT * INTO v_h FROM platform_health WHERE platform_id = p_platform FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO platform_health (platform_id, state, last_result_id) VALUES (p_platform, 'ok', p_result)
            ON CONFLICT (platform_id) DO UPDATE SET last_result_id = p_result, last_result_at = now();
        RETURN;
    END IF;
    IF v_h.state <> 'ok' AND v_h.problem = p_problem THEN
        UPDATE platform_health SET state = 'ok', reason = NULL, result_id = p_result, problem = NULL, since = now(),
            last_result_id = p_result, last_result_at = now() WHERE platform_id = p_platform;
        PERFORM health_alert('recovered', p_platform, 'ok',
                             format('%s passes again (result %s) after: %s', p_problem, p_result, v_h.reason),
                             p_result, p_problem);
    ELSE
        UPDATE platform_health SET last_result_id = p_result, last_result_at = now() WHERE platform_id = p_platform;
    END IF;
END
$$;

-- An admin clears a platform's attention. Returns false when it needed none.
CREATE FUNCTION health_clear(p_platform text, p_by text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
    v_h platform_health;
BEGIN
    SELECT * INTO v_h FROM platform_health WHERE platform_id = p_platform FOR UPDATE;
    IF NOT FOUND OR v_h.state = 'ok' THEN
        RETURN false;
    END IF;
    UPDATE platform_health SET state = 'ok', reason = NULL, result_id = NULL, problem = NULL, since = now()
        WHERE platform_id = p_platform;
    PERFORM health_alert('cleared', p_platform, 'ok', format('cleared by %s after: %s', p_by, v_h.reason),
                         v_h.result_id, v_h.problem);
    RETURN true;
END
$$;

-- A result that changes nothing but says the platform was measured (a flagged one, or a pass while ok).
CREATE FUNCTION health_touch(p_platform text, p_result bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO platform_health (platform_id, state, last_result_id) VALUES (p_platform, 'ok', p_result)
        ON CONFLICT (platform_id) DO UPDATE SET last_result_id = EXCLUDED.last_result_id, last_result_at = now()
$$;

-- The automatic repeat of a suspect result's job, on the platform it ran on, tagged repeat:<job>; one per
-- job, and a repeat is not repeated (its result confirms or clears).
CREATE FUNCTION judge_repeat(p_job bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_id bigint;
BEGIN
    INSERT INTO jobs (suite, kernels, model, platform_id, params, priority, timeout_s, max_attempts, tags)
    SELECT j.suite, j.kernels, j.model, coalesce(j.ran_on, j.platform_id), j.params, least(j.priority + 1, 1000),
           j.timeout_s, j.max_attempts, ARRAY['repeat:' || j.id]
    FROM jobs j
    WHERE j.id = p_job AND coalesce(j.ran_on, j.platform_id) IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM unnest(j.tags) t WHERE t LIKE 'repeat:%')
      AND NOT EXISTS (SELECT 1 FROM jobs r WHERE r.tags @> ARRAY['repeat:' || p_job]
                      AND r.state IN ('queued', 'running'))
    RETURNING id INTO v_id;
    RETURN v_id;
END
$$;

-- The Health document. A platform on a Slurm node has no resident worker, so it is never a stale
-- worker; it is 'unavailable' while Slurm says its node is down or drained (a judged attention comes first),
-- and carries "slurm": {"node", "state", "reason", "ppbench_drain", "seen_at"}. A platform is 'ok' only when
-- some baseline of it holds the min_results results that judging against a baseline needs: one with fewer
-- (its reason says how many its fullest holds, and counts its flagged results, which are not judged), or whose
-- results are all flagged (noisy, above_ceiling, ...), is 'never_measured' as one without results is (issue 22: it said "ok"
-- for baselines with no results; issue 25: "ok" after one result, which nothing had been judged against).
CREATE FUNCTION health_doc(p_stale_s double precision) RETURNS jsonb LANGUAGE sql STABLE AS $$
    WITH pl AS (
        SELECT p.id, p.name, p.kind, h.name AS host, ph.state AS judged, ph.reason, ph.result_id, ph.problem,
               ph.since, ph.last_result_at, w.state AS wstate, w.last_heartbeat, sn.name AS snode,
               sn.state AS sstate, sn.reason AS sreason, sn.ppbench_drain, sn.seen_at AS sseen,
               CASE WHEN ph.state IS NOT NULL AND ph.state <> 'ok' THEN ph.state
                    WHEN sn.name IS NOT NULL AND slurm_unavailable(sn.state) THEN 'unavailable'
                    WHEN sn.name IS NULL AND p.host_id IS NOT NULL AND (w.id IS NULL OR w.state = 'gone'
                         OR w.last_heartbeat < now() - make_interval(secs => p_stale_s)) THEN 'stale_worker'
                    WHEN ph.platform_id IS NULL OR NOT EXISTS (
                             SELECT 1 FROM baselines b, judge_settings s WHERE b.platform_id = p.id
                             AND cardinality(b.window_ids) >= s.min_results) THEN 'never_measured'
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
                WHEN 'never_measured' THEN CASE WHEN pl.judged IS NULL THEN coalesce(
                    (SELECT format('no baseline yet: %s imported result%s, and imports are not judged', count(*),
                                   CASE WHEN count(*) > 1 THEN 's' ELSE '' END)
                     FROM results r WHERE r.platform_id = pl.id AND r.origin = 'import' HAVING count(*) > 0),
                    'no result yet') ELSE coalesce('no baseline yet: ' || nullif(concat_ws('; ',
                    (SELECT format('its fullest holds %s of the %s results judging needs (%s)',
                                   cardinality(b.window_ids), s.min_results,
                                   judge_problem(b.suite, b.kernel, b.model, b.precision, b.size, b.variant))
                     FROM baselines b, judge_settings s WHERE b.platform_id = pl.id AND cardinality(b.window_ids) > 0
                     ORDER BY cardinality(b.window_ids) DESC, b.suite, b.kernel LIMIT 1),
                    (SELECT format('%s flagged result%s (%s), and flagged results are not judged',
                                   x.n, CASE WHEN x.n > 1 THEN 's' ELSE '' END, x.flags)
                     FROM (SELECT count(*) AS n,
                                  (SELECT string_agg(y.f || ' ' || y.c, ', ' ORDER BY y.c DESC, y.f)
                                   FROM (SELECT f, count(*) AS c FROM results r2, unnest(r2.flags) f
                                         WHERE r2.platform_id = pl.id GROUP BY f) y) AS flags
                           FROM results r WHERE r.platform_id = pl.id AND r.flags <> '{}') x
                     WHERE x.n > 0)), ''),
                    'no baseline yet: no result of it has passed judging') END
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
