-- 009_problem_key: only comparable results are compared (issue 12, item 6). A PP problem was suite, kernel,
-- precision and size; results that ran another number of samples, applications per sample, timing rule or
-- lattice shape of the same volume were mixed. Every result now stores its problem key (problem_key): the
-- worker's problem.key, built from the suite table by kernels/suite.c (suite_problem_key: the precision, the
-- size, then every parameter the table marks key, with the value that ran) and checked by ppbenchd against
-- the report's problem document, so this file names no suite. PP, its default problem and the P3 export group
-- by it; two results of one suite.kernel are comparable when their keys are equal.
--
-- Rows without a key (stored before this migration; an import that names none) get the part every key holds,
-- "precision=P;size=N": they stay together as before, and apart from every keyed result, since what else they
-- ran is not known here.
--
-- The flagged results (008: above_ceiling, noisy; cache_resident) stay out of PP unless a question asks for
-- them (GET /api/v1/pp?include_flagged=true): pp_fom_all is every verified result with its flags.
ALTER TABLE results ADD COLUMN problem_key text;
UPDATE results SET problem_key = coalesce(provenance->'problem'->>'key',
                                          'precision=' || precision || ';size=' || size);
ALTER TABLE results ALTER COLUMN problem_key SET NOT NULL;

CREATE FUNCTION results_problem_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.problem_key := coalesce(NEW.problem_key, NEW.provenance->'problem'->>'key',
                                'precision=' || NEW.precision || ';size=' || NEW.size);
    RETURN NEW;
END
$$;
CREATE TRIGGER results_problem_key BEFORE INSERT ON results FOR EACH ROW EXECUTE FUNCTION results_problem_key();

CREATE INDEX results_pp_key ON results (suite, kernel, precision, problem_key, platform_id, model, bandwidth DESC, id)
    INCLUDE (variant, flags) WHERE verified;
DROP INDEX results_pp;

CREATE OR REPLACE VIEW pp_fom AS
    SELECT id, platform_id, suite, kernel, precision, size, model, variant, bandwidth AS fom, created_at,
           problem_key
    FROM results WHERE verified AND flags = '{}';
CREATE VIEW pp_fom_all AS
    SELECT id, platform_id, suite, kernel, precision, size, model, variant, bandwidth AS fom, created_at,
           problem_key, flags
    FROM results WHERE verified;

-- How many verified results each problem key has (verified: unflagged, what PP counts; verified_all: flagged
-- too), kept by statement triggers as pp_problem_sizes (003, still kept) is: a question's default key is one
-- row away.
CREATE TABLE pp_problem_keys (
    suite        text NOT NULL,
    kernel       text NOT NULL,
    precision    text NOT NULL,
    problem_key  text NOT NULL,
    size         bigint NOT NULL,
    verified     bigint NOT NULL CHECK (verified >= 0),
    verified_all bigint NOT NULL CHECK (verified_all >= 0),
    PRIMARY KEY (suite, kernel, precision, problem_key)
);
INSERT INTO pp_problem_keys
    SELECT suite, kernel, precision, problem_key, min(size), count(*) FILTER (WHERE flags = '{}'), count(*)
    FROM results WHERE verified GROUP BY suite, kernel, precision, problem_key;

CREATE FUNCTION pp_problem_keys_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE pp_problem_keys c SET verified = c.verified - o.n, verified_all = c.verified_all - o.n_all
        FROM (SELECT suite, kernel, precision, problem_key, count(*) FILTER (WHERE flags = '{}') AS n,
                     count(*) AS n_all
              FROM old_rows WHERE verified GROUP BY suite, kernel, precision, problem_key) o
        WHERE (c.suite, c.kernel, c.precision, c.problem_key) = (o.suite, o.kernel, o.precision, o.problem_key);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO pp_problem_keys AS c (suite, kernel, precision, problem_key, size, verified, verified_all)
            SELECT suite, kernel, precision, problem_key, min(size), count(*) FILTER (WHERE flags = '{}'), count(*)
            FROM new_rows WHERE verified
            GROUP BY suite, kernel, precision, problem_key
            ORDER BY suite, kernel, precision, problem_key
            ON CONFLICT (suite, kernel, precision, problem_key) DO UPDATE
                SET verified = c.verified + EXCLUDED.verified, verified_all = c.verified_all + EXCLUDED.verified_all;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER results_pp_keys_insert AFTER INSERT ON results REFERENCING NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pp_problem_keys_count();
CREATE TRIGGER results_pp_keys_update AFTER UPDATE ON results
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pp_problem_keys_count();
CREATE TRIGGER results_pp_keys_delete AFTER DELETE ON results REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION pp_problem_keys_count();

