-- 021_evidence: what the Health page's evidence draws (issue 16, item 4). A result's verdict against its own
-- baseline is z = (x - median) / scale with scale = max(1.4826 MAD, min_band x median) (judge_round); the band
-- it is judged ok within is median +- z_limit x scale once the window holds min_results results. judge_scale
-- is that scale (judge_round uses it from 023 on), judge_band the band of a stored baseline (a baseline's
-- current one, or the one a verdict recorded), with the settings of now. An alert's evidence names the result.

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

CREATE OR REPLACE FUNCTION health_alert(p_kind text, p_platform text, p_state text, p_reason text, p_result bigint,
                                        p_problem text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO alerts (kind, platform_id, state, reason, doc)
    SELECT p_kind, p_platform, p_state, p_reason, jsonb_build_object(
        'event', p_kind, 'platform', p_platform, 'state', p_state, 'reason', p_reason, 'problem', p_problem,
        'result_id', p_result, 'host', h.name, 'device', p.name, 'at', now(),
        'evidence', '/#/platform?id=' || p_platform || coalesce('&result=' || p_result, ''))
    FROM platforms p LEFT JOIN hosts h ON h.id = p.host_id WHERE p.id = p_platform
$$;
