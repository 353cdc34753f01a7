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

CREATE INDEX results_pp_key ON results (suite, kernel, precision, problem_key, platform_id, model, bandwidth DESC, id)
    INCLUDE (variant, flags) WHERE verified;
DROP INDEX results_pp;

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
