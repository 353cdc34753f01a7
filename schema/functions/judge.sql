-- judge: fleet health's judging (docs/ARCHITECTURE.md, issue 16). Every stored result is queued (judge_queue,
-- a statement trigger) and ppbenchd's notifier judges the queue in id order in batches (judge_pending), each
-- batch in rounds (judge_rows, judge_round): a result is judged against its platform's baseline (the median and
-- MAD of the last window_k verified, unflagged results of its segment, kept in the baseline's window so that
-- judging reads no history), its device model's floor and its peers (same device model and driver,
-- peer_groups). A suspect is confirmed by its automatic repeat before the platform needs attention. What would
-- change a window after the fact (a result deleted or excluded, another window_k) rebuilds the windows concerned
-- (judge_rewindow).

-- What one stored result says about its platform's health (results_judge_rows).
CREATE TYPE judge_event AS (id bigint, platform_id text, kind text, state text, reason text, problem text);

-- The windows of the baselines of platform p_platform (NULL: every platform) and, when given, only those of
-- problem p_suite.p_kernel model p_model precision p_precision size p_size variant p_variant: the last
-- window_k verified, unflagged results of the segment, those judged regressed or outlier left out.
CREATE FUNCTION judge_rewindow(p_platform text, p_suite text DEFAULT NULL, p_kernel text DEFAULT NULL,
                               p_model text DEFAULT NULL, p_precision text DEFAULT NULL, p_size bigint DEFAULT NULL,
                               p_variant text DEFAULT NULL) RETURNS void LANGUAGE sql AS $$
    UPDATE baselines k SET (window_ids, window_figs) = (
        SELECT coalesce(array_agg(h.id ORDER BY h.id), '{}'), coalesce(array_agg(h.bandwidth ORDER BY h.id), '{}')
        FROM (SELECT q.id, q.bandwidth FROM results q
              WHERE q.suite = k.suite AND q.kernel = k.kernel AND q.platform_id = k.platform_id
                AND q.model = k.model AND q.precision = k.precision AND q.size = k.size AND q.variant = k.variant
                AND q.id >= k.segment_from AND q.verified AND q.flags = '{}'
                AND NOT EXISTS (SELECT 1 FROM result_verdicts v WHERE v.result_id = q.id
                                AND v.verdict IN ('regressed', 'outlier'))
              ORDER BY q.id DESC LIMIT (SELECT window_k FROM judge_settings)) h)
    WHERE (p_platform IS NULL OR k.platform_id = p_platform) AND (p_suite IS NULL OR k.suite = p_suite)
      AND (p_kernel IS NULL OR k.kernel = p_kernel) AND (p_model IS NULL OR k.model = p_model)
      AND (p_precision IS NULL OR k.precision = p_precision) AND (p_size IS NULL OR k.size = p_size)
      AND (p_variant IS NULL OR k.variant = p_variant)
$$;

