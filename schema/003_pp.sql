-- 003_pp: performance portability (paper 003) in one place: the figure of merit, architectural and application
-- efficiency, PP over a platform set (GET /api/v1/pp) and the P3 analysis library's columns (GET
-- /api/v1/results?format=p3); and what imported BabelStream CSV rows need (POST /api/v1/import/babelstream).
-- The definitions are written down in docs/METHODOLOGY.md, "Performance portability".

-- Imported rows carry BabelStream's summary (min, max, average) but not the times of each iteration, their
-- median or their deviation; rows from workers keep every figure.
ALTER TABLE results
    ALTER COLUMN times_s DROP NOT NULL,
    ALTER COLUMN median_s DROP NOT NULL,
    ALTER COLUMN stddev_s DROP NOT NULL,
    ADD COLUMN origin text NOT NULL DEFAULT 'worker' CHECK (origin IN ('worker', 'import'));
ALTER TABLE results ADD CONSTRAINT results_worker_rows_complete
    CHECK (origin = 'import' OR (times_s IS NOT NULL AND median_s IS NOT NULL AND stddev_s IS NOT NULL));

-- The verified results of one problem, by platform and model, best first: what every PP question walks (a
-- skip scan over platforms and models, then the best run of each, see pp_best).
CREATE INDEX results_pp ON results (suite, kernel, precision, size, platform_id, model, bandwidth DESC, id)
    INCLUDE (variant) WHERE verified;

-- How many verified results each problem has at each size, kept by statement triggers, so that the default
-- size of a PP question (the size with the most verified results) is one row away however many results there
-- are. A statement that fails rolls its counts back with it.
CREATE TABLE pp_problem_sizes (
    suite       text NOT NULL,
    kernel      text NOT NULL,
    precision   text NOT NULL,
    size        bigint NOT NULL,
    verified    bigint NOT NULL CHECK (verified >= 0),
    PRIMARY KEY (suite, kernel, precision, size)
);
INSERT INTO pp_problem_sizes SELECT suite, kernel, precision, size, count(*) FROM results WHERE verified
    GROUP BY suite, kernel, precision, size;

CREATE FUNCTION pp_problem_sizes_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE pp_problem_sizes c SET verified = c.verified - o.n
        FROM (SELECT suite, kernel, precision, size, count(*) AS n FROM old_rows WHERE verified
              GROUP BY suite, kernel, precision, size) o
        WHERE (c.suite, c.kernel, c.precision, c.size) = (o.suite, o.kernel, o.precision, o.size);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO pp_problem_sizes AS c (suite, kernel, precision, size, verified)
            SELECT suite, kernel, precision, size, count(*) FROM new_rows WHERE verified
            GROUP BY suite, kernel, precision, size
            ORDER BY suite, kernel, precision, size
            ON CONFLICT (suite, kernel, precision, size) DO UPDATE SET verified = c.verified + EXCLUDED.verified;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER results_pp_sizes_insert AFTER INSERT ON results REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pp_problem_sizes_count();
CREATE TRIGGER results_pp_sizes_update AFTER UPDATE ON results
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pp_problem_sizes_count();
CREATE TRIGGER results_pp_sizes_delete AFTER DELETE ON results REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pp_problem_sizes_count();

-- The figure of merit of a STREAM result is its bandwidth (bytes/s, from the minimum time); only verified
-- results have one. Every efficiency below reads this view.
CREATE VIEW pp_fom AS
    SELECT id, platform_id, suite, kernel, precision, size, model, variant, bandwidth AS fom, created_at
    FROM results WHERE verified;

-- The result document gains its origin; an imported row has no per-iteration times.
CREATE OR REPLACE FUNCTION result_doc(r results) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', r.id, 'job_id', r.job_id, 'platform', r.platform_id, 'suite', r.suite, 'kernel', r.kernel,
        'model', r.model, 'variant', r.variant, 'precision', r.precision, 'size', r.size,
        'bytes', r.bytes, 'flops', r.flops, 'times_s', to_jsonb(r.times_s),
        'stats_s', jsonb_build_object('min', r.min_s, 'max', r.max_s, 'mean', r.mean_s, 'median', r.median_s,
                                      'stddev', r.stddev_s, 'count',
                                      CASE WHEN r.times_s IS NULL THEN (r.provenance->>'num_times')::int - 1
                                      ELSE cardinality(r.times_s) - 1 END),
        'bandwidth_bytes_per_s', r.bandwidth, 'gflops', r.gflops, 'verified', r.verified, 'error', r.error,
        'origin', r.origin, 'provenance', r.provenance, 'created_at', r.created_at);
