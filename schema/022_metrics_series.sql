-- 022_metrics_series: GET /metrics without work per scrape that grows with the fleet's history (issue 16).
-- 012's metrics_text found each platform and problem's last figure with a DISTINCT ON over every baseline and
-- formatted every label set and line at each scrape (201 ms p95 with 28,000 baselines). Here each
-- (platform, suite, kernel, model, precision, size) has one row in metric_series holding its two exposition
-- lines already rendered (the last verified, unflagged figure, and the median it was judged against),
-- written by the judging round that judged it (judge_round: one more upsert in its statement) and rebuilt from
-- the baselines when a platform's labels change (its name or host) or a writer other than judging filled the
-- baselines (metric_series_rebuild). A scrape reads the newest metrics_max_series rows by an index, in that
-- order, and concatenates them.

CREATE TABLE metric_series (
    platform_id    text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    suite          text NOT NULL,
    kernel         text NOT NULL,
    model          text NOT NULL,
    precision      text NOT NULL,
    size           bigint NOT NULL,
    updated_at     timestamptz NOT NULL,
    fom_line       text NOT NULL,   -- 'ppbench_result_bytes_per_second{...} <bytes/s>' and a newline
    baseline_line  text,            -- 'ppbench_baseline_bytes_per_second{...} <bytes/s>' and a newline, or NULL
    PRIMARY KEY (platform_id, suite, kernel, model, precision, size)
);
CREATE INDEX metric_series_recent ON metric_series (updated_at DESC);

-- The two lines of one series: its labels (prom_label escapes them) with the figure and the baseline median.
CREATE FUNCTION metric_lines(p_host text, p_platform text, p_device text, p_suite text, p_kernel text, p_model text,
                             p_precision text, p_size bigint, p_fom double precision, p_median double precision,
                             OUT fom_line text, OUT baseline_line text) LANGUAGE sql IMMUTABLE AS $$
    SELECT format(E'ppbench_result_bytes_per_second{%s} %s\n', l, p_fom),
           CASE WHEN p_median IS NOT NULL THEN format(E'ppbench_baseline_bytes_per_second{%s} %s\n', l, p_median) END
    FROM (SELECT format('host="%s",platform="%s",device="%s",suite="%s",kernel="%s",model="%s",precision="%s",size="%s"',
                        prom_label(p_host), prom_label(p_platform), prom_label(p_device), prom_label(p_suite),
                        prom_label(p_kernel), prom_label(p_model), p_precision, p_size) AS l) x
$$;

-- The series of platform p_platform (NULL: of every platform) again from the baselines: per platform and
-- problem the variant judged last.
CREATE FUNCTION metric_series_rebuild(p_platform text) RETURNS void LANGUAGE sql AS $$
    DELETE FROM metric_series WHERE p_platform IS NULL OR platform_id = p_platform;
    INSERT INTO metric_series (platform_id, suite, kernel, model, precision, size, updated_at, fom_line, baseline_line)
    SELECT DISTINCT ON (b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size)
           b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size, b.updated_at, l.fom_line, l.baseline_line
    FROM baselines b JOIN platforms p ON p.id = b.platform_id LEFT JOIN hosts h ON h.id = p.host_id
    CROSS JOIN LATERAL metric_lines(h.name, b.platform_id, p.name, b.suite, b.kernel, b.model, b.precision, b.size,
                                    b.last_fom, b.median) l
    WHERE b.last_fom IS NOT NULL AND (p_platform IS NULL OR b.platform_id = p_platform)
    ORDER BY b.platform_id, b.suite, b.kernel, b.model, b.precision, b.size, b.updated_at DESC, b.last_result_id DESC;
$$;
SELECT metric_series_rebuild(NULL);

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

-- judge_round (015) writing metric_series too, its z from judge_scale (021).
CREATE OR REPLACE FUNCTION judge_round(p_ids bigint[]) RETURNS void LANGUAGE plpgsql
    SET jit = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    s judge_settings;
    sus record;
