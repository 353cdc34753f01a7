-- 041_pp_runners: PP keeps the results of runners (origin 'runner': verified by the site's program, not by
-- ppbench) apart from ppbench's own unless a question asks for them (include_runners, issue 27). The counts of
-- a problem key hold how many of its verified results are a runner's (runner: unflagged, runner_all: flagged
-- too), so that the default key of a question without runners counts only what it compares; the PP index
-- carries origin beside variant and flags, so the walk over it stays index-only when it leaves runners out.
ALTER TABLE pp_problem_keys ADD COLUMN runner bigint NOT NULL DEFAULT 0 CHECK (runner >= 0),
    ADD COLUMN runner_all bigint NOT NULL DEFAULT 0 CHECK (runner_all >= 0);
UPDATE pp_problem_keys c SET runner = r.n, runner_all = r.n_all
    FROM (SELECT suite, kernel, precision, problem_key, count(*) FILTER (WHERE flags = '{}') AS n, count(*) AS n_all
          FROM results WHERE verified AND origin = 'runner' GROUP BY suite, kernel, precision, problem_key) r
    WHERE (c.suite, c.kernel, c.precision, c.problem_key) = (r.suite, r.kernel, r.precision, r.problem_key);

DROP INDEX results_pp_key;
CREATE INDEX results_pp_key ON results (suite, kernel, precision, problem_key, platform_id, model, bandwidth DESC, id)
    INCLUDE (variant, flags, origin) WHERE verified;
