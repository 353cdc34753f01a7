-- 015_judge_batch: judging set-based (issue 16). 012's row trigger judged each new result with a dozen
-- single-row statements; a statement that stored many results updated each baselines row once per result,
-- and every update left a row version that later lookups in the same transaction had to step over (3.3 ms per
-- result at 100,000 in one statement). The statement trigger here judges the statement's new rows in rounds:
-- round k takes the k-th new result of every (platform, problem), so the rows of one round never share a
-- baseline and each round is a few set-based statements over all of them; a worker's report (one row per
-- kernel) is one round. What a result is judged against is what 012 judged it against: its own window (the
-- last K verified, unflagged results of its segment before it, suspects and confirmed ones left out, the
-- earlier rows of the same statement included), the floor of its device model, its peers' baselines (as of
-- the round before: the peers' rows of the same statement and rank are judged beside it, not before it). The
-- platforms' health then follows the statement's results in id order: a platform that is ok and gets no
-- raise in one upsert, any other one result by result through health_raise and health_pass (012).
--
-- The window is kept in the baseline (window_ids, window_figs: the last K results that entered it, oldest
-- first), so judging reads no history from results: a result judged ok or improved enters its window, one
-- judged regressed or outlier (suspect or confirmed), failed or flagged does not. What would change a window
-- after the fact (a result deleted, excluded or otherwise updated; another window_k) rebuilds the windows
-- concerned from results with the query 012 judged with (judge_rewindow).

DROP TRIGGER results_verdict ON results;
DROP FUNCTION results_verdict();

ALTER TABLE baselines ADD COLUMN window_ids bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN window_figs double precision[] NOT NULL DEFAULT '{}';

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
SELECT judge_rewindow(NULL);

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

-- One round: the verified, unflagged results p_ids, no two of the same platform and problem. Each is judged
-- against its window, floor and peers (a first result, or a change of driver, compiler or ppbench version,
-- starts a new segment from it: an empty window), its verdict recorded, its baseline moved on in one upsert,
-- and a new suspect that came from a job gets its repeat.
CREATE FUNCTION judge_round(p_ids bigint[]) RETURNS void LANGUAGE plpgsql
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
               p.name AS device, g.driver, g.compiler, g.version, g.fresh,
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
                         THEN (r.x - r.med) / greatest(1.4826 * r.mad, s.min_band * r.med, 1e-300) END AS z
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
        FROM d WHERE d.verdict <> 'ok')
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

-- A result that changes nothing but says the platform was measured (a flagged one, or a pass while ok).
CREATE FUNCTION health_touch(p_platform text, p_result bigint) RETURNS void LANGUAGE sql AS $$
    INSERT INTO platform_health (platform_id, state, last_result_id) VALUES (p_platform, 'ok', p_result)
        ON CONFLICT (platform_id) DO UPDATE SET last_result_id = EXCLUDED.last_result_id, last_result_at = now()
$$;

-- What one stored result says about its platform's health (results_judge_rows).
CREATE TYPE judge_event AS (id bigint, platform_id text, kind text, state text, reason text, problem text);

-- Judging the results one INSERT stored (any path: a worker's report, an import, SQL, COPY).
CREATE FUNCTION results_judge_rows() RETURNS trigger LANGUAGE plpgsql SET jit = off AS $$
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
        FROM new_rows n WHERE NOT n.verified;
    -- the figures, in rounds (noisy or above the ceiling: no figure to judge)
    FOR v_ids IN
        SELECT array_agg(k.id ORDER BY k.id)
        FROM (SELECT n.id, row_number() OVER (PARTITION BY n.platform_id, n.suite, n.kernel, n.model, n.variant,
                                                            n.precision, n.size ORDER BY n.id) AS rank
              FROM new_rows n WHERE n.verified AND n.flags = '{}') k
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
          FROM new_rows n LEFT JOIN result_verdicts v ON v.result_id = n.id) x (id, platform_id, kind, state, reason, problem)
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
    RETURN NULL;
END
$$;
CREATE TRIGGER results_judge_rows AFTER INSERT ON results REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION results_judge_rows();
