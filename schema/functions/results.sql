-- results: what a row of results gets as it is stored, whatever path it takes (a worker's report, an import,
-- SQL): its flags (above_ceiling against its platform's peak; 'noisy' comes with the row from ppbenchd, whose
-- setting is the bound) and its problem key. docs/METHODOLOGY.md, "Performance portability", says why. And how
-- a text cell of the CSV exports is written.

-- The share of a result's byte model that is compulsory: its figure of merit (bandwidth from the paper's
-- model) times this is the compulsory bandwidth, which architectural efficiency divides by the peak.
CREATE FUNCTION result_compulsory_share(p_id bigint) RETURNS double precision LANGUAGE sql STABLE AS $$
    SELECT coalesce(r.bytes_compulsory / nullif(r.bytes, 0), 1) FROM results r WHERE r.id = p_id
$$;

-- Every new row is judged as it is stored, whatever path it takes (worker report or import): its spread and
-- whether its compulsory bandwidth exceeds its platform's peak. An imported BabelStream row's model is
-- compulsory already. The 'noisy' flag comes with the row (the bound is the server's setting).
CREATE FUNCTION results_judge() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_peak double precision;
BEGIN
    IF NEW.bytes_compulsory IS NULL AND NEW.origin = 'import' THEN
        NEW.bytes_compulsory := NEW.bytes;
    END IF;
    NEW.cv := CASE WHEN NEW.mean_s > 0 AND NEW.stddev_s IS NOT NULL THEN NEW.stddev_s / NEW.mean_s END;
    NEW.max_min := CASE WHEN NEW.min_s > 0 THEN NEW.max_s / NEW.min_s END;
    SELECT p.peak_bandwidth INTO v_peak FROM platforms p WHERE p.id = NEW.platform_id;
    IF v_peak > 0 AND NEW.bytes > 0 AND NEW.bandwidth * coalesce(NEW.bytes_compulsory, NEW.bytes) / NEW.bytes > v_peak
       AND NOT 'above_ceiling' = ANY (NEW.flags) THEN
        NEW.flags := NEW.flags || 'above_ceiling'::text;
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER results_judge BEFORE INSERT ON results FOR EACH ROW EXECUTE FUNCTION results_judge();

CREATE FUNCTION results_problem_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.problem_key := coalesce(NEW.problem_key, NEW.provenance->'problem'->>'key',
                                'precision=' || NEW.precision || ';size=' || NEW.size);
    RETURN NEW;
END
$$;

CREATE TRIGGER results_problem_key BEFORE INSERT ON results FOR EACH ROW EXECUTE FUNCTION results_problem_key();

-- A text cell of the CSV exports (the default CSV, BabelStream's, both P3 forms), neutralised against CSV
-- injection as OWASP describes: a value a spreadsheet would take for a formula (it begins with = + - @, a tab
-- or a carriage return) gets a single quote in front, inside the quotes. Numbers never pass here: a negative
-- figure stays a number. csv_text is always quoted (the columns that always were); csv_cell only where it
-- must be (a formula, a comma, a quote or a line break), so plain names stay bare. NULL stays NULL.
CREATE FUNCTION csv_text(v text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT '"' || CASE WHEN v ~ '^[-=+@\t\r]' THEN '''' ELSE '' END || replace(v, '"', '""') || '"'
$$;

CREATE FUNCTION csv_cell(v text) RETURNS text LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT CASE WHEN v ~ '^[-=+@\t\r]|[",\r\n]' THEN csv_text(v) ELSE v END
$$;
