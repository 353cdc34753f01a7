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
UPDATE pp_problem_sizes c SET verified = coalesce((SELECT count(*) FROM results r WHERE r.verified
    AND r.flags = '{}' AND (r.suite, r.kernel, r.precision, r.size) = (c.suite, c.kernel, c.precision, c.size)), 0);