END
$$;

-- The best verified run of each application on each platform for one problem: one row per platform and model
-- with a verified result there. result_id, variant, fom and created_at are the application's best run under
-- the variant policy (p_variant NULL: any variant; else only that variant, NULL when the model never ran it
-- there); platform_best is the best fom on the platform by any model or variant (application efficiency's
-- denominator). p_platforms NULL: every platform with a verified result for the problem. Several runs count
-- by their best; ties go to the earliest result. It walks results_pp only: a skip scan over platforms and
-- the models on each, then one index probe per platform and model, so its cost follows the number of
-- platforms and models, not of results. JIT and parallel workers are off: with constants folded in, the
-- planner's estimate for the fixed-variant probe crossed jit_above_cost and JIT compilation alone cost
-- 350-500 ms of a 10 ms query (measured with 1,000,000 results).
CREATE FUNCTION pp_best(p_suite text, p_kernel text, p_precision text, p_size bigint, p_platforms text[],
                        p_variant text)
    RETURNS TABLE (platform_id text, model text, result_id bigint, variant text, fom double precision,
                   created_at timestamptz, platform_best double precision)
    LANGUAGE plpgsql STABLE SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
BEGIN
    RETURN QUERY
    WITH RECURSIVE ps AS (
        (SELECT f.platform_id FROM pp_fom f
         WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.size = p_size
           AND p_platforms IS NULL
         ORDER BY f.platform_id LIMIT 1)
        UNION ALL
        SELECT (SELECT f.platform_id FROM pp_fom f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.size = p_size
                  AND f.platform_id > ps.platform_id
                ORDER BY f.platform_id LIMIT 1)
        FROM ps WHERE ps.platform_id IS NOT NULL),
    h AS (
        SELECT DISTINCT x AS platform_id FROM unnest(p_platforms) x
        UNION ALL
        SELECT ps.platform_id FROM ps WHERE ps.platform_id IS NOT NULL),
    pm AS (
        SELECT h.platform_id,
               (SELECT f.model FROM pp_fom f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.size = p_size
                  AND f.platform_id = h.platform_id
                ORDER BY f.model LIMIT 1) AS model
        FROM h
        UNION ALL
        SELECT pm.platform_id,
               (SELECT f.model FROM pp_fom f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.size = p_size
                  AND f.platform_id = pm.platform_id AND f.model > pm.model
                ORDER BY f.model LIMIT 1)
        FROM pm WHERE pm.model IS NOT NULL),
    top AS (
        SELECT pm.platform_id, pm.model, b.id, b.variant, b.fom, b.created_at FROM pm
        CROSS JOIN LATERAL (
            SELECT f.id, f.variant, f.fom, f.created_at FROM pp_fom f
            WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.size = p_size
              AND f.platform_id = pm.platform_id AND f.model = pm.model
            ORDER BY f.fom DESC, f.id LIMIT 1) b
        WHERE pm.model IS NOT NULL)
    SELECT t.platform_id, t.model,
           CASE WHEN p_variant IS NULL THEN t.id ELSE v.id END,
           CASE WHEN p_variant IS NULL THEN t.variant ELSE v.variant END,
           CASE WHEN p_variant IS NULL THEN t.fom ELSE v.fom END,
           CASE WHEN p_variant IS NULL THEN t.created_at ELSE v.created_at END,
           max(t.fom) OVER (PARTITION BY t.platform_id)
    FROM top t
    LEFT JOIN LATERAL (
        SELECT f.id, f.variant, f.fom, f.created_at FROM pp_fom f
        WHERE p_variant IS NOT NULL AND f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
          AND f.size = p_size AND f.platform_id = t.platform_id AND f.model = t.model AND f.variant = p_variant
        ORDER BY f.fom DESC, f.id LIMIT 1) v ON true;
END
$$;

-- The document of GET /api/v1/pp (docs/API.md), or {"error": {code, field, message}} for the handler to
-- send. Arguments are checked by the handler; p_size NULL picks the size with the most verified results;
-- p_platforms NULL means every platform with a verified result for the problem; p_variant is NULL for the
-- best variant per platform, else the one variant every platform must have run.
--
--   fom(a, i)   the best verified fom of application a on platform i (over its runs, and over its variants
--               under the best-variant policy)
--   app  e_i    fom(a, i) / the best verified fom on platform i by any model or variant
--   arch e_i    fom(a, i) / the theoretical peak of platform i (undefined where the peak is unknown)
--   PP          |H| / sum over i in H of 1 / e_i; 0 when a has no verified result on some platform of H;
--               NULL (with a note) when some e_i is undefined
CREATE FUNCTION pp_doc(p_suite text, p_kernel text, p_precision text, p_size bigint, p_platforms text[],
                       p_efficiency text, p_variant text) RETURNS jsonb LANGUAGE plpgsql STABLE
    SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
