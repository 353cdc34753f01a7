-- documents: the JSON documents the API serves, built in one place, and the job event log kept by a trigger,
-- so every state or progress change is recorded and announced whoever makes it (one notification channel,
-- ppbench, an empty payload: the notifier wakes every waiter on any notification, and PostgreSQL folds the
-- duplicates of a transaction). The document functions are PL/pgSQL, not SQL: PL/pgSQL keeps its plans for the
-- session, where a SQL function that is not inlined is planned again on every call (4x the cost of GET
-- /api/v1/jobs/{id}, measured).

-- A result's document: its problem and key, models, samples and statistics, figures, flags and provenance;
-- its noise (the statistic judged, its value and limit, fractions: 028_noise); the run of its job it came from
-- (attempt, 042_attempts), the later run whose rows replaced it (superseded_by, null while its rows are the
-- job's current ones) and, when its job stored rows of more than one run (a repeat for noise), the ids of
-- every run's result of the same kernel (attempts).
CREATE FUNCTION result_doc(r results) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', r.id, 'job_id', r.job_id, 'platform', r.platform_id, 'suite', r.suite, 'kernel', r.kernel,
        'model', r.model, 'variant', r.variant, 'precision', r.precision, 'size', r.size,
        'problem_key', r.problem_key,
        'problem', coalesce(r.provenance->'problem',
                            jsonb_build_object('array_size', r.size, 'precision', r.precision)),
        'bytes', r.bytes, 'bytes_compulsory', r.bytes_compulsory, 'flops', r.flops, 'times_s', to_jsonb(r.times_s),
        'stats_s', jsonb_build_object('min', r.min_s, 'max', r.max_s, 'mean', r.mean_s, 'median', r.median_s,
                                      'stddev', r.stddev_s, 'count',
                                      coalesce(r.stats_count,
                                               CASE WHEN r.times_s IS NULL THEN (r.provenance->>'num_times')::int - 1
                                               ELSE cardinality(r.times_s) - 1 END)),
        'bandwidth_bytes_per_s', r.bandwidth,
        'bandwidth_compulsory_bytes_per_s', r.bandwidth * coalesce(r.bytes_compulsory / nullif(r.bytes, 0), 1),
        'gflops', r.gflops, 'cv', r.cv, 'max_min', r.max_min, 'flags', to_jsonb(r.flags),
        'noise', CASE WHEN r.noise IS NOT NULL THEN jsonb_build_object('rule', r.noise_rule, 'value', r.noise,
                                                                       'limit', r.noise_limit) END,
        'attempt', r.attempt,
        'superseded_by', CASE WHEN 'superseded' = ANY (r.flags) THEN
            (SELECT max(a.attempt) FROM results a WHERE a.job_id = r.job_id) END,
        'attempts', CASE WHEN r.job_id IS NOT NULL THEN
            (SELECT CASE WHEN count(*) > 1 THEN jsonb_agg(a.id ORDER BY a.id) END FROM results a
             WHERE a.job_id = r.job_id AND a.kernel = r.kernel) END,
        'verified', r.verified, 'error', r.error,
        -- who verified it: ppbench against its serial reference, a runner's program itself (issue 27: BabelStream
        -- checks its arrays), or nobody ppbench knows of (an imported table)
        'verified_by', CASE r.origin WHEN 'worker' THEN 'ppbench' WHEN 'runner' THEN 'program' ELSE 'import' END,
        'origin', r.origin, 'provenance', r.provenance, 'created_at', r.created_at);
END
$$;

