-- 014_slurm: jobs run through Slurm (server/slurm.c). slurm_state is NULL for a job the resident workers may
-- claim; any other value means the Slurm executor owns the job: 'UNSUBMITTED' (sbatch failed, retried at
-- slurm_next_try, the reason in slurm_reason), 'SUBMITTING' (sbatch running), then Slurm's own job states
-- (PENDING, RUNNING, COMPLETED, CANCELLED, NODE_FAIL, ...), or 'LOST' when Slurm no longer knows the job.
ALTER TABLE jobs ADD COLUMN slurm_job_id bigint, ADD COLUMN slurm_state text, ADD COLUMN slurm_reason text,
    ADD COLUMN slurm_next_try timestamptz;
CREATE INDEX jobs_slurm_active ON jobs (id) WHERE slurm_state IS NOT NULL
    AND slurm_state NOT IN ('COMPLETED', 'CANCELLED', 'FAILED', 'TIMEOUT', 'NODE_FAIL', 'PREEMPTED', 'BOOT_FAIL',
                            'DEADLINE', 'OUT_OF_MEMORY', 'LOST');
