-- 010_policies: variant policies (paper 003 Sec. 6, issue 13 items 5-6). An application is a set of (model,
-- variant) members: on each platform it runs its best verified member. GET /api/v1/pp/policies asks
-- pp_policies for every policy of a problem: per model, the best variant per platform and each variant
-- alone ("one variant everywhere"), plus the subsets the user names; ppbenchd adds each policy's code
-- divergence from the line sets it embeds (server/linesets.c). docs/METHODOLOGY.md, "Variant policies".
--
-- A variant a platform cannot run is a job that failed with "unsupported: ..." (the worker's exit 3): the
-- job stays failed, and this trigger keeps the fact in pp_unsupported, one row per platform, suite, kernel,
-- model, variant and precision (the latest job's reason). A verified result of the same key outranks it.
-- Only jobs that named their variant are recorded: a default variant is the device's choice.
CREATE TABLE pp_unsupported (
    platform_id text NOT NULL REFERENCES platforms (id) ON DELETE CASCADE,
    suite       text NOT NULL,
    kernel      text NOT NULL,
    model       text NOT NULL,
    variant     text NOT NULL,
    precision   text NOT NULL,
    job_id      bigint REFERENCES jobs (id) ON DELETE SET NULL,
    reason      text NOT NULL,
    at          timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (platform_id, suite, kernel, precision, model, variant)
);

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

-- A result's variant name: the "variant" field of the report's variant document where it has one (hacc:
-- {"threads": 2, "variant": "simd", ...}), else the stored text (an import's free text, other suites'
-- documents whole).
CREATE FUNCTION pp_variant_name(v text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT coalesce(substring(v from '"variant": "([^"\\]*)"'), v)
$$;

-- The document of GET /api/v1/pp/policies, or {"error": ...}. Arguments as pp_doc's (same default size and
-- platform set: every platform with a verified result for the problem), and p_subsets: the user's policies,
-- [{"name": text, "members": [[model, variant], ...]}]. For each policy and platform the cell is the best
-- verified run among the members; a platform where no member ran counts 0 when every member that could is
-- recorded unsupported there, and is missing otherwise; PP as pp_doc's (0 with a missing or zero cell,
-- NULL with an undefined efficiency).
CREATE FUNCTION pp_policies(p_suite text, p_kernel text, p_precision text, p_size bigint, p_platforms text[],
                            p_efficiency text, p_subsets jsonb) RETURNS jsonb LANGUAGE plpgsql STABLE
    SET jit = off SET max_parallel_workers_per_gather = 0 AS $$
DECLARE
    v_size bigint := p_size;
    v_size_note text;
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
    IF v_size IS NULL THEN
        SELECT s.size, format('the size with the most verified results: %s of %s', s.verified, s.total)
            INTO v_size, v_size_note
            FROM (SELECT c.size, c.verified, sum(c.verified) OVER () AS total FROM pp_problem_sizes c
                  WHERE c.suite = p_suite AND c.kernel = p_kernel AND c.precision = p_precision
                    AND c.verified > 0) s
            ORDER BY s.verified DESC, s.size DESC LIMIT 1;
    END IF;
    v_h := coalesce(p_platforms, ARRAY(SELECT DISTINCT f.platform_id FROM pp_fom f
                                       WHERE f.suite = p_suite AND f.kernel = p_kernel
                                         AND f.precision = p_precision AND f.size = v_size
                                       ORDER BY 1));

    WITH h AS (SELECT p.id, p.name, p.kind, p.peak_bandwidth, p.peak_source FROM platforms p WHERE p.id = ANY (v_h)),
    runs AS (
        SELECT DISTINCT ON (f.platform_id, f.model, pp_variant_name(f.variant))
               f.platform_id, f.model, pp_variant_name(f.variant) AS variant, f.id, f.fom
        FROM pp_fom f
        WHERE f.suite = p_suite AND f.kernel = p_kernel AND f.precision = p_precision AND f.size = v_size
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
                FROM member mb JOIN unsup u ON (u.model, u.variant) = (mb.model, mb.variant) AND u.platform_id = h.id
                WHERE mb.k = p.k) AS unsupported,
               (SELECT count(*) FROM member mb WHERE mb.k = p.k AND NOT EXISTS (
                    SELECT 1 FROM unsup u WHERE (u.model, u.variant, u.platform_id) = (mb.model, mb.variant, h.id)))
                   AS could_run,
               CASE WHEN r.id IS NULL THEN NULL
                    WHEN p_efficiency = 'app' THEN CASE WHEN b.fom > 0 THEN r.fom / b.fom ELSE 0 END
                    ELSE r.fom * result_compulsory_share(r.id) / h.peak_bandwidth END AS e
        FROM policy_k p CROSS JOIN h
        LEFT JOIN LATERAL (
            SELECT x.* FROM runs x JOIN member mb ON (mb.model, mb.variant) = (x.model, x.variant) AND mb.k = p.k
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
        'size_note', v_size_note, 'efficiency', p_efficiency,
        'note', CASE WHEN v_size IS NULL THEN format('no verified results for %s.%s in %s', p_suite, p_kernel,
                                                     p_precision)
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
