-- The P3 export one row per variant (GET /api/v1/results?format=p3&p3_rows=variant, issue 13): paper 003's
-- navigation chart and code divergence compare variants, so each (problem key, platform, model, variant) is a
-- row: the variant's best verified, unflagged run (its application named model:variant), and a row with an
-- empty figure and the reason for each variant recorded unsupported on a platform (pp_unsupported, 010) that
-- has verified results of the key, since such a variant could not run there at any size. Efficiencies as the
-- default export's: app eff against the best run on the platform by any model or variant of the key, arch eff
-- against the compulsory traffic (008).

-- A result's variant name (010), without the regular expression for the plain names most results carry: the
-- export below reads it for every verified row of its kernel (a third of its time at 1,000,000 results).
CREATE OR REPLACE FUNCTION pp_variant_name(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN strpos(v, '"variant": "') > 0 THEN coalesce(substring(v from '"variant": "([^"\\]*)"'), v)
                ELSE v END
$$;

-- Custom plans only: after five calls on one connection PL/pgSQL's plan cache took a generic plan for the query
-- below, which does not know the suites or the kernel and ran 230-250 ms against 90 (1,000,000 results).
CREATE FUNCTION pp_p3_variant_csv(p_suite text, p_kernel text, p_platform text, p_model text, p_limit bigint)
    RETURNS text LANGUAGE plpgsql STABLE SET jit = off SET max_parallel_workers_per_gather = 0
    SET plan_cache_mode = force_custom_plan AS $$
DECLARE
    v_csv text;
BEGIN
    -- Each variant's best run in one hash aggregate (its fom, then the earliest id of that fom), not a sort of
    -- every row; the suites enumerated so that the key index is probed per suite when none is given (at
    -- 1,000,000 results: 530 ms of sort and scan for kernel=triad before, 80 ms).
    WITH g AS (
        SELECT f.suite, f.kernel, f.precision, f.problem_key, f.platform_id, f.model,
               pp_variant_name(f.variant) AS variant, max(ARRAY[f.fom, -f.id::float8]) AS best
        FROM pp_fom f
        WHERE f.suite = ANY (CASE WHEN p_suite IS NULL THEN ARRAY(SELECT DISTINCT suite FROM pp_problem_sizes)
                                  ELSE ARRAY[p_suite] END)
          AND (p_kernel IS NULL OR f.kernel = p_kernel) AND (p_platform IS NULL OR f.platform_id = p_platform)
        GROUP BY 1, 2, 3, 4, 5, 6, 7),
    runs AS (
        SELECT g.suite, g.kernel, g.precision, g.problem_key, r.size, g.platform_id, g.model, g.variant,
               r.id AS result_id, g.best[1] AS fom, r.created_at
        FROM g JOIN results r ON r.id = (-g.best[2])::bigint),
    best AS (
        SELECT r.*, max(r.fom) OVER (PARTITION BY r.suite, r.kernel, r.precision, r.problem_key, r.platform_id)
                    AS platform_best
        FROM runs r),
    keys AS (SELECT DISTINCT suite, kernel, precision, problem_key, size, platform_id FROM runs),
    unsup AS (
        SELECT k.suite, k.kernel, k.precision, k.problem_key, k.size, k.platform_id, u.model, u.variant, u.reason
        FROM keys k JOIN pp_unsupported u USING (suite, kernel, precision, platform_id)
        WHERE NOT EXISTS (SELECT 1 FROM runs r WHERE (r.suite, r.kernel, r.precision, r.problem_key, r.platform_id,
                                                      r.model, r.variant)
                                                     = (k.suite, k.kernel, k.precision, k.problem_key, k.platform_id,
                                                        u.model, u.variant))),
    line AS (
        SELECT b.suite, b.kernel, b.precision, b.problem_key, b.platform_id, b.model, b.variant,
               concat_ws(',', b.suite || '.' || b.kernel || '/' || b.problem_key, b.platform_id,
                         '"' || replace(b.model || ':' || b.variant, '"', '""') || '"', b.fom,
                         to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                         CASE WHEN b.platform_best > 0 THEN b.fom / b.platform_best ELSE 0 END,
                         coalesce((b.fom * result_compulsory_share(b.result_id) / p.peak_bandwidth)::text, ''),
                         b.suite, b.kernel, b.precision, b.size, b.model,
                         '"' || replace(b.variant, '"', '""') || '"', b.result_id, b.problem_key, '') AS text
        FROM best b JOIN platforms p ON p.id = b.platform_id
        WHERE p_model IS NULL OR b.model = p_model
        UNION ALL
        SELECT u.suite, u.kernel, u.precision, u.problem_key, u.platform_id, u.model, u.variant,
               concat_ws(',', u.suite || '.' || u.kernel || '/' || u.problem_key, u.platform_id,
                         '"' || replace(u.model || ':' || u.variant, '"', '""') || '"', '', '', '', '',
                         u.suite, u.kernel, u.precision, u.size, u.model,
                         '"' || replace(u.variant, '"', '""') || '"', '', u.problem_key,
                         '"' || replace(u.reason, '"', '""') || '"')
        FROM unsup u
        WHERE p_model IS NULL OR u.model = p_model),
    page AS (
        SELECT * FROM line
        ORDER BY suite, kernel, precision, problem_key, platform_id, model, variant
        LIMIT p_limit)
    SELECT 'problem,platform,application,fom,date,app eff,arch eff,suite,kernel,precision,size,model,variant,result_id,'
           || 'problem_key,unsupported' || chr(10)
           || coalesce(string_agg(g.text, chr(10) ORDER BY g.suite, g.kernel, g.precision, g.problem_key,
                                  g.platform_id, g.model, g.variant) || chr(10), '')
    INTO v_csv FROM page g;
    RETURN v_csv;
END
$$;