BEGIN
    SELECT * INTO s FROM judge_settings;
    -- the baselines of the round, locked in key order (several writers on one key wait here, none deadlocks)
    PERFORM 1 FROM baselines b JOIN results r USING (platform_id, suite, kernel, model, variant, precision, size)
        WHERE r.id = ANY (p_ids)
        ORDER BY b.platform_id, b.suite, b.kernel, b.model, b.variant, b.precision, b.size FOR UPDATE OF b;

    WITH r0 AS MATERIALIZED (
        SELECT r.id, r.job_id, r.platform_id, r.suite, r.kernel, r.model, r.variant, r.precision, r.size,
               r.bandwidth AS x, judge_problem(r.suite, r.kernel, r.model, r.precision, r.size, r.variant) AS problem,
               p.name AS device, hs.name AS host, g.driver, g.compiler, g.version, g.fresh,
               CASE WHEN g.fresh THEN coalesce(p.name, '') ELSE b.device END AS segment_device,
               CASE WHEN g.fresh THEN r.id ELSE b.segment_from END AS segment_from,
               CASE WHEN g.fresh THEN now() ELSE b.segment_started END AS segment_started,
               CASE WHEN g.fresh THEN NULL ELSE b.suspect_result_id END AS suspect_result_id,
               wf.ids AS window_ids, wf.f, w.n, w.med,
               (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(f - w.med)) FROM unnest(wf.f) f) AS mad,
               fl.floor,
               -- its own baseline's figure when that counts among the peers below (to be left out of them)
               CASE WHEN b.device = coalesce(p.name, '') AND b.driver = g.driver THEN coalesce(b.median, b.last_fom)
                   END AS own
        FROM results r
        LEFT JOIN platforms p ON p.id = r.platform_id
        LEFT JOIN hosts hs ON hs.id = p.host_id
        LEFT JOIN baselines b USING (platform_id, suite, kernel, model, variant, precision, size)
        CROSS JOIN LATERAL (
            SELECT d.driver, d.compiler, d.version,
                   b.platform_id IS NULL OR (b.driver, b.compiler, b.version) IS DISTINCT FROM (d.driver, d.compiler, d.version)
                       AS fresh
            FROM (SELECT coalesce(r.provenance->>'cuda.driver_version', r.provenance->>'opencl.driver_version',
                                  r.provenance->>'driver', '') AS driver,
                         coalesce(r.provenance->>'compiler', '') AS compiler,
                         coalesce(r.provenance->>'ppbench.version', '') AS version) d) g
        -- the window: the baseline's (empty in a new segment)
        CROSS JOIN LATERAL (
            SELECT CASE WHEN g.fresh THEN '{}' ELSE b.window_ids END AS ids,
                   CASE WHEN g.fresh THEN '{}' ELSE b.window_figs END AS f) wf
        CROSS JOIN LATERAL (
            SELECT count(*)::integer AS n, percentile_cont(0.5) WITHIN GROUP (ORDER BY h) AS med
            FROM unnest(wf.f) h) w
        LEFT JOIN baseline_floors fl ON fl.device = p.name AND fl.suite = r.suite AND fl.kernel = r.kernel
                                    AND fl.precision = r.precision
        WHERE r.id = ANY (p_ids)),
    -- peers: the same problem on the same device model and driver across the fleet, their baselines' figures
    -- sorted, once per group of the round (a fleet of one model has hundreds)
    peers AS MATERIALIZED (
        SELECT pb.suite, pb.kernel, pb.model, pb.precision, pb.size, pb.variant, pb.device, pb.driver,
               array_agg(coalesce(pb.median, pb.last_fom) ORDER BY coalesce(pb.median, pb.last_fom)) AS a
        FROM (SELECT DISTINCT suite, kernel, model, precision, size, variant, coalesce(device, '') AS device, driver
              FROM r0) k
        JOIN baselines pb ON (pb.suite, pb.kernel, pb.model, pb.precision, pb.size, pb.variant, pb.device, pb.driver)
                           = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)
        WHERE coalesce(pb.median, pb.last_fom) IS NOT NULL
        GROUP BY 1, 2, 3, 4, 5, 6, 7, 8),
    -- each result's peers: the group without its own platform
    r1 AS MATERIALIZED (
        SELECT r0.*, CASE WHEN r0.own IS NULL THEN pe.a ELSE judge_drop(pe.a, r0.own) END AS pa
        FROM r0 LEFT JOIN peers pe
            ON (pe.suite, pe.kernel, pe.model, pe.precision, pe.size, pe.variant, pe.device, pe.driver)
             = (r0.suite, r0.kernel, r0.model, r0.precision, r0.size, r0.variant, coalesce(r0.device, ''), r0.driver)),
    r2 AS (
        SELECT r1.*, coalesce(cardinality(r1.pa), 0) AS pn, judge_sorted_median(r1.pa) AS pmed FROM r1),
    -- their MAD only where it can matter: a result above median x (1 - outlier_mads x min_band) is no outlier
    r AS MATERIALIZED (
        SELECT r2.*, CASE WHEN r2.x < r2.pmed * (1 - s.outlier_mads * s.min_band)
                          THEN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(f - r2.pmed)) FROM unnest(r2.pa) f)
                          END AS pmad
        FROM r2),
    z AS (
        SELECT r.*, CASE WHEN r.n >= s.min_results AND r.med > 0
                         THEN (r.x - r.med) / judge_scale(r.med, r.mad, s.min_band) END AS z
        FROM r),
    j AS (
        SELECT z.*,
               CASE WHEN z.floor IS NOT NULL AND z.x < z.floor THEN 'regressed'
                    WHEN z.z < -s.z_limit THEN 'regressed'
                    WHEN z.pn >= s.outlier_min_peers AND z.pmed > 0
                         AND z.x < z.pmed - s.outlier_mads * greatest(z.pmad, s.min_band * z.pmed) THEN 'outlier'
                    WHEN z.z > s.z_limit THEN 'improved'
                    ELSE 'ok' END AS verdict
        FROM z),
    d AS (
        SELECT j.*,
               CASE j.verdict
                   WHEN 'regressed' THEN CASE WHEN j.floor IS NOT NULL AND j.x < j.floor
                       THEN format('%s: %s GB/s, below the floor of %s GB/s set for %s', j.problem,
                                   round((j.x / 1e9)::numeric, 2), round((j.floor / 1e9)::numeric, 2), j.device)
                       ELSE format('%s: %s GB/s, %s%% below its baseline %s GB/s (z = %s; median of %s results since %s)',
                                   j.problem, round((j.x / 1e9)::numeric, 2), round((100 * (1 - j.x / j.med))::numeric, 1),
                                   round((j.med / 1e9)::numeric, 2), round(j.z::numeric, 1), j.n,
                                   to_char(j.segment_started AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')) END
                   WHEN 'outlier' THEN format('%s: %s GB/s, %s%% below the median %s GB/s of %s peers (%s, driver %s)',
                                              j.problem, round((j.x / 1e9)::numeric, 2),
                                              round((100 * (1 - j.x / j.pmed))::numeric, 1),
                                              round((j.pmed / 1e9)::numeric, 2), j.pn, j.device,
                                              coalesce(nullif(j.driver, ''), 'unknown'))
                   WHEN 'improved' THEN format('%s: %s GB/s, %s%% above its baseline %s GB/s (z = %s)', j.problem,
                                               round((j.x / 1e9)::numeric, 2),
                                               round((100 * (j.x / j.med - 1))::numeric, 1),
                                               round((j.med / 1e9)::numeric, 2), round(j.z::numeric, 1)) END
                   -- a second low result in a row confirms the first
                   || CASE WHEN j.verdict IN ('regressed', 'outlier') AND j.suspect_result_id IS NOT NULL
                           THEN format(' (confirmed by a repeat: results %s and %s)', j.suspect_result_id, j.id)
                           ELSE '' END AS reason,
               CASE WHEN j.verdict IN ('regressed', 'outlier') AND j.suspect_result_id IS NULL THEN j.id END AS suspect,
               -- a result judged ok or improved enters the window, the oldest leaves past K
               CASE WHEN j.verdict IN ('ok', 'improved')
                    THEN (j.window_ids || j.id)[greatest(1, j.n + 2 - s.window_k):]
                    ELSE j.window_ids END AS next_ids,
               CASE WHEN j.verdict IN ('ok', 'improved')
                    THEN (j.f || j.x)[greatest(1, j.n + 2 - s.window_k):]
                    ELSE j.f END AS next_figs
        FROM j),
    ins AS (
        INSERT INTO result_verdicts (result_id, platform_id, verdict, confirmed, z, baseline_median, baseline_mad,
                                     baseline_n, peers_median, peers_n, reason)
        SELECT d.id, d.platform_id, d.verdict, d.suspect IS NULL, d.z, d.med, d.mad, d.n,
               CASE WHEN d.verdict <> 'improved' THEN d.pmed END, CASE WHEN d.verdict <> 'improved' THEN d.pn END,
               d.reason
        FROM d WHERE d.verdict <> 'ok'),
    -- the figure and its baseline as /metrics serves them (metric_series)
    ms AS (
        INSERT INTO metric_series AS m (platform_id, suite, kernel, model, precision, size, updated_at, fom_line,
                                        baseline_line)
        SELECT DISTINCT ON (d.platform_id, d.suite, d.kernel, d.model, d.precision, d.size)
               d.platform_id, d.suite, d.kernel, d.model, d.precision, d.size, now(), l.fom_line, l.baseline_line
        FROM d CROSS JOIN LATERAL metric_lines(d.host, d.platform_id, d.device, d.suite, d.kernel, d.model,
                                                d.precision, d.size, d.x, d.med) l
        -- one row per series: of two variants judged in one round, the later
        ORDER BY d.platform_id, d.suite, d.kernel, d.model, d.precision, d.size, d.id DESC
        ON CONFLICT (platform_id, suite, kernel, model, precision, size) DO UPDATE SET
            updated_at = EXCLUDED.updated_at, fom_line = EXCLUDED.fom_line, baseline_line = EXCLUDED.baseline_line)
    INSERT INTO baselines AS o (platform_id, suite, kernel, model, variant, precision, size, device, driver,
                                compiler, version, segment_from, segment_started, n, median, mad, last_result_id,
                                last_fom, last_z, last_verdict, suspect_result_id, updated_at, window_ids, window_figs)
        SELECT d.platform_id, d.suite, d.kernel, d.model, d.variant, d.precision, d.size, d.segment_device,
               d.driver, d.compiler, d.version, d.segment_from, d.segment_started, d.n, d.med, d.mad, d.id, d.x,
               d.z, d.verdict, d.suspect, now(), d.next_ids, d.next_figs
        FROM d ORDER BY d.platform_id, d.suite, d.kernel, d.model, d.variant, d.precision, d.size
        ON CONFLICT (platform_id, suite, kernel, model, variant, precision, size) DO UPDATE SET
            device = EXCLUDED.device, driver = EXCLUDED.driver, compiler = EXCLUDED.compiler,
            version = EXCLUDED.version, segment_from = EXCLUDED.segment_from,
            segment_started = EXCLUDED.segment_started, n = EXCLUDED.n, median = EXCLUDED.median,
            mad = EXCLUDED.mad, last_result_id = EXCLUDED.last_result_id, last_fom = EXCLUDED.last_fom,
            last_z = EXCLUDED.last_z, last_verdict = EXCLUDED.last_verdict,
            suspect_result_id = EXCLUDED.suspect_result_id, updated_at = EXCLUDED.updated_at,
            window_ids = EXCLUDED.window_ids, window_figs = EXCLUDED.window_figs;

    -- a new suspect from a job: its job again on the same platform (judge_repeat, 012), in id order
    FOR sus IN SELECT rv.result_id, r.job_id FROM result_verdicts rv JOIN results r ON r.id = rv.result_id
               WHERE rv.result_id = ANY (p_ids) AND NOT rv.confirmed AND r.job_id IS NOT NULL ORDER BY rv.result_id
    LOOP
        UPDATE result_verdicts SET repeat_job_id = judge_repeat(sus.job_id) WHERE result_id = sus.result_id;
    END LOOP;
END
$$;


-- The database's part of GET /metrics (012's, the per-problem families from metric_series): jobs and workers
-- by state, platforms by health, per platform its health, and per platform and problem its last verified
-- figure and its baseline. Cardinality is bounded: the per-platform families keep at most p_limit series each
-- (the most recently measured platforms; the most recently judged problems), ppbench_metrics_series_dropped
-- says how many were left out.
CREATE OR REPLACE FUNCTION metrics_text(p_stale_s double precision, p_limit integer) RETURNS text LANGUAGE sql STABLE
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