-- pp_best (003) over one problem key: the same walk (a skip scan over platforms and models of results_pp_key,
-- then the best run of each), flagged results counted only when p_flagged.
CREATE FUNCTION pp_best_key(p_suite text, p_kernel text, p_precision text, p_key text, p_platforms text[],
                            p_variant text, p_flagged boolean)
    RETURNS TABLE (platform_id text, model text, result_id bigint, variant text, fom double precision,
                   created_at timestamptz, platform_best double precision)
    LANGUAGE plpgsql STABLE SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
BEGIN
    RETURN QUERY
    WITH RECURSIVE ps AS (
        (SELECT f.platform_id FROM pp_fom_all f
         WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.problem_key = p_key
           AND (p_flagged OR f.flags = '{}') AND p_platforms IS NULL
         ORDER BY f.platform_id LIMIT 1)
        UNION ALL
        SELECT (SELECT f.platform_id FROM pp_fom_all f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                  AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND f.platform_id > ps.platform_id
                ORDER BY f.platform_id LIMIT 1)
        FROM ps WHERE ps.platform_id IS NOT NULL),
    h AS (
        SELECT DISTINCT x AS platform_id FROM unnest(p_platforms) x
        UNION ALL
        SELECT ps.platform_id FROM ps WHERE ps.platform_id IS NOT NULL),
    pm AS (
        SELECT h.platform_id,
               (SELECT f.model FROM pp_fom_all f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                  AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND f.platform_id = h.platform_id
                ORDER BY f.model LIMIT 1) AS model
        FROM h
        UNION ALL
        SELECT pm.platform_id,
               (SELECT f.model FROM pp_fom_all f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                  AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND f.platform_id = pm.platform_id
                  AND f.model > pm.model
                ORDER BY f.model LIMIT 1)
        FROM pm WHERE pm.model IS NOT NULL),
    top AS (
        SELECT pm.platform_id, pm.model, b.id, b.variant, b.fom, b.created_at FROM pm
        CROSS JOIN LATERAL (
            SELECT f.id, f.variant, f.fom, f.created_at FROM pp_fom_all f
            WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
              AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}')
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
        SELECT f.id, f.variant, f.fom, f.created_at FROM pp_fom_all f
        WHERE p_variant IS NOT NULL AND f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
          AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND f.platform_id = t.platform_id
          AND f.model = t.model AND f.variant = p_variant
        ORDER BY f.fom DESC, f.id LIMIT 1) v ON true;
END
$$;