DECLARE
    v_size bigint := p_size;
    v_size_note text;
    v_unknown text;
    v_doc jsonb;
BEGIN
    SELECT x INTO v_unknown FROM unnest(p_platforms) x
        WHERE NOT EXISTS (SELECT 1 FROM platforms p WHERE p.id = x) LIMIT 1;
    IF v_unknown IS NOT NULL THEN
        RETURN jsonb_build_object('error', jsonb_build_object('code', 'unknown_platform', 'field', 'platforms',
            'message', format('unknown platform "%s"', v_unknown)));
    END IF;
    IF v_size IS NULL THEN
        SELECT s.size, format('the size with the most verified results: %s of %s', s.verified, s.total)
            INTO v_size, v_size_note
            FROM (SELECT c.size, c.verified, sum(c.verified) OVER () AS total FROM pp_problem_sizes c
                  WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
                    AND c.verified > 0) s
            ORDER BY s.verified DESC, s.size DESC LIMIT 1;
    END IF;

    WITH t AS (SELECT * FROM pp_best(p_suite, p_kernel, p_precision, v_size, p_platforms, p_variant)),
    h AS (
        SELECT p.id, p.name, p.kind, p.peak_bandwidth, p.peak_source FROM platforms p
        WHERE p.id = ANY (coalesce(p_platforms, ARRAY(SELECT DISTINCT platform_id FROM t)))),
    best AS (SELECT DISTINCT platform_id, platform_best AS fom FROM t),
    app AS (SELECT platform_id, model, result_id AS id, variant, fom FROM t WHERE result_id IS NOT NULL),
    cell AS (
        SELECT m.model, h.id AS platform, a.id AS result_id, a.variant, a.fom,
               CASE WHEN a.id IS NULL THEN NULL
                    WHEN p_efficiency = 'app' THEN CASE WHEN b.fom > 0 THEN a.fom / b.fom ELSE 0 END
                    ELSE a.fom / h.peak_bandwidth END AS e
        FROM (SELECT DISTINCT model FROM app) m CROSS JOIN h
        LEFT JOIN app a ON a.model = m.model AND a.platform_id = h.id
        LEFT JOIN best b ON b.platform_id = h.id),
    per_app AS (
        SELECT c.model,
               string_agg(c.platform, ', ' ORDER BY c.platform) FILTER (WHERE c.result_id IS NULL) AS missing,
               string_agg(c.platform, ', ' ORDER BY c.platform)
                   FILTER (WHERE c.result_id IS NOT NULL AND c.e IS NULL) AS undefined,
               bool_or(c.e <= 0) AS zero,
               count(*) AS n, sum(1 / c.e) FILTER (WHERE c.e > 0) AS inv,
               jsonb_agg(jsonb_build_object('platform', c.platform, 'efficiency', c.e, 'fom', c.fom,
                                            'result_id', c.result_id, 'variant', c.variant)
                         ORDER BY c.platform) AS efficiencies
        FROM cell c GROUP BY c.model),
    scored AS (
        SELECT model, efficiencies,
               CASE WHEN missing IS NOT NULL OR zero THEN 0 WHEN undefined IS NOT NULL THEN NULL
                    ELSE n / inv END AS pp,
               CASE WHEN missing IS NOT NULL THEN 'no verified result on ' || missing
                    WHEN zero THEN 'a zero efficiency on some platform'
                    WHEN undefined IS NOT NULL THEN 'architectural efficiency undefined: no theoretical peak for '
                         || undefined END AS pp_note
        FROM per_app)
    SELECT jsonb_build_object(
        'problem', p_suite || '.' || p_kernel, 'precision', p_precision, 'size', v_size,
        'size_note', v_size_note, 'efficiency', p_efficiency,
        'variant_policy', CASE WHEN p_variant IS NULL THEN 'best' ELSE 'fixed' END, 'variant', p_variant,
        'note', CASE WHEN v_size IS NULL THEN format('no verified results for %s.%s in %s', p_suite, p_kernel,
                                                     p_precision)
                     WHEN NOT EXISTS (SELECT 1 FROM pp_fom f WHERE f.suite = p_suite AND f.kernel = p_kernel
                                      AND f.precision = p_precision AND f.size = v_size)
                     THEN format('no verified results for %s.%s in %s at size %s', p_suite, p_kernel, p_precision,
                                 v_size)
                     WHEN NOT EXISTS (SELECT 1 FROM scored)
                     THEN 'no application has a verified result on these platforms'
                END,
        'platforms', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', h.id, 'name', h.name, 'kind', h.kind,
                          'peak_bandwidth_bytes_per_s', h.peak_bandwidth, 'peak_source', h.peak_source)
                          ORDER BY h.id), '[]') FROM h),
        'applications', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                             'application', CASE WHEN p_variant IS NULL THEN s.model
                                            ELSE s.model || ' (' || p_variant || ')' END,
                             'model', s.model,
                             'variant_policy', CASE WHEN p_variant IS NULL THEN 'best' ELSE 'fixed' END,
                             'pp', s.pp, 'pp_note', s.pp_note, 'efficiencies', s.efficiencies)
                             ORDER BY s.pp DESC NULLS LAST, s.model), '[]') FROM scored s))
    INTO v_doc;
    RETURN v_doc;
