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
