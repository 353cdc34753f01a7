-- 023_judge_report: judging a worker's report (one INSERT of 4 to 6 results) in less time (issue 16).
-- Measured with auto_explain (log_nested_statements) and track_functions on a fleet of 1,000 GPUs: of the
-- trigger's 2.0 ms per report, 1.05 ms went to the peers (each result's group: 250 baselines read one by one and
-- sorted), 0.2 ms to a hash of every platform (a generic plan's guess), the rest to a dozen small statements.
-- Here each peer group (problem, device model, driver) is one row of peer_groups holding its members' figures
-- sorted (a baseline's median, else its last figure) with their platforms, plus the changes since
-- (peer_changes: a judged baseline's new figure, or NULL when it leaves the group for a new segment's or is
-- deleted). A round reads each of its groups once, merged with its pending changes (peer_merge: a binary search
-- per change, no sort), and appends its own changes: an insert, which no other writer waits for. ppbenchd's
-- notifier folds the changes into the groups once a second (peer_groups_compact, one folder at a time), so a
-- group's row is rewritten once a second, not once a report (a row of a few hundred members is kilobytes).
-- What is judged stays 015's: a result's peers are its group's members as the round before left them, without
-- its own platform. Also: the platform's name and host by key, the suspects from the round's own statement
-- (no second look at result_verdicts), metric_series written in the same statement (022), baselines_peers
-- dropped and room left for HOT updates of baselines.

CREATE TABLE peer_groups (
    suite     text NOT NULL,
    kernel    text NOT NULL,
    model     text NOT NULL,
    precision text NOT NULL,
    size      bigint NOT NULL,
    variant   text NOT NULL,
    device    text NOT NULL,                 -- the baselines' device (the segment's platform name)
    driver    text NOT NULL,
    ids       text[] NOT NULL,               -- the members' platforms, in the order of figs
    figs      double precision[] NOT NULL,   -- their figures (bytes/s), ascending
    PRIMARY KEY (suite, kernel, model, precision, size, variant, device, driver)
);
-- Figures (bytes/s) of a group of some hundred members change one at a time: not compressed (pglz on every
-- write cost more than the rows it saves), kept in the row up to a page.
ALTER TABLE peer_groups ALTER ids SET STORAGE EXTERNAL, ALTER figs SET STORAGE EXTERNAL;
ALTER TABLE peer_groups SET (toast_tuple_target = 8160);

-- Changes not yet folded into peer_groups, in the order they were made.
CREATE TABLE peer_changes (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    suite       text NOT NULL,
    kernel      text NOT NULL,
    model       text NOT NULL,
    precision   text NOT NULL,
    size        bigint NOT NULL,
    variant     text NOT NULL,
    device      text NOT NULL,
    driver      text NOT NULL,
    platform_id text NOT NULL,
    fig         double precision          -- the member's figure, NULL: it leaves the group
);
CREATE INDEX peer_changes_group ON peer_changes (suite, kernel, model, precision, size, variant, device, driver, id);

-- A group's members (ids, figs sorted by fig) with members p_new_ids set to p_new_figs (NULL: taken out), in
-- that order (a later change of one member wins). A few changes one after the other: each leaves its place
-- (array_position) and enters at its figure's (width_bucket, a binary search in the sorted figures); more in one
-- pass (the members not changed and each changed member's last figure, sorted). Equal figures in any order.
CREATE FUNCTION peer_merge(p_ids text[], p_figs double precision[], p_new_ids text[], p_new_figs double precision[],
                           OUT ids text[], OUT figs double precision[]) LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    k integer;
BEGIN
    ids := coalesce(p_ids, '{}');
    figs := coalesce(p_figs, '{}');
    IF cardinality(p_new_ids) > 4 THEN
        SELECT coalesce(array_agg(u.id ORDER BY u.f), '{}'), coalesce(array_agg(u.f ORDER BY u.f), '{}') INTO ids, figs
        FROM (SELECT x.id, x.f FROM unnest(ids, figs) x (id, f) WHERE x.id <> ALL (p_new_ids)
              UNION ALL
              SELECT y.id, y.f FROM (SELECT DISTINCT ON (c.id) c.id, c.f FROM unnest(p_new_ids, p_new_figs)
                                     WITH ORDINALITY c (id, f, o) ORDER BY c.id, c.o DESC) y
              WHERE y.f IS NOT NULL) u;
        RETURN;
    END IF;
    FOR i IN 1 .. coalesce(cardinality(p_new_ids), 0) LOOP
        k := array_position(ids, p_new_ids[i]);
        IF k IS NOT NULL THEN
            ids := ids[:k - 1] || ids[k + 1:];
            figs := figs[:k - 1] || figs[k + 1:];
        END IF;
        IF p_new_figs[i] IS NOT NULL THEN
            k := width_bucket(p_new_figs[i], figs);
            ids := ids[:k] || p_new_ids[i] || ids[k + 1:];
            figs := figs[:k] || p_new_figs[i] || figs[k + 1:];
        END IF;
    END LOOP;
END
$$;

-- Judging reads no baseline by its group any more; a baseline is updated by every result of its problem: room
-- on each page for the new version (a HOT update touches no index).
DROP INDEX baselines_peers;
ALTER TABLE baselines SET (fillfactor = 70);


-- Every group again from the baselines (the migration, and writers of baselines other than judging: bench/).
CREATE FUNCTION peer_groups_rebuild() RETURNS void LANGUAGE sql AS $$
    SELECT pg_advisory_xact_lock(727073); -- not while the changes are folded (peer_groups_compact)
    DELETE FROM peer_changes;
    DELETE FROM peer_groups;
    INSERT INTO peer_groups (suite, kernel, model, precision, size, variant, device, driver, ids, figs)
    SELECT suite, kernel, model, precision, size, variant, device, driver,
           array_agg(platform_id ORDER BY coalesce(median, last_fom), platform_id),
           array_agg(coalesce(median, last_fom) ORDER BY coalesce(median, last_fom), platform_id)
    FROM baselines WHERE coalesce(median, last_fom) IS NOT NULL
    GROUP BY 1, 2, 3, 4, 5, 6, 7, 8;
$$;
SELECT peer_groups_rebuild();

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

-- Every group as judging sees it: its members as folded, with the changes pending since (for checks).
CREATE FUNCTION peer_groups_now() RETURNS TABLE (suite text, kernel text, model text, "precision" text, size bigint,
    variant text, device text, driver text, ids text[], figs double precision[]) LANGUAGE sql STABLE AS $$
    SELECT k.*, m.ids, m.figs
    FROM (SELECT g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver FROM peer_groups g
          UNION SELECT c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver FROM peer_changes c) k
    LEFT JOIN peer_groups pg ON (pg.suite, pg.kernel, pg.model, pg.precision, pg.size, pg.variant, pg.device, pg.driver)
                              = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)
    CROSS JOIN LATERAL (
        SELECT array_agg(c.platform_id ORDER BY c.id) AS ids, array_agg(c.fig ORDER BY c.id) AS figs FROM peer_changes c
        WHERE (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)
            = (k.suite, k.kernel, k.model, k.precision, k.size, k.variant, k.device, k.driver)) pc
    CROSS JOIN LATERAL peer_merge(pg.ids, pg.figs, pc.ids, pc.figs) m
$$;

-- The pending changes folded into their groups (ppbenchd's notifier, once a second): exactly the changes this
-- statement deletes; one folder at a time (an advisory lock: two would apply one platform's changes out of
-- order). A reader sees the groups before with every change, or after with the later ones. Returns the number
-- of changes folded, -1 when another folder holds the lock.
CREATE FUNCTION peer_groups_compact() RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
    v_n integer;
BEGIN
    IF NOT pg_try_advisory_xact_lock(727073) THEN
        RETURN -1;
    END IF;
    WITH c0 AS (DELETE FROM peer_changes RETURNING *),
    c AS (SELECT suite, kernel, model, precision, size, variant, device, driver,
                 array_agg(platform_id ORDER BY id) AS ids, array_agg(fig ORDER BY id) AS figs
          FROM c0 GROUP BY 1, 2, 3, 4, 5, 6, 7, 8),
    u AS (UPDATE peer_groups g SET (ids, figs) = (SELECT m.ids, m.figs FROM peer_merge(g.ids, g.figs, c.ids, c.figs) m)
          FROM c WHERE (g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver)
                     = (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)),
    i AS (INSERT INTO peer_groups (suite, kernel, model, precision, size, variant, device, driver, ids, figs)
          SELECT c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver, m.ids, m.figs
          FROM c CROSS JOIN LATERAL peer_merge(NULL, NULL, c.ids, c.figs) m
          WHERE NOT EXISTS (SELECT 1 FROM peer_groups g
                            WHERE (g.suite, g.kernel, g.model, g.precision, g.size, g.variant, g.device, g.driver)
                                = (c.suite, c.kernel, c.model, c.precision, c.size, c.variant, c.device, c.driver)))
    SELECT count(*) INTO v_n FROM c0;
    RETURN v_n;
END
$$;

-- Baselines deleted (a platform removed with its baselines): they leave their groups.
CREATE FUNCTION baselines_leave_peers() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO peer_changes (suite, kernel, model, precision, size, variant, device, driver, platform_id, fig)
        SELECT suite, kernel, model, precision, size, variant, device, driver, platform_id, NULL FROM old_rows
        WHERE coalesce(median, last_fom) IS NOT NULL ORDER BY platform_id;
    RETURN NULL;
END
$$;
CREATE TRIGGER baselines_leave_peers AFTER DELETE ON baselines REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION baselines_leave_peers();

-- judge_round (015): peers from peer_groups and kept there, metric_series (022) written, z from judge_scale (021).
CREATE OR REPLACE FUNCTION judge_round(p_ids bigint[]) RETURNS void LANGUAGE plpgsql
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