-- Results deleted or updated (an admin's exclusion, a deletion): the windows of their problems again.
CREATE FUNCTION results_rewindow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM judge_rewindow(o.platform_id, o.suite, o.kernel, o.model, o.precision, o.size, o.variant)
    FROM (SELECT DISTINCT platform_id, suite, kernel, model, precision, size, variant FROM old_rows) o;
    RETURN NULL;
END
$$;

CREATE TRIGGER results_rewindow_update AFTER UPDATE ON results REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION results_rewindow();

CREATE TRIGGER results_rewindow_delete AFTER DELETE ON results REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION results_rewindow();

-- Another window size: every window again.
CREATE FUNCTION judge_settings_rewindow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM judge_rewindow(NULL);
    RETURN NULL;
END
$$;

CREATE TRIGGER judge_settings_rewindow AFTER UPDATE OF window_k ON judge_settings
    FOR EACH ROW WHEN (OLD.window_k IS DISTINCT FROM NEW.window_k) EXECUTE FUNCTION judge_settings_rewindow();

-- A problem as reasons name it: "stream.triad cuda fp64 size 33554432[ variant v]".
CREATE FUNCTION judge_problem(p_suite text, p_kernel text, p_model text, p_precision text, p_size bigint,
                              p_variant text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT format('%s.%s %s %s size %s', p_suite, p_kernel, p_model, p_precision, p_size)
           || CASE WHEN p_variant <> '' THEN ' variant ' || p_variant ELSE '' END
$$;

-- The median of a sorted array (percentile_cont(0.5)'s arithmetic), and the array without one element v.
CREATE FUNCTION judge_sorted_median(a double precision[]) RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT a[1 + (cardinality(a) - 1) / 2]
           + (a[1 + cardinality(a) / 2] - a[1 + (cardinality(a) - 1) / 2]) * (CASE WHEN cardinality(a) % 2 = 0 THEN 0.5 ELSE 0 END)
$$;

CREATE FUNCTION judge_drop(a double precision[], v double precision) RETURNS double precision[] LANGUAGE sql
    IMMUTABLE AS $$
    SELECT a[:array_position(a, v) - 1] || a[array_position(a, v) + 1:]
$$;

-- One round of judging (judge_rows): results of distinct (platform, problem), each judged against its own
-- window, its device model's floor and its peers (peer_groups, kept there), with z from judge_scale; the
-- baselines, windows, verdicts and metric_series written, suspects repeated, the platforms' health updated.
CREATE FUNCTION judge_round(p_ids bigint[]) RETURNS void LANGUAGE plpgsql
    SET jit = off SET plan_cache_mode = force_generic_plan AS $$
DECLARE
    s judge_settings;
    v_sus bigint[];
    v_job bigint;
BEGIN
    SELECT * INTO s FROM judge_settings;
    -- the baselines of the round, locked in key order (several writers on one key wait here, none deadlocks)
    PERFORM 1 FROM baselines b JOIN results r USING (platform_id, suite, kernel, model, variant, precision, size)
        WHERE r.id = ANY (p_ids)
        ORDER BY b.platform_id, b.suite, b.kernel, b.model, b.variant, b.precision, b.size FOR UPDATE OF b;

    WITH r0 AS MATERIALIZED (
        SELECT r.id, r.job_id, r.platform_id, r.suite, r.kernel, r.model, r.variant, r.precision, r.size,
               r.bandwidth AS x, judge_problem(r.suite, r.kernel, r.model, r.precision, r.size, r.variant) AS problem,
               p.name AS device, p.host AS host, g.driver, g.compiler, g.version, g.fresh,
               -- the peer group its baseline was in (to leave when a new segment puts it in another)
               CASE WHEN coalesce(b.median, b.last_fom) IS NOT NULL THEN b.device END AS old_device, b.driver AS old_driver,
               CASE WHEN g.fresh THEN coalesce(p.name, '') ELSE b.device END AS segment_device,
               CASE WHEN g.fresh THEN r.id ELSE b.segment_from END AS segment_from,
               CASE WHEN g.fresh THEN now() ELSE b.segment_started END AS segment_started,
               CASE WHEN g.fresh THEN NULL ELSE b.suspect_result_id END AS suspect_result_id,
               wf.ids AS window_ids, wf.f, w.n, w.med,
               (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(f - w.med)) FROM unnest(wf.f) f) AS mad,
               fl.floor
        FROM results r
        -- the platform's name and host looked up by key (a generic plan hashed every platform)
        LEFT JOIN LATERAL (SELECT p.name, h.name AS host FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id
                           WHERE p.id = r.platform_id OFFSET 0) p ON true
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
    -- kept sorted in peer_groups (one row per group: a fleet of one model has hundreds), without its own
    -- each group of the round once: its members as folded, with the changes pending since
    grp AS MATERIALIZED (
        SELECT k.*, m.ids, m.figs
        FROM (SELECT DISTINCT suite, kernel, model, precision, size, variant, coalesce(device, '') AS device, driver
              FROM r0) k
        LEFT JOIN peer_groups pg ON (pg.suite, pg.kernel, pg.model, pg.precision, pg.size, pg.variant, pg.device, pg.driver)
                                  = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)
        CROSS JOIN LATERAL (
            SELECT array_agg(c.platform_id ORDER BY c.id) AS ids, array_agg(c.fig ORDER BY c.id) AS figs
            FROM peer_changes c
            WHERE (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)
                = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)) pc
        CROSS JOIN LATERAL peer_merge(pg.ids, pg.figs, pc.ids, pc.figs) m),
    r1 AS MATERIALIZED (
        SELECT r0.*, pe.figs AS ga, o.pos
        FROM r0 LEFT JOIN grp pe
            ON (pe.suite, pe.kernel, pe.model, pe.precision, pe.size, pe.variant, pe.device, pe.driver)
             = (r0.suite, r0.kernel, r0.model, r0.precision, r0.size, r0.variant, coalesce(r0.device, ''), r0.driver)
        CROSS JOIN LATERAL (SELECT array_position(pe.ids, r0.platform_id) AS pos) o),
    r2 AS (
        SELECT r1.*, coalesce(cardinality(r1.ga), 0) - (r1.pos IS NOT NULL)::integer AS pn,
               judge_median_without(r1.ga, r1.pos) AS pmed
        FROM r1),
    -- their MAD only where it can matter: a result above median x (1 - outlier_mads x min_band) is no outlier
    r AS MATERIALIZED (
        SELECT r2.*, CASE WHEN r2.x < r2.pmed * (1 - s.outlier_mads * s.min_band)
                          THEN (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY abs(f - r2.pmed))
                                FROM unnest(r2.ga) WITH ORDINALITY u (f, i) WHERE r2.pos IS DISTINCT FROM u.i)
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
               d.platform_id, d.suite, d.kernel, d.model, d.precision, d.size, now(),
               metric_line('ppbench_result_bytes_per_second', l.labels, d.x),
               metric_line('ppbench_baseline_bytes_per_second', l.labels, d.med)
        FROM d CROSS JOIN LATERAL (SELECT metric_labels(d.host, d.platform_id, d.device, d.suite, d.kernel, d.model,
                                                        d.precision, d.size) AS labels) l
        -- one row per series: of two variants judged in one round, the later
        ORDER BY d.platform_id, d.suite, d.kernel, d.model, d.precision, d.size, d.id DESC
        ON CONFLICT (platform_id, suite, kernel, model, precision, size) DO UPDATE SET
            updated_at = EXCLUDED.updated_at, fom_line = EXCLUDED.fom_line, baseline_line = EXCLUDED.baseline_line),
    -- each baseline's new figure (its median, else its last figure) for its peer group, and its leaving the old
    -- group when a new segment put it in another
    pgc AS (
        INSERT INTO peer_changes (suite, kernel, model, precision, size, variant, device, driver, platform_id, fig)
        SELECT x.suite, x.kernel, x.model, x.precision, x.size, x.variant, x.device, x.driver, x.platform_id, x.fig
        FROM (
            SELECT d.id, 1 AS o, d.suite, d.kernel, d.model, d.precision, d.size, d.variant, d.old_device, d.old_driver,
                   d.platform_id, NULL::double precision
            FROM d WHERE d.old_device IS NOT NULL AND (d.old_device, d.old_driver) IS DISTINCT FROM (d.segment_device, d.driver)
            UNION ALL
            SELECT d.id, 2, d.suite, d.kernel, d.model, d.precision, d.size, d.variant, d.segment_device, d.driver,
                   d.platform_id, coalesce(d.med, d.x)
            FROM d) x (id, o, suite, kernel, model, precision, size, variant, device, driver, platform_id, fig)
        ORDER BY x.id, x.o),
    bl AS (
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
            window_ids = EXCLUDED.window_ids, window_figs = EXCLUDED.window_figs)
    -- what is left to do: the new suspects of jobs
    SELECT array_agg(d.id ORDER BY d.id) FILTER (WHERE d.suspect IS NOT NULL AND d.job_id IS NOT NULL) INTO v_sus
    FROM d;

    -- a new suspect from a job: its job again on the same platform (judge_repeat, 012), in id order
    IF v_sus IS NOT NULL THEN
        FOR i IN 1 .. cardinality(v_sus) LOOP
            SELECT job_id INTO v_job FROM results WHERE id = v_sus[i];
            UPDATE result_verdicts SET repeat_job_id = judge_repeat(v_job) WHERE result_id = v_sus[i];
        END LOOP;
    END IF;