END
$$;

-- GET /api/v1/results?format=p3: one row per (problem, platform, application) with the column names the P3
-- analysis library reads (problem, platform, application, fom, date, "app eff", "arch eff"), then ppbench's
-- own. The problem is qualified as suite.kernel/precision/size, because the library keys on it alone. The
-- application is the model with its best variant per platform; its row is its best verified run (pp_best).
-- The filters select rows; application efficiency is against every model (the model filter does not change
-- the best on a platform). With p_since, only results since then count, bests included: the index cannot
-- order those, so that form scans the problem's results.
CREATE FUNCTION pp_p3_csv(p_suite text, p_kernel text, p_platform text, p_model text, p_since timestamptz,
                          p_limit bigint) RETURNS text LANGUAGE plpgsql STABLE SET jit = off AS $$
DECLARE
    v_csv text;
BEGIN
    WITH b AS (
        SELECT c.suite, c.kernel, c.precision, c.size, x.* FROM pp_problem_sizes c
        CROSS JOIN LATERAL pp_best(c.suite, c.kernel, c.precision, c.size,
                                   CASE WHEN p_platform IS NULL THEN NULL ELSE ARRAY[p_platform] END, NULL) x
        WHERE p_since IS NULL AND c.verified > 0 AND (p_suite IS NULL OR c.suite = p_suite)
          AND (p_kernel IS NULL OR c.kernel = p_kernel)
        UNION ALL
        SELECT r.suite, r.kernel, r.precision, r.size, r.platform_id, r.model, r.id, r.variant, r.fom,
               r.created_at, max(r.fom) OVER (PARTITION BY r.suite, r.kernel, r.precision, r.size, r.platform_id)
        FROM (SELECT DISTINCT ON (f.suite, f.kernel, f.precision, f.size, f.platform_id, f.model) f.*
              FROM pp_fom f
              WHERE p_since IS NOT NULL AND f.created_at >= p_since AND (p_suite IS NULL OR f.suite = p_suite)
                AND (p_kernel IS NULL OR f.kernel = p_kernel)
                AND (p_platform IS NULL OR f.platform_id = p_platform)
              ORDER BY f.suite, f.kernel, f.precision, f.size, f.platform_id, f.model, f.fom DESC, f.id) r),
    line AS (
        SELECT b.suite, b.kernel, b.precision, b.size, b.platform_id, b.model,
               concat_ws(',', b.suite || '.' || b.kernel || '/' || b.precision || '/' || b.size, b.platform_id,
                         b.model, b.fom, to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                         CASE WHEN b.platform_best > 0 THEN b.fom / b.platform_best ELSE 0 END,
                         coalesce((b.fom / p.peak_bandwidth)::text, ''), b.suite, b.kernel, b.precision, b.size,
                         b.model, '"' || replace(b.variant, '"', '""') || '"', b.result_id) AS text
        FROM b JOIN platforms p ON p.id = b.platform_id
        WHERE p_model IS NULL OR b.model = p_model
        ORDER BY b.suite, b.kernel, b.precision, b.size, b.platform_id, b.model
        LIMIT p_limit)
    SELECT 'problem,platform,application,fom,date,app eff,arch eff,suite,kernel,precision,size,model,variant,result_id'
           || chr(10) || coalesce(string_agg(l.text, chr(10) ORDER BY l.suite, l.kernel, l.precision, l.size,
                                             l.platform_id, l.model) || chr(10), '')
    INTO v_csv FROM line l;
    RETURN v_csv;
END
$$;
