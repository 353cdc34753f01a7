-- 042_attempts: a job's runs, and what spends its max_attempts (issue 25). jobs.attempts stays the number of
-- runs (claims); a run ends with a result, a repeat for noise (repeats), a worker's clean goodbye that hands
-- the job back (a stop, a restart), or a failure: a lease that expired, a worker that crashed, a Slurm job that
-- ended before a result. Only failures spend max_attempts, counted in failures; a noise repeat and a handback
-- do not (two noise repeats used to leave no retry for a real failure).
--
-- Each result stores the run of its job it came from (attempt, NULL for an import), and the rows of a run a
-- later run of the same job replaced carry the flag 'superseded': the flag keeps them out of every figure,
-- best, baseline and PP, as the other flags do (pp_fom: flags = '{}'), and they never count even where flagged
-- results are asked for (pp_fom_all, ui.js flaggedSplit): only the job's current run counts.
ALTER TABLE jobs ADD COLUMN failures integer NOT NULL DEFAULT 0 CHECK (failures >= 0);
ALTER TABLE results ADD COLUMN attempt integer CHECK (attempt >= 1);

-- Jobs still waiting or running keep what their old count spent beyond their repeats (a goodbye's handback
-- counted then and cannot be told apart now); finished jobs need no count.
UPDATE jobs SET failures = greatest(attempts - repeats - (state = 'running')::int, 0)
WHERE state IN ('queued', 'running');

-- The run of each stored result: 1 where its job ran once (most rows, at once); else the job's attempts at its
-- last claim before the result was stored (the claim's state event), else its rank among the job's rows of its
-- kernel.
UPDATE results r SET attempt = 1 FROM jobs j WHERE j.id = r.job_id AND j.attempts <= 1;
UPDATE results r SET attempt = coalesce(
    (SELECT (e.data->>'attempts')::int FROM job_events e
     WHERE e.job_id = r.job_id AND e.kind = 'state' AND e.data->>'state' = 'running' AND e.at <= r.created_at
     ORDER BY e.id DESC LIMIT 1),
    (SELECT count(*) FROM results o WHERE o.job_id = r.job_id AND o.kernel = r.kernel AND o.id <= r.id)::int)
WHERE r.job_id IS NOT NULL AND r.attempt IS NULL;

-- The flags' CHECK (008_truth's, with 011_annotate's 'excluded') gets 'superseded'.
ALTER TABLE results DROP CONSTRAINT results_flags_check,
    ADD CONSTRAINT results_flags_check
        CHECK (flags <@ ARRAY['superseded', 'excluded', 'above_ceiling', 'noisy', 'cache_resident']::text[]);

-- @after-functions: what follows runs once the current functions exist (schema/functions/)
-- Rows of earlier runs are superseded, through the triggers that keep PP's counts and the baselines' windows.
UPDATE results r SET flags = r.flags || 'superseded'::text
WHERE r.job_id IS NOT NULL AND NOT 'superseded' = ANY (r.flags)
  AND r.attempt < (SELECT max(o.attempt) FROM results o WHERE o.job_id = r.job_id);
