-- schedules: schedules submit one job per matching platform when due (server/fleet/schedule.c claims the due
-- ones, FOR UPDATE SKIP LOCKED, and fires them here), and their documents.

-- Fires schedule p_id: one job per matching platform that can take one now, served by a live worker (not gone,
-- a heartbeat within p_stale_s: a stale worker's platform would hold its job queued and the schedule "running")
-- or on a Slurm node that can take a job (its job goes through the executor); returns the jobs' ids.
CREATE FUNCTION schedule_fire(p_id bigint, p_stale_s double precision) RETURNS bigint[] LANGUAGE sql AS $$
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
          AND (EXISTS (SELECT 1 FROM workers w WHERE w.platform_id = p.id AND w.state <> 'gone'
                                                    AND w.last_heartbeat >= now() - make_interval(secs => p_stale_s))
               OR EXISTS (SELECT 1 FROM slurm_nodes sn WHERE sn.name = h.name AND NOT slurm_unavailable(sn.state)))
        ORDER BY p.id
        RETURNING id)
    SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM ins
$$;

CREATE FUNCTION schedule_doc(s schedules) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT jsonb_build_object(
        'id', s.id, 'name', s.name, 'spec', s.spec, 'paused', s.paused, 'selector', s.selector,
        'suite', s.job->'suite', 'model', s.job->'model', 'kernels', s.job->'kernels', 'params', s.job->'params',
        'priority', s.job->'priority', 'timeout_s', s.job->'timeout_s', 'max_attempts', s.job->'max_attempts',
        'tag', 'schedule:' || s.id, 'due_at', s.due_at, 'created_at', s.created_at, 'fired', s.fired,
        'last', CASE WHEN s.last_fired_at IS NULL THEN NULL ELSE jsonb_build_object(
            'fired_at', s.last_fired_at, 'jobs', to_jsonb(s.last_job_ids),
            'states', (SELECT coalesce(jsonb_object_agg(st, n), '{}')
                       FROM (SELECT j.state AS st, count(*) AS n FROM jobs j WHERE j.id = ANY (s.last_job_ids)
                             GROUP BY j.state) c),
            'outcome', CASE WHEN cardinality(s.last_job_ids) = 0 THEN 'no matching platform'
                ELSE (SELECT CASE WHEN bool_or(j.state IN ('queued', 'running')) THEN 'running'
                             WHEN bool_and(j.state = 'succeeded') THEN 'succeeded'
                             ELSE 'failed' END
                 FROM jobs j WHERE j.id = ANY (s.last_job_ids)) END) END)
$$;
