-- 008_truth: measurement truth (issue 12). Every result keeps two byte models: the paper's (bytes, kept for
-- comparison with the paper) and the compulsory traffic (bytes_compulsory: each input read once, each output
-- written once), the least any implementation can move, so that architectural efficiency, computed against it,
-- is bounded by 1. A result above that bound was measured wrongly: it is flagged 'above_ceiling', stored and
-- shown, and left out of every efficiency, best and PP. A result whose timed samples spread past the server's
-- bound (setting noisy_cv_percent: coefficient of variation stddev / mean) is flagged 'noisy' and left out the
-- same way. docs/METHODOLOGY.md, "Performance portability", says why.
--
-- Rows stored before: STREAM's and CG's models were compulsory already; the lattice suites' compulsory share
-- is a constant of the suite (Wilson 192 of 360 element bytes per output site, paper 000 Eq. 2 with R = 7
-- against R = 0; staggered 300 of 390), applied once here. Their cv and max/min are computed from their
-- statistics; 'above_ceiling' is judged against the platform's peak as stored now, 'noisy' only for new rows.
ALTER TABLE results
    ADD COLUMN bytes_compulsory double precision CHECK (bytes_compulsory >= 0 AND bytes_compulsory < 'Infinity'),
    ADD COLUMN cv double precision CHECK (cv >= 0),
    ADD COLUMN max_min double precision CHECK (max_min >= 1),
    ADD COLUMN flags text[] NOT NULL DEFAULT '{}'
        CHECK (flags <@ ARRAY['above_ceiling', 'noisy', 'cache_resident']::text[]);

UPDATE results SET bytes_compulsory = bytes * CASE suite WHEN 'wilson' THEN 192.0 / 360 WHEN 'staggered' THEN 300.0 / 390
                                                         ELSE 1 END,
    cv = CASE WHEN mean_s > 0 AND stddev_s IS NOT NULL THEN stddev_s / mean_s END,
    max_min = CASE WHEN min_s > 0 THEN max_s / min_s END;
UPDATE results r SET flags = ARRAY['above_ceiling']
FROM platforms p WHERE p.id = r.platform_id AND p.peak_bandwidth > 0 AND r.bytes > 0
    AND r.bandwidth * r.bytes_compulsory / r.bytes > p.peak_bandwidth;

-- The share of a result's byte model that is compulsory: its figure of merit (bandwidth from the paper's
-- model) times this is the compulsory bandwidth, which architectural efficiency divides by the peak.
CREATE FUNCTION result_compulsory_share(p_id bigint) RETURNS double precision LANGUAGE sql STABLE AS $$
    SELECT coalesce(r.bytes_compulsory / nullif(r.bytes, 0), 1) FROM results r WHERE r.id = p_id
$$;

-- Every new row is judged as it is stored, whatever path it takes (worker report or import): its spread and
-- whether its compulsory bandwidth exceeds its platform's peak. An imported BabelStream row's model is
-- compulsory already. The 'noisy' flag comes with the row (the bound is the server's setting).
CREATE FUNCTION results_judge() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_peak double precision;
BEGIN
    IF NEW.bytes_compulsory IS NULL AND NEW.origin = 'import' THEN
        NEW.bytes_compulsory := NEW.bytes;
    END IF;
    NEW.cv := CASE WHEN NEW.mean_s > 0 AND NEW.stddev_s IS NOT NULL THEN NEW.stddev_s / NEW.mean_s END;
    NEW.max_min := CASE WHEN NEW.min_s > 0 THEN NEW.max_s / NEW.min_s END;
    SELECT p.peak_bandwidth INTO v_peak FROM platforms p WHERE p.id = NEW.platform_id;
    IF v_peak > 0 AND NEW.bytes > 0 AND NEW.bandwidth * coalesce(NEW.bytes_compulsory, NEW.bytes) / NEW.bytes > v_peak
       AND NOT 'above_ceiling' = ANY (NEW.flags) THEN
        NEW.flags := NEW.flags || 'above_ceiling'::text;
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER results_judge BEFORE INSERT ON results FOR EACH ROW EXECUTE FUNCTION results_judge();

-- Only verified, unflagged results have a figure of merit.
CREATE OR REPLACE VIEW pp_fom AS
    SELECT id, platform_id, suite, kernel, precision, size, model, variant, bandwidth AS fom, created_at
    FROM results WHERE verified AND flags = '{}';

-- The counts behind a PP question's default size count what PP counts.
CREATE OR REPLACE FUNCTION pp_problem_sizes_count() RETURNS trigger LANGUAGE plpgsql AS $$
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
UPDATE pp_problem_sizes c SET verified = coalesce((SELECT count(*) FROM results r WHERE r.verified
    AND r.flags = '{}' AND (r.suite, r.kernel, r.precision, r.size) = (c.suite, c.kernel, c.precision, c.size)), 0);

-- The result document shows both models, the compulsory bandwidth, the spread and the flags.
CREATE OR REPLACE FUNCTION result_doc(r results) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', r.id, 'job_id', r.job_id, 'platform', r.platform_id, 'suite', r.suite, 'kernel', r.kernel,
        'model', r.model, 'variant', r.variant, 'precision', r.precision, 'size', r.size,
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

-- PP and the P3 export: architectural efficiency against the compulsory traffic (result_compulsory_share).
CREATE OR REPLACE FUNCTION pp_doc(p_suite text, p_kernel text, p_precision text, p_size bigint, p_platforms text[],
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

CREATE OR REPLACE FUNCTION pp_p3_csv(p_suite text, p_kernel text, p_platform text, p_model text, p_since timestamptz,
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
                         coalesce((b.fom * result_compulsory_share(b.result_id) / p.peak_bandwidth)::text, ''), b.suite, b.kernel, b.precision, b.size,
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
