-- 014_slurm: jobs run through Slurm (server/slurm.c). slurm_state is NULL for a job the resident workers may
-- claim; any other value means the Slurm executor owns the job: 'UNSUBMITTED' (sbatch failed, retried at
-- slurm_next_try, the reason in slurm_reason), 'SUBMITTING' (sbatch running), then Slurm's own job states
-- (PENDING, RUNNING, COMPLETED, CANCELLED, NODE_FAIL, ...), or 'LOST' when Slurm no longer knows the job.
ALTER TABLE jobs ADD COLUMN slurm_job_id bigint, ADD COLUMN slurm_state text, ADD COLUMN slurm_reason text,
    ADD COLUMN slurm_next_try timestamptz;
CREATE INDEX jobs_slurm_active ON jobs (id) WHERE slurm_state IS NOT NULL
    AND slurm_state NOT IN ('COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL',
                            'DEADLINE', 'OUT_OF_MEMORY', 'LOST');

CREATE OR REPLACE FUNCTION job_doc(j jobs, with_results boolean) RETURNS jsonb LANGUAGE plpgsql STABLE AS $$
BEGIN
    RETURN jsonb_build_object(
        'id', j.id, 'state', j.state, 'suite', j.suite, 'model', j.model, 'platform', j.platform_id,
        'selector', CASE WHEN j.selector = '{}' THEN NULL ELSE j.selector END,
        'kernels', to_jsonb(j.kernels), 'params', j.params, 'priority', j.priority, 'timeout_s', j.timeout_s,
        'tags', to_jsonb(j.tags), 'attempts', j.attempts, 'max_attempts', j.max_attempts,
        'progress', j.progress, 'error', j.error, 'ran_on', j.ran_on, 'worker_id', j.worker_id,
        'created_at', j.created_at, 'started_at', j.started_at, 'finished_at', j.finished_at,
        'slurm', CASE WHEN j.slurm_state IS NULL THEN NULL
                 ELSE jsonb_build_object('job_id', j.slurm_job_id, 'state', j.slurm_state, 'reason', j.slurm_reason) END)
        || CASE WHEN with_results THEN jsonb_build_object('results',
               (SELECT coalesce(jsonb_agg(result_doc(r) ORDER BY r.id), '[]') FROM results r WHERE r.job_id = j.id))
           ELSE '{}' END;
END
$$;