END
$$;

-- Any path that stores results (a worker's report, SQL, COPY) queues them; imports are not judged: a table of
-- figures measured elsewhere, with no samples, neither raises, confirms nor clears a platform's health (issue 26:
-- six imported rows made a worker's platform "regressed" and drained its node).
CREATE FUNCTION results_judge_rows() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO judge_queue (result_id) SELECT n.id FROM new_rows n WHERE n.origin IS DISTINCT FROM 'import';
    PERFORM pg_notify('ppbench_judge', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER results_judge_rows AFTER INSERT ON results REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION results_judge_rows();

CREATE FUNCTION judge_scale(p_median double precision, p_mad double precision, p_min_band double precision)
    RETURNS double precision LANGUAGE sql IMMUTABLE AS $$
    SELECT greatest(1.4826 * p_mad, p_min_band * p_median, 1e-300)
$$;

-- [low, high] in bytes/s, or NULL when the baseline judges nothing yet (too few results, no median).
CREATE FUNCTION judge_band(p_median double precision, p_mad double precision, p_n integer)
    RETURNS double precision[] LANGUAGE sql STABLE AS $$
    SELECT ARRAY[p_median - s.z_limit * judge_scale(p_median, p_mad, s.min_band),
                 p_median + s.z_limit * judge_scale(p_median, p_mad, s.min_band)]
    FROM judge_settings s WHERE p_n >= s.min_results AND p_median > 0 AND p_mad IS NOT NULL
$$;

-- The median of sorted array a without its element at p (NULL: none left out), judge_sorted_median's arithmetic
-- on the positions that remain: no copy of the array.
CREATE FUNCTION judge_median_without(a double precision[], p integer) RETURNS double precision LANGUAGE sql
    IMMUTABLE AS $$
    SELECT a[i1 + (p IS NOT NULL AND i1 >= p)::integer]
           + (a[i2 + (p IS NOT NULL AND i2 >= p)::integer] - a[i1 + (p IS NOT NULL AND i1 >= p)::integer])
             * (CASE WHEN n % 2 = 0 THEN 0.5 ELSE 0 END)
    FROM (SELECT n, 1 + (n - 1) / 2 AS i1, 1 + n / 2 AS i2
          FROM (SELECT cardinality(a) - (p IS NOT NULL)::integer AS n) x) y
    WHERE n > 0
$$;

-- Judges the results p_ids in rounds: round k takes the k-th of every (platform, problem), so the rows of one
-- round never share a baseline; then the platforms' health follows the results in id order.
CREATE FUNCTION judge_rows(p_ids bigint[]) RETURNS void LANGUAGE plpgsql SET jit = off AS $$
DECLARE
    v_ids bigint[];
    v_events judge_event[];
    v_done text[];
    ev judge_event;
BEGIN
    -- failed verifications: the verdict at once
    INSERT INTO result_verdicts (result_id, platform_id, verdict, confirmed, reason)
        SELECT n.id, n.platform_id, 'verification_failed', true,
               format('verification failed on %s: %s',
                      judge_problem(n.suite, n.kernel, n.model, n.precision, n.size, n.variant),
                      coalesce(n.error, 'no reason given'))
        FROM results n WHERE n.id = ANY (p_ids) AND NOT n.verified;
    -- the figures, in rounds (noisy or above the ceiling: no figure to judge)
    FOR v_ids IN
        SELECT array_agg(k.id ORDER BY k.id)
        FROM (SELECT n.id, row_number() OVER (PARTITION BY n.platform_id, n.suite, n.kernel, n.model, n.variant,
                                                            n.precision, n.size ORDER BY n.id) AS rank
              FROM results n WHERE n.id = ANY (p_ids) AND n.verified AND n.flags = '{}') k
        GROUP BY k.rank ORDER BY k.rank
    LOOP
        PERFORM judge_round(v_ids);
    END LOOP;

    -- health, in id order per platform. What each result says: a failed verification or a confirmed verdict
    -- raises; a suspect says nothing yet; anything else passes its problem (a flagged one only touches).
    SELECT array_agg((x.id, x.platform_id, x.kind, x.state, x.reason, x.problem)::judge_event ORDER BY x.id)
        INTO v_events
    FROM (SELECT n.id, n.platform_id,
                 CASE WHEN NOT n.verified OR v.confirmed AND v.verdict IN ('regressed', 'outlier') THEN 'raise'
                      WHEN v.verdict IN ('regressed', 'outlier') THEN NULL
                      WHEN n.flags <> '{}' THEN 'touch' ELSE 'pass' END,
                 v.verdict, v.reason, judge_problem(n.suite, n.kernel, n.model, n.precision, n.size, n.variant)
          FROM results n LEFT JOIN result_verdicts v ON v.result_id = n.id
          WHERE n.id = ANY (p_ids)) x (id, platform_id, kind, state, reason, problem)
    WHERE x.kind IS NOT NULL;
    -- a platform that is ok and gets no raise: only its last result moves (what health_pass and health_touch
    -- do for an ok platform), in one upsert that leaves any other platform alone
    WITH up AS (
        INSERT INTO platform_health AS h (platform_id, state, last_result_id)
            SELECT e.platform_id, 'ok', max(e.id) FROM unnest(v_events) e
            GROUP BY e.platform_id HAVING NOT bool_or(e.kind = 'raise')
            ORDER BY e.platform_id
            ON CONFLICT (platform_id) DO UPDATE SET last_result_id = EXCLUDED.last_result_id, last_result_at = now()
            WHERE h.state = 'ok'
            RETURNING h.platform_id)
    SELECT array_agg(platform_id) INTO v_done FROM up;
    -- any other platform: result by result
    FOR ev IN SELECT x.* FROM unnest(v_events) x WHERE x.platform_id NOT IN (SELECT unnest(v_done)) ORDER BY x.id
    LOOP
        IF ev.kind = 'raise' THEN
            PERFORM health_raise(ev.platform_id, ev.state, ev.reason, ev.id, ev.problem);
        ELSIF ev.kind = 'pass' THEN
            PERFORM health_pass(ev.platform_id, ev.problem, ev.id);
        ELSE
            PERFORM health_touch(ev.platform_id, ev.id);
        END IF;
    END LOOP;
END
$$;

-- Judges the oldest p_limit queued results (NULL: the whole queue); returns how many it took. The batch is
-- taken as a range of ids and planned at each call: ppbenchd's notifier calls this every second, mostly on an
-- empty queue, and with a first form (DELETE ... WHERE id IN (the first p_limit ids)) planned once for its
-- connection a batch of 2,000 took 1-7 s in the server's connection against 0.2 s from a fresh one
-- (bench/scale.sh 112000: a night of 28,000 results stored in statements of 980 was judged 15-20 s after it
-- was stored; with this form 1.7 s, and a night of reports 4.5 s after its first instead of 10-11 s).
CREATE FUNCTION judge_pending(p_limit integer DEFAULT NULL) RETURNS integer LANGUAGE plpgsql
    SET jit = off SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    v_last bigint;
    v_ids bigint[];
BEGIN
    PERFORM pg_advisory_xact_lock(hashtext('ppbench judge'));
    SELECT max(result_id) INTO v_last
    FROM (SELECT result_id FROM judge_queue ORDER BY result_id LIMIT p_limit) q;
    IF v_last IS NULL THEN
        RETURN 0;
    END IF;
    WITH taken AS (DELETE FROM judge_queue q WHERE q.result_id <= v_last RETURNING q.result_id)
    SELECT array_agg(result_id ORDER BY result_id) INTO v_ids FROM taken;
    IF v_ids IS NULL THEN
        RETURN 0;
    END IF;
    PERFORM judge_rows(v_ids);
    RETURN cardinality(v_ids);
END
$$;
