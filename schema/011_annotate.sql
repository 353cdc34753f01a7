-- 011_annotate: what an admin says about results and platforms (issue 15). A result can carry a note and be
-- excluded from analysis: exclusion is the flag 'excluded', so every view that keeps flagged results out of
-- efficiencies, bests and PP (pp_fom: flags = '{}') keeps it out too, and the PP size counts follow through their
-- UPDATE trigger. A platform's peak set by an admin over the API is kept when its worker registers again
-- (peak_set_at), with the source the admin gave.
ALTER TABLE results ADD COLUMN note text CHECK (length(note) <= 2000),
    ADD COLUMN annotated_at timestamptz;

-- The flags' CHECK gets 'excluded' beside whatever flags the earlier migrations allow (read from the
-- constraint itself, so a migration that added flags keeps them).
DO $$
DECLARE
    v_name text;
    v_def text;
BEGIN
    SELECT c.conname, pg_get_constraintdef(c.oid) INTO v_name, v_def FROM pg_constraint c
    WHERE c.conrelid = 'results'::regclass AND c.contype = 'c' AND pg_get_constraintdef(c.oid) LIKE '%flags <@%'
    LIMIT 1;
    IF v_name IS NULL THEN
        RAISE EXCEPTION 'no CHECK constraint on results.flags';
    END IF;
    EXECUTE format('ALTER TABLE results DROP CONSTRAINT %I', v_name);
    EXECUTE format('ALTER TABLE results ADD CONSTRAINT %I %s', v_name,
                   replace(v_def, 'ARRAY[', 'ARRAY[''excluded''::text, '));
END
$$;

ALTER TABLE platforms ADD COLUMN peak_set_at timestamptz;

-- Listing results newest first by id (the API's cursor), and a job's results.
CREATE INDEX results_id_desc ON results (platform_id, suite, kernel, id DESC);
