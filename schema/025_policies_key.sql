-- GET /api/v1/pp/policies on one problem key, as GET /api/v1/pp is (009): 010 compared every verified result
-- of the problem's size, whatever its key (two runs of other numtimes or lattices of one size were one
-- problem), and read the size's rows whole to sort them by variant. Now the default key is GET /api/v1/pp's
-- (pp_default_key: the key with the most verified results, at the size when one is given), named in the
-- document (problem_key, key_note), and the runs come from the key's rows of results_pp_key in its order
-- (platform, model, figure), sorted by variant only within each platform and model. At 1,000,000 results
-- (bench/pp.sh): see docs/PERFORMANCE.md. A subset's member model:* stands for every variant of the model (its
-- best run on each platform), so that subsets=openmp:*,omp-target:* is the OpenMP application across CPUs and
-- GPUs for any suite (variant texts of suites other than hacc are JSON, which a subset cannot name).

-- The default problem key of a problem (and size, when given) and its size, with the notes GET /api/v1/pp
-- gives: the key with the most verified results (flagged ones too with p_flagged); ties: the larger size,
-- then the key's text. No row when none has a verified result.
CREATE FUNCTION pp_default_key(p_suite text, p_kernel text, p_precision text, p_size bigint, p_flagged boolean)
    RETURNS TABLE (problem_key text, size bigint, key_note text, size_note text) LANGUAGE sql STABLE AS $$
    SELECT s.problem_key, s.size, format('the problem key with the most verified results: %s of %s', s.n, s.total),
           CASE WHEN p_size IS NULL THEN 'the size of the problem key with the most verified results' END
    FROM (SELECT c.problem_key, c.size, CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END AS n,
                 sum(CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END) OVER () AS total
          FROM pp_problem_keys c
          WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
            AND (p_size IS NULL OR c.size = p_size)
            AND CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END > 0) s
    ORDER BY s.n DESC, s.size DESC, s.problem_key LIMIT 1
$$;

CREATE OR REPLACE FUNCTION pp_policies(p_suite text, p_kernel text, p_precision text, p_size bigint, p_platforms text[],
                            p_efficiency text, p_subsets jsonb) RETURNS jsonb LANGUAGE plpgsql STABLE
    SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
DECLARE
    v_size bigint := p_size;
    v_size_note text;
    v_key text;
    v_key_note text;
    v_unknown text;
    v_h text[];
    v_doc jsonb;
