-- 004_notify: one notification channel, one empty payload. The notifier wakes every waiter on any notification,
-- so two channels bought nothing, and NOTIFY serialises committing transactions on the notification queue's
-- lock: one identical notification per transaction (PostgreSQL folds duplicates) keeps that short.
CREATE OR REPLACE FUNCTION jobs_record_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' OR NEW.state IS DISTINCT FROM OLD.state THEN
        INSERT INTO job_events (job_id, kind, data)
        VALUES (NEW.id, 'state', jsonb_build_object('state', NEW.state, 'error', NEW.error,
                                                     'attempts', NEW.attempts, 'ran_on', NEW.ran_on));
        PERFORM pg_notify('ppbench', '');
    ELSIF NEW.progress IS DISTINCT FROM OLD.progress THEN
        INSERT INTO job_events (job_id, kind, data) VALUES (NEW.id, 'progress', jsonb_build_object('progress', NEW.progress));
        PERFORM pg_notify('ppbench', '');
    END IF;
    RETURN NULL;
END
$$;
