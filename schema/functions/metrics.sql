-- metrics: the database's part of GET /metrics. Each (platform, problem) has one row in metric_series holding
-- its two exposition lines already rendered (the last verified, unflagged figure, and the median it was judged
-- against), written by the judging round and rebuilt when a platform's labels change, so that a scrape reads
-- the newest rows by an index and does no work that grows with the fleet's history.

-- A Prometheus label value: backslash, double quote and newline escaped.
CREATE FUNCTION prom_label(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT replace(replace(replace(coalesce(v, ''), '\', '\\'), '"', '\"'), chr(10), '\n')
$$;

-- The label set of one series (prom_label escapes the values), and a line of a family with it. Scalar SQL
-- functions, so that PostgreSQL inlines them into the statements that call them.
CREATE FUNCTION metric_labels(p_host text, p_platform text, p_device text, p_suite text, p_kernel text, p_model text,
                              p_precision text, p_size bigint) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT format('host="%s",platform="%s",device="%s",suite="%s",kernel="%s",model="%s",precision="%s",size="%s"',
                  prom_label(p_host), prom_label(p_platform), prom_label(p_device), prom_label(p_suite),
                  prom_label(p_kernel), prom_label(p_model), p_precision, p_size)
$$;

CREATE FUNCTION metric_line(p_family text, p_labels text, p_value double precision) RETURNS text
    LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN p_value IS NOT NULL THEN p_family || '{' || p_labels || '} ' || p_value || E'\n' END
$$;

-- The database's part of GET /metrics (the per-problem families from metric_series): jobs and workers
-- by state, platforms by health, per platform its health, and per platform and problem its last verified
-- figure and its baseline. Cardinality is bounded: the per-platform families keep at most p_limit series each
-- (the most recently measured platforms; the most recently judged problems), ppbench_metrics_series_dropped
-- says how many were left out.
CREATE FUNCTION metrics_text(p_stale_s double precision, p_limit integer) RETURNS text LANGUAGE sql STABLE
    SET jit = off AS $$
    WITH js AS (SELECT s, (SELECT count(*) FROM jobs j WHERE j.state = s) AS n
                FROM unnest(ARRAY['queued', 'running', 'succeeded', 'failed', 'cancelled']) s),
    ws AS (SELECT s, (SELECT count(*) FROM workers w WHERE CASE WHEN w.state <> 'gone'
                          AND w.last_heartbeat < now() - make_interval(secs => p_stale_s) THEN 'stale'
                          ELSE w.state END = s) AS n
           FROM unnest(ARRAY['idle', 'busy', 'stale', 'gone']) s),
    pl AS (
        SELECT p.id, p.name, h.name AS host,
               CASE WHEN ph.state IS NOT NULL AND ph.state <> 'ok' THEN ph.state
                    WHEN p.host_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM workers w WHERE w.platform_id = p.id
                         AND w.state <> 'gone' AND w.last_heartbeat >= now() - make_interval(secs => p_stale_s))
                    THEN 'stale_worker'
                    WHEN ph.platform_id IS NULL THEN 'never_measured' ELSE 'ok' END AS state,
               coalesce(ph.last_result_at, p.last_seen) AS at
        FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id LEFT JOIN platform_health ph ON ph.platform_id = p.id),
    ps AS (SELECT s, (SELECT count(*) FROM pl WHERE pl.state = s) AS n
           FROM unnest(ARRAY['ok', 'regressed', 'outlier', 'verification_failed', 'stale_worker',
                             'never_measured']) s),
    pk AS (SELECT * FROM pl ORDER BY at DESC, id LIMIT p_limit),
    mk AS MATERIALIZED (SELECT fom_line, baseline_line FROM metric_series ORDER BY updated_at DESC LIMIT p_limit)
    SELECT concat(
        E'# HELP ppbench_queue_depth Jobs waiting for a worker.\n# TYPE ppbench_queue_depth gauge\n',
        'ppbench_queue_depth ', (SELECT n FROM js WHERE s = 'queued'), E'\n',
        E'# HELP ppbench_jobs Jobs in the database by state.\n# TYPE ppbench_jobs gauge\n',
        (SELECT string_agg(format(E'ppbench_jobs{state="%s"} %s\n', s, n), '' ORDER BY s) FROM js),
        E'# HELP ppbench_workers Workers by state (stale: no heartbeat within the lease).\n# TYPE ppbench_workers gauge\n',
        (SELECT string_agg(format(E'ppbench_workers{state="%s"} %s\n', s, n), '' ORDER BY s) FROM ws),
        E'# HELP ppbench_platforms Platforms by health state.\n# TYPE ppbench_platforms gauge\n',
        (SELECT string_agg(format(E'ppbench_platforms{state="%s"} %s\n', s, n), '' ORDER BY s) FROM ps),
        E'# HELP ppbench_alerts_pending Health alerts the webhook has not taken yet.\n# TYPE ppbench_alerts_pending gauge\n',
        'ppbench_alerts_pending ', (SELECT count(*) FROM alerts WHERE pending), E'\n',
        E'# HELP ppbench_platform_health The platform''s health state (1 for its current state).\n# TYPE ppbench_platform_health gauge\n',
        (SELECT string_agg(format(E'ppbench_platform_health{host="%s",platform="%s",device="%s",state="%s"} 1\n',
                                  prom_label(host), prom_label(id), prom_label(name), state), '' ORDER BY id) FROM pk),
        E'# HELP ppbench_result_bytes_per_second The last verified, unflagged figure of merit per platform and problem.\n# TYPE ppbench_result_bytes_per_second gauge\n',
        (SELECT string_agg(fom_line, '') FROM mk),
        E'# HELP ppbench_baseline_bytes_per_second The baseline (median of the window) of that figure.\n# TYPE ppbench_baseline_bytes_per_second gauge\n',
        (SELECT string_agg(baseline_line, '') FROM mk),
        E'# HELP ppbench_metrics_series_dropped Per-platform series left out by the metrics_max_series bound.\n# TYPE ppbench_metrics_series_dropped gauge\n',
        'ppbench_metrics_series_dropped ',
        greatest((SELECT count(*) FROM pl) - p_limit, 0) + greatest((SELECT count(*) FROM metric_series) - p_limit, 0), E'\n')
$$;

-- The series of platform p_platform (NULL: of every platform) again from the baselines: per platform and
-- problem the variant judged last.
CREATE FUNCTION metric_series_rebuild(p_platform text) RETURNS void LANGUAGE sql AS $$
    DELETE FROM metric_series WHERE p_platform IS NULL OR platform_id = p_platform;
    INSERT INTO metric_series (platform_id, suite, kernel, model, precision, size, updated_at, fom_line, baseline_line)
    SELECT DISTINCT ON (b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size)
           b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size, b.updated_at,
           metric_line('ppbench_result_bytes_per_second', l.labels, b.last_fom),
           metric_line('ppbench_baseline_bytes_per_second', l.labels, b.median)
    FROM baselines b JOIN platforms p ON p.id = b.platform_id LEFT JOIN hosts h ON h.id = p.host_id
    CROSS JOIN LATERAL (SELECT metric_labels(h.name, b.platform_id, p.name, b.suite, b.kernel, b.model, b.precision,
                                             b.size) AS labels) l
    WHERE b.last_fom IS NOT NULL AND (p_platform IS NULL OR b.platform_id = p_platform)
    ORDER BY b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size, b.updated_at DESC, b.last_result_id DESC;
$$;

-- A platform's labels changed (its device name, its host): its series again.
CREATE FUNCTION platforms_metric_labels() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM metric_series_rebuild(NEW.id);
    RETURN NULL;
END
$$;

CREATE TRIGGER platforms_metric_labels AFTER UPDATE OF name, host_id ON platforms FOR EACH ROW
    WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.host_id IS DISTINCT FROM NEW.host_id)
    EXECUTE FUNCTION platforms_metric_labels();