BEGIN
    SELECT x INTO v_unknown FROM unnest(p_platforms) x
        WHERE NOT EXISTS (SELECT 1 FROM platforms p WHERE p.id = x) LIMIT 1;
    IF v_unknown IS NOT NULL THEN
        RETURN jsonb_build_object('error', jsonb_build_object('code', 'unknown_platform', 'field', 'platforms',
            'message', format('unknown platform "%s"', v_unknown)));
    END IF;
    SELECT k.problem_key, k.size, k.key_note, k.size_note INTO v_key, v_size, v_key_note, v_size_note
        FROM pp_default_key(p_suite, p_kernel, p_precision, p_size, false) k;
    v_size := coalesce(v_size, p_size);
    v_h := coalesce(p_platforms, ARRAY(SELECT DISTINCT f.platform_id FROM pp_fom f
                                       WHERE f.suite = p_suite AND f.kernel = p_kernel
                                         AND f.precision = p_precision AND f.problem_key = v_key
                                       ORDER BY 1));

    WITH h AS (SELECT p.id, p.name, p.kind, p.peak_bandwidth, p.peak_source FROM platforms p WHERE p.id = ANY (v_h)),
    runs AS (
        SELECT DISTINCT ON (f.platform_id, f.model, pp_variant_name(f.variant))
               f.platform_id, f.model, pp_variant_name(f.variant) AS variant, f.id, f.fom
        FROM pp_fom f
        WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.problem_key = v_key
          AND f.platform_id = ANY (v_h)
        ORDER BY f.platform_id, f.model, pp_variant_name(f.variant), f.fom DESC, f.id),
    best AS (SELECT platform_id, max(fom) AS fom FROM runs GROUP BY platform_id),
    unsup AS (
        SELECT u.platform_id, u.model, u.variant, u.reason FROM pp_unsupported u
        WHERE u.suite = p_suite AND u.kernel = p_kernel AND u.precision = p_precision
          AND u.platform_id = ANY (v_h)
          AND NOT EXISTS (SELECT 1 FROM runs r WHERE (r.platform_id, r.model, r.variant)
                                                     = (u.platform_id, u.model, u.variant))),
    mv AS (SELECT DISTINCT model, variant FROM runs UNION SELECT model, variant FROM unsup),
    policy AS (
        SELECT 0 AS ord, m.model || ' (best)' AS name, 'best' AS kind, jsonb_agg(jsonb_build_array(m.model, m.variant)
               ORDER BY m.variant) AS members FROM mv m GROUP BY m.model
        UNION ALL
        SELECT 1, m.model || ' (' || m.variant || ')', 'fixed', jsonb_build_array(jsonb_build_array(m.model, m.variant))
        FROM mv m
        UNION ALL
        SELECT 2, s->>'name', 'subset', s->'members' FROM jsonb_array_elements(coalesce(p_subsets, '[]')) s),
    policy_k AS (SELECT p.*, p.ord || ':' || p.name AS k FROM policy p),
    member AS (
        SELECT p.k, m->>0 AS model, m->>1 AS variant FROM policy_k p, jsonb_array_elements(p.members) m),
    cell AS (
        SELECT p.k, h.id AS platform, r.model, r.variant, r.id AS result_id, r.fom,
               (SELECT string_agg(u.model || ' ' || u.variant || ': ' || u.reason, '; ' ORDER BY u.model, u.variant)
                FROM member mb JOIN unsup u ON u.model = mb.model AND (mb.variant = '*' OR u.variant = mb.variant)
                                           AND u.platform_id = h.id
                WHERE mb.k = p.k) AS unsupported,
               (SELECT count(*) FROM member mb WHERE mb.k = p.k AND (mb.variant = '*' OR NOT EXISTS (
                    SELECT 1 FROM unsup u WHERE (u.model, u.variant, u.platform_id) = (mb.model, mb.variant, h.id))))
                   AS could_run,
               CASE WHEN r.id IS NULL THEN NULL
                    WHEN p_efficiency = 'app' THEN CASE WHEN b.fom > 0 THEN r.fom / b.fom ELSE 0 END
                    ELSE r.fom * result_compulsory_share(r.id) / h.peak_bandwidth END AS e
        FROM policy_k p CROSS JOIN h
        LEFT JOIN LATERAL (
            SELECT x.* FROM runs x JOIN member mb ON mb.k = p.k AND mb.model = x.model
                                                  AND (mb.variant = '*' OR mb.variant = x.variant)
            WHERE x.platform_id = h.id ORDER BY x.fom DESC, x.id LIMIT 1) r ON true
        LEFT JOIN best b ON b.platform_id = h.id),
    cell2 AS (
        SELECT c.*, CASE WHEN c.result_id IS NULL AND c.unsupported IS NOT NULL AND c.could_run = 0 THEN 0.0
                         ELSE c.e END AS eff
        FROM cell c),
    scored AS (
        SELECT c.k,
               string_agg(c.platform, ', ' ORDER BY c.platform) FILTER (WHERE c.result_id IS NULL AND c.eff IS NULL)
                   AS missing,
               string_agg(c.platform, ', ' ORDER BY c.platform) FILTER (WHERE c.result_id IS NULL AND c.eff = 0)
                   AS unsupported,
               string_agg(c.platform, ', ' ORDER BY c.platform) FILTER (WHERE c.result_id IS NOT NULL AND c.eff IS NULL)
                   AS undefined,
               bool_or(c.eff <= 0) AS zero, count(*) AS n, sum(1 / c.eff) FILTER (WHERE c.eff > 0) AS inv,
               jsonb_agg(jsonb_build_object('platform', c.platform, 'model', c.model, 'variant', c.variant,
                                            'efficiency', c.eff, 'fom', c.fom, 'result_id', c.result_id,
                                            'unsupported', c.unsupported) ORDER BY c.platform) AS efficiencies
        FROM cell2 c GROUP BY c.k)
    SELECT jsonb_build_object(
        'problem', p_suite || '.' || p_kernel, 'precision', p_precision, 'size', v_size,
        'size_note', v_size_note, 'problem_key', v_key, 'key_note', v_key_note, 'efficiency', p_efficiency,
        'note', CASE WHEN v_key IS NULL THEN format('no verified results for %s.%s in %s%s', p_suite, p_kernel,
                                                    p_precision, ' at size ' || p_size)
                     WHEN NOT EXISTS (SELECT 1 FROM policy) THEN 'no application has a verified result on these platforms'
                END,
        'platforms', (SELECT coalesce(jsonb_agg(jsonb_build_object('id', h.id, 'name', h.name, 'kind', h.kind,
                          'peak_bandwidth_bytes_per_s', h.peak_bandwidth, 'peak_source', h.peak_source)
                          ORDER BY h.id), '[]') FROM h),
        'policies', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                         'policy', p.name, 'kind', p.kind,
                         'members', (SELECT jsonb_agg(jsonb_build_object('model', m->>0, 'variant', m->>1))
                                     FROM jsonb_array_elements(p.members) m),
                         'pp', CASE WHEN s.missing IS NOT NULL OR s.zero THEN 0 WHEN s.undefined IS NOT NULL THEN NULL
                                    ELSE s.n / s.inv END,
                         'pp_note', CASE WHEN s.missing IS NOT NULL THEN 'no verified result on ' || s.missing
                                         WHEN s.unsupported IS NOT NULL THEN 'unsupported on ' || s.unsupported
                                         WHEN s.zero THEN 'a zero efficiency on some platform'
                                         WHEN s.undefined IS NOT NULL
                                         THEN 'architectural efficiency undefined: no theoretical peak for '
                                              || s.undefined END,
                         'efficiencies', s.efficiencies)
                         ORDER BY p.ord, p.name), '[]')
                     FROM policy_k p JOIN scored s ON s.k = p.k))
    INTO v_doc;
    RETURN v_doc;
END
$$;
