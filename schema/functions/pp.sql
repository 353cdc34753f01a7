-- pp: performance portability (paper 003) in one place: the figure of merit (pp_fom), architectural and
-- application efficiency, PP over a platform set (GET /api/v1/pp), the policies of variants (GET
-- /api/v1/pp/policies), and the P3 analysis library's columns (GET /api/v1/results?format=p3, one row per
-- application or per variant). The counts of verified results per problem size and per problem key are kept by
-- statement triggers, so that a question's default size and key cost an index probe. The definitions are in
-- docs/METHODOLOGY.md, "Performance portability".
--
-- Runners' results (origin 'runner', issue 27) are verified by the site's program, not by ppbench: every PP
-- question leaves them out unless it asks for them (p_runners: include_runners=true), so that ppbench's own
-- applications and their efficiencies never rest on a figure ppbench did not check; what was left out is said
-- in the document (pp_runners_hidden), and an included runner's application says verified_by "program".

-- The counts behind a PP question's default size count what PP counts.
CREATE FUNCTION pp_problem_sizes_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE pp_problem_sizes c SET verified = c.verified - o.n
        FROM (SELECT suite, kernel, precision, size, count(*) AS n FROM old_rows WHERE verified AND flags = '{}'
              GROUP BY suite, kernel, precision, size) o
        WHERE (c.suite, c.kernel, c.precision, c.size) = (o.suite, o.kernel, o.precision, o.size);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO pp_problem_sizes AS c (suite, kernel, precision, size, verified)
            SELECT suite, kernel, precision, size, count(*) FROM new_rows WHERE verified AND flags = '{}'
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

CREATE FUNCTION pp_problem_keys_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE pp_problem_keys c SET verified = c.verified - o.n, verified_all = c.verified_all - o.n_all,
                                     runner = c.runner - o.r, runner_all = c.runner_all - o.r_all
        FROM (SELECT suite, kernel, precision, problem_key, count(*) FILTER (WHERE flags = '{}') AS n,
                     count(*) AS n_all, count(*) FILTER (WHERE flags = '{}' AND origin = 'runner') AS r,
                     count(*) FILTER (WHERE origin = 'runner') AS r_all
              FROM old_rows WHERE verified AND NOT 'superseded' = ANY (flags)
              GROUP BY suite, kernel, precision, problem_key) o
        WHERE (c.suite, c.kernel, c.precision, c.problem_key) = (o.suite, o.kernel, o.precision, o.problem_key);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO pp_problem_keys AS c (suite, kernel, precision, problem_key, size, verified, verified_all,
                                          runner, runner_all)
            SELECT suite, kernel, precision, problem_key, min(size), count(*) FILTER (WHERE flags = '{}'), count(*),
                   count(*) FILTER (WHERE flags = '{}' AND origin = 'runner'), count(*) FILTER (WHERE origin = 'runner')
            FROM new_rows WHERE verified AND NOT 'superseded' = ANY (flags)
            GROUP BY suite, kernel, precision, problem_key
            ORDER BY suite, kernel, precision, problem_key
            ON CONFLICT (suite, kernel, precision, problem_key) DO UPDATE
                SET verified = c.verified + EXCLUDED.verified, verified_all = c.verified_all + EXCLUDED.verified_all,
                    runner = c.runner + EXCLUDED.runner, runner_all = c.runner_all + EXCLUDED.runner_all;
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

-- pp_best over one problem key: the same walk (a skip scan over platforms and models of results_pp_key,
-- then the best run of each), flagged results counted only when p_flagged, runners' only when p_runners.
CREATE FUNCTION pp_best_key(p_suite text, p_kernel text, p_precision text, p_key text, p_platforms text[],
                            p_variant text, p_flagged boolean, p_runners boolean)
    RETURNS TABLE (platform_id text, model text, result_id bigint, variant text, fom double precision,
                   created_at timestamptz, platform_best double precision)
    LANGUAGE plpgsql STABLE SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