-- The document of GET /api/v1/pp over one problem key. p_key NULL: the key with the most verified results
-- for the problem and precision (at p_size when given; ties: the larger size, then the key's text), and
-- key_note says so. p_flagged: flagged results count too (include_flagged). Otherwise as 008's pp_doc, whose
-- seven-argument form now calls this one.
CREATE FUNCTION pp_doc(p_suite text, p_kernel text, p_precision text, p_size bigint, p_key text,
                       p_platforms text[], p_efficiency text, p_variant text, p_flagged boolean)
    RETURNS jsonb LANGUAGE plpgsql STABLE SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
DECLARE
    v_key text := p_key;
    v_size bigint := p_size;
    v_key_note text;
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
    IF v_key IS NULL THEN
        SELECT s.problem_key, s.size, format('the problem key with the most verified results: %s of %s', s.n, s.total)
            INTO v_key, v_size, v_key_note
            FROM (SELECT c.problem_key, c.size, CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END AS n,
                         sum(CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END) OVER () AS total
                  FROM pp_problem_keys c
                  WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
                    AND (p_size IS NULL OR c.size = p_size)
                    AND CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END > 0) s
            ORDER BY s.n DESC, s.size DESC, s.problem_key LIMIT 1;
        IF p_size IS NULL AND v_key IS NOT NULL THEN
            v_size_note := 'the size of the problem key with the most verified results';
        END IF;
        v_size := coalesce(v_size, p_size);
    ELSE
        SELECT c.size INTO v_size FROM pp_problem_keys c
            WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision AND c.problem_key = v_key;
        v_size := coalesce(v_size, p_size);
    END IF;

    WITH t AS (SELECT * FROM pp_best_key(p_suite, p_kernel, p_precision, v_key, p_platforms, p_variant, p_flagged)),
    h AS (
        SELECT p.id, p.name, p.kind, p.peak_bandwidth, p.peak_source FROM platforms p
        WHERE p.id = ANY (coalesce(p_platforms, ARRAY(SELECT DISTINCT platform_id FROM t)))),
    best AS (SELECT DISTINCT platform_id, platform_best AS fom FROM t),
    app AS (SELECT platform_id, model, result_id AS id, variant, fom FROM t WHERE result_id IS NOT NULL),
    cell AS (
        SELECT m.model, h.id AS platform, a.id AS result_id, a.variant, a.fom,
               CASE WHEN a.id IS NULL THEN NULL
                    WHEN p_efficiency = 'app' THEN CASE WHEN b.fom > 0 THEN a.fom / b.fom ELSE 0 END
                    ELSE a.fom * result_compulsory_share(a.id) / h.peak_bandwidth END AS e
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
        'size_note', v_size_note, 'problem_key', v_key, 'key_note', v_key_note,
        'include_flagged', p_flagged, 'efficiency', p_efficiency,
        'variant_policy', CASE WHEN p_variant IS NULL THEN 'best' ELSE 'fixed' END, 'variant', p_variant,
        'note', CASE WHEN v_key IS NULL AND p_size IS NULL
                     THEN format('no verified results for %s.%s in %s', p_suite, p_kernel, p_precision)
                     WHEN v_key IS NULL
                     THEN format('no verified results for %s.%s in %s at size %s', p_suite, p_kernel, p_precision,
                                 p_size)
                     WHEN NOT EXISTS (SELECT 1 FROM t)
                     THEN format('no verified results for %s.%s in %s with problem key %s', p_suite, p_kernel,
                                 p_precision, v_key)
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

CREATE OR REPLACE FUNCTION pp_doc(p_suite text, p_kernel text, p_precision text, p_size bigint, p_platforms text[],
                                  p_efficiency text, p_variant text) RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT pp_doc(p_suite, p_kernel, p_precision, p_size, NULL::text, p_platforms, p_efficiency, p_variant, false)
$$;

-- The P3 export, one problem per key: the problem column is suite.kernel/<problem key> (the key holds the
-- precision and the size), since the library keys on it alone; problem_key is also the last column.
CREATE OR REPLACE FUNCTION pp_p3_csv(p_suite text, p_kernel text, p_platform text, p_model text, p_since timestamptz,
                          p_limit bigint) RETURNS text LANGUAGE plpgsql STABLE SET jit = off AS $$
DECLARE
    v_csv text;
BEGIN
    WITH b AS (
        SELECT c.suite, c.kernel, c.precision, c.problem_key, c.size, x.* FROM pp_problem_keys c
        CROSS JOIN LATERAL pp_best_key(c.suite, c.kernel, c.precision, c.problem_key,
                                       CASE WHEN p_platform IS NULL THEN NULL ELSE ARRAY[p_platform] END, NULL,
                                       false) x
        WHERE p_since IS NULL AND c.verified > 0 AND (p_suite IS NULL OR c.suite = p_suite)
          AND (p_kernel IS NULL OR c.kernel = p_kernel)
        UNION ALL
        SELECT r.suite, r.kernel, r.precision, r.problem_key, r.size, r.platform_id, r.model, r.id, r.variant, r.fom,
               r.created_at,
               max(r.fom) OVER (PARTITION BY r.suite, r.kernel, r.precision, r.problem_key, r.platform_id)
        FROM (SELECT DISTINCT ON (f.suite, f.kernel, f.precision, f.problem_key, f.platform_id, f.model) f.*
              FROM pp_fom f
              WHERE p_since IS NOT NULL AND f.created_at >= p_since AND (p_suite IS NULL OR f.suite = p_suite)
                AND (p_kernel IS NULL OR f.kernel = p_kernel)
                AND (p_platform IS NULL OR f.platform_id = p_platform)
              ORDER BY f.suite, f.kernel, f.precision, f.problem_key, f.platform_id, f.model, f.fom DESC, f.id) r),
    line AS (
        SELECT b.suite, b.kernel, b.precision, b.problem_key, b.platform_id, b.model,
               concat_ws(',', b.suite || '.' || b.kernel || '/' || b.problem_key, b.platform_id,
                         b.model, b.fom, to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                         CASE WHEN b.platform_best > 0 THEN b.fom / b.platform_best ELSE 0 END,
                         coalesce((b.fom * result_compulsory_share(b.result_id) / p.peak_bandwidth)::text, ''),
                         b.suite, b.kernel, b.precision, b.size, b.model,
                         '"' || replace(b.variant, '"', '""') || '"', b.result_id, b.problem_key) AS text
        FROM b JOIN platforms p ON p.id = b.platform_id
        WHERE p_model IS NULL OR b.model = p_model
        ORDER BY b.suite, b.kernel, b.precision, b.problem_key, b.platform_id, b.model
        LIMIT p_limit)
    SELECT 'problem,platform,application,fom,date,app eff,arch eff,suite,kernel,precision,size,model,variant,result_id,'
           || 'problem_key' || chr(10)
           || coalesce(string_agg(l.text, chr(10) ORDER BY l.suite, l.kernel, l.precision, l.problem_key,
                                  l.platform_id, l.model) || chr(10), '')
    INTO v_csv FROM line l;
    RETURN v_csv;
END
$$;

-- The result document carries its problem key.
CREATE OR REPLACE FUNCTION result_doc(r results) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
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
        'verified', r.verified, 'error', r.error,
        'origin', r.origin, 'provenance', r.provenance, 'created_at', r.created_at);
END
$$;