-- A job's document (with_results: its results' documents too, and its history); "slurm" holds its Slurm job,
-- state and reason, and its own partition and gres (null: the executor's), or is null when Slurm has no part in
-- it. attempts counts its runs (claims), failures the runs that failed and spent max_attempts (042_attempts);
-- history is every time it went back to the queue, in order, with the run it ended and the note that said why
-- (a repeat for noise, a worker's goodbye, a lost lease: the note of each re-queue, from its state events), so
-- that a later note does not hide an earlier one.
CREATE FUNCTION job_doc(j jobs, with_results boolean) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', j.id, 'state', j.state, 'suite', j.suite, 'model', j.model, 'platform', j.platform_id,
        'selector', CASE WHEN j.selector = '{}' THEN NULL ELSE j.selector END,
        'kernels', to_jsonb(j.kernels), 'params', j.params, 'priority', j.priority, 'timeout_s', j.timeout_s,
        'tags', to_jsonb(j.tags), 'attempts', j.attempts, 'failures', j.failures, 'max_attempts', j.max_attempts,
        'progress', j.progress, 'error', j.error, 'ran_on', j.ran_on, 'worker_id', j.worker_id,
        'repeats', j.repeats, 'note', j.note,
        'created_at', j.created_at, 'started_at', j.started_at, 'finished_at', j.finished_at,
        'slurm', CASE WHEN j.slurm_state IS NULL AND j.slurm_partition IS NULL AND j.slurm_gres IS NULL THEN NULL
                 ELSE jsonb_build_object('job_id', j.slurm_job_id, 'state', j.slurm_state, 'reason', j.slurm_reason,
                                         'partition', j.slurm_partition, 'gres', j.slurm_gres) END)
        || CASE WHEN with_results THEN jsonb_build_object('results',
               (SELECT coalesce(jsonb_agg(result_doc(r) ORDER BY r.id), '[]') FROM results r WHERE r.job_id = j.id),
               'history',
               (SELECT coalesce(jsonb_agg(jsonb_build_object('at', e.at, 'run', (e.data->>'attempts')::int,
                                                             'note', e.data->>'note') ORDER BY e.id), '[]')
                FROM job_events e WHERE e.job_id = j.id AND e.kind = 'state' AND e.data->>'state' = 'queued'
                  AND e.data->>'note' IS NOT NULL))
           ELSE '{}' END;
END
$$;

-- Why a queued job may wait for ever, or NULL: no live worker (not gone, a heartbeat within p_stale_s) serves its
-- platform, or none serves a platform its selector matches. A job the Slurm executor owns, or one on a Slurm
-- node's platform, waits in Slurm's queue: no warning. The job's document and the submission's answer carry it
-- (ppbench submit says so and does not follow such a job).
CREATE FUNCTION job_warning(j jobs, p_stale_s double precision) RETURNS text LANGUAGE sql STABLE AS $$
    WITH live AS (
        SELECT p.id FROM platforms p
        JOIN workers w ON w.platform_id = p.id AND w.state <> 'gone'
                          AND w.last_heartbeat >= now() - make_interval(secs => p_stale_s)),
    slurm AS (SELECT p.id FROM platforms p JOIN hosts h ON h.id = p.host_id JOIN slurm_nodes sn ON sn.name = h.name)
    SELECT CASE
        WHEN j.state <> 'queued' OR j.slurm_partition IS NOT NULL OR j.slurm_job_id IS NOT NULL THEN NULL
        WHEN j.platform_id IS NOT NULL THEN
            CASE WHEN j.platform_id IN (SELECT id FROM live) OR j.platform_id IN (SELECT id FROM slurm) THEN NULL
                 ELSE coalesce(
                     (SELECT format('the worker of %s has sent no heartbeat since %s: the job waits until it is back',
                                    j.platform_id, to_char(w.last_heartbeat AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'))
                      FROM workers w WHERE w.platform_id = j.platform_id AND w.state <> 'gone'
                      ORDER BY w.id DESC LIMIT 1),
                     format('no worker serves %s: the job waits until one registers', j.platform_id)) END
        WHEN EXISTS (SELECT 1 FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id
                     WHERE j.model = ANY (p.models) AND (j.selector->>'kind' IS NULL OR p.kind = j.selector->>'kind')
                       AND (j.selector->>'host' IS NULL OR h.name = j.selector->>'host')
                       AND (p.id IN (SELECT id FROM live) OR p.id IN (SELECT id FROM slurm))) THEN NULL
        ELSE format('no live worker serves a platform of kind %s%s with model %s: the job waits until one does',
                    coalesce(j.selector->>'kind', 'any'), coalesce(' on host ' || (j.selector->>'host'), ''), j.model)
    END
$$;

CREATE FUNCTION jobs_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state THEN
        INSERT INTO job_events (job_id, kind, data)
        VALUES (NEW.id, 'state', jsonb_build_object('state', NEW.state, 'error', NEW.error,
                                                     'attempts', NEW.attempts, 'failures', NEW.failures,
                                                     'ran_on', NEW.ran_on,
                                                     'repeats', NEW.repeats, 'note', NEW.note,
                                                     'started_at', NEW.started_at,
                                                     'finished_at', NEW.finished_at));
        PERFORM pg_notify('ppbench', '');
    ELSIF NEW.progress IS DISTINCT FROM OLD.progress THEN
        INSERT INTO job_events (job_id, kind, data) VALUES (NEW.id, 'progress', jsonb_build_object('progress', NEW.progress));
        PERFORM pg_notify('ppbench', '');
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_events AFTER INSERT OR UPDATE OF state, progress ON jobs
    FOR EACH ROW EXECUTE FUNCTION jobs_record_event();

-- A job back in the queue is queued from now on (queue_timeout_s counts from here; the column's default covers
-- a submission), whichever statement put it back.
CREATE FUNCTION jobs_queued_at() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.queued_at := now();
    RETURN NEW;
END
$$;

CREATE TRIGGER jobs_queued_at BEFORE UPDATE OF state ON jobs
    FOR EACH ROW WHEN (NEW.state = 'queued' AND OLD.state <> 'queued') EXECUTE FUNCTION jobs_queued_at();
