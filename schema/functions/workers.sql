-- workers: a worker's goodbye, in one place. A worker says it itself (POST /api/v1/workers/{id}/deregister,
-- server/api/worker.c), or the embedded default's supervisor says it for a worker whose process ended without
-- one (killed at the end of a stop's grace, crashed: server/embed/supervise.c). Either way its registration is
-- gone, so the next worker of its platform registers at once instead of being refused until the lease has
-- passed, and a job it held is never left running: it goes back to the queue with a note saying why, or fails
-- with that reason once its failures reach max_attempts. A worker's own goodbye (a stop, a restart) hands the
-- job back and spends none of its max_attempts (042_attempts); a worker that ended without one crashed or hung,
-- and that is a failure, as a lost lease is (notify.c's requeue). The job's state event carries the note
-- (jobs_record_event), and the job's document keeps every re-queue's note (job_doc's history), so the Job page
-- and `ppbench submit` say why.

-- Releases worker p_worker; p_why says what happened ("worker 3 (vm/cpu0) stopped while running it");
-- p_failure: its running job's run counts as a failure (false for the worker's own goodbye).
-- released: the worker was registered (not gone) until now; requeued, failed: its running jobs.
CREATE FUNCTION worker_release(p_worker bigint, p_why text, p_failure boolean)
    RETURNS TABLE (released boolean, requeued integer, failed integer) LANGUAGE plpgsql AS $$
DECLARE
    v_released boolean;
BEGIN
    UPDATE workers SET state = 'gone', gone_at = now() WHERE id = p_worker AND state <> 'gone';
    v_released := FOUND;
    RETURN QUERY
    WITH o AS (
        SELECT id, failures + p_failure::int AS failures,
               failures + p_failure::int < max_attempts AS again,
               CASE WHEN p_failure THEN format('failure %s of %s', failures + 1, max_attempts)
                    ELSE format('not a failure; failures %s of %s', failures, max_attempts) END AS count
        FROM jobs WHERE worker_id = p_worker AND state = 'running' FOR UPDATE),
    j AS (
        UPDATE jobs SET state = CASE WHEN o.again THEN 'queued' ELSE 'failed' END, failures = o.failures,
            note = CASE WHEN o.again THEN format('re-queued: %s on run %s (%s)', p_why, attempts, o.count)
                        ELSE note END,
            error = CASE WHEN o.again THEN error ELSE format('%s on run %s (%s)', p_why, attempts, o.count) END,
            worker_id = CASE WHEN o.again THEN NULL ELSE worker_id END,
            claimed_at = CASE WHEN o.again THEN NULL ELSE claimed_at END,
            progress = CASE WHEN o.again THEN 0 ELSE progress END,
            finished_at = CASE WHEN o.again THEN NULL ELSE now() END,
            lease_expires = NULL
        FROM o WHERE jobs.id = o.id
        RETURNING jobs.state)
    SELECT v_released, (count(*) FILTER (WHERE j.state = 'queued'))::integer,
           (count(*) FILTER (WHERE j.state = 'failed'))::integer
    FROM j;
END
$$;

-- The supervisor's form: the newest worker registered by process p_pid for platform p_host/p_local (the host
-- name the supervisor gave it with --host), released with p_why. No row when there is none. The worker ended
-- without its goodbye: a job it still held failed its run.
CREATE FUNCTION worker_release_process(p_host text, p_local text, p_pid integer, p_why text)
    RETURNS TABLE (worker bigint, released boolean, requeued integer, failed integer) LANGUAGE sql AS $$
    SELECT w.id, r.released, r.requeued, r.failed
    FROM (SELECT w.id FROM workers w
          WHERE w.platform_id = p_host || '/' || p_local AND w.pid = p_pid
          ORDER BY w.id DESC LIMIT 1) w,
         LATERAL worker_release(w.id, format('worker %s (pid %s of %s/%s) %s', w.id, p_pid, p_host, p_local,
                                             p_why), true) r
$$;
