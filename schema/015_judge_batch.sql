-- 015_judge_batch: judging set-based (issue 16). 012's row trigger judged each new result with a dozen
-- single-row statements; a statement that stored many results updated each baselines row once per result,
-- and every update left a row version that later lookups in the same transaction had to step over (3.3 ms per
-- result at 100,000 in one statement). The statement trigger here judges the statement's new rows in rounds:
-- round k takes the k-th new result of every (platform, problem), so the rows of one round never share a
-- baseline and each round is a few set-based statements over all of them; a worker's report (one row per
-- kernel) is one round. What a result is judged against is what 012 judged it against: its own window (the
-- last K verified, unflagged results of its segment before it, suspects and confirmed ones left out, the
-- earlier rows of the same statement included), the floor of its device model, its peers' baselines (as of
-- the round before: the peers' rows of the same statement and rank are judged beside it, not before it). The
-- platforms' health then follows the statement's results in id order: a platform that is ok and gets no
-- raise in one upsert, any other one result by result through health_raise and health_pass (012).
--
-- The window is kept in the baseline (window_ids, window_figs: the last K results that entered it, oldest
-- first), so judging reads no history from results: a result judged ok or improved enters its window, one
-- judged regressed or outlier (suspect or confirmed), failed or flagged does not. What would change a window
-- after the fact (a result deleted, excluded or otherwise updated; another window_k) rebuilds the windows
-- concerned from results with the query 012 judged with (judge_rewindow).
ALTER TABLE baselines ADD COLUMN window_ids bigint[] NOT NULL DEFAULT '{}',
    ADD COLUMN window_figs double precision[] NOT NULL DEFAULT '{}';

-- @after-functions: what follows runs once the current functions exist (schema/functions/)
SELECT judge_rewindow(NULL);