BEGIN
    RETURN QUERY
    WITH RECURSIVE ps AS (
        (SELECT f.platform_id FROM pp_fom_all f
         WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.problem_key = p_key
           AND (p_flagged OR f.flags = '{}') AND (p_runners OR f.origin <> 'runner') AND p_platforms IS NULL
         ORDER BY f.platform_id LIMIT 1)
        UNION ALL
        SELECT (SELECT f.platform_id FROM pp_fom_all f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                  AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND (p_runners OR f.origin <> 'runner')
                  AND f.platform_id > ps.platform_id
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
                  AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND (p_runners OR f.origin <> 'runner')
                  AND f.platform_id = h.platform_id
                ORDER BY f.model LIMIT 1) AS model
        FROM h
        UNION ALL
        SELECT pm.platform_id,
               (SELECT f.model FROM pp_fom_all f
                WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                  AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND (p_runners OR f.origin <> 'runner')
                  AND f.platform_id = pm.platform_id
                  AND f.model > pm.model
                ORDER BY f.model LIMIT 1)
        FROM pm WHERE pm.model IS NOT NULL),
    top AS (
        SELECT pm.platform_id, pm.model, b.id, b.variant, b.fom, b.created_at FROM pm
        CROSS JOIN LATERAL (
            SELECT f.id, f.variant, f.fom, f.created_at FROM pp_fom_all f
            WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
              AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND (p_runners OR f.origin <> 'runner')
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
          AND f.problem_key = p_key AND (p_flagged OR f.flags = '{}') AND (p_runners OR f.origin <> 'runner')
          AND f.platform_id = t.platform_id
          AND f.model = t.model AND f.variant = p_variant
        ORDER BY f.fom DESC, f.id LIMIT 1) v ON true;
END
$$;

-- Why application p_model has no figure on p_platform for problem key p_key (pp_doc's pp_note), one clause:
-- its verified results there are all flagged (how many, by flag: include_flagged counts them), or none ran the
-- variant asked for, or none verified (how many failed verification), or it has no result there.
CREATE FUNCTION pp_missing_reason(p_suite text, p_kernel text, p_precision text, p_key text, p_platform text,
                                  p_model text, p_variant text) RETURNS text LANGUAGE sql STABLE AS $$
    WITH v AS (SELECT f.flags, f.variant FROM pp_fom_all f
               WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                 AND f.problem_key = p_key AND f.platform_id = p_platform AND f.model = p_model),
    fl AS (SELECT count(*) AS n, (SELECT string_agg(x.f || ' ' || x.c, ', ' ORDER BY x.c DESC, x.f)
                                  FROM (SELECT f, count(*) AS c FROM v, unnest(v.flags) f
                                        WHERE p_variant IS NULL OR v.variant = p_variant GROUP BY f) x) AS flags
           FROM v WHERE p_variant IS NULL OR v.variant = p_variant)
    SELECT CASE WHEN fl.n > 0 THEN format('%s: %s verified result%s, all flagged (%s): include_flagged counts them',
                                          p_platform, fl.n, CASE WHEN fl.n > 1 THEN 's' ELSE '' END, fl.flags)
                WHEN p_variant IS NOT NULL AND EXISTS (SELECT 1 FROM v)
                THEN format('%s: no verified run of variant %s', p_platform, p_variant)
                WHEN EXISTS (SELECT 1 FROM results r WHERE r.suite = p_suite AND r.kernel = p_kernel
                             AND r.platform_id = p_platform AND r.model = p_model AND r.precision = p_precision
                             AND r.problem_key = p_key AND NOT r.verified)
                THEN format('%s: no verified result (failed verification)', p_platform)
                ELSE format('%s: no result', p_platform) END
    FROM fl
$$;

-- The verified results of a problem key (or of the problem and precision, p_key NULL, at size p_size when given)
-- that flags keep out of PP, counted with their flags: {"results": n, "flags": {"noisy": n, ...}}, or NULL when
-- none is flagged. Runners' results count only with p_runners (without it they are out of the question anyway).
CREATE FUNCTION pp_hidden(p_suite text, p_kernel text, p_precision text, p_key text, p_size bigint,
                          p_runners boolean) RETURNS jsonb LANGUAGE sql STABLE AS $$
    WITH v AS (SELECT f.flags FROM pp_fom_all f
               WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                 AND (p_key IS NULL OR f.problem_key = p_key) AND (p_size IS NULL OR f.size = p_size)
                 AND f.flags <> '{}' AND (p_runners OR f.origin <> 'runner'))
    SELECT CASE WHEN count(*) > 0 THEN jsonb_build_object('results', count(*),
               'flags', (SELECT jsonb_object_agg(x.f, x.c) FROM (SELECT f, count(*) AS c FROM v, unnest(v.flags) f
                                                                 GROUP BY f) x)) END
    FROM v
$$;

-- The runners' verified results that a question without include_runners leaves out, for the problem key (or the
-- problem and precision at size p_size when p_key is NULL): {"results": n, "models": [names], "reason": ...}, or
-- NULL when there are none (flagged ones count only with p_flagged, as they would in the question).
CREATE FUNCTION pp_runners_hidden(p_suite text, p_kernel text, p_precision text, p_key text, p_size bigint,
                                  p_flagged boolean) RETURNS jsonb LANGUAGE sql STABLE AS $$
    WITH v AS (SELECT f.model FROM pp_fom_all f
               WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision
                 AND (p_key IS NULL OR f.problem_key = p_key) AND (p_size IS NULL OR f.size = p_size)
                 AND (p_flagged OR f.flags = '{}') AND f.origin = 'runner')
    SELECT CASE WHEN count(*) > 0 THEN jsonb_build_object('results', count(*),
               'models', (SELECT jsonb_agg(DISTINCT v.model ORDER BY v.model) FROM v),
               'reason', 'runners'' results are verified by their own programs, not by ppbench: '
                         || 'include_runners=true counts them as applications of their own') END
    FROM v
$$;

-- The document of GET /api/v1/pp over one problem key. p_key NULL: the key with the most unflagged verified
-- results for the problem and precision (at p_size when given; pp_default_key: the same key with and without
-- p_flagged), and key_note says so. p_flagged: flagged results count too (include_flagged), each efficiency
-- carrying its result's flags; p_runners: runners' results count
-- too (include_runners), each runner an application of its own with verified_by "program"; without it,
-- runners_hidden says what was left out and why.
CREATE FUNCTION pp_doc(p_suite text, p_kernel text, p_precision text, p_size bigint, p_key text,
                       p_platforms text[], p_efficiency text, p_variant text, p_flagged boolean,
                       p_runners boolean)
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
    SELECT k.problem_key, coalesce(k.size, p_size), k.key_note, k.size_note INTO v_key, v_size, v_key_note, v_size_note
        FROM pp_key(p_suite, p_kernel, p_precision, p_size, p_key, p_flagged, p_runners) k;

    WITH t AS (SELECT * FROM pp_best_key(p_suite, p_kernel, p_precision, v_key, p_platforms, p_variant, p_flagged,
                                         p_runners)),
    h AS (
        SELECT p.id, p.name, p.kind, p.peak_bandwidth, p.peak_source FROM platforms p
        WHERE p.id = ANY (coalesce(p_platforms, ARRAY(SELECT DISTINCT platform_id FROM t)))),
    best AS (SELECT DISTINCT platform_id, platform_best AS fom FROM t),
    app AS (SELECT t.platform_id, t.model, t.result_id AS id, t.variant, t.fom, r.origin, r.flags
            FROM t JOIN results r ON r.id = t.result_id),
    cell AS (
        SELECT m.model, h.id AS platform, a.id AS result_id, a.variant, a.fom, a.origin, a.flags,
               CASE WHEN a.id IS NULL THEN NULL
                    WHEN p_efficiency = 'app' THEN CASE WHEN b.fom > 0 THEN a.fom / b.fom ELSE 0 END
                    ELSE a.fom * result_compulsory_share(a.id) / h.peak_bandwidth END AS e
        FROM (SELECT DISTINCT model FROM app) m CROSS JOIN h
        LEFT JOIN app a ON a.model = m.model AND a.platform_id = h.id
        LEFT JOIN best b ON b.platform_id = h.id),
    per_app AS (
        SELECT c.model,
               string_agg(pp_missing_reason(p_suite, p_kernel, p_precision, v_key, c.platform, c.model, p_variant),
                          '; ' ORDER BY c.platform) FILTER (WHERE c.result_id IS NULL) AS missing,
               string_agg(c.platform, ', ' ORDER BY c.platform)
                   FILTER (WHERE c.result_id IS NOT NULL AND c.e IS NULL) AS undefined,
               bool_or(c.e <= 0) AS zero,
               count(*) AS n, sum(1 / c.e) FILTER (WHERE c.e > 0) AS inv,
               CASE WHEN bool_or(c.origin = 'runner') THEN 'program' WHEN bool_or(c.origin = 'import') THEN 'import'
                    ELSE 'ppbench' END AS verified_by,
               jsonb_agg(jsonb_build_object('platform', c.platform, 'efficiency', c.e, 'fom', c.fom,
                                            'result_id', c.result_id, 'variant', c.variant,
                                            'flags', coalesce(to_jsonb(c.flags), '[]'))
                         ORDER BY c.platform) AS efficiencies
        FROM cell c GROUP BY c.model),
    scored AS (
        SELECT model, efficiencies, verified_by,
               CASE WHEN missing IS NOT NULL OR zero THEN 0 WHEN undefined IS NOT NULL THEN NULL
                    ELSE n / inv END AS pp,
               CASE WHEN missing IS NOT NULL THEN 'no figure on ' || missing
                    WHEN zero THEN 'a zero efficiency on some platform'
                    WHEN undefined IS NOT NULL THEN 'architectural efficiency undefined: no theoretical peak for '
                         || undefined END AS pp_note
        FROM per_app)
    SELECT jsonb_build_object(
        'problem', p_suite || '.' || p_kernel, 'precision', p_precision, 'size', v_size,
        'size_note', v_size_note, 'problem_key', v_key, 'key_note', v_key_note,
        -- every key of the problem and precision with its verified results (unflagged; all), a page's choices
        'keys', (SELECT coalesce(jsonb_agg(jsonb_build_object(
                     'key', c.problem_key, 'size', c.size,
                     'results', c.verified - CASE WHEN p_runners THEN 0 ELSE c.runner END,
                     'results_all', c.verified_all - CASE WHEN p_runners THEN 0 ELSE c.runner_all END)
                     ORDER BY c.size, c.problem_key), '[]')
                 FROM pp_problem_keys c
                 WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
                   AND c.verified_all - CASE WHEN p_runners THEN 0 ELSE c.runner_all END > 0),
        'include_flagged', p_flagged, 'include_runners', p_runners, 'efficiency', p_efficiency,
        'hidden', CASE WHEN NOT p_flagged THEN pp_hidden(p_suite, p_kernel, p_precision, v_key, NULL, p_runners) END,
        'runners_hidden', CASE WHEN NOT p_runners
                               THEN pp_runners_hidden(p_suite, p_kernel, p_precision, v_key,
                                                      CASE WHEN v_key IS NULL THEN p_size END, p_flagged) END,
        'variant_policy', CASE WHEN p_variant IS NULL THEN 'best' ELSE 'fixed' END, 'variant', p_variant,
        -- all flagged: with no key (none has an unflagged result), or at the key asked (issue 25: "no verified
        -- results ... with problem key" was said of a key whose three results are flagged)
        'note', CASE WHEN NOT p_flagged AND ((v_key IS NULL AND EXISTS (SELECT 1 FROM pp_problem_keys c
                         WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
                           AND (p_size IS NULL OR c.size = p_size)
                           AND c.verified_all - CASE WHEN p_runners THEN 0 ELSE c.runner_all END > 0))
                      OR (v_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM t)
                          AND pp_hidden(p_suite, p_kernel, p_precision, v_key, NULL, p_runners) IS NOT NULL))
                     THEN format('no unflagged verified results for %s.%s in %s%s: %s verified, all flagged (%s); '
                                 'include_flagged counts them', p_suite, p_kernel, p_precision,
                                 coalesce(' with problem key ' || v_key, ' at size ' || p_size),
                                 (pp_hidden(p_suite, p_kernel, p_precision, v_key,
                                            CASE WHEN v_key IS NULL THEN p_size END, p_runners))->>'results',
                                 (SELECT string_agg(x.key || ' ' || x.value, ', ' ORDER BY x.value::bigint DESC, x.key)
                                  FROM jsonb_each_text(pp_hidden(p_suite, p_kernel, p_precision, v_key,
                                                                 CASE WHEN v_key IS NULL THEN p_size END,
                                                                 p_runners)->'flags') x))
                     WHEN v_key IS NULL AND NOT p_runners AND EXISTS (SELECT 1 FROM pp_problem_keys c
                         WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
                           AND (p_size IS NULL OR c.size = p_size)
                           AND CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END > 0)
                     THEN format('no verified results of ppbench''s own models for %s.%s in %s%s: only runners'' '
                                 '(verified by their programs, not by ppbench); include_runners counts them',
                                 p_suite, p_kernel, p_precision, ' at size ' || p_size)
                     WHEN v_key IS NULL AND p_size IS NULL
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
                             'model', s.model, 'verified_by', s.verified_by,
                             'variant_policy', CASE WHEN p_variant IS NULL THEN 'best' ELSE 'fixed' END,
                             'pp', s.pp, 'pp_note', s.pp_note, 'efficiencies', s.efficiencies)
                             ORDER BY s.pp DESC NULLS LAST, s.model), '[]') FROM scored s))
    INTO v_doc;
    RETURN v_doc;
