-- 024_notify_again: waiting claims woken by a new job again. 004_notify made every job event notify the one
-- channel the notifier LISTENs on (ppbench, an empty payload: PostgreSQL folds the duplicates of a transaction);
-- 011_annotate redefined jobs_record_event from 002's text and brought back 002's channels (ppbench_events,
-- ppbench_jobs, the job id as payload), which nothing listens to: a queued job then waited for the notifier's
-- one-second tick to wake the long polls (submission to claim 0.15-1 s, measured with bench/gpu/service.sh
-- and a standalone worker). 011's event document (started_at, finished_at) with 004's notification.
CREATE OR REPLACE FUNCTION jobs_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state THEN
        INSERT INTO job_events (job_id, kind, data)
        VALUES (NEW.id, 'state', jsonb_build_object('state', NEW.state, 'error', NEW.error,
                                                     'attempts', NEW.attempts, 'ran_on', NEW.ran_on,
                                                     'started_at', NEW.started_at,
                                                     'finished_at', NEW.finished_at));
        PERFORM pg_notify('ppbench', '');
    ELSIF NEW.progress IS DISTINCT FROM OLD.progress THEN
        INSERT INTO job_events (job_id, kind, data) VALUES (NEW.id, 'progress', jsonb_build_object('progress', NEW.progress));
        PERFORM pg_notify('ppbench', '');
    END IF;
    RETURN NULL;
END
$$;
