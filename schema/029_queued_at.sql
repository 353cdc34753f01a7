-- 029_queued_at: when a job last entered the queue (issue 26), so that a queued job has a bound too: the
-- notifier fails a job queued for more than queue_timeout_s (server/fleet/notify.c). Set at submission (the
-- default) and by the trigger jobs_queued_at (schema/functions/documents.sql) whenever a job goes back to the
-- queue (a lease expired, a noisy report repeated, a Slurm job re-queued). Rows already queued count from
-- their submission; the others never need it.
ALTER TABLE jobs ADD COLUMN queued_at timestamptz;
ALTER TABLE jobs ALTER COLUMN queued_at SET DEFAULT now();
UPDATE jobs SET queued_at = created_at WHERE state = 'queued';
CREATE INDEX jobs_queued_at ON jobs (queued_at) WHERE state = 'queued';