END
$$;

-- The P3 export, one problem per key: the problem column is suite.kernel/<problem key> (the key holds the
-- precision and the size), since the library keys on it alone; problem_key is also the last column. Text cells
-- through csv_cell and csv_text (schema/functions/results.sql: CSV injection neutralised).
CREATE FUNCTION pp_p3_csv(p_suite text, p_kernel text, p_platform text, p_model text, p_since timestamptz,
                          p_limit bigint, p_runners boolean) RETURNS text LANGUAGE plpgsql STABLE SET jit = off AS $$
DECLARE
    v_csv text;
BEGIN
    WITH b AS (
        SELECT c.suite, c.kernel, c.precision, c.problem_key, c.size, x.* FROM pp_problem_keys c
        CROSS JOIN LATERAL pp_best_key(c.suite, c.kernel, c.precision, c.problem_key,
                                       CASE WHEN p_platform IS NULL THEN NULL ELSE ARRAY[p_platform] END, NULL,
                                       false, p_runners) x
        WHERE p_since IS NULL AND c.verified - CASE WHEN p_runners THEN 0 ELSE c.runner END > 0 AND (p_suite IS NULL OR c.suite = p_suite)
          AND (p_kernel IS NULL OR c.kernel = p_kernel)
        UNION ALL
        SELECT r.suite, r.kernel, r.precision, r.problem_key, r.size, r.platform_id, r.model, r.id, r.variant, r.fom,
               r.created_at,
               max(r.fom) OVER (PARTITION BY r.suite, r.kernel, r.precision, r.problem_key, r.platform_id)
        FROM (SELECT DISTINCT ON (f.suite, f.kernel, f.precision, f.problem_key, f.platform_id, f.model) f.*
              FROM pp_fom f
              WHERE p_since IS NOT NULL AND f.created_at >= p_since AND (p_suite IS NULL OR f.suite = p_suite)
                AND (p_kernel IS NULL OR f.kernel = p_kernel)
                AND (p_platform IS NULL OR f.platform_id = p_platform) AND (p_runners OR f.origin <> 'runner')
              ORDER BY f.suite, f.kernel, f.precision, f.problem_key, f.platform_id, f.model, f.fom DESC, f.id) r),
    line AS (
        SELECT b.suite, b.kernel, b.precision, b.problem_key, b.platform_id, b.model,
               concat_ws(',', csv_cell(b.suite || '.' || b.kernel || '/' || b.problem_key), csv_cell(b.platform_id),
                         csv_cell(b.model), b.fom,
                         to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                         CASE WHEN b.platform_best > 0 THEN b.fom / b.platform_best ELSE 0 END,
                         coalesce((b.fom * result_compulsory_share(b.result_id) / p.peak_bandwidth)::text, ''),
                         csv_cell(b.suite), csv_cell(b.kernel), csv_cell(b.precision), b.size, csv_cell(b.model),
                         csv_text(b.variant), b.result_id, csv_cell(b.problem_key)) AS text
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

CREATE FUNCTION pp_unsupported_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pp_unsupported AS u (platform_id, suite, kernel, model, variant, precision, job_id, reason)
        SELECT NEW.ran_on, NEW.suite, k, NEW.model, NEW.params->>'variant', NEW.params->>'precision', NEW.id,
               substring(NEW.error from 'unsupported: .*')
        FROM unnest(NEW.kernels) k
        ON CONFLICT (platform_id, suite, kernel, precision, model, variant)
        DO UPDATE SET job_id = EXCLUDED.job_id, reason = EXCLUDED.reason, at = now();
    RETURN NULL;
END
$$;

CREATE TRIGGER jobs_unsupported AFTER UPDATE OF state ON jobs FOR EACH ROW
    WHEN (NEW.state = 'failed' AND OLD.state <> 'failed' AND NEW.ran_on IS NOT NULL
          AND NEW.error ~ '(^|: )unsupported: ' AND NEW.params ? 'variant' AND NEW.params ? 'precision')
    EXECUTE FUNCTION pp_unsupported_record();

CREATE FUNCTION pp_policies(p_suite text, p_kernel text, p_precision text, p_size bigint, p_key text,
                            p_platforms text[], p_efficiency text, p_subsets jsonb, p_flagged boolean,
                            p_runners boolean)
    RETURNS jsonb LANGUAGE plpgsql STABLE
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
    SELECT k.problem_key, coalesce(k.size, p_size), k.key_note, k.size_note INTO v_key, v_size, v_key_note, v_size_note
        FROM pp_key(p_suite, p_kernel, p_precision, p_size, p_key, p_flagged, p_runners) k;
    -- p_flagged (include_flagged, as GET /api/v1/pp takes it): flagged results count too, each efficiency
    -- carrying its result's flags; else they are left out and 'hidden' counts them
    v_h := coalesce(p_platforms, ARRAY(SELECT DISTINCT f.platform_id FROM pp_fom_all f
                                       WHERE f.suite = p_suite AND f.kernel = p_kernel
                                         AND f.precision = p_precision AND f.problem_key = v_key
                                         AND (p_flagged OR f.flags = '{}')
                                         AND (p_runners OR f.origin <> 'runner')
                                       ORDER BY 1));

    WITH h AS (SELECT p.id, p.name, p.kind, p.peak_bandwidth, p.peak_source FROM platforms p WHERE p.id = ANY (v_h)),
    runs AS (
        SELECT DISTINCT ON (f.platform_id, f.model, f.variant)
               f.platform_id, f.model, f.variant AS variant, f.id, f.fom, f.flags
        FROM pp_fom_all f
        WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.problem_key = v_key
          AND f.platform_id = ANY (v_h) AND (p_flagged OR f.flags = '{}')
          AND (p_runners OR f.origin <> 'runner')
        ORDER BY f.platform_id, f.model, f.variant, f.fom DESC, f.id),
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
        SELECT p.k, h.id AS platform, r.model, r.variant, r.id AS result_id, r.fom, r.flags,
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
                                            'flags', coalesce(to_jsonb(c.flags), '[]'),
                                            'unsupported', c.unsupported) ORDER BY c.platform) AS efficiencies
        FROM cell2 c GROUP BY c.k)
    SELECT jsonb_build_object(
        'problem', p_suite || '.' || p_kernel, 'precision', p_precision, 'size', v_size,
        'size_note', v_size_note, 'problem_key', v_key, 'key_note', v_key_note, 'efficiency', p_efficiency,
        'include_flagged', p_flagged,
        'hidden', CASE WHEN NOT p_flagged THEN pp_hidden(p_suite, p_kernel, p_precision, v_key, NULL, p_runners) END,
        'include_runners', p_runners,
        'runners_hidden', CASE WHEN NOT p_runners
                               THEN pp_runners_hidden(p_suite, p_kernel, p_precision, v_key,
                                                      CASE WHEN v_key IS NULL THEN p_size END, p_flagged) END,
        -- without include_flagged the notes say "unflagged", never "no verified result" of a platform whose
        -- verified results are all flagged
        'note', CASE WHEN v_key IS NULL THEN format('no %sverified results for %s.%s in %s%s',
                                                    CASE WHEN p_flagged THEN '' ELSE 'unflagged ' END, p_suite,
                                                    p_kernel, p_precision, ' at size ' || p_size)
                     WHEN NOT EXISTS (SELECT 1 FROM policy)
                     THEN format('no application has an %sverified result on these platforms',
                                 CASE WHEN p_flagged THEN '' ELSE 'unflagged ' END)
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
                         'pp_note', CASE WHEN s.missing IS NOT NULL
                                         THEN format('no %sverified result on ',
                                                     CASE WHEN p_flagged THEN '' ELSE 'unflagged ' END) || s.missing
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

-- The default problem key of a problem (and size, when given) and its size, with the notes GET /api/v1/pp
-- gives: the key with the most unflagged verified results (runners' too with p_runners); ties: the larger size,
-- then the key's text. include_flagged (p_flagged) does not change the choice while some key has an unflagged
-- result: a question with and without it is about the same problem, and only what counts in it differs (issue
-- 25: a flagged key with more results was taken, another numtimes). Only when every result is flagged does
-- p_flagged take the key with the most flagged ones. No row when none has a verified result.
CREATE FUNCTION pp_default_key(p_suite text, p_kernel text, p_precision text, p_size bigint, p_flagged boolean,
                               p_runners boolean)
    RETURNS TABLE (problem_key text, size bigint, key_note text, size_note text) LANGUAGE sql STABLE AS $$
    SELECT s.problem_key, s.size,
           CASE WHEN NOT p_flagged THEN format('the problem key with the most verified results: %s of %s', s.n, s.total)
                WHEN s.u > 0 THEN format('the problem key with the most unflagged verified results: %s of %s (as '
                                         'without include_flagged)', s.u, s.utotal)
                ELSE format('the problem key with the most verified results: %s of %s, all flagged', s.n, s.total) END,
           CASE WHEN p_size IS NULL THEN 'the size of the problem key with the most verified results' END
    FROM (SELECT c.problem_key, c.size, x.n, x.u, sum(x.n) OVER () AS total, sum(x.u) OVER () AS utotal
          FROM pp_problem_keys c
          CROSS JOIN LATERAL (SELECT CASE WHEN p_flagged THEN c.verified_all ELSE c.verified END
                                     - CASE WHEN p_runners THEN 0 WHEN p_flagged THEN c.runner_all ELSE c.runner END
                                     AS n,
                                     c.verified - CASE WHEN p_runners THEN 0 ELSE c.runner END AS u) x
          WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
            AND (p_size IS NULL OR c.size = p_size) AND x.n > 0) s
    ORDER BY s.u DESC, CASE WHEN s.u = 0 THEN s.n ELSE 0 END DESC, s.size DESC, s.problem_key LIMIT 1
$$;

-- The problem key a question of GET /api/v1/pp and /pp/policies is about, with its size and notes: p_key as given
-- (its size from pp_problem_keys, NULL when no result has it; no notes), else pp_default_key's. One row, its
-- problem_key NULL when no key has a verified result.
CREATE FUNCTION pp_key(p_suite text, p_kernel text, p_precision text, p_size bigint, p_key text, p_flagged boolean,
                       p_runners boolean)
    RETURNS TABLE (problem_key text, size bigint, key_note text, size_note text) LANGUAGE sql STABLE AS $$
    SELECT p_key, (SELECT c.size FROM pp_problem_keys c WHERE c.suite = p_suite AND c.kernel = p_kernel
                   AND c.precision = p_precision AND c.problem_key = p_key), NULL::text, NULL::text
    WHERE p_key IS NOT NULL
    UNION ALL
    SELECT k.problem_key, k.size, k.key_note, k.size_note FROM (SELECT 1) one
    LEFT JOIN pp_default_key(p_suite, p_kernel, p_precision, p_size, p_flagged, p_runners) k ON true
    WHERE p_key IS NULL
$$;

-- Custom plans only: after five calls on one connection PL/pgSQL's plan cache took a generic plan for the query
-- below, which does not know the suites or the kernel and ran 230-250 ms against 90 (1,000,000 results).
CREATE FUNCTION pp_p3_variant_csv(p_suite text, p_kernel text, p_platform text, p_model text, p_limit bigint,
                                  p_runners boolean)
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
               f.variant AS variant, max(ARRAY[f.fom, -f.id::float8]) AS best
        FROM pp_fom f
        WHERE f.suite = ANY (CASE WHEN p_suite IS NULL THEN ARRAY(SELECT DISTINCT suite FROM pp_problem_sizes)
                                  ELSE ARRAY[p_suite] END)
          AND (p_kernel IS NULL OR f.kernel = p_kernel) AND (p_platform IS NULL OR f.platform_id = p_platform)
          AND (p_runners OR f.origin <> 'runner')
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
               concat_ws(',', csv_cell(b.suite || '.' || b.kernel || '/' || b.problem_key), csv_cell(b.platform_id),
                         csv_text(b.model || ':' || b.variant), b.fom,
                         to_char(b.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
                         CASE WHEN b.platform_best > 0 THEN b.fom / b.platform_best ELSE 0 END,
                         coalesce((b.fom * result_compulsory_share(b.result_id) / p.peak_bandwidth)::text, ''),
                         csv_cell(b.suite), csv_cell(b.kernel), csv_cell(b.precision), b.size, csv_cell(b.model),
                         csv_text(b.variant), b.result_id, csv_cell(b.problem_key), '') AS text
        FROM best b JOIN platforms p ON p.id = b.platform_id
        WHERE p_model IS NULL OR b.model = p_model
        UNION ALL
        SELECT u.suite, u.kernel, u.precision, u.problem_key, u.platform_id, u.model, u.variant,
               concat_ws(',', csv_cell(u.suite || '.' || u.kernel || '/' || u.problem_key), csv_cell(u.platform_id),
                         csv_text(u.model || ':' || u.variant), '', '', '', '',
                         csv_cell(u.suite), csv_cell(u.kernel), csv_cell(u.precision), u.size, csv_cell(u.model),
                         csv_text(u.variant), '', csv_cell(u.problem_key), csv_text(u.reason))
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

CREATE VIEW pp_fom AS
    SELECT id, platform_id, suite, kernel, precision, size, model, variant, bandwidth AS fom, created_at,
           problem_key, origin
    FROM results WHERE verified AND flags = '{}';

-- Flagged results too (include_flagged), except a superseded run's (042_attempts): only a job's current run
-- counts, whatever the question asks.
CREATE VIEW pp_fom_all AS
    SELECT id, platform_id, suite, kernel, precision, size, model, variant, bandwidth AS fom, created_at,
           problem_key, flags, origin
    FROM results WHERE verified AND NOT 'superseded' = ANY (flags);
